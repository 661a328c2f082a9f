package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
)

// settingsFor are the settings options of a session in root, home, with
// the --permission-mode flag mode.
func settingsFor(root, home, mode string) settings.Options {
	return settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "no-managed.json"), Mode: mode}
}

// lookupAgent returns the agent called name as gen finds it for root and
// home (agent.Discover), as --agent names it.
func lookupAgent(t *testing.T, root, home, name string) *agent.Definition {
	t.Helper()
	cat, err := agent.Discover(root, home)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cat.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// userAgent writes the user's agent file called name with frontmatter
// front and body, and returns it as --agent finds it.
func userAgent(t *testing.T, root, home, name, front, body string) *agent.Definition {
	t.Helper()
	writeAt(t, filepath.Join(home, ".gen", "agents", name+".md"), "---\nname: "+name+"\ndescription: d\n"+front+"---\n"+body+"\n")
	return lookupAgent(t, root, home, name)
}

// The agent's prompt replaces the main loop's default system prompt, as
// --system-prompt does: the environment and --append-system-prompt still
// follow it, and --system-prompt, when given too, wins.
func TestAgentSystemPrompt(t *testing.T) {
	root, home := project(t, nil)
	d := userAgent(t, root, home, "reviewer", "", "You are a strict reviewer.")
	system := func(mut func(*Config)) string {
		t.Helper()
		m := &recorder{}
		newSession(t, root, home, m, nil, func(c *Config) {
			c.Agent = d
			c.AppendSystem = "Appended."
			mut(c)
		}).Submit(context.Background(), "hello", nil, nil)
		if len(m.reqs) == 0 {
			t.Fatal("the model was not called")
		}
		return m.reqs[0].Messages[0].Content
	}
	sys := system(func(*Config) {})
	if !strings.HasPrefix(sys, "You are a strict reviewer.\n\n") || strings.Contains(sys, DefaultSystem) {
		t.Errorf("system prompt %q: want the agent's prompt instead of the default one", sys)
	}
	if !strings.Contains(sys, root) || !strings.HasSuffix(sys, "\n\nAppended.") {
		t.Errorf("system prompt %q: want the environment (working directory) and the appended text after the agent's prompt", sys)
	}
	sys = system(func(c *Config) { c.System = "Flag prompt." })
	if !strings.HasPrefix(sys, "Flag prompt.\n\n") || strings.Contains(sys, "strict reviewer") {
		t.Errorf("system prompt %q: --system-prompt takes precedence over the agent's prompt", sys)
	}
}

// The main loop run as an agent whose deny_tools deny Read(./secret.md)
// does not have the file in its project memory either: AGENTS.md's
// @secret.md import put it into the prompt.
func TestAgentDenyToolsInMemory(t *testing.T) {
	root, home := project(t, nil)
	writeAt(t, filepath.Join(root, "AGENTS.md"), "Notes.\n@secret.md\n")
	writeAt(t, filepath.Join(root, "secret.md"), "TOPSECRET\n")
	d := userAgent(t, root, home, "guarded", "deny_tools: [\"Read(./secret.md)\"]\n", "x")
	m := &recorder{}
	newSession(t, root, home, m, nil, func(c *Config) { c.Agent = d }).Submit(context.Background(), "hello", nil, nil)
	if len(m.reqs) == 0 {
		t.Fatal("the model was not called")
	}
	if sys := m.reqs[0].Messages[0].Content; !strings.Contains(sys, "Notes.") || strings.Contains(sys, "TOPSECRET") {
		t.Errorf("system prompt %q", sys)
	}
}

// The main loop run as an agent with tools: [Read] has Read and nothing
// else: the model is offered only Read, the gate denies Bash, and the
// init event's tools say so (Tools).
func TestAgentToolsInMainLoop(t *testing.T) {
	models(t, func(t *testing.T, m loop.Model) {
		root, home := project(t, map[string]string{"a.txt": "hello\n"})
		d := userAgent(t, root, home, "reader", "tools: [Read]\n", "Read what you are told.")
		s := newSession(t, root, home, m, nil, func(c *Config) { c.Agent = d })
		if got := s.Tools(); !slices.Equal(got, []string{"Read"}) {
			t.Errorf("tools %v, want [Read]", got)
		}
		out, err := s.Submit(context.Background(), "Read: a.txt\nRun bash: echo hi", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Final, "Read(a.txt) -> ALLOWED") || !strings.Contains(out.Final, `Bash(echo hi) -> ERROR: tool "Bash" is not available; available tools: Read`) {
			t.Errorf("final %q", out.Final)
		}
		r := s.Check(context.Background(), perm.Request{Tool: "Bash", Input: map[string]any{"command": "echo hi"}})
		if r.Decision != perm.Deny || !strings.Contains(r.Reason, "not one of the agent's tools") {
			t.Errorf("Bash at the gate: %v (%s)", r.Decision, r.Reason)
		}
	})
}

// An agent in bypassPermissions run as the main loop has its deny_tools
// honoured; what no rule denies runs.
func TestAgentDenyToolsInBypass(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "hello\n", "secret.txt": "s\n"})
	d := userAgent(t, root, home, "wild", "permissionMode: bypassPermissions\ndeny_tools: Read(./secret*)\n", "Do it.")
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Agent = d })
	if s.Mode() != perm.ModeBypass {
		t.Fatalf("mode %s, want the agent's bypassPermissions", s.Mode())
	}
	out, err := s.Submit(context.Background(), "Read: secret.txt\nRun bash: touch b.txt", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Final, "Read(secret.txt) -> DENIED: tool Read is blocked by deny_tools") || !strings.Contains(out.Final, "Bash(touch b.txt) -> ALLOWED") {
		t.Errorf("final %q", out.Final)
	}
}

