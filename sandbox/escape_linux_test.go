package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/testtree"
)

// Probes the test binary runs from inside a sandbox: each prints one
// "name=ok" or "name=error" line per system call it tries.
const (
	metaProbeArg = "metaprobe" // metaprobe FILE: change FILE's metadata
	unixProbeArg = "unixprobe" // unixprobe SOCKET: connect to SOCKET
	ipcProbeArg  = "ipcprobe"  // ipcprobe KEY: find, then make, KEY's shared memory
	keyProbeArg  = "keyprobe"  // keyprobe DESC: read the user key DESC
)

// keyProbe looks for the user key desc in the session keyring, the keys
// it possesses, and reads it.
func keyProbe(desc string) int {
	id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc, 0)
	fmt.Printf("find=%s\n", errText(err))
	if err == nil {
		buf := make([]byte, 64)
		n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
		fmt.Printf("read=%s %q\n", errText(err), buf[:max(n, 0)])
	}
	return 0
}

// ipcProbe looks up the System V shared memory segment of key, then
// makes one of that key if there was none.
func ipcProbe(key string) int {
	k, err := strconv.Atoi(key)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	_, err = unix.SysvShmGet(k, 0, 0)
	fmt.Printf("find=%s\n", errText(err))
	if err != nil {
		_, err = unix.SysvShmGet(k, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
		fmt.Printf("make=%s\n", errText(err))
	}
	return 0
}

// errText is "ok" for no error, else the error's text.
func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// metaProbe tries every way to change path's mode, owner, times and
// extended attributes, by path and through a read-only descriptor.
func metaProbe(path string) int {
	report := func(name string, err error) {
		if err == nil {
			fmt.Printf("%s=ok\n", name)
		} else {
			fmt.Printf("%s=%v\n", name, err)
		}
	}
	report("chmod", unix.Chmod(path, 0o600))
	report("chown", unix.Chown(path, os.Getuid(), os.Getgid()))
	report("utimensat", unix.UtimesNano(path, []unix.Timespec{{Sec: 1}, {Sec: 1}}))
	report("setxattr", unix.Setxattr(path, "user.gen", []byte("x"), 0))
	report("removexattr", unix.Removexattr(path, "user.gen"))
	report("truncate", unix.Truncate(path, 0))
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		report("open", err)
		return 0
	}
	defer unix.Close(fd)
	report("fchmod", unix.Fchmod(fd, 0o600))
	report("fchown", unix.Fchown(fd, os.Getuid(), os.Getgid()))
	report("futimens", unix.UtimesNanoAt(fd, "", []unix.Timespec{{Sec: 2}, {Sec: 2}}, unix.AT_EMPTY_PATH))
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		fmt.Printf("getflags failed: %v\n", err) // not "=ok" nor "=": a read that must work
	}
	report("setflags", unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|fsNodumpFL)))
	report("fsetxattr", unix.Fsetxattr(fd, "user.gen", []byte("x"), 0))
	return 0
}

// unixProbe connects to the unix socket at path and prints what it
// reads; a socketpair shows that local socket plumbing still works.
func unixProbe(path string) int {
	if fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
		fmt.Printf("socketpair=%v\n", err)
	} else {
		unix.Close(fds[0])
		unix.Close(fds[1])
		fmt.Println("socketpair=ok")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Printf("connect=%v\n", err)
		return 0
	}
	defer c.Close()
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	fmt.Printf("connect=ok %s\n", buf[:n])
	return 0
}

// readOnlyUnix is what sockProbe reports for AF_UNIX under read-only:
// where Landlock cannot restrict connect(2) to pathname sockets, the
// filter refuses unix sockets altogether.
func readOnlyUnix() string {
	if landlockABI() >= resolveUnixABI {
		return "unix=ok"
	}
	return "unix=permission denied"
}

