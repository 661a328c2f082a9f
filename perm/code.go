package perm

import (
	"path/filepath"
	"slices"
)

// codeAt returns the Code file t is or lies in (a Code directory covers
// what it holds), or holds as a directory inside the workspace on the way
// to it (renaming or replacing the directory replaces the file), and
// whether t is the file itself or inside it; "" if none. The workspace's
// own directories do not count as on the way: most commands that write
// name one. Where several do, it is the first in Code, found through the
// index (codeIndex) as a scan of Code in order would find it.
func (c *call) codeAt(t target) (file string, exact bool) {
	x := c.code
	if x == nil || len(x.files) == 0 {
		return "", false
	}
	forms := t.forms()
	if x.at == nil || slices.ContainsFunc(forms, x.unclean) {
		return x.scan(forms, c.ws)
	}
	best := int32(-1)
	for _, p := range forms {
		i, ex := x.first(p, p != "/" && c.ws.Contains(filepath.Dir(p)))
		if i >= 0 && (best < 0 || i < best) {
			best, exact = i, ex
		}
	}
	if best < 0 {
		return "", false
	}
	return x.files[best], exact
}

// codeIndex is a Policy's Code list, indexed for codeAt when it is long:
// each file by its path and each directory that holds one, with the
// position of the first such file in the list.
type codeIndex struct {
	files   []string
	at      map[string]int32 // nil: scan files
	holders map[string]int32
}

// newCodeIndex indexes code, a list of clean absolute paths. A list of
// smallList paths or fewer, or one that holds another kind of path, is
// scanned instead.
func newCodeIndex(code []string) *codeIndex {
	x := &codeIndex{files: code}
	if len(code) <= smallList || slices.ContainsFunc(code, x.unclean) {
		return x
	}
	x.at, x.holders = make(map[string]int32, len(code)), make(map[string]int32, len(code))
	for i, f := range code {
		if _, ok := x.at[f]; !ok {
			x.at[f] = int32(i)
		}
		for d := f; d != "/"; {
			d = filepath.Dir(d)
			if _, ok := x.holders[d]; ok {
				break // and so are the directories holding it, as early
			}
			x.holders[d] = int32(i)
		}
	}
	return x
}

func (x *codeIndex) len() int {
	if x == nil {
		return 0
	}
	return len(x.files)
}

// unclean reports a path the index does not take: not absolute, or not
// clean (a target's path is joined raw: a ".." after a link counts as
// written).
func (*codeIndex) unclean(p string) bool { return !filepath.IsAbs(p) || filepath.Clean(p) != p }

// first returns the position of the first Code file that p is or lies in,
// or, where holds is set, that p holds; -1 if none.
func (x *codeIndex) first(p string, holds bool) (int32, bool) {
	best, exact := int32(-1), false
	for a := p; ; a = filepath.Dir(a) {
		if i, ok := x.at[a]; ok && (best < 0 || i < best) {
			best, exact = i, true
		}
		if a == "/" {
			break
		}
	}
	if holds {
		if i, ok := x.holders[p]; ok && (best < 0 || i < best) {
			best, exact = i, false
		}
	}
	return best, exact
}

// scan is codeAt by a scan of the whole list.
func (x *codeIndex) scan(forms []string, ws Workspace) (string, bool) {
	for _, f := range x.files {
		for _, p := range forms {
			if cleanWithin(p, f) {
				return f, true
			}
			if p != "/" && cleanWithin(f, p) && ws.Contains(filepath.Dir(p)) {
				return f, false
			}
		}
	}
	return "", false
}

// codeReason is step 2's reason for a call that writes (verb) name, whose
// target is or holds (exact false) the Code file f.
func codeReason(verb, name, f string, exact bool) string {
	const what = "a file that configures gen, or a file a hook or MCP server runs outside the gate and the sandbox"
	if exact {
		return verb + " " + name + " (" + what + ")"
	}
	return verb + " " + name + ", which holds " + f + " (" + what + ")"
}

// codeMention returns step 2's reason for the first strong mention of a
// command that is, or leads to, a Code file (codeAt), with the file,
// unless the command only reads.
func (c *call) codeMention(pt *part) (reason, file string) {
	if pt.onlyReads() {
		return "", ""
	}
	ms, _ := c.mentionsOf(pt)
	for _, m := range ms {
		if m.weak {
			continue
		}
		if f, exact := c.codeAt(m.t); f != "" {
			return codeReason("mentions", m.word, f, exact), f
		}
	}
	return "", ""
}

// codeOf returns the index of code compiled with rs, or for a list rs was
// not compiled from (changed since), one that scans it.
func (rs *ruleSet) codeOf(code []string) *codeIndex {
	if x := rs.code; x != nil && sameStrings(x.files, code) {
		return x
	}
	return &codeIndex{files: code}
}

func sameStrings(a, b []string) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }
