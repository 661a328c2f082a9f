package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/internal/linktest"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
)

// fixture is the seed's test-perm agent as the repository ships it.
func fixture(t *testing.T) *agent.Definition {
	t.Helper()
	b, err := os.ReadFile("../.gen/agents/test-perm.md")
	if err != nil {
		t.Fatal(err)
	}
	def, err := agent.Parse(".gen/agents/test-perm.md", b)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

func load(t *testing.T, files map[string]string) *settings.Settings {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := settings.Load(settings.Options{Cwd: dir, Home: dir, ManagedPath: filepath.Join(dir, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestMain(t *testing.T) {
	s := load(t, map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "acceptEdits", "allow": ["Read"], "ask": ["Bash"], "deny": ["Edit"], "additionalDirectories": ["/usr"]}}`})
	grant := perm.Rule{Tool: "Bash"}
	p := Main(s, Runtime{Mode: perm.ModeDontAsk, Grants: []perm.Rule{grant}, Dirs: []string{"/y"}})
	if p.Mode != perm.ModeDontAsk || p.NoPrompt || len(p.Constraint) != 0 || !reflect.DeepEqual(p.Session, []perm.Rule{grant}) {
		t.Errorf("policy = %+v", p)
	}
	if !reflect.DeepEqual(p.Allow, s.Allow) || !reflect.DeepEqual(p.Ask, s.Ask) || !reflect.DeepEqual(p.Deny, s.Deny) {
		t.Errorf("policy rules differ from settings: %+v", p)
	}
	if !reflect.DeepEqual(p.Workspace.Dirs, []string{"/usr", "/y"}) {
		t.Errorf("dirs = %v", p.Workspace.Dirs)
	}
	p.Deny[0].Rule.Tool = "Changed"
	p.Workspace.Dirs[0] = "/changed"
	if s.Deny[0].Rule.Tool != "Edit" || s.Workspace.Dirs[0] != "/usr" {
		t.Error("modifying the policy changed the settings")
	}
}

func TestSubagent(t *testing.T) {
	set := load(t, nil)
	def := fixture(t)
	set.Deny = append(set.Deny, perm.Entry{Rule: perm.Rule{Tool: "Read", Pattern: "./a.txt", HasPattern: true}, Source: perm.SourceProject})
	set.Allow = append(set.Allow, perm.Entry{Rule: perm.Rule{Tool: "Bash"}, Source: perm.SourceUser})
	set.Ask = append(set.Ask, perm.Entry{Rule: perm.Rule{Tool: "Bash", Pattern: "git log*", HasPattern: true}, Source: perm.SourceUser})
	p, _ := Subagent(set, def, &Parent{Mode: perm.ModeBypass, Deny: []perm.Entry{{Rule: perm.Rule{Tool: "Glob"}, Source: perm.SourceSession}},
		Ask: []perm.Entry{{Rule: perm.Rule{Tool: "Bash", Pattern: "git diff --cached*", HasPattern: true}, Source: perm.SourceSession}}})
	check := func(req perm.Request, want perm.Decision, reason string) {
		t.Helper()
		if r := perm.Evaluate(req, &p); r.Decision != want || !strings.Contains(r.Reason, reason) {
			t.Errorf("%v: %v %q, want %v %q", req.Input, r.Decision, r.Reason, want, reason)
		}
	}
	// No settings allow rule reaches the subagent: its allow_tools do.
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "npm test"}}, perm.Deny, "allow_tools")
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git diff --stat"}}, perm.Allow, "")
	// git diff may print tracked contents, and a Read deny rule covers a file
	// in the repository (issue 8).
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git diff"}}, perm.Deny, "may print tracked file contents")
	// Settings deny, parent deny and deny_tools all apply.
	check(perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}, perm.Deny, "deny rule Read(./a.txt)")
	check(perm.Request{Tool: "Glob", Input: map[string]any{"pattern": "*"}}, perm.Deny, "deny rule Glob")
	// Settings ask rules deny, as nobody can be asked.
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git log"}}, perm.Deny, "ask rule")
	// The parent's ask rules too.
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git diff --cached --stat"}}, perm.Deny, "ask rule Bash(git diff --cached*)")
	if !p.NoPrompt || p.Mode != perm.ModeExplore {
		t.Errorf("policy = %+v", p)
	}
	// bypassPermissions falls back to default where managed settings disable it.
	set.DisableBypass = true
	d := *def
	d.Mode = perm.ModeBypass
	if p, warns := Subagent(set, &d, nil); p.Mode != perm.ModeDefault || len(warns) != 1 {
		t.Errorf("mode %s, warnings %q", p.Mode, warns)
	}
}

// A delegated subagent's mode is capped at its parent's, and it works in
// the directories its parent added.
// A project's agent file is the cloned repository's: its mode may ask
// less than default only in a trusted project, like the project's
// defaultMode (settings.Load). A user's agent keeps its mode.
func TestSubagentProjectModeNeedsTrust(t *testing.T) {
	for _, tc := range []struct {
		source  string
		mode    perm.Mode
		trusted bool
		want    perm.Mode
		warn    bool
	}{
		{agent.SourceProject, perm.ModeBypass, false, perm.ModeDefault, true},
		{agent.SourceProject, perm.ModeAcceptEdits, false, perm.ModeDefault, true},
		{agent.SourceProject, perm.ModeAuto, false, perm.ModeDefault, true},
		{agent.SourceProject, perm.ModeExplore, false, perm.ModeExplore, false},
		{agent.SourceProject, perm.ModeDontAsk, false, perm.ModeDontAsk, false},
		{agent.SourceProject, perm.ModeBypass, true, perm.ModeBypass, false},
		{agent.SourceUser, perm.ModeBypass, false, perm.ModeBypass, false},
		{agent.SourceBuiltin, perm.ModeAcceptEdits, false, perm.ModeAcceptEdits, false},
	} {
		set := load(t, nil)
		set.Trusted = tc.trusted
		d := &agent.Definition{Name: "pwn", Mode: tc.mode, Source: tc.source, Path: "/proj/.gen/agents/pwn.md"}
		p, warns := Subagent(set, d, nil)
		if p.Mode != tc.want {
			t.Errorf("%s agent, mode %s, trusted %v: runs in %s, want %s", tc.source, tc.mode, tc.trusted, p.Mode, tc.want)
		}
		warned := len(warns) == 1 && strings.Contains(warns[0], "/proj/.gen/agents/pwn.md: ignoring project agent mode") && strings.Contains(warns[0], "is not trusted")
		if warned != tc.warn || (!tc.warn && len(warns) > 0) {
			t.Errorf("%s agent, mode %s, trusted %v: warnings %q, want one: %v", tc.source, tc.mode, tc.trusted, warns, tc.warn)
		}
	}
}

func TestSubagentCappedByParent(t *testing.T) {
	set := load(t, nil)
	tests := []struct {
		child, parent, want perm.Mode
	}{
		{perm.ModeAcceptEdits, perm.ModeDefault, perm.ModeDefault},
		{perm.ModeBypass, perm.ModeAcceptEdits, perm.ModeAcceptEdits},
		{perm.ModeExplore, perm.ModeBypass, perm.ModeExplore},
		// default asks (a permission-prompt tool, a PermissionRequest
		// hook) where dontAsk denies: a dontAsk parent caps it.
		{perm.ModeDefault, perm.ModeDontAsk, perm.ModeDontAsk},
		{perm.ModeDontAsk, perm.ModeDefault, perm.ModeDontAsk},
		{perm.ModeAuto, perm.ModeAcceptEdits, perm.ModeAuto},
		// Under a main loop in plan mode a subagent plans too: its
		// allow_tools change nothing, as they would in explore.
		{perm.ModeAcceptEdits, perm.ModePlan, perm.ModePlan},
		{perm.ModeDefault, perm.ModePlan, perm.ModePlan},
		{perm.ModeExplore, perm.ModePlan, perm.ModePlan},
	}
	for _, tt := range tests {
		d := &agent.Definition{Name: "x", Mode: tt.child}
		p, _ := Subagent(set, d, &Parent{Mode: tt.parent, Dirs: []string{"/added"}})
		if p.Mode != tt.want {
			t.Errorf("%s under %s: mode %s, want %s", tt.child, tt.parent, p.Mode, tt.want)
		}
		if len(p.Workspace.Dirs) != 1 || p.Workspace.Dirs[0] != "/added" {
			t.Errorf("dirs = %v", p.Workspace.Dirs)
		}
	}
}

func TestForCheck(t *testing.T) {
	set := load(t, nil)
	p, _ := ForCheck(set, Check{Headless: true})
	if p.Mode != perm.ModeDefault || !p.NoPrompt {
		t.Errorf("headless main loop policy = %+v", p)
	}
	set.Mode = perm.ModeAcceptEdits
	p, _ = ForCheck(set, Check{Agent: fixture(t), ModeFlag: true})
	if p.Mode != perm.ModeAcceptEdits || len(p.Constraint) == 0 {
		t.Errorf("agent policy with the mode flag = %+v", p)
	}
}

// TestRebuiltPolicySeesRepointedRoot: a policy rebuilt for every call from
// the same settings (as Live does) reuses the workspace resolution of the
// policies compiled before it, yet a decision looks at the roots afresh:
// an added directory that is a symbolic link re-pointed between two calls
// is seen where it points now.
func TestRebuiltPolicySeesRepointedRoot(t *testing.T) {
	s := load(t, map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "acceptEdits"}}`})
	_, a, b, link := linktest.Dirs(t, "a", "b", "extra")
	rt := Runtime{Mode: perm.ModeAcceptEdits, Dirs: []string{link}}
	write := func(dir string) perm.Decision {
		p := Main(s, rt)
		return perm.Evaluate(perm.Request{Tool: "Write", Input: map[string]any{"file_path": dir + "/x.txt"}}, &p).Decision
	}
	if write(a) != perm.Allow || write(b) != perm.Ask {
		t.Fatal("before the switch: the link's target should be in the workspace, the other directory not")
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	if d := write(a); d != perm.Ask {
		t.Errorf("write into the old target after the switch: %v, want Ask", d)
	}
	if d := write(b); d != perm.Allow {
		t.Errorf("write into the new target after the switch: %v, want Allow", d)
	}
}

// A project agent's allow_tools are the cloned repository's allow rules:
// in an untrusted project they still constrain the agent but allow
// nothing, with a warning naming the file. A user's agent keeps them.
func TestSubagentProjectAllowToolsNeedTrust(t *testing.T) {
	curl := perm.Request{Tool: "Bash", Input: map[string]any{"command": "curl https://x.example"}}
	for _, tc := range []struct {
		source  string
		trusted bool
		want    perm.Decision
		warn    bool
	}{
		{agent.SourceProject, false, perm.Deny, true},
		{agent.SourceProject, true, perm.Allow, false},
		{agent.SourceUser, false, perm.Allow, false},
	} {
		set := load(t, nil)
		set.Trusted = tc.trusted
		bash, _ := perm.ParseRule("Bash")
		d := &agent.Definition{Name: "pwn", Mode: perm.ModeDefault, Source: tc.source, Path: "/proj/.gen/agents/pwn.md", AllowTools: []perm.Rule{bash}}
		p, warns := Subagent(set, d, nil)
		if r := perm.Evaluate(curl, &p); r.Decision != tc.want {
			t.Errorf("%s agent, trusted %v: curl is %v (%s), want %v", tc.source, tc.trusted, r.Decision, r.Reason, tc.want)
		}
		// The constraint still holds: a tool outside allow_tools is denied.
		write := perm.Request{Tool: "Write", Input: map[string]any{"file_path": filepath.Join(set.Workspace.Root, "x"), "content": "x"}}
		if r := perm.Evaluate(write, &p); r.Decision != perm.Deny || !strings.Contains(r.Reason, "allow_tools") {
			t.Errorf("%s agent, trusted %v: Write is %v (%s), want denied by allow_tools", tc.source, tc.trusted, r.Decision, r.Reason)
		}
		warned := len(warns) == 1 && strings.Contains(warns[0], "/proj/.gen/agents/pwn.md: ignoring project agent allow_tools") && strings.Contains(warns[0], "only restrict")
		if warned != tc.warn || (!tc.warn && len(warns) > 0) {
			t.Errorf("%s agent, trusted %v: warnings %q, want one: %v", tc.source, tc.trusted, warns, tc.warn)
		}
	}
}

// TestSubagentHiddenTools: Claude Code's tools: and disallowedTools hide
// tools; a call of a hidden tool is denied, and a Bash command that reads
// or writes a file is decided by the mode as for any agent, not denied as
// if it were a Read or a Write (issue: tools: Bash made every Bash call
// naming a path a denied Read). gen's deny_tools: Read still denies what
// Bash reads.
func TestSubagentHiddenTools(t *testing.T) {
	s := load(t, map[string]string{"a.txt": "x\n"})
	parse := func(front string) *agent.Definition {
		d, err := agent.Parse("a.md", []byte("---\nname: a\ndescription: d\n"+front+"---\nbody\n"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bash := func(cmd string) perm.Request {
		return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
	}
	read := perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}
	write := perm.Request{Tool: "Write", Input: map[string]any{"file_path": "b.txt", "content": "y"}}
	edit := perm.Request{Tool: "Edit", Input: map[string]any{"file_path": "a.txt", "old_string": "x", "new_string": "y"}}
	for _, tc := range []struct {
		front string
		req   perm.Request
		want  perm.Decision
	}{
		{"tools: Bash\n", bash("cat a.txt"), perm.Allow},
		{"tools: Bash\n", bash("ls"), perm.Allow},
		{"tools: Bash\n", bash("git status"), perm.Allow},
		{"tools: Bash\n", bash("touch b.txt"), perm.Deny}, // the mode still decides
		{"tools: Bash\n", read, perm.Deny},
		{"tools: Bash\npermissionMode: acceptEdits\n", bash("echo y > b.txt"), perm.Allow},
		{"tools: Bash\npermissionMode: acceptEdits\n", write, perm.Deny},
		{"disallowedTools: Write\npermissionMode: acceptEdits\n", bash("echo y > b.txt"), perm.Allow},
		{"disallowedTools: Write\npermissionMode: acceptEdits\n", edit, perm.Allow},
		{"disallowedTools: Write\npermissionMode: acceptEdits\n", write, perm.Deny},
		{"disallowedTools: Read(./a.txt)\n", bash("cat a.txt"), perm.Deny}, // a rule with a pattern is a deny rule
		{"deny_tools: Read\n", bash("cat a.txt"), perm.Deny},               // gen's bare deny rule covers Bash
	} {
		p, _ := Subagent(s, parse(tc.front), nil)
		if r := perm.Evaluate(tc.req, &p); r.Decision != tc.want {
			t.Errorf("%q: %s %v = %v (step %d: %s), want %v", tc.front, tc.req.Tool, tc.req.Input, r.Decision, r.Step, r.Reason, tc.want)
		}
	}
}

// TestToolsFlagHides: the built-in tools --tools leaves out are hidden
// from the main loop and from every agent it runs, which neither show nor
// allow them; a Bash command naming a file is still decided as a command.
func TestToolsFlagHides(t *testing.T) {
	s := load(t, map[string]string{"a.txt": "x\n"})
	s.Hidden = []string{"Read", "Write"} // as settings.Load sets it for --tools Bash,Edit,...
	main := Main(s, Runtime{Mode: perm.ModeAcceptEdits})
	def, err := agent.Parse("a.md", []byte("---\nname: a\ndescription: d\npermissionMode: acceptEdits\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := Subagent(s, def, nil)
	read := perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}
	cat := perm.Request{Tool: "Bash", Input: map[string]any{"command": "cat a.txt"}}
	for name, p := range map[string]*perm.Policy{"main": &main, "subagent": &sub} {
		if r := perm.Evaluate(read, p); r.Decision != perm.Deny || r.Step != 1 {
			t.Errorf("%s: Read = %v (step %d: %s), want a step-1 Deny", name, r.Decision, r.Step, r.Reason)
		}
		if r := perm.Evaluate(cat, p); r.Decision == perm.Deny {
			t.Errorf("%s: cat a.txt = %v: %s; a hidden Read must not deny Bash", name, r.Decision, r.Reason)
		}
	}
	for name, v := range map[string][]string{"main": Visible(&main, nil), "subagent": Visible(&sub, def)} {
		if slices.Contains(v, "Read") || slices.Contains(v, "Write") {
			t.Errorf("%s shows %v", name, v)
		}
	}
}