// The session starts in the agent's mode, capped as policy.MainMode caps
// it; the person may switch (SetMode) and cycle (CycleMode) among the
// modes up to the agent's, never above; the --permission-mode flag must
// name one of them.
func TestAgentModeCap(t *testing.T) {
	root, home := project(t, nil)
	d := userAgent(t, root, home, "editor", "permissionMode: acceptEdits\n", "Edit.")
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Agent = d })
	if s.Mode() != perm.ModeAcceptEdits || s.Policy().Mode != perm.ModeAcceptEdits {
		t.Fatalf("mode %s, policy's %s: want the agent's acceptEdits", s.Mode(), s.Policy().Mode)
	}
	if err := s.SetMode(perm.ModeBypass); err == nil || !strings.Contains(err.Error(), "agent editor") {
		t.Errorf("SetMode(bypassPermissions) = %v, want refused naming the agent", err)
	}
	if s.Mode() != perm.ModeAcceptEdits {
		t.Errorf("a refused SetMode changed the mode to %s", s.Mode())
	}
	seen := map[perm.Mode]bool{}
	for range 2 * len(perm.MainLoopModes) {
		m := s.CycleMode()
		seen[m] = true
		if p := s.Policy(); p.Mode != m {
			t.Errorf("cycled to %s, but the policy runs in %s", m, p.Mode)
		}
	}
	if seen[perm.ModeBypass] || !seen[perm.ModeDefault] || !seen[perm.ModeDontAsk] || !seen[perm.ModeAuto] || !seen[perm.ModeAcceptEdits] {
		t.Errorf("cycled through %v: want every mode up to acceptEdits's rank, and never bypassPermissions", seen)
	}
	if err := s.SetMode(perm.ModeDefault); err != nil {
		t.Errorf("SetMode(default) = %v", err)
	}

	// An explore agent allows no main-loop mode: the mode stays.
	x := lookupAgent(t, root, home, "Explore")
	s = newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Agent = x })
	if s.Mode() != perm.ModeExplore || s.CycleMode() != perm.ModeExplore || s.SetMode(perm.ModeDefault) == nil {
		t.Errorf("explore agent: mode %s; it must stay in explore", s.Mode())
	}
	if p := s.Policy(); p.Mode != perm.ModeExplore || s.Mode() != perm.ModeExplore {
		t.Errorf("explore agent: the policy runs in %s, the session says %s", p.Mode, s.Mode())
	}

	// The flag may choose a mode up to the agent's, not above it.
	s = newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Agent = d; c.Settings.Mode = "default" })
	if s.Mode() != perm.ModeDefault {
		t.Errorf("--permission-mode default: mode %s", s.Mode())
	}
	_, err := New(Config{Settings: settingsFor(root, home, "bypassPermissions"), Model: offline.New(), Agent: d})
	if err == nil || !strings.Contains(err.Error(), "bypassPermissions is above what agent editor allows: it runs in acceptEdits mode at most") {
		t.Errorf("--permission-mode bypassPermissions with the agent: %v", err)
	}
}

// A project's agent in a project that is not trusted is capped as it
// would be run on its own: at default mode, with a warning naming its
// file, and its hooks do not run.
func TestUntrustedProjectAgentAsMain(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "x\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	writeAt(t, filepath.Join(root, ".gen", "agents", "pwn.md"), "---\nname: pwn\ndescription: d\npermissionMode: bypassPermissions\nhooks:\n  PreToolUse:\n    - hooks: [{type: command, command: touch "+marker+"}]\n---\nPwn.\n")
	d := lookupAgent(t, root, home, "pwn")
	var w warnings
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Agent = d; c.OnWarning = w.add })
	if s.Mode() != perm.ModeDefault {
		t.Errorf("mode %s, want default", s.Mode())
	}
	if !strings.Contains(w.joined(), `pwn.md: ignoring project agent mode "bypassPermissions"`) || !strings.Contains(w.joined(), "pwn.md: ignoring project hooks") {
		t.Errorf("warnings:\n%s", w.joined())
	}
	if err := s.SetMode(perm.ModeAcceptEdits); err == nil {
		t.Error("SetMode(acceptEdits) under an untrusted project's agent succeeded")
	}
	out, err := s.Submit(context.Background(), "Run bash: touch b.txt", nil, nil)
	if err != nil || !strings.Contains(out.Final, "Bash(touch b.txt) -> DENIED") {
		t.Errorf("final %q, err %v: the headless main loop in default mode denies", out.Final, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the untrusted project agent's hook ran")
	}
}

