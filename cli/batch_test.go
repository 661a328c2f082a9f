package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gen-run/gen/batch"
)

// task is one task line.
func task(id, typ, prompt string, extra ...string) string {
	s := fmt.Sprintf(`{"id":%q,"type":%q,"prompt":%q`, id, typ, prompt)
	for i := 0; i+1 < len(extra); i += 2 {
		s += fmt.Sprintf(",%q:%s", extra[i], extra[i+1])
	}
	return s + "}"
}

// writeTasks writes a task file into dir and returns its path.
func writeTasks(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// batchResults reads a result file: one result per id, each line whole.
func batchResults(t *testing.T, path string) map[string]batch.Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseResults(t, data)
}

func parseResults(t *testing.T, data []byte) map[string]batch.Result {
	t.Helper()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("result output ends in a partial line: %q", data)
	}
	m := map[string]batch.Result{}
	for l := range strings.Lines(string(data)) {
		var r batch.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if _, dup := m[r.ID]; dup {
			t.Fatalf("two result lines for %s", r.ID)
		}
		m[r.ID] = r
	}
	return m
}

func TestBatchExitCodesAndResults(t *testing.T) {
	dir := project(t)
	ok := task("ok", "test-perm", "Read: a.txt", "metadata", `{"repo":"r1","n":1}`)
	denied := task("denied", "test-perm", "Run bash: git stash list")
	unknown := task("unknown", "nobody", "Read: a.txt")
	maxTurns := task("turns", "test-perm", `Read: a.txt\nRead: a.txt`, "max_turns", "1")
	for _, c := range []struct {
		name  string
		lines []string
		code  int
	}{
		{"all ok", []string{ok}, ExitOK},
		{"a denial", []string{ok, denied}, ExitDenied},
		{"unknown agent type fails its task", []string{ok, denied, unknown}, ExitFailed},
		{"max turns fails its task", []string{maxTurns, ok}, ExitFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := writeTasks(t, dir, c.lines...)
			code, out, errs := run("agent", "batch", in)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, errs)
			}
			res := parseResults(t, []byte(out))
			if len(res) != len(c.lines) {
				t.Fatalf("%d results for %d tasks:\n%s", len(res), len(c.lines), out)
			}
			if !strings.Contains(errs, fmt.Sprintf("gen batch: %d tasks", len(c.lines))) {
				t.Errorf("stderr lacks the summary:\n%s", errs)
			}
		})
	}
	in := writeTasks(t, dir, ok, denied, unknown, maxTurns)
	_, out, errs := run("agent", "batch", in, "--concurrency", "1")
	res := parseResults(t, []byte(out))
	if r := res["ok"]; r.ExitCode != 0 || r.IsError || string(r.Metadata) != `{"repo":"r1","n":1}` || r.Result != "RESULT: Read(a.txt) -> ALLOWED" ||
		r.NumTurns != 2 || r.Usage.InputTokens == 0 || r.SessionID == "" || r.Type != "test-perm" || len(r.PermissionDenials) != 0 {
		t.Errorf("ok: %+v", r)
	}
	if r := res["denied"]; r.ExitCode != 3 || r.IsError || len(r.PermissionDenials) != 1 ||
		r.PermissionDenials[0].ToolName != "Bash" || r.PermissionDenials[0].Reason != "tool Bash is blocked by deny_tools" {
		t.Errorf("denied: %+v", r)
	}
	if r := res["unknown"]; r.ExitCode != 1 || !r.IsError || !strings.Contains(r.Error, `unknown agent type "nobody"`) {
		t.Errorf("unknown: %+v", r)
	}
	if r := res["turns"]; r.ExitCode != 1 || !strings.Contains(r.Error, "maximum number of turns") {
		t.Errorf("turns: %+v", r)
	}
	for _, want := range []string{"[1/4] ok test-perm ok ", "[2/4] denied test-perm denied ", "[3/4] unknown nobody failed ", "1 ok, 1 denied, 2 failed", "tool Bash is blocked by deny_tools"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// The denial objects are those of gen agent run --output-format json.
	_, single, _ := run("agent", "run", "--cwd", dir, "--type", "test-perm", "--prompt", "Run bash: git stash list", "--output-format", "json")
	var obj struct {
		Denials json.RawMessage `json:"permission_denials"`
	}
	json.Unmarshal([]byte(single), &obj)
	if got, _ := json.Marshal(res["denied"].PermissionDenials); string(got) != string(obj.Denials) {
		t.Errorf("batch denials %s, agent run %s", got, obj.Denials)
	}
}

