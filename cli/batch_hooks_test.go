package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/batch"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/trust"
)

// hooksProject makes a project holding a.txt, with a home directory of its
// own (project(t) makes the project the home, whose settings would be
// the user's), and returns both.
func hooksProject(t *testing.T, files map[string]string) (dir, home string) {
	t.Helper()
	dir, home = testtree.Dir(t), testtree.Dir(t)
	testtree.Write(t, dir, map[string]string{"a.txt": "hello\n", ".git/HEAD": "ref: refs/heads/main\n"})
	testtree.Write(t, dir, files)
	testtree.Write(t, home, map[string]string{".gen/": ""})
	t.Setenv("HOME", home)
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	return dir, home
}

// hookInputs reads the hook inputs the hooks saved as dir/PREFIX.*, one a
// file.
func hookInputs(t *testing.T, dir, prefix string) []map[string]any {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, prefix+".*"))
	if err != nil {
		t.Fatal(err)
	}
	var ins []map[string]any
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var in map[string]any
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("%s: %v: %q", p, err, data)
		}
		ins = append(ins, in)
	}
	return ins
}

// A batch task runs the settings' hooks as gen agent run does: a user's
// PreToolUse hook that exits 2 denies the call with its reason, and a
// PostToolUse hook runs after the calls that ran. Each hook is told its
// task's session ID, the one on the task's result line.
func TestBatchSettingsHooks(t *testing.T) {
	dir, home := hooksProject(t, nil)
	// Each hook saves its input in a file of its own: tasks run at once.
	testtree.Write(t, home, map[string]string{
		"hooks/pre.sh":  "cat > \"$(mktemp \"$HOME/pre.XXXXXX\")\"\necho 'no bash in batch' >&2\nexit 2\n",
		"hooks/post.sh": "cat > \"$(mktemp \"$HOME/post.XXXXXX\")\"\n",
		".gen/settings.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash ~/hooks/pre.sh"}]}],
  "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "bash ~/hooks/post.sh"}]}]}}`,
	})
	in := writeTasks(t, dir,
		task("bash1", "general-purpose", "Run bash: ls"),
		task("bash2", "general-purpose", "Run bash: ls"),
		task("read1", "general-purpose", "Read: a.txt"),
		task("read2", "general-purpose", "Read: a.txt"),
	)
	code, out, errs := run("agent", "batch", in, "--concurrency", "2")
	if code != ExitDenied {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitDenied, out, errs)
	}
	res := parseResults(t, []byte(out))
	for _, id := range []string{"bash1", "bash2"} {
		r := res[id]
		if r.ExitCode != ExitDenied || len(r.PermissionDenials) != 1 || r.PermissionDenials[0].ToolName != "Bash" ||
			!strings.Contains(r.PermissionDenials[0].Reason, "no bash in batch") || !strings.Contains(r.Result, "Bash(ls) -> DENIED") {
			t.Errorf("%s: %+v", id, r)
		}
	}
	for _, id := range []string{"read1", "read2"} {
		if r := res[id]; r.ExitCode != ExitOK || !strings.Contains(r.Result, "Read(a.txt) -> ALLOWED") {
			t.Errorf("%s: %+v", id, r)
		}
	}
	// One input per hook run, each with its own task's session.
	check := func(prefix, event, tool string, ids ...string) {
		t.Helper()
		ins := hookInputs(t, home, prefix)
		if len(ins) != len(ids) {
			t.Fatalf("%d %s inputs, want %d: %v", len(ins), event, len(ids), ins)
		}
		want := map[string]bool{}
		for _, id := range ids {
			want[res[id].SessionID] = true
		}
		for _, in := range ins {
			sid, _ := in["session_id"].(string)
			if !want[sid] || in["hook_event_name"] != event || in["tool_name"] != tool || in["agent_type"] != "general-purpose" || in["cwd"] != dir {
				t.Errorf("%s input %v; want one of the sessions %v", event, in, want)
			}
			delete(want, sid)
		}
	}
	check("pre", "PreToolUse", "Bash", "bash1", "bash2")
	check("post", "PostToolUse", "Read", "read1", "read2")
}

