package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/textfile"
)

// The helper's inherited descriptors: the sealed memfd holding the Spec,
// and the write end of the status pipe. Both are close-on-exec once the
// helper runs, so the command inherits neither.
const (
	specFD   = 3
	statusFD = 4
)

// maxSpec bounds the Spec the helper reads.
const maxSpec = 1 << 20

// HelperMain is the hidden subcommand: args are what follows HelperArg
// (exactly one, the command). It reads the Spec from its inherited memfd,
// confines its own process (carve-out mounts, Landlock, seccomp) and execs
// bash -c COMMAND. It returns only on failure, with ExitSetupFailed, after
// writing why to stderr and to the status pipe: a restriction that cannot
// be applied means the command does not run.
func HelperMain(args []string) int {
	// Mount namespace, cwd and exec all belong to this one thread.
	runtime.LockOSThread()
	status := closeOnExec(statusFD, "status")
	if status != nil {
		// Started by hand, fd 4 may be anything: write only to a pipe.
		if fi, err := status.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			status = nil
		}
	}
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if status != nil {
			status.WriteString(msg)
		}
		fmt.Fprintf(os.Stderr, "gen sandbox: %s; the command was not run\n", msg)
		return ExitSetupFailed
	}
	if status == nil {
		return fail("no status descriptor: the helper must be started by sandbox.Command")
	}
	if len(args) != 1 {
		return fail("want one command argument, got %d", len(args))
	}
	spec, err := readSpec()
	if err != nil {
		return fail("reading the spec: %v", err)
	}
	if spec.Profile == None {
		return fail("profile none needs no helper")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return fail("%v", err)
	}
	if spec.namespaces() {
		if err := privateMounts(); err != nil {
			return fail("%v", err)
		}
		if err := pin(spec.pins()); err != nil {
			return fail("pinning directories: %v", err)
		}
		if err := mountReadOnly(spec.ReadOnly); err != nil {
			return fail("read-only mounts: %v", err)
		}
		if err := hide(spec.Hidden); err != nil {
			return fail("hiding denied paths: %v", err)
		}
	}
	if spec.PrivateIPC {
		// privateMounts made sure this is a user namespace of the
		// helper's own, whose CAP_SYS_ADMIN this needs.
		if err := unshareIPC(); err != nil {
			return fail("unshare IPC namespace: %v", err)
		}
	}
	// Re-enter the working directory through the new mounts: the one
	// inherited from before them would still reach the writable originals.
	if err := os.Chdir(spec.Cwd); err != nil {
		return fail("%v", err)
	}
	abi := helperABI()
	if err := restrictLandlock(spec, abi); err != nil {
		return fail("landlock: %v", err)
	}
	if d := denialsFor(spec, abi); d.any() {
		if err := restrictSyscalls(d); err != nil {
			return fail("seccomp: %v", err)
		}
	}
	if err := newSessionKeyring(); err != nil {
		return fail("session keyring: %v", err)
	}
	// No capability survives into the command: not those gen's Command
	// lent the helper for the mounts, nor root's (CAP_MKNOD would let a
	// workspace-write command make a disk's device node in the workspace
	// and write through it; CAP_SYS_ADMIN, CAP_SYS_MODULE and the like
	// reach past Landlock altogether).
	if err := dropCapabilities(); err != nil {
		return fail("dropping capabilities: %v", err)
	}
	// Only stdin, stdout and stderr reach the command: a descriptor gen
	// inherited without close-on-exec (from whatever started it) would be
	// written through without Landlock ever seeing a path.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail("closing inherited descriptors: %v", err)
	}
	err = syscall.Exec(bash, []string{"bash", "-c", args[0]}, os.Environ())
	return fail("exec %s: %v", bash, err)
}

// newSessionKeyring gives this thread, and so the command, a new, empty,
// anonymous session keyring in place of the one it inherited. The kernel
// keyrings are out of Landlock's reach, and a process may read the
// payload of every key it possesses: those of its session keyring (a
// login's, which pam_keyinit makes, holding Kerberos tickets or tokens),
// and, through the default one, of the user keyring. With a keyring of
// its own the command possesses none of them. Where keyctl(2) is not
// there, or refused whatever it is asked (a container's seccomp profile),
// neither is it for the command, and nothing is done.
func newSessionKeyring() error {
	// NULL, not "": a name would join the keyring of that name, which
	// another command may have made.
	_, _, errno := unix.RawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0)
	if errno == unix.EPERM {
		// Refused the new keyring: the command must be refused the
		// inherited one too.
		ring := unix.KEY_SPEC_SESSION_KEYRING
		_, _, errno = unix.RawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(ring), 0)
		if errno == 0 {
			return errors.New("keyctl refused a new session keyring but reaches the inherited one")
		}
	}
	if errno == 0 || errno == unix.ENOSYS || errno == unix.EPERM {
		return nil
	}
	return errno
}