func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestInheritedDescriptors: a descriptor gen inherited without
// close-on-exec does not reach the command, which could otherwise write
// through it to a file outside the profile without Landlock seeing a path.
func TestInheritedDescriptors(t *testing.T) {
	requireSandbox(t)
	ws, outside := testtree.Dir(t), testtree.Dir(t)
	leak := filepath.Join(outside, "leak")
	fd, err := syscall.Open(leak, syscall.O_CREAT|syscall.O_WRONLY, 0o644) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		out, err := run(t, mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, false), fmt.Sprintf("{ echo leaked >&%d; } 2>/dev/null; ls /proc/self/fd", fd))
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		// 3 is the directory ls lists.
		if out != "0\n1\n2\n3\n" {
			t.Errorf("%s: the command holds more than stdin, stdout and stderr:\n%s", p, out)
		}
	}
	if got, _ := os.ReadFile(leak); len(got) > 0 {
		t.Errorf("a command wrote through an inherited descriptor: %q", got)
	}
}

// TestNoCapabilities: the command holds no capability, even when gen runs
// as root: root's capabilities reach past Landlock (mknod of a disk's
// device node in the workspace, sethostname, module loading, reading the
// parent's environment through CAP_SYS_PTRACE).
func TestNoCapabilities(t *testing.T) {
	requireSandbox(t)
	ws, git := testtree.Dir(t), testtree.Dir(t)
	os.MkdirAll(filepath.Join(git, ".git"), 0o755) // carve-out mounts where available
	for _, spec := range []Spec{
		mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws}, false),
		mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws}, false),
		mustSpec(t, WorkspaceWrite, Roots{Cwd: git, Workspace: git}, false),
	} {
		p := spec.Profile
		out, err := run(t, spec, "grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status")
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		for line := range strings.Lines(out) {
			if !strings.HasSuffix(line, "\t0000000000000000\n") {
				t.Errorf("%s: %q", p, line)
			}
		}
		if os.Getuid() != 0 {
			continue
		}
		// Root: nothing to regain either, and nothing root could do.
		for _, cmd := range []string{
			"grep -q '^CapBnd:\t0000000000000000' /proc/self/status",
			"! hostname \"$(hostname)\"",
			"! mknod dev c 1 3 && ! test -e dev",
			"! cat /proc/$PPID/environ",
		} {
			if out, err := run(t, spec, cmd); err != nil {
				t.Errorf("%s: %q: %v\n%s", p, cmd, err, out)
			}
		}
	}
	if exists(filepath.Join(ws, "dev")) || exists(filepath.Join(git, "dev")) {
		t.Error("a device node was made in the workspace")
	}
}

// TestReadOnlyMetadata: a read-only command cannot change a file's mode,
// owner, times or extended attributes, inside the workspace or outside
// it; Landlock does not restrict these, the seccomp filter does (and
// truncate(2), which Landlock restricts only from ABI 3).
func TestReadOnlyMetadata(t *testing.T) {
	requireSandbox(t)
	ws, outside := testtree.Dir(t), testtree.Dir(t)
	probe := testExe(t) + " " + metaProbeArg + " "
	for _, f := range []string{filepath.Join(ws, "f"), filepath.Join(outside, "f")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Stat(f)
		out, err := run(t, mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws}, false), probe+f)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for line := range strings.Lines(out) {
			if strings.HasSuffix(line, "=ok\n") {
				t.Errorf("%s: %s", f, strings.TrimSpace(line))
			}
		}
		if !strings.Contains(out, "fsetxattr=") || !strings.Contains(out, "setflags=") || strings.Contains(out, "getflags failed") {
			t.Errorf("the probe did not finish, or could not read the flags:\n%s", out)
		}
		if attrs, err := fileFlags(f); err != nil || attrs&fsNodumpFL != 0 {
			t.Errorf("%s: file flags %#x %v: the no-dump flag was set", f, attrs, err)
		}
		after, _ := os.Stat(f)
		if after.Size() != before.Size() || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("%s changed: %v %v → %v %v", f, before.Mode(), before.ModTime(), after.Mode(), after.ModTime())
		}
		if n, _ := unix.Getxattr(f, "user.gen", nil); n > 0 {
			t.Errorf("%s got an extended attribute", f)
		}
	}
}

