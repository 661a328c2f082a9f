package sandbox

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"

	"github.com/gen-run/gen/internal/gitconfig"
	"github.com/gen-run/gen/internal/textfile"
)

// A command the gate allowed because it only reads was checked to read
// nothing outside the workspace. The read-only profile has the kernel hold
// it to the part of that promise that matters most: it cannot read the
// private directories, the user's home and the other home directories
// (where keys, tokens and cloud credentials live) and a container's
// secrets, except the parts of them it is known to need. The rest of the file system (programs,
// libraries, /etc, /proc) stays readable.
//
// Landlock only grants, so "everything but the private directories" is
// spelled as the siblings of every directory on the way down to them
// (readableRoots), plus the parts re-opened inside them.

// privateRoots are the directories holding users' homes, and those
// holding the secrets a container is given: Docker's and Compose's
// /run/secrets, and /var/run/secrets, where Kubernetes mounts a pod's
// service account token (a CI runner's, say). Those that do not exist
// are left out.
var privateRoots = []string{"/home", "/root", "/run/secrets", "/var/run/secrets"}

// devDir is the directory of device files. A read-only command may read
// only readDevices there: not a terminal's input (another shell's
// keystrokes, on /dev/pts), a disk (its owner, root when gen runs as
// root, reads every file on it, the private and hidden ones too),
// another process's shared memory (/dev/shm), a camera or a
// microphone. It is private whether or not there is a home.
var devDir = "/dev"

// readDevices are the devices a read-only command may read: those every
// profile may write, and the kernel's random numbers.
var readDevices = append([]string{"/dev/random", "/dev/urandom"}, devices...)

// maxReadable bounds the Landlock rules of a read confinement: a /home
// with more entries than this is refused rather than half listed.
const maxReadable = 4096

// gitConfigs are the files and directories in home that git reads its
// global configuration from ($GIT_CONFIG_GLOBAL, global, in place of
// ~/.gitconfig where set), and the files they include: a read-only git
// command needs them (git stops at an include it cannot read).
func gitConfigs(home, xdg, global string) []string {
	if xdg == "" || !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	if global == "" || !filepath.IsAbs(global) {
		global = filepath.Join(home, ".gitconfig")
	}
	out := []string{global, filepath.Join(xdg, "git")}
	for _, f := range []string{global, filepath.Join(xdg, "git", "config")} {
		out = gitIncludes(out, f, home, 0)
	}
	return out
}

// Git follows includes at most ten deep; gen re-opens at most
// maxGitIncludes of them.
const (
	maxIncludeDepth = 10
	maxGitIncludes  = 64
)

// gitIncludes appends to out the files the git configuration file
// includes (include.path and includeIf.*.path, whatever the condition),
// and theirs, as git resolves them: "~/" under home, a relative path
// against the including file's directory. A file it cannot read or make
// out adds nothing: git then fails, and the hint names the file.
func gitIncludes(out []string, file, home string, depth int) []string {
	if depth >= maxIncludeDepth {
		return out
	}
	for name, p := range gitEntries(file) {
		if name != "include.path" && name != "includeif.path" || p == "" {
			continue
		}
		p, ok := gitconfig.IncludePath(p, file, home)
		if !ok {
			continue
		}
		if len(out) >= maxGitIncludes || slices.Contains(out, p) {
			continue
		}
		out = gitIncludes(append(out, p), p, home, depth+1)
	}
	return out
}

// gitEntries yields the entries of the git configuration file as git
// reads them (package gitconfig): the name as section.key, without the
// section's subsection (includeif.path for [includeIf "gitdir:~/oss/"]
// path), and the value; those before a line git refuses. A file it
// cannot read, one over 1 MiB, or one that is not a regular file (a named
// pipe would be waited on forever, a link to /dev/zero read without end:
// textfile.Read) yields nothing.
func gitEntries(file string) iter.Seq2[string, string] {
	return func(yield func(name, val string) bool) {
		data, err := textfile.Read(file, 1<<20)
		if err != nil {
			return
		}
		es, _ := gitconfig.Parse(data)
		for _, e := range es {
			if !yield(e.Section+"."+e.Key, e.Value) {
				return
			}
		}
	}
}

