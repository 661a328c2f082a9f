package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/spf13/cobra"

	"github.com/gen-run/gen/transcript"
	"github.com/gen-run/gen/workspace"
)

func TestExpandVariadic(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []string
		want []string
	}{
		{"values up to the next flag", []string{"-p", "--allowedTools", "Read", "Bash(git:*)", "--model", "x", "prompt"},
			[]string{"-p", "--allowedTools=Read", "--allowedTools=Bash(git:*)", "--model", "x", "prompt"}},
		{"the prompt after the list is a value", []string{"--disallowed-tools", "Edit", "fix it"},
			[]string{"--disallowed-tools=Edit", "--disallowed-tools=fix it"}},
		{"-- ends the list", []string{"--allowedTools", "Read", "--", "fix it"},
			[]string{"--allowedTools=Read", "--", "fix it"}},
		{"= takes one value", []string{"--allowedTools=Read", "fix it"}, []string{"--allowedTools=Read", "fix it"}},
		{"nothing after -- is touched", []string{"--", "--allowedTools", "x"}, []string{"--", "--allowedTools", "x"}},
		{"no value is left to pflag", []string{"--allowedTools", "-p"}, []string{"--allowedTools", "-p"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := expandVariadic(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("expandVariadic(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitRuleList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"Read", []string{"Read"}},
		{"Read,Bash(git log:*)", []string{"Read", "Bash(git log:*)"}},
		{"Read, Edit  Grep", []string{"Read", "Edit", "Grep"}},
		{"Bash(a,b) Bash(git diff *)", []string{"Bash(a,b)", "Bash(git diff *)"}},
		{"Read,,Edit", []string{"Read", "", "Edit"}},
		{"Read,", []string{"Read", ""}},
		{",Read", []string{"", "Read"}},
		// A value with no rule at all is one empty rule, which fails to
		// parse: --disallowedTools '' must not silently deny nothing.
		{"", []string{""}},
		{"  ", []string{""}},
	} {
		if got := splitRuleList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("splitRuleList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Flag parsing apart from behaviour: what the options end up holding.
func TestMainFlags(t *testing.T) {
	parse := func(args ...string) *mainOptions {
		t.Helper()
		o := &mainOptions{}
		root := newRootWith(o, Streams{Out: io.Discard, Err: io.Discard})
		root.RunE = func(*cobra.Command, []string) error { return nil }
		root.SetArgs(expandVariadic(args))
		if err := root.Execute(); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return o
	}
	o := parse("--print", "--allowedTools", "Read", "Bash(git log:*)", "--allowed-tools", "Edit,Grep", "--disallowed-tools", "WebFetch", "--", "go")
	if !o.print || !slices.Equal(o.allowed, []string{"Read", "Bash(git log:*)", "Edit,Grep"}) || !slices.Equal(o.disallowed, []string{"WebFetch"}) {
		t.Errorf("print %v allowed %q disallowed %q", o.print, o.allowed, o.disallowed)
	}
	if got := splitRuleLists(o.allowed); !slices.Equal(got, []string{"Read", "Bash(git log:*)", "Edit", "Grep"}) {
		t.Errorf("rules %q", got)
	}
	o = parse("--dangerously-skip-permissions", "-c", "--verbose", "--input-format", "stream-json", "--output-format", "stream-json", "--system-prompt", "S", "--append-system-prompt", "A")
	if _, err := o.check(); err != nil || o.mode != "bypassPermissions" || !o.cont || !o.verbose || o.system != "S" || o.appendSystem != "A" {
		t.Errorf("check %v, options %+v", err, o)
	}
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--dangerously-skip-permissions", "--permission-mode", "default"}, "contradicts"},
		{[]string{"--input-format", "stream-json"}, "needs --output-format stream-json"},
		{[]string{"--input-format", "xml"}, `unknown input format "xml"`},
		{[]string{"--resume", "../x"}, "not a UUID"},
		{[]string{"--resume", transcript.NewID(), "--continue"}, "exclude each other"},
		{[]string{"--session-id", "x"}, "not a UUID"},
		{[]string{"--session-id", transcript.NewID(), "--continue"}, "excludes --resume and --continue"},
		{[]string{"--allowedTools", "Read", "fix the bug"}, "put the prompt before it"},
	} {
		_, err := parse(tt.args...).check()
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: %v, want an error containing %q", tt.args, err, tt.err)
		}
	}
}

func TestUnknownCommands(t *testing.T) {
	dir := project(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"permisions", "check", "Read(a)"}, "Did you mean this?\n\tpermissions"},
		{[]string{"agnet"}, "Did you mean this?\n\tagent"},
		{[]string{"agent", "lst"}, "Did you mean this?\n\tlist"},
		{[]string{"permissions", "chek"}, "Did you mean this?\n\tcheck"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"explain", "this", "code"}, "3 arguments without -p"},
	} {
		code, out, errs := run(tt.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errs, tt.want)
		}
	}
	// With -p the words are the prompt.
	if code, out, _ := run("-p", "--cwd", dir, "Read:", "a.txt"); code != ExitOK || !strings.Contains(out, "RESULT: Read(a.txt) -> ALLOWED") {
		t.Errorf("-p with several words: exit %d, %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := run(args...)
		if code != ExitOK || out != "gen "+Version()+"\n" || Version() == "" {
			t.Errorf("%q: exit %d, %q", args, code, out)
		}
	}
	// Tests run without module version information.
	if !strings.HasPrefix(Version(), "(devel)") {
		t.Errorf("Version() = %q", Version())
	}
}

// --model names a model at an endpoint; without one it is an error, and
// only --model offline (or nothing) runs the offline model.
func TestModelNeedsEndpoint(t *testing.T) {
	dir := project(t)
	code, _, errs := run("-p", "--cwd", dir, "--model", "gpt-4o", "Read: a.txt")
	if code != ExitUsage || !strings.Contains(errs, "--model gpt-4o: no model endpoint is configured") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = run("agent", "run", "--cwd", dir, "--type", "test-perm", "--model", "sonnet", "--prompt", "Read: a.txt")
	if code != ExitUsage || !strings.Contains(errs, "no model endpoint") {
		t.Errorf("agent run: exit %d, stderr %q", code, errs)
	}
	code, out, errs := run("-p", "--cwd", dir, "--model", "offline", "Read: a.txt")
	if code != ExitOK || !strings.Contains(out, "ALLOWED") || !strings.Contains(errs, "embedded offline model") {
		t.Errorf("offline: exit %d, %q, %q", code, out, errs)
	}
}

// Every run has a session; --resume and --continue add to its transcript.
func TestSessions(t *testing.T) {
	dir := project(t) // HOME is dir
	result := func(args ...string) (code int, res map[string]any) {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir, "--output-format", "json"}, args...)...)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q: %v: %s %s", args, err, out, errs)
		}
		return code, res
	}
	_, first := result("Read: a.txt")
	id, _ := first["session_id"].(string)
	if err := transcript.CheckID(id); err != nil {
		t.Fatal(err)
	}
	path := transcript.Path(dir, workspace.ProjectRoot(dir, dir), id)
	msgs, err := transcript.Load(path)
	if err != nil || len(msgs) != 4 || msgs[0].Content != "Read: a.txt" {
		t.Fatalf("transcript after one run: %d messages, %v", len(msgs), err)
	}
	_, second := result("--resume", id, "Read: a.txt")
	if second["session_id"] != id {
		t.Errorf("resumed session_id %v, want %s", second["session_id"], id)
	}
	_, third := result("--continue", "Run bash: git status")
	if third["session_id"] != id {
		t.Errorf("continued session_id %v, want %s", third["session_id"], id)
	}
	if msgs, _ := transcript.Load(path); len(msgs) != 12 {
		t.Errorf("transcript after three runs: %d messages, want 12", len(msgs))
	}
	code, _, errs := run("-p", "--cwd", dir, "--resume", transcript.NewID(), "x")
	if code != ExitUsage || !strings.Contains(errs, "no session transcript") {
		t.Errorf("unknown session: exit %d, %q", code, errs)
	}
	// A session of another project whose transcripts share this one's
	// directory (/x/a-b and /x/a/b do) is not this project's.
	root := workspace.ProjectRoot(dir, dir)
	twin := filepath.Dir(root) + "-" + filepath.Base(root)
	theirs := transcript.NewID()
	if err := transcript.Append(transcript.Path(dir, twin, theirs), transcript.Meta{SessionID: theirs, Cwd: twin}, []openai.ChatCompletionMessage{{Role: "user", Content: "theirs"}}); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run("-p", "--cwd", dir, "--resume", theirs, "x")
	if code != ExitUsage || !strings.Contains(errs, "was not held in "+root) {
		t.Errorf("another project's session: exit %d, %q", code, errs)
	}
	if _, again := result("--continue", "Read: a.txt"); again["session_id"] != id {
		t.Errorf("--continue took session %v, want this project's %s", again["session_id"], id)
	}
	other := t.TempDir()
	code, _, errs = run("-p", "--cwd", other, "--continue", "x")
	if code != ExitUsage || !strings.Contains(errs, "no earlier session") {
		t.Errorf("--continue without a session: exit %d, %q", code, errs)
	}
	// --session-id names a new session, as in Claude Code; one the
	// project has already is refused, not written twice.
	mine := transcript.NewID()
	if _, named := result("--session-id", mine, "Read: a.txt"); named["session_id"] != mine {
		t.Errorf("--session-id %s gave session %v", mine, named["session_id"])
	}
	if msgs, _ := transcript.Load(transcript.Path(dir, root, mine)); len(msgs) != 4 {
		t.Errorf("--session-id transcript: %d messages, want 4", len(msgs))
	}
	code, _, errs = run("-p", "--cwd", dir, "--session-id", id, "x")
	if code != ExitUsage || !strings.Contains(errs, "has a session with this ID already") {
		t.Errorf("--session-id of an existing session: exit %d, %q", code, errs)
	}
}

