package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/perm"
)

// hookedSet returns env's built-in tools as a Set whose gate, in bypass
// mode, runs the user hooks that settings (a settings file's "hooks")
// configure, for a session "s" in dir.
func hookedSet(t *testing.T, env *Env, dir, settings string) *Set {
	t.Helper()
	cfg, err := hook.Parse("test settings", []byte(settings))
	must(t, err)
	pol := perm.Policy{Mode: perm.ModeBypass, Workspace: env.Workspace}
	policy := func() perm.Policy { return pol }
	g := &gate.Gate{Policy: policy, Hooks: &hook.Agent{Runner: &hook.Runner{Config: cfg.WithSource(perm.SourceUser)}, SessionID: "s", Cwd: dir}}
	set, err := NewSet(g, Toolbox{Env: env, Policy: policy}.Tools())
	must(t, err)
	return set
}

// respond runs the built-in tool name from env's file tools as a Set
// does, and returns its text and its response encoded as hooks get it.
func respond(t *testing.T, env *Env, name string, in map[string]any) (string, map[string]any) {
	t.Helper()
	for _, tl := range fileTools(env) {
		if tl.Name() != name {
			continue
		}
		r, ok := tl.(Responder)
		if !ok {
			t.Fatalf("%s is not a Responder", name)
		}
		text, resp, err := r.RunResponse(context.Background(), Call{Input: in})
		if err != nil {
			t.Fatal(err)
		}
		return text, asJSON(t, resp)
	}
	t.Fatalf("no built-in tool %q", name)
	return "", nil
}

// asJSON is v encoded and decoded as a JSON object.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m
}

// TestResponses: each Responder's response has Claude Code's fields with
// the values of the call that ran, and output, the text it returned.
func TestResponses(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	env, dir := testEnv(t)
	files(t, dir, map[string]string{
		"four.txt":    "one\ntwo\nthree\nfour\n",
		"partial.txt": "x\ny\nz",
		"empty.txt":   "",
		"src/a.go":    "package a // TODO one\n\n// TODO two\n",
		"src/b.go":    "package b\n",
		"src/c.go":    "// TODO three\n",
	})
	abs := func(p string) string { return filepath.Join(dir, p) }
	tests := []struct {
		name string
		tool string
		in   map[string]any
		want map[string]any // without output, which must be the text
	}{
		{"Bash: both streams in stdout, in order, without the status line", "Bash",
			map[string]any{"command": "echo one; echo two >&2; echo three; exit 3"},
			map[string]any{"stdout": "one\ntwo\nthree", "stderr": "", "interrupted": false, "isImage": false}},
		{"Bash: no output", "Bash", map[string]any{"command": "true"},
			map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false}},
		// A short timeout, asserted by the flag it sets, not by time.
		{"Bash: killed by its timeout", "Bash", map[string]any{"command": "exec sleep 300", "timeout": 200.0},
			map[string]any{"stdout": "", "stderr": "", "interrupted": true, "isImage": false}},
		{"Read: a window", "Read", map[string]any{"file_path": "four.txt", "offset": 2.0, "limit": 2.0},
			map[string]any{"type": "text", "file": map[string]any{"filePath": abs("four.txt"), "content": "two\nthree",
				"numLines": 2.0, "startLine": 2.0, "totalLines": 4.0}}},
		{"Read: the lines after the window are counted", "Read", map[string]any{"file_path": "four.txt", "limit": 1.0},
			map[string]any{"type": "text", "file": map[string]any{"filePath": abs("four.txt"), "content": "one",
				"numLines": 1.0, "startLine": 1.0, "totalLines": 4.0}}},
		{"Read: a whole file", "Read", map[string]any{"file_path": abs("partial.txt")},
			map[string]any{"type": "text", "file": map[string]any{"filePath": abs("partial.txt"), "content": "x\ny\nz",
				"numLines": 3.0, "startLine": 1.0, "totalLines": 3.0}}},
		{"Read: a last line without a newline counts", "Read", map[string]any{"file_path": "partial.txt", "limit": 1.0},
			map[string]any{"type": "text", "file": map[string]any{"filePath": abs("partial.txt"), "content": "x",
				"numLines": 1.0, "startLine": 1.0, "totalLines": 3.0}}},
		{"Read: an empty file", "Read", map[string]any{"file_path": "empty.txt"},
			map[string]any{"type": "text", "file": map[string]any{"filePath": abs("empty.txt"), "content": "",
				"numLines": 0.0, "startLine": 1.0, "totalLines": 0.0}}},
		{"Read: past the end", "Read", map[string]any{"file_path": "four.txt", "offset": 9.0},
			map[string]any{"type": "text", "file": map[string]any{"filePath": abs("four.txt"), "content": "",
				"numLines": 0.0, "startLine": 9.0, "totalLines": 4.0}}},
		{"Glob", "Glob", map[string]any{"pattern": "**/*.go"},
			map[string]any{"filenames": []any{abs("src/a.go"), abs("src/b.go"), abs("src/c.go")}, "numFiles": 3.0, "truncated": false}},
		{"Glob: nothing matched", "Glob", map[string]any{"pattern": "*.md"},
			map[string]any{"filenames": []any{}, "numFiles": 0.0, "truncated": false}},
		{"Grep", "Grep", map[string]any{"pattern": "TODO"},
			map[string]any{"mode": "content", "filenames": []any{"src/a.go", "src/c.go"}, "numFiles": 2.0,
				"content": "src/a.go:1:package a // TODO one\nsrc/a.go:3:// TODO two\nsrc/c.go:1:// TODO three", "numLines": 3.0}},
		{"Grep: cut at max_results", "Grep", map[string]any{"pattern": "TODO", "max_results": 2.0},
			map[string]any{"mode": "content", "filenames": []any{"src/a.go"}, "numFiles": 1.0,
				"content": "src/a.go:1:package a // TODO one\nsrc/a.go:3:// TODO two", "numLines": 2.0, "appliedLimit": 2.0}},
		{"Grep: no matches", "Grep", map[string]any{"pattern": "FIXME"},
			map[string]any{"mode": "content", "filenames": []any{}, "numFiles": 0.0, "content": "", "numLines": 0.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, got := respond(t, env, tt.tool, tt.in)
			if got["output"] != text {
				t.Errorf("output = %q, want the text %q", got["output"], text)
			}
			delete(got, "output")
			if tt.tool == "Glob" {
				// How long the walk took varies; it is there.
				if _, ok := got["durationMs"].(float64); !ok {
					t.Errorf("durationMs = %v", got["durationMs"])
				}
				delete(got, "durationMs")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("response\n%v\nwant\n%v\n(text %q)", got, tt.want, text)
			}
		})
	}
}

