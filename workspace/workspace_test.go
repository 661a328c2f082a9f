package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/linktest"
)

func TestAbs(t *testing.T) {
	r := Roots{Cwd: "/p/sub", Root: "/p", Home: "/h"}
	for in, want := range map[string]string{
		"a.txt": "/p/sub/a.txt", "../x": "/p/x", "~": "/h", "~/.ssh/k": "/h/.ssh/k",
		"~user/x": "/p/sub/~user/x", "/etc//passwd": "/etc/passwd",
	} {
		if got := r.Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
	if got := r.Raw("link/../x"); got != "/p/sub/link/../x" {
		t.Errorf("Raw = %q", got)
	}
	if _, err := Dir("", "/b", "/h"); err == nil {
		t.Error("Dir(\"\") succeeded")
	}
	if got, _ := Dir("~/d", "/b", "/h"); got != "/h/d" {
		t.Errorf("Dir(~/d) = %q", got)
	}
}

func TestGlobStart(t *testing.T) {
	tests := []struct{ pattern, search, dir, rest string }{
		{"**/*.go", "/p", "/p", "**/*.go"},
		{"src/**/*.go", "/p", "/p/src", "**/*.go"},
		{`\*/../../x/*`, "/p/a", "/p/x", "*"},
		{"/etc/*.conf", "/p", "/etc", "*.conf"},
		{"~/.ssh/*", "/p", "~/.ssh", "*"},
		{"~/*", "/p", "~/.", "*"},
	}
	for _, tt := range tests {
		dir, rest := GlobStart(tt.pattern, tt.search)
		if dir != tt.dir || rest != tt.rest {
			t.Errorf("GlobStart(%q, %q) = %q, %q; want %q, %q", tt.pattern, tt.search, dir, rest, tt.dir, tt.rest)
		}
	}
}

func TestContains(t *testing.T) {
	r := Roots{Cwd: "/nonexistent/p/sub", Root: "/nonexistent/p", Dirs: []string{"/nonexistent/extra"}}
	for p, want := range map[string]bool{
		"/nonexistent/p/x": true, "/nonexistent/extra/y": true, "/nonexistent/pp": false, "/etc/passwd": false,
	} {
		if got := r.Contains(p); got != want {
			t.Errorf("Contains(%q) = %v", p, got)
		}
	}
}

// TestWithinRel checks Within's prefix shortcut against the filepath.Rel
// definition it replaces, on paths built from awkward pieces.
func TestWithinRel(t *testing.T) {
	pieces := []string{"", "/", "a", "ab", "a/", "/a", "/a/b", "/a/b/", "/ab", "/a/./b", "/a/../b", "//a", "/a//b", "..", "/.."}
	viaRel := func(p, dir string) bool {
		if dir == "" {
			return false
		}
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
	}
	for _, x := range pieces {
		for _, y := range pieces {
			for _, z := range pieces {
				p, dir := x+y, y+z
				if got, want := Within(p, dir), viaRel(p, dir); got != want {
					t.Errorf("Within(%q, %q) = %v, want %v", p, dir, got, want)
				}
			}
		}
	}
}

// TestResolve checks that resolved roots see through a link to the
// workspace, and that a copy whose directories changed does not use the
// roots resolved for the original.
func TestResolve(t *testing.T) {
	base, real, extra, link := linktest.Dirs(t, "real", "extra", "link")
	r := Roots{Cwd: link, Root: link, Home: base}
	for _, rs := range []Roots{r, r.Resolve(), r.Deferred()} {
		if !rs.Contains(real+"/x") || rs.Contains(extra+"/x") {
			t.Errorf("Contains through the link wrong for %+v", rs)
		}
	}
	moved := r.Resolve()
	moved.Dirs = []string{extra}
	if !moved.Contains(extra + "/x") {
		t.Error("a copy with another directory used the original's resolved roots")
	}
	moved.Cwd, moved.Root = extra, extra
	if moved.Contains(real + "/x") {
		t.Error("a copy with another cwd still contains the original's real cwd")
	}
}

func TestResolveFrom(t *testing.T) {
	r := Roots{Cwd: "/nonexistent/a", Root: "/nonexistent/a", Dirs: []string{"/nonexistent/d"}}.Resolve()
	same := Roots{Cwd: "/nonexistent/a", Root: "/nonexistent/a", Dirs: []string{"/nonexistent/d"}}.ResolveFrom(r)
	if same.real != r.real {
		t.Error("ResolveFrom did not reuse the roots resolved for the same directories")
	}
	other := Roots{Cwd: "/nonexistent/b", Root: "/nonexistent/b"}.ResolveFrom(r)
	if other.real == r.real || !other.resolved() {
		t.Error("ResolveFrom reused roots resolved for other directories")
	}
}

// Clean and Abs against the filepath definitions they shortcut.
func checkClean(t *testing.T, p, dir string) {
	t.Helper()
	if got, want := Clean(p), filepath.Clean(p); got != want {
		t.Errorf("Clean(%q) = %q, want %q", p, got, want)
	}
	// The shortcut takes every clean absolute path, not only some.
	if got, want := cleanAbs(p), filepath.IsAbs(p) && filepath.Clean(p) == p; got != want {
		t.Errorf("cleanAbs(%q) = %v, want %v", p, got, want)
	}
	r := Roots{Cwd: dir, Home: dir}
	var want string
	switch {
	case p == "~":
		want = filepath.Clean(dir)
	case strings.HasPrefix(p, "~/"):
		want = filepath.Clean(filepath.Join(dir, p[2:]))
	case !filepath.IsAbs(p):
		want = filepath.Clean(filepath.Join(dir, p))
	default:
		want = filepath.Clean(p)
	}
	if got := r.Abs(p); got != want {
		t.Errorf("Roots{Cwd: %q}.Abs(%q) = %q, want %q", dir, p, got, want)
	}
}

var cleanSeeds = []string{"", "/", "//", "/./", "/a/.", "/a/..", "/.a/.b", "/a/..../b", "/a/.../", "/x/.", "/.", "/.", "/..", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/.b", "/a/..b", "/a/b.", "/...", "a", "./a", "../a", "a/..", "~", "~/x", "~/../y", "/a/b/c.go"}

func TestCleanEquivalence(t *testing.T) {
	for _, p := range cleanSeeds {
		for _, dir := range []string{"", "/", "/w", "/w/", "rel", "/w/../x"} {
			checkClean(t, p, dir)
		}
	}
}

func FuzzCleanEquivalence(f *testing.F) {
	for _, p := range cleanSeeds {
		f.Add(p, "/w")
	}
	f.Fuzz(checkClean)
}

// TestEmptyRootContainsNothing: a root that is empty (a Roots built as a
// literal without a workspace) or not absolute names no directory, so it
// contains no path, resolved or not; RealPath of "" is "", never "/".
func TestEmptyRootContainsNothing(t *testing.T) {
	if got := RealPath(""); got != "" {
		t.Errorf(`RealPath("") = %q, want ""`, got)
	}
	for name, r := range map[string]Roots{
		"zero":          {},
		"home only":     {Home: "/nonexistent/h"},
		"empty dir":     {Dirs: []string{""}},
		"relative cwd":  {Cwd: ".", Root: "."},
		"relative root": {Cwd: "sub", Root: "..", Dirs: []string{"x/.."}},
	} {
		for _, rs := range []Roots{r, r.Resolve(), r.Deferred(), r.Fresh(nil)} {
			for _, p := range []string{"/", "/etc/passwd", "/nonexistent/h/x", ".", "x"} {
				if rs.Contains(p) {
					t.Errorf("%s: Contains(%q) = true, want false", name, p)
				}
			}
		}
	}
	// An empty root beside real ones adds nothing and hides nothing.
	r := Roots{Cwd: "/nonexistent/p", Dirs: []string{""}}
	for _, rs := range []Roots{r, r.Resolve(), r.Fresh(nil)} {
		if !rs.Contains("/nonexistent/p/x") || rs.Contains("/etc/passwd") {
			t.Errorf("Cwd with an empty added directory: containment wrong for %+v", rs)
		}
	}
}

// TestFresh: Fresh resolves the roots again, as the file system has them
// now, where a Roots resolved before a link was re-pointed keeps what it
// found; Fresh asks link about every component it follows.
func TestFresh(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "ws")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	resolved := Roots{Cwd: link, Root: link}.Resolve()
	if !resolved.Fresh(nil).Contains(a+"/x") || resolved.Fresh(nil).Contains(b+"/x") {
		t.Fatal("Fresh before the switch: containment wrong")
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	if !resolved.Contains(a + "/x") {
		t.Error("a resolved Roots re-resolved by itself (Resolve's contract is once)")
	}
	fresh := resolved.Fresh(nil)
	if !fresh.Contains(b+"/x") || fresh.Contains(a+"/x") {
		t.Error("Fresh kept the resolution made before the link was re-pointed")
	}
	var asked []string
	counting := resolved.Fresh(func(p string) (string, bool) {
		asked = append(asked, p)
		return Readlink(p)
	})
	if !counting.Contains(b+"/x") || !slices.Contains(asked, link) {
		t.Errorf("Fresh(link) did not resolve through link: asked %q", asked)
	}
}
