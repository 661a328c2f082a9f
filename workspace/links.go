package workspace

import (
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
// the open would fail with ELOOP.
func FollowLinks(p string) string {
	cur := "/"
	rest := strings.Split(p, "/")
	hops := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		dest, err := os.Readlink(next)
		if err != nil || hops >= maxLinks {
			cur = next
			continue
		}
		hops++
		if filepath.IsAbs(dest) {
			cur = "/"
		}
		// The link's target replaces the link: resolve its components
		// before the rest of the path.
		rest = append(strings.Split(dest, "/"), rest...)
	}
	return cur
}
