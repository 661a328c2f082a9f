package skill

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/frontmatter"
	"github.com/gen-run/gen/internal/testtree"
)

func TestDiscoverCommands(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testtree.Write(t, root, map[string]string{
		".git/HEAD":                          "ref: refs/heads/main\n",
		"src/.keep":                          "",
		".gen/commands/review.md":            "Review the diff.\n",
		".claude/commands/review.md":         "Shadowed by .gen.\n",
		".claude/commands/fix-issue.md":      "---\ndescription: Fix an issue\nargument-hint: <number>\n---\nFix issue #$ARGUMENTS.\n",
		".claude/commands/frontend/comp.md":  "Make a component.\n",
		".claude/commands/a/b/c.md":          "Deep.\n",
		".claude/commands/notes.txt":         "not a command",
		".claude/commands/broken.md":         "---\ndescription: x\n  model: y\n---\nbody\n",
		".claude/commands/tools.md":          "Would hide the built-in /tools.\n",
		".claude/commands/with space.md":     "x",
		".claude/commands/frontend/.keep.md": "",
	})
	testtree.Write(t, home, map[string]string{
		".claude/commands/review.md": "User review.\n",
		".gen/commands/broken.md":    "User broken must not stand in.\n",
		".claude/commands/mine.md":   "Mine.\n",
	})
	cs, err := DiscoverCommands(filepath.Join(root, "src"), home, []string{"tools", "help"}, nil)
	var names []string
	for _, c := range cs.All() {
		names = append(names, c.Name+"/"+string(c.Scope))
	}
	if want := []string{"a:b:c/project", "fix-issue/project", "frontend:comp/project", "mine/user", "review/project"}; !slices.Equal(names, want) {
		t.Errorf("commands %v, want %v", names, want)
	}
	brokenPath := filepath.Join(root, ".claude", "commands", "broken.md")
	if err == nil || !strings.Contains(err.Error(), brokenPath+":3: ") {
		t.Errorf("error %v, want the broken file at line 3", err)
	}
	if err == nil || !strings.Contains(err.Error(), `"with space" cannot be typed after a slash`) {
		t.Errorf("error %v, want the file whose name has a space", err)
	}
	if got := len(cs.Errors()); got != 2 { // broken.md, "with space"; .keep.md is hidden
		t.Errorf("%d errors %q, want 2", got, cs.Errors())
	}

	c, args, ferr := cs.Find("/review  now please ")
	if ferr != nil || c == nil || c.Body != "Review the diff." || args != "now please" {
		t.Errorf("Find(/review) = %+v, %q, %v; want the project's .gen command", c, args, ferr)
	}
	c, _, _ = cs.Find("/fix-issue 12")
	if c == nil || c.Description != "Fix an issue" || c.ArgumentHint != "<number>" {
		t.Errorf("fix-issue = %+v", c)
	}
	// A broken project command fails with its error; the user's command of
	// the same name does not stand in for it.
	if c, _, ferr := cs.Find("/broken"); c != nil || ferr == nil || !strings.Contains(ferr.Error(), "/broken is not offered: "+brokenPath+":3: ") {
		t.Errorf("Find(/broken) = %v, %v; want the project file's error", c, ferr)
	}
	// Unknown names, built-ins and prompts that are not commands are nobody's.
	for _, line := range []string{"/nope", "/tools", "/usr/bin/ls is broken", "review", ""} {
		if c, _, ferr := cs.Find(line); c != nil || ferr != nil {
			t.Errorf("Find(%q) = %v, %v; want nothing", line, c, ferr)
		}
	}
	for _, want := range []string{
		filepath.Join(root, ".claude", "commands", "review.md") + ": command /review is shadowed by " + filepath.Join(root, ".gen", "commands", "review.md") + " (project commands take precedence)",
		filepath.Join(home, ".claude", "commands", "review.md") + ": command /review is shadowed by ",
		filepath.Join(home, ".gen", "commands", "broken.md") + ": command /broken is shadowed by " + brokenPath,
		filepath.Join(root, ".claude", "commands", "tools.md") + ": command /tools is not offered: /tools is built in",
	} {
		if !slices.ContainsFunc(cs.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("warnings %q lack %q", cs.Warnings, want)
		}
	}
}

