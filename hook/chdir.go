package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	shell "github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/workspace"
)

// maxDirs bounds the directories the words of one command or script are
// read from (chdirs), and those the hook commands and scripts followed
// pass on to the scripts after them. Past it, a word is not looked for
// in further directories.
const maxDirs = 16

// chdirs returns dirs, then every directory the cd, pushd and env -C
// commands of s may move to from any of them (cdTargets, chdirTarget),
// each once, at most maxDirs in all. The commands of s are not ordered
// against the moves: a word is read from every directory the script may
// be in, which finds what it runs after a cd (cd scripts && ./d.sh), and
// more, which only costs a question before a write. own is the
// directory of the script s is ("" for a hook command): a cd to an
// expansion with a literal tail (cd "$(dirname "$0")/..") is read from it.
//
// A cd to a directory that is not statically known (cd "$X", cd
// $(mktemp -d)) is read as the working directory, the script's own
// directory or the project directory, with its literal tail if it has
// one; what the script runs from elsewhere is not found. CDPATH is not
// read: gen's own environment is the user's.
func chdirs(s *shell.Script, dirs []string, own, projectDir, home string) []string {
	out := slices.Clone(dirs)
	targets := cdTargets(s)
	if len(targets) == 0 {
		return out
	}
	for i := 0; i < len(out) && len(out) < maxDirs; i++ {
		for _, w := range targets {
			for _, d := range chdirTarget(w, out[i], own, projectDir, home) {
				if !slices.Contains(out, d) && len(out) < maxDirs {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// cdTargets returns the words that name the directory a command of s
// changes to: the operand of cd and pushd (after their options; "~" for a
// cd with none; builtin and command before them are skipped,
// shell.Command.DirChange), and the directory of env -C DIR, -CDIR,
// --chdir DIR and --chdir=DIR.
func cdTargets(s *shell.Script) []shell.Word {
	var out []shell.Word
	for _, c := range s.Commands {
		if prog, args, ok := c.DirChange(); ok {
			if w, ok := cdOperand(args); ok && prog != "popd" {
				out = append(out, w)
			} else if prog == "cd" {
				out = append(out, shell.Word{Raw: "~", Value: "~", Static: true, Tilde: true})
			}
			continue
		}
		if ws := c.Words; len(ws) > 0 && ws[0].Static && ws[0].Value == "env" {
			out = append(out, envChdir(ws[1:])...)
		}
	}
	return out
}

// cdOperand returns the first operand of cd or pushd: the word after
// their options (-L, -P, -e, -@, -n, and "--"), unless it is a directory
// stack index (+N, -N) or "-" (the previous directory, one of those
// already known).
func cdOperand(args []shell.Word) (shell.Word, bool) {
	for i, w := range args {
		v := w.Value
		switch {
		case !w.Static:
			return w, true
		case v == "--":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return shell.Word{}, false
		case v == "-" || len(v) > 1 && (v[0] == '+' || v[0] == '-') && strings.Trim(v[1:], "0123456789") == "":
			return shell.Word{}, false
		case len(v) > 1 && v[0] == '-':
			continue // -L, -P, -e, -@, -n
		}
		return w, true
	}
	return shell.Word{}, false
}

// envChdir returns the directories env -C gives the command it runs, read
// up to the first word that is neither an option nor an assignment.
func envChdir(args []shell.Word) []shell.Word {
	var out []shell.Word
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.Value
		switch {
		case !w.Static:
			return out
		case v == "-C" || v == "--chdir":
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case strings.HasPrefix(v, "--chdir="):
			out = append(out, shell.Word{Raw: v[len("--chdir="):], Value: v[len("--chdir="):], Static: true})
		case strings.HasPrefix(v, "-C"):
			out = append(out, shell.Word{Raw: v[2:], Value: v[2:], Static: true})
		case v == "-u" || v == "--unset" || v == "-S" || v == "--split-string":
			i++ // takes a value
		case strings.HasPrefix(v, "-") || strings.Contains(v, "="):
		default:
			return out
		}
	}
	return out
}

// chdirTarget returns the directories a cd to w may reach from dir: w's
// value read logically (a ".." after a link undoes the link, as cd does
// without -P) and physically (as cd -P does, and as the kernel opens
// what comes after), those of each word a brace expansion makes and each
// directory a glob matches; for a word that is not static, its literal
// tail after the last expansion read from dir, own and projectDir
// (see chdirs). Only directories that exist count.
func chdirTarget(w shell.Word, dir, own, projectDir, home string) []string {
	if !w.Static {
		if len(w.Braces) > 0 {
			var out []string
			for _, b := range w.Braces {
				out = append(out, chdirTarget(b, dir, own, projectDir, home)...)
			}
			return out
		}
		tail, ok := literalTail(w.Raw)
		if !ok {
			return nil
		}
		var out []string
		for _, base := range distinct(dir, own, projectDir) {
			out = append(out, existingDirs(filepath.Join(base, tail), base+"/"+tail)...)
		}
		return out
	}
	p := w.Value
	if p == "" || p == "-" {
		return nil
	}
	if strings.HasPrefix(p, "~") && !w.Tilde {
		p = "./" + p // a quoted ~ is a name
	}
	r := workspace.Roots{Cwd: dir, Home: home}
	if w.Glob {
		matches, _ := filepath.Glob(r.Abs(p))
		if len(matches) > maxDirs {
			matches = matches[:maxDirs]
		}
		return existingDirs(matches...)
	}
	return existingDirs(r.Abs(p), workspace.Physical(r.Raw(p)))
}

// literalTail returns the literal path after the last expansion of a
// word that is not static, "" for a word that ends in one ("$DIR",
// "$(git rev-parse --show-toplevel)"), as tailFiles reads it: it is
// relative to what the expansion gives.
func literalTail(raw string) (string, bool) {
	raw = unquote.Get().Replace(raw)
	i := strings.LastIndexAny(raw, "$})`")
	if i < 0 {
		return "", false
	}
	rest := raw[i+1:]
	if raw[i] == '$' {
		rest = strings.TrimLeftFunc(rest, isNameChar)
	}
	if rest == "" {
		return "", true
	}
	tail, ok := strings.CutPrefix(rest, "/")
	if !ok || !plainPath(tail) {
		return "", false
	}
	return tail, true
}

// existingDirs returns the paths that name a directory, clean, each once.
func existingDirs(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