// unshareIPC gives this thread a new IPC namespace; a variable, so that
// the tests can stand for a kernel without IPC namespaces.
var unshareIPC = func() error { return unix.Unshare(unix.CLONE_NEWIPC) }

// closeOnExec marks fd close-on-exec and returns it as a file, or nil if
// fd is not open.
func closeOnExec(fd int, name string) *os.File {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), name)
}

// readSpec reads and validates the Spec from the memfd. Unknown fields are
// errors: a Spec this helper does not fully understand is not applied.
func readSpec() (Spec, error) {
	f := closeOnExec(specFD, "spec")
	if f == nil {
		return Spec{}, errors.New("no spec descriptor")
	}
	defer f.Close()
	seals, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
	if err != nil {
		return Spec{}, fmt.Errorf("spec descriptor: %w", err)
	}
	if seals&unix.F_SEAL_WRITE == 0 {
		return Spec{}, errors.New("spec descriptor is not sealed")
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, maxSpec+1))
	if err != nil {
		return Spec{}, err
	}
	if len(data) > maxSpec {
		return Spec{}, errors.New("spec too large")
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return Spec{}, err
	}
	if err := s.validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// privateMounts gives this thread a mount namespace of its own, with
// every mount private to it. It refuses to run outside a user namespace
// of its own: there the mounts would not be private to the command, and a
// root command could leave them with setns.
func privateMounts() error {
	if err := ownUserNamespace(); err != nil {
		return err
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	return nil
}

// hide covers each path, in the private mount namespace: a directory by
// an empty read-only tmpfs that no one may list (mode 000; the command
// has no capability to pass that), a file by /dev/null, bound read-only.
// Paths are mounted over in order, so one inside another hidden
// directory is already gone and is skipped.
func hide(paths []string) error {
	for _, p := range paths {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.EACCES):
			continue // under a directory hidden before it
		case err != nil:
			return fmt.Errorf("%s: %w", p, err)
		case fi.IsDir():
			flags := uintptr(unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
			if err := unix.Mount("tmpfs", p, "tmpfs", flags, "mode=000,size=4k,nr_inodes=1"); err != nil {
				return fmt.Errorf("cover %s: %w", p, err)
			}
		case fi.Mode().IsRegular():
			if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
				return fmt.Errorf("cover %s: %w", p, err)
			}
			var st unix.Statfs_t
			if err := unix.Statfs(p, &st); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | lockedFlags(st.Flags))
			if err := unix.Mount("", p, "", flags, ""); err != nil {
				return fmt.Errorf("remount %s read-only: %w", p, err)
			}
		default:
			return fmt.Errorf("%s: not a file or directory", p)
		}
	}
	return nil
}

// pin bind-mounts each directory over itself, writable as it was, in
// the private mount namespace: a mount point cannot be renamed or
// removed (Spec.pins).
func pin(dirs []string) error {
	for _, d := range dirs {
		err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, "")
		if errors.Is(err, unix.ENOENT) {
			continue // gone since the spec was made, with what it held
		}
		if err != nil {
			return fmt.Errorf("bind %s: %w", d, err)
		}
	}
	return nil
}

// mountReadOnly bind-mounts each path read-only over itself, in the
// private mount namespace (privateMounts).
func mountReadOnly(paths []string) error {
	for _, p := range paths {
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | lockedFlags(st.Flags))
		if err := unix.Mount("", p, "", flags, ""); err != nil {
			return fmt.Errorf("remount %s read-only: %w", p, err)
		}
	}
	return nil
}

// ownUserNamespace returns nil if this process is in a user namespace
// that maps fewer ids than the initial one.
func ownUserNamespace() error {
	data, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return err
	}
	if f := strings.Fields(string(data)); len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295" {
		return errors.New("not in a user namespace of its own")
	}
	return nil
}