// A bad task file is exit 2 naming file:line, and nothing runs: not even
// the valid lines before the bad one.
func TestBatchValidation(t *testing.T) {
	dir := project(t)
	in := writeTasks(t, dir,
		task("a", "general-purpose", "Write made.txt: x"),
		`{"id":"b","type":"test-perm"}`,
		task("a", "test-perm", "Read: a.txt"),
		task("c", "test-perm", "Read: a.txt", "permission_mode", `"sudo"`),
	)
	outFile := filepath.Join(dir, "out.jsonl")
	code, out, errs := run("agent", "batch", in, "--output", outFile)
	if code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{in + ":2: missing prompt", in + `:3: duplicate id "a" (first on line 1)`, in + `:4: permission_mode: unknown permission mode "sudo"`, "no task was run"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("a task ran")
	}
	if _, err := os.Stat(outFile); err == nil {
		t.Error("the output file was created")
	}
}

func TestBatchUsageErrors(t *testing.T) {
	dir := project(t)
	in := writeTasks(t, dir, task("a", "test-perm", "Read: a.txt"))
	full := filepath.Join(dir, "full.jsonl")
	os.WriteFile(full, []byte(`{"id":"x"}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--concurrency", "0"}, "--concurrency must be at least 1"},
		{[]string{"--shard", "2/2"}, "K must be an integer from 0 to 1"},
		{[]string{"--shard", "auto/2"}, "neither JOB_COMPLETION_INDEX"},
		{[]string{"--resume"}, "--resume needs --output FILE"},
		{[]string{"--output", full}, "already holds results: pass --resume"},
		{[]string{"--permission-mode", "yolo"}, `unknown permission mode "yolo"`},
		{[]string{"--disallowedTools", "Bash("}, "--disallowedTools"},
		{[]string{"--allowedTools", "Read(("}, "--allowedTools"},
		{[]string{"--add-dir", filepath.Join(dir, "nope")}, "not an existing directory"},
		{[]string{"--bogus"}, "unknown flag"},
		{[]string{filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{dir}, "is a directory"},
	} {
		args := append([]string{"agent", "batch"}, c.args...)
		if !slices.ContainsFunc(c.args, func(a string) bool { return strings.HasSuffix(a, ".jsonl") && a != full || a == dir }) {
			args = append(args, in)
		}
		code, out, errs := run(args...)
		if code != ExitUsage || !strings.Contains(errs, c.msg) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.msg)
		}
	}
	// Standard input from a terminal is no task file.
	var errb bytes.Buffer
	code := Run(context.Background(), []string{"agent", "batch"}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errb, InTerminal: true})
	if code != ExitUsage || !strings.Contains(errb.String(), "no task file") {
		t.Errorf("exit %d, %s", code, errb.String())
	}
}

// Tasks come from standard input with "-" (or no argument); their
// relative cwd resolves against the working directory then, and against
// the task file's directory otherwise.
func TestBatchStdinAndCwd(t *testing.T) {
	dir := project(t)
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "b.txt"), []byte("in sub\n"), 0o644)
	t.Chdir(dir)
	lines := task("s", "test-perm", "Read: b.txt", "cwd", `"sub"`) + "\n"
	for _, args := range [][]string{{"agent", "batch", "-"}, {"agent", "batch"}} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, Streams{In: strings.NewReader(lines), Out: &out, Err: &errb})
		if r := parseResults(t, out.Bytes())["s"]; code != 0 || !strings.Contains(r.Result, "ALLOWED") {
			t.Fatalf("%v: exit %d, %+v, %s", args, code, r, errb.String())
		}
	}
	// From a file elsewhere, cwd is relative to the file.
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "sub"), 0o755)
	in := writeTasks(t, other, lines)
	code, out, _ := run("agent", "batch", in)
	if r := parseResults(t, []byte(out))["s"]; code != 0 || !strings.Contains(r.Result, "Read: b.txt does not exist") {
		t.Errorf("exit %d, %+v", code, r)
	}
	// A cwd that does not exist fails its task only.
	in = writeTasks(t, dir, task("gone", "test-perm", "Read: a.txt", "cwd", `"nowhere"`), task("here", "test-perm", "Read: a.txt"))
	code, out, _ = run("agent", "batch", in)
	res := parseResults(t, []byte(out))
	if code != ExitFailed || !strings.Contains(res["gone"].Error, "not a directory") || res["here"].ExitCode != 0 {
		t.Errorf("exit %d, %+v", code, res)
	}
}

// Each flag that shapes the policy applies to every task, and none
// widens what an agent may do.
func TestBatchPolicyFlags(t *testing.T) {
	dir := project(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.txt"), []byte("outside\n"), 0o644)
	// A Bash call that writes asks in default and acceptEdits mode (and
	// so is denied headless); the reason names the mode the task ran in.
	touch := "Run bash: touch made.txt"
	cases := []struct {
		name   string
		lines  []string
		flags  []string
		code   int
		result string // substring of task w's result
	}{
		{"the agent's mode", []string{task("w", "general-purpose", touch)}, nil, 3, "in acceptEdits mode"},
		{"--permission-mode default caps it", []string{task("w", "general-purpose", touch)}, []string{"--permission-mode", "default"}, 3, "in default mode"},
		{"--permission-mode bypassPermissions does not widen", []string{task("w", "general-purpose", touch)}, []string{"--permission-mode", "bypassPermissions"}, 3, "in acceptEdits mode"},
		{"task permission_mode narrows", []string{task("w", "general-purpose", touch, "permission_mode", `"explore"`)}, nil, 0, `tool "Bash" is not available`},
		{"task permission_mode does not widen", []string{task("w", "general-purpose", touch, "permission_mode", `"bypassPermissions"`)}, nil, 3, "in acceptEdits mode"},
		{"task and flag: the narrower wins", []string{task("w", "general-purpose", touch, "permission_mode", `"acceptEdits"`)}, []string{"--permission-mode", "dontAsk"}, 3, "dontAsk mode: not pre-allowed"},
		{"--disallowedTools hides a tool", []string{task("w", "test-perm", "Read: a.txt")}, []string{"--disallowedTools", "Read"}, 0, `tool "Read" is not available`},
		{"--disallowedTools denies", []string{task("w", "test-perm", "Read: a.txt")}, []string{"--disallowedTools", "Read(a.txt)"}, 3, "Read(a.txt) -> DENIED"},
		{"--disallowedTools takes a list", []string{task("w", "test-perm", "Read: a.txt")}, []string{"--disallowedTools", "Read(b.txt),Read(a.txt)"}, 3, "Read(a.txt) -> DENIED"},
		{"outside the workspace is denied", []string{task("w", "general-purpose", "Read: "+filepath.Join(outside, "o.txt"))}, nil, 3, "DENIED"},
		{"--add-dir adds a directory", []string{task("w", "general-purpose", "Read: "+filepath.Join(outside, "o.txt"))}, []string{"--add-dir", outside}, 0, "ALLOWED"},
		{"--model offline", []string{task("w", "test-perm", "Read: a.txt")}, []string{"--model", "offline"}, 0, "ALLOWED"},
		{"task model offline", []string{task("w", "test-perm", "Read: a.txt", "model", `"offline"`)}, nil, 0, "ALLOWED"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := writeTasks(t, dir, c.lines...)
			code, out, errs := run(append([]string{"agent", "batch", in}, c.flags...)...)
			r := parseResults(t, []byte(out))["w"]
			if code != c.code || !strings.Contains(r.Result, c.result) {
				t.Fatalf("exit %d, result %q; want exit %d and %q\n%s", code, r.Result, c.code, c.result, errs)
			}
		})
	}
	// --allowedTools is accepted, and says it does not reach a subagent.
	in := writeTasks(t, dir, task("w", "test-perm", "Run bash: npm test"))
	code, _, errs := run("agent", "batch", in, "--allowedTools", "Bash(npm test)")
	if code != ExitDenied || !strings.Contains(errs, "--allowedTools: a subagent's allow_tools decide") {
		t.Errorf("exit %d, %s", code, errs)
	}
}

func TestBatchSummaryFile(t *testing.T) {
	dir := project(t)
	in := writeTasks(t, dir, task("a", "test-perm", "Read: a.txt"), task("b", "test-perm", "Run bash: git stash list"), task("c", "test-perm", "Run bash: git stash pop"))
	path := filepath.Join(dir, "summary.json")
	code, _, _ := run("agent", "batch", in, "--summary", path)
	var s batch.Summary
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &s); err != nil || code != ExitDenied {
		t.Fatalf("exit %d, %s: %v", code, data, err)
	}
	if s.Tasks != 3 || s.OK != 1 || s.Denied != 2 || s.ExitCode != ExitDenied ||
		len(s.TopDenials) != 1 || s.TopDenials[0] != (batch.ReasonCount{Reason: "tool Bash is blocked by deny_tools", Count: 2}) {
		t.Errorf("summary %+v", s)
	}
}

func TestBatchFailFast(t *testing.T) {
	dir := project(t)
	in := writeTasks(t, dir, task("a", "test-perm", "Read: a.txt"), task("b", "nobody", "x"), task("c", "test-perm", "Read: a.txt"), task("d", "test-perm", "Read: a.txt"))
	code, out, errs := run("agent", "batch", in, "--fail-fast", "--concurrency", "1")
	res := parseResults(t, []byte(out))
	if code != ExitFailed || len(res) != 2 || res["b"].ExitCode != 1 || !strings.Contains(errs, "2 not started") {
		t.Errorf("exit %d, %v\n%s", code, res, errs)
	}
}

// The N shards of one input, run separately, give every task exactly once.
func TestBatchShardsCoverInputOnce(t *testing.T) {
	dir := project(t)
	var lines []string
	for i := range 17 {
		lines = append(lines, task(fmt.Sprintf("t%02d", i), "test-perm", "Read: a.txt"))
	}
	in := writeTasks(t, dir, lines...)
	const n = 4
	seen := map[string]int{}
	for k := range n {
		out := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", k))
		if code, _, errs := run("agent", "batch", in, "--shard", fmt.Sprintf("%d/%d", k, n), "--output", out); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", k, code, errs)
		}
		for id := range batchResults(t, out) {
			var i int
			fmt.Sscanf(id, "t%d", &i)
			if i%n != k {
				t.Errorf("shard %d ran %s", k, id)
			}
			seen[id]++
		}
	}
	if len(seen) != len(lines) {
		t.Errorf("%d distinct tasks ran, want %d", len(seen), len(lines))
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("%s ran %d times", id, c)
		}
	}
	// auto/N reads the shard from the environment (GitLab: one-based).
	t.Setenv("CI_NODE_INDEX", "2")
	t.Setenv("CI_NODE_TOTAL", "4")
	_, out, _ := run("agent", "batch", in, "--shard", "auto/4")
	res := parseResults(t, []byte(out))
	if len(res) != 4 || res["t01"].ID == "" || res["t13"].ID == "" {
		t.Errorf("auto/4 with CI_NODE_INDEX=2 ran %v", res)
	}
}

// --resume skips what is done, runs the rest, and appends.
func TestBatchResume(t *testing.T) {
	dir := project(t)
	in := writeTasks(t, dir, task("a", "test-perm", "Read: a.txt"), task("b", "test-perm", "Read: a.txt"), task("c", "test-perm", "Read: a.txt"))
	out := filepath.Join(dir, "out.jsonl")
	// A previous run finished a, was interrupted in b, and crashed while
	// writing c's line.
	prev := `{"id":"a","type":"test-perm","exit_code":0,"result":"from before"}` + "\n" +
		`{"id":"b","type":"test-perm","exit_code":1,"is_error":true,"interrupted":true}` + "\n" + `{"id":"c","ty`
	os.WriteFile(out, []byte(prev), 0o644)
	code, stdout, errs := run("agent", "batch", in, "--output", out, "--resume")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, errs)
	}
	res := batchResults(t, out)
	if len(res) != 3 || res["a"].Result != "from before" || res["b"].Interrupted || res["c"].ExitCode != 0 {
		t.Errorf("results %+v", res)
	}
	if !strings.Contains(errs, "1 skipped as done") || !strings.Contains(errs, "2 tasks") {
		t.Errorf("stderr:\n%s", errs)
	}
	// Everything done: nothing runs, nothing is appended.
	before, _ := os.ReadFile(out)
	if code, _, _ := run("agent", "batch", in, "--output", out, "--resume"); code != 0 {
		t.Errorf("exit %d", code)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Errorf("file changed:\n%s", after)
	}
}

// Tasks in one process share no gate or tool state: what one task read
// does not let another edit, and one task's narrower mode (and denial)
// does not change another's decision.
func TestBatchTaskIsolation(t *testing.T) {
	dir := project(t)
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("one\n"), 0o644)
	in := writeTasks(t, dir,
		task("reader", "general-purpose", "Read: c.txt"),
		task("editor", "general-purpose", "Edit c.txt: one => two"),
		task("narrow", "general-purpose", "Read: a.txt\nEdit a.txt: hello => bye", "permission_mode", `"default"`),
		task("wide", "general-purpose", "Read: a.txt\nEdit a.txt: hello => bye"),
	)
	// One at a time, in file order, so that shared state would show.
	code, out, errs := run("agent", "batch", in, "--concurrency", "1")
	res := parseResults(t, []byte(out))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if r := res["editor"]; !strings.Contains(r.Result, "has not been read in this session") {
		t.Errorf("editor: %+v", r)
	}
	if r := res["narrow"]; !strings.Contains(r.Result, `Edit(a.txt) -> ERROR: tool "Edit" is not available`) {
		t.Errorf("narrow: %+v", r)
	}
	if r := res["wide"]; r.ExitCode != 0 || !strings.Contains(r.Result, "Edit(a.txt) -> ALLOWED") {
		t.Errorf("wide: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.txt")); string(b) != "one\n" {
		t.Errorf("c.txt = %q", b)
	}
}

