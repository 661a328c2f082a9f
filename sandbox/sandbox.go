// Package sandbox confines one shell command with the kernel, as a second
// layer behind the permission gate: the gate decides what a command may
// do, and the sandbox makes the kernel refuse the rest.
//
// On Linux, gen re-executes itself as a small helper (HelperMain) that
// restricts its own process and then execs bash -c COMMAND, so the
// restrictions are in place before the first instruction of the command
// runs and cannot be lifted by it:
//
//   - a private mount namespace, inside a new user namespace, in which the
//     read-only carve-outs (.git and the git hooks, .gen, .claude,
//     .mcp.json, and the paths of Edit deny rules) are bind-mounted
//     read-only, and the paths of Read deny rules are covered by an
//     empty directory or file; the directories
//     between a writable root and those paths are mount points too, so
//     that they cannot be renamed away with what they hold (Spec.pins);
//   - Landlock (best-effort ABI): writes only where the profile allows;
//     the whole file system readable but the disks the user may read
//     (which hold every file, hidden ones too), except, under ReadOnly, the home
//     directories outside the workspace and the devices but a few
//     (reads.go);
//   - without network: a seccomp filter that fails socket() for every
//     family but AF_UNIX, and Landlock's TCP rules where the kernel has them;
//   - under ReadOnly, the same filter also fails the file metadata changes
//     Landlock does not restrict (chmod, chown, utimes, xattrs, truncate by
//     path) and, below Landlock ABI 9, unix sockets (connect(2) to a
//     daemon's socket is not restricted there);
//   - below Landlock ABI 3, under both profiles, the filter fails opening
//     a file for reading with O_TRUNC, which truncates it while Landlock
//     sees a read;
//   - under ReadOnly without an IPC namespace, the filter fails System V
//     IPC and POSIX message queues;
//   - under every profile, the filter fails prlimit64(2) setting another
//     process's resource limits (gen's file size limit to 0, say);
//   - an IPC namespace of its own (Spec.PrivateIPC), and a session
//     keyring of its own (newSessionKeyring);
//   - no capability (root's neither) and no descriptor but 0, 1 and 2.
//
// Other platforms have no sandbox: Available reports why, and only profile
// None can run there.
package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gen-run/gen/internal/gitconfig"
	"github.com/gen-run/gen/internal/textfile"
)

// Profile names what a sandboxed command may write.
type Profile string

const (
	// ReadOnly: the file system is readable but for the home
	// directories outside the workspace and the devices commands do not
	// need (Spec.Readable); nothing is
	// writable but /dev/null and the terminal devices, no metadata
	// changeable; no network.
	ReadOnly Profile = "read-only"
	// WorkspaceWrite: writable only in the Spec's writable roots, minus
	// the read-only carve-outs; network unless Spec.Network is false.
	WorkspaceWrite Profile = "workspace-write"
	// None: no sandbox.
	None Profile = "none"
)

// ParseProfile returns the profile named s; any other name is an error.
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(s); p {
	case ReadOnly, WorkspaceWrite, None:
		return p, nil
	}
	return "", fmt.Errorf("unknown sandbox profile %q (want %q, %q or %q)", s, ReadOnly, WorkspaceWrite, None)
}

// protectedNames are the directories and files that stay read-only inside
// every writable root: a command allowed to write the workspace must not
// be able to plant git hooks or change gen's (or Claude Code's) settings
// or the project's MCP servers (.mcp.json), which run outside the sandbox.
var protectedNames = []string{".git", ".gen", ".claude", ".mcp.json"}

// Spec is the confinement of one command. It is what the helper receives;
// every path in it is absolute and clean.
type Spec struct {
	Profile Profile `json:"profile"`
	// Cwd is the directory the command starts in.
	Cwd string `json:"cwd"`
	// Writable are the roots the command may write under (WorkspaceWrite
	// only); the per-run temp directory is added by Command.
	Writable []string `json:"writable,omitempty"`
	// ReadOnly are existing paths inside Writable that stay read-only.
	ReadOnly []string `json:"readOnly,omitempty"`
	// Hidden are existing files and directories the command must not
	// read (Read deny rules): each is covered, in the command's own mount
	// namespace, by an empty read-only directory or an empty file.
	Hidden []string `json:"hidden,omitempty"`
	// Readable, when not empty (ReadOnly only), are the only paths the
	// command may read, list or run files beneath, besides the devices:
	// everything but the private directories and what is re-opened in
	// them (readConfinement). Empty leaves the whole file system readable.
	Readable []string `json:"readable,omitempty"`
	// Network allows sockets other than AF_UNIX. Always false for ReadOnly.
	Network bool `json:"network"`
	// PrivateIPC gives the command an IPC namespace of its own: System V
	// message queues, semaphores and shared memory and POSIX message
	// queues, which Landlock does not restrict, are then only the
	// command's, so that it can neither write to another process's nor
	// leave one behind. Command sets it where user namespaces are
	// available.
	PrivateIPC bool `json:"privateIPC,omitempty"`
	// Required (sandbox.required) makes Command refuse the spec where
	// the kernel cannot enforce all of it, instead of leaving out what it
	// cannot (the carve-outs and hidden paths, without user namespaces).
	// The helper never sees it.
	Required bool `json:"-"`
}