// --fork-session goes on from a session's conversation in a new session,
// as in Claude Code: the old transcript stays as it was, and the fork's
// holds the whole conversation, so that resuming it goes on from all of
// it.
func TestForkSession(t *testing.T) {
	dir := project(t) // HOME is dir
	root := workspace.ProjectRoot(dir, dir)
	result := func(args ...string) map[string]any {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir, "--output-format", "json"}, args...)...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitOK {
			t.Fatalf("%q: exit %d, %v: %s %s", args, code, err, out, errs)
		}
		return res
	}
	load := func(id string) []openai.ChatCompletionMessage {
		t.Helper()
		msgs, err := transcript.Load(transcript.Path(dir, root, id))
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	id, _ := result("Read: a.txt")["session_id"].(string)
	fork, _ := result("--resume", id, "--fork-session", "Run bash: git status")["session_id"].(string)
	if fork == id || transcript.CheckID(fork) != nil {
		t.Fatalf("fork session_id %v; want a new ID, not %v", fork, id)
	}
	if n := len(load(id)); n != 4 {
		t.Errorf("the forked session has %d messages, want its 4", n)
	}
	msgs := load(fork)
	if len(msgs) != 8 || msgs[0].Content != "Read: a.txt" || msgs[4].Content != "Run bash: git status" {
		t.Fatalf("fork transcript: %d messages (%v); want the 4 forked, then its own 4", len(msgs), msgs)
	}
	result("--resume", fork, "Read: a.txt")
	if n := len(load(fork)); n != 12 {
		t.Errorf("the fork resumed: %d messages, want 12", n)
	}
	// --continue forks the newest session (the fork), under the ID
	// --session-id gives.
	named := transcript.NewID()
	if got := result("--continue", "--fork-session", "--session-id", named, "Read: a.txt")["session_id"]; got != named {
		t.Errorf("--fork-session --session-id %s gave session %v", named, got)
	}
	if n := len(load(named)); n != 16 {
		t.Errorf("named fork: %d messages, want 16", n)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fork-session"}, "give one of them"},
		{[]string{"--resume", id, "--fork-session", "--session-id", named}, "has a session with this ID already"},
		{[]string{"--resume", id, "--session-id", transcript.NewID()}, "unless with --fork-session"},
	} {
		code, _, errs := run(append([]string{"-p", "--cwd", dir}, append(tc.args, "x")...)...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %q; want a usage error saying %q", tc.args, code, errs, tc.want)
		}
	}
	if n := len(load(named)); n != 16 {
		t.Errorf("a refused fork wrote to the session it named: %d messages", n)
	}
}