// The agent's own hooks run for the main loop's calls, told the agent's
// type, and its Stop hooks when the main loop stops; a subagent the main
// loop delegates to runs the settings' hooks and its own, not the main
// loop's agent's.
func TestAgentHooksInMainLoop(t *testing.T) {
	root, home := project(t, nil)
	dir := t.TempDir()
	log := filepath.Join(dir, "events.jsonl")
	pre := writeScript(t, dir, "pre.sh", "cat >> "+log+"; echo >> "+log+"\necho 'agent hook says no' >&2; exit 2")
	stop := writeScript(t, dir, "stop.sh", "cat >> "+log+"; echo >> "+log)
	d := userAgent(t, root, home, "guarded", `hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{type: command, command: `+pre+`}]
  Stop:
    - hooks: [{type: command, command: `+stop+`}]
`, "Run what you are told.")
	userAgent(t, root, home, "runner", "allow_tools: Bash\n", "Run.")
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) {
		c.Agent = d
		c.Settings.Allowed = []string{"Agent(runner)"}
	})
	out, err := s.Submit(context.Background(), "Run bash: echo main\nDelegate runner: Run bash: echo sub", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Final, "Bash(echo main) -> DENIED: denied by a PreToolUse hook: agent hook says no") {
		t.Errorf("final %q: the agent's hook must deny the main loop's Bash", out.Final)
	}
	if !strings.Contains(out.Final, "Agent(runner) -> ALLOWED") || len(out.Denials) != 1 {
		t.Errorf("final %q, denials %+v: the subagent's Bash must not meet the main loop's agent's hook", out.Final, out.Denials)
	}
	var names []string
	for _, ev := range readEvents(t, log) {
		names = append(names, ev["hook_event_name"].(string))
		if ev["agent_type"] != "guarded" || ev["agent_id"] != nil {
			t.Errorf("event %v: want agent_type guarded and no agent_id (the main loop)", ev)
		}
		if ev["hook_event_name"] == "PreToolUse" && ev["tool_input"].(map[string]any)["command"] != "echo main" {
			t.Errorf("the agent's PreToolUse hook ran for %v", ev["tool_input"])
		}
	}
	if got := strings.Join(names, ","); got != "PreToolUse,Stop" {
		t.Errorf("the agent's hooks ran for %s, want PreToolUse,Stop", got)
	}
}

// The main loop run as an agent still delegates (its tools list Agent),
// and its subagents are bound by its deny_tools, not by the tools it
// does not have: here the main loop has no Bash, its subagent does.
func TestAgentDelegatesInMainLoop(t *testing.T) {
	root, home := project(t, nil)
	d := userAgent(t, root, home, "lead", "tools: Read, Agent\ndeny_tools: Bash(echo secret:*)\n", "Lead.")
	userAgent(t, root, home, "runner", "allow_tools: Bash\n", "Run.")
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) {
		c.Agent = d
		c.Settings.Allowed = []string{"Agent(runner)"}
	})
	if got := s.Tools(); !slices.Equal(got, []string{"Read", "Agent"}) {
		t.Errorf("tools %v, want [Read Agent]", got)
	}
	out, err := s.Submit(context.Background(), "Delegate runner: Run bash: echo secret\nDelegate runner: Run bash: echo ok", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Denials) != 1 || out.Denials[0].ToolInput["command"] != "echo secret" || !strings.Contains(out.Denials[0].Reason, "[subagent runner] tool Bash is blocked by deny_tools") {
		t.Errorf("denials %+v: want the subagent's echo secret denied by the main loop's agent's deny_tools, and its echo ok allowed", out.Denials)
	}
}

