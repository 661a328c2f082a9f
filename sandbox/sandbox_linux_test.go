package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/testtree"
)

// sockProbeArg makes the test binary report which sockets it may open,
// from inside a sandbox.
const sockProbeArg = "sockprobe"

// The test binary is its own helper, as gen is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperArg:
			if os.Getenv(noIPCVar) != "" {
				unshareIPC = func() error { return errors.New("no IPC namespaces (test)") }
			}
			if abi, err := strconv.Atoi(os.Getenv(abiVar)); err == nil {
				helperABI = func() int { return min(abi, landlockABI()) }
			}
			os.Exit(HelperMain(os.Args[2:]))
		case sockProbeArg:
			os.Exit(sockProbe())
		case metaProbeArg:
			os.Exit(metaProbe(os.Args[2]))
		case unixProbeArg:
			os.Exit(unixProbe(os.Args[2]))
		case ipcProbeArg:
			os.Exit(ipcProbe(os.Args[2]))
		case keyProbeArg:
			os.Exit(keyProbe(os.Args[2]))
		case truncProbeArg:
			os.Exit(truncProbe(os.Args[2]))
		case limitProbeArg:
			os.Exit(limitProbe(os.Args[2]))
		}
	}
	os.Exit(m.Run())
}

// sockProbe prints, for each kind of socket, "ok" or the error.
func sockProbe() int {
	for _, k := range []struct {
		name         string
		domain, typ_ int
	}{
		{"unix", unix.AF_UNIX, unix.SOCK_STREAM},
		{"inet", unix.AF_INET, unix.SOCK_STREAM},
		{"inet6", unix.AF_INET6, unix.SOCK_DGRAM},
		{"netlink", unix.AF_NETLINK, unix.SOCK_RAW},
	} {
		fd, err := unix.Socket(k.domain, k.typ_, 0)
		if err == nil {
			unix.Close(fd)
			fmt.Printf("%s=ok\n", k.name)
		} else {
			fmt.Printf("%s=%v\n", k.name, err)
		}
	}
	var params [120]byte
	_, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
	fmt.Printf("io_uring=%v\n", errnoString(errno))
	return 0
}

func errnoString(e syscall.Errno) string {
	if e == 0 {
		return "ok"
	}
	return e.Error()
}

// requireSandbox skips where the kernel cannot confine; everywhere else the
// tests must run.
func requireSandbox(t *testing.T) {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip(why)
	}
}

// requireMounts skips where the carve-out mounts are unavailable.
func requireMounts(t *testing.T) {
	t.Helper()
	requireSandbox(t)
	if _, why := Available(); why != "" {
		t.Skip(why)
	}
}

// run runs command under spec and returns its combined output and error.
func run(t *testing.T, spec Spec, command string, env ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // hang guard
	defer cancel()
	c, err := Command(ctx, spec, command, append(os.Environ(), env...))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err = c.Run()
	if cerr := c.Cleanup(); cerr != nil {
		t.Error(cerr)
	}
	if c.TempDir != "" {
		if _, serr := os.Stat(c.TempDir); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("per-run TMPDIR %s still there after Cleanup", c.TempDir)
		}
	}
	return out.String(), err
}

func mustSpec(t *testing.T, p Profile, roots Roots, network bool) Spec {
	t.Helper()
	s, err := NewSpec(p, roots, network)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestWorkspaceWrite(t *testing.T) {
	requireSandbox(t)
	ws, outside := testtree.Dir(t), testtree.Dir(t)
	spec := mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws}, true)

	out, err := run(t, spec, `echo in > in.txt && mkdir -p sub && mv in.txt sub/ && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"`)
	if err != nil {
		t.Fatalf("write inside the workspace failed: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "sub", "in.txt")); string(got) != "in\n" {
		t.Errorf("sub/in.txt = %q", got)
	}
	if out != "tmp\n" {
		t.Errorf("output %q, want the TMPDIR file's content", out)
	}

	target := filepath.Join(outside, "escaped")
	for _, cmd := range []string{
		"echo x > " + target,
		"touch " + target,
		"cp /etc/hostname " + target,
		"ln -s /etc/hostname " + target,
		"mkdir " + target,
		"cd " + outside + " && echo x > escaped",
		"echo x > ~/gen-sandbox-escaped-" + strconv.Itoa(os.Getpid()),
	} {
		out, err := run(t, spec, cmd)
		if err == nil {
			t.Errorf("%q succeeded outside the workspace:\n%s", cmd, out)
		}
		if exists(target) {
			t.Fatalf("%q created %s", cmd, target)
		}
		if h := Hint(spec, out, 1); h == "" {
			t.Errorf("%q: no hint for %q", cmd, out)
		}
	}
	home, _ := os.UserHomeDir()
	if p := filepath.Join(home, "gen-sandbox-escaped-"+strconv.Itoa(os.Getpid())); exists(p) {
		os.Remove(p)
		t.Errorf("a write reached the home directory")
	}
}

