package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop/offline"
)

// testPerm is the seed's fixture as the repository ships it. It is read
// when first used, not at package init: the test binary is re-executed as
// an MCP server and as the sandbox helper, in other directories.
var testPerm = sync.OnceValue(func() string {
	b, err := os.ReadFile("../.gen/agents/test-perm.md")
	if err != nil {
		panic(err)
	}
	return string(b)
})

// project makes a project with the seed's test-perm agent and returns it.
func project(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range map[string]string{
		".gen/agents/test-perm.md": testPerm(),
		"a.txt":                    "hello\n",
		".git/HEAD":                "ref: refs/heads/main\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", dir)
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	return dir
}

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestAgentRunExitCodesAndFormats(t *testing.T) {
	dir := project(t)
	// Every row checks something real: stdout, or for rows that print
	// nothing there, stdout being empty and stderr saying why.
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring; "" means stdout must be empty
		stderr string // substring
	}{
		{"allowed", []string{"--prompt", "Read: a.txt"}, 0, "RESULT: Read(a.txt) -> ALLOWED", "Read(a.txt) -> ALLOWED"},
		{"denied", []string{"--prompt", "Run bash: git stash list"}, 3, "DENIED: tool Bash is blocked by deny_tools", "Bash(git stash list) -> DENIED: tool Bash is blocked by deny_tools"},
		{"max turns", []string{"--prompt", "Read: a.txt\nRead: a.txt", "--max-turns", "1"}, 1, "", "gen: run failed: loop: maximum number of turns reached"},
		{"json", []string{"--prompt", "Run bash: git stash list", "--output-format", "json"}, 3, `"permission_denials":[{"tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"git stash list"},"reason":"tool Bash is blocked by deny_tools"}]`, "offline model"},
		{"json failure", []string{"--prompt", "Read: a.txt\nRead: a.txt", "--max-turns", "1", "--output-format", "json"}, 1, `"is_error":true`, "offline model"},
		{"stream-json", []string{"--prompt", "Read: a.txt", "--output-format", "stream-json"}, 0, `"tools":["Read","Bash"],"mcp_servers":[],"model":"offline","permissionMode":"explore","agent":"test-perm"}`, "offline model"},
		{"bad format", []string{"--prompt", "x", "--output-format", "yaml"}, 2, "", `unknown output format "yaml"`},
		{"unknown agent", []string{"--prompt", "x", "--type", "nobody"}, 2, "", `unknown agent type "nobody"`},
		{"no prompt", []string{}, 2, "", `required flag(s) "prompt" not set`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"agent", "run", "--cwd", dir, "--type", "test-perm"}, tc.args...)
			code, out, errs := run(args...)
			outOK := strings.Contains(out, tc.stdout) && (tc.stdout != "" || out == "")
			if code != tc.code || !outOK || !strings.Contains(errs, tc.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout containing %q (empty if none) and stderr containing %q", code, out, errs, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// Every stream-json line is one JSON object; the last is the result.
func TestStreamJSONLines(t *testing.T) {
	dir := project(t)
	code, out, _ := run("agent", "run", "--cwd", dir, "--type", "test-perm", "--output-format", "stream-json", "--prompt", "Read: a.txt\nRun bash: git stash list")
	if code != 3 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var types []string
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		types = append(types, v["type"].(string))
	}
	want := "system assistant decision user assistant assistant decision user assistant result"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("event types = %s\nwant %s", got, want)
	}
}

func TestAgentListAndShow(t *testing.T) {
	dir := project(t)
	code, out, _ := run("agent", "list", "--cwd", dir)
	if code != 0 || !strings.Contains(out, "test-perm") || !strings.Contains(out, "Explore") || !strings.Contains(out, "general-purpose") {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
	code, out, _ = run("agent", "show", "--cwd", dir, "test-perm")
	for _, want := range []string{"mode:        explore", "tools:       Read, Bash", "Bash(git diff*)  (agent)", "Bash(git stash*)  (agent)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show lacks %q: exit %d\n%s", want, code, out)
		}
	}
}

