package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gen-run/gen/perm"
)

// load loads the settings of l with no flag.
func (l layout) load(t *testing.T) *Settings {
	t.Helper()
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// trust records l's project as trusted with its files as they are now.
func (l layout) trust(t *testing.T) {
	t.Helper()
	files, err := ProjectFiles(l.root, l.home)
	if err != nil {
		t.Fatal(err)
	}
	if err := AddTrustedProject(l.user, l.root, files); err != nil {
		t.Fatal(err)
	}
}

func TestChangedFiles(t *testing.T) {
	a, b := digest([]byte("a")), digest([]byte("b"))
	for _, tc := range []struct {
		name         string
		trusted, now map[string]string
		want         []string
	}{
		{"same", map[string]string{"x": a, "d": Absent}, map[string]string{"x": a, "d": Absent}, nil},
		{"edited", map[string]string{"x": a}, map[string]string{"x": b}, []string{"x"}},
		{"created", map[string]string{"x": Absent}, map[string]string{"x": a}, []string{"x"}},
		{"removed", map[string]string{"x": a}, map[string]string{"x": Absent}, []string{"x"}},
		{"a file in a directory that had none", map[string]string{"d": Absent}, map[string]string{"d/f.md": a}, []string{"d/f.md"}},
		{"the last file of a directory removed", map[string]string{"d/f.md": a}, map[string]string{"d": Absent}, []string{"d/f.md"}},
		{"a path a later gen covers, absent", map[string]string{"x": a}, map[string]string{"x": a, "new": Absent}, nil},
		{"a path a later gen covers, present", map[string]string{"x": a}, map[string]string{"x": a, "new": a}, []string{"new"}},
	} {
		if got := ChangedFiles(tc.trusted, tc.now); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ChangedFiles = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A malformed trust entry in the user settings is an error naming the
// file and line, never a trust.
func TestTrustedProjectsErrors(t *testing.T) {
	ok := `"sha256:` + strings.Repeat("ab", 32) + `"`
	for _, tc := range []struct{ name, entry, want string }{
		{"relative path", `"proj"`, `is not an absolute path`},
		{"a number", `1`, `must be an array of project paths`},
		{"no files", `{"path": "/p"}`, `needs "files"`},
		{"unknown key", `{"path": "/p", "files": {}, "trusted": true}`, `unknown key "trusted"`},
		{"a bad digest", `{"path": "/p", "files": {".mcp.json": "md5:00"}}`, `digest of ".mcp.json"`},
		{"upper-case hex", `{"path": "/p", "files": {".mcp.json": "sha256:` + strings.Repeat("AB", 32) + `"}}`, `digest of ".mcp.json"`},
		{"a path outside", `{"path": "/p", "files": {"../x": ` + ok + `}}`, `"../x" is not a path inside the project`},
		{"an absolute file", `{"path": "/p", "files": {"/etc/x": ` + ok + `}}`, `is not a path inside the project`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			writeFile(t, l.user, "{\n\"trustedProjects\": [\n"+tc.entry+"\n]}")
			_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
			if err == nil || !strings.Contains(err.Error(), l.user+":3") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want an error at %s:3 containing %q", err, l.user, tc.want)
			}
		})
	}
}

// gen's own writes to a trusted project's settings keep it trusted: the
// recorded digest of the file follows the write. A file that had already
// changed is not adopted, and a write without KeepTrust is a change.
func TestKeepTrust(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.project, `{"permissions": {"deny": ["Read(./.env)"]}}`)
	l.trust(t)
	keep := KeepTrust{User: l.user, Root: l.root}

	// A new local file and an edited shared one.
	if err := keep.AddRule(l.local, "allow", "Bash(npm test)"); err != nil {
		t.Fatal(err)
	}
	if err := keep.AddRule(l.project, "ask", "Bash(git push *)"); err != nil {
		t.Fatal(err)
	}
	if err := keep.RemoveRule(l.project, "ask", "Bash(git push *)"); err != nil {
		t.Fatal(err)
	}
	s := l.load(t)
	if !s.Trusted || s.TrustStale {
		t.Fatalf("after gen's own writes: Trusted %v, warnings %q", s.Trusted, s.Warnings)
	}
	if !slices.ContainsFunc(s.Allow, func(e perm.Entry) bool { return e.Rule.String() == "Bash(npm test)" }) {
		t.Fatalf("the saved allow rule does not apply: %v", s.Allow)
	}

	// Someone else changes the local file; gen's write then does not
	// make the change trusted.
	writeFile(t, l.local, `{"permissions": {"allow": ["Bash(*)"]}}`)
	if err := keep.AddRule(l.local, "allow", "Bash(ls)"); err != nil {
		t.Fatal(err)
	}
	if s := l.load(t); s.Trusted || !slices.Equal(s.TrustChanged, []string{".gen/settings.local.json"}) {
		t.Fatalf("a changed file was adopted by gen's write: Trusted %v, changed %q", s.Trusted, s.TrustChanged)
	}

	// A write that does not keep trust is a change like any other.
	l.trust(t)
	if err := AddRule(l.project, "allow", "Bash(x)"); err != nil {
		t.Fatal(err)
	}
	if s := l.load(t); s.Trusted || !slices.Equal(s.TrustChanged, []string{".gen/settings.json"}) {
		t.Fatalf("plain AddRule: Trusted %v, changed %q; want the shared file changed", s.Trusted, s.TrustChanged)
	}
}