func TestReadOnly(t *testing.T) {
	requireSandbox(t)
	ws := testtree.Dir(t)
	os.WriteFile(filepath.Join(ws, "f"), []byte("content\n"), 0o644)
	spec := mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws}, true)
	if spec.Network {
		t.Fatal("read-only spec has network")
	}

	out, err := run(t, spec, `cat f; ls /usr >/dev/null; echo discard >/dev/null; echo done`)
	if err != nil || out != "content\ndone\n" {
		t.Fatalf("reading under read-only: %v\n%q", err, out)
	}
	for _, cmd := range []string{"touch new", "echo x > new", "mkdir new", "echo x >> f", "rm f", "mv f new", "truncate -s0 f"} {
		out, err := run(t, spec, cmd)
		if err == nil {
			t.Errorf("%q succeeded under read-only:\n%s", cmd, out)
		}
		if exists(filepath.Join(ws, "new")) {
			t.Fatalf("%q created a file under read-only", cmd)
		}
		if got, _ := os.ReadFile(filepath.Join(ws, "f")); string(got) != "content\n" {
			t.Fatalf("%q changed f under read-only: %q", cmd, got)
		}
		if h := Hint(spec, out, 1); !strings.Contains(h, "read-only") {
			t.Errorf("%q: hint %q for %q", cmd, h, out)
		}
	}
}

