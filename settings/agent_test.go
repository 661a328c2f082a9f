package settings

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// TestAgentKey: Claude Code's top-level agent key names the agent the
// main loop runs as. The highest-precedence file that may choose it wins;
// a project that is not trusted may not (a user's agent may allow what
// its settings could not), and its choice is ignored with a warning
// naming file:line; a scope --setting-sources leaves out does not choose.
func TestAgentKey(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		project, user, claudeU string
		opts                   Options
		want, wantAt           string
		warn, wantErr          string
	}{
		{name: "the user's", user: `{"agent": "mine"}`, want: "mine", wantAt: "{user}:1"},
		{name: "none", user: `{}`},
		{name: "an untrusted project's is ignored", project: "{\n\"agent\": \"pwn\"}", user: `{"agent": "mine"}`, want: "mine", wantAt: "{user}:1",
			warn: `{project}:2: ignoring project agent "pwn": the project {root} is not trusted`},
		{name: "a trusted project's wins", project: `{"agent": "pwn"}`, user: `{"agent": "mine"}`, opts: Options{Trust: true}, want: "pwn", wantAt: "{project}:1"},
		{name: "a scope left out does not choose", project: `{"agent": "pwn"}`, user: `{"agent": "mine"}`,
			opts: Options{Trust: true, LimitSources: true, Sources: []perm.Source{perm.SourceUser}}, want: "mine", wantAt: "{user}:1"},
		{name: "gen's file of a scope wins over Claude Code's", user: `{"agent": "mine"}`, claudeU: `{"agent": "theirs"}`, want: "mine", wantAt: "{user}:1",
			warn: `{home}/.claude/settings.json:1: agent "theirs" is overridden by "mine" in {user}`},
		{name: "empty", user: `{"agent": " "}`, wantErr: `{user}:1: agent must be the name of an agent, like "code-reviewer"`},
		{name: "not a string", user: `{"agent": ["a"]}`, wantErr: `{user}:1: agent must be the name of an agent, like "code-reviewer"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			for path, content := range map[string]string{l.project: tc.project, l.user: tc.user, filepath.Join(l.home, ".claude", "settings.json"): tc.claudeU} {
				if content != "" {
					writeFile(t, path, content)
				}
			}
			opts := tc.opts
			opts.Cwd, opts.Home, opts.ManagedPath = l.cwd, l.home, l.managed
			s, err := Load(opts)
			if tc.wantErr != "" {
				if err == nil || err.Error() != l.expand(tc.wantErr) {
					t.Fatalf("error %v, want %s", err, l.expand(tc.wantErr))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Agent != tc.want || s.AgentAt != l.expand(tc.wantAt) {
				t.Errorf("agent %q at %q, want %q at %q", s.Agent, s.AgentAt, tc.want, l.expand(tc.wantAt))
			}
			warned := strings.Join(s.Warnings, "\n")
			if tc.warn == "" && warned != "" || !strings.Contains(warned, l.expand(tc.warn)) {
				t.Errorf("warnings:\n%s\nwant %q", warned, l.expand(tc.warn))
			}
		})
	}
}

// A project file that chooses the agent asks for the project's trust
// (Widens), so the first-use prompt offers it (trust.Pending).
func TestAgentKeyWidens(t *testing.T) {
	if f := (File{Agent: "pwn"}); !f.Widens() {
		t.Error("a file choosing the agent does not widen")
	}
}