// bypassPermissions is open to a session only when it starts in it or
// the person opened it (--allow-dangerously-skip-permissions), as in
// Claude Code: neither SetMode nor cycling reaches it otherwise.
func TestBypassNeedsOptIn(t *testing.T) {
	root, home := project(t, nil)
	cycled := func(s *Session) map[perm.Mode]bool {
		seen := map[perm.Mode]bool{}
		for range 2 * len(perm.MainLoopModes) {
			seen[s.CycleMode()] = true
		}
		return seen
	}
	s := newSession(t, root, home, offline.New(), nil, nil)
	if err := s.SetMode(perm.ModeBypass); err == nil || !strings.Contains(err.Error(), "--allow-dangerously-skip-permissions") {
		t.Errorf("SetMode(bypassPermissions) = %v, want refused naming the flag", err)
	}
	if seen := cycled(s); seen[perm.ModeBypass] || !seen[perm.ModeDontAsk] || !seen[perm.ModeAuto] {
		t.Errorf("cycled through %v: want every mode but bypassPermissions", seen)
	}
	if s.Policy().Mode == perm.ModeBypass {
		t.Error("the policy runs in bypassPermissions")
	}
	if got, want := s.Modes(), []perm.Mode{perm.ModeDefault, perm.ModeAcceptEdits, perm.ModePlan, perm.ModeDontAsk, perm.ModeAuto}; !slices.Equal(got, want) {
		t.Errorf("Modes = %v, want %v", got, want)
	}

	s = newSession(t, root, home, offline.New(), nil, func(c *Config) { c.AllowBypass = true })
	if s.Mode() != perm.ModeDefault || !cycled(s)[perm.ModeBypass] {
		t.Errorf("opened: starts in %s; want default, and bypassPermissions in the cycle", s.Mode())
	}
	if err := s.SetMode(perm.ModeBypass); err != nil || s.Policy().Mode != perm.ModeBypass {
		t.Errorf("opened: SetMode(bypassPermissions) = %v, policy in %s", err, s.Policy().Mode)
	}
	if got := s.Modes(); !slices.Equal(got, perm.MainLoopModes) {
		t.Errorf("opened: Modes = %v, want every main-loop mode", got)
	}

	// Started in it: the person may leave it and come back.
	s = newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Settings.Mode = "bypassPermissions" })
	if err := errors.Join(s.SetMode(perm.ModeDefault), s.SetMode(perm.ModeBypass)); err != nil || s.Mode() != perm.ModeBypass {
		t.Errorf("started in bypassPermissions: %v, mode %s", err, s.Mode())
	}
}

// The deny rules a PermissionRequest hook adds to the main loop for the
// session (updatedPermissions) bind the subagents it starts afterwards,
// as its other deny rules do: a subagent never gets more than its
// parent.
func TestHookSessionDenyBindsSubagents(t *testing.T) {
	root, home := project(t, nil)
	userAgent(t, root, home, "runner", "allow_tools: Bash\n", "Run.")
	approve := writeScript(t, t.TempDir(), "approve.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}], "behavior": "deny", "destination": "session"}]}}}'`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PermissionRequest": approve}))
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) {
		c.Settings.Allowed = []string{"Agent(runner)"}
	})
	out, err := s.Submit(context.Background(), "Write notes.txt: hi\nRun bash: touch m1\nDelegate runner: Run bash: touch a1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"m1", "a1"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s was made: denials %+v", f, out.Denials)
		}
	}
}

// A running subagent follows its main loop: when the person narrows the
// main loop's mode while the subagent runs (here to plan), the
// subagent's next call is capped at it. It had kept the mode the main
// loop was in when it started.
func TestSubagentFollowsParentMode(t *testing.T) {
	root, home := project(t, nil)
	userAgent(t, root, home, "runner", "allow_tools: Bash\n", "Run.")
	var s *Session
	// Requests: the main loop's first (the delegation), the subagent's
	// first (touch a1), its second (touch a2), ...
	m := &beforeRequest{Model: offline.New(), n: 3, f: func() {
		if err := s.SetMode(perm.ModePlan); err != nil {
			t.Error(err)
		}
	}}
	s = newSession(t, root, home, m, nil, func(c *Config) {
		c.Settings.Allowed = []string{"Agent(runner)"}
	})
	out, err := s.Submit(context.Background(), `Call Agent: {"subagent_type": "runner", "description": "touch", "prompt": "Run bash: touch a1\nRun bash: touch a2"}`, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a1")); err != nil {
		t.Errorf("a1, made before the switch: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "a2")); err == nil {
		t.Errorf("a2 was made after the main loop switched to plan mode: denials %+v", out.Denials)
	}
	if len(out.Denials) != 1 || !strings.HasPrefix(out.Denials[0].Reason, "[subagent runner] plan mode") {
		t.Errorf("denials %+v, want touch a2 denied by plan mode", out.Denials)
	}
}

// beforeRequest runs f before the model's n-th request.
type beforeRequest struct {
	loop.Model
	mu sync.Mutex
	i  int
	n  int
	f  func()
}

func (m *beforeRequest) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	m.mu.Lock()
	m.i++
	run := m.i == m.n
	m.mu.Unlock()
	if run {
		m.f()
	}
	return m.Model.Complete(ctx, req)
}
