package tests

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/batch"
)

// decodeAll decodes every YAML document of a file.
func decodeAll(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			return docs
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
}

// get walks a decoded YAML tree by map keys and list indexes.
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("no %q in %v", k, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("no [%d] in %v", k, v)
			}
			v = l[k]
		}
	}
	return v
}

// The Kubernetes recipe is an Indexed Job whose N pods each run shard
// auto/N of the ConfigMap's (valid) task file, writing a result file of
// their own.
func TestKubernetesJob(t *testing.T) {
	docs := decodeAll(t, "../deploy/kubernetes/job.yaml")
	kinds := map[string]map[string]any{}
	for _, d := range docs {
		kinds[d["kind"].(string)] = d
	}
	job, cm := kinds["Job"], kinds["ConfigMap"]
	if job == nil || cm == nil || kinds["PersistentVolumeClaim"] == nil {
		t.Fatalf("kinds %v", kinds)
	}
	if get(t, job, "spec", "completionMode") != "Indexed" {
		t.Error("not an Indexed Job")
	}
	n := get(t, job, "spec", "completions").(int)
	c := get(t, job, "spec", "template", "spec", "containers", 0)
	var argv []string
	for _, part := range []string{"command", "args"} {
		for _, a := range get(t, c, part).([]any) {
			argv = append(argv, a.(string))
		}
	}
	line := strings.Join(argv, " ")
	if !strings.HasPrefix(line, "gen agent batch /tasks/tasks.jsonl") || !strings.Contains(line, "--shard auto/"+strconv.Itoa(n)) ||
		!strings.Contains(line, "--output /results/$(JOB_COMPLETION_INDEX).jsonl") {
		t.Errorf("the job runs %q (completions %d)", line, n)
	}
	tasks, err := batch.Parse(strings.NewReader(get(t, cm, "data", "tasks.jsonl").(string)), "configmap tasks.jsonl", "/tasks")
	if err != nil || len(tasks) == 0 {
		t.Errorf("the ConfigMap's tasks: %v", err)
	}
}

// The GitHub Actions recipe runs one shard per matrix entry, uploads each
// shard's results, and merges them in a job that fails on a failed task.
func TestGitHubActionsExample(t *testing.T) {
	docs := decodeAll(t, "../examples/github-actions.yml")
	wf := docs[0]
	shards := get(t, wf, "jobs", "shard", "strategy", "matrix", "shard").([]any)
	var runs, uses []string
	for _, s := range get(t, wf, "jobs", "shard", "steps").([]any) {
		m := s.(map[string]any)
		if r, ok := m["run"].(string); ok {
			runs = append(runs, r)
		}
		if u, ok := m["uses"].(string); ok {
			uses = append(uses, u)
		}
	}
	all := strings.Join(runs, "\n")
	want := regexp.MustCompile(`gen agent batch tasks\.jsonl --shard \$\{\{ matrix\.shard \}\}/` + strconv.Itoa(len(shards)) + `\b`)
	if !want.MatchString(all) {
		t.Errorf("no step runs %v:\n%s", want, all)
	}
	for i, s := range shards {
		if s.(int) != i {
			t.Errorf("matrix shards %v are not 0..%d", shards, len(shards)-1)
		}
	}
	if !strings.Contains(strings.Join(uses, " "), "actions/upload-artifact") {
		t.Errorf("shard steps use %v: no artifact upload", uses)
	}
	merge := get(t, wf, "jobs", "merge")
	if get(t, merge, "needs") != "shard" {
		t.Error("merge does not wait for the shards")
	}
	var mergeRuns []string
	for _, s := range get(t, merge, "steps").([]any) {
		if r, ok := s.(map[string]any)["run"].(string); ok {
			mergeRuns = append(mergeRuns, r)
		}
	}
	m := strings.Join(mergeRuns, "\n")
	if !strings.Contains(m, "cat results-*.jsonl") || !strings.Contains(m, "exit 1") {
		t.Errorf("merge steps:\n%s", m)
	}
}

// The Dockerfile builds gen in a Go stage from the module cache only and
// ships an image with bash and git.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{"GOPROXY=off", "go build", "./cmd/gen", "apk add --no-cache bash git", `ENTRYPOINT ["gen"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