func TestParseCommand(t *testing.T) {
	c, err := ParseCommand("/p/review.md", "review", []byte(`---
description: Review a pull request
argument-hint: [pr-number] [priority]
allowed-tools: Bash(git diff:*), Read
model: opus
disable-model-invocation: true
colour: blue
---
Review PR #$1 at priority $2.
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Description != "Review a pull request" || c.ArgumentHint != "[pr-number] [priority]" || c.Body != "Review PR #$1 at priority $2." || c.Bang != 0 {
		t.Errorf("got %+v", c)
	}
	wantWarn := []string{
		`/p/review.md:4: allowed-tools are not granted: gen's permission rules decide every call the command leads to`,
		`/p/review.md:5: model "opus" is ignored: the session's model answers the command`,
		`/p/review.md:7: unknown key "colour"`,
	}
	if !slices.Equal(c.Warnings, wantWarn) {
		t.Errorf("warnings %q, want %q", c.Warnings, wantWarn)
	}

	// No frontmatter: all body, and the description is its first line.
	c, err = ParseCommand("p.md", "p", []byte("\n\nSummarise $ARGUMENTS\nin one line.\n"))
	if err != nil || c.Description != "Summarise $ARGUMENTS" || c.Body != "Summarise $ARGUMENTS\nin one line." || len(c.Warnings) != 0 {
		t.Errorf("no frontmatter: %+v, %v", c, err)
	}
	// YAML's reading of "argument-hint: [message]" is a list.
	if c, err = ParseCommand("p.md", "p", []byte("---\nargument-hint: [message]\n---\nx\n")); err != nil || c.ArgumentHint != "[message]" {
		t.Errorf("list hint: %+v, %v", c, err)
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"malformed YAML", "---\ndescription: ok\nmodel: x\n  y: z\n---\nbody\n", "c.md:4: mapping values are not allowed in this context"},
		{"unclosed block", "---\ndescription: x\nbody\n", `c.md:1: frontmatter is not closed by a "---" line`},
		{"not a string", "---\ndescription: [a, b]\n---\nx\n", "c.md:2: description must be a string"},
		{"bad flag", "---\ndisable-model-invocation: maybe\n---\nx\n", "c.md:2: disable-model-invocation must be true or false"},
		{"bad hint", "---\nargument-hint: {a: b}\n---\nx\n", "c.md:2: argument-hint must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCommand("c.md", "c", []byte(tt.data))
			var fe *frontmatter.Error
			if c != nil || !errors.As(err, &fe) || err.Error() != tt.want {
				t.Errorf("got %+v, %v; want %q", c, err, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, body, args, want string
	}{
		{"whole arguments", "Fix issue #$ARGUMENTS now.", " 123  high ", "Fix issue #123  high now."},
		{"positional", "PR $1, priority $2, owner $3.", `456 "very high"`, "PR 456, priority very high, owner ."},
		{"quoting", "[$1] [$2] [$3] [$4]", `'a b' "c \"d\"" e\ f 'it''s'`, `[a b] [c "d"] [e f] [its]`},
		{"both", "$1 of $ARGUMENTS", "x y", "x of x y"},
		{"tenth", "$10", "1 2 3 4 5 6 7 8 9 ten", "ten"},
		{"appended", "Review the code.", "focus on auth", "Review the code.\n\nARGUMENTS: focus on auth"},
		{"nothing to append", "Review the code.", "  ", "Review the code."},
		{"placeholder, no arguments", "Review $ARGUMENTS.", "", "Review ."},
		{"arguments are not expanded again", "Say $ARGUMENTS and $1.", "$1 $ARGUMENTS", "Say $1 $ARGUMENTS and $1."},
		{"$0 is text", "cost $0 for $1", "x", "cost $0 for x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Command{Name: "c", Meta: Meta{Body: tt.body, Path: "c.md"}}
			got, err := c.Expand(tt.args, nil)
			if err != nil || got != tt.want {
				t.Errorf("Expand(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
			}
		})
	}

	c := &Command{Name: "c", Meta: Meta{Body: "Fix $1", Path: "c.md"}}
	if _, err := c.Expand(`don't`, nil); err == nil || err.Error() != `/c: the arguments have an unclosed ' quote: close it, or escape the ' with a backslash` {
		t.Errorf("unclosed quote: %v", err)
	}
	// Without a positional placeholder the arguments are not split.
	c.Body = "Fix $ARGUMENTS"
	if got, err := c.Expand(`don't`, nil); err != nil || got != "Fix don't" {
		t.Errorf("apostrophe: %q, %v", got, err)
	}
	c.Body = ""
	if _, err := c.Expand("", nil); err == nil {
		t.Error("an empty prompt was accepted")
	}
}

// A command's `!` commands run through shell (the permission gate's Bash
// call), as its file writes them, in order; each output takes its
// command's place, and the arguments fill the text around them. A
// refused one stops the expansion with an error naming its line; with no
// shell, none runs. Arguments and outputs are text: a `!` command in
// them never runs.
func TestExpandBang(t *testing.T) {
	c, err := ParseCommand("/p/.claude/commands/status.md", "status", []byte("---\ndescription: Status\n---\n\nSummarise the state of $1:\n\n- Status: !`git status`\n- Log: !`git log -1`\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Bang != 7 {
		t.Errorf("bang line %d, want 7", c.Bang)
	}
	var ran []string
	shell := func(cmd string) (string, error) {
		ran = append(ran, cmd)
		if cmd == "git log -1" {
			return "", errors.New("permission denied: no")
		}
		return "clean $1 !`rm -rf /`\n", nil
	}
	_, err = c.Expand("main", shell)
	want := "/p/.claude/commands/status.md:8: !`git log -1`: permission denied: no (/status is not sent)"
	if err == nil || err.Error() != want || !slices.Equal(ran, []string{"git status", "git log -1"}) {
		t.Errorf("Expand = %v, ran %q; want the error %q", err, ran, want)
	}
	ran = nil
	ok := func(cmd string) (string, error) { ran = append(ran, cmd); return "clean $1 !`rm -rf /`\n", nil }
	got, err := c.Expand("'$1 !`x`'", ok)
	if want := "Summarise the state of $1 !`x`:\n\n- Status: clean $1 !`rm -rf /`\n- Log: clean $1 !`rm -rf /`"; err != nil || got != want {
		t.Errorf("Expand = %q, %v; want %q", got, err, want)
	}
	if !slices.Equal(ran, []string{"git status", "git log -1"}) {
		t.Errorf("ran %q", ran)
	}
	if _, err := c.Expand("", nil); err == nil || err.Error() != "/p/.claude/commands/status.md:7: its `!` commands cannot run here (/status is not sent)" {
		t.Errorf("no shell: %v", err)
	}
	// In the frontmatter it is text.
	c, err = ParseCommand("x.md", "x", []byte("---\ndescription: run !`ls`\n---\nSay $ARGUMENTS\n"))
	if err != nil || c.Bang != 0 {
		t.Fatalf("frontmatter: %+v, %v", c, err)
	}
	if got, err := c.Expand("!`rm -rf /`", nil); err != nil || got != "Say !`rm -rf /`" {
		t.Errorf("arguments: %q, %v", got, err)
	}
}

// Commands.Expand is the one step that turns a typed line into the prompt
// it sends, in the TUI and headless.
func TestCommandsExpand(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"review.md": "Review $1.\n",
		"status.md": "State:\n!`git status`\n",
		"broken.md": "---\ndescription: x\n  model: y\n---\nbody\n",
		"tools.md":  "Would hide the built-in /tools.\n",
	})
	cs, _ := LoadCommands([]string{"tools"}, Location{Dir: dir, Scope: ScopeProject})
	for _, tt := range []struct {
		line, prompt, cmd, err string
	}{
		{line: "Review it.", prompt: "Review it."},
		{line: "/review  a.go ", prompt: "Review a.go.", cmd: "review"},
		{line: "/nope x", prompt: "/nope x"},
		{line: "/tools", prompt: "/tools"},
		{line: "/usr/bin/ls is slow", prompt: "/usr/bin/ls is slow"},
		{line: "/status", err: filepath.Join(dir, "status.md") + ":2: its `!` commands cannot run here"},
		{line: "/broken", err: "command /broken is not offered: " + filepath.Join(dir, "broken.md") + ":3: "},
		{line: "/review 'a", err: "/review: the arguments have an unclosed ' quote"},
	} {
		prompt, c, err := cs.Expand(tt.line, nil)
		name := ""
		if c != nil {
			name = c.Name
		}
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) || prompt != "" || c != nil {
				t.Errorf("Expand(%q) = %q, %q, %v; want the error %q", tt.line, prompt, name, err, tt.err)
			}
			continue
		}
		if err != nil || prompt != tt.prompt || name != tt.cmd {
			t.Errorf("Expand(%q) = %q, %q, %v; want %q, %q", tt.line, prompt, name, err, tt.prompt, tt.cmd)
		}
	}
	var none *Commands
	if prompt, c, err := none.Expand("/review x", nil); prompt != "/review x" || c != nil || err != nil {
		t.Errorf("nil Commands: %q, %v, %v; want the line as it is", prompt, c, err)
	}
}

