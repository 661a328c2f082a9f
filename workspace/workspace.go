// Package workspace is the one home of gen's path semantics: the roots a
// run works in, project root discovery, "~" expansion, path resolution
// (lexical and through symbolic links, as the kernel resolves them) and
// containment. perm, settings, agent and tool use it; it sits on the
// standard library only.
package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Roots is the set of directories file tools may touch without asking.
// All paths are absolute and clean. A directory that is empty or not
// absolute (a Roots built as a literal without a workspace) names no
// directory: it contains nothing, so containment fails closed.
type Roots struct {
	Cwd  string
	Root string // project root: nearest ancestor of Cwd with .gen/ or .git/, else Cwd
	Dirs []string
	Home string

	// real holds the real paths of Cwd, Root and Dirs as Resolve found
	// them; nil (a Roots built as a literal) means Contains resolves them
	// itself, every time.
	real *realRoots
}

// realRoots are the roots' directories with their symbolic links
// resolved, and the roots they were resolved for: a copy of a Roots whose
// fields were changed afterwards does not use them.
type realRoots struct {
	cwd, root string
	dirs      []string
	// link answers the lookups resolve makes; nil means Readlink.
	link LinkFunc

	once              sync.Once
	realCwd, realRoot string
	realDirs          []string
}

func (rr *realRoots) resolve() {
	rr.once.Do(func() {
		link := rr.link
		if link == nil {
			link = Readlink
		}
		rr.realCwd, rr.realRoot = realRoot(rr.cwd, link), realRoot(rr.root, link)
		rr.realDirs = make([]string, len(rr.dirs))
		for i, d := range rr.dirs {
			rr.realDirs[i] = realRoot(d, link)
		}
	})
}

// realRoot is the real path of the root dir, asking link: "" (no
// directory) for a root that is not absolute, which FollowLinks would
// resolve as if from "/" and so contain everything.
func realRoot(dir string, link LinkFunc) string {
	if !filepath.IsAbs(dir) {
		return ""
	}
	return FollowLinksWith(dir, link)
}

// inRoot reports whether p is the root dir or inside it; a root that is
// not absolute contains nothing.
func inRoot(p, dir string) bool { return filepath.IsAbs(dir) && Within(p, dir) }

// Resolve returns r with the real paths of its directories resolved now,
// once, for every later Contains: the workspace is then the directories
// as they were when it was resolved, as a long-lived policy wants (and a
// batch of what-if decisions, whose file system does not change). Call it
// when r is built, before r is shared; changing Cwd, Root or Dirs
// afterwards makes Contains resolve afresh.
func (r Roots) Resolve() Roots {
	r = r.Deferred()
	r.real.resolve()
	return r
}

// ResolveFrom is Resolve reusing what prev resolved when prev has the same
// directories (a policy rebuilt for the next call): no file system access
// then.
func (r Roots) ResolveFrom(prev Roots) Roots {
	if prev.resolved() && prev.real.cwd == r.Cwd && prev.real.root == r.Root && slices.Equal(prev.real.dirs, r.Dirs) {
		r.real = prev.real
		r.real.resolve()
		return r
	}
	return r.Resolve()
}

// Deferred is Resolve that resolves the directories only when a Contains
// first needs them, at most once: for a Roots used by one decision. It is
// safe for concurrent use. A Roots already resolved is returned as it is.
func (r Roots) Deferred() Roots {
	if r.resolved() {
		return r
	}
	r.real = &realRoots{cwd: r.Cwd, root: r.Root, dirs: slices.Clone(r.Dirs)}
	return r
}

// Fresh is Deferred that does not reuse what an earlier Resolve found: the
// directories are resolved again, asking link (nil: Readlink) about each
// component, when a Contains first needs them, at most once. It is for a
// Roots used by one decision that must see the file system as it is now
// (the interactive gate, where a call may re-point a link between two
// decisions). Like Deferred, it is safe for concurrent use if link is.
func (r Roots) Fresh(link LinkFunc) Roots {
	r.real = &realRoots{cwd: r.Cwd, root: r.Root, dirs: slices.Clone(r.Dirs), link: link}
	return r
}

// resolved reports whether r.real belongs to r's current directories.
func (r Roots) resolved() bool {
	rr := r.real
	return rr != nil && rr.cwd == r.Cwd && rr.root == r.Root && slices.Equal(rr.dirs, r.Dirs)
}

// Abs turns a path as a tool or command names it into a clean absolute
// path: "~" and "~/x" expand to the home directory, relative paths are
// joined to the cwd. Tools must touch the path this returns, which is the
// path the gate checked.
func (r Roots) Abs(p string) string {
	switch {
	case p == "~":
		p = r.Home
	case strings.HasPrefix(p, "~/"):
		p = join(r.Home, p[2:])
	case !filepath.IsAbs(p):
		p = join(r.Cwd, p)
	}
	return Clean(p)
}

// join is filepath.Join(dir, p) for a relative p: a non-empty dir is
// joined by a separator and the result cleaned once (Join's own work).
func join(dir, p string) string {
	if dir == "" {
		return filepath.Join(dir, p)
	}
	return Clean(dir + "/" + p)
}

// Clean is filepath.Clean, answering an absolute path that is clean
// already (the common case on the gate's hot path) by one scan without
// Clean's work: it returns p itself.
func Clean(p string) string {
	if cleanAbs(p) {
		return p
	}
	return filepath.Clean(p)
}