func TestCarveOuts(t *testing.T) {
	requireMounts(t)
	ws, extra := testtree.Dir(t), testtree.Dir(t)
	for _, d := range []string{".git/hooks", ".gen", ".claude", "scripts", ".husky"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte("{}"), 0o644)
	// Hooks git runs from the workspace: a link in .git/hooks and a
	// core.hooksPath (husky's).
	os.WriteFile(filepath.Join(ws, "scripts", "pre-commit"), []byte("echo hook\n"), 0o755)
	os.Symlink("../../scripts/pre-commit", filepath.Join(ws, ".git", "hooks", "pre-commit"))
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\thooksPath = .husky\n"), 0o644)
	spec := mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws, Additional: []string{extra}}, true)
	for _, want := range []string{".git", ".gen", ".claude", ".mcp.json", "scripts/pre-commit", ".husky"} {
		if !spec.protected(filepath.Join(ws, want)) {
			t.Errorf("%s is not a carve-out: %v", want, spec.ReadOnly)
		}
	}
	for _, cmd := range []string{
		"touch .git/hooks/pre-commit",
		"echo x > .gen/settings.json",
		"mkdir .claude/agents",
		"rm -r .git",
		"mv .git moved",
		"cd .git && touch hooks/post-checkout",
		"mount -o remount,rw .git",
		"umount .git && touch .git/x",
		"unshare -rm sh -c 'umount " + filepath.Join(ws, ".git") + " && touch " + filepath.Join(ws, ".git/x") + "'",
		"echo '{\"mcpServers\":{}}' > .mcp.json",
		"rm .mcp.json",
		"echo evil >> scripts/pre-commit",
		"mv scripts s2",
		"touch .husky/pre-push",
	} {
		out, err := run(t, spec, cmd)
		if err == nil {
			t.Errorf("%q succeeded on a carve-out:\n%s", cmd, out)
		}
		if strings.Contains(out, "Read-only file system") && Hint(spec, out, 1) == "" {
			t.Errorf("%q: no hint for %q", cmd, out)
		}
	}
	for _, p := range []string{".git/hooks/post-checkout", ".gen/settings.json", ".claude/agents", "moved", ".git/x", "s2", ".husky/pre-push"} {
		if exists(filepath.Join(ws, p)) {
			t.Errorf("%s was created", p)
		}
	}
	for p, want := range map[string]string{".mcp.json": "{}", "scripts/pre-commit": "echo hook\n"} {
		if got, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(got) != want {
			t.Errorf("%s changed: %q, %v", p, got, err)
		}
	}
	if !exists(filepath.Join(ws, ".git/hooks")) {
		t.Error(".git was removed")
	}
	// The capability lent to the helper for the mounts is gone.
	out, err := run(t, spec, "grep -E '^Cap(Amb|Eff)' /proc/self/status")
	if err != nil || !strings.Contains(out, "CapAmb:\t0000000000000000") {
		t.Errorf("ambient capabilities left: %v\n%s", err, out)
	}
	if os.Getuid() != 0 && !strings.Contains(out, "CapEff:\t0000000000000000") {
		t.Errorf("the command holds capabilities:\n%s", out)
	}
	// A command that starts inside a carve-out reaches it through the
	// read-only mount, not through the directory it inherited.
	inGit := spec
	inGit.Cwd = filepath.Join(ws, ".git")
	if out, err := run(t, inGit, "touch here"); err == nil || exists(filepath.Join(ws, ".git", "here")) {
		t.Errorf("write from a cwd inside .git succeeded:\n%s", out)
	}
	// The rest of the workspace stays writable, the additional directory too.
	if out, err := run(t, spec, "touch ok scripts/other && touch "+filepath.Join(extra, "ok")); err != nil {
		t.Fatalf("write next to the carve-outs failed: %v\n%s", err, out)
	}
	// Outside the sandbox nothing changed: the mounts were private.
	if err := os.WriteFile(filepath.Join(ws, ".git", "after"), nil, 0o644); err != nil {
		t.Errorf("the carve-out is read-only outside the sandbox too: %v", err)
	}
}

// TestHidden: the paths of Read deny rules are covered under both
// profiles, so that no command, however the gate misread it, reads them;
// the paths of Edit deny rules stay read-only.
func TestHidden(t *testing.T) {
	requireMounts(t)
	ws := testtree.Dir(t)
	for p, c := range map[string]string{".env": "SECRET=env\n", "secrets/k": "SECRET=k\n", "secrets/sub/j": "SECRET=j\n", "keep.go": "package x\n", "gen.lock": "v1\n",
		"conf/deep/.env": "SECRET=deep\n", "scripts/hook.sh": "echo v1\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(ws, "envlink")); err != nil {
		t.Fatal(err)
	}
	roots := Roots{Cwd: ws, Workspace: ws,
		Hidden:    []string{filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(ws, "conf/deep/.env")},
		Protected: []string{filepath.Join(ws, "gen.lock"), filepath.Join(ws, "scripts/hook.sh")}}
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		spec := mustSpec(t, p, roots, false)
		// Through another process's view of the file system too: the
		// parent (this test, outside the sandbox) and init.
		out, _ := run(t, spec, "cat .env envlink secrets/k secrets/sub/j; ln -s . self && cat self/.env self/secrets/k; ls -a secrets; cat $(printf '%s' .e nv); find . -type f -exec cat {} +; grep -r SECRET .; cat /proc/$PPID/root"+ws+"/.env /proc/1/root"+ws+"/secrets/k")
		if strings.Contains(out, "SECRET") {
			t.Errorf("%s: a hidden file was read:\n%s", p, out)
		}
		if out, err := run(t, spec, "cat keep.go"); err != nil || out != "package x\n" {
			t.Errorf("%s: a file next to the hidden ones: %v %q", p, err, out)
		}
		for _, cmd := range []string{"rm .env", "touch secrets/new", "umount .env && cat .env", "mv secrets s2", "echo v2 > gen.lock",
			// The directories holding them cannot be swapped for
			// others: the files would stay covered only in here.
			"mv scripts s2 && mkdir scripts && echo 'echo v2' > scripts/hook.sh", "mv conf c2 && cat c2/deep/.env",
			"mv conf/deep d2 && cat d2/.env", "rm -rf conf", "cd conf && mv deep ../d3"} {
			if out, err := run(t, spec, cmd); err == nil {
				t.Errorf("%s: %q succeeded:\n%s", p, cmd, out)
			}
		}
		if p == WorkspaceWrite {
			// The directories stay writable.
			if out, err := run(t, spec, "touch scripts/new conf/deep/new && rm scripts/new conf/deep/new"); err != nil {
				t.Errorf("writing next to a covered file: %v\n%s", err, out)
			}
		}
		// A hidden file is /dev/null: what is written to it is lost.
		run(t, spec, "echo x > .env")
	}
	// Outside the sandbox nothing changed.
	if data, err := os.ReadFile(filepath.Join(ws, ".env")); err != nil || string(data) != "SECRET=env\n" {
		t.Errorf("after the runs: .env = %q %v", data, err)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "secrets/k")); err != nil || string(data) != "SECRET=k\n" {
		t.Errorf("after the runs: %q %v", data, err)
	}
	for p, want := range map[string]string{"gen.lock": "v1\n", "scripts/hook.sh": "echo v1\n", "conf/deep/.env": "SECRET=deep\n"} {
		if data, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(data) != want {
			t.Errorf("after the runs: %s = %q %v", p, data, err)
		}
	}
	if _, err := NewSpec(ReadOnly, Roots{Cwd: ws, Workspace: ws, Hidden: []string{"/"}}, false); err == nil {
		t.Error("NewSpec hid the root directory")
	}
}