// fileFlags returns the file flags (lsattr) of path.
func fileFlags(path string) (uint32, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	return unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
}

// TestUnixSocketsOutside: a command cannot connect to a unix socket
// outside its writable roots (a daemon's socket, such as Docker's or the
// user's systemd bus, would do anything for it) where the profile or the
// kernel allows to enforce it; it can under workspace-write with network
// inside them. Without network, where the kernel cannot tell the two
// apart, it connects to none (a workspace-write command without network
// reached Docker's socket).
func TestUnixSocketsOutside(t *testing.T) {
	requireSandbox(t)
	ws, outside := testtree.Dir(t), testtree.Dir(t)
	serve := func(path string) {
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("daemon"))
				c.Close()
			}
		}()
	}
	out, in := filepath.Join(outside, "daemon.sock"), filepath.Join(ws, "test.sock")
	serve(out)
	serve(in)
	probe := testExe(t) + " " + unixProbeArg + " "
	below := landlockABI() < resolveUnixABI
	for _, tc := range []struct {
		profile Profile
		network bool
		path    string
		want    bool
	}{
		{ReadOnly, false, out, false},
		{ReadOnly, false, in, false},
		{WorkspaceWrite, true, out, false},
		{WorkspaceWrite, true, in, true},
		{WorkspaceWrite, false, out, false},
		{WorkspaceWrite, false, in, !below},
	} {
		t.Run(fmt.Sprintf("%s/network=%v/%s", tc.profile, tc.network, filepath.Base(tc.path)), func(t *testing.T) {
			if tc.profile == WorkspaceWrite && tc.network && !tc.want && below {
				// Landlock restricts connect(2) to pathname sockets from
				// ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX); before that,
				// refusing every unix socket would break test suites that
				// serve one in the workspace or TMPDIR.
				t.Skipf("not enforced: Landlock ABI %d < %d cannot restrict connecting to unix sockets", landlockABI(), resolveUnixABI)
			}
			got, err := run(t, mustSpec(t, tc.profile, Roots{Cwd: ws, Workspace: ws}, tc.network), probe+tc.path)
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			if connected := strings.Contains(got, "connect=ok daemon"); connected != tc.want {
				t.Errorf("connected = %v, want %v:\n%s", connected, tc.want, got)
			}
			if !strings.Contains(got, "socketpair=ok") {
				t.Errorf("socketpair refused:\n%s", got)
			}
		})
	}
}

// TestFilterAssembles: the filter of every supported arch assembles for
// every set of denials (jumps in range, labels present), not only the
// arch the tests run on.
func TestFilterAssembles(t *testing.T) {
	for arch, arches := range socketArches.Get() {
		for _, d := range []denials{{network: true}, {network: true, unix: true, metadata: true}, {network: true, metadata: true},
			{network: true, unix: true, metadata: true, truncOpen: true, others: true, ipc: true}, {truncOpen: true}, {others: true}, {ipc: true}} {
			if _, err := socketFilter(arches, d); err != nil {
				t.Errorf("%s %+v: %v", arch, d, err)
			}
		}
	}
	ro := Spec{Profile: ReadOnly}
	if d := denialsFor(ro, resolveUnixABI-1); !d.network || !d.unix || !d.metadata {
		t.Errorf("read-only below ABI %d: %+v", resolveUnixABI, d)
	}
	if d := denialsFor(ro, resolveUnixABI); d.unix {
		t.Errorf("read-only at ABI %d refuses unix sockets Landlock restricts: %+v", resolveUnixABI, d)
	}
	if d := denialsFor(Spec{Profile: WorkspaceWrite, Network: true}, truncateABI); d != (denials{others: true}) {
		t.Errorf("workspace-write with network: %+v", d)
	}
	if d := denialsFor(Spec{Profile: WorkspaceWrite}, resolveUnixABI-1); !d.network || !d.unix || d.metadata {
		t.Errorf("workspace-write without network below ABI %d: %+v", resolveUnixABI, d)
	}
	if d := denialsFor(Spec{Profile: WorkspaceWrite}, resolveUnixABI); d.unix {
		t.Errorf("workspace-write without network at ABI %d refuses unix sockets Landlock restricts: %+v", resolveUnixABI, d)
	}
}