// lockedFlags returns the mount flags of a statfs result that a remount
// in a user namespace must keep (the kernel refuses to clear them).
func lockedFlags(st int64) int {
	var f int
	for _, m := range []struct{ st, ms int }{
		{unix.ST_NOSUID, unix.MS_NOSUID},
		{unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st&int64(m.st) != 0 {
			f |= m.ms
		}
	}
	if st&(unix.ST_NOATIME|unix.ST_RELATIME) == 0 {
		f |= unix.MS_STRICTATIME
	}
	return f
}

// helperABI is the Landlock ABI the helper confines with: the kernel's;
// a variable, so that the tests can stand for an older kernel.
var helperABI = landlockABI

// landlockConfigs are go-landlock's configurations by ABI, from 1.
var landlockConfigs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// landlockABI returns the kernel's Landlock ABI version, 0 without it.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// restrictLandlock restricts the whole process with the best ruleset of
// Landlock ABI abi (the kernel's) that the kernel supports: readable everything, or only the Spec's Readable paths
// where it has them; writable only the devices and the Spec's writable
// roots; no TCP and no IPC out of the domain without network. Best effort
// degrades rights the kernel does not know, but a kernel without Landlock
// is an error, not a silent no-op.
func restrictLandlock(s Spec, abi int) error {
	if abi < 1 {
		return errors.New("the kernel does not support Landlock")
	}
	rules := []landlock.Rule{
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
	}
	readable := s.Readable
	if len(readable) == 0 {
		// The whole file system, but for the disks the command could
		// read: every file on one, hidden ones included.
		disks, err := readableDisks(devDir)
		if err != nil {
			return err
		}
		if len(disks) == 0 {
			rules = append(rules, landlock.RODirs("/"))
		} else if err := coverBut(&readable, "/", disks); err != nil {
			return err
		}
	}
	for _, r := range readable {
		// Lstat: a path NewSpec listed that became a link since is not
		// followed; one that is gone is no longer there to read, also
		// when it goes before Restrict opens it (another process's
		// temporary directory beside a private root).
		fi, err := os.Lstat(r)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return err
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(r).IgnoreIfMissing())
		case fi.Mode().Type() == 0, fi.Mode().Type() == os.ModeDevice|os.ModeCharDevice:
			// A file, or a device re-opened (readDevices).
			rules = append(rules, landlock.ROFiles(r).IgnoreIfMissing())
		}
	}
	for _, w := range s.Writable {
		fi, err := os.Stat(w)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			rules = append(rules, landlock.RWDirs(w).WithRefer().WithResolveUnix())
		} else {
			rules = append(rules, landlock.RWFiles(w))
		}
	}
	cfg := landlockConfigs[min(abi, len(landlockConfigs))-1]
	if s.Network {
		cfg.HandledAccessNet = 0
		cfg.Scoped = landlock.ScopedSet(llsys.ScopeSignal)
	}
	return cfg.BestEffort().Restrict(rules...)
}

// maxDevEntries bounds the entries readableDisks looks at.
const maxDevEntries = 1 << 16

// readableDisks returns the block devices under dir (symbolic links not
// followed) this process may read: as root, or in the disk group, a raw
// disk. Landlock checks the path a command opens, and a disk holds every
// file under one name. More entries than maxDevEntries is an error: a
// disk past the bound would stay readable.
func readableDisks(dir string) ([]string, error) {
	var out []string
	seen := 0
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := textfile.ReadDir(dir)
		if err != nil {
			// What cannot be listed cannot be searched for a disk
			// either, but for root, who lists everything.
			return nil
		}
		for _, e := range entries {
			if seen++; seen > maxDevEntries {
				return fmt.Errorf("more than %d entries under %s to look for disks in", maxDevEntries, dir)
			}
			p := filepath.Join(dir, e.Name())
			switch t := e.Type(); {
			case t&os.ModeSymlink != 0:
			case t.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case t&os.ModeDevice != 0 && t&os.ModeCharDevice == 0 && mayRead(p):
				out = append(out, p)
			}
		}
		return nil
	}
	err := walk(dir)
	return out, err
}

// mayRead reports whether this process's user or groups may read path:
// faccessat(2) for the effective ids, where the capabilities of a user
// namespace of the helper's own count only for what its user owns (root's
// disks, when gen runs as root).
func mayRead(path string) bool {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.R_OK, unix.AT_EACCESS|unix.AT_SYMLINK_NOFOLLOW) == nil
}

// dropCapabilities leaves the calling thread (the one that execs the
// command) with no capability and none to regain: ambient, inheritable,
// permitted and effective sets cleared, with no_new_privs, under which
// exec grants nothing beyond the permitted set (not even to root, whom it
// would otherwise give the bounding set); the bounding set is emptied
// too where the thread may (CAP_SETPCAP). It checks the result.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("ambient: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		for c := 0; ; c++ {
			in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability
			}
			if err != nil {
				return fmt.Errorf("bounding set: %w", err)
			}
			if in == 1 {
				if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
					return fmt.Errorf("bounding set, capability %d: %w", c, err)
				}
			}
		}
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return errors.New("capabilities left after dropping them")
		}
	}
	return nil
}
