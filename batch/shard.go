package batch

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a task file split N ways: the tasks whose index i
// satisfies i mod N = K. The N shards of one file partition it exactly.
// The zero Shard is the whole file.
type Shard struct{ K, N int }

// The environment variables --shard auto/N reads K from.
const (
	// EnvJobIndex is set by Kubernetes Indexed Jobs: zero-based.
	EnvJobIndex = "JOB_COMPLETION_INDEX"
	// EnvNodeIndex is set by GitLab CI for jobs with `parallel: N`:
	// one-based (1..CI_NODE_TOTAL). Other CI systems that set it
	// (Buildkite's parallel jobs use their own names) are not read.
	EnvNodeIndex = "CI_NODE_INDEX"
	// EnvNodeTotal is GitLab's job count; when set it must equal N.
	EnvNodeTotal = "CI_NODE_TOTAL"
)

// ParseShard parses --shard: "" (the whole file), "K/N" with 0 ≤ K < N,
// or "auto/N", which takes K from the environment through getenv:
// JOB_COMPLETION_INDEX (zero-based) or CI_NODE_INDEX (GitLab's, one-based,
// so K = CI_NODE_INDEX-1). Both set and disagreeing, neither set, a
// CI_NODE_TOTAL other than N, or a K out of range is an error: a shard
// that guessed would run tasks twice or never.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return Shard{}, fmt.Errorf("--shard %q: want K/N or auto/N with N a positive integer", s)
	}
	if ks != "auto" {
		k, err := strconv.Atoi(ks)
		if err != nil || k < 0 || k >= n {
			return Shard{}, fmt.Errorf("--shard %q: K must be an integer from 0 to %d", s, n-1)
		}
		return Shard{k, n}, nil
	}
	k := -1
	from := ""
	if v := getenv(EnvJobIndex); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return Shard{}, fmt.Errorf("--shard auto: %s=%q is not a zero-based index", EnvJobIndex, v)
		}
		k, from = i, EnvJobIndex
	}
	if v := getenv(EnvNodeIndex); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 1 {
			return Shard{}, fmt.Errorf("--shard auto: %s=%q is not a one-based index", EnvNodeIndex, v)
		}
		if t := getenv(EnvNodeTotal); t != "" && t != strconv.Itoa(n) {
			return Shard{}, fmt.Errorf("--shard auto/%d: %s=%s says the job runs %s ways", n, EnvNodeTotal, t, t)
		}
		if k >= 0 && k != i-1 {
			return Shard{}, fmt.Errorf("--shard auto: %s=%d and %s=%d (one-based) name different shards", EnvJobIndex, k, EnvNodeIndex, i)
		}
		if k < 0 {
			k, from = i-1, EnvNodeIndex
		}
	}
	if k < 0 {
		return Shard{}, fmt.Errorf("--shard auto: neither %s (Kubernetes Indexed Job) nor %s (GitLab parallel) is set", EnvJobIndex, EnvNodeIndex)
	}
	if k >= n {
		return Shard{}, fmt.Errorf("--shard auto/%d: %s gives shard %d, which is not below %d", n, from, k, n)
	}
	return Shard{k, n}, nil
}

// Select returns the tasks of shard s, in order.
func (s Shard) Select(tasks []Task) []Task {
	if s.N <= 1 {
		return tasks
	}
	var out []Task
	for _, t := range tasks {
		if t.Index%s.N == s.K {
			out = append(out, t)
		}
	}
	return out
}

func (s Shard) String() string {
	if s.N <= 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}