// A session --session-id or --fork-session started that got no turn (its
// run failed before its prompt was sent) is not kept, as in Claude Code:
// it would be the newest session --continue picks, and its ID could not
// be named again. One that got a turn keeps it, a failed one included.
func TestUnusedSessionDiscarded(t *testing.T) {
	dir := project(t) // HOME is dir
	root := workspace.ProjectRoot(dir, dir)
	if err := os.MkdirAll(filepath.Join(dir, ".claude", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "commands", "touch.md"), []byte("!`touch x`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	result := func(wantCode int, args ...string) string {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir, "--trust", "--output-format", "json"}, args...)...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != wantCode {
			t.Fatalf("%q: exit %d (want %d), %v: %s %s", args, code, wantCode, err, out, errs)
		}
		id, _ := res["session_id"].(string)
		return id
	}
	exists := func(id string) bool {
		_, err := os.Lstat(transcript.Path(dir, root, id))
		return err == nil
	}
	id := result(ExitOK, "Read: a.txt")

	// The ! command is refused: the prompt is never sent.
	named := transcript.NewID()
	if got := result(ExitFailed, "--session-id", named, "/touch"); got != named || exists(named) {
		t.Errorf("--session-id run that got no turn: session %s, transcript left: %v", got, exists(named))
	}
	if got := result(ExitOK, "--continue", "Read: a.txt"); got != id {
		t.Errorf("--continue took session %s, want %s, the last one with a turn", got, id)
	}
	if got := result(ExitOK, "--session-id", named, "Read: a.txt"); got != named || !exists(named) {
		t.Errorf("--session-id %s again: session %s, transcript %v", named, got, exists(named))
	}
	before, err := transcript.Load(transcript.Path(dir, root, id))
	if err != nil {
		t.Fatal(err)
	}
	if fork := result(ExitFailed, "--resume", id, "--fork-session", "/touch"); fork == id || exists(fork) {
		t.Errorf("a fork that got no turn: session %s, transcript left: %v", fork, exists(fork))
	}
	if after, err := transcript.Load(transcript.Path(dir, root, id)); err != nil || len(after) != len(before) {
		t.Errorf("the forked session: %d messages, %v; want its %d", len(after), err, len(before))
	}

	// A first turn that failed (--max-turns) is a turn: it is kept.
	failed := transcript.NewID()
	result(ExitFailed, "--session-id", failed, "--max-turns", "1", "Run bash: git status")
	if msgs, err := transcript.Load(transcript.Path(dir, root, failed)); err != nil || len(msgs) == 0 || msgs[0].Content != "Run bash: git status" {
		t.Errorf("a session whose first turn failed: %d messages, %v; want its turn", len(msgs), err)
	}
	fork := result(ExitFailed, "--resume", id, "--fork-session", "--max-turns", "1", "Run bash: git status")
	if msgs, err := transcript.Load(transcript.Path(dir, root, fork)); err != nil || len(msgs) <= len(before) {
		t.Errorf("a fork whose first turn failed: %d messages, %v; want the %d forked and its turn", len(msgs), err, len(before))
	}
}