// A project's ! commands are code from the repository: they run only in
// a trusted project; the user's own always may.
func TestCanShell(t *testing.T) {
	project := &Command{Name: "p", Bang: 3, Meta: Meta{Path: "/p/.claude/commands/p.md", Scope: ScopeProject}}
	user := &Command{Name: "u", Bang: 1, Meta: Meta{Path: "/h/.claude/commands/u.md", Scope: ScopeUser}}
	plain := &Command{Name: "x", Meta: Meta{Scope: ScopeProject}}
	cs := &Commands{}
	if err := cs.CanShell(project); err == nil || !strings.HasPrefix(err.Error(), "/p/.claude/commands/p.md:3: the project is not trusted") {
		t.Errorf("untrusted project: %v", err)
	}
	if cs.CanShell(user) != nil || cs.CanShell(plain) != nil {
		t.Error("a user's command, or one with no ! command, was refused")
	}
	cs.Trusted = true
	if err := cs.CanShell(project); err != nil {
		t.Errorf("trusted project: %v", err)
	}
	// Commands.Expand refuses it before running anything.
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{"status.md": "State:\n!`git status`\n"})
	loaded, _ := LoadCommands(nil, Location{Dir: dir, Scope: ScopeProject})
	ran := false
	if _, _, err := loaded.Expand("/status", func(string) (string, error) { ran = true; return "", nil }); err == nil || ran {
		t.Errorf("Expand ran an untrusted project's ! command: %v, ran %v", err, ran)
	}
	loaded.Trusted = true
	if _, _, err := loaded.Expand("/status", func(string) (string, error) { ran = true; return "ok", nil }); err != nil || !ran {
		t.Errorf("trusted: %v, ran %v", err, ran)
	}
}
