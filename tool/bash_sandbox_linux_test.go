package tool

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
)

func requireSandbox(t testing.TB) {
	t.Helper()
	if ok, why := sandbox.Available(); !ok {
		t.Skip(why)
	}
}

// bashAs runs command with the Bash tool under a decision with profile p.
func bashAs(t *testing.T, env *Env, p sandbox.Profile, command string) string {
	t.Helper()
	res := perm.Result{Decision: perm.Allow, Sandbox: p}
	out, err := bashTool{env}.Run(context.Background(), Call{Input: map[string]any{"command": command}, Decision: Decision{Result: res}})
	if err != nil {
		t.Fatalf("Bash %q under %q: %v", command, p, err)
	}
	return out
}

// settingsOnly is an Env.Confine with the sandbox settings sb and no
// deny rules.
func settingsOnly(sb sandbox.Settings) func() Confinement {
	return func() Confinement { return Confinement{Settings: sb} }
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// scripts writes executable files into dir.
func scripts(t *testing.T, dir string, m map[string]string) {
	t.Helper()
	files(t, dir, m)
	for name := range m {
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// userRule is the user's rule tool(pattern).
func userRule(tool, pattern string) perm.Entry {
	return perm.Entry{Rule: perm.Rule{Tool: tool, Pattern: pattern, HasPattern: true}, Source: perm.SourceUser}
}

// ruleAllowed runs command through a headless Set gated by pol, whose
// Bash sandbox confines under policy (the policy in force when the
// command runs), and fails unless the gate allows it.
func ruleAllowed(t *testing.T, env *Env, pol perm.Policy, policy func() perm.Policy, command string) Result {
	t.Helper()
	set, err := NewSet(gate.Fixed(pol), Toolbox{Env: env, Policy: policy}.Tools())
	if err != nil {
		t.Fatal(err)
	}
	r := set.Call(context.Background(), "Bash", "", map[string]any{"command": command}, nil)
	if r.Decision.Decision != perm.Allow {
		t.Fatalf("%s: decision %v: %s", command, r.Decision.Decision, r.Decision.Reason)
	}
	return r
}

// TestBashProfiles: the Bash tool applies the decision's profile to real
// commands. "" (a call without a profile) confines like workspace-write.
func TestBashProfiles(t *testing.T) {
	requireSandbox(t)
	env, ws := testEnv(t)
	outside := testtree.Dir(t)
	for _, p := range []sandbox.Profile{"", sandbox.WorkspaceWrite} {
		name := filepath.Join(outside, "escape"+string(p))
		out := bashAs(t, env, p, "echo x > "+name)
		if exists(name) || strings.Contains(out, "exit code: 0") {
			t.Errorf("%q: a write outside the workspace succeeded:\n%s", p, out)
		}
		if !strings.Contains(out, "sandbox: the workspace-write profile blocked a write to "+name) {
			t.Errorf("%q: no sandbox hint naming %s:\n%s", p, name, out)
		}
		inside := filepath.Join(ws, "inside"+string(p))
		if out := bashAs(t, env, p, "echo x > "+inside+` && echo "$TMPDIR" > tmpdir`); !strings.HasSuffix(out, "exit code: 0\n") || !exists(inside) {
			t.Errorf("%q: a write inside the workspace failed:\n%s", p, out)
		}
		// The per-run temp directory is gone after the call.
		if tmp := strings.TrimSpace(readFile(t, filepath.Join(ws, "tmpdir"))); tmp == "" || exists(tmp) {
			t.Errorf("%q: TMPDIR %q was not removed", p, tmp)
		}
	}

	// A command judged read-only cannot create a file, even in the
	// workspace.
	ro := filepath.Join(ws, "ro.txt")
	out := bashAs(t, env, sandbox.ReadOnly, "touch "+ro)
	if exists(ro) || !strings.Contains(out, "sandbox: the read-only profile blocked a write to "+ro) {
		t.Errorf("read-only created %s:\n%s", ro, out)
	}
	if out := bashAs(t, env, sandbox.ReadOnly, "cat inside"); out != "x\nexit code: 0\n" {
		t.Errorf("read-only cannot read the workspace:\n%s", out)
	}

	// Profile none (an approved dangerouslyDisableSandbox call) is not
	// confined.
	free := filepath.Join(outside, "free")
	if out := bashAs(t, env, sandbox.None, "echo x > "+free); !exists(free) {
		t.Errorf("none could not write outside the workspace:\n%s", out)
	}

	// .git inside the workspace stays read-only.
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, why := sandbox.Available(); ok && why == "" {
		hook := filepath.Join(ws, ".git", "hook")
		if out := bashAs(t, env, sandbox.WorkspaceWrite, "echo x > "+hook); exists(hook) {
			t.Errorf("workspace-write wrote into .git:\n%s", out)
		}
	}
}

// TestBashNetwork: a loopback TCP connect is refused for read-only, and
// for workspace-write when sandbox.network is false.
func TestBashNetwork(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback:", err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"

	env, _ := testEnv(t)
	if out := bashAs(t, env, sandbox.WorkspaceWrite, connect); !strings.Contains(out, "connected\nexit code: 0") {
		t.Errorf("workspace-write (network on by default) could not connect:\n%s", out)
	}
	// Wait until the listener has counted the allowed connection, so it
	// cannot be counted below as one of the refused ones.
	for guard := time.Now().Add(60 * time.Second); accepted.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(guard) {
			t.Fatal("the allowed connection was never accepted") // hang guard
		}
	}
	before := accepted.Load()
	if out := bashAs(t, env, sandbox.ReadOnly, connect); strings.Contains(out, "connected") || !strings.Contains(out, "no network access") {
		t.Errorf("read-only connected:\n%s", out)
	}
	off := false
	env.Confine = settingsOnly(sandbox.Settings{Network: &off})
	if out := bashAs(t, env, sandbox.WorkspaceWrite, connect); strings.Contains(out, "connected") {
		t.Errorf("workspace-write with sandbox.network false connected:\n%s", out)
	}
	// Refused connections never reached the listener. Accepting is
	// asynchronous, so only a count above the allowed connects could
	// show a leak; a connect that was refused at socket() never does.
	if n := accepted.Load(); n > before {
		t.Errorf("listener accepted %d connections from confined commands", n-before)
	}
}

// TestBashThroughGate: the profile comes from how the gate decided, end
// to end: a rule-allowed command is workspace-write, a verified read-only
// one read-only, and dangerouslyDisableSandbox is asked for (headless:
// denied) and, once approved, runs unconfined.
func TestBashThroughGate(t *testing.T) {
	requireSandbox(t)
	env, ws := testEnv(t)
	outside := testtree.Dir(t)
	escape := filepath.Join(outside, "by-rule")
	// The rule allows a script; what it writes, the gate cannot see.
	files(t, ws, map[string]string{"a.txt": "hello\n"})
	scripts(t, ws, map[string]string{"w.sh": "#!/bin/sh\ntouch \"$1\"\n"})
	pol := perm.Policy{Mode: perm.ModeDefault, Workspace: env.Workspace, Allow: []perm.Entry{userRule("Bash", "./w.sh:*")}}
	asked := 0
	approve := askerFunc(func(_ perm.Request, r perm.Result) perm.Result {
		asked++
		r.Decision = perm.Allow
		return r
	})
	main := &gate.Gate{Policy: func() perm.Policy { return pol }, Asker: approve}
	set, err := NewSet(main, []Tool{bashTool{env}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(s *Set, in map[string]any) Result {
		t.Helper()
		return s.Call(context.Background(), "Bash", "", in, nil)
	}

	r := run(set, map[string]any{"command": "./w.sh " + escape})
	if r.Decision.Decision != perm.Allow || r.Decision.Sandbox != sandbox.WorkspaceWrite || exists(escape) {
		t.Errorf("rule-allowed touch outside: %v %q, file there: %v\n%s", r.Decision.Decision, r.Decision.Sandbox, exists(escape), r.Output)
	}
	in := filepath.Join(ws, "by-rule")
	if r := run(set, map[string]any{"command": "./w.sh " + in}); !exists(in) {
		t.Errorf("rule-allowed touch inside failed: %v\n%s", r.Err, r.Output)
	}
	if r := run(set, map[string]any{"command": "cat a.txt"}); r.Decision.Sandbox != sandbox.ReadOnly || r.Output != "hello\nexit code: 0\n" {
		t.Errorf("read-only command: %q\n%s", r.Decision.Sandbox, r.Output)
	}
	if asked != 0 {
		t.Fatalf("asked %d times before any dangerouslyDisableSandbox call", asked)
	}

	free := filepath.Join(outside, "unsandboxed")
	call := map[string]any{"command": "./w.sh " + free, "dangerouslyDisableSandbox": true}
	// Headless (no Asker): denied at step 8, nothing runs.
	headless, err := NewSet(gate.Fixed(pol), []Tool{bashTool{env}})
	if err != nil {
		t.Fatal(err)
	}
	r = run(headless, call)
	if r.Decision.Decision != perm.Deny || r.Decision.Step != 8 || !IsDenied(r.Err) || exists(free) {
		t.Errorf("headless dangerouslyDisableSandbox: %v step %d (%s), file there: %v", r.Decision.Decision, r.Decision.Step, r.Decision.Reason, exists(free))
	}
	// Main loop: asked, even though a rule allows touch; approved, it
	// runs with profile none.
	r = run(set, call)
	if asked != 1 || r.Decision.Decision != perm.Allow || r.Decision.Sandbox != sandbox.None || !exists(free) {
		t.Errorf("approved dangerouslyDisableSandbox: asked %d, %v %q, file there: %v\n%s", asked, r.Decision.Decision, r.Decision.Sandbox, exists(free), r.Output)
	}
}

// TestBashHidesDeniedPaths: a script a rule allows reads and writes what
// the gate cannot see; the sandbox still hides the paths of Read deny
// rules and keeps those of Edit deny rules read-only, under the policy in
// force when the command runs.
func TestBashHidesDeniedPaths(t *testing.T) {
	requireSandbox(t)
	if _, why := sandbox.Available(); why != "" {
		t.Skip(why)
	}
	env, ws := testEnv(t)
	files(t, ws, map[string]string{".env": "SECRET=1\n", "secrets/k": "SECRET=2\n", "gen.lock": "v1\n", "a.txt": "hello\n"})
	scripts(t, ws, map[string]string{"r.sh": "#!/bin/sh\ncat .env secrets/k a.txt; ls secrets; echo v2 > gen.lock\n"})
	pol := perm.Policy{Mode: perm.ModeDefault, Workspace: env.Workspace,
		Deny:  []perm.Entry{userRule("Read", "./.env"), userRule("Read", "./secrets/**"), userRule("Edit", "./gen.lock")},
		Allow: []perm.Entry{userRule("Bash", "./r.sh")}}
	var mu sync.Mutex
	policy := func() perm.Policy { mu.Lock(); defer mu.Unlock(); return pol }
	r := ruleAllowed(t, env, pol, policy, "./r.sh")
	if strings.Contains(r.Output, "SECRET") || !strings.Contains(r.Output, "hello") {
		t.Errorf("output:\n%s", r.Output)
	}
	if got := readFile(t, filepath.Join(ws, "gen.lock")); got != "v1\n" {
		t.Errorf("gen.lock = %q", got)
	}
	// Without the rules, the same script reads and writes them.
	mu.Lock()
	pol.Deny = nil
	mu.Unlock()
	r = ruleAllowed(t, env, pol, policy, "./r.sh")
	if !strings.Contains(r.Output, "SECRET=1") || !strings.Contains(r.Output, "SECRET=2") || readFile(t, filepath.Join(ws, "gen.lock")) != "v2\n" {
		t.Errorf("without deny rules:\n%s", r.Output)
	}
}

// TestBashHidesDeniedPrograms: a script a rule allows runs programs the
// gate cannot see; the sandbox hides the files of the programs Bash deny
// rules deny outright, wherever PATH finds them, but never the bash it
// runs the command with.
func TestBashHidesDeniedPrograms(t *testing.T) {
	requireSandbox(t)
	if _, why := sandbox.Available(); why != "" {
		t.Skip(why)
	}
	bin := testtree.Dir(t)
	scripts(t, bin, map[string]string{"zdenied": "#!/bin/sh\necho RAN\n", "zpartly": "#!/bin/sh\necho PARTLY $1\n", "zok": "#!/bin/sh\necho OK\n"})
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	env, ws := testEnv(t)
	scripts(t, ws, map[string]string{"r.sh": "#!/bin/sh\nzdenied; zpartly x; zok\n"})
	pol := perm.Policy{Mode: perm.ModeDefault, Workspace: env.Workspace,
		Deny:  []perm.Entry{userRule("Bash", "zdenied:*"), userRule("Bash", "zpartly -f *"), userRule("Bash", "bash:*")},
		Allow: []perm.Entry{userRule("Bash", "./r.sh")}}
	r := ruleAllowed(t, env, pol, func() perm.Policy { return pol }, "./r.sh")
	// zpartly is denied only with -f: it still runs.
	if strings.Contains(r.Output, "RAN") || !strings.Contains(r.Output, "PARTLY x") || !strings.Contains(r.Output, "OK") {
		t.Errorf("output:\n%s", r.Output)
	}
}

type askerFunc func(perm.Request, perm.Result) perm.Result

func (f askerFunc) Ask(_ context.Context, req perm.Request, r perm.Result, _ func() perm.Policy) perm.Result {
	return f(req, r)
}

// TestBashWithoutSandbox: where the platform has no sandbox, Bash warns
// once and runs unconfined, unless the settings require a sandbox.
func TestBashWithoutSandbox(t *testing.T) {
	defer func(f func() (bool, string)) { available = f }(available)
	available = func() (bool, string) { return false, "no sandbox: test" }
	sandboxWarning = sync.Once{}
	defer func() { sandboxWarning = sync.Once{} }()

	env, _ := testEnv(t)
	var warns []string
	env.Warn = func(w string) { warns = append(warns, w) }
	outside := testtree.Dir(t)
	for i := range 2 {
		name := filepath.Join(outside, "f"+strconv.Itoa(i))
		if out := bashAs(t, env, sandbox.WorkspaceWrite, "touch "+name); !exists(name) {
			t.Errorf("unsandboxed run failed:\n%s", out)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "no sandbox: test; Bash commands run without it") {
		t.Errorf("warnings = %q, want one", warns)
	}

	yes := true
	env.Confine = settingsOnly(sandbox.Settings{Required: &yes})
	name := filepath.Join(outside, "required")
	_, err := bashTool{env}.Run(context.Background(), Call{Input: map[string]any{"command": "touch " + name}})
	if err == nil || !strings.Contains(err.Error(), "the settings require the sandbox (sandbox.required or failIfUnavailable), but no sandbox: test; the command was not run") || exists(name) {
		t.Errorf("required without a sandbox: err %v, file there: %v", err, exists(name))
	}
}

// TestBashReportsNewConfig: the kernel cannot keep a configuration
// directory that does not exist yet read-only, so Bash reports the
// command that creates one, to the model and as a warning.
func TestBashReportsNewConfig(t *testing.T) {
	requireSandbox(t)
	env, ws := testEnv(t)
	var warns []string
	env.Warn = func(w string) { warns = append(warns, w) }
	out := bashAs(t, env, sandbox.WorkspaceWrite, `mkdir -p .claude && echo '{"hooks": {}}' > .claude/settings.local.json && echo '{}' > .mcp.json`)
	for _, p := range []string{".claude", ".mcp.json"} {
		want := "the command created " + filepath.Join(ws, p) + ", which gen reads as project configuration"
		if !strings.Contains(out, want) || !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("%s: output %q, warnings %q", p, out, warns)
		}
	}
	if strings.Contains(out, filepath.Join(ws, ".gen")) {
		t.Errorf("reported a .gen it did not create:\n%s", out)
	}
	// Once they exist, they are the sandbox's to protect: no report.
	warns = nil
	if out := bashAs(t, env, sandbox.WorkspaceWrite, "true"); strings.Contains(out, "created") || len(warns) != 0 {
		t.Errorf("reported again: %q %q", out, warns)
	}
}

// TestBashReadOnlyHome: a command allowed because it only reads cannot
// read the home directory, even when a path the gate saw as a workspace
// file has since become a link to a key there (a parallel subagent's ln
// -s between the decision and the run); git still reads its global
// configuration, and the files it includes. A rule-allowed (workspace-write) command reads home as
// before.
func TestBashReadOnlyHome(t *testing.T) {
	requireSandbox(t)
	env, ws := testEnv(t)
	home := testtree.Dir(t)
	files(t, home, map[string]string{".ssh/id_rsa": "KEY\n", ".gitconfig": "[include]\n\tpath = ~/.gitconfig-work\n", ".gitconfig-work": "[user]\n\tname = From Home\n"})
	t.Setenv("HOME", home)
	env.Workspace.Home = home
	if err := os.MkdirAll(filepath.Join(ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(ws, "docs", "x")); err != nil {
		t.Fatal(err)
	}
	out := bashAs(t, env, sandbox.ReadOnly, "cat docs/x")
	if strings.Contains(out, "KEY") || !strings.Contains(out, "sandbox: the read-only profile blocked reading "+filepath.Join(ws, "docs", "x")) {
		t.Errorf("read-only read a key in home through a link:\n%s", out)
	}
	if out := bashAs(t, env, sandbox.ReadOnly, "git config --get user.name"); out != "From Home\nexit code: 0\n" {
		t.Errorf("read-only git cannot read ~/.gitconfig:\n%s", out)
	}
	if out := bashAs(t, env, sandbox.WorkspaceWrite, "cat docs/x"); out != "KEY\nexit code: 0\n" {
		t.Errorf("workspace-write cannot read home:\n%s", out)
	}
	// GIT_CONFIG_GLOBAL takes ~/.gitconfig's place.
	files(t, home, map[string]string{"dot/gitconfig": "[user]\n\tname = From Dotfiles\n"})
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "dot", "gitconfig"))
	if out := bashAs(t, env, sandbox.ReadOnly, "git config --get user.name"); out != "From Dotfiles\nexit code: 0\n" {
		t.Errorf("read-only git cannot read $GIT_CONFIG_GLOBAL:\n%s", out)
	}
	// sandbox.filesystem.allowRead re-opens a path in home.
	env.Confine = settingsOnly(sandbox.Settings{Filesystem: sandbox.Filesystem{AllowRead: []string{filepath.Join(home, ".ssh")}}})
	if out := bashAs(t, env, sandbox.ReadOnly, "cat docs/x"); out != "KEY\nexit code: 0\n" {
		t.Errorf("allowRead did not re-open ~/.ssh:\n%s", out)
	}
}

// TestBashSpecRequired: the settings' sandbox.required reaches the spec
// Bash runs with, so that sandbox.Command refuses what it could only run
// with less than the spec (no carve-out mounts).
func TestBashSpecRequired(t *testing.T) {
	defer func(f func() (bool, string)) { available = f }(available)
	available = func() (bool, string) { return true, "" }
	env, dir := testEnv(t)
	yes := true
	for _, c := range []struct {
		settings sandbox.Settings
		want     bool
	}{{sandbox.Settings{}, false}, {sandbox.Settings{Required: &yes}, true}} {
		env.Confine = settingsOnly(c.settings)
		spec, err := bashTool{env}.spec(sandbox.WorkspaceWrite, dir, os.Environ())
		if err != nil {
			t.Fatal(err)
		}
		if spec.Required != c.want {
			t.Errorf("settings %+v: spec.Required = %v", c.settings, spec.Required)
		}
	}
}

// TestBashWritableDirsFollowPolicy: the directories a command may write
// are the workspace's as the policy in force has it when the command
// starts, as the gate judged the call: a directory taken out of
// additionalDirectories while gen runs (the settings reloaded) stayed
// writable to every command, and one added (/add-dir) never became so.
func TestBashWritableDirsFollowPolicy(t *testing.T) {
	requireSandbox(t)
	root, gone, added := testtree.Dir(t), testtree.Dir(t), testtree.Dir(t)
	env := NewEnv(perm.Workspace{Cwd: root, Root: root, Dirs: []string{gone}})
	pol := perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: root, Root: root, Dirs: []string{added}}}
	Toolbox{Env: env, Policy: func() perm.Policy { return pol }}.Tools()
	bashAs(t, env, sandbox.WorkspaceWrite, "touch "+filepath.Join(gone, "x")+" "+filepath.Join(added, "y")+"; true")
	if exists(filepath.Join(gone, "x")) {
		t.Error("a command wrote a directory the policy in force no longer has in its workspace")
	}
	if !exists(filepath.Join(added, "y")) {
		t.Error("a command could not write a directory the policy in force has in its workspace")
	}
}