// TestWorktreeCarveOuts: a worktree's .git file, the git directory it
// names and the common directory stay read-only when they lie in a
// writable root.
func TestWorktreeCarveOuts(t *testing.T) {
	requireMounts(t)
	ws, main := testtree.Dir(t), testtree.Dir(t)
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	os.MkdirAll(gitdir, 0o755)
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)

	spec := mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws, Additional: []string{main}}, true)
	for _, want := range []string{filepath.Join(ws, ".git"), gitdir, filepath.Join(main, ".git")} {
		if !slices.Contains(spec.ReadOnly, want) {
			t.Errorf("%s is not a carve-out: %v", want, spec.ReadOnly)
		}
	}
	for _, cmd := range []string{
		"echo 'gitdir: /tmp' > .git",
		"touch " + filepath.Join(gitdir, "index.lock"),
		"touch " + filepath.Join(main, ".git", "config"),
	} {
		if out, err := run(t, spec, cmd); err == nil {
			t.Errorf("%q succeeded on a carve-out:\n%s", cmd, out)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(ws, ".git")); !strings.HasPrefix(string(got), "gitdir: "+gitdir) {
		t.Errorf(".git changed: %q", got)
	}
	if exists(filepath.Join(gitdir, "index.lock")) || exists(filepath.Join(main, ".git", "config")) {
		t.Error("the worktree's git directory was written")
	}

	// Without the main repository among the writable roots, Landlock alone
	// keeps it read-only and no mount is needed for it.
	spec = mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws}, true)
	if !slices.Equal(spec.ReadOnly, []string{filepath.Join(ws, ".git")}) {
		t.Errorf("carve-outs %v, want only the .git file", spec.ReadOnly)
	}
	if out, err := run(t, spec, "touch "+filepath.Join(gitdir, "index.lock")); err == nil || exists(filepath.Join(gitdir, "index.lock")) {
		t.Errorf("write to the git directory outside the workspace succeeded:\n%s", out)
	}
}

func TestNetwork(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	ws := testtree.Dir(t)
	for _, tc := range []struct {
		name    string
		profile Profile
		network bool
		want    bool
	}{
		{"read-only", ReadOnly, true, false},
		{"workspace-write without network", WorkspaceWrite, false, false},
		{"workspace-write", WorkspaceWrite, true, true},
		{"none", None, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := mustSpec(t, tc.profile, Roots{Cwd: ws, Workspace: ws}, tc.network)
			out, err := run(t, spec, connect)
			if got := err == nil && strings.Contains(out, "connected"); got != tc.want {
				t.Fatalf("connected = %v, want %v: %v\n%s", got, tc.want, err, out)
			}
			if !tc.want && !strings.Contains(Hint(spec, out, 1), "network") {
				t.Errorf("no network hint for %q", out)
			}
		})
	}
}

