package agent_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/settings"
)

// claudeProject copies testdata/claude-agents, files written the way public
// collections of Claude Code subagents write them, into a project's
// .claude/agents, and returns the project root and an empty home.
func claudeProject(t *testing.T) (root, home string) {
	t.Helper()
	base := t.TempDir()
	root, home = filepath.Join(base, "proj"), filepath.Join(base, "home")
	dst := filepath.Join(root, ".claude", "agents")
	for _, d := range []string{filepath.Join(root, ".git"), dst, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir("testdata/claude-agents")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join("testdata/claude-agents", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, home
}

// deniedTools names the bare deny rules of d.
func deniedTools(d *agent.Definition) []string {
	var out []string
	for _, r := range d.DenyTools {
		if !r.HasPattern {
			out = append(out, r.Tool)
		}
	}
	return out
}

// hidden returns every built-in tool except keep.
func hidden(keep ...string) []string {
	var out []string
	for _, t := range perm.Tools {
		if t != "MCP" && !slices.Contains(perm.ModeTools, t) && !slices.Contains(keep, t) {
			out = append(out, t)
		}
	}
	return out
}

func TestClaudeCodeAgentFiles(t *testing.T) {
	root, home := claudeProject(t)
	c, err := agent.Discover(root, home)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".claude", "agents")
	file := func(n string) string { return filepath.Join(dir, n) }

	tests := []struct {
		name     string
		mode     perm.Mode
		hidden   []string
		model    string
		maxTurns int
		memory   bool
		desc     string   // prefix
		warnings []string // exact
	}{
		{name: "architect", mode: perm.ModeExplore, hidden: []string{"Write", "Edit", "NotebookEdit"}, model: "opus", maxTurns: 15,
			desc: "Designs changes before anyone writes code: reads"},
		{name: "code-reviewer", mode: perm.ModeDefault, hidden: hidden("Read", "Grep", "Glob", "Bash"), model: "sonnet",
			desc:     "Expert code review specialist. Use PROACTIVELY after writing or changing code. Focus areas: correctness",
			warnings: []string{file("code-reviewer.md") + `:3: description has an unquoted ": " that strict YAML rejects; read as plain text (quote the value to silence this)`}},
		{name: "docs-writer", mode: perm.ModeDefault, hidden: hidden("Read", "Write", "Edit", "Glob"), model: "inherit", memory: true,
			desc: "Writes and updates documentation. Trigger: any change",
			warnings: []string{
				file("docs-writer.md") + `:3: description has an unquoted ": " that strict YAML rejects; read as plain text (quote the value to silence this)`,
				file("docs-writer.md") + `:6: memory (Claude Code's persistent agent memory) is not supported and is ignored; project_memory: true gives the agent AGENTS.md`,
			}},
		{name: "test-runner", mode: perm.ModeAcceptEdits, hidden: hidden("Read", "Edit", "Bash", "Grep"), model: "haiku",
			desc:     `Use this agent when tests need to be run and failures fixed. Examples:\n\n<example>\nContext: The user`,
			warnings: []string{file("test-runner.md") + `:3: description has an unquoted ": " that strict YAML rejects; read as plain text (quote the value to silence this)`}},
	}
	var got []string
	for _, d := range c.All() {
		if d.Source == agent.SourceProject {
			got = append(got, d.Name)
		}
	}
	var want []string
	for _, tt := range tests {
		want = append(want, tt.name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := c.Lookup(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if d.Mode != tt.mode || d.Model != tt.model || d.MaxTurns != tt.maxTurns || d.Memory != tt.memory {
				t.Errorf("mode %s model %q maxTurns %d memory %v; want %s %q %d %v", d.Mode, d.Model, d.MaxTurns, d.Memory, tt.mode, tt.model, tt.maxTurns, tt.memory)
			}
			if got := deniedTools(d); got != nil {
				t.Errorf("bare deny rules %q: Claude Code's tools and disallowedTools only hide tools", got)
			}
			if !reflect.DeepEqual(d.Hidden, tt.hidden) {
				t.Errorf("hidden tools:\n got %q\nwant %q", d.Hidden, tt.hidden)
			}
			if !strings.HasPrefix(d.Description, tt.desc) {
				t.Errorf("description = %q, want prefix %q", d.Description, tt.desc)
			}
			if !reflect.DeepEqual(d.Warnings, tt.warnings) {
				t.Errorf("warnings:\n got %q\nwant %q", d.Warnings, tt.warnings)
			}
			if d.AllowTools != nil {
				t.Errorf("allow_tools = %v: Claude Code's keys never allow", d.AllowTools)
			}
		})
	}

	// The broken files are reported with file:line and do not hide the
	// others; using one fails with its error.
	var errs []string
	for _, e := range c.Errors() {
		errs = append(errs, e.Error())
	}
	wantErrs := []string{
		file("deployer.md") + `:4: unknown mode "yolo" (want one of default, acceptEdits, explore (or plan, read as explore), dontAsk, bypassPermissions, auto)`,
		file("security-auditor.md") + `:4: tools lists tool names, not Bash(git log:*): use allow_tools for rules with patterns`,
	}
	if !reflect.DeepEqual(errs, wantErrs) {
		t.Errorf("errors:\n got %q\nwant %q", errs, wantErrs)
	}
	if _, err := c.Lookup("security-auditor"); err == nil || !strings.Contains(err.Error(), wantErrs[1]) {
		t.Errorf("Lookup(security-auditor) = %v, want the file's error", err)
	}
}

// tools: Bash limits what the model sees and never allows: in a default
// mode subagent, a command that writes is still denied.
func TestClaudeToolsIsNotAnAllow(t *testing.T) {
	root, home := claudeProject(t)
	c, err := agent.Discover(root, home)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Lookup("code-reviewer")
	if err != nil {
		t.Fatal(err)
	}
	set, err := settings.Load(settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Subagent(set, d, nil)
	for cmd, want := range map[string]perm.Decision{"touch x": perm.Deny, "git diff": perm.Allow} {
		if r := perm.Evaluate(perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}, &pol); r.Decision != want {
			t.Errorf("Bash %q: %v (%s), want %v", cmd, r.Decision, r.Reason, want)
		}
	}
	if r := perm.Evaluate(perm.Request{Tool: "Write", Input: map[string]any{"file_path": "x", "content": "y"}}, &pol); r.Decision != perm.Deny {
		t.Errorf("Write: %v, want Deny (not in tools)", r.Decision)
	}
}

func TestResolveModel(t *testing.T) {
	aliases := map[string]string{"sonnet": "qwen3-coder", "fast": "small-model"}
	tests := []struct {
		model, parent, want string
		warn                bool
	}{
		{"", "parent-model", "parent-model", false},
		{"inherit", "parent-model", "parent-model", false},
		{"sonnet", "parent-model", "qwen3-coder", false},
		{"fast", "", "small-model", false},
		{"opus", "parent-model", "parent-model", true},
		{"haiku", "", "", true},
		{"gpt-4o", "parent-model", "gpt-4o", false},
	}
	for _, tt := range tests {
		d := &agent.Definition{Name: "a", Model: tt.model, Path: ".claude/agents/a.md"}
		got, warn := d.ResolveModel(aliases, tt.parent)
		if got != tt.want || (warn != "") != tt.warn {
			t.Errorf("model %q parent %q: %q, warning %q; want %q, warning %v", tt.model, tt.parent, got, warn, tt.want, tt.warn)
		}
		if tt.warn && warn != `.claude/agents/a.md: model "`+tt.model+`" has no mapping in the modelAliases setting; using the parent's model` {
			t.Errorf("warning = %q", warn)
		}
	}
}

// A name defined in both .gen and .claude of one level comes from .gen,
// with a warning; .claude of the project still beats .gen of the user.
func TestClaudeGenClash(t *testing.T) {
	base := t.TempDir()
	root, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	write := func(p, name, desc string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	genRev := filepath.Join(root, ".gen", "agents", "reviewer.md")
	claudeRev := filepath.Join(root, ".claude", "agents", "reviewer.md")
	write(genRev, "reviewer", "gen's")
	write(claudeRev, "reviewer", "claude's")
	write(filepath.Join(root, ".claude", "agents", "tester.md"), "tester", "project claude")
	write(filepath.Join(home, ".gen", "agents", "tester.md"), "tester", "user gen")
	write(filepath.Join(home, ".claude", "agents", "helper.md"), "helper", "user claude")
	c, err := agent.Discover(root, home)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"reviewer": "gen's", "tester": "project claude", "helper": "user claude"} {
		d, err := c.Lookup(name)
		if err != nil || d.Description != want {
			t.Errorf("%s: %+v, %v; want %q", name, d, err, want)
		}
	}
	wantWarn := []string{
		genRev + " and " + claudeRev + ` both define the agent "reviewer"; using ` + genRev,
		filepath.Join(root, ".claude", "agents", "tester.md") + `: the project's agent "tester" replaces yours in ` + filepath.Join(home, ".gen", "agents", "tester.md"),
	}
	if w := c.Warnings(); !reflect.DeepEqual(w, wantWarn) {
		t.Errorf("warnings:\n got %q\nwant %q", w, wantWarn)
	}
}