// namespaces reports whether the helper needs new user and mount
// namespaces for s: for carve-outs, hidden paths or a private IPC
// namespace.
func (s Spec) namespaces() bool {
	return len(s.ReadOnly) > 0 || len(s.Hidden) > 0 || s.PrivateIPC
}

// mounted says what of s only the helper's mounts enforce, "" if nothing:
// the read-only carve-outs and the hidden paths.
func (s Spec) mounted() string {
	var what []string
	if len(s.ReadOnly) > 0 {
		what = append(what, fmt.Sprintf("%s read-only", strings.Join(s.ReadOnly, ", ")))
	}
	if len(s.Hidden) > 0 {
		what = append(what, fmt.Sprintf("%s unreadable", strings.Join(s.Hidden, ", ")))
	}
	return strings.Join(what, " or ")
}

// Roots are the inputs NewSpec derives a Spec from.
type Roots struct {
	// Cwd is the command's working directory; Workspace the workspace
	// root. Both must be absolute.
	Cwd, Workspace string
	// Additional are the additional working directories.
	Additional []string
	// AllowWrite are sandbox.filesystem.allowWrite paths, already expanded
	// (no "~"). Paths that do not exist are left out: Landlock can only
	// grant access to something that exists.
	AllowWrite []string
	// Hidden are the existing, symlink-resolved paths the command must
	// not read, and Protected those it must not write
	// (perm.Policy.DeniedPaths): Hidden applies to both profiles,
	// Protected joins the carve-outs where it lies in a writable root.
	Hidden, Protected []string
	// Home is the user's home directory, ConfigHome XDG_CONFIG_HOME (""
	// for home's .config) and GitConfig GIT_CONFIG_GLOBAL ("" for
	// ~/.gitconfig), as the command's environment has them. With Home
	// set, ReadOnly confines reads away from the home directories
	// (readConfinement); WorkspaceWrite reads the global git
	// configuration for the hooks it keeps read-only (gitHooks).
	Home, ConfigHome, GitConfig string
	// Reads are the absolute paths a read-only command may read even
	// inside a home directory: the PATH entries it runs programs from and
	// sandbox.filesystem.allowRead.
	Reads []string
}

// NewSpec computes the Spec of profile p for roots. For WorkspaceWrite the
// writable roots are the workspace, the additional directories and the
// allowWrite paths, and the carve-outs are protectedNames in each of
// them, plus the directories a .git file's "gitdir:" line leads to (a
// worktree's git directory and its common directory) and the hooks git
// runs (gitHooks), and roots.Protected, where those lie inside a writable
// root. Both ReadOnly and WorkspaceWrite hide roots.Hidden. network is
// forced false for ReadOnly.
func NewSpec(p Profile, roots Roots, network bool) (Spec, error) {
	if _, err := ParseProfile(string(p)); err != nil {
		return Spec{}, err
	}
	for _, d := range []string{roots.Cwd, roots.Workspace} {
		if !filepath.IsAbs(d) {
			return Spec{}, fmt.Errorf("sandbox: %q is not an absolute path", d)
		}
	}
	s := Spec{Profile: p, Cwd: filepath.Clean(roots.Cwd), Network: network && p != ReadOnly}
	if p == None {
		return s, nil
	}
	for _, h := range roots.Hidden {
		if !filepath.IsAbs(h) || filepath.Clean(h) != h || h == "/" {
			return Spec{}, fmt.Errorf("sandbox: hidden path %q is not a clean absolute path below /", h)
		}
		if !slices.Contains(s.Hidden, h) {
			s.Hidden = append(s.Hidden, h)
		}
	}
	if p == ReadOnly {
		r, err := readConfinement(roots)
		if err != nil {
			return Spec{}, err
		}
		s.Readable = r
	}
	if p != WorkspaceWrite {
		return s, nil
	}
	add := func(dir string, mustExist bool) error {
		if !filepath.IsAbs(dir) {
			return fmt.Errorf("sandbox: writable path %q is not absolute", dir)
		}
		real, err := filepath.EvalSymlinks(dir)
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sandbox: writable root: %w", err)
		}
		if !slices.Contains(s.Writable, real) {
			s.Writable = append(s.Writable, real)
		}
		return nil
	}
	if err := add(roots.Workspace, true); err != nil {
		return Spec{}, err
	}
	for _, d := range roots.Additional {
		if err := add(d, true); err != nil {
			return Spec{}, err
		}
	}
	for _, d := range roots.AllowWrite {
		if err := add(d, false); err != nil {
			return Spec{}, err
		}
	}
	protect := func(p string) {
		// One inside a carve-out made before it needs no mount of its own.
		if s.writable(p) && !s.protected(p) {
			s.ReadOnly = append(s.ReadOnly, p)
		}
	}
	for _, root := range s.Writable {
		for _, name := range protectedNames {
			for _, p := range carveOuts(filepath.Join(root, name), roots) {
				protect(p)
			}
		}
	}
	for _, p := range roots.Protected {
		if filepath.IsAbs(p) && filepath.Clean(p) == p {
			protect(p)
		}
	}
	return s, nil
}