func TestSocketFilter(t *testing.T) {
	requireSandbox(t)
	ws := testtree.Dir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := exe + " " + sockProbeArg
	want := map[Profile]string{
		ReadOnly:       readOnlyUnix() + "\ninet=permission denied\ninet6=permission denied\nnetlink=permission denied\nio_uring=operation not permitted\n",
		WorkspaceWrite: "unix=ok\ninet=ok\ninet6=ok\nnetlink=ok\n",
	}
	for p, w := range want {
		out, err := run(t, mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, true), probe)
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		if p == WorkspaceWrite {
			var ring string
			out, ring, _ = strings.Cut(out, "io_uring=")
			// It may be off by sysctl; with network the filter leaves it.
			if sysctl, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && strings.TrimSpace(string(sysctl)) == "0" && ring != "ok\n" {
				t.Errorf("%s: io_uring=%s", p, ring)
			}
		}
		if out != w {
			t.Errorf("%s: got\n%s\nwant\n%s", p, out, w)
		}
	}
}

// TestRefusesWhenRestrictionFails: a Spec the helper cannot apply stops
// the command before it runs.
func TestRefusesWhenRestrictionFails(t *testing.T) {
	requireMounts(t)
	ws := testtree.Dir(t)
	marker := filepath.Join(ws, "marker")
	cmd := "touch " + marker
	missing := filepath.Join(ws, "missing")
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"landlock rule on a missing root", Spec{Profile: WorkspaceWrite, Cwd: ws, Writable: []string{ws, missing}, Network: true}, "landlock"},
		{"carve-out mount of a missing path", Spec{Profile: WorkspaceWrite, Cwd: ws, Writable: []string{ws}, ReadOnly: []string{missing}, Network: true}, "read-only mounts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, tc.spec, cmd)
			var se *SetupError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a SetupError\n%s", err, out)
			}
			if !strings.Contains(se.Msg, tc.want) {
				t.Errorf("message %q does not name %q", se.Msg, tc.want)
			}
			if exists(marker) {
				t.Fatal("the command ran")
			}
		})
	}
}

// TestHelperNeedsItsDescriptors: the helper started any other way than by
// Command refuses.
func TestHelperNeedsItsDescriptors(t *testing.T) {
	ws := testtree.Dir(t)
	exe, _ := os.Executable()
	marker := filepath.Join(ws, "marker")
	c := exec.Command(exe, HelperArg, "touch "+marker)
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitSetupFailed {
		t.Fatalf("err = %v, want exit %d\n%s", err, ExitSetupFailed, out)
	}
	if !strings.Contains(string(out), "the command was not run") || exists(marker) {
		t.Fatalf("helper ran the command: %s", out)
	}
}

