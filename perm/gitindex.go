package perm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Submodules. git status, git diff and friends run git in every submodule
// the index records (a gitlink, mode 0160000) whose directory holds a
// repository, and that git reads the submodule's own configuration: a
// filter or a pager there runs as surely as one in the top repository's.
// So a git command is read-only only if every such submodule's
// configuration is verified too (gitRepoCode), recursively.

// gitIndex is what the gate needs of a repository's index: the paths of
// its gitlinks, or why it cannot tell.
type gitIndex struct {
	links  []string
	unread string // why the index could not be read, or ""
}

// maxGitIndex bounds the index files read: git status in a larger one is
// not judged read-only. maxCachedIndex bounds those kept across calls.
const (
	maxGitIndex    = 256 << 20
	maxCachedIndex = 16 << 20
	maxGitIndexes  = 32
)

// gitIndexes caches read index files across calls, while unchanged.
var gitIndexes = &fileCache[gitIndex]{max: maxGitIndexes, maxSize: maxCachedIndex, read: readGitIndex}

func readGitIndex(f string) gitIndex {
	b, err := readRegular(f, maxGitIndex)
	switch {
	case os.IsNotExist(err):
		return gitIndex{} // no index: nothing is tracked yet
	case err != nil:
		return gitIndex{unread: "unreadable index " + f}
	}
	links, err := gitlinks(b)
	if err != nil {
		return gitIndex{unread: "index " + f + ": " + err.Error()}
	}
	return gitIndex{links: links}
}

// gitlinks returns the paths of the gitlink entries of the git index b
// (versions 2 to 4, SHA-1 or SHA-256 object names). An index whose
// entries live partly elsewhere (a split index) or name directories (a
// sparse index), or that does not parse, is an error: its gitlinks are
// not known.
func gitlinks(b []byte) ([]string, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, errors.New("not a git index")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return nil, errors.New("unknown index version")
	}
	n := binary.BigEndian.Uint32(b[8:12])
	var firstErr error
	for _, hashLen := range []int{20, 32} {
		links, err := indexEntries(b, version, n, hashLen)
		if err == nil {
			return links, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// indexEntries reads the n entries and then the extensions of index b
// with object names of hashLen bytes; the checksum that ends the file
// must then be all that is left.
func indexEntries(b []byte, version, n uint32, hashLen int) ([]string, error) {
	errBad := errors.New("malformed index")
	var links []string
	off, prev := 12, ""
	for range n {
		fixed := 40 + hashLen + 2
		if off+fixed > len(b) {
			return nil, errBad
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+40+hashLen:])
		start := off + fixed
		if flags&0x4000 != 0 { // extended flags follow (version 3 and later)
			if version < 3 {
				return nil, errBad
			}
			start += 2
		}
		var path string
		if version == 4 {
			// The path is the previous one less its last N bytes
			// (a varint), then a NUL-terminated suffix; no padding.
			strip, k := gitVarint(b[start:])
			if k <= 0 || strip > uint64(len(prev)) {
				return nil, errBad
			}
			end := bytes.IndexByte(b[start+k:], 0)
			if end < 0 {
				return nil, errBad
			}
			path = prev[:len(prev)-int(strip)] + string(b[start+k:start+k+end])
			off = start + k + end + 1
		} else {
			end := bytes.IndexByte(b[start:], 0)
			if end < 0 {
				return nil, errBad
			}
			if l := int(flags & 0xfff); l < 0xfff && l != end {
				return nil, errBad
			}
			path = string(b[start : start+end])
			// The entry is padded with 1 to 8 NULs to a multiple of 8.
			off += (start - off + end + 8) &^ 7
			if off > len(b) {
				return nil, errBad
			}
		}
		if mode>>12 == 0o16 { // 0160000: a gitlink
			links = append(links, path)
		}
		prev = path
	}
	// Extensions: a 4-byte signature and a 4-byte length each, then the
	// checksum of hashLen bytes.
	for len(b)-off > hashLen {
		if off+8 > len(b) {
			return nil, errBad
		}
		sig, size := string(b[off:off+4]), int(binary.BigEndian.Uint32(b[off+4:off+8]))
		switch sig {
		case "link":
			return nil, errors.New("split index: entries are in another file")
		case "sdir":
			return nil, errors.New("sparse index: directories hold unlisted entries")
		}
		off += 8 + size
	}
	if len(b)-off != hashLen {
		return nil, errBad
	}
	return links, nil
}

// gitVarint decodes the variable-length integer git writes in version 4
// indexes (varint.c: big-endian groups of 7 bits, each continuation
// adding one), returning it and the bytes it took; 0 bytes if b does not
// hold one.
func gitVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		if i > 0 {
			v++
		}
		v = v<<7 | uint64(b[i]&127)
		if b[i]&128 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// submoduleCode returns why a submodule of the repository whose git
// directory is gitDir and whose work tree is root ("" if not known) could
// make a git command run a program or read elsewhere (repoCode,
// recursively), or "". depth counts the submodules around this one.
func (c *call) submoduleCode(root, gitDir string, depth int) string {
	index := filepath.Join(gitDir, "index")
	if ok, _ := c.stat(index); !ok {
		return "" // nothing tracked yet
	}
	idx := gitIndexes.load(index)
	switch {
	case idx.unread != "":
		return idx.unread
	case len(idx.links) == 0:
		return ""
	case root == "":
		return "the work tree of " + gitDir + ", which has submodules, is not known"
	case depth >= maxSubmoduleDepth:
		return "submodules of " + gitDir + " nest too deeply to check"
	}
	for _, p := range idx.links {
		if strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") {
			return "index entry " + p + " leaves the work tree"
		}
		dir := filepath.Join(root, filepath.FromSlash(p))
		sub, why := c.submoduleGitDir(dir)
		switch {
		case why != "":
			return why
		case sub == "":
			continue // not checked out: git does not go there
		}
		if why := c.repoCode(sub, dir, depth+1); why != "" {
			return why + " (submodule " + p + ")"
		}
	}
	return ""
}

// maxSubmoduleDepth bounds the submodules within submodules verified.
const maxSubmoduleDepth = 8

// submoduleGitDir returns the git directory of the submodule checked out
// in dir: dir/.git, or where a .git file there points; "" if there is
// none. why says why a .git file could not be followed.
func (c *call) submoduleGitDir(dir string) (gitDir, why string) {
	dotgit := filepath.Join(dir, ".git")
	ok, isDir := c.stat(dotgit)
	switch {
	case !ok:
		return "", ""
	case isDir:
		return dotgit, ""
	}
	if p, ok, _ := c.gitFile(dotgit); ok {
		return p, ""
	}
	return "", "cannot follow " + dotgit + " (unreadable, or no gitdir: line)"
}