// GitHooks returns what keeping the .git at dotgit read-only protects
// (carveOuts): it, the git directory a .git file leads to and the hooks
// git runs from the repository, wherever links and core.hooksPath put
// them. perm.Policy.Code holds them too: the Write and Edit tools, which
// no sandbox confines, must not change a hook the user's next git command
// runs.
func GitHooks(dotgit string, roots Roots) []string { return carveOuts(dotgit, roots) }

// carveOuts returns the existing, symlink-resolved paths that protecting
// path means: path itself and, when it is a file with a "gitdir:" line,
// the git directory it names and that directory's common directory; for a
// .git, also the hooks git runs from it (gitHooks).
func carveOuts(path string, roots Roots) []string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	out := []string{real}
	if filepath.Base(path) != ".git" {
		return out
	}
	fi, err := os.Stat(real)
	if err != nil {
		return out
	}
	gitdir, common := real, real
	if fi.Mode().IsRegular() {
		g := pointer(real, gitconfig.GitDir)
		if g == "" {
			return out
		}
		if g, err = filepath.EvalSymlinks(g); err != nil {
			return out
		}
		out = append(out, g)
		gitdir, common = g, g
		if c := pointer(filepath.Join(g, "commondir"), gitconfig.CommonDir); c != "" {
			if c, err := filepath.EvalSymlinks(c); err == nil {
				out = append(out, c)
				common = c
			}
		}
	}
	return append(out, gitHooks(filepath.Dir(path), gitdir, common, roots)...)
}

// maxHookEntries bounds the entries of a hooks directory gitHooks looks at.
const maxHookEntries = 256

// gitHooks returns the existing, symlink-resolved hooks of the repository
// whose work tree is worktree (git directory gitdir, common directory
// common): the hooks directory, common's "hooks" and every core.hooksPath
// a configuration file git may read names (the repository's, its
// worktree's, the global and the system one, with what they include; each
// value counts, not only the one git would pick), relative ones against
// the work tree as git takes them; and the files the links in those
// directories lead to. A hook runs outside the sandbox at the user's next
// git command, so where a link or core.hooksPath puts one in a writable
// root (a ".husky" directory, "ln -s ../../scripts/pre-commit
// .git/hooks"), it stays read-only like .git itself.
func gitHooks(worktree, gitdir, common string, roots Roots) []string {
	xdg, global := roots.ConfigHome, roots.GitConfig
	var files []string
	for _, f := range []string{filepath.Join(common, "config"), filepath.Join(gitdir, "config.worktree"), "/etc/gitconfig"} {
		files = gitIncludes(append(files, f), f, roots.Home, 0)
	}
	if roots.Home != "" {
		if xdg == "" || !filepath.IsAbs(xdg) {
			xdg = filepath.Join(roots.Home, ".config")
		}
		if global == "" || !filepath.IsAbs(global) {
			global = filepath.Join(roots.Home, ".gitconfig")
		}
		for _, f := range []string{global, filepath.Join(xdg, "git", "config")} {
			files = gitIncludes(append(files, f), f, roots.Home, 0)
		}
	}
	dirs := []string{filepath.Join(common, "hooks")}
	for _, f := range files {
		for name, p := range gitEntries(f) {
			if name != "core.hookspath" || p == "" {
				continue
			}
			p, ok := gitconfig.ExpandPath(p, roots.Home)
			switch {
			case !ok:
				continue
			case !filepath.IsAbs(p):
				p = filepath.Join(worktree, p)
			}
			dirs = append(dirs, p)
		}
	}
	var out []string
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		out = append(out, real)
		// Opened without blocking: a named pipe where a hooks directory
		// is looked for (a hooks entry in a git directory that a .git file
		// in a writable root leads to) would otherwise stop gen for good,
		// waiting for a writer; reading it as a directory then fails.
		f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		entries, _ := f.ReadDir(maxHookEntries)
		f.Close()
		for _, e := range entries {
			if e.Type()&os.ModeSymlink == 0 {
				continue
			}
			if t, err := filepath.EvalSymlinks(filepath.Join(real, e.Name())); err == nil {
				out = append(out, t)
			}
		}
	}
	return out
}