// Without a trust entry, or without user settings, KeepTrust writes the
// rule and nothing else.
func TestKeepTrustWithoutEntry(t *testing.T) {
	l := newLayout(t)
	keep := KeepTrust{User: l.user, Root: l.root}
	if err := keep.AddRule(l.local, "allow", "Bash(ls)"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.user); !os.IsNotExist(err) {
		t.Fatalf("user settings written without a trust entry (%v)", err)
	}
	writeFile(t, l.user, `{"trustedProjects": ["/other"]}`)
	if err := keep.AddRule(l.local, "deny", "Bash(rm *)"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(l.user); string(data) != `{"trustedProjects": ["/other"]}` {
		t.Fatalf("user settings changed: %s", data)
	}
}

// When the project root is the home directory, the shared settings,
// agents and skills there are the user's own, which gen writes itself
// (trust entries included): they are not part of a trust, so recording a
// trust does not undo it, and the local file still is.
func TestProjectFilesAtHome(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".git", "HEAD"), "x")
	writeFile(t, filepath.Join(home, ".gen", "agents", "a.md"), "x")
	files, err := ProjectFiles(home, home)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{".claude/settings.local.json", ".gen/settings.local.json", ".mcp.json"}; !slices.Equal(keys, want) {
		t.Fatalf("ProjectFiles at home = %q, want %q", keys, want)
	}
	if err := AddTrustedProject(UserPath(home), home, files); err != nil {
		t.Fatal(err)
	}
	l := layout{cwd: home, home: home, managed: filepath.Join(home, "none.json")}
	if s := l.load(t); !s.Trusted {
		t.Fatalf("home as a project untrusted by its own trust entry: %q", s.Warnings)
	}
	// gen writes the local file through KeepTrust, locking .gen once.
	if err := (KeepTrust{User: UserPath(home), Root: home}).AddRule(filepath.Join(home, ".gen", "settings.local.json"), "allow", "Bash(ls)"); err != nil {
		t.Fatal(err)
	}
	if s := l.load(t); !s.Trusted {
		t.Fatalf("untrusted after gen's own write to the local file: %q", s.Warnings)
	}
}

// KeepTrust writers of a project file, trust writers and rule writers of
// the user settings at once: nothing is lost, and the project is still
// trusted with every rule gen saved.
func TestKeepTrustConcurrent(t *testing.T) {
	l := newLayout(t)
	l.trust(t)
	keep := KeepTrust{User: l.user, Root: l.root}
	var wg sync.WaitGroup
	const n = 6
	for i := range n {
		wg.Go(func() {
			if err := keep.AddRule(l.local, "allow", fmt.Sprintf("Bash(echo %d)", i)); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := AddTrustedProject(l.user, fmt.Sprintf("/other/%d", i), map[string]string{".mcp.json": Absent}); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := AddRule(l.user, "deny", fmt.Sprintf("Bash(rm %d)", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s := l.load(t)
	if !s.Trusted {
		t.Fatalf("untrusted after concurrent writes: %q", s.Warnings)
	}
	var user *File
	for i := range s.Files {
		if s.Files[i].Path == l.user {
			user = &s.Files[i]
		}
	}
	if len(s.Allow) != n || len(s.Deny) != n || user == nil || len(user.TrustedProjects) != n+1 {
		t.Fatalf("after concurrent writes: %d allow, %d deny rules, user file %v; want %d, %d and %d trust entries", len(s.Allow), len(s.Deny), user != nil, n, n, n+1)
	}
}