// A project's hooks run in a batch only with its trust, as in gen agent
// run: without it, one warning for all the tasks of the project; with
// --trust, or trusted with gen trust, they run.
func TestBatchProjectHooksNeedTrust(t *testing.T) {
	dir, home := hooksProject(t, map[string]string{
		// The hook saves its input in the home directory: a file it
		// wrote in the project would be part of the project's trust.
		"hooks/pre.sh":       "cat > \"$(mktemp \"$HOME/pre.XXXXXX\")\"\necho 'project says no' >&2\nexit 2\n",
		".gen/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash hooks/pre.sh"}]}]}}`,
	})
	in := writeTasks(t, dir,
		task("t1", "general-purpose", "Run bash: ls"),
		task("t2", "general-purpose", "Run bash: ls"),
		task("t3", "general-purpose", "Run bash: ls"),
	)
	code, out, errs := run("agent", "batch", in, "--concurrency", "2")
	if code != ExitOK {
		t.Fatalf("untrusted: exit %d\n%s\n%s", code, out, errs)
	}
	if ins := hookInputs(t, home, "pre"); len(ins) != 0 {
		t.Errorf("an untrusted project's hook ran: %v", ins)
	}
	if n := strings.Count(errs, "ignoring project hooks: the project "+dir+" is not trusted"); n != 1 {
		t.Errorf("the refusal was said %d times, want once:\n%s", n, errs)
	}

	denied := func(how string, args ...string) {
		t.Helper()
		code, out, errs := run(append([]string{"agent", "batch", in, "--concurrency", "2"}, args...)...)
		if code != ExitDenied {
			t.Fatalf("%s: exit %d\n%s\n%s", how, code, out, errs)
		}
		for id, r := range parseResults(t, []byte(out)) {
			if len(r.PermissionDenials) != 1 || !strings.Contains(r.PermissionDenials[0].Reason, "project says no") {
				t.Errorf("%s: %s: %+v", how, id, r)
			}
		}
		if ins := hookInputs(t, home, "pre"); len(ins) != 3 {
			t.Errorf("%s: the project's hook ran %d times, want 3", how, len(ins))
		}
		saved, _ := filepath.Glob(filepath.Join(home, "pre.*"))
		for _, p := range saved {
			os.Remove(p)
		}
		if strings.Contains(errs, "ignoring project hooks") {
			t.Errorf("%s: %s", how, errs)
		}
	}
	denied("--trust", "--trust")
	if _, err := trust.Trust(home, dir); err != nil {
		t.Fatal(err)
	}
	denied("gen trust")
}

// A trusted project's hooks stop, with one warning, when its trust stops
// holding while the batch runs: here the hook's script changes after the
// first task, as a `git pull` in another terminal would change it.
func TestBatchProjectHooksFollowTrust(t *testing.T) {
	dir, home := hooksProject(t, map[string]string{
		"hooks/count.sh":     "echo ran >> count.txt\n",
		".gen/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh hooks/count.sh"}]}]}}`,
	})
	if _, err := trust.Trust(home, dir); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, id := range []string{"first", "second", "third"} {
		lines = append(lines, task(id, "general-purpose", "Run bash: ls"))
	}
	tasks, err := batch.Parse(strings.NewReader(strings.Join(lines, "\n")), "trust", dir)
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	r, err := newTaskRunner(&batchOptions{}, &syncWriter{w: &errs})
	if err != nil {
		t.Fatal(err)
	}
	exec := func(ctx context.Context, tk batch.Task) batch.Result {
		res := r.exec(ctx, tk)
		if tk.ID == "first" {
			f, err := os.OpenFile(filepath.Join(dir, "hooks", "count.sh"), os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, err = f.WriteString("# changed\n")
				f.Close()
			}
			if err != nil {
				t.Error(err)
			}
		}
		return res
	}
	var out bytes.Buffer
	if _, err := batch.Run(context.Background(), batch.Options{Concurrency: 1, Output: &out}, tasks, exec); err != nil {
		t.Fatal(err)
	}
	for id, res := range parseResults(t, out.Bytes()) {
		if res.ExitCode != ExitOK {
			t.Errorf("%s: %+v", id, res)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "count.txt")); string(b) != "ran\n" {
		t.Errorf("count.txt = %q; want the hook run for the first task only", b)
	}
	for _, w := range []string{"configuration changed since you trusted it (hooks/count.sh)", "ignoring project hooks"} {
		if n := strings.Count(errs.String(), w); n != 1 {
			t.Errorf("%q said %d times, want once:\n%s", w, n, errs.String())
		}
	}
	if r.extras.Len() != 1 {
		t.Errorf("%d hook runners for one cwd", r.extras.Len())
	}
}

// A batch task's agent sees the project's skills, as under gen agent run:
// the Skill tool is offered and loads the project's skill.
func TestBatchSkills(t *testing.T) {
	dir, home := hooksProject(t, map[string]string{
		".gen/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Extract text from PDF files.\n---\nRun pdftotext on the file.\n",
	})
	// A user agent: its allow_tools allow without the project's trust.
	testtree.Write(t, home, map[string]string{
		".gen/agents/skilled.md": "---\nname: skilled\ndescription: Uses skills\nallow_tools:\n  - Skill\n---\nRun what you are told.\n",
	})
	const want = "RESULT: Skill(pdf) -> ALLOWED"
	code, single, errs := run("agent", "run", "--cwd", dir, "--type", "skilled", "--prompt", "Skill: pdf")
	if code != ExitOK || !strings.Contains(single, want) {
		t.Fatalf("gen agent run: exit %d\n%s\n%s", code, single, errs)
	}
	in := writeTasks(t, dir, task("pdf", "skilled", "Skill: pdf"), task("nope", "skilled", "Skill: nope"))
	code, out, errs := run("agent", "batch", in)
	res := parseResults(t, []byte(out))
	if r := res["pdf"]; code != ExitOK || !strings.Contains(r.Result, want) {
		t.Errorf("exit %d, %+v\n%s", code, r, errs)
	}
	// The tool knows the skills found, and only those.
	if r := res["nope"]; !strings.Contains(r.Result, `Skill: unknown skill "nope" (available: pdf)`) {
		t.Errorf("nope: %+v", r)
	}
}

