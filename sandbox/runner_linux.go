package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// probeTimeout is a hang guard for the one-time probe.
const probeTimeout = 30 * time.Second

// Available reports whether r can confine commands: ok is false when the
// kernel has no Landlock or the helper cannot be found, and why says so.
// ok with a non-empty why means a partial sandbox: Landlock works but the
// carve-out mounts do not (no unprivileged user namespaces), so .git, .gen
// and .claude inside writable roots are writable; Command then leaves
// them out. Without IPC namespaces, workspace-write commands share System
// V IPC and POSIX message queues (read-only ones cannot use them). The
// probe runs once per Runner.
func (r *Runner) Available() (ok bool, why string) {
	r.probe.Do(r.check)
	return r.ok, r.why
}

func (r *Runner) check() {
	helper := r.Helper
	if helper == "" {
		exe, err := os.Executable()
		if err != nil {
			r.why = fmt.Sprintf("no sandbox: cannot find gen's own executable for the helper: %v", err)
			return
		}
		helper = exe
	}
	r.helperOK = helper
	if landlockABI() < 1 {
		r.why = "no sandbox: this kernel does not support Landlock"
		return
	}
	r.ok = true
	var partial []string
	if gaps := abiGaps(landlockABI()); gaps != "" {
		partial = append(partial, gaps)
	}
	// A kernel without IPC namespaces still has the carve-outs.
	if err := r.probeMounts(true); err == nil {
		r.userns, r.ipc = true, true
	} else if err2 := r.probeMounts(false); err2 == nil {
		r.userns = true
		partial = append(partial, fmt.Sprintf("no private IPC namespace (%v), so workspace-write commands share System V IPC and POSIX message queues with other processes (read-only ones cannot use them)", err))
	} else {
		partial = append(partial, fmt.Sprintf("no private mount namespace (%v), so .git, .gen and .claude inside the workspace are not protected from writes, nor the paths of Read deny rules hidden from workspace-write commands (read-only ones cannot read them), and workspace-write commands share System V IPC and POSIX message queues with other processes (read-only ones cannot use them)", err2))
	}
	if len(partial) > 0 {
		r.why = "partial sandbox: " + strings.Join(partial, "; ")
	}
}

// abiGaps says what a kernel with Landlock ABI abi (at least 1) leaves
// unenforced of what the profiles ask, beyond the gaps of every current
// kernel that the README lists; "" when nothing. gen still confines what
// the kernel can: Landlock is applied best effort.
func abiGaps(abi int) string {
	var gaps []string
	if abi < 6 {
		gaps = append(gaps, "signals to and abstract unix sockets of processes outside the sandbox")
	}
	if abi < 5 {
		gaps = append(gaps, "device ioctls under workspace-write") // read-only: readIoctls
	}
	if abi < truncateABI {
		// Under read-only the filter refuses truncate(2), and opening for
		// reading with O_TRUNC under both (denialsFor).
		gaps = append(gaps, "truncate(2) of files outside the writable roots under workspace-write")
	}
	if len(gaps) == 0 {
		return ""
	}
	return fmt.Sprintf("Landlock ABI %d of this kernel does not restrict %s", abi, strings.Join(gaps, ", "))
}

