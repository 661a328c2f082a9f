package perm

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/perm/bash"
)

// recursion describes a command that reads whole directory trees.
type recursion struct {
	recursive bool // grep -r, rg, diff -r, tar c, zip -r, rsync, cp -r, find
	follows   bool // and follows symlinks inside the tree (grep -R, rg -L)
	// cwd: with no directory operand the command reads the current
	// directory (grep -r, rg, find).
	cwd bool
	// git: the command is git, which may print the contents of the files
	// it tracks (git diff, git log -p, git show); whether it may
	// (part.tracked) is asked only where a Read deny rule needs the
	// answer, since finding it parses the command line again.
	git bool
}

// recursionOf inspects a command's normalised forms (static words): its
// allow form and deny forms. Any form that reads a tree makes the command
// one.
func recursionOf(allow string, deny []string) recursion {
	var out recursion
	for i := -1; i < len(deny); i++ {
		form := allow
		if i >= 0 {
			form = deny[i]
		}
		if !recursiveProgs.Get()[filepath.Base(firstField(form))] {
			continue // recursionOfForm would find nothing
		}
		var buf [32]string // most forms have fewer fields: no allocation
		r := recursionOfForm(appendFields(buf[:0], form))
		out.recursive = out.recursive || r.recursive
		out.follows = out.follows || r.follows
		out.cwd = out.cwd || r.cwd
		out.git = out.git || r.git
	}
	return out
}

// recursiveProgs are the programs recursionOfForm knows.
var recursiveProgs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "find": true, "diff": true,
		"ls": true, "du": true, "tree": true,
		"cp": true, "zip": true, "rsync": true, "scp": true, "tar": true, "git": true,
	}
}}

// firstField is strings.Fields(s)[0], or "" when s has no field, without
// splitting the rest. strings.FieldsSeq looks ASCII bytes up in a table,
// three times as fast on forms as unicode.IsSpace called on each.
func firstField(s string) string {
	for f := range strings.FieldsSeq(s) {
		return f
	}
	return ""
}

// appendFields appends strings.Fields(s) to out.
func appendFields(out []string, s string) []string {
	for f := range strings.FieldsSeq(s) {
		out = append(out, f)
	}
	return out
}

func recursionOfForm(f []string) recursion {
	if len(f) == 0 {
		return recursion{}
	}
	var r recursion
	short := func(a, letters string) bool {
		return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], letters)
	}
	args := f[1:]
	switch filepath.Base(f[0]) {
	case "grep", "egrep", "fgrep":
		// Recursive unless grep's spec reads every word and none
		// recurses: getopt_long takes --deref for
		// --dereference-recursive and --dir=recurse for -d recurse.
		trees, sure := bash.ReadsTrees(filepath.Base(f[0]), args)
		r.recursive, r.follows, r.cwd = trees, trees && !sure, trees
	case "ls", "du", "tree":
		// As grep: ls -R, du and tree list trees (the current
		// directory's when they name none), and a command line their
		// spec does not read whole (ls -RL, du -L, tree -l) may follow
		// links too. Allowed by a rule rather than as read-only, such a
		// command is not classified.
		prog := filepath.Base(f[0])
		trees, sure := bash.ReadsTrees(prog, args)
		r.recursive, r.follows, r.cwd = trees, trees && !sure, trees && bash.ReadsCwd(prog, args)
	case "rg", "ag", "ack":
		r.recursive, r.cwd = true, true
		for _, a := range args {
			if a == "--follow" || short(a, "L") {
				r.follows = true
			}
		}
	case "find":
		r.recursive, r.cwd = true, true
		r.follows = slices.Contains(args, "-L") || slices.Contains(args, "-follow")
	case "diff":
		r.recursive, _ = bash.ReadsTrees("diff", args) // --rec is --recursive
	// Long options are read as getopt_long reads them (cp, tar) or as
	// zip does: any prefix may stand for the option (cp --rec, tar
	// --creat, zip --recurse-pa).
	case "cp":
		r.recursive = slices.ContainsFunc(args, func(a string) bool {
			return bash.LongAbbrev(a, "--recursive") || bash.LongAbbrev(a, "--archive") || short(a, "rRa")
		})
	case "zip":
		r.recursive = slices.ContainsFunc(args, func(a string) bool {
			return bash.LongAbbrev(a, "--recurse-paths") || bash.LongAbbrev(a, "--recurse-patterns") || short(a, "rR")
		})
	case "rsync", "scp":
		r.recursive = true
	case "tar":
		// tar c, tar -czf, tar --create: creating an archive reads trees.
		r.recursive = slices.ContainsFunc(args, func(a string) bool {
			return bash.LongAbbrev(a, "--create") || bash.LongAbbrev(a, "--append") || bash.LongAbbrev(a, "--update") ||
				short(a, "cru")
		}) || len(args) > 0 && !strings.HasPrefix(args[0], "-") && strings.ContainsAny(args[0], "cru")
	case "git":
		r = gitRecursion(args)
	}
	return r
}