// Memory stays flat over a run: the heap in use after 1,000 tasks is not
// much above what it is after 100 (the factor is generous; what grows per
// task is a duration and the denial counts).
func TestBatchMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1,000 tasks")
	}
	dir := project(t)
	var lines []string
	for i := range 1000 {
		lines = append(lines, task(fmt.Sprint(i), "test-perm", "Read: a.txt\nRun bash: git stash list"))
	}
	tasks, err := batch.Parse(strings.NewReader(strings.Join(lines, "\n")), "mem", dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newTaskRunner(&batchOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var done atomic.Int64
	var heap [2]uint64
	sample := func(i int) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		heap[i] = m.HeapInuse
	}
	exec := func(ctx context.Context, tk batch.Task) batch.Result {
		res := r.exec(ctx, tk)
		switch done.Add(1) {
		case 100:
			sample(0)
		case 1000:
			sample(1)
		}
		return res
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := batch.Run(context.Background(), batch.Options{Concurrency: 1, Output: f}, tasks, exec)
	if err != nil || sum.Denied != 1000 {
		t.Fatalf("%+v %v", sum, err)
	}
	t.Logf("heap in use after 100 tasks: %d KiB, after 1000: %d KiB", heap[0]>>10, heap[1]>>10)
	if heap[1] > 2*heap[0]+(4<<20) {
		t.Errorf("heap grew from %d to %d bytes between task 100 and task 1000", heap[0], heap[1])
	}
	if r.settings.Len() != 1 || r.extras.Len() != 1 || r.catalogs.Len() != 1 || r.models.Len() != 1 {
		t.Errorf("caches hold %d settings, %d hooks and skills, %d catalogs, %d models; want one each", r.settings.Len(), r.extras.Len(), r.catalogs.Len(), r.models.Len())
	}
}

// Each task follows its cwd's settings live, as gen agent run does: a
// deny rule added while the batch runs applies to the tasks after it.
func TestBatchSettingsLive(t *testing.T) {
	dir := project(t)
	tasks, err := batch.Parse(strings.NewReader(task("before", "general-purpose", "Read: a.txt")+"\n"+task("after", "general-purpose", "Read: a.txt")), "live", dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newTaskRunner(&batchOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(ctx context.Context, tk batch.Task) batch.Result {
		res := r.exec(ctx, tk)
		if tk.ID == "before" {
			local := filepath.Join(dir, ".gen", "settings.local.json")
			if err := os.WriteFile(local, []byte(`{"permissions": {"deny": ["Read(a.txt)"]}}`), 0o644); err != nil {
				t.Error(err)
			}
		}
		return res
	}
	var out bytes.Buffer
	if _, err := batch.Run(context.Background(), batch.Options{Concurrency: 1, Output: &out}, tasks, exec); err != nil {
		t.Fatal(err)
	}
	res := parseResults(t, out.Bytes())
	if r := res["before"]; r.ExitCode != ExitOK {
		t.Errorf("before: %+v", r)
	}
	if r := res["after"]; r.ExitCode != ExitDenied || len(r.PermissionDenials) != 1 || !strings.Contains(r.PermissionDenials[0].Reason, "Read(a.txt)") {
		t.Errorf("after the deny rule was added: %+v", r)
	}
	if r.settings.Len() != 1 {
		t.Errorf("%d settings entries for one cwd", r.settings.Len())
	}
}

// --agents defines agents for every task of a batch, above the agent
// files of each task's project; a malformed value stops the batch before
// any task runs.
func TestBatchAgentsFlag(t *testing.T) {
	dir := project(t)
	tasks := writeTasks(t, dir, task("r", "reader", "Read: a.txt"), task("b", "reader", "Run bash: touch made"))
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"agent", "batch"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := run("--agents", `{"reader": {"description": "reads", "prompt": "Read what you are asked to.", "tools": ["Read"], "permissionMode": "acceptEdits"}}`, tasks)
	res := parseResults(t, []byte(out))
	if code == ExitUsage || res["r"].ExitCode != batch.ExitOK || !strings.Contains(res["r"].Result, "Read(a.txt) -> ALLOWED") {
		t.Fatalf("exit %d, results %+v, stderr %s; want task r to read a.txt as the flag's agent", code, res, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil || strings.Contains(res["b"].Result, "ALLOWED") {
		t.Errorf("task b ran Bash, which the flag's agent does not have: %+v", res["b"])
	}
	code, out, errs = run("--agents", `{"reader": {"prompt": "x"}}`, tasks)
	if code != ExitUsage || out != "" || !strings.Contains(errs, "--agents") {
		t.Errorf("a malformed --agents: exit %d, stdout %q, stderr %q; want a usage error before any task", code, out, errs)
	}
}

// TestOtherAgentsHookScripts: a script the hook of a user agent runs,
// in the repository, is code to every agent of the run, however it runs
// (policy.Subagent's others): an acceptEdits agent whose allow_tools
// allow cp rewrote it unasked, delegated (the main loop itself was
// asked), on its own or as a batch task, and the hook ran the new script
// outside the gate when the other agent ran next.
func TestOtherAgentsHookScripts(t *testing.T) {
	dir := project(t)
	for p, c := range map[string]string{
		".gen/agents/guarded.md": "---\nname: guarded\ndescription: d\nhooks:\n  PreToolUse:\n    - hooks: [{type: command, command: sh ./guard.sh}]\n---\nx\n",
		".gen/agents/writer.md":  "---\nname: writer\ndescription: d\nmode: acceptEdits\nallow_tools: [\"Bash(cp:*)\", Edit]\n---\nx\n",
		"evil.sh":                "echo evil\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	guard := filepath.Join(dir, "guard.sh")
	cp := "Run bash: cp evil.sh guard.sh"
	t.Chdir(dir)
	for name, args := range map[string][]string{
		"delegated": {"-p", "--model", "offline", "--permission-mode", "acceptEdits", "--allowedTools", "Agent(writer)", "--", "Delegate writer: " + cp},
		"agent run": {"agent", "run", "--model", "offline", "--type", "writer", "--prompt", cp},
		"batch":     {"agent", "batch", "--model", "offline", writeTasks(t, dir, task("w", "writer", cp))},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(guard, []byte("exit 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := run(args...)
			if data, _ := os.ReadFile(guard); string(data) != "exit 0\n" || !strings.Contains(out+errs, "mentions guard.sh") {
				t.Errorf("exit %d, guard.sh %q\n%s\n%s", code, data, out, errs)
			}
		})
	}
}