// cleanAbs reports whether p is an absolute path filepath.Clean leaves
// unchanged: "/", or "/" followed by segments that are neither empty nor
// "." nor "..", without a trailing separator.
func cleanAbs(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	if p[len(p)-1] == '/' || strings.Contains(p, "//") {
		return false // an empty segment
	}
	// A "." or ".." segment starts with "/.": look at each.
	for i := strings.Index(p, "/."); i >= 0; {
		rest := p[i+2:] // after "/."
		if rest == "" || rest[0] == '/' || rest[0] == '.' && (len(rest) == 1 || rest[1] == '/') {
			return false
		}
		j := strings.Index(rest, "/.")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return true
}

// Raw is Abs without the lexical cleaning, so a ".." after a symbolic
// link can still be resolved as the kernel does (Physical).
func (r Roots) Raw(p string) string {
	switch {
	case p == "~":
		return r.Home
	case strings.HasPrefix(p, "~/"):
		return r.Home + "/" + p[2:]
	case !filepath.IsAbs(p):
		return r.Cwd + "/" + p
	}
	return p
}

// HomeRelative reports whether p is "~" or starts with "~/".
func HomeRelative(p string) bool { return p == "~" || strings.HasPrefix(p, "~/") }

// Dir makes dir absolute as settings and flags name directories: "~" and
// "~/x" are under home, other relative paths are under base. An empty
// name is an error.
func Dir(dir, base, home string) (string, error) {
	if dir == "" {
		return "", errors.New("empty directory name")
	}
	return Roots{Cwd: base, Home: home}.Abs(dir), nil
}

// HasDotDot reports whether p has a ".." element.
func HasDotDot(p string) bool {
	return strings.Contains(p+"/", "/../")
}

// Physical resolves p the way the kernel does: component by component,
// following each symlink (a dangling one too) before a later ".." applies
// to it. See FollowLinks.
func Physical(p string) string { return FollowLinks(p) }

// RealPath resolves the symbolic links of abs, dangling ones included, so
// a path to a file about to be created under a symlinked directory, or
// through a link to a file that does not exist yet, is seen where the
// kernel would create it. See FollowLinks (the empty path stays empty).
func RealPath(abs string) string { return FollowLinks(abs) }

// Within reports whether p is dir or inside it.
func Within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if len(p) > 0 && p[0] == '/' && dir[0] == '/' {
		// Both absolute: once clean, containment is a prefix ending at
		// a separator (what filepath.Rel decides, without its work).
		p, dir = Clean(p), Clean(dir)
		return dir == "/" || p == dir || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// Contains reports whether the absolute path p lies in the workspace: in
// the cwd, the project root or an added directory, as named or with their
// symbolic links resolved (as Resolve found them, if it was called). A
// root that is empty or not absolute contains nothing.
func (r Roots) Contains(p string) bool {
	if inRoot(p, r.Cwd) || inRoot(p, r.Root) || slices.ContainsFunc(r.Dirs, func(d string) bool { return inRoot(p, d) }) {
		return true
	}
	if r.resolved() {
		rr := r.real
		rr.resolve()
		return inRoot(p, rr.realCwd) || inRoot(p, rr.realRoot) || slices.ContainsFunc(rr.realDirs, func(d string) bool { return inRoot(p, d) })
	}
	for _, d := range r.Dirs {
		if inRoot(p, realRoot(d, Readlink)) {
			return true
		}
	}
	return inRoot(p, realRoot(r.Cwd, Readlink)) || inRoot(p, realRoot(r.Root, Readlink))
}

// GlobStart splits a Glob pattern into the directory its walk starts in
// and the pattern below it: the search directory joined with the
// pattern's literal leading directories (doublestar's splitter, which
// unescapes), so `\*/../../x/*` starts where it leads. An absolute or
// home-relative pattern ignores search. dir is as written: absolute,
// home-relative ("~/..."), or search joined with the literal part; pass it
// through Abs (the tool) or the gate's resolution (perm).
func GlobStart(pattern, search string) (dir, rest string) {
	slashed := filepath.ToSlash(pattern)
	switch {
	case filepath.IsAbs(pattern):
		return doublestar.SplitPattern(slashed)
	case HomeRelative(pattern):
		static, rest := doublestar.SplitPattern(strings.TrimPrefix(slashed[1:], "/"))
		return "~/" + static, rest
	}
	static, rest := doublestar.SplitPattern(slashed)
	return filepath.Join(search, static), rest
}

// ProjectRoot returns the project root for cwd: the nearest ancestor of
// cwd, cwd included, that holds a .gen directory or a .git entry (a
// directory, or the file git writes for worktrees and submodules); cwd
// itself when there is none. The .gen directory of a home directory in
// homes (and of the user's own, os.UserHomeDir) holds user settings and
// does not by itself make that directory a project: that would put every
// file under home in the workspace.
func ProjectRoot(cwd string, homes ...string) string {
	if h, err := os.UserHomeDir(); err == nil {
		homes = append(homes, h)
	}
	cwd = filepath.Clean(cwd)
	for dir := cwd; ; {
		if fi, err := os.Stat(filepath.Join(dir, ".gen")); err == nil && fi.IsDir() && !slices.Contains(homes, dir) {
			return dir
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd
		}
		dir = parent
	}
}