// gitRecursion classifies a git command line, the words after git (a
// deny form may have removed its global options): git diff --no-index
// reads trees.
func gitRecursion(args []string) recursion {
	return recursion{
		git:       true,
		recursive: len(args) > 0 && args[0] == "diff" && slices.Contains(args[1:], "--no-index"),
	}
}

// tracked reports whether the git command pt may print every tracked
// file: a form of it, the words after git, is not verified to print no
// file's contents (bash.GitQuiet: git show, git log -p, git status -v,
// git config --blob HASH, git fast-export, an alias).
func (pt *part) tracked() bool {
	if !pt.recursion.git {
		return false
	}
	for i := -1; i < pt.ownForms; i++ {
		form := pt.allowForm
		if i >= 0 {
			form = pt.denyForms[i]
		}
		if f := strings.Fields(form); len(f) > 0 && filepath.Base(f[0]) == "git" && !bash.GitQuiet(f[1:]) {
			return true
		}
	}
	return false
}

// treeRoots are the directories a recursive command reads: the paths it
// names that are directories, or the directories it runs in when it names
// none and reads the current directory by default.
func (c *call) treeRoots(pt *part) []target {
	var dirs []target
	ms, _ := c.mentionsOf(pt)
	for _, m := range ms {
		if m.weak {
			continue
		}
		if ok, dir := c.stat(m.t.real); ok && dir {
			dirs = append(dirs, m.t)
		}
	}
	if len(dirs) == 0 && pt.recursion.cwd {
		for _, b := range c.bases {
			dirs = append(dirs, c.target(b))
		}
	}
	return dirs
}

// repoRoots are the repositories a git command may read: the nearest
// ancestor holding .git of each directory the script runs in, and of a
// -C directory.
func (c *call) repoRoots(pt *part) []target {
	var roots []target
	dirs := slices.Clone(c.bases)
	words := pt.cmd.Words
	for i := 1; i+1 < len(words); i++ {
		if words[i].Static && words[i].Value == "-C" && words[i+1].Static {
			for _, t := range c.shellTargetsOrNil(shellPath(words[i+1])) {
				dirs = append(dirs, t.real)
			}
		}
	}
	for _, d := range dirs {
		for dir := d; ; dir = filepath.Dir(dir) {
			if c.lexists(filepath.Join(dir, ".git")) {
				roots = append(roots, c.target(dir))
				break
			}
			if filepath.Dir(dir) == dir {
				roots = append(roots, c.target(d)) // no repository: judge the directory
				break
			}
		}
	}
	return roots
}

func (c *call) shellTargetsOrNil(p string) []target {
	ts, _ := c.shellTargets(p)
	return ts
}

// mayCover reports whether a path pattern could match something inside
// dir: a basename pattern could be anywhere; an absolute one if its
// literal directory lies inside dir, or dir inside it.
func (pp pathPattern) mayCover(dir string) bool {
	d := strings.TrimSuffix(dir, "/") + "/"
	return pp.base || strings.HasPrefix(pp.dir, d) || strings.HasPrefix(d, pp.dir) || pp.alias != nil && pp.alias.mayCover(dir)
}