func TestStdinAndProcessGroup(t *testing.T) {
	requireSandbox(t)
	ws := testtree.Dir(t)
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		t.Run(string(p), func(t *testing.T) {
			spec := mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, true)
			if out, err := run(t, spec, `read -r x; echo "read=$? x=$x"`); err != nil || out != "read=1 x=\n" {
				t.Errorf("stdin not closed: %v %q", err, out)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := Command(ctx, spec, `sleep 300 & echo $!; wait`, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Cleanup()
			pr, pw := io.Pipe()
			c.Stdout = pw
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(line))
			cancel()
			go io.Copy(io.Discard, pr)
			if err := c.Wait(); err == nil {
				t.Error("cancelled command reported success")
			}
			pw.Close()
			for i := 0; syscall.Kill(pid, 0) == nil; i++ {
				if i > 600 {
					t.Fatalf("background process %d outlived the group kill", pid)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// TestEverydayCommands: git and go keep working in their profiles.
func TestEverydayCommands(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := testtree.Dir(t)
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir = ws
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module hello\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "init")
	// A changed mtime makes git status want to refresh the index.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(ws, "main.go"), future, future)

	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		spec := mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, true)
		out, err := run(t, spec, "git status --porcelain && git log --oneline | wc -l")
		if err != nil || strings.TrimSpace(out) != "1" {
			t.Errorf("git status under %s: %v\n%s", p, err, out)
		}
	}
	if exists(filepath.Join(ws, ".git", "index.lock")) {
		t.Error("index.lock left behind")
	}

	if _, err := exec.LookPath("npm"); err == nil {
		os.WriteFile(filepath.Join(ws, "package.json"), []byte(`{"name":"x","version":"1.0.0","scripts":{"test":"node -e \"require('fs').writeFileSync('out.txt','ok')\""}}`), 0o644)
		spec := mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws}, false)
		if out, err := run(t, spec, "npm test"); err != nil || !exists(filepath.Join(ws, "out.txt")) {
			t.Errorf("npm test under workspace-write: %v\n%s", err, out)
		}
		os.Remove(filepath.Join(ws, "out.txt"))
		spec = mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws}, false)
		out, err := run(t, spec, "npm test")
		if err == nil || exists(filepath.Join(ws, "out.txt")) {
			t.Errorf("npm test wrote under read-only:\n%s", out)
		}
		if h := Hint(spec, out, 1); !strings.Contains(h, filepath.Join(ws, "out.txt")) {
			t.Errorf("hint %q does not name out.txt:\n%s", h, out)
		}
	}

	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	goEnv := []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off"}
	spec := mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws}, false)
	out, err := run(t, spec, `export GOCACHE="$TMPDIR/gocache"; go env GOCACHE && go build -o "$TMPDIR/hello" . && "$TMPDIR/hello"`, goEnv...)
	if err != nil || !strings.HasSuffix(out, "hello\n") {
		t.Errorf("go build with GOCACHE under TMPDIR: %v\n%s", err, out)
	}
	cache := testtree.Dir(t)
	spec = mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws, AllowWrite: []string{cache}}, false)
	out, err = run(t, spec, `go build -o "$TMPDIR/hello" . && "$TMPDIR/hello"`, append(goEnv, "GOCACHE="+cache)...)
	if err != nil || !strings.HasSuffix(out, "hello\n") {
		t.Errorf("go build with GOCACHE in allowWrite: %v\n%s", err, out)
	}
	// Without either, the default cache outside the workspace is refused.
	other := testtree.Dir(t)
	out, err = run(t, spec, `go build -o "$TMPDIR/hello" .`, append(goEnv, "GOCACHE="+other)...)
	if err == nil {
		t.Errorf("go build wrote a cache outside the profile:\n%s", out)
	}
}

func BenchmarkSandboxedTrue(b *testing.B) {
	if ok, why := Available(); !ok {
		b.Skip(why)
	}
	ws, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		spec, err := NewSpec(p, Roots{Cwd: ws, Workspace: ws}, p != ReadOnly)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(p), func(b *testing.B) {
			for b.Loop() {
				c, err := Command(context.Background(), spec, "true", nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Run(); err != nil {
					b.Fatal(err)
				}
				c.Cleanup()
			}
		})
	}
}

