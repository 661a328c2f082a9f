package perm

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/perm/bash"
)

// classify computes, once, whether a command part is read-only (readsOf)
// and whether it reads whole trees (recursion). It touches the file system
// (read paths, globs, the repository's configuration), so it is done only
// for parts a step still needs it for.
func (c *call) classify(pt *part) {
	if pt.classified || pt.kind != kindCommand {
		return
	}
	pt.classified = true
	pt.recursion = recursionOf(pt.allowForm, pt.denyForms[:pt.ownForms])
	c.readsOf(pt)
}

// classifyAll classifies every command part.
func (c *call) classifyAll() {
	for i := range c.parts {
		c.classify(&c.parts[i])
	}
}

// namesSensitive reports whether a command names a sensitive path with a
// strong mention: what sensitiveMention reports unless the command only
// reads, so that classify is needed only then.
func (c *call) namesSensitive(pt *part) bool {
	ms, _ := c.mentionsOf(pt)
	for _, m := range ms {
		if !m.weak && !harmlessDevice(m.t.abs) && m.t.isSensitive() {
			return true
		}
	}
	return false
}

// readsOf decides whether a command part is read-only: its program's spec
// accepts it (bash.Command.Reads), every path it reads resolves, a glob
// operand's matches are all known and none can be taken for an option,
// the script has no arithmetic context that evaluates an expansion and
// sets no variable outside a command (bash.Script.SetsOutside), and a
// git command's repository cannot make git run a program. p.notRO says
// why not.
func (c *call) readsOf(p *part) {
	if why := c.script.NotReadOnly; why != "" {
		p.notRO = bash.Because(why)
		return
	}
	r, ok := p.cmd.Reads()
	if !ok {
		p.notRO = r.Reason
		p.xargs = p.cmd.XargsSafe() && c.script.SetsOutside() == ""
		return
	}
	p.recursion.recursive = p.recursion.recursive || r.Recursive
	// ls -R, du and tree with no directory read the current one's tree,
	// which no word names (treeRoots); so does an explicit ".".
	p.recursion.cwd = p.recursion.cwd || r.Recursive && (r.Cwd || slices.ContainsFunc(r.Paths, func(rp bash.ReadPath) bool { return rp.Path == "." }))
	var reads []target
	for _, rp := range r.Paths {
		ts, ok := c.shellTargets(rp.Path)
		if !ok {
			p.notRO = bash.Because("path %s is relative to a directory that is not known", rp.Path)
			return
		}
		if rp.Glob {
			matches, why := c.globReads(rp.Path, ts)
			if why != "" {
				p.notRO = bash.Because(why)
				return
			}
			reads = append(reads, matches...)
		}
		if reads == nil {
			// Most commands read one path: its targets are kept as
			// shellTargets has them, clipped, so that an append
			// copies them instead of writing into its memo.
			reads = slices.Clip(ts)
			continue
		}
		reads = append(reads, ts...)
	}
	if r.DirFiles && c.anyDir(reads) {
		// diff a b with directories reads the files in them: a tree for
		// Read deny rules, and one that may lead out through a link.
		p.recursion.recursive = true
		p.recursion.follows = p.recursion.follows || r.FollowsLinks
	}
	if dirs, gitDir, isGit := p.cmd.GitStart(); isGit {
		for _, b := range c.bases {
			start, gitDir := c.gitStart(b, dirs, gitDir)
			if why := c.gitRepoCode(start, gitDir, namesWorkTree(p.cmd)); why != "" {
				p.notRO = bash.Because("git may run a program the repository configures: %s", why)
				return
			}
		}
	}
	if v := c.script.SetsOutside(); v != "" {
		p.notRO = bash.Because("the script sets %s outside a command", v)
		return
	}
	p.readOnly, p.reads = true, reads
}

// namesWorkTree reports a command with a --work-tree word (git's option):
// where git's work tree is, and so its submodules, is then not known.
func namesWorkTree(cmd *bash.Command) bool {
	for _, w := range cmd.Words {
		if w.Value == "--work-tree" || strings.HasPrefix(w.Value, "--work-tree=") || !w.Static && strings.Contains(w.Raw, "work-tree") {
			return true
		}
	}
	return false
}

// anyDir reports whether one of ts is a directory (links followed).
func (c *call) anyDir(ts []target) bool {
	for _, t := range ts {
		if _, dir := c.stat(t.real); dir {
			return true
		}
	}
	return false
}

// globReads expands a glob operand of a read-only command the way the
// shell will: only a pattern in its last element (one directory read), and
// never one whose matches could start with "-" (taken for options).
func (c *call) globReads(pattern string, ts []target) ([]target, string) {
	first, _, _ := strings.Cut(pattern, "/")
	last := filepath.Base(pattern)
	for _, dot := range []string{".", ".."} {
		if m, _ := filepath.Match(last, dot); m && last[0] == '.' {
			// bash before 5.2 (and with globskipdots off) expands .* to
			// . and .. too: ls .* would list the parent directory. Only
			// a leading "." matches one in bash.
			return nil, "glob " + pattern + " may match " + dot + " (bash before 5.2)"
		}
	}
	var out []target
	for _, t := range ts {
		if hasGlobMeta(filepath.Dir(t.abs)) {
			return nil, "glob " + pattern + " has a pattern before its last element"
		}
		if unlikeBash(t.abs) {
			return nil, "glob " + pattern + " has a bracket expression or backslash, which the gate cannot expand as bash does"
		}
		matches, err := c.glob(t.abs)
		if err != nil {
			return nil, "glob " + pattern + " is malformed"
		}
		for _, m := range matches {
			if !strings.Contains(pattern, "/") && strings.HasPrefix(filepath.Base(m), "-") || strings.HasPrefix(first, "-") {
				return nil, "glob " + pattern + " matches " + filepath.Base(m) + ", which the program would take for an option"
			}
			out = append(out, c.target(m))
		}
	}
	return out, ""
}
