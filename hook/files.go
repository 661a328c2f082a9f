package hook

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/textfile"
	shell "github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/workspace"
)

// maxFiles bounds the files Files returns.
const maxFiles = 256

// Files returns the existing regular files, symbolic links resolved, that
// the hook commands of c name with a static word: the scripts and programs
// they run (./scripts/check.sh, python3 tools/lint.py,
// "$CLAUDE_PROJECT_DIR"/hooks/x.sh) and any other file an argument names;
// a file a command would run that is not there yet (wordFiles); and
// those that Follow finds through the shell scripts among them.
// Hooks run outside the permission gate and the kernel sandbox, so a
// change to one of these files is a change to what runs unchecked: the
// gate asks before a call writes one (perm.Policy.Code).
//
// Words are read as the hook's shell would in cwd, where hooks run, with
// the project directory variables as projectDir and "~" as home. A word
// the parse cannot make static is not followed: a file a hook reaches only through a variable,
// or through a file other than a shell script (a Python module, the
// package.json of `npm run`), is not found.
func (c Config) Files(cwd, projectDir, home string) []string {
	var out []string
	dirs := []string{cwd}
	for _, gs := range c.groups {
		for _, g := range gs {
			for _, h := range g.Hooks {
				out, dirs = commandFiles(out, dirs, h.Command, cwd, projectDir, home)
			}
		}
	}
	return follow(out, dirs, projectDir, home)
}

// maxScriptBytes bounds the size of a shell script Follow reads, and
// maxScriptDepth how many scripts deep it follows.
const (
	maxScriptBytes = 256 << 10
	maxScriptDepth = 4
)

// Follow returns files with, for each of them that is a shell script, the
// files its commands name too: the scripts it runs or sources and their
// own, maxScriptDepth deep, at most maxFiles in all, sorted, each once. A
// script's words are read as commandFiles reads a hook's, from cwd and
// from the script's own directory, and so is the literal path after the
// last expansion of a word, from those and the project directory (source
// "$(dirname "$0")/lib.sh" names lib.sh next to the script, and
// "$ROOT/scripts/x.sh" the project's x.sh): a file found this way that
// the script does not run is guarded all the same, which costs only a
// question before it is written.
//
// A script's words are also read from every directory its cd, pushd and
// env -C commands may move to (chdirs), and from those the hook commands
// and the scripts followed before it move to: a script runs in its
// caller's directory, and a sourced one moves its caller.
func Follow(files []string, cwd, projectDir, home string) []string {
	return follow(files, []string{cwd}, projectDir, home)
}