func BenchmarkUnsandboxedTrue(b *testing.B) {
	for b.Loop() {
		c := exec.Command("bash", "-c", "true")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// Available says, once, what an older kernel's Landlock leaves unenforced
// (abiGaps); a kernel from ABI 6 on has none of these gaps.
func TestABIGaps(t *testing.T) {
	for _, tc := range []struct {
		abi  int
		want string
	}{
		{1, "Landlock ABI 1 of this kernel does not restrict signals to and abstract unix sockets of processes outside the sandbox, device ioctls under workspace-write, truncate(2) of files outside the writable roots under workspace-write"},
		{3, "Landlock ABI 3 of this kernel does not restrict signals to and abstract unix sockets of processes outside the sandbox, device ioctls under workspace-write"},
		{5, "Landlock ABI 5 of this kernel does not restrict signals to and abstract unix sockets of processes outside the sandbox"},
		{6, ""},
		{9, ""},
	} {
		if got := abiGaps(tc.abi); got != tc.want {
			t.Errorf("abiGaps(%d) = %q, want %q", tc.abi, got, tc.want)
		}
	}
	abi := landlockABI()
	if abi < 1 {
		t.Skip("no Landlock")
	}
	ok, why := (&Runner{}).Available()
	if !ok {
		t.Fatalf("Available: %s", why)
	}
	if gaps := abiGaps(abi); gaps != "" && !strings.Contains(why, gaps) {
		t.Errorf("Available's why %q does not name this kernel's gaps %q", why, gaps)
	}
	if abi >= 6 && strings.Contains(why, "Landlock ABI") {
		t.Errorf("Available's why %q names gaps this kernel (ABI %d) does not have", why, abi)
	}
}

// TestReadConfinement: under read-only with a home, the kernel refuses
// reads in the home directory but for the workspace, the Reads paths and
// git's configuration, whichever way the command reaches the file (a
// symlink in the workspace, /proc/self/root). Workspace-write reads it.
func TestReadConfinement(t *testing.T) {
	requireSandbox(t)
	base := testtree.Dir(t)
	home := filepath.Join(base, "home")
	for p, c := range map[string]string{
		"home/.ssh/id_rsa":      "KEY\n",
		"home/.gitconfig":       "[user]\n",
		"home/.config/git/x":    "xdg\n",
		"home/bin/tool":         "TOOL\n",
		"home/notes/n":          "NOTE\n",
		"home/proj/a.txt":       "A\n",
		"outside/public/readme": "PUBLIC\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, ws := range []string{filepath.Join(home, "proj"), filepath.Join(base, "outside")} {
		os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(ws, "link"))
		roots := Roots{Cwd: ws, Workspace: ws, Home: home, Reads: []string{filepath.Join(home, "bin"), filepath.Join(home, "notes")}}
		spec := mustSpec(t, ReadOnly, roots, false)
		if len(spec.Readable) == 0 {
			t.Fatalf("%s: no read confinement", ws)
		}
		for cmd, want := range map[string]string{
			"cat " + home + "/.gitconfig":            "[user]\n",
			"cat " + home + "/.config/git/x":         "xdg\n",
			"cat " + home + "/bin/tool":              "TOOL\n",
			"cat " + home + "/notes/n":               "NOTE\n",
			"cat " + base + "/outside/public/readme": "PUBLIC\n",
			"ls /usr/bin/env":                        "/usr/bin/env\n",
		} {
			if out, err := run(t, spec, cmd); err != nil || out != want {
				t.Errorf("%s: %q: %v, %q; want %q", ws, cmd, err, out, want)
			}
		}
		unread := []string{
			"cat " + home + "/.ssh/id_rsa",
			"cat link",
			"cat /proc/self/root" + home + "/.ssh/id_rsa",
			"ls " + home,
			"cd " + home + " && cat .ssh/id_rsa",
		}
		if ws == filepath.Join(base, "outside") {
			unread = append(unread, "cat "+home+"/proj/a.txt")
		} else if out, err := run(t, spec, "cat a.txt"); err != nil || out != "A\n" {
			t.Errorf("the workspace inside home: cat a.txt: %v, %q", err, out)
		}
		for i, cmd := range unread {
			out, err := run(t, spec, cmd)
			if err == nil || strings.Contains(out, "KEY") || strings.Contains(out, "A\n") {
				t.Errorf("%s: %q read the home directory under read-only: %v, %q", ws, cmd, err, out)
			}
			// The hint cannot tell where a cd went.
			if h := Hint(spec, out, 1); i != 4 && !strings.Contains(h, "blocked reading") {
				t.Errorf("%s: %q: hint %q for %q", ws, cmd, h, out)
			}
		}
		rw := mustSpec(t, WorkspaceWrite, roots, false)
		if out, err := run(t, rw, "cat "+home+"/.ssh/id_rsa"); err != nil || out != "KEY\n" {
			t.Errorf("%s: workspace-write could not read the home directory: %v, %q", ws, err, out)
		}
	}
	// The real home directories are private too.
	if _, err := os.ReadDir("/root"); err == nil {
		ws := filepath.Join(base, "outside")
		out, err := run(t, mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws, Home: home}, false), "ls /root")
		if err == nil {
			t.Errorf("ls /root under read-only: %q", out)
		}
	}
}