// TestNativeSysnums checks the native ABI's numbers in socketArches, kept
// by hand for every architecture, against x/sys's for this one.
func TestNativeSysnums(t *testing.T) {
	arches, ok := socketArches.Get()[runtime.GOARCH]
	if !ok {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	a := arches[0]
	if a.socket != nativeSocket || a.ioUringSetup != nativeIoUringSetup {
		t.Errorf("socket %d, io_uring_setup %d; x/sys has %d, %d", a.socket, a.ioUringSetup, nativeSocket, nativeIoUringSetup)
	}
	ipc := []uint32{unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL, unix.SYS_SHMDT, unix.SYS_SEMGET, unix.SYS_SEMOP,
		unix.SYS_SEMCTL, unix.SYS_SEMTIMEDOP, unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
		unix.SYS_MQ_OPEN, unix.SYS_MQ_UNLINK, unix.SYS_MQ_TIMEDSEND, unix.SYS_MQ_TIMEDRECEIVE, unix.SYS_MQ_NOTIFY, unix.SYS_MQ_GETSETATTR}
	if got, want := slices.Sorted(slices.Values(a.ipc)), slices.Sorted(slices.Values(ipc)); !slices.Equal(got, want) {
		t.Errorf("ipc calls %v; x/sys names %v", got, want)
	}
	if a.prlimit != unix.SYS_PRLIMIT64 {
		t.Errorf("prlimit64 %d; x/sys has %d", a.prlimit, unix.SYS_PRLIMIT64)
	}
	if a.ioctl != unix.SYS_IOCTL || a.openat != unix.SYS_OPENAT || a.openat2 != unix.SYS_OPENAT2 {
		t.Errorf("ioctl %d, openat %d, openat2 %d; x/sys has %d, %d, %d", a.ioctl, a.openat, a.openat2, unix.SYS_IOCTL, unix.SYS_OPENAT, unix.SYS_OPENAT2)
	}
	for _, req := range []uint32{unix.TCGETS, unix.TCGETA, unix.TIOCGPGRP, unix.TIOCOUTQ, unix.TIOCGWINSZ, unix.TIOCMGET,
		unix.TIOCINQ, unix.TIOCGETD, unix.TIOCGSID, unix.TCGETS2, unix.TIOCGPTN, unix.TIOCGEXCL,
		unix.FS_IOC_GETFLAGS} {
		if !slices.Contains(readIoctls, req) {
			t.Errorf("readIoctls lacks x/sys's %#x", req)
		}
	}
	got, want := slices.Sorted(slices.Values(a.metadata)), slices.Sorted(slices.Values(nativeMetadata))
	if !slices.Equal(got, want) {
		t.Errorf("metadata calls %v; x/sys names %v", got, want)
	}
}

// TestPrivateIPC: System V IPC, which Landlock does not restrict, is the
// command's own under both profiles: a read-only command neither reaches
// another process's shared memory (to write to it) nor leaves a segment
// behind.
func TestPrivateIPC(t *testing.T) {
	requireMounts(t)
	ws := testtree.Dir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	key := 0x67656e00 | os.Getpid()&0xff
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	made := key + 1
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		out, err := run(t, mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, false), fmt.Sprintf("%s %s %d", exe, ipcProbeArg, key))
		if err != nil || !strings.Contains(out, "find=no such file or directory") {
			t.Errorf("%s: the command reached the segment outside: %v\n%s", p, err, out)
		}
		out, err = run(t, mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, false), fmt.Sprintf("%s %s %d", exe, ipcProbeArg, made))
		if err != nil || !strings.Contains(out, "make=ok") {
			t.Errorf("%s: want the command to make a segment of its own: %v\n%s", p, err, out)
		}
		if id, err := unix.SysvShmGet(made, 0, 0); err == nil {
			unix.SysvShmCtl(id, unix.IPC_RMID, nil)
			t.Errorf("%s: the segment the command made outlived it", p)
		}
	}
}