// gen agent run tells its hooks the session ID it reports, as a batch
// task's hooks are told the one on its result line.
func TestAgentRunHookSession(t *testing.T) {
	dir, home := hooksProject(t, nil)
	testtree.Write(t, home, map[string]string{
		".gen/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "cat > ~/pre.json"}]}]}}`,
	})
	code, out, errs := run("agent", "run", "--cwd", dir, "--type", "general-purpose", "--prompt", "Read: a.txt", "--output-format", "json")
	var obj struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &obj); code != ExitOK || err != nil {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	ins := hookInputs(t, home, "pre")
	if len(ins) != 1 || obj.SessionID == "" || ins[0]["session_id"] != obj.SessionID {
		t.Errorf("hook inputs %v; want session %q", ins, obj.SessionID)
	}
}

// gen -p runs SessionStart and, after the result, SessionEnd hooks with
// reason "other", each told the run's session; SubagentStart runs for a
// subagent it delegates to, matched against its type.
func TestHeadlessSessionHooks(t *testing.T) {
	dir, home := hooksProject(t, nil)
	testtree.Write(t, home, map[string]string{
		"hooks/rec.sh": "cat > \"$(mktemp \"$HOME/ev.XXXXXX\")\"\n",
		".gen/settings.json": `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "bash ~/hooks/rec.sh"}]}],
  "SubagentStart": [{"matcher": "general-purpose", "hooks": [{"type": "command", "command": "bash ~/hooks/rec.sh"}]},
                    {"matcher": "Explore", "hooks": [{"type": "command", "command": "bash ~/hooks/rec.sh"}]}],
  "SessionEnd": [{"matcher": "other", "hooks": [{"type": "command", "command": "bash ~/hooks/rec.sh", "timeout": 30}]},
                 {"matcher": "clear", "hooks": [{"type": "command", "command": "bash ~/hooks/rec.sh"}]}]}}`,
	})
	code, out, errs := run("-p", "--cwd", dir, "--model", "offline", "--output-format", "json", "--allowedTools", "Agent", "--", "Delegate general-purpose: Read: a.txt")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SessionID == "" {
		t.Fatalf("result %q: %v", out, err)
	}
	got := map[string]map[string]any{}
	for _, in := range hookInputs(t, home, "ev") {
		ev, _ := in["hook_event_name"].(string)
		if got[ev] != nil {
			t.Errorf("%s ran twice", ev)
		}
		got[ev] = in
		if in["session_id"] != res.SessionID || in["cwd"] != dir {
			t.Errorf("%s input %v, want session %s in %s", ev, in, res.SessionID, dir)
		}
	}
	if len(got) != 3 || got["SessionEnd"]["reason"] != "other" || got["SubagentStart"]["agent_type"] != "general-purpose" || got["SubagentStart"]["agent_id"] == "" || got["SessionStart"] == nil {
		t.Errorf("hook inputs %v", got)
	}
}

// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS sets the SessionEnd hooks'
// budget of gen -p, as of Claude Code; a value gen cannot take as one is
// a usage error naming it, before anything runs.
func TestSessionEndBudgetEnv(t *testing.T) {
	dir, home := hooksProject(t, nil)
	testtree.Write(t, home, map[string]string{
		".gen/settings.json": `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "sleep 300", "timeout": 30}]}]}}`,
	})
	t.Setenv(hook.EndBudgetEnv, "200")
	code, out, errs := run("-p", "--cwd", dir, "--model", "offline", "Read: a.txt")
	if code != ExitOK || !strings.Contains(errs, "SessionEnd hooks run for at most 200ms together") {
		t.Errorf("exit %d\n%s\n%s\nwant the SessionEnd hook stopped at the budget the variable sets", code, out, errs)
	}
	for _, v := range []string{"1.5", "0", "120000"} {
		t.Setenv(hook.EndBudgetEnv, v)
		code, out, errs := run("-p", "--cwd", dir, "--model", "offline", "Read: a.txt")
		if code != ExitUsage || out != "" || !strings.Contains(errs, "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=\""+v+"\": must be a whole number of milliseconds") {
			t.Errorf("%s=%s: exit %d, stdout %q, stderr %q; want a usage error naming it", hook.EndBudgetEnv, v, code, out, errs)
		}
	}
}
