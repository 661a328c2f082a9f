package perm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestGitConfigFIFO: a repository configuration that would never end (a
// FIFO) is not read: the decision does not hang, git is not read-only and
// its aliases count as unknown shell code.
func TestGitConfigFIFO(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(f.root+"/.git/config", 0o644); err != nil {
		t.Skip(err)
	}
	p := &Policy{Mode: ModeBypass, Workspace: f.ws()}
	r := Evaluate(bashReq("git status"), p)
	if r.Decision != Ask || !strings.Contains(r.Reason, "cannot be read") {
		t.Fatalf("git status with a FIFO config: %v (%s)", r.Decision, r.Reason)
	}
}

// TestListed: a Resolver answers lstat from a directory's listing only
// where the listing is sure to agree with lstat; links, names that match
// an entry ignoring case, and directories it cannot trust are looked up
// one by one.
func TestListed(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"file", "Mixed.md", "lower"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "Link")); err != nil {
		t.Fatal(err)
	}
	if _, ok := openListing(dir); !ok {
		t.Skipf("%s is on a file system listings are not trusted on", dir)
	}
	c := &call{resolver: NewResolver(0)}
	for name, want := range map[string]struct {
		v  fsVal
		ok bool
	}{
		"file":     {fsVal{exists: true}, true},
		"sub":      {fsVal{exists: true, dir: true}, true},
		"absent":   {fsVal{}, true},
		"Link":     {fsVal{}, false}, // a link: lstat reads it
		"link":     {fsVal{}, false}, // Link, on a case-insensitive file system
		"LINK":     {fsVal{}, false},
		"mixed.md": {fsVal{}, false},
		"LOWER":    {fsVal{}, false},
		"FILE2":    {fsVal{}, true}, // no entry is file2 in any case
		".":        {fsVal{}, false},
		"..":       {fsVal{}, false},
		"é":        {fsVal{}, false},
	} {
		v, ok := c.listed(dir + "/" + name)
		if ok != want.ok || ok && v != want.v {
			t.Errorf("listed(%s): %+v, %v; want %+v, %v", name, v, ok, want.v, want.ok)
		}
		// Whatever the listing answers, lstat agrees.
		if ok {
			_, err := os.Lstat(dir + "/" + name)
			if v.exists != (err == nil) {
				t.Errorf("%s: listing says exists=%v, lstat %v", name, v.exists, err)
			}
		}
	}
	if _, ok := c.listed(dir + "/"); ok {
		t.Error("a path ending in / was answered from a listing")
	}
}

// TestListDirRefuses: a directory with a non-ASCII name, one larger than
// maxListed, one that cannot be read, /proc (which does not list threads)
// and a FIFO are not listed, and nothing waits.
func TestListDirRefuses(t *testing.T) {
	base := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	unicode := mk("unicode")
	if err := os.WriteFile(filepath.Join(unicode, "K\u212a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	big := mk("big")
	for i := range maxListed + 1 {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full := mk("full")
	for i := range maxListed {
		if err := os.WriteFile(filepath.Join(full, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	closed := mk("closed")
	if err := os.Chmod(closed, 0o311); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	fifo := filepath.Join(base, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := openListing(base); !ok {
		t.Skipf("%s is on a file system listings are not trusted on", base)
	}
	for _, d := range []string{unicode, big, fifo, "/proc", "/proc/self"} {
		if v := listDir(d); v.names != nil {
			t.Errorf("%s was listed (%d names)", d, len(v.names.kinds))
		}
	}
	if os.Geteuid() != 0 {
		if v := listDir(closed); v.names != nil {
			t.Errorf("%s (mode 0311) was listed", closed)
		}
	}
	if v := listDir(full); v.names == nil || len(v.names.kinds) != maxListed {
		t.Errorf("a directory of %d entries: %+v, want it listed", maxListed, v.names)
	}
}
