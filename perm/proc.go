package perm

import (
	"path"
	"strings"

	"github.com/gen-run/gen/workspace"
)

// A process's links under /proc (cwd, root, fd/N, exe, map_files/N) lead
// to that process's files. The gate looking one up finds its own: its
// /proc/self is the gate, its cwd the directory gen started in, and what
// /proc/999/cwd is for the command the gate cannot know (the link may be
// unreadable to it, or another process's). A command's path through one
// (cd src && cat /proc/self/cwd/../.env, cat /proc/1/root/root/.ssh/id,
// a link in the workspace to /proc/self/cwd/..) is resolved as the
// command's kernel resolves it (procTargets): the command's own cwd is
// each directory the script may be in, its root "/"; another process's
// cwd and root may be those too (deny rules match broadly) or anything
// else (the path is not sure), and its other links lead to nothing the
// gate can name.

// maxProcDepth bounds how often a path through a process's link is
// resolved again (/proc/self/root/proc/self/cwd/...).
const maxProcDepth = 4

// procTargets returns the targets the absolute raw path (joined, not
// cleaned) names where it passes through a process's link under /proc
// (procSplit), as the command resolves it, and whether they are all it
// may name; none and true when it passes through none. t is the target
// the gate resolved raw to: a path with no link on its way and no /proc
// element is not walked again.
func (c *call) procTargets(raw string, t target, depth int) ([]target, bool) {
	if t.real == t.abs && !strings.Contains(raw, "/proc") {
		return nil, true
	}
	own, entry, rest, found := c.procSplit(raw)
	if !found {
		return nil, true
	}
	if depth >= maxProcDepth {
		return nil, false
	}
	sure := own
	var dirs []string
	switch entry {
	case "cwd":
		dirs = c.bases
		sure = sure && !c.cdUnsure
	case "root":
		dirs = []string{""}
	default:
		return nil, false // a descriptor, the program, a mapping
	}
	var ts []target
	for _, d := range dirs {
		p := d + "/" + rest
		nt := c.target(p)
		ts = append(ts, nt)
		more, ok := c.procTargets(p, nt, depth+1)
		ts = append(ts, more...)
		sure = sure && ok
	}
	return ts, sure
}

// joinedHasProc reports whether dir + "/" + p holds "/proc", as
// procTargets' first test of that path, without making it: the only
// "/proc" across the join starts at its separator.
func joinedHasProc(dir, p string) bool {
	return strings.HasPrefix(p, "proc") || strings.Contains(dir, "/proc") || strings.Contains(p, "/proc")
}

// procSplit walks the absolute path raw as the kernel does, following
// the links outside /proc (linkOutsideProc), up to the first prefix that
// is a process's link (procLink). It returns whether that process is the
// command's own, the link's name and the rest of raw after it, not
// resolved; found is false when raw passes through no such link.
func (c *call) procSplit(raw string) (own bool, entry, rest string, found bool) {
	// The directory part is walked once per call: a command's paths are
	// mostly in the directories it runs in.
	dir, base := raw, ""
	if i := strings.LastIndexByte(raw, '/'); i > 0 {
		dir, base = raw[:i], raw[i+1:]
	}
	w, ok := c.procDirs[dir]
	if !ok {
		w = c.procWalk(procWalk{cur: "/"}, dir, 0)
		if c.procDirs == nil {
			c.procDirs = make(map[string]procWalk)
		}
		c.procDirs[dir] = w
	}
	if w.found {
		if w.rest == "" {
			return w.own, w.entry, base, true
		}
		return w.own, w.entry, w.rest + "/" + base, true
	}
	w = c.procWalk(w, raw, len(raw)-len(base))
	return w.own, w.entry, w.rest, w.found
}

// procWalk is where procSplit's walk stands: the clean path cur walked so
// far and the links followed (hops), or, found, the process link reached
// (own, entry) and the rest of the path after it.
type procWalk struct {
	cur         string
	hops        int
	own, found  bool
	entry, rest string
}

// procWalk walks src[from:] on from w.
func (c *call) procWalk(w procWalk, src string, from int) procWalk {
	cur, hops := w.cur, w.hops
	rest := src[from:]
	for rest != "" {
		start := len(src) - len(rest)
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		switch part {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		cur = joinAt(cur, part, src, start)
		if own, entry, ok := procLink(cur); ok {
			return procWalk{own: own, entry: entry, rest: rest, found: true}
		}
		if hops >= maxProgramLinks {
			continue
		}
		dest, ok := c.linkOutsideProc(cur)
		if !ok {
			continue
		}
		hops++
		if path.IsAbs(dest) {
			cur = "/"
		} else {
			cur = path.Dir(cur)
		}
		rest = dest + "/" + rest
		src = rest
	}
	return procWalk{cur: cur, hops: hops}
}

// joinAt is path.Join(cur, part) for a clean absolute cur and a name part
// (not "", "." or "..", no separator) that src holds at start: src's own
// prefix where that spells the join, so that walking a clean path makes
// no new strings.
func joinAt(cur, part, src string, start int) string {
	end := start + len(part)
	if cur == "/" {
		if start == 1 && src[0] == '/' {
			return src[:end]
		}
		return "/" + part
	}
	if start == len(cur)+1 && src[len(cur)] == '/' && src[:len(cur)] == cur {
		return src[:end]
	}
	return cur + "/" + part
}

// procLink reports whether the clean absolute path p is a process's link
// under /proc: /proc/P/E or /proc/P/task/T/E, where P is self,
// thread-self or a number and E is cwd, root, exe, fd or map_files (the
// directories of links, whose entries lead anywhere). own is whether P is
// the process that opens the path (self, thread-self).
func procLink(p string) (own bool, entry string, ok bool) {
	pid, entry, sub, ok := workspace.ProcLink(p)
	if !ok || sub != "" {
		return false, "", false
	}
	own = pid == "self" || pid == "thread-self"
	if own && entry != "cwd" && entry != "root" {
		// The command's own descriptors are its redirects, judged as
		// such (/dev/stdin, exec 3<.env; cat /dev/fd/3).
		return false, "", false
	}
	return own, entry, true
}