// A fork's transcript holds the conversation it forked from its start:
// a hook reading transcript_path in the fork's first turn finds it. A
// fork whose first prompt a hook blocked got no turn, and leaves no
// session behind: the conversation stays in the session it forked.
func TestForkTranscriptFromTheStart(t *testing.T) {
	dir := project(t) // HOME is dir: these are the user's own hooks
	counted := filepath.Join(t.TempDir(), "lines")
	hook := `p=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p'); wc -l < "$p" > ` + counted + `; grep -q block "$p" && exit 2; exit 0`
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
	if err := os.WriteFile(filepath.Join(dir, ".gen", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	sessionOf := func(args ...string) (int, string) {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir, "--output-format", "json"}, args...)...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q: exit %d, %v: %s %s", args, code, err, out, errs)
		}
		id, _ := res["session_id"].(string)
		return code, id
	}
	_, id := sessionOf("Read: a.txt") // 4 lines, no "block" in them
	if _, fork := sessionOf("--resume", id, "--fork-session", "Read: a.txt"); fork == id {
		t.Fatal("the fork kept the session's ID")
	}
	if b, err := os.ReadFile(counted); err != nil || strings.TrimSpace(string(b)) != "5" {
		t.Errorf("the fork's first turn saw a transcript of %q lines (%v), want its session line and the 4 forked", b, err)
	}
	// A session whose conversation holds "block": the hook blocks the
	// fork's first prompt.
	_, blocking := sessionOf("Read: block.txt")
	code, fork := sessionOf("--resume", blocking, "--fork-session", "Read: a.txt")
	if code == ExitOK || fork == blocking {
		t.Fatalf("blocked fork: exit %d, session %s", code, fork)
	}
	root := workspace.ProjectRoot(dir, dir)
	if _, err := os.Lstat(transcript.Path(dir, root, fork)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the blocked fork left its transcript: %v", err)
	}
	if msgs, err := transcript.Load(transcript.Path(dir, root, blocking)); err != nil || len(msgs) != 4 {
		t.Errorf("the forked session's transcript: %d messages, %v; want its 4", len(msgs), err)
	}
}

