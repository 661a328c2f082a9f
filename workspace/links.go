package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel's ELOOP limit does.
const maxLinks = 40

// FollowLinks resolves the absolute path p the way the kernel does when a
// program opens it for writing (O_CREAT follows links): component by
// component, a ".." applying to where the previous component led, and every
// symlink followed — a dangling one too. A dangling link resolves to where
// its target would be created, never to the link itself: `echo x > link`
// with link → ~/.zshenv writes ~/.zshenv. Components that do not exist are
// kept as named. After maxLinks links the path is returned as far as it got;
// the open would fail with ELOOP. The empty path names no file (open("")
// fails with ENOENT) and resolves to "", not to "/".
func FollowLinks(p string) string { return FollowLinksWith(p, Readlink) }

// LinkFunc reports whether p is a symbolic link and, if so, its target as
// os.Readlink returns it. A path that cannot be examined is not a link.
type LinkFunc func(p string) (dest string, isLink bool)

// Readlink is the LinkFunc that asks the file system (lstat, then
// readlink for a link).
func Readlink(p string) (string, bool) {
	if ForeignProc(p) {
		return "", false // followed in another namespace (ForeignProc)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	dest, err := os.Readlink(p)
	if err != nil {
		return "", false
	}
	return dest, true
}

// FollowLinksWith is FollowLinks asking link about each component, so a
// caller may answer from what it already knows (perm's batch cache). It is
// linear in the length of p: the path resolved so far is one buffer, and a
// prefix of PathMax bytes or more, which names nothing to the kernel
// (ENAMETOOLONG), is not asked about. Until a link is followed, and while
// p is clean, the path resolved so far is a prefix of p: link is asked
// about that slice of p, and it is what is returned, with no copy made
// (link must copy a path it keeps).
func FollowLinksWith(p string, link LinkFunc) string {
	if p == "" {
		return ""
	}
	var short [256]byte // most paths: no allocation for cur
	cur := short[:0]
	if len(p) >= len(short) {
		cur = make([]byte, 0, min(len(p), PathMax)+1)
	}
	cur = append(cur, '/')
	// inP reports that cur is p[:len(cur)].
	inP := p[0] == '/'
	// rest is what is left to resolve, taken a component at a time
	// (empty ones, between repeated separators, are skipped); until a
	// link is followed it is a suffix of p.
	rest := p
	hops := 0
	for rest != "" {
		at := len(p) - len(rest) // where part is in p, while hops is 0
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		switch part {
		case "", ".":
			continue
		case "..":
			// cur is clean: its parent is cut at its last "/".
			cur = cur[:max(bytes.LastIndexByte(cur, '/'), 1)]
			inP = false
			continue
		}
		// cur is clean and part a plain name: joining needs no cleaning.
		parent := len(cur)
		if parent > 1 {
			cur = append(cur, '/')
		}
		cur = append(cur, part...)
		// cur is still p's prefix if part came right after it in p.
		inP = inP && hops == 0 && at == len(cur)-len(part)
		if len(cur) >= PathMax || hops >= maxLinks {
			continue
		}
		var q string
		if inP {
			q = p[:len(cur)]
		} else {
			q = string(cur)
		}
		dest, ok := link(q)
		if !ok {
			continue
		}
		hops++
		inP = false
		// The link's target replaces the link: resolve its components
		// before the rest of the path.
		cur = cur[:parent]
		if filepath.IsAbs(dest) {
			cur = cur[:1]
		}
		rest = dest + "/" + rest
	}
	if inP {
		return p[:len(cur)]
	}
	return string(cur)
}

// PathMax is Linux's PATH_MAX, which counts the terminating NUL: a path
// of PathMax bytes or more names nothing (lstat fails with ENAMETOOLONG),
// so it is no link. Elsewhere the limit is lower (macOS: 1,024), and lstat
// answers the lengths between for itself.
const PathMax = 4096

// RegularFile returns the path of the regular file the absolute path p
// names, with its symbolic links resolved, and true; false when p is
// relative or names no regular file.
func RegularFile(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	return real, err == nil
}

// DanglingLink returns the symbolic link that makes the absolute path p
// name nothing: p itself or the nearest directory above it that is a
// link whose target does not exist; "" when p exists or is simply
// missing (no link on the way is dangling). A configuration file or
// directory that is such a link is an error to its reader, never "none
// configured": its rules or agents would silently vanish.
func DanglingLink(p string) string {
	for q := filepath.Clean(p); ; q = filepath.Dir(q) {
		fi, err := os.Lstat(q)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Missing: the link, if any, is above.
		case err != nil:
			return ""
		case fi.Mode()&fs.ModeSymlink == 0:
			return "" // q exists, and so does everything above it
		default:
			if _, err := os.Stat(q); errors.Is(err, fs.ErrNotExist) {
				return q
			}
			return ""
		}
		if parent := filepath.Dir(q); parent == q {
			return ""
		}
	}
}

// ForeignProc reports whether p is, or lies below, a link of /proc that
// leads into a process's own view of the file system — /proc/PID/root,
// cwd, exe, fd/N or map_files/X, also under task/TID — of a process whose
// mount namespace is not this process's, or cannot be told. Such a link
// reads like a path here ("/" for root) but is followed in the other
// namespace, where a bind mount may put any file at any path: no path
// below it names the file it looks like. Not such a link: /proc/self and
// the processes that share this process's mounts.
func ForeignProc(p string) bool {
	pid, entry, sub, ok := ProcLink(p)
	switch {
	case !ok || pid == "self" || pid == "thread-self":
		return false
	case (entry == "fd" || entry == "map_files") && sub == "":
		return false // the directory itself
	}
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return true
	}
	other, err := os.Readlink("/proc/" + pid + "/ns/mnt")
	return err != nil || other != self
}

// ProcLink splits the clean absolute path p where it is, or lies below, a
// process's link under /proc: /proc/PID/ENTRY[/SUB] or
// /proc/PID/task/TID/ENTRY[/SUB], where PID is self, thread-self or a
// number and ENTRY is root, cwd, exe, fd or map_files (fd and map_files
// are directories of links). ok is false for any other path.
func ProcLink(p string) (pid, entry, sub string, ok bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return "", "", "", false
	}
	pid, rest, _ = strings.Cut(rest, "/")
	if pid != "self" && pid != "thread-self" && !digits(pid) {
		return "", "", "", false
	}
	if t, ok := strings.CutPrefix(rest, "task/"); ok {
		tid, r, _ := strings.Cut(t, "/")
		if !digits(tid) {
			return "", "", "", false
		}
		rest = r
	}
	entry, sub, _ = strings.Cut(rest, "/")
	switch entry {
	case "root", "cwd", "exe", "fd", "map_files":
		return pid, entry, sub, true
	}
	return "", "", "", false
}

// digits reports whether s is a non-empty string of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