// probeMounts runs the helper once with a carve-out mount and, with ipc,
// a private IPC namespace.
func (r *Runner) probeMounts(ipc bool) error {
	dir, err := os.MkdirTemp("", "gen-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	ro := filepath.Join(dir, ".git")
	if err := os.Mkdir(ro, 0o700); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	spec := Spec{Profile: WorkspaceWrite, Cwd: dir, Writable: []string{dir}, ReadOnly: []string{ro}, Network: true, PrivateIPC: ipc}
	c, err := r.command(ctx, spec, "exit 0", os.Environ())
	if err != nil {
		return err
	}
	defer c.Cleanup()
	return c.Run()
}

// Command returns the command that runs bash -c command under spec, in
// spec.Cwd, with environment env (nil means os.Environ()). For
// WorkspaceWrite a per-run temporary directory is created, made writable
// and named by TMPDIR; Cleanup removes it. Profile None runs bash
// directly. For other profiles Command fails with ErrUnavailable where
// Available is false. Where IPC namespaces are available it sets
// spec.PrivateIPC; where user namespaces are not (no carve-out mounts) it
// leaves spec.ReadOnly and spec.Hidden out (Available's why says so),
// unless spec.Required: then it fails with ErrUnavailable. A ReadOnly
// spec's hidden paths are then left out of what Landlock lets it read
// (withoutHidden) instead.
func (r *Runner) Command(ctx context.Context, spec Spec, command string, env []string) (*Cmd, error) {
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if env == nil {
		env = os.Environ()
	}
	if spec.Profile == None {
		c := exec.CommandContext(ctx, "bash", "-c", command)
		c.Dir, c.Env = spec.Cwd, env
		inSession(c, false)
		return &Cmd{Cmd: c, Spec: spec}, nil
	}
	if ok, why := r.Available(); !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, why)
	}
	if !r.userns {
		if spec.Profile == ReadOnly && len(spec.Hidden) > 0 {
			// Landlock keeps them unreadable instead, where it can
			// say so in few enough rules.
			if readable, err := withoutHidden(spec.Readable, spec.Hidden); err == nil {
				spec.Readable, spec.Hidden = readable, nil
			}
		}
		if what := spec.mounted(); spec.Required && what != "" {
			// What the gate relies on would not hold: .git and the
			// paths of Edit deny rules writable, those of Read deny
			// rules readable.
			return nil, fmt.Errorf("%w: the settings require the sandbox (sandbox.required), but it cannot keep %s here: %s", ErrUnavailable, what, r.why)
		}
		spec.ReadOnly, spec.Hidden = nil, nil
	}
	spec.PrivateIPC = r.ipc
	return r.command(ctx, spec, command, env)
}

// command builds the helper's command for spec, without consulting the
// probe.
func (r *Runner) command(ctx context.Context, spec Spec, command string, env []string) (_ *Cmd, err error) {
	out := &Cmd{}
	defer func() {
		if err != nil {
			out.Cleanup()
		}
	}()
	spec.Writable = slices.Clone(spec.Writable)
	if spec.Profile == WorkspaceWrite {
		tmp, err := os.MkdirTemp("", "gen-run-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		out.TempDir = tmp
		if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		spec.Writable = append(spec.Writable, tmp)
		env = withEnv(env, "TMPDIR", tmp)
	}
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	specFile, err := sealedSpec(spec)
	if err != nil {
		return nil, err
	}
	out.child = append(out.child, specFile)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	out.status = pr
	out.child = append(out.child, pw)

	c := exec.CommandContext(ctx, r.helperOK, HelperArg, command)
	c.Dir, c.Env = spec.Cwd, env
	c.ExtraFiles = []*os.File{specFile, pw} // fds specFD and statusFD
	inSession(c, spec.namespaces())
	out.Cmd, out.Spec = c, spec
	return out, nil
}

// inSession makes c the leader of a new session whose whole process group
// the context's cancellation kills; with userns, c also starts in new user
// and mount namespaces that map only the caller's own ids, holding
// CAP_SYS_ADMIN in them until HelperMain drops it.
func inSession(c *exec.Cmd, userns bool) {
	attr := &syscall.SysProcAttr{Setsid: true}
	if userns {
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		// A user other than root loses its capabilities in the new
		// namespace when it execs the helper; the helper needs
		// CAP_SYS_ADMIN there for the mounts, and drops it before bash.
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	c.SysProcAttr = attr
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}

// sealedSpec returns a memfd holding spec as JSON, sealed so that neither
// gen nor anything else can change it after the fact.
func sealedSpec(spec Spec) (*os.File, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	fd, err := unix.MemfdCreate("gen-sandbox-spec", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("sandbox: memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "gen-sandbox-spec")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: writing the spec: %w", err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: sealing the spec: %w", err)
	}
	return f, nil
}

// Supported reports, cheaply and without running the helper, whether this
// kernel has Landlock: whether a confining profile can be decided at all.
// Available is the full check the Bash tool makes before running one.
func Supported() bool { return landlockABI() >= 1 }