// readConfinement returns what a read-only command may read under roots
// (Spec.Readable), or nil when nothing is private: when the workspace
// holds every private directory (the gate's workspace is readable
// throughout).
//
// The private directories are devDir and, with a home, roots.Home and
// privateRoots, symlinks resolved. Re-opened inside them are the
// workspace roots, the working directory, the additional directories,
// readDevices, roots.Reads (PATH entries, sandbox.filesystem.allowRead)
// and git's global configuration, each resolved; a symbolic link found on
// the way down is not followed, so it cannot lead into a private
// directory.
func readConfinement(roots Roots) ([]string, error) {
	if roots.Home != "" && !filepath.IsAbs(roots.Home) {
		return nil, fmt.Errorf("sandbox: home %q is not an absolute path", roots.Home)
	}
	var open []string
	for _, p := range slices.Concat([]string{roots.Workspace, roots.Cwd}, roots.Additional) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			open = append(open, r)
		}
	}
	candidates := []string{devDir}
	if roots.Home != "" {
		candidates = append(candidates, roots.Home)
		candidates = append(candidates, privateRoots...)
	}
	var private []string
	for _, p := range candidates {
		r, err := filepath.EvalSymlinks(p)
		if err != nil || r == "/" {
			continue
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			continue
		}
		if !slices.ContainsFunc(open, func(o string) bool { return within(o, r) }) {
			private = append(private, r) // unless the workspace holds it
		}
	}
	private = outermost(private)
	if len(private) == 0 {
		return nil, nil
	}
	reads := slices.Concat(readDevices, roots.Reads)
	if roots.Home != "" {
		reads = append(reads, gitConfigs(roots.Home, roots.ConfigHome, roots.GitConfig)...)
	}
	for _, p := range reads {
		if !filepath.IsAbs(p) {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			open = append(open, r)
		}
	}
	var out []string
	if err := coverBut(&out, "/", private); err != nil {
		return nil, err
	}
	for _, o := range open {
		if slices.ContainsFunc(private, func(p string) bool { return within(p, o) }) && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if len(out) > maxReadable {
		return nil, fmt.Errorf("sandbox: confining reads needs %d rules, more than %d", len(out), maxReadable)
	}
	return out, nil
}

// outermost returns the paths of ps that lie in no other one.
func outermost(ps []string) []string {
	var out []string
	for i, p := range ps {
		inner := slices.ContainsFunc(ps, func(q string) bool { return q != p && within(q, p) }) || slices.Contains(ps[:i], p)
		if !inner {
			out = append(out, p)
		}
	}
	return out
}

// coverBut appends to out the entries of dir that hold none of private,
// and descends into those that hold one without being it. Symbolic links
// are left out: what they lead to is covered, or not, where it is.
func coverBut(out *[]string, dir string, private []string) error {
	entries, err := textfile.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("sandbox: listing %s to confine reads: %w", dir, err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0, slices.Contains(private, p):
			continue
		case slices.ContainsFunc(private, func(q string) bool { return within(p, q) }):
			if !e.IsDir() {
				return fmt.Errorf("sandbox: %s holds a private directory but is not a directory", p)
			}
			if err := coverBut(out, p, private); err != nil {
				return err
			}
		default:
			*out = append(*out, p)
		}
		if len(*out) > maxReadable {
			return fmt.Errorf("sandbox: confining reads needs more than %d rules", maxReadable)
		}
	}
	return nil
}

// withoutHidden returns readable (Spec.Readable; empty is the whole file
// system) without the hidden paths: each entry holding one is replaced by
// what coverBut leaves of it. Landlock then keeps them unreadable where no
// mount can cover them (no user namespaces).
func withoutHidden(readable, hidden []string) ([]string, error) {
	if len(readable) == 0 {
		readable = []string{"/"}
	}
	var out []string
	for _, r := range readable {
		var inner []string
		for _, h := range hidden {
			if within(r, h) {
				inner = append(inner, h)
			}
		}
		switch {
		case slices.ContainsFunc(hidden, func(h string) bool { return within(h, r) }):
			// r is hidden, or lies in a hidden directory.
		case len(inner) == 0:
			out = append(out, r)
		default:
			if err := coverBut(&out, r, outermost(inner)); err != nil {
				return nil, err
			}
		}
	}
	if len(out) > maxReadable {
		return nil, fmt.Errorf("sandbox: hiding the denied paths needs %d rules, more than %d", len(out), maxReadable)
	}
	return out, nil
}

// readable reports whether a read-only command under s may read path:
// every path where s has no read confinement.
func (s Spec) readable(path string) bool {
	if len(s.Readable) == 0 {
		return true
	}
	return slices.ContainsFunc(s.Readable, func(r string) bool { return within(r, path) }) ||
		slices.ContainsFunc(devices, func(d string) bool { return d == path })
}

// devices are the device files every profile may read and write.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// errNotReadOnly is validate's complaint about a read confinement on a
// profile that does not take one.
var errNotReadOnly = errors.New("only the read-only profile confines reads")