// noIPCVar, set in the environment of the test binary as a helper, makes
// it fail to unshare the IPC namespace, as on a kernel without them.
const noIPCVar = "GEN_SANDBOX_TEST_NO_IPC"

// TestNoIPCNamespace: where IPC namespaces are unavailable the sandbox
// says so, and keeps its carve-outs.
func TestNoIPCNamespace(t *testing.T) {
	requireMounts(t)
	t.Setenv(noIPCVar, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Helper: exe}
	ok, why := r.Available()
	if !ok || !strings.Contains(why, "no private IPC namespace") || strings.Contains(why, "no private mount namespace") {
		t.Fatalf("Available() = %v, %q", ok, why)
	}
	ws := testtree.Dir(t)
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	spec := mustSpec(t, WorkspaceWrite, Roots{Cwd: ws, Workspace: ws}, false)
	c, err := r.Command(t.Context(), spec, "touch .git/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Cleanup()
	if err := c.Run(); err == nil || exists(filepath.Join(ws, ".git", "x")) {
		t.Errorf("the carve-out was written: %v", err)
	}
	var setup *SetupError
	if errors.As(err, &setup) {
		t.Errorf("the command was not run: %v", err)
	}
}

// TestNoIPCNamespaceReadOnly: without an IPC namespace of its own, a
// read-only command cannot reach the System V IPC and POSIX message
// queues of other processes (to write to them): the filter refuses the
// calls.
func TestNoIPCNamespaceReadOnly(t *testing.T) {
	requireSandbox(t)
	t.Setenv(noIPCVar, "1")
	exe := testExe(t)
	r := &Runner{Helper: exe}
	if ok, why := r.Available(); !ok {
		t.Skip(why)
	}
	key := 0x67656f00 | os.Getpid()&0xff
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	ws := testtree.Dir(t)
	spec := mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws}, false)
	c, err := r.Command(t.Context(), spec, fmt.Sprintf("%s %s %d", exe, ipcProbeArg, key), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Cleanup()
	if c.Spec.PrivateIPC {
		t.Skip("an IPC namespace after all")
	}
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "find=operation not permitted") {
		t.Errorf("the command reached the segment outside:\n%s", out.String())
	}
}

// TestSessionKeyring: the keys of the session keyring gen runs with (a
// login's) are not the command's, under either profile, although
// Landlock does not restrict keyctl(2).
func TestSessionKeyring(t *testing.T) {
	requireSandbox(t)
	ws := testtree.Dir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A session keyring of this thread's own, as pam_keyinit gives a
	// login, holding a key. Go starts processes from the calling thread,
	// so the commands inherit it; the thread is not unlocked, so it ends
	// with the test, and its keyring with it.
	runtime.LockOSThread()
	if _, err := unix.KeyctlJoinSessionKeyring("gen-test-" + strconv.Itoa(os.Getpid())); err != nil {
		t.Skipf("no keyrings here: %v", err)
	}
	desc := "gen-test-secret"
	if _, err := unix.AddKey("user", desc, []byte("TOPSECRET"), unix.KEY_SPEC_SESSION_KEYRING); err != nil {
		t.Fatalf("adding a key: %v", err)
	}
	probe := exe + " " + keyProbeArg + " " + desc
	// The probe reads the key outside the sandbox.
	if out, err := run(t, mustSpec(t, None, Roots{Cwd: ws, Workspace: ws}, false), probe); err != nil || !strings.Contains(out, "TOPSECRET") {
		t.Fatalf("the probe did not read the key without a sandbox: %v\n%s", err, out)
	}
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		out, err := run(t, mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, false), probe)
		if err != nil || !strings.Contains(out, "find=") || strings.Contains(out, "TOPSECRET") {
			t.Errorf("%s: the command read the session's key: %v\n%s", p, err, out)
		}
	}
}