// A session run as an agent (--agent) is resumed as that agent: its rules
// keep applying, as Claude Code users expect and as a restricted agent
// needs (resuming must not give the model more than it had). --agent
// chooses another; an agent that is gone is a usage error, never a
// resumed session without its rules.
func TestResumeKeepsAgent(t *testing.T) {
	dir := project(t) // HOME is dir
	agentFile := filepath.Join(dir, ".gen", "agents", "nostatus.md")
	if err := os.WriteFile(agentFile, []byte("---\nname: nostatus\ndescription: d\ndeny_tools: Bash(git status)\n---\nLook only.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	result := func(args ...string) (int, map[string]any, string) {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir, "--output-format", "json"}, args...)...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q: exit %d, %v: %s %s", args, code, err, out, errs)
		}
		return code, res, fmt.Sprint(res["result"])
	}
	code, first, text := result("--agent", "nostatus", "Run bash: git status")
	if code != ExitDenied || !strings.Contains(text, "deny_tools") {
		t.Fatalf("as the agent: exit %d, %q", code, text)
	}
	id, _ := first["session_id"].(string)
	for _, args := range [][]string{{"--resume", id}, {"--continue"}, {"--resume", id, "--fork-session"}} {
		code, _, text := result(append(args, "Run bash: git status")...)
		if code != ExitDenied || !strings.Contains(text, "blocked by deny_tools") {
			t.Errorf("%q: exit %d, %q; want the agent's deny_tools to apply", args, code, text)
		}
	}
	code, _, text = result("--resume", id, "--agent", "test-perm", "Read: a.txt")
	if code != ExitOK || !strings.Contains(text, "Read(a.txt) -> ALLOWED") {
		t.Errorf("--agent test-perm on resume: exit %d, %q", code, text)
	}
	// The last entry's agent counts: the session now runs as test-perm.
	if msgs, agent, err := transcript.LoadAgent(transcript.Path(dir, workspace.ProjectRoot(dir, dir), id)); err != nil || agent.Name != "test-perm" || len(msgs) == 0 {
		t.Errorf("recorded agent %+v, %v", agent, err)
	}
	if err := os.Remove(filepath.Join(dir, ".gen", "agents", "test-perm.md")); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run("-p", "--cwd", dir, "--resume", id, "Read: a.txt")
	if code != ExitUsage || !strings.Contains(errs, "session "+id+` ran as agent "test-perm"`) {
		t.Errorf("resumed agent gone: exit %d, %q; want a usage error naming it", code, errs)
	}
	// A session without an agent resumes without one.
	_, plain, _ := result("Read: a.txt")
	if code, _, text := result("--resume", plain["session_id"].(string), "Run bash: git status"); code == ExitDenied {
		t.Errorf("a session without an agent resumed with rules: exit %d, %q", code, text)
	}
}

