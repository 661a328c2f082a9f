package perm

import (
	"os"
	"path/filepath"
	"strings"
)

// readers are programs that read the files their arguments name: a
// non-static argument to one of them cannot be checked against Read deny
// rules.
var readers = map[string]bool{
	"cat": true, "tac": true, "head": true, "tail": true, "less": true, "more": true, "nl": true, "od": true,
	"xxd": true, "hexdump": true, "strings": true, "base64": true, "base32": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "ag": true, "ack": true, "sed": true, "awk": true, "gawk": true, "cut": true,
	"sort": true, "uniq": true, "wc": true, "diff": true, "cmp": true, "comm": true, "paste": true, "join": true,
	"fold": true, "fmt": true, "jq": true, "yq": true, "file": true, "md5sum": true, "sha1sum": true,
	"sha256sum": true, "sha512sum": true, "cp": true, "mv": true, "tar": true, "zip": true, "gzip": true,
	"zcat": true, "bzip2": true, "xz": true, "scp": true, "rsync": true, "source": true, ".": true,
	"curl": true, "openssl": true, "gpg": true, "iconv": true, "tr": true, "xargs": true,
}

// recursion describes a command that reads whole directory trees.
type recursion struct {
	recursive bool // grep -r, rg, ag, ack
	follows   bool // and follows symlinks inside the tree (grep -R, rg -L)
}

// recursionOf inspects a command's allow form (static words only; a
// command without one is never auto-allowed anyway).
func recursionOf(form string) recursion {
	f := strings.Fields(form)
	if len(f) == 0 {
		return recursion{}
	}
	var r recursion
	switch filepath.Base(f[0]) {
	case "grep", "egrep", "fgrep":
		for i, a := range f[1:] {
			switch {
			case a == "--recursive" || a == "--directories=recurse" || (a == "-d" && i+2 < len(f) && f[i+2] == "recurse"):
				r.recursive = true
			case a == "--dereference-recursive":
				r.recursive, r.follows = true, true
			case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
				r.recursive = r.recursive || strings.ContainsAny(a, "rR")
				r.follows = r.follows || strings.Contains(a, "R")
			}
		}
	case "rg", "ag", "ack":
		r.recursive = true
		for _, a := range f[1:] {
			if a == "--follow" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "L")) {
				r.follows = true
			}
		}
	}
	return r
}

// treeRoots are the directories a recursive command reads: its path
// arguments that are directories, or the cwd when it names none.
func (c *call) treeRoots(pt *part) []target {
	var dirs []target
	for _, t := range pt.reads {
		if fi, err := os.Stat(t.real); err == nil && fi.IsDir() {
			dirs = append(dirs, t)
		}
	}
	if len(pt.reads) == 0 {
		for _, b := range c.bases {
			dirs = append(dirs, c.target(b))
		}
	}
	return dirs
}

// mayCover reports whether a path pattern could match something inside
// dir: a basename pattern could be anywhere; an absolute one if its
// literal directory lies inside dir, or dir inside it.
func (pp pathPattern) mayCover(dir string) bool {
	d := strings.TrimSuffix(dir, "/") + "/"
	return pp.base || strings.HasPrefix(pp.dir, d) || strings.HasPrefix(d, pp.dir)
}