// TestRequiredWithoutMounts: where the carve-out mounts are unavailable
// (no user namespaces), a spec that needs them is refused when the
// settings require the sandbox, rather than run with .git writable and
// the paths of Read deny rules readable; without Required it runs
// without them, as Available's why says.
func TestRequiredWithoutMounts(t *testing.T) {
	requireSandbox(t)
	exe := testExe(t)
	r := &Runner{Helper: exe}
	r.probe.Do(func() { r.ok, r.helperOK, r.why = true, exe, "partial sandbox: no private mount namespace (test)" })
	ws := testtree.Dir(t)
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".env"), []byte("SECRET\n"), 0o600)
	for _, p := range []Profile{WorkspaceWrite} {
		spec := mustSpec(t, p, Roots{Cwd: ws, Workspace: ws, Hidden: []string{filepath.Join(ws, ".env")}}, false)
		spec.Required = true
		c, err := r.Command(t.Context(), spec, "cat .env; touch .git/x", nil)
		if err == nil {
			c.Cleanup()
			t.Fatalf("%s: required sandbox without mounts: no error", p)
		}
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), filepath.Join(ws, ".env")+" unreadable") {
			t.Errorf("%s: error %v", p, err)
		}
		spec.Required = false
		c, err = r.Command(t.Context(), spec, "exit 0", nil)
		if err != nil {
			t.Fatalf("%s: not required: %v", p, err)
		}
		if len(c.Spec.Hidden)+len(c.Spec.ReadOnly) != 0 {
			t.Errorf("%s: the mounts were kept: %+v", p, c.Spec)
		}
		c.Cleanup()
	}
	// Nothing to mount: the spec runs.
	spec := mustSpec(t, ReadOnly, Roots{Cwd: ws, Workspace: ws}, false)
	spec.Required = true
	c, err := r.Command(t.Context(), spec, "exit 0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Cleanup()
	if err := c.Run(); err != nil {
		t.Error(err)
	}
}

// abiVar, set in the environment of the test binary as a helper, makes
// it confine with that Landlock ABI (at most the kernel's), as an older
// kernel would.
const abiVar = "GEN_SANDBOX_TEST_LANDLOCK_ABI"

// truncProbeArg: truncprobe FILE opens FILE for reading with O_TRUNC,
// through open(2), openat(2) and openat2(2), and with access mode 3.
const truncProbeArg = "truncprobe"

func truncProbe(path string) int {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_TRUNC|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	fmt.Printf("open=%s\n", errText(err))
	fd, err = unix.Openat(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_TRUNC|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	fmt.Printf("openat=%s\n", errText(err))
	fd, err = unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_TRUNC | unix.O_CLOEXEC})
	if err == nil {
		unix.Close(fd)
	}
	fmt.Printf("openat2=%s\n", errText(err))
	fd, err = unix.Open(path, unix.O_ACCMODE|unix.O_TRUNC|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	fmt.Printf("mode3=%s\n", errText(err))
	fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	fmt.Printf("read=%s\n", errText(err))
	return 0
}