// A Read window of a file too big to read whole does not read on to count
// the file's lines: totalLines is left out.
func TestReadResponseTotalUnknown(t *testing.T) {
	env, dir := testEnv(t)
	p := filepath.Join(dir, "big")
	files(t, dir, map[string]string{"big": "first\nsecond\n" + strings.Repeat("text\n", binarySniff/4)})
	must(t, os.Truncate(p, hashLimit+1))
	_, got := respond(t, env, "Read", map[string]any{"file_path": "big", "limit": 1.0})
	file, _ := got["file"].(map[string]any)
	if _, ok := file["totalLines"]; ok || file["content"] != "first" || file["numLines"] != 1.0 {
		t.Errorf("file = %v, want content first, one line and no totalLines", file)
	}
	// Read to its end, the same file's lines are counted.
	_, got = respond(t, env, "Read", map[string]any{"file_path": "big", "offset": 2000.0, "limit": 100.0})
	file, _ = got["file"].(map[string]any)
	if want := float64(2 + binarySniff/4 + 1); file["totalLines"] != want {
		t.Errorf("totalLines = %v, want %v", file["totalLines"], want)
	}
}

// Glob lists at most maxGlobResults files: the response has those, and
// says the list was cut.
func TestGlobResponseTruncated(t *testing.T) {
	env, dir := testEnv(t)
	m := map[string]string{}
	for i := range maxGlobResults + 1 {
		m[fmt.Sprintf("f%04d.txt", i)] = ""
	}
	files(t, dir, m)
	text, got := respond(t, env, "Glob", map[string]any{"pattern": "*.txt"})
	names, _ := got["filenames"].([]any)
	if got["truncated"] != true || got["numFiles"] != float64(maxGlobResults) || len(names) != maxGlobResults ||
		names[0] != filepath.Join(dir, "f0000.txt") || !strings.Contains(text, "(truncated: 1 more)") {
		t.Errorf("truncated %v, numFiles %v, %d names from %v", got["truncated"], got["numFiles"], len(names), names[:min(len(names), 1)])
	}
}

