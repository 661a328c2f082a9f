package skill

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gen-run/gen/internal/frontmatter"
	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

func TestParse(t *testing.T) {
	s, err := Parse("/p/.gen/skills/pdf/SKILL.md", "pdf", []byte(`---
name: pdf
description: Extract text from PDF files.
allowed-tools: Read, Bash(pdftotext:*)
license: MIT
colour: blue
hooks:
  PreToolUse: []
context: fork
agent: Explore
---
Run scripts/extract.sh.
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "pdf" || s.Description != "Extract text from PDF files." || s.Body != "Run scripts/extract.sh." {
		t.Errorf("got %+v", s)
	}
	if got, want := s.allowedList(), "Read, Bash(pdftotext:*)"; got != want {
		t.Errorf("allowed tools %q, want %q", got, want)
	}
	wantWarn := []string{
		`/p/.gen/skills/pdf/SKILL.md:6: unknown key "colour"`,
		`/p/.gen/skills/pdf/SKILL.md:7: hooks in a skill are not run by gen`,
		// Claude Code runs it in an Explore subagent; gen cannot.
		`/p/.gen/skills/pdf/SKILL.md:9: context: fork is not honoured: the skill's instructions are followed by the agent that loads it, with that agent's tools and rules, not in a subagent of their own`,
	}
	if !slices.Equal(s.Warnings, wantWarn) {
		t.Errorf("warnings %q, want %q", s.Warnings, wantWarn)
	}

	list, err := Parse("x/SKILL.md", "x", []byte("---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n  - Grep\ndisable-model-invocation: true\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if list.allowedList() != "Read, Grep" || !list.DisableModelInvocation {
		t.Errorf("got %+v", list)
	}
}

// As in Claude Code, a skill's name defaults to its directory's name and
// its description to the first paragraph of its instructions.
func TestParseDefaults(t *testing.T) {
	s, err := Parse("pdf-tool/SKILL.md", "pdf-tool", []byte("---\nallowed-tools: Read\n---\n\nExtract text\nfrom PDFs.\n\nRun pdftotext.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "pdf-tool" || s.Description != "Extract text from PDFs." {
		t.Errorf("name %q, description %q; want pdf-tool and the first paragraph", s.Name, s.Description)
	}
	// "é" is two bytes: the limit falls inside one, which is left out.
	long := "a" + strings.Repeat("é", maxDescription)
	s, err = Parse("x/SKILL.md", "x", []byte("---\nname: x\n---\n"+long+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Description != long[:maxDescription-1] {
		t.Errorf("a long first paragraph gave a description of %d bytes (valid UTF-8: %v), want it cut to %d", len(s.Description), utf8.ValidString(s.Description), maxDescription-1)
	}
	// A byte that is no UTF-8 early in it (Latin-1 "é") does not cut
	// the description back to before it.
	latin := "caf\xe9 " + strings.Repeat("a", maxDescription)
	if s, err = Parse("x/SKILL.md", "x", []byte("---\nname: x\n---\n"+latin+"\n")); err != nil || s.Description != latin[:maxDescription] {
		t.Errorf("a Latin-1 first paragraph gave a description of %d bytes (%v), want %d", len(s.Description), err, maxDescription)
	}
	_, err = Parse("Pdf Tool/SKILL.md", "Pdf Tool", []byte("---\ndescription: d\n---\nx\n"))
	if want := `Pdf Tool/SKILL.md:1: no name, and the skill's directory "Pdf Tool" is not a valid one: set name, or rename the directory to at most 64 lower-case letters, digits and single hyphens`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// A skill's allowed-tools are only shown: Claude Code's tools that gen
// does not have, with or without a pattern, are left out with a warning.
func TestParseClaudeAllowedTools(t *testing.T) {
	s, err := Parse("s/SKILL.md", "s", []byte("---\nname: s\ndescription: d\nallowed-tools: Read, MultiEdit, TodoWrite(x)\n---\nx\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.allowedList(); got != "Read" {
		t.Errorf("allowed-tools %q, want Read", got)
	}
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[0], `s/SKILL.md:4: allowed-tools: malformed rule "MultiEdit"`) {
		t.Errorf("warnings %q, want MultiEdit and TodoWrite(x) left out", s.Warnings)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"no frontmatter", "# pdf\n", `S/SKILL.md:1: no frontmatter: a SKILL.md file starts with a "---" line, YAML with at least name and description, and a closing "---" line`},
		{"unclosed", "---\nname: s\n", `S/SKILL.md:1: frontmatter is not closed by a "---" line`},
		{"no description and no instructions", "---\nname: s\n---\n\n", `S/SKILL.md:1: missing required field "description"`},
		{"upper-case name", "\n---\ndescription: d\nname: Pdf_Tool\n---\n", `S/SKILL.md:4: invalid name "Pdf_Tool": use at most 64 lower-case letters, digits and single hyphens`},
		{"name differs from directory", "---\nname: other\ndescription: d\n---\nx\n", `S/SKILL.md:1: name "other" does not match the skill's directory "s"`},
		{"bad rule", "---\nname: s\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(\n---\n", `S/SKILL.md:6: malformed rule "Bash(": missing closing parenthesis`},
		{"bad bool", "---\nname: s\ndescription: d\ndisable-model-invocation: yes please\n---\n", `S/SKILL.md:4: disable-model-invocation must be true or false`},
		{"bad yaml", "---\nname: s\ndescription: d\nmodel: a: b\n---\n", `S/SKILL.md:4: mapping values are not allowed in this context`},
		{"long description", "---\nname: s\ndescription: " + strings.Repeat("x", 1025) + "\n---\n", `S/SKILL.md:3: description is 1025 characters long, over the limit of 1024`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("S/SKILL.md", "s", []byte(tt.data))
			var fe *frontmatter.Error
			if err == nil || err.Error() != tt.want || !errors.As(err, &fe) {
				t.Errorf("error %v, want %q (a file:line error)", err, tt.want)
			}
		})
	}
}

func writeSkill(t *testing.T, base, name, body string) string {
	t.Helper()
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func skillFile(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nInstructions of " + name + ".\n"
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	extra := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(root, "src", "pkg")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, ".gen", "skills")
	writeSkill(t, proj, "pdf", skillFile("pdf", "Project PDF skill."))
	writeSkill(t, proj, "broken", "---\nname: broken\n---\n")
	writeSkill(t, proj, "mismatch", skillFile("other", "x"))
	if err := os.MkdirAll(filepath.Join(proj, "notes"), 0o755); err != nil { // a directory without SKILL.md
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(root, ".claude", "skills"), "review", skillFile("review", "Claude-compatible project skill."))
	writeSkill(t, filepath.Join(root, ".claude", "skills"), "pdf", skillFile("pdf", "Shadowed by .gen."))
	writeSkill(t, filepath.Join(extra, ".gen", "skills"), "docs", skillFile("docs", "From an additional directory."))
	// Only .gen/skills of an additional directory is read.
	writeSkill(t, filepath.Join(extra, ".claude", "skills"), "sneaky", skillFile("sneaky", "Must not load."))
	writeSkill(t, filepath.Join(home, ".gen", "skills"), "pdf", skillFile("pdf", "User PDF skill."))
	writeSkill(t, filepath.Join(home, ".gen", "skills"), "notes", skillFile("notes", "User skill."))
	writeSkill(t, filepath.Join(home, ".claude", "skills"), "commit", skillFile("commit", "User Claude skill."))

	set, err := Discover(cwd, home, []string{extra}, nil)
	var names []string
	for _, k := range set.All() {
		names = append(names, k.Name+"/"+string(k.Scope))
	}
	if want := []string{"commit/user", "docs/additional", "notes/user", "pdf/project", "review/project"}; !slices.Equal(names, want) {
		t.Errorf("skills %v, want %v", names, want)
	}
	if err == nil {
		t.Fatal("broken skills were not reported")
	}
	for _, want := range []string{
		filepath.Join(proj, "broken", "SKILL.md") + `:1: missing required field "description"`,
		filepath.Join(proj, "mismatch", "SKILL.md") + `:1: name "other" does not match the skill's directory "mismatch"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not report %q", err, want)
		}
	}
	pdf, _ := set.Get("pdf")
	if pdf == nil || pdf.Description != "Project PDF skill." || pdf.Dir != filepath.Join(proj, "pdf") {
		t.Errorf("pdf = %+v, want the project's .gen skill", pdf)
	}
	if len(set.Warnings) != 2 || !strings.Contains(set.Warnings[0], `skill "pdf" is shadowed by `+filepath.Join(proj, "pdf", "SKILL.md")+" (project skills take precedence)") ||
		!strings.Contains(set.Warnings[1], filepath.Join(home, ".gen", "skills", "pdf", "SKILL.md")) {
		t.Errorf("warnings %q, want the .claude and user pdf shadowed", set.Warnings)
	}

	// Home as the project root: its skills are listed once, as the user's.
	if err := os.Mkdir(filepath.Join(home, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	set, err = Discover(home, home, nil, nil)
	if err != nil || len(set.Warnings) != 0 || len(set.All()) != 3 {
		t.Errorf("home as project: %d skills, warnings %q, error %v", len(set.All()), set.Warnings, err)
	}
}

func TestTool(t *testing.T) {
	base := t.TempDir()
	writeSkill(t, base, "pdf", "---\nname: pdf\ndescription: |\n  Extract text\n  from PDFs.\nallowed-tools: Bash(pdftotext:*)\n---\nRun scripts/extract.sh on $ARGUMENTS.\n")
	writeSkill(t, base, "git-commit", skillFile("git-commit", "Write commit messages."))
	writeSkill(t, base, "deploy", "---\nname: deploy\ndescription: Deploy.\ndisable-model-invocation: true\n---\nx\n")
	set, err := Load(Location{Dir: base, Scope: ScopeProject})
	if err != nil {
		t.Fatal(err)
	}
	st := NewTool(set)
	if !st.Available() {
		t.Error("Available = false")
	}
	sch := st.Schema()
	if sch.Name != "Skill" || !strings.HasSuffix(sch.Description, "Available skills:\n- git-commit: Write commit messages.\n- pdf: Extract text from PDFs.") {
		t.Errorf("description:\n%s", sch.Description)
	}
	if strings.Contains(sch.Description, "deploy") {
		t.Error("a skill with disable-model-invocation is offered to the model")
	}
	if err := schema.Validate("Skill", map[string]any{"skill": "pdf", "args": "a.pdf"}); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if in := schema.Normalize("Skill", map[string]any{"name": "pdf"}); in["skill"] != "pdf" {
		t.Errorf("Normalize did not rewrite name to skill: %v", in)
	}

	out, err := st.Run(context.Background(), tool.Call{Input: map[string]any{"skill": "pdf", "args": "report.pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "pdf")
	for _, want := range []string{
		"Base directory: " + dir + "\n",
		"The skill lists these tools: Bash(pdftotext:*). This does not change your permissions",
		"Run scripts/extract.sh on report.pdf.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = st.Run(context.Background(), tool.Call{Input: map[string]any{"skill": "git-commit", "args": "-m x"}})
	if err != nil || !strings.HasSuffix(out, "Instructions of git-commit.\n\nARGUMENTS: -m x\n") {
		t.Errorf("Run(git-commit) = %q, %v", out, err)
	}
	for _, name := range []string{"deploy", "/pdf", "PDF", "nope"} {
		_, err := st.Run(context.Background(), tool.Call{Input: map[string]any{"skill": name}})
		if want := `Skill: unknown skill "` + name + `" (available: git-commit, pdf)`; err == nil || err.Error() != want {
			t.Errorf("Run(%q) error %v, want %q", name, err, want)
		}
	}
}

// gate decides calls with perm's pipeline and a fixed policy.
type gate struct{ p *perm.Policy }

func (g gate) Check(_ context.Context, req perm.Request) perm.Result { return perm.Evaluate(req, g.p) }

func TestToolBehindGate(t *testing.T) {
	base := t.TempDir()
	for _, n := range []string{"pdf", "git-commit", "github-pr", "review"} {
		writeSkill(t, base, n, skillFile(n, "d"))
	}
	set, err := Load(Location{Dir: base, Scope: ScopeProject})
	if err != nil {
		t.Fatal(err)
	}
	entries := func(rs ...string) []perm.Entry {
		var out []perm.Entry
		for _, s := range rs {
			r, err := perm.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, perm.Entry{Rule: r, Source: perm.SourceProject})
		}
		return out
	}
	p := &perm.Policy{Mode: perm.ModeDefault, NoPrompt: true,
		Allow:     entries("Skill"),
		Deny:      entries("Skill(git:*)", "Skill(review)"),
		Workspace: perm.Workspace{Cwd: base, Root: base, Home: t.TempDir()}}
	guarded, err := tool.NewSet(gate{p}, []tool.Tool{NewTool(set)})
	if err != nil {
		t.Fatal(err)
	}
	run := func(input map[string]any) (string, error) {
		r := guarded.Call(context.Background(), "Skill", "", input, nil)
		return r.Output, r.Err
	}
	for name, denied := range map[string]bool{"pdf": false, "git-commit": true, "github-pr": true, "review": true} {
		out, err := run(map[string]any{"skill": name})
		if tool.IsDenied(err) != denied {
			t.Errorf("Skill(%s): err %v, want denied %v", name, err, denied)
		}
		if !denied && !strings.Contains(out, "Instructions of "+name) {
			t.Errorf("Skill(%s) output %q", name, out)
		}
	}
	// Without an allow rule a skill is an Exec-class call: headless, denied.
	p.Allow = nil
	if _, err := run(map[string]any{"skill": "pdf"}); !tool.IsDenied(err) {
		t.Errorf("headless Skill without an allow rule: %v, want denied", err)
	}
}

// TestDiscoverDanglingLinks: a skills directory, a skill directory or a
// SKILL.md that is a dangling symbolic link is an error naming the link,
// not a skill that silently is not there. A skill's link keeps its name:
// the user's skill of the same name does not stand in for the project's.
// (The names of a skills directory that is missing are not known.) A
// missing directory is no error.
func TestDiscoverDanglingLinks(t *testing.T) {
	for link, reserved := range map[string]bool{".gen/skills": false, ".claude/skills": false, ".gen/skills/pdf": true, ".gen/skills/pdf/SKILL.md": true} {
		t.Run(link, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeSkill(t, filepath.Join(home, ".gen", "skills"), "pdf", skillFile("pdf", "User PDF skill."))
			l := filepath.Join(root, link)
			testtree.Write(t, root, map[string]string{link: "->missing"})
			set, err := Discover(root, home, nil, nil)
			want := l + " is a symbolic link to a"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want one naming %s", err, l)
			}
			k, gerr := set.Get("pdf")
			switch {
			case reserved && (k != nil || gerr == nil || !strings.Contains(gerr.Error(), want)):
				t.Errorf("Get(pdf) = %v, %v; want the link's error, not the user's pdf", k, gerr)
			case !reserved && (k == nil || k.Scope != ScopeUser || gerr != nil):
				t.Errorf("Get(pdf) = %v, %v; want the user's pdf", k, gerr)
			}
		})
	}
	root, home := t.TempDir(), t.TempDir()
	if _, err := Discover(root, home, []string{filepath.Join(root, "nodir")}, nil); err != nil {
		t.Errorf("missing directories: %v", err)
	}
}

// A project's skill or command that is a link out of the project (to
// ~/.ssh/id_rsa, say) is refused with an error naming it, not read: its
// text would go to the model the moment it is used. A link inside the
// project, and the user's own links, are fine.
func TestDiscoverConfinesProjectFiles(t *testing.T) {
	root, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
	testtree.Write(t, outside, map[string]string{"secret": "---\nname: pdf\ndescription: d\n---\nTHE SECRET\n"})
	testtree.Write(t, root, map[string]string{
		".git/HEAD":                   "ref: refs/heads/main\n",
		"tools/deploy.md":             "---\nname: deploy\ndescription: Deploy.\n---\nDeploy it.\n",
		".gen/skills/pdf/SKILL.md":    "->" + filepath.Join(outside, "secret"),
		".gen/skills/deploy/SKILL.md": "->../../../tools/deploy.md",
		".claude/commands/leak.md":    "->" + filepath.Join(outside, "secret"),
		".claude/commands/deploy.md":  "->../../tools/deploy.md",
	})
	testtree.Write(t, home, map[string]string{
		".gen/skills/pdf/SKILL.md": "->" + filepath.Join(outside, "secret"),
		".claude/commands/mine.md": "->" + filepath.Join(outside, "secret"),
	})
	set, err := Discover(root, home, nil, nil)
	if want := filepath.Join(root, ".gen/skills/pdf/SKILL.md") + " is a link to " + filepath.Join(outside, "secret") + ", outside " + root; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("skills error %v, want one containing %q", err, want)
	}
	var names []string
	for _, k := range set.All() {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"deploy"}) {
		t.Errorf("skills %q, want the project's deploy", names)
	}
	// The refused project pdf keeps its name: the user's pdf (whose link
	// is the user's own) does not stand in for it.
	if k, err := set.Get("pdf"); k != nil || err == nil || !strings.Contains(err.Error(), "outside "+root) {
		t.Errorf("Get(pdf) = %v, %v; want it refused as a link out of the project", k, err)
	}
	if k, err := Load(Location{Dir: filepath.Join(home, ".gen", "skills"), Scope: ScopeUser}); err != nil || len(k.All()) != 1 {
		t.Errorf("the user's own pdf link: %v, %v; want it loaded", k.All(), err)
	}
	cs, _ := DiscoverCommands(root, home, nil, nil)
	if c, _, err := cs.Find("/leak"); c != nil || err == nil || !strings.Contains(err.Error(), "outside "+root) {
		t.Errorf("/leak: %v, %v; want it refused as a link out of the project", c, err)
	}
	for _, name := range []string{"deploy", "mine"} {
		if c, _, err := cs.Find("/" + name); c == nil || err != nil {
			t.Errorf("/%s: %v, %v; want it offered", name, c, err)
		}
	}
}
