package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// followLinksRef is FollowLinksWith as first written, one string per
// component: quadratic in the path's length, and the reference the
// linear one is checked against.
func followLinksRef(p string, link LinkFunc) string {
	if p == "" {
		return ""
	}
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
		next := cur + "/" + part
		if cur == "/" {
			next = "/" + part
		}
		dest, ok := link(next)
		if !ok || hops >= maxLinks {
			cur = next
			continue
		}
		hops++
		if filepath.IsAbs(dest) {
			cur = "/"
		}
		rest = append(strings.Split(dest, "/"), rest...)
	}
	return cur
}

// fakeLinks is a file system of links only, and the links it was asked
// about.
func fakeLinks(asked *[]string) LinkFunc {
	links := map[string]string{
		"/l": "/t", "/a/rel": "../b", "/a/abs": "/c/d", "/loop": "/loop", "/a/b/up": "..",
		"/x/y": "z/w", "/dang": "/nowhere/file", "/c/d/e": "../../a/rel",
	}
	return func(p string) (string, bool) {
		*asked = append(*asked, p)
		d, ok := links[p]
		return d, ok
	}
}

// FuzzFollowLinks checks the linear FollowLinksWith against the
// reference over links relative, absolute, chained, looping and dangling,
// and ".." after each: the same path, asking only what the reference
// asks, and never about a prefix of PathMax bytes or more.
func FuzzFollowLinks(f *testing.F) {
	for _, s := range []string{"/", "/l", "/l/x", "/a/rel/x", "/a/abs/e/f", "/loop/x", "/a/b/up/../rel", "/x/y/..",
		"/dang", "/a/./b//c/../..", "/..", "/../l", "a/b", "/c/d/e/q", "/a/rel/../../l/" + strings.Repeat("n/", 2100) + "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		var gotAsked, wantAsked []string
		got := FollowLinksWith(p, fakeLinks(&gotAsked))
		want := followLinksRef(p, fakeLinks(&wantAsked))
		if got != want {
			t.Fatalf("FollowLinksWith(%q) = %q, want %q", p, got, want)
		}
		// It asks only what the reference asks, in the same order, and
		// never about a prefix that names nothing.
		k := 0
		for _, q := range gotAsked {
			if len(q) >= PathMax {
				t.Fatalf("FollowLinksWith(%q) asked about a prefix of %d bytes", p, len(q))
			}
			for k < len(wantAsked) && wantAsked[k] != q {
				k++
			}
			if k == len(wantAsked) {
				t.Fatalf("FollowLinksWith(%q) asked about %q, which the reference did not (or not then)", p, q)
			}
			k++
		}
	})
}

// TestFollowLinksLinear: a path of a million components, none of them a
// link, is resolved asking only about its prefixes shorter than PathMax.
func TestFollowLinksLinear(t *testing.T) {
	p := strings.Repeat("/a", 1_000_000)
	var asked []string
	got := FollowLinksWith(p, fakeLinks(&asked))
	if got != p {
		t.Fatalf("a path without links resolved to %d bytes, want %d", len(got), len(p))
	}
	if len(asked) != PathMax/2-1 {
		t.Fatalf("asked about %d prefixes, want %d (those shorter than %d bytes)", len(asked), PathMax/2-1, PathMax)
	}
}

// TestRegularFile: a regular file by its real path, through a link too;
// not a directory, a missing path or a relative one.
func TestRegularFile(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{f: f, filepath.Join(dir, "link"): f, dir: "", filepath.Join(dir, "missing"): "", "f": ""} {
		if got, ok := RegularFile(p); got != want || ok != (want != "") {
			t.Errorf("RegularFile(%q) = %q, %v; want %q", p, got, ok, want)
		}
	}
}

// TestDanglingLink: the link that makes a path name nothing, whether it
// is the path itself or a directory above it; "" for a path that is
// simply missing or that exists.
func TestDanglingLink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"dead": "nowhere", "deaddir": "gone/x", "live": "real", "chain": "dead"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"dead":           "dead",
		"deaddir/agents": "deaddir",
		"chain":          "chain",
		"chain/a/b":      "chain",
		"live":           "",
		"live/missing":   "",
		"real/missing/x": "",
		"missing":        "",
		"missing/dead":   "",
	} {
		want := map[bool]string{true: filepath.Join(dir, want), false: ""}[want != ""]
		if got := DanglingLink(filepath.Join(dir, p)); got != want {
			t.Errorf("DanglingLink(%s) = %q, want %q", p, got, want)
		}
	}
}