// End to end: calls through a Set and the real gate reach a real
// PostToolUse command hook, which dumps its stdin, with the tools'
// responses as tool_response.
func TestPostToolUseGetsResponses(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	env, dir := testEnv(t)
	files(t, dir, map[string]string{"notes.txt": "alpha\nbeta\n"})
	hooks := t.TempDir()
	dump := filepath.Join(hooks, "dump.sh")
	must(t, os.WriteFile(dump, []byte("#!/bin/bash\ncat >> \""+hooks+"/post.jsonl\"; echo >> \""+hooks+"/post.jsonl\"\n"), 0o755))
	set := hookedSet(t, env, dir, fmt.Sprintf(
		`{"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": %q}]}]}`, dump))
	calls := []struct {
		tool string
		in   map[string]any
	}{
		{"Bash", map[string]any{"command": "echo out; echo err >&2"}},
		{"Bash", map[string]any{"command": "exec sleep 300", "timeout": 200.0}},
		{"Read", map[string]any{"file_path": "notes.txt", "offset": 2.0}},
		{"Glob", map[string]any{"pattern": "*.txt"}},
		{"Grep", map[string]any{"pattern": "beta"}},
	}
	var outputs []string
	for _, c := range calls {
		r := set.Call(context.Background(), c.tool, "id", c.in, nil)
		if r.Err != nil {
			t.Fatalf("%s: %v", c.tool, r.Err)
		}
		outputs = append(outputs, r.Output)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(hooks, "post.jsonl"))), "\n")
	if len(lines) != len(calls) {
		t.Fatalf("%d hook inputs, want %d:\n%s", len(lines), len(calls), strings.Join(lines, "\n"))
	}
	notes := filepath.Join(dir, "notes.txt")
	want := []map[string]any{
		{"stdout": "out\nerr", "stderr": "", "interrupted": false, "isImage": false},
		{"stdout": "", "stderr": "", "interrupted": true, "isImage": false},
		{"type": "text", "file": map[string]any{"filePath": notes, "content": "beta", "numLines": 1.0, "startLine": 2.0, "totalLines": 2.0}},
		{"filenames": []any{notes}, "numFiles": 1.0, "truncated": false},
		{"mode": "content", "filenames": []any{"notes.txt"}, "numFiles": 1.0, "content": "notes.txt:2:beta", "numLines": 1.0},
	}
	for i, line := range lines {
		var in map[string]any
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("hook input %d: %v: %s", i, err, line)
		}
		got, _ := in["tool_response"].(map[string]any)
		if in["tool_name"] != calls[i].tool || got["output"] != outputs[i] {
			t.Errorf("%s: tool_name %v, output %q, want the text %q", calls[i].tool, in["tool_name"], got["output"], outputs[i])
		}
		delete(got, "output")
		delete(got, "durationMs")
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s: tool_response\n%v\nwant\n%v", calls[i].tool, got, want[i])
		}
	}
}

// As in Claude Code, a command that exits non-zero runs the
// PostToolUseFailure hooks, told its output and exit status as the
// error, and not PostToolUse; what they add follows the output the model
// is given. One that exits 0 runs PostToolUse only.
func TestFailedCommandReviewedAsFailure(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	env, dir := testEnv(t)
	hooks := t.TempDir()
	dump := filepath.Join(hooks, "dump.sh")
	// The hook keeps its input and, as a failure's, adds context.
	must(t, os.WriteFile(dump, []byte("#!/bin/bash\nin=$(cat)\nprintf '%s\\n' \"$in\" >> \""+hooks+"/in.jsonl\"\n"+
		"case $in in *PostToolUseFailure*) echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUseFailure\", \"additionalContext\": \"Run make first.\"}}';; esac\n"), 0o755))
	set := hookedSet(t, env, dir, fmt.Sprintf(
		`{"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}], "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}]}`, dump, dump))
	failed := set.Call(context.Background(), "Bash", "id", map[string]any{"command": "echo boom >&2; exit 3"}, nil)
	ok := set.Call(context.Background(), "Bash", "id", map[string]any{"command": "echo fine"}, nil)
	if failed.Err != nil || ok.Err != nil {
		t.Fatalf("errors %v, %v", failed.Err, ok.Err)
	}
	if !strings.Contains(failed.Output, "boom\nexit code: 3\n") || !strings.HasSuffix(failed.Output, "\n\nRun make first.") {
		t.Errorf("the model is told %q, want the output, then the hook's context", failed.Output)
	}
	if strings.Contains(ok.Output, "Run make first.") {
		t.Errorf("a command that exited 0 was reviewed as a failure: %q", ok.Output)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(hooks, "in.jsonl"))), "\n")
	var events []string
	for _, l := range lines {
		var in map[string]any
		must(t, json.Unmarshal([]byte(l), &in))
		events = append(events, fmt.Sprint(in["hook_event_name"]))
		if in["hook_event_name"] == "PostToolUseFailure" && in["error"] != "boom\nexit code: 3\n" {
			t.Errorf("PostToolUseFailure error %q", in["error"])
		}
	}
	if want := []string{"PostToolUseFailure", "PostToolUse"}; !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
}
