package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
)

func TestParseProfile(t *testing.T) {
	for _, s := range []string{"read-only", "workspace-write", "none"} {
		if p, err := ParseProfile(s); err != nil || string(p) != s {
			t.Errorf("ParseProfile(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Read-Only", "readonly", "danger-full-access", "none "} {
		if _, err := ParseProfile(s); err == nil {
			t.Errorf("ParseProfile(%q) accepted", s)
		}
	}
}

func TestNewSpec(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	extra := filepath.Join(base, "extra")
	cache := filepath.Join(base, "cache")
	link := filepath.Join(base, "link")
	for _, d := range []string{ws + "/.git", ws + "/.claude", ws + "/sub", extra + "/.gen", cache} {
		os.MkdirAll(d, 0o755)
	}
	os.Symlink(cache, link)

	s, err := NewSpec(WorkspaceWrite, Roots{Cwd: ws + "/sub", Workspace: ws, Additional: []string{extra}, AllowWrite: []string{link, base + "/missing"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ws, extra, cache}; !slices.Equal(s.Writable, want) {
		t.Errorf("Writable = %v, want %v", s.Writable, want)
	}
	if want := []string{ws + "/.git", ws + "/.claude", extra + "/.gen"}; !slices.Equal(s.ReadOnly, want) {
		t.Errorf("ReadOnly = %v, want %v", s.ReadOnly, want)
	}
	if !s.Network || s.Cwd != ws+"/sub" {
		t.Errorf("spec = %+v", s)
	}
	if err := s.validate(); err != nil {
		t.Error(err)
	}

	s, err = NewSpec(ReadOnly, Roots{Cwd: ws, Workspace: ws, Additional: []string{extra}}, true)
	if err != nil || s.Network || len(s.Writable) != 0 || len(s.ReadOnly) != 0 {
		t.Errorf("read-only spec = %+v, %v", s, err)
	}

	for name, roots := range map[string]Roots{
		"relative workspace":  {Cwd: ws, Workspace: "ws"},
		"relative cwd":        {Cwd: "sub", Workspace: ws},
		"missing workspace":   {Cwd: ws, Workspace: base + "/nope"},
		"missing additional":  {Cwd: ws, Workspace: ws, Additional: []string{base + "/nope"}},
		"relative allowWrite": {Cwd: ws, Workspace: ws, AllowWrite: []string{"cache"}},
	} {
		if _, err := NewSpec(WorkspaceWrite, roots, true); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewSpec("full", Roots{Cwd: ws, Workspace: ws}, true); err == nil {
		t.Error("unknown profile accepted")
	}
}

// TestGitHooks: the hooks git runs for a repository in a writable root
// are carve-outs wherever they are: the targets of the links in its
// hooks directory, and every core.hooksPath of the repository's
// configuration, what it includes and the global configuration (relative
// ones against the work tree); .mcp.json is one too. What lies outside
// the writable roots needs no carve-out.
func TestGitHooks(t *testing.T) {
	ws, home := testtree.Dir(t), testtree.Dir(t)
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ws+"/scripts/pre-commit", "echo hook\n")
	write(ws+"/scripts/other", "")
	write(ws+"/.husky/pre-push", "")
	write(ws+"/.hooks-inc/post-merge", "")
	write(ws+"/.githooks/post-checkout", "")
	write(ws+"/.mcp.json", "{}")
	write(ws+"/.git/config", "[core]\n\tbare = false\n\tHooksPath = .husky # husky\n[include]\n\tpath = more.inc\n")
	write(ws+"/.git/more.inc", "[core] hooksPath = \".hooks-inc\"\n[core]\n\thooksPath = .hooks\\\n-cont\n")
	write(ws+"/.hooks-cont/pre-commit", "")
	// ~USER/ is that user's home, as git expands it.
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		rel, err := filepath.Rel(u.HomeDir, ws+"/.hooks-user")
		if err != nil {
			t.Fatal(err)
		}
		write(ws+"/.hooks-user/pre-commit", "")
		write(ws+"/.git/user.inc", "[core]\n\thooksPath = ~"+u.Username+"/"+rel+"\n")
		write(ws+"/.git/more.inc", "[include]\n\tpath = ~"+u.Username+"/"+filepath.Join(rel, "../.git/user.inc")+"\n"+
			"[core] hooksPath = \".hooks-inc\"\n[core]\n\thooksPath = .hooks\\\n-cont\n")
	}
	write(home+"/.gitconfig", "[core]\n\thooksPath = .githooks\n[alias]\n\thooksPath = scripts\n")
	if err := os.MkdirAll(ws+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../scripts/pre-commit", ws+"/.git/hooks/pre-commit"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home+"/outside", ws+"/.git/hooks/post-commit"); err != nil {
		t.Fatal(err)
	}
	write(home+"/outside", "")

	s, err := NewSpec(WorkspaceWrite, Roots{Cwd: ws, Workspace: ws, Home: home}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".git", ".mcp.json", "scripts/pre-commit", ".husky", ".hooks-inc", ".hooks-cont", ".hooks-user", ".githooks"} {
		if !s.protected(filepath.Join(ws, want)) {
			t.Errorf("%s is not a carve-out: %v", want, s.ReadOnly)
		}
	}
	for _, p := range []string{ws + "/scripts/other", ws + "/scripts", home + "/outside"} {
		if s.protected(p) || slices.Contains(s.ReadOnly, p) {
			t.Errorf("%s is a carve-out: %v", p, s.ReadOnly)
		}
	}
	// GIT_CONFIG_GLOBAL replaces ~/.gitconfig.
	write(home+"/dotfiles/gitconfig", "")
	s, err = NewSpec(WorkspaceWrite, Roots{Cwd: ws, Workspace: ws, Home: home, GitConfig: home + "/dotfiles/gitconfig"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.protected(ws + "/.githooks") {
		t.Errorf("~/.gitconfig read despite GIT_CONFIG_GLOBAL: %v", s.ReadOnly)
	}
}

// TestPins: the directories between a writable root and a covered path
// in it are pinned, outermost first, once each; nothing outside the
// writable roots or the roots themselves.
func TestPins(t *testing.T) {
	s := Spec{
		Profile:  WorkspaceWrite,
		Writable: []string{"/w", "/w/extra", "/tmp/run"},
		Hidden:   []string{"/w/a/b/.env", "/w/.env", "/outside/x/y", "/w/a/b/c/k"},
		ReadOnly: []string{"/w/extra/s/h.sh", "/w/.git", "/w/extra"},
	}
	want := []string{"/w/a", "/w/extra", "/w/a/b", "/w/extra/s", "/w/a/b/c"}
	if got := s.pins(); !slices.Equal(got, want) {
		t.Errorf("pins = %q, want %q", got, want)
	}
	if got := (Spec{Profile: ReadOnly, Hidden: []string{"/w/a/.env"}}).pins(); len(got) != 0 {
		t.Errorf("read-only pins %q: nothing is writable", got)
	}
}

func TestSpecValidate(t *testing.T) {
	for name, s := range map[string]Spec{
		"unknown profile":         {Profile: "x", Cwd: "/"},
		"relative cwd":            {Profile: ReadOnly, Cwd: "."},
		"unclean path":            {Profile: WorkspaceWrite, Cwd: "/", Writable: []string{"/a/../b"}},
		"writable under ReadOnly": {Profile: ReadOnly, Cwd: "/", Writable: []string{"/tmp"}},
		"network under ReadOnly":  {Profile: ReadOnly, Cwd: "/", Network: true},
		"carve-out outside roots": {Profile: WorkspaceWrite, Cwd: "/", Writable: []string{"/w"}, ReadOnly: []string{"/x/.git"}},
		"carve-out by prefix":     {Profile: WorkspaceWrite, Cwd: "/", Writable: []string{"/w"}, ReadOnly: []string{"/wx/.git"}},
	} {
		if err := s.validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestHint(t *testing.T) {
	ws := "/w"
	rw := Spec{Profile: WorkspaceWrite, Cwd: ws, Writable: []string{ws}, ReadOnly: []string{"/w/.git"}, Network: true}
	ro := Spec{Profile: ReadOnly, Cwd: ws}
	offline := rw
	offline.Network = false
	for _, tc := range []struct {
		name   string
		spec   Spec
		out    string
		code   int
		substr string // "" means no hint
	}{
		{"outside", rw, "bash: /etc/x: Permission denied\n", 1, "blocked a write to /etc/x"},
		{"carve-out", rw, "touch: cannot touch '.git/hooks/x': Read-only file system\n", 1, "blocked a write to /w/.git/hooks/x"},
		{"inside is the file system's own", rw, "cat: /w/secret: Permission denied\n", 1, ""},
		{"read-only names the file", ro, "Error: EACCES: permission denied, open 'out.txt'\n", 1, "read-only profile blocked a write to /w/out.txt"},
		{"no path", ro, "fatal: Operation not permitted\n", 1, "may have blocked it"},
		{"network", offline, "bash: socket: Permission denied\nbash: line 1: /dev/tcp/1.2.3.4/80: Permission denied\n", 1, "no network"},
		{"network allowed", rw, "curl: (7) Failed to connect: Permission denied\n", 1, "may have blocked it"},
		{"success", rw, "bash: /etc/x: Permission denied\n", 0, ""},
		{"none", Spec{Profile: None, Cwd: ws}, "bash: /etc/x: Permission denied\n", 1, ""},
		{"unrelated failure", rw, "make: *** [all] Error 2\n", 2, ""},
		{"url is not a path", rw, "fetch https://x/y: Permission denied by server\n", 1, "may have blocked it"},
	} {
		h := Hint(tc.spec, tc.out, tc.code)
		if tc.substr == "" && h != "" || tc.substr != "" && !strings.Contains(h, tc.substr) {
			t.Errorf("%s: Hint = %q, want it to contain %q", tc.name, h, tc.substr)
		}
	}
}

func TestSettings(t *testing.T) {
	var s Settings
	if err := json.Unmarshal([]byte(`{"enabled": false, "network": true, "filesystem": {"allowWrite": ["~/.cache/go-build", "/opt/x"]}, "required": true}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Enabled == nil || *s.Enabled || s.Network == nil || !*s.Network || s.Required == nil || !*s.Required ||
		!slices.Equal(s.Filesystem.AllowWrite, []string{"~/.cache/go-build", "/opt/x"}) {
		t.Errorf("decoded %+v", s)
	}
	if err := json.Unmarshal([]byte(`{}`), &s); err != nil || s.Enabled != nil || s.Filesystem.AllowWrite != nil {
		t.Errorf("empty object: %+v %v", s, err)
	}
	if s.Widens() {
		t.Error("an empty object widens")
	}
	if err := json.Unmarshal([]byte(`{"filesystem": {"allowRead": ["~/notes"]}}`), &s); err != nil || !slices.Equal(s.Filesystem.AllowRead, []string{"~/notes"}) || !s.Widens() {
		t.Errorf("allowRead: %+v %v, widens %v", s, err, s.Widens())
	}

	for _, bad := range []struct{ in, want string }{
		{`{"Enabled": true}`, "sandbox.Enabled: unknown key"},
		{`{"enable": true}`, "sandbox.enable: unknown key"},
		{`{"enabled": "yes"}`, "sandbox.enabled: want true or false"},
		{`{"enabled": null}`, "sandbox.enabled: want true or false"},
		{`{"network": 0}`, "sandbox.network: want true or false"},
		{`{"filesystem": {"allowwrite": []}}`, `unknown key "allowwrite"`},
		{`{"filesystem": {"allowWrite": "/x"}}`, "want an array of strings"},
		{`{"filesystem": {"allowWrite": null}}`, "want an array of strings"},
		{`{"filesystem": {"allowWrite": ["relative"]}}`, "must be absolute or start with ~/"},
		{`{"filesystem": {"allowRead": ["relative"]}}`, `allowRead: "relative" must be absolute`},
		{`{"filesystem": {"allowRead": null}}`, "allowRead: want an array of strings"},
		{`{"filesystem": []}`, "sandbox.filesystem: want an object"},
		{`[]`, "want an object"},
	} {
		var s Settings
		err := json.Unmarshal([]byte(bad.in), &s)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want %q", bad.in, err, bad.want)
		}
	}
}

// TestReadConfinementRoots: what NewSpec makes readable for read-only
// with a home: not home, nor anything in it but what is re-opened; the
// rest of the file system. Without a home, or with the workspace holding
// it, reads are not confined; other profiles never are.
func TestReadConfinementRoots(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no root directory to list")
	}
	base := testtree.Dir(t)
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	// A container's secrets are private too; one that does not exist is
	// no private directory.
	testtree.Write(t, base, map[string]string{"home/bin/": "", "home/.config/git/": "", "home/secret/": "", "ws/": "",
		"run/secrets/": "", "run/other/": "", "var/x/": ""})
	if err := os.Symlink(home+"/secret", base+"/link"); err != nil {
		t.Fatal(err)
	}
	defer func(old []string) { privateRoots = old }(privateRoots)
	privateRoots = append(privateRoots, base+"/run/secrets", base+"/var/run/secrets")
	s, err := NewSpec(ReadOnly, Roots{Cwd: ws, Workspace: ws, Home: home, Reads: []string{home + "/bin", "relative", base + "/missing"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ws, ws + "/f", "/usr/bin/env", "/etc/passwd", home + "/bin/tool", home + "/.config/git/config", "/dev/null", base + "/run/other", base + "/var/x"} {
		if !s.readable(p) {
			t.Errorf("%s is not readable; Readable = %q", p, s.Readable)
		}
	}
	for _, p := range []string{home, home + "/secret/k", home + "/.bashrc", "/home/someone/.ssh/id_rsa", "/root/.aws/credentials", base + "/link", base + "/run/secrets/token", "/dev/pts/0", "/dev/sda"} {
		if s.readable(p) {
			t.Errorf("%s is readable; Readable = %q", p, s.Readable)
		}
	}
	// Without a home, only the devices are private.
	s, err = NewSpec(ReadOnly, Roots{Cwd: ws, Workspace: ws}, false)
	if err != nil || !s.readable("/root/.aws/credentials") || !s.readable("/etc/passwd") || !s.readable(ws+"/f") {
		t.Errorf("no home: Readable = %q, %v", s.Readable, err)
	}
	for _, p := range []string{"/dev/pts/0", "/dev/sda", "/dev/shm/x", "/dev/input/event0"} {
		if s.readable(p) {
			t.Errorf("no home: %s is readable; Readable = %q", p, s.Readable)
		}
	}
	for _, p := range []string{"/dev/null", "/dev/urandom", "/dev/tty"} {
		if !s.readable(p) {
			t.Errorf("no home: %s is not readable; Readable = %q", p, s.Readable)
		}
	}
	// A workspace holding home reads it; the other home directories stay
	// private.
	s, err = NewSpec(ReadOnly, Roots{Cwd: home + "/bin", Workspace: base, Home: home}, false)
	if err != nil || !s.readable(home+"/secret/k") || s.readable("/root/.aws/credentials") {
		t.Errorf("workspace holding home: Readable = %q, %v", s.Readable, err)
	}
	if s, err := NewSpec(WorkspaceWrite, Roots{Cwd: ws, Workspace: ws, Home: home}, false); err != nil || s.Readable != nil {
		t.Errorf("workspace-write: Readable = %q, %v", s.Readable, err)
	}
	if _, err := NewSpec(ReadOnly, Roots{Cwd: ws, Workspace: ws, Home: "home"}, false); err == nil {
		t.Error("a relative home was accepted")
	}
	bad := Spec{Profile: WorkspaceWrite, Cwd: ws, Writable: []string{ws}, Readable: []string{"/usr"}}
	if err := bad.validate(); err == nil {
		t.Error("validate accepted a read confinement under workspace-write")
	}
}

// TestGitIncludes: the files git's global configuration includes are
// found as git finds them, through includeIf sections, relative paths and
// nested includes, and no deeper than git goes.
func TestGitIncludes(t *testing.T) {
	home := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitconfig", "[user]\n\tname = x\n\tpath = not-an-include\n[include]\n\tpath = ~/work.inc\n[includeIf \"gitdir:~/oss/\"]\n    PATH = \"oss/inc\"\n[core]\n\tpath = nor-this\n")
	write("oss/inc", "[include]\npath=../deep/1\n")
	for i := 1; i <= 12; i++ {
		write(fmt.Sprintf("deep/%d", i), fmt.Sprintf("[include]\npath = %d\n", i+1))
	}
	got := gitConfigs(home, "", "")
	want := []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git"), filepath.Join(home, "work.inc"), filepath.Join(home, "oss", "inc"), filepath.Join(home, "deep", "1")}
	for i := 2; i <= 9; i++ {
		want = append(want, filepath.Join(home, "deep", fmt.Sprint(i)))
	}
	if !slices.Equal(got, want) {
		t.Errorf("gitConfigs =\n%q\nwant\n%q", got, want)
	}
	// GIT_CONFIG_GLOBAL replaces ~/.gitconfig, includes and all.
	write("dotfiles/gitconfig", "[include]\n\tpath = extra\n")
	global := filepath.Join(home, "dotfiles", "gitconfig")
	want = []string{global, filepath.Join(home, ".config", "git"), filepath.Join(home, "dotfiles", "extra")}
	if got := gitConfigs(home, "", global); !slices.Equal(got, want) {
		t.Errorf("gitConfigs with GIT_CONFIG_GLOBAL =\n%q\nwant\n%q", got, want)
	}
}

// TestGitFileReadAsGit: the git directory a .git file names is the one git
// takes: all that follows "gitdir: " (a second space too) less the line
// ends, joined to the file's directory without cleaning.
func TestGitFileReadAsGit(t *testing.T) {
	ws := testtree.Dir(t)
	for _, d := range []string{" spaced", "spaced", "real/sub", "real/other", "other"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real/sub", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	dotgit := filepath.Join(ws, ".git")
	for _, tc := range []struct{ text, want, not string }{
		{"gitdir:  spaced\r\n", " spaced", "spaced"},
		{"gitdir: link/../other\n", "real/other", "other"},
	} {
		if err := os.WriteFile(dotgit, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got := GitHooks(dotgit, Roots{Cwd: ws, Workspace: ws})
		if !slices.Contains(got, filepath.Join(ws, tc.want)) || slices.Contains(got, filepath.Join(ws, tc.not)) {
			t.Errorf("%q: carve-outs %v; want %s, not %s", tc.text, got, tc.want, tc.not)
		}
	}
}
