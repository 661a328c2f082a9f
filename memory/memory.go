// Package memory builds what a run's system prompt says about where it
// runs: the project memory, the user's memory and the environment (working
// directory, date, operating system, whether the directory is in a git
// repository).
//
// The project memory is the first of AGENTS.md, CLAUDE.md and
// .claude/CLAUDE.md at the project root; the user's is the first of
// ~/.gen/AGENTS.md and ~/.claude/CLAUDE.md. Each is read whole and must be
// a regular file of at most MaxFile bytes that resolves inside the project
// root (or the home directory): a memory file that is a link to
// ~/.ssh/id_rsa would otherwise hand a secret to the model without any
// Read passing the gate. For the same reason a memory file is read only
// where the Read tool could read it under the settings' deny and ask rules
// (policy.Memory builds that policy): an AGENTS.md a repository links to
// its .env must not hand the model what the user's Read(./.env) denies.
// Problems are errors naming the file.
//
// A memory file imports other files as Claude Code's do, with @path
// (imports.go); an import is held to stricter rules, since its name comes
// from the file's text. It sits on perm (the workspace, the rules) and
// internal/textfile.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/workspace"
)

// MaxFile is the largest memory file read: everything in it is sent with
// every model request.
const MaxFile = 128 << 10

// ProjectFiles and UserFiles are where memory is looked for, relative to
// the project root and the home directory, in order; the first that exists
// is used. The names are constants (sep, not filepath.Join), so the
// slices are laid out in the binary rather than built at package init.
var (
	ProjectFiles = []string{"AGENTS.md", "CLAUDE.md", ".claude" + sep + "CLAUDE.md"}
	UserFiles    = []string{".gen" + sep + "AGENTS.md", ".claude" + sep + "CLAUDE.md"}
)

const sep = string(filepath.Separator)

// SystemPrompt returns the text to append to a system prompt: the
// environment of rules.Workspace at now, then the user's memory and the
// project memory when they exist, each followed by the files it imports.
// The workspace's Cwd, Root and Home must be absolute. A memory file is
// read only when rules allow a Read of it (its links followed); otherwise
// the error names the file and the rule. An import that may not be read
// is left out, and a warning says why.
func SystemPrompt(rules *perm.Policy, now time.Time) (prompt string, warnings []string, err error) {
	ws := rules.Workspace
	var b strings.Builder
	b.WriteString("# Environment\n")
	fmt.Fprintf(&b, "Working directory: %s\n", ws.Cwd)
	if ws.Root != ws.Cwd {
		fmt.Fprintf(&b, "Project root: %s\n", ws.Root)
	}
	fmt.Fprintf(&b, "Git repository: %s\n", yesNo(inGitRepo(ws.Cwd)))
	fmt.Fprintf(&b, "Platform: %s\n", runtime.GOOS)
	fmt.Fprintf(&b, "Today's date: %s\n", now.Format("2006-01-02"))
	read := ""
	for _, m := range []struct {
		title, dir string
		names      []string
	}{
		{"User memory", ws.Home, UserFiles},
		{"Project memory", ws.Root, ProjectFiles},
	} {
		if m.dir == "" {
			continue
		}
		path, text, err := first(m.dir, m.names, rules)
		if err != nil {
			return "", nil, err
		}
		if path == "" || path == read {
			// None, or the project root is home and its
			// .claude/CLAUDE.md is the user's, already included.
			continue
		}
		read = path
		fmt.Fprintf(&b, "\n# %s (%s)\n%s\n", m.title, path, text)
		im := importer{rules: rules, tree: m.dir}
		im.follow(path, text, 1)
		for _, f := range im.files {
			fmt.Fprintf(&b, "\n# %s: imported by %s (%s)\n%s\n", m.title, f.by, f.path, f.text)
		}
		warnings = append(warnings, im.warnings...)
	}
	return strings.TrimRight(b.String(), "\n"), warnings, nil
}

// first reads the first of names under dir that exists, if rules allow
// a Read of it: no deny rule covers it, and, when it is a link, the file
// it leads to passes the ask rules too. It returns "" for the path when
// none exists.
func first(dir string, names []string, rules *perm.Policy) (path, text string, err error) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := inside(p, dir); err != nil {
			return "", "", err
		}
		if err := Readable(rules)(p); err != nil {
			return "", "", fmt.Errorf("memory: %w", err)
		}
		data, err := textfile.Read(p, MaxFile)
		if err != nil {
			return "", "", fmt.Errorf("memory: %s: %w", p, err)
		}
		return p, strings.TrimSpace(string(data)), nil
	}
	return "", "", nil
}

// Readable returns the check a file gen puts in front of the model
// without a tool call (a memory file, a skill's or a command's text)
// must pass under rules (policy.Memory): a deny rule always keeps it out.
// Other refusals (an ask rule such as a bare Read, a sensitive path)
// count only where the name leads elsewhere: gen has always read its own
// configuration, which an ask rule for the model's reads is not about.
func Readable(rules *perm.Policy) func(path string) error {
	return func(p string) error {
		res := perm.Evaluate(perm.Request{Tool: "Read", Input: map[string]any{"file_path": p}}, rules)
		linked := res.Path != "" && res.Path != p
		if res.Decision != perm.Allow && (res.Step == 1 || linked) {
			return fmt.Errorf("%s is not read into the prompt: a Read of it is %s: %s", p, res.Decision, res.Reason)
		}
		return nil
	}
}

// inside checks that p, symbolic links resolved, is under dir.
func inside(p, dir string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("memory: %s: %w", p, err)
	}
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("memory: %s: %w", dir, err)
	}
	if !workspace.Within(real, base) {
		return fmt.Errorf("memory: %s is a link to %s, outside %s: memory files must live in the tree they describe", p, real, dir)
	}
	return nil
}

// inGitRepo reports whether dir or an ancestor has a .git entry (a
// directory, or the file of a worktree or submodule).
func inGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