// pointer reads the small file at path and returns the path that name
// (gitconfig.GitDir or gitconfig.CommonDir) makes of its text, joined to
// the file's directory as the kernel resolves it; "" if none. It must be
// a regular file (textfile.Read): a command in a writable root can write
// a .git file whose git directory's commondir is a named pipe, and
// reading that waited for a writer forever, at every later policy gen
// built.
func pointer(path string, name func(string) (string, bool)) string {
	data, err := textfile.Read(path, 4096)
	if err != nil {
		return ""
	}
	p, ok := name(string(data))
	switch {
	case !ok:
		return ""
	case !filepath.IsAbs(p):
		// Not cleaned: a ".." after a link leads where the link does.
		p = filepath.Dir(path) + "/" + p
	}
	return p
}

// pins returns the directories the helper mounts over themselves before
// it covers Hidden and ReadOnly paths: every directory between a writable
// root and a covered path inside it, outermost first. A directory that
// holds a mount can still be renamed, taking the mount with it, so that
// mv scripts s2 && mkdir scripts would put a writable file where a
// protected one was; a mount point cannot be renamed or removed (EBUSY),
// yet stays writable. A writable root inside another one is pinned too.
func (s Spec) pins() []string {
	var out []string
	for _, p := range slices.Concat(s.Hidden, s.ReadOnly) {
		// The outermost writable root holding p: the roots' own
		// parents are not writable.
		root := ""
		for _, w := range s.Writable {
			if w != p && within(w, p) && (root == "" || len(w) < len(root)) {
				root = w
			}
		}
		if root == "" {
			continue
		}
		for d := filepath.Dir(p); d != root && within(root, d); d = filepath.Dir(d) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	// Outermost first: a pin made after one inside it would bind the
	// directory again without it (the helper binds recursively anyway).
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), strings.Compare(a, b))
	})
	return out
}

// writable reports whether path lies under one of s's writable roots.
func (s Spec) writable(path string) bool {
	return slices.ContainsFunc(s.Writable, func(root string) bool { return within(root, path) })
}

// protected reports whether path lies under one of s's carve-outs.
func (s Spec) protected(path string) bool {
	return slices.ContainsFunc(s.ReadOnly, func(ro string) bool { return within(ro, path) })
}

// within reports whether path is root or below it; both must be clean.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// validate checks what the helper relies on: a known profile and clean
// absolute paths, carve-outs only inside writable roots.
func (s Spec) validate() error {
	if _, err := ParseProfile(string(s.Profile)); err != nil {
		return err
	}
	paths := append([]string{s.Cwd}, s.Writable...)
	paths = append(paths, s.ReadOnly...)
	paths = append(paths, s.Hidden...)
	paths = append(paths, s.Readable...)
	for _, p := range paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return fmt.Errorf("path %q is not clean and absolute", p)
		}
	}
	if slices.Contains(s.Hidden, "/") {
		return errors.New("the root directory cannot be hidden")
	}
	if s.Profile == None && len(s.Hidden) > 0 {
		return errors.New("profile none hides nothing")
	}
	if s.Profile != WorkspaceWrite && len(s.Writable) > 0 {
		return fmt.Errorf("profile %s has writable roots", s.Profile)
	}
	if s.Profile != ReadOnly && len(s.Readable) > 0 {
		return errNotReadOnly
	}
	if s.Profile == ReadOnly && s.Network {
		return errors.New("profile read-only cannot have network")
	}
	for _, ro := range s.ReadOnly {
		if !s.writable(ro) {
			return fmt.Errorf("read-only path %q is outside the writable roots", ro)
		}
	}
	return nil
}