// follow is Follow with the directories the scripts may run in: the
// working directory and those the hook commands cd into.
func follow(files, bases []string, projectDir, home string) []string {
	out := slices.Clone(files)
	next := files
	for range maxScriptDepth {
		var found []string
		for _, f := range next {
			src, ok := shellScript(f)
			if !ok {
				continue
			}
			s, err := parseHook(src, projectDir)
			if err != nil {
				continue
			}
			own := filepath.Dir(f)
			dirs := chdirs(s, distinct(append([]string{own}, bases...)...), own, projectDir, home)
			for _, dir := range dirs {
				found = wordFiles(found, s, dir, home)
			}
			for _, dir := range distinct(append(dirs, projectDir)...) {
				found = tailFiles(found, s, dir)
			}
			for _, d := range dirs {
				if d != own && !slices.Contains(bases, d) && len(bases) < maxDirs {
					bases = append(bases, d)
				}
			}
		}
		next = next[:0:0]
		for _, f := range found {
			if !slices.Contains(out, f) && len(out) < maxFiles {
				out = append(out, f)
				next = append(next, f)
			}
		}
		if len(next) == 0 {
			break
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// distinct returns the directories that are not "", each once: a script
// usually lies in the working directory, which is the project's.
func distinct(dirs ...string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// shellScript returns the text of f if it is a shell script no larger
// than maxScriptBytes: a "#!" line naming a shell (shell.Shell, directly
// or through env), or none and a name ending in .sh or .bash.
func shellScript(f string) (string, bool) {
	// Opened without blocking and checked once open (textfile.Open), so
	// that a file replaced by a FIFO since it was found cannot hang it.
	file, err := textfile.Open(f)
	if err != nil {
		return "", false
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxScriptBytes+1))
	if err != nil || len(data) > maxScriptBytes {
		return "", false
	}
	text := string(data)
	line, _, _ := strings.Cut(text, "\n")
	if rest, ok := strings.CutPrefix(line, "#!"); ok {
		fields := strings.Fields(rest)
		if len(fields) > 1 && filepath.Base(fields[0]) == "env" {
			fields = fields[1:]
			for len(fields) > 1 && strings.HasPrefix(fields[0], "-") {
				fields = fields[1:] // env -S, env -i
			}
		}
		return text, len(fields) > 0 && shell.Shell(filepath.Base(fields[0]))
	}
	return text, strings.HasSuffix(f, ".sh") || strings.HasSuffix(f, ".bash")
}

// unquote drops the quotes of a word's text, as tailFiles reads it.
var unquote = lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer(`"`, "", "'", "")
}}

// tailFiles appends to out the files that the literal tails of s's
// words that are not static name from dir: "$DIR/lib.sh" and
// "${ROOT}/sub/x.sh" name lib.sh and sub/x.sh.
func tailFiles(out []string, s *shell.Script, dir string) []string {
	for _, c := range s.Commands {
		for _, w := range c.Words {
			if w.Static || len(out) >= maxFiles {
				continue
			}
			raw := unquote.Get().Replace(w.Raw)
			i := strings.LastIndexAny(raw, "$})`")
			if i < 0 {
				continue
			}
			rest := raw[i+1:]
			if raw[i] == '$' {
				rest = strings.TrimLeftFunc(rest, isNameChar) // $DIR/lib.sh
			}
			tail, ok := strings.CutPrefix(rest, "/")
			if !ok || tail == "" || !plainPath(tail) {
				continue
			}
			if f, ok := workspace.RegularFile(filepath.Join(dir, tail)); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// projectVars are the spellings of the variables run sets to the project
// directory.
var projectVars = []string{"${GEN_PROJECT_DIR}", "$GEN_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"}

// commandFiles appends to out the files the hook command cmd names, read
// from cwd and from each directory its cd commands may move to (chdirs),
// and to dirs those directories.
func commandFiles(out, dirs []string, cmd, cwd, projectDir, home string) ([]string, []string) {
	s, err := parseHook(cmd, projectDir)
	if err != nil {
		return out, dirs
	}
	for _, d := range chdirs(s, []string{cwd}, "", projectDir, home) {
		out = wordFiles(out, s, d, home)
		if !slices.Contains(dirs, d) && len(dirs) < maxDirs {
			dirs = append(dirs, d)
		}
	}
	return out, dirs
}

// parseHook parses a hook command or a script it runs, with the project
// directory variables replaced by projectDir.
func parseHook(src, projectDir string) (*shell.Script, error) {
	if projectDir != "" && plainPath(projectDir) {
		for _, v := range projectVars {
			src = strings.ReplaceAll(src, v, projectDir)
		}
	}
	return shell.Parse(src)
}

// wordFiles appends to out the files the static words of s's commands
// name from cwd.
func wordFiles(out []string, s *shell.Script, cwd, home string) []string {
	for _, c := range s.Commands {
		run := runs(c.Words)
		for i, w := range c.Words {
			if len(out) >= maxFiles {
				return out
			}
			if !w.Static || w.Glob || w.Value == "" || strings.HasPrefix(w.Value, "-") {
				continue
			}
			p := w.Value
			if strings.HasPrefix(p, "~") && !w.Tilde {
				p = "./" + p // a quoted ~ is a name
			}
			abs := workspace.Roots{Cwd: cwd, Home: home}.Abs(p)
			if f, ok := workspace.RegularFile(abs); ok {
				out = append(out, f)
			} else if i == run {
				// A file the command would run that is not there yet:
				// whoever creates it chooses what runs.
				if f, ok := missingFile(abs); ok {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// runners are the programs other than shells whose first operand, given
// with no option before it, is a file they run: source x, python3 x.py.
var runners = []string{"source", ".", "python", "python3", "node", "ruby", "perl", "php", "lua"}

// runs returns the index of the word that names the file a command runs:
// a program word holding a "/" (./scripts/x.sh), or the first word after
// a runner (sh x.sh); -1 if none.
func runs(words []shell.Word) int {
	if len(words) == 0 || !words[0].Static {
		return -1
	}
	switch {
	case strings.Contains(words[0].Value, "/"):
		return 0
	case len(words) > 1 && (shell.Shell(filepath.Base(words[0].Value)) || slices.Contains(runners, filepath.Base(words[0].Value))):
		return 1
	}
	return -1
}

// missingFile returns the path p names, its directory's symbolic links
// resolved, when nothing is there and its directory is.
func missingFile(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, filepath.Base(p)), true
}

// plainPath reports whether p can stand in a shell word unquoted and
// inside double quotes as itself.
func plainPath(p string) bool {
	for _, r := range p {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ',' || r == '@' || r == ':' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// isNameChar reports whether r may be part of a shell variable's name.
func isNameChar(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}