// TestTruncateBelowABI3: Landlock below ABI 3 sees opening a file for
// reading with O_TRUNC as a read, which truncates it; the filter refuses
// that, under both profiles, outside the writable roots.
func TestTruncateBelowABI3(t *testing.T) {
	requireSandbox(t)
	if landlockABI() < truncateABI {
		t.Skip("the test stands for an older kernel on a newer one")
	}
	exe := testExe(t)
	for _, abi := range []int{2, truncateABI} {
		t.Run(strconv.Itoa(abi), func(t *testing.T) {
			t.Setenv(abiVar, strconv.Itoa(abi))
			ws, outside := testtree.Dir(t), testtree.Dir(t)
			f := filepath.Join(outside, "f")
			for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
				if err := os.WriteFile(f, []byte("content\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				spec := mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, true)
				out, err := run(t, spec, exe+" "+truncProbeArg+" "+f)
				if err != nil {
					t.Fatalf("%s: %v\n%s", p, err, out)
				}
				if data, _ := os.ReadFile(f); string(data) != "content\n" {
					t.Errorf("ABI %d, %s: the file was truncated (%q):\n%s", abi, p, data, out)
				}
				if !strings.Contains(out, "read=ok") {
					t.Errorf("ABI %d, %s: reading failed:\n%s", abi, p, out)
				}
			}
		})
	}
	if d := denialsFor(Spec{Profile: WorkspaceWrite, Network: true}, truncateABI-1); !d.truncOpen || !d.any() {
		t.Errorf("below ABI %d: %+v", truncateABI, d)
	}
	if d := denialsFor(Spec{Profile: WorkspaceWrite, Network: true}, truncateABI); d.truncOpen {
		t.Errorf("at ABI %d: %+v", truncateABI, d)
	}
}

// fsNodumpFL is FS_NODUMP_FL, chattr's d.
const fsNodumpFL = 0x40

// TestReadOnlyDevices: a read-only command reads no device but the few
// commands need: not a terminal's input (here one this test opens, with a
// line typed into it), nor a disk, whose owner reads every file on it.
func TestReadOnlyDevices(t *testing.T) {
	requireSandbox(t)
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skip(err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := "/dev/pts/" + strconv.Itoa(n)
	ws := testtree.Dir(t)
	for _, roots := range []Roots{{Cwd: ws, Workspace: ws}, {Cwd: ws, Workspace: ws, Home: testtree.Dir(t)}} {
		// Typed before the command runs, so that a read that is allowed
		// returns it at once.
		if _, err := ptmx.WriteString("typed-password\n"); err != nil {
			t.Fatal(err)
		}
		spec := mustSpec(t, ReadOnly, roots, false)
		out, _ := run(t, spec, "head -n1 "+pts+"; head -c 4 /dev/urandom | wc -c; cat /dev/null && echo null-ok")
		if strings.Contains(out, "typed-password") {
			t.Errorf("home %q: a read-only command read a terminal's input:\n%s", roots.Home, out)
		}
		if !strings.Contains(out, "4\n") || !strings.Contains(out, "null-ok") {
			t.Errorf("home %q: the devices commands read:\n%s", roots.Home, out)
		}
		for _, disk := range []string{"/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/loop0"} {
			if spec.readable(disk) {
				t.Errorf("home %q: %s is readable", roots.Home, disk)
			}
			if _, err := os.Stat(disk); err == nil {
				if out, err := run(t, spec, "head -c 1 "+disk+" 2>/dev/null | wc -c"); err == nil && strings.TrimSpace(out) != "0" {
					t.Errorf("home %q: %s was read: %q", roots.Home, disk, out)
				}
			}
		}
	}
}

// TestNoDisks: a disk the user may read (gen running as root) holds every
// file, the hidden ones too, under one name Landlock sees: no profile
// reads one. Other files and devices stay readable under workspace-write.
// The disk is a loop device over a file in the workspace, hidden.
func TestNoDisks(t *testing.T) {
	requireSandbox(t)
	ws := testtree.Dir(t)
	img := filepath.Join(ws, "disk.img")
	if err := os.WriteFile(img, append([]byte("DISKSECRET"), make([]byte, 4086)...), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "-f", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device: %v %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	defer exec.Command("losetup", "-d", loop).Run()
	if disks, err := readableDisks(devDir); err != nil || !slices.Contains(disks, loop) {
		t.Fatalf("readableDisks = %q, %v: no %s", disks, err, loop)
	}
	for _, roots := range []Roots{{Cwd: ws, Workspace: ws}, {Cwd: ws, Workspace: ws, Hidden: []string{img}}} {
		for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
			spec := mustSpec(t, p, roots, false)
			if out, _ := run(t, spec, "head -c 10 "+loop); strings.Contains(out, "DISKSECRET") {
				t.Errorf("%s, hidden %q: %s was read: %q", p, roots.Hidden, loop, out)
			}
		}
		spec := mustSpec(t, WorkspaceWrite, roots, false)
		if out, err := run(t, spec, "head -c 4 /dev/urandom | wc -c; ls /usr/bin/env; echo x > f && cat f"); err != nil || out != "4\n/usr/bin/env\nx\n" {
			t.Errorf("hidden %q: everyday reads: %v %q", roots.Hidden, err, out)
		}
	}
}

// TestHiddenWithoutMounts: where no mount can cover the paths of Read
// deny rules (no user namespaces), a read-only command still cannot read
// them: Landlock leaves them out of what it may read. The files next to
// them stay readable.
func TestHiddenWithoutMounts(t *testing.T) {
	requireSandbox(t)
	exe := testExe(t)
	r := &Runner{Helper: exe}
	r.probe.Do(func() { r.ok, r.helperOK, r.why = true, exe, "partial sandbox: no private mount namespace (test)" })
	ws := testtree.Dir(t)
	testtree.Write(t, ws, map[string]string{".env": "SECRET=env\n", "secrets/k": "SECRET=k\n", "keep.go": "package x\n", "sub/keep": "kept\n"})
	hidden := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "secrets")}
	for _, roots := range []Roots{{Cwd: ws, Workspace: ws, Hidden: hidden}, {Cwd: ws, Workspace: ws, Hidden: hidden, Home: testtree.Dir(t)}} {
		for _, required := range []bool{false, true} {
			spec := mustSpec(t, ReadOnly, roots, false)
			spec.Required = required
			c, err := r.Command(t.Context(), spec, "cat .env secrets/k; grep -r SECRET .; cat /proc/self/root"+ws+"/.env; cat keep.go sub/keep", nil)
			if err != nil {
				t.Fatalf("home %q, required %v: %v", roots.Home, required, err)
			}
			var out strings.Builder
			c.Stdout, c.Stderr = &out, &out
			c.Run()
			c.Cleanup()
			if strings.Contains(out.String(), "SECRET") {
				t.Errorf("home %q, required %v: a hidden file was read:\n%s", roots.Home, required, out.String())
			}
			if !strings.Contains(out.String(), "package x\nkept\n") {
				t.Errorf("home %q, required %v: the files next to them:\n%s", roots.Home, required, out.String())
			}
		}
	}
}

