package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, extra := filepath.Join(base, "real"), filepath.Join(base, "extra")
	for _, d := range []string{real, extra} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
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