// A resumed session runs as its agent or not at all: a session that
// never finished a turn still has it; an agent given by --agents is not
// replaced by a file of the same name; one the settings chose needs the
// settings to choose it still.
func TestResumedAgentIsTheSame(t *testing.T) {
	dir := project(t) // HOME is dir
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gen/agents/nostatus.md", "---\nname: nostatus\ndescription: d\ndeny_tools: Bash(git status)\n---\nLook only.\n")
	settings := func(agent string) {
		t.Helper()
		v := map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "grep -q BLOCKME && exit 2; exit 0"}}}}}}
		if agent != "" {
			v["agent"] = agent
		}
		b, _ := json.Marshal(v)
		write(".gen/settings.json", string(b))
	}
	settings("")
	gen := func(args ...string) (int, string) {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir}, args...)...)
		return code, out + errs
	}

	// A session whose run was killed before its first turn ended has
	// only the line that names it, as start wrote it.
	code, out := gen("--output-format", "json", "--agent", "nostatus", "Run bash: git status")
	var res map[string]any
	if err := json.Unmarshal([]byte(out[:strings.IndexByte(out, '\n')+1]), &res); err != nil || code != ExitDenied {
		t.Fatalf("as the agent: exit %d, %v: %s", code, err, out)
	}
	root := workspace.ProjectRoot(dir, dir)
	_, ran, err := transcript.LoadAgent(transcript.Path(dir, root, res["session_id"].(string)))
	if err != nil || ran.Name != "nostatus" {
		t.Fatalf("the session's agent: %+v, %v", ran, err)
	}
	id := transcript.NewID()
	if _, err := transcript.Create(transcript.Path(dir, root, id), transcript.Meta{SessionID: id, Cwd: dir, Agent: ran}, nil); err != nil {
		t.Fatal(err)
	}
	if code, out := gen("--resume", id, "Run bash: git status"); code != ExitDenied || !strings.Contains(out, "blocked by deny_tools") {
		t.Errorf("a session that never finished a turn resumed without its agent: exit %d, %s", code, out)
	}

	// --agents' agent, resumed without --agents, is not the file's.
	write(".gen/agents/ro.md", "---\nname: ro\ndescription: d\n---\nAnything.\n")
	code, out = gen("--output-format", "json", "--agents", `{"ro": {"description": "d", "prompt": "p", "deny_tools": "Bash(git status)"}}`, "--agent", "ro", "Run bash: git status")
	if err := json.Unmarshal([]byte(out[:strings.IndexByte(out, '\n')+1]), &res); err != nil || code != ExitDenied {
		t.Fatalf("--agents ro: exit %d, %v: %s", code, err, out)
	}
	cliSession, _ := res["session_id"].(string)
	if code, out := gen("--resume", cliSession, "Run bash: git status"); code != ExitUsage || !strings.Contains(out, "give its --agents again") {
		t.Errorf("--agents agent resumed without it: exit %d, %s; want a usage error", code, out)
	}

	// Chosen by the settings: resumed while they still choose it, refused
	// once they do not.
	settings("nostatus")
	code, out = gen("--output-format", "json", "Run bash: git status")
	if err := json.Unmarshal([]byte(out[:strings.IndexByte(out, '\n')+1]), &res); err != nil || code != ExitDenied {
		t.Fatalf("settings' agent: exit %d, %v: %s", code, err, out)
	}
	chosen, _ := res["session_id"].(string)
	if code, out := gen("--resume", chosen, "Run bash: git status"); code != ExitDenied {
		t.Errorf("resumed while the settings choose the agent: exit %d, %s", code, out)
	}
	settings("")
	if code, out := gen("--resume", chosen, "Run bash: git status"); code != ExitUsage || !strings.Contains(out, "whose settings now choose no agent") {
		t.Errorf("resumed after the settings stopped choosing the agent: exit %d, %s; want a usage error", code, out)
	}
}

// Piped stdin and a prompt argument are combined, argument first; a stdin
// that stays silent is given up on after the grace time.
func TestPromptWithStdin(t *testing.T) {
	dir := project(t)
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--cwd", dir, "Read: a.txt"},
		Streams{In: strings.NewReader("Run bash: git status\n"), Out: &out, Err: &errb})
	if code != ExitOK || out.String() != "RESULT: Read(a.txt) -> ALLOWED\nRESULT: Bash(git status) -> ALLOWED\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}

	old := stdinGrace
	stdinGrace = 1
	defer func() { stdinGrace = old }()
	pr, pw := io.Pipe()
	defer pw.Close()
	out.Reset()
	errb.Reset()
	code = Run(context.Background(), []string{"-p", "--cwd", dir, "Read: a.txt"}, Streams{In: pr, Out: &out, Err: &errb})
	if code != ExitOK || out.String() != "RESULT: Read(a.txt) -> ALLOWED\n" || !strings.Contains(errb.String(), "nothing arrived on stdin") {
		t.Fatalf("silent stdin: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

func TestCompletion(t *testing.T) {
	dir := project(t)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "--permission-mode", ""}, []string{"default", "acceptEdits", "bypassPermissions"}},
		{[]string{"__complete", "-p", "--allowedTools", ""}, []string{"Bash", "Read", "WebFetch"}},
		{[]string{"__complete", "agent", "run", "--cwd", dir, "--type", ""}, []string{"test-perm\tPermission gate fixture", "Explore"}},
		{[]string{"__complete", "agent", "show", "--cwd", dir, ""}, []string{"test-perm"}},
		{[]string{"__complete", "permissions", "check", "--mode", ""}, []string{"explore"}},
	} {
		code, out, _ := run(tt.args...)
		for _, w := range tt.want {
			if code != ExitOK || !strings.Contains(out, w) {
				t.Errorf("%q: exit %d, completions %q lack %q", tt.args, code, out, w)
			}
		}
	}
	code, out, _ := run("completion", "bash")
	if code != ExitOK || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d", code)
	}
}

