package perm

import (
	"testing"

	"github.com/gen-run/gen/sandbox"
)

// TestSandboxProfile: the profile follows how a Bash call was decided, and
// a command cannot choose a weaker one than the gate gives it.
func TestSandboxProfile(t *testing.T) {
	f := newFixture(t)
	noSandbox := func(p *Policy) { p.NoSandbox = true }
	unsandboxed := func(cmd string) Request {
		r := bashReq(cmd)
		r.Input[UnsandboxedKey] = true
		return r
	}
	tests := []struct {
		name    string
		pol     func(*Policy)
		req     Request
		want    Decision
		step    int
		profile sandbox.Profile
	}{
		{"verified read-only", nil, bashReq("ls"), Allow, 7, sandbox.ReadOnly},
		{"read-only pipeline", nil, bashReq("cat README.md | wc -l"), Allow, 7, sandbox.ReadOnly},
		{"redirect read", nil, bashReq("wc -l < README.md"), Allow, 7, sandbox.ReadOnly},
		{"xargs into a read-only command", nil, bashReq("git diff --name-only | xargs wc -l --"), Allow, 7, sandbox.ReadOnly},
		{"allowed by a rule", allow("Bash(ls:*)"), bashReq("ls"), Allow, 6, sandbox.WorkspaceWrite},
		{"read-only part and a rule-allowed part", allow("Bash(make:*)"), bashReq("ls && make"), Allow, 7, sandbox.WorkspaceWrite},
		{"read-only command and an edit the mode allows", mode(ModeAcceptEdits), bashReq("ls > out.txt"), Allow, 7, sandbox.WorkspaceWrite},
		{"bypass mode", mode(ModeBypass), bashReq("ls"), Allow, 3, sandbox.WorkspaceWrite},
		{"session grant", func(p *Policy) { p.Session = rules("Bash") }, bashReq("make"), Allow, 4, sandbox.WorkspaceWrite},
		{"ask: workspace-write once approved", nil, bashReq("make"), Ask, 7, sandbox.WorkspaceWrite},
		{"sandbox off", noSandbox, bashReq("ls"), Allow, 7, sandbox.None},
		{"a flag the command sets in its own text is not the argument", nil, bashReq("ls --dangerouslyDisableSandbox"), Ask, 7, sandbox.WorkspaceWrite},

		// dangerouslyDisableSandbox is never allowed without asking.
		{"unsandboxed read-only command", nil, unsandboxed("ls"), Ask, 2, sandbox.None},
		{"unsandboxed despite an allow rule", allow("Bash"), unsandboxed("make"), Ask, 2, sandbox.None},
		{"unsandboxed in bypass mode", mode(ModeBypass), unsandboxed("make"), Ask, 2, sandbox.None},
		{"unsandboxed headless", func(p *Policy) { p.NoPrompt = true }, unsandboxed("ls"), Deny, 8, sandbox.None},
		{"unsandboxed in dontAsk mode", mode(ModeDontAsk), unsandboxed("ls"), Deny, 8, sandbox.None},
		{"unsandboxed but denied by rule", deny("Bash(make:*)"), unsandboxed("make"), Deny, 1, sandbox.None},
		{"dangerouslyDisableSandbox false", nil, func() Request { r := bashReq("ls"); r.Input[UnsandboxedKey] = false; return r }(), Allow, 7, sandbox.ReadOnly},
		{"dangerouslyDisableSandbox not a boolean", allow("Bash"), func() Request { r := bashReq("ls"); r.Input[UnsandboxedKey] = "yes"; return r }(), Ask, 2, sandbox.WorkspaceWrite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if tc.pol != nil {
				tc.pol(p)
			}
			got := Evaluate(tc.req, p)
			if got.Decision != tc.want || got.Step != tc.step || got.Sandbox != tc.profile {
				t.Errorf("got %v step %d (%s) profile %q; want %v step %d profile %q", got.Decision, got.Step, got.Reason, got.Sandbox, tc.want, tc.step, tc.profile)
			}
		})
	}
	if got := Evaluate(Request{Tool: "Read", Input: map[string]any{"file_path": "README.md"}}, &Policy{Mode: ModeDefault, Workspace: f.ws()}); got.Sandbox != "" {
		t.Errorf("Read has sandbox profile %q", got.Sandbox)
	}
}