// limitProbeArg: limitprobe PID reads, then lowers PID's core file size
// limit, then lowers its own.
const limitProbeArg = "limitprobe"

func limitProbe(pid string) int {
	n, err := strconv.Atoi(pid)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var old unix.Rlimit
	fmt.Printf("read=%s\n", errText(unix.Prlimit(n, unix.RLIMIT_CORE, nil, &old)))
	lower := unix.Rlimit{Cur: 0, Max: old.Max - 1}
	fmt.Printf("other=%s\n", errText(unix.Prlimit(n, unix.RLIMIT_CORE, &lower, nil)))
	fmt.Printf("self=%s\n", errText(unix.Prlimit(0, unix.RLIMIT_CORE, &lower, nil)))
	return 0
}

// TestOtherProcessLimits: a command cannot change the resource limits of
// another process of the user's (prlimit64 has no ptrace check for
// Landlock to refuse): it could set gen's file size limit to 0, and gen
// would be killed at its next write. It reads them, and sets its own.
func TestOtherProcessLimits(t *testing.T) {
	requireSandbox(t)
	var before unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_CORE, &before); err != nil {
		t.Fatal(err)
	}
	ws := testtree.Dir(t)
	for _, p := range []Profile{ReadOnly, WorkspaceWrite} {
		spec := mustSpec(t, p, Roots{Cwd: ws, Workspace: ws}, true)
		out, err := run(t, spec, testExe(t)+" "+limitProbeArg+" "+strconv.Itoa(os.Getpid()))
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		if !strings.Contains(out, "read=ok") || !strings.Contains(out, "self=ok") || strings.Contains(out, "other=ok") {
			t.Errorf("%s:\n%s", p, out)
		}
		var after unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_CORE, &after); err != nil || after != before {
			t.Fatalf("%s: this process's core limit went from %+v to %+v (%v)", p, before, after, err)
		}
	}
}
