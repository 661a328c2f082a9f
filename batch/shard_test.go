package batch

import (
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseShard(t *testing.T) {
	cases := []struct {
		flag   string
		getenv func(string) string
		want   Shard
		err    string
	}{
		{"", env(), Shard{}, ""},
		{"0/1", env(), Shard{0, 1}, ""},
		{"2/3", env(), Shard{2, 3}, ""},
		{"3/3", env(), Shard{}, "K must be an integer from 0 to 2"},
		{"-1/3", env(), Shard{}, "K must be an integer from 0 to 2"},
		{"1/0", env(), Shard{}, "N a positive integer"},
		{"1", env(), Shard{}, "want K/N or auto/N"},
		{"x/2", env(), Shard{}, "K must be an integer"},
		// Kubernetes Indexed Jobs: zero-based.
		{"auto/4", env("JOB_COMPLETION_INDEX", "0"), Shard{0, 4}, ""},
		{"auto/4", env("JOB_COMPLETION_INDEX", "3"), Shard{3, 4}, ""},
		{"auto/4", env("JOB_COMPLETION_INDEX", "4"), Shard{}, "JOB_COMPLETION_INDEX gives shard 4, which is not below 4"},
		{"auto/4", env("JOB_COMPLETION_INDEX", "-1"), Shard{}, "not a zero-based index"},
		// GitLab parallel: one-based.
		{"auto/4", env("CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "4"), Shard{0, 4}, ""},
		{"auto/4", env("CI_NODE_INDEX", "4"), Shard{3, 4}, ""},
		{"auto/4", env("CI_NODE_INDEX", "5"), Shard{}, "CI_NODE_INDEX gives shard 4, which is not below 4"},
		{"auto/4", env("CI_NODE_INDEX", "0"), Shard{}, "not a one-based index"},
		{"auto/4", env("CI_NODE_INDEX", "2", "CI_NODE_TOTAL", "3"), Shard{}, "CI_NODE_TOTAL=3"},
		// Both: they must name the same shard.
		{"auto/4", env("JOB_COMPLETION_INDEX", "1", "CI_NODE_INDEX", "2"), Shard{1, 4}, ""},
		{"auto/4", env("JOB_COMPLETION_INDEX", "1", "CI_NODE_INDEX", "1"), Shard{}, "name different shards"},
		{"auto/4", env(), Shard{}, "neither JOB_COMPLETION_INDEX"},
		{"auto/4", env("JOB_COMPLETION_INDEX", "one"), Shard{}, "not a zero-based index"},
	}
	for _, c := range cases {
		got, err := ParseShard(c.flag, c.getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.flag, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.flag, got, err, c.want)
		}
	}
}

// The N shards of one input partition it: every task is in exactly one.
func TestShardsPartition(t *testing.T) {
	var tasks []Task
	for i := range 23 {
		tasks = append(tasks, Task{ID: string(rune('a' + i)), Index: i})
	}
	for n := 1; n <= 7; n++ {
		count := map[string]int{}
		for k := range n {
			for _, tk := range (Shard{k, n}).Select(tasks) {
				if tk.Index%n != k {
					t.Errorf("shard %d/%d holds index %d", k, n, tk.Index)
				}
				count[tk.ID]++
			}
		}
		for _, tk := range tasks {
			if count[tk.ID] != 1 {
				t.Errorf("N=%d: task %s in %d shards", n, tk.ID, count[tk.ID])
			}
		}
	}
}