// BenchmarkAgentRunOffline is a whole `gen agent run` on the offline model
// in process: settings, agent discovery, policy, loop, two tool calls and
// the output. Goal: ≤ 20 ms.
func BenchmarkAgentRunOffline(b *testing.B) {
	dir := project(b)
	args := []string{"agent", "run", "--cwd", dir, "--type", "test-perm", "--prompt", "Read: a.txt\nRun bash: git stash list", "--output-format", "json"}
	for b.Loop() {
		if code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}); code != 3 {
			b.Fatalf("exit %d", code)
		}
	}
}

// gen -p with stdin closed against an OpenAI-compatible server: the exit
// code reports the denial, and nothing waits for input.
func TestHeadlessOverHTTP(t *testing.T) {
	dir := project(t)
	srv := testmodel.New(t, offline.New())
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	closed, w := io.Pipe()
	w.Close()
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--cwd", dir, "--output-format", "json", "Read: a.txt\nRun bash: curl https://example.org"},
		Streams{In: closed, Out: &out, Err: &errb})
	if code != ExitDenied {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var res struct {
		IsError bool   `json:"is_error"`
		Result  string `json:"result"`
		Denials []struct {
			ToolName string `json:"tool_name"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if res.IsError || len(res.Denials) != 1 || !strings.Contains(res.Result, "RESULT: Read(a.txt) -> ALLOWED") {
		t.Errorf("result = %+v", res)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests reached the server, want 3", n)
	}
	if strings.Contains(errb.String(), "offline") {
		t.Errorf("stderr mentions the offline model: %s", errb.String())
	}
}

// A prompt argument in a terminal without -p is a usage error, not
// silently dropped.
func TestPromptArgumentNeedsPrint(t *testing.T) {
	dir := project(t)
	var errb bytes.Buffer
	code := Run(context.Background(), []string{"--cwd", dir, "Read: a.txt"}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errb, InTerminal: true})
	if code != ExitUsage || !strings.Contains(errb.String(), "-p") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// /dev/null is a character device but not a terminal: it must not start
// the TUI.
func TestIsTerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatalf("%s reported as a terminal", os.DevNull)
	}
}

// --tools limits the built-in tools, as Claude Code's does: the others are
// neither shown to the model nor allowed, and what is not a built-in tool
// is a usage error. MCP tools are not built-in and stay.
func TestToolsFlag(t *testing.T) {
	dir := project(t)
	prompt := "Run bash: ls\nRead: a.txt"
	for _, tc := range []struct {
		name  string
		tools []string
		code  int
		has   []string // substrings of stdout and stderr
	}{
		{"one tool", []string{"--tools", "Read"}, 0, []string{`Bash(ls) -> ERROR: tool "Bash" is not available; available tools: Read`, "Read(a.txt) -> ALLOWED"}},
		{"none", []string{"--tools", ""}, 0, []string{`tool "Bash" is not available; available tools: (none)`, `tool "Read" is not available; available tools: (none)`}},
		{"a list", []string{"--tools", "Bash, Read"}, 0, []string{"Bash(ls) -> ALLOWED", "Read(a.txt) -> ALLOWED"}},
		{"Claude Code's tool gen lacks", []string{"--tools", "Read,MultiEdit"}, 0, []string{`--tools: malformed rule "MultiEdit": unknown tool "MultiEdit": a Claude Code tool gen does not have`, `tool "Bash" is not available`}},
		// Task is Claude Code's old name for Agent, as in rules and an
		// agent's tools.
		{"Claude Code's name for Agent", []string{"--tools", "Read,Task"}, 0, []string{`tool "Bash" is not available; available tools: Read, Agent`}},
		{"unknown tool", []string{"--tools", "Bogus"}, ExitUsage, []string{`--tools: unknown built-in tool "Bogus"`}},
		{"default with others", []string{"--tools", "default,Bash"}, ExitUsage, []string{`"default" means every built-in tool`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(append([]string{"-p", "--cwd", dir, prompt}, tc.tools...)...)
			for _, h := range tc.has {
				if !strings.Contains(out+errs, h) {
					t.Errorf("output lacks %q:\n%s%s", h, out, errs)
				}
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
		})
	}
	// The gate denies a hidden tool's calls whatever shows it.
	code, out, _ := run("permissions", "check", "--cwd", dir, "--tools", "Read", "Bash(ls)")
	if code != 0 || !strings.HasPrefix(out, "deny (step 1): tool Bash is not one of the agent's tools") {
		t.Errorf("exit %d: %s", code, out)
	}
	// The mode switches are no capability, so --tools leaves them, even
	// "" (none): a run in plan mode can present its plan, which is the
	// person's to approve (headless, nobody is asked, so it is denied).
	for _, tools := range []string{"Read", ""} {
		_, out, errs := run("-p", "--cwd", dir, "--permission-mode", "plan", "--tools", tools, `Call ExitPlanMode: {"plan": "1. read"}`)
		if !strings.Contains(out, "ExitPlanMode() -> DENIED: the plan needs the person's approval") {
			t.Errorf("--tools %q in plan mode: ExitPlanMode not offered:\n%s%s", tools, out, errs)
		}
	}
}

// --settings loads one more settings scope from a file or inline JSON, as
// Claude Code's does; one that cannot be read or parsed is a usage error
// naming the flag and the file, never a run without its rules. A relative
// name is taken from the directory gen was started in, not from --cwd
// (readJSONFlag): the project holds a ci.json too, which must not be read.
func TestSettingsFlag(t *testing.T) {
	dir := project(t)
	shell := t.TempDir()
	for path, c := range map[string]string{
		filepath.Join(shell, "ci.json"): `{"permissions": {"deny": ["Bash(ls:*)"]}}`,
		filepath.Join(dir, "ci.json"):   `{"permissions": {"allow": ["Bash(touch:*)"]}}`,
		filepath.Join(dir, "only.json"): `{}`,
	} {
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(shell)
	for _, tc := range []struct {
		settings, call string
		code           int
		want           string
	}{
		{"ci.json", "Bash(ls -la)", 0, "deny (step 1): tool Bash is blocked by deny rule Bash(ls:*) (cli)"},
		{"ci.json", "Bash(touch x)", 0, "ask (step 7)"},
		{filepath.Join(dir, "ci.json"), "Bash(touch x)", 0, "allow (step 6): allowed by rule Bash(touch:*) (cli)"},
		{`{"permissions": {"allow": ["Bash(touch:*)"]}}`, "Bash(touch x)", 0, "allow (step 6): allowed by rule Bash(touch:*) (cli)"},
		{"only.json", "Read(a.txt)", ExitUsage, "--settings " + filepath.Join(shell, "only.json") + ": no such file or directory (a relative name is taken from the directory gen was started in)"},
		{filepath.Join(dir, "missing.json"), "Read(a.txt)", ExitUsage, "--settings " + filepath.Join(dir, "missing.json") + ": no such file or directory\n"},
		{dir, "Read(a.txt)", ExitUsage, "--settings " + dir + ": not a regular file but a directory"},
		{`{"permissions": {"deny": ["Bogus"]}}`, "Read(a.txt)", ExitUsage, `--settings:1: malformed rule "Bogus"`},
	} {
		code, out, errs := run("permissions", "check", "--cwd", dir, "--settings", tc.settings, tc.call)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("--settings %s %s: exit %d, %s%s; want exit %d with %q", tc.settings, tc.call, code, out, errs, tc.code, tc.want)
		}
	}
}

// A command or skill file the Read deny rules keep from the model (a
// link to the project's .env under Read(./.env)) is refused with the
// rule, as a memory file is: typing /leak must not send the secret.
func TestCommandAndSkillObeyReadDeny(t *testing.T) {
	dir := project(t)
	for p, c := range map[string]string{
		".env":               "SECRET=1\n",
		".gen/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`,
		"notes.md":           "---\nname: notes\ndescription: Notes.\n---\nRead the notes.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{".claude/commands/leak.md": "../../.env", ".claude/skills/leak/SKILL.md": "../../../.env", ".claude/commands/notes.md": "../../notes.md"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run("-p", "--cwd", dir, "/leak")
	if code != ExitUsage || !strings.Contains(errs, "leak.md is not read into the prompt: a Read of it is deny: tool Read is blocked by deny rule Read(./.env)") || strings.Contains(out+errs, "SECRET") {
		t.Errorf("/leak: exit %d, stdout %q, stderr %q; want it refused by the deny rule", code, out, errs)
	}
	code, out, errs = run("skills", "list", "--cwd", dir)
	if code != ExitUsage || strings.Contains(out, "leak") || !strings.Contains(errs, "not read into the prompt") {
		t.Errorf("skills list: exit %d, stdout %q, stderr %q; want the leak skill refused", code, out, errs)
	}
	if code, out, errs := run("commands", "list", "--cwd", dir); !strings.Contains(out, "notes") {
		t.Errorf("commands list: exit %d, %q %q; want the notes command, a link inside the project, offered", code, out, errs)
	}
}

// Stream-json input reads the custom commands once, as the session starts
// (as Claude Code does), not again for each message: a command file that
// changes between two messages does not change what the second sends.
func TestStreamInputReadsCommandsOnce(t *testing.T) {
	dir := project(t)
	cmdFile := filepath.Join(dir, ".claude", "commands", "look.md")
	if err := os.MkdirAll(filepath.Dir(cmdFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cmdFile, []byte("Read: $1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		defer outW.Close()
		done <- Run(context.Background(), []string{"-p", "--cwd", dir, "--input-format", "stream-json", "--output-format", "stream-json"},
			Streams{In: inR, Out: outW, Err: &errb})
	}()
	results := make(chan string)
	go func() {
		defer close(results)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"type":"result"`) {
				results <- sc.Text()
			}
		}
	}()
	turn := func(prompt string) string {
		t.Helper()
		msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
		if _, err := inW.Write(append(msg, '\n')); err != nil {
			t.Fatal(err)
		}
		r, ok := <-results
		if !ok {
			t.Fatalf("the run ended before answering %q: exit %d, stderr %q", prompt, <-done, errb.String())
		}
		return r
	}
	if r := turn("/look a.txt"); !strings.Contains(r, "Read(a.txt)") {
		t.Fatalf("first /look: %s", r)
	}
	if err := os.WriteFile(cmdFile, []byte("Read: changed.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := turn("/look a.txt"); !strings.Contains(r, "Read(a.txt)") || strings.Contains(r, "changed") {
		t.Errorf("second /look: %s; want the command as it was when the session started", r)
	}
	inW.Close()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// --replay-user-messages prints each user message back as it was read
// (its uuid kept), with the session and isReplay, before the turn that
// answers it.
func TestReplayUserMessages(t *testing.T) {
	dir := project(t)
	in := `{"type":"user","uuid":"u-1","n":12345678901234567890,"message":{"role":"user","content":"Read: a.txt"}}` + "\n" +
		`{"type":"user","uuid":"u-2","message":{"role":"user","content":[{"type":"text","text":"Run bash: git status"}]}}` + "\n"
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--cwd", dir, "--input-format", "stream-json", "--output-format", "stream-json", "--replay-user-messages"},
		Streams{In: strings.NewReader(in), Out: &out, Err: &errb})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var seq []string
	var session string
	for line := range strings.Lines(out.String()) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch {
		case ev["type"] == "system":
			session, _ = ev["session_id"].(string)
		case ev["isReplay"] == true:
			if ev["session_id"] != session || session == "" || ev["parent_tool_use_id"] != nil || !strings.Contains(line, `"message":{"role":"user","content":`) ||
				ev["uuid"] == "u-1" && !strings.Contains(line, `"n":12345678901234567890`) {
				t.Errorf("replayed %s; want the message as read, in session %q", line, session)
			}
			id, _ := ev["uuid"].(string)
			seq = append(seq, id)
		case ev["type"] == "result":
			seq = append(seq, "result")
		}
	}
	if want := []string{"u-1", "result", "u-2", "result"}; !slices.Equal(seq, want) {
		t.Errorf("replays and results in the order %q, want %q\n%s", seq, want, out.String())
	}
	code, _, errs := run("-p", "--cwd", dir, "--replay-user-messages", "x")
	if code != ExitUsage || !strings.Contains(errs, "--replay-user-messages needs --input-format stream-json") {
		t.Errorf("without stream-json input: exit %d, %q", code, errs)
	}
}

// --allow-dangerously-skip-permissions opens bypassPermissions to /mode
// in the interactive loop; without it /mode refuses it.
func TestAllowBypassFlag(t *testing.T) {
	dir := project(t)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, "could not switch to bypassPermissions mode"},
		{[]string{"--allow-dangerously-skip-permissions"}, "Permission mode: bypassPermissions"},
	} {
		out := &screen{}
		in, keys := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- Run(context.Background(), append([]string{"--cwd", dir}, tc.flags...), Streams{In: in, Out: out, Err: io.Discard, InTerminal: true})
		}()
		// Each key line once the screen has answered the one before.
		keys.Write([]byte("/mode bypassPermissions\r"))
		out.wait(t, "/mode bypassPermissions")
		keys.Write([]byte("/mode\r"))
		out.wait(t, "Shift+Tab")
		keys.Write([]byte("/exit\r"))
		// /mode lists the modes the session may switch to; the screen
		// wraps lines, so words are compared.
		words := strings.Join(strings.Fields(out.String()), " ")
		listed := strings.Contains(words, "dontAsk, bypassPermissions, auto; Shift+Tab")
		if code := <-done; code != ExitOK || !strings.Contains(out.String(), tc.want) || listed != (tc.flags != nil) ||
			tc.flags == nil && (strings.Contains(out.String(), "Permission mode: bypassPermissions") || !strings.Contains(words, "dontAsk, auto; Shift+Tab")) {
			t.Errorf("%q: exit %d; want the screen to say %q, and list bypassPermissions only when opened\n%s", tc.flags, code, tc.want, out.String())
		}
		keys.Close()
	}
}

// screen is what the interactive loop draws, safe to read while it runs.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// wait returns once the screen shows text. The bound only turns a UI
// that never shows it into a failure that says so, not a hang: it is no
// measure of speed.
func (s *screen) wait(t *testing.T, text string) {
	t.Helper()
	for give := time.Now().Add(2 * time.Minute); !strings.Contains(s.String(), text); {
		if time.Now().After(give) {
			t.Fatalf("the screen never showed %q:\n%s", text, s.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// --debug writes to stderr, which the interactive loop draws on.
func TestDebugIsHeadless(t *testing.T) {
	dir := project(t)
	var errb bytes.Buffer
	code := Run(context.Background(), []string{"--cwd", dir, "--debug"}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errb, InTerminal: true})
	if code != ExitUsage || !strings.Contains(errb.String(), "--debug writes to stderr") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// gen's last word, the error it exits with, may quote what a hook
// wrote (a UserPromptSubmit hook's reason for blocking the prompt): its
// escapes are shown, not sent to the terminal (OSC 52 writes the
// clipboard), and its lines stay lines.
func TestErrorIsTerminalSafe(t *testing.T) {
	dir := project(t)
	hook := `printf '%s' '{"decision": "block", "reason": "\u001b]52;c;aGk=\u0007 no\nsecond line"}'`
	raw, _ := json.Marshal(map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
	if err := os.WriteFile(filepath.Join(dir, ".gen", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--trust", "--cwd", dir, "hello"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code == ExitOK || strings.ContainsAny(errb.String(), "\x1b\x07") || !strings.Contains(errb.String(), `\u{1b}]52`) ||
		!strings.Contains(errb.String(), "no\nsecond line") {
		t.Fatalf("exit %d, stderr %q; want the blocked prompt's reason with its escape shown and its lines kept", code, errb.String())
	}
}
