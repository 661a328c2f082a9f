package trust

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/settings"
)

// layout makes a home and a project (with .git) below a temp dir.
func layout(t *testing.T) (home, proj string) {
	t.Helper()
	base := t.TempDir()
	home, proj = filepath.Join(base, "home"), filepath.Join(base, "proj")
	for _, d := range []string{home, proj + "/.git", proj + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, proj
}

func load(t *testing.T, home, cwd string, flag bool) *settings.Settings {
	t.Helper()
	s, err := settings.Load(settings.Options{Cwd: cwd, Home: home, ManagedPath: filepath.Join(home, "none.json"), Trust: flag})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTrustIsRecordedAndReadBack(t *testing.T) {
	home, proj := layout(t)
	user := settings.UserPath(home)
	// Other keys of the user settings are kept.
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{"permissions": {"deny": ["Read(~/.ssh/**)"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsTrusted(home, proj); err != nil || ok {
		t.Fatalf("IsTrusted before Trust = %v, %v; want false", ok, err)
	}
	if s := load(t, home, proj+"/sub", false); s.Trusted {
		t.Fatal("an untrusted project loaded as trusted")
	}
	root, err := Trust(home, proj+"/sub") // a subdirectory trusts its project root
	if err != nil {
		t.Fatal(err)
	}
	if root != proj {
		t.Fatalf("Trust returned root %s, want %s", root, proj)
	}
	if _, err := Trust(home, proj); err != nil { // twice is no error and no duplicate
		t.Fatal(err)
	}
	if ok, err := IsTrusted(home, proj); err != nil || !ok {
		t.Fatalf("IsTrusted after Trust = %v, %v; want true", ok, err)
	}
	s := load(t, home, proj+"/sub", false)
	if !s.Trusted {
		t.Fatal("a recorded project loaded as untrusted")
	}
	if len(s.Deny) != 1 {
		t.Fatalf("the user's deny rule was lost: %v", s.Deny)
	}
	data, _ := os.ReadFile(user)
	if strings.Count(string(data), proj) != 1 {
		t.Fatalf("user settings record the root %d times:\n%s", strings.Count(string(data), proj), data)
	}
	// Written atomically: no temporary file is left behind, and the
	// file's mode is kept.
	entries, _ := os.ReadDir(filepath.Dir(user))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if fi, _ := os.Stat(user); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", fi.Mode().Perm())
	}
}

func TestTrustThroughSymlink(t *testing.T) {
	home, proj := layout(t)
	link := filepath.Join(filepath.Dir(proj), "link")
	if err := os.Symlink(proj, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(home, link); err != nil {
		t.Fatal(err)
	}
	if !load(t, home, proj, false).Trusted || !load(t, home, link, false).Trusted {
		t.Fatal("a project trusted through a link is the same project")
	}
}

// The --trust flag trusts one run and records nothing.
func TestFlagTrustsOneRunOnly(t *testing.T) {
	home, proj := layout(t)
	if !load(t, home, proj, true).Trusted {
		t.Fatal("--trust did not trust the run")
	}
	if _, err := os.Stat(settings.UserPath(home)); !os.IsNotExist(err) {
		t.Fatalf("--trust wrote the user settings (stat: %v)", err)
	}
	if load(t, home, proj, false).Trusted {
		t.Fatal("--trust outlived its run")
	}
}

// A project cannot trust itself through its own settings.
func TestProjectCannotTrustItself(t *testing.T) {
	home, proj := layout(t)
	file := filepath.Join(proj, ".gen", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"trustedProjects": ["`+proj+`"]}`), 0o644)
	_, err := settings.Load(settings.Options{Cwd: proj, Home: home, ManagedPath: filepath.Join(home, "none.json")})
	if err == nil || !strings.Contains(err.Error(), "a project cannot trust itself") {
		t.Fatalf("Load = %v, want an error", err)
	}
}

func TestRefusal(t *testing.T) {
	home, proj := layout(t)
	file := filepath.Join(proj, ".gen", "settings.json")
	w := Refusal(load(t, home, proj, false), Hooks, file)
	if want := file + ": ignoring project hooks: the project " + proj + " is not trusted"; !strings.HasPrefix(w, want) {
		t.Fatalf("Refusal = %q, want it to start with %q", w, want)
	}
	if w := Refusal(load(t, home, proj, true), MCPServers, file); w != "" {
		t.Fatalf("Refusal in a trusted run = %q, want none", w)
	}
}

func TestAsk(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   bool
	}{{"y\n", true}, {"YES\n", true}, {"n\n", false}, {"", false}, {"maybe\n", false}} {
		home, proj := layout(t)
		var out strings.Builder
		got, err := Ask(context.Background(), strings.NewReader(tc.answer), &out, home, proj)
		if err != nil || got != tc.want {
			t.Errorf("Ask(%q) = %v, %v; want %v", tc.answer, got, err, tc.want)
		}
		if ok, _ := IsTrusted(home, proj); ok != tc.want {
			t.Errorf("after answer %q IsTrusted = %v, want %v", tc.answer, ok, tc.want)
		}
		if !strings.Contains(out.String(), proj) {
			t.Errorf("prompt %q does not name the project", out.String())
		}
	}
}

// The trust prompt shows the root settings found for the working
// directory, and trusting it records that root, not another: a directory
// with neither .git nor .gen reached through a link (its own root) is
// trusted itself, never the project above the link's target, which was
// never shown.
func TestTrustRootAsSettingsFindIt(t *testing.T) {
	home, proj := layout(t)
	inner := filepath.Join(proj, "vendor", "pkg") // no .git, no .gen
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(filepath.Dir(proj), "pkg-link")
	if err := os.Symlink(inner, link); err != nil {
		t.Fatal(err)
	}
	s := load(t, home, link, false)
	if s.Workspace.Root != link {
		t.Fatalf("settings root = %s, want %s", s.Workspace.Root, link)
	}
	root, err := Trust(home, s.Workspace.Root)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(inner); root != want {
		t.Errorf("Trust recorded %s, want %s (the root shown, links resolved)", root, want)
	}
	if ok, err := IsTrusted(home, proj); err != nil || ok {
		t.Errorf("IsTrusted(%s) = %v, %v: the project above the link's target was trusted", proj, ok, err)
	}
	if !load(t, home, link, false).Trusted {
		t.Error("the root the person trusted still loads as untrusted")
	}
}
