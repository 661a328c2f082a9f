package perm

import "path/filepath"

// codeAt returns the Code file t is or lies in (a Code directory covers
// what it holds), or holds as a directory inside the workspace on the way
// to it (renaming or replacing the directory replaces the file), and
// whether t is the file itself or inside it; "" if none. The workspace's
// own directories do not count as on the way: most commands that write
// name one.
func (c *call) codeAt(t target) (file string, exact bool) {
	for _, f := range c.code {
		for _, p := range t.forms() {
			if cleanWithin(p, f) {
				return f, true
			}
			if p != "/" && cleanWithin(f, p) && c.ws.Contains(filepath.Dir(p)) {
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