// Headless never waits on a terminal: stream-json input needs a pipe.
func TestStreamInputNeedsPipe(t *testing.T) {
	dir := project(t)
	var errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--cwd", dir, "--input-format", "stream-json", "--output-format", "stream-json"},
		Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errb, InTerminal: true})
	if code != ExitUsage || !strings.Contains(errb.String(), "from a pipe") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// --no-session-persistence saves nothing of the session, as in Claude
// Code: no transcript of a new session, a fork or a --session-id one, and
// nothing added to one --resume or --continue reads (the model still gets
// its conversation); hooks are told an empty transcript_path.
func TestNoSessionPersistence(t *testing.T) {
	dir := project(t) // HOME is dir
	root := workspace.ProjectRoot(dir, dir)
	tdir := transcript.ProjectDir(dir, root)
	files := func() []string {
		t.Helper()
		es, err := os.ReadDir(tdir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	hookLog := filepath.Join(t.TempDir(), "start.json")
	if err := os.WriteFile(filepath.Join(dir, ".gen", "settings.json"), []byte(`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "cat > `+hookLog+`"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	result := func(args ...string) map[string]any {
		t.Helper()
		code, out, errs := run(append([]string{"-p", "--cwd", dir, "--trust", "--output-format", "json"}, args...)...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitOK {
			t.Fatalf("%q: exit %d, %v: %s %s", args, code, err, out, errs)
		}
		return res
	}
	id, _ := result("--no-session-persistence", "Read: a.txt")["session_id"].(string)
	if transcript.CheckID(id) != nil || len(files()) != 0 {
		t.Fatalf("session %q, transcripts %q; want an ID and no file", id, files())
	}
	var start map[string]any
	if data, err := os.ReadFile(hookLog); err != nil || json.Unmarshal(data, &start) != nil || start["transcript_path"] != "" || start["session_id"] != id {
		t.Errorf("SessionStart input %s (%v); want session %s and an empty transcript_path", data, err, id)
	}
	result("--no-session-persistence", "--session-id", transcript.NewID(), "Read: a.txt")
	if len(files()) != 0 {
		t.Errorf("--session-id saved %q", files())
	}

	// A saved session is read, and left as it was.
	saved, _ := result("Read: a.txt")["session_id"].(string)
	path := transcript.Path(dir, root, saved)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--resume", saved}, {"--continue"}, {"--resume", saved, "--fork-session"}} {
		res := result(append(args, "--no-session-persistence", "Run bash: git status")...)
		if res["num_turns"] == nil {
			t.Errorf("%q: result %v", args, res)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) || len(files()) != 1 {
		t.Errorf("the session read was changed, or another saved: %q", files())
	}
}

// Headless plan mode reads and plans; the plan is refused, since nobody
// can approve it (an allow rule does not; a PermissionRequest hook or
// --permission-prompt-tool could), and nothing that changes anything runs.
func TestHeadlessPlanMode(t *testing.T) {
	dir := project(t)
	code, out, errs := run("-p", "--cwd", dir, "--permission-mode", "plan", "--allowedTools", "Write,ExitPlanMode", "--",
		"Read: a.txt\nWrite b.txt: x\nCall ExitPlanMode: {\"plan\": \"1. write b.txt\"}")
	for _, want := range []string{
		"Read(a.txt) -> ALLOWED",
		"Write(b.txt) -> DENIED: plan mode",
		"ExitPlanMode",
		"DENIED: the plan needs the person's approval",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, out, errs)
		}
	}
	if code != ExitDenied {
		t.Errorf("exit %d, want %d", code, ExitDenied)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("b.txt was written in plan mode")
	}
}
