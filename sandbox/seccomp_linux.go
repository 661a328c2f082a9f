package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/lazy"
)

// socketArch is one system call ABI the filter understands.
type socketArch struct {
	audit        uint32 // AUDIT_ARCH_*
	socket       uint32 // socket(2)
	socketcall   uint32 // socketcall(2), 0 if the ABI has none
	ioUringSetup uint32 // io_uring can create sockets without socket(2)
	x32          bool   // x86-64: x32 system calls share the audit arch
	// open, openat and openat2: the calls that can truncate a file they
	// open for reading only (truncOpen); open is 0 where the ABI has none.
	open, openat, openat2 uint32
	// ioctl(2), which changes file flags (chattr), enables fs-verity or
	// makes btrfs snapshots through a descriptor opened for reading.
	ioctl uint32
	// prlimit64(2), which changes another process's resource limits by
	// its id, with no ptrace check Landlock could refuse.
	prlimit uint32
	// ipc are the System V IPC and POSIX message queue calls (and
	// i386's ipc(2) multiplexer), which Landlock does not restrict.
	ipc []uint32
	// metadata are the calls that change a file's mode, owner, times or
	// extended attributes, which Landlock does not restrict (a read-only
	// command could otherwise chmod, chown, touch or setxattr any file the
	// user may change, anywhere), and truncate(2) by path, which it
	// restricts only from ABI 3.
	metadata []uint32
}

// socketArches are the native and compat ABIs of each supported GOARCH.
// A process can make system calls through any ABI its CPU runs, so the
// compat one is filtered too; any other arch is refused outright. The
// numbers are those of golang.org/x/sys/unix's zsysnum_linux_*.go.
var socketArches = lazy.Value[map[string][]socketArch]{New: func() map[string][]socketArch {
	return map[string][]socketArch{
		"amd64": {
			{audit: unix.AUDIT_ARCH_X86_64, socket: 41, ioUringSetup: 425, x32: true, open: 2, openat: 257, openat2: 437, ioctl: 16, prlimit: 302,
				// shmget shmat shmctl semget semop semctl shmdt msgget msgsnd msgrcv msgctl semtimedop
				// mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
				ipc: []uint32{29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220, 240, 241, 242, 243, 244, 245},
				// chmod fchmod chown fchown lchown utime setxattr lsetxattr fsetxattr removexattr
				// lremovexattr fremovexattr utimes fchownat futimesat fchmodat utimensat
				// fchmodat2 setxattrat removexattrat truncate
				metadata: []uint32{76, 90, 91, 92, 93, 94, 132, 188, 189, 190, 197, 198, 199, 235, 260, 261, 268, 280, 452, 463, 466}},
			{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUringSetup: 425, open: 5, openat: 295, openat2: 437, ioctl: 54, prlimit: 340, metadata: metadata32x86,
				// ipc mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr semget semctl
				// shmget shmctl shmat shmdt msgget msgsnd msgrcv msgctl mq_timedsend_time64
				// mq_timedreceive_time64 semtimedop_time64
				ipc: []uint32{117, 277, 278, 279, 280, 281, 282, 393, 394, 395, 396, 397, 398, 399, 400, 401, 402, 418, 419, 420}},
		},
		"arm64": {
			{audit: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425, openat: 56, openat2: 437, ioctl: 29, prlimit: 261,
				// mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr msgget msgctl
				// msgrcv msgsnd semget semctl semtimedop semop shmget shmctl shmat shmdt
				ipc: []uint32{180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197},
				// setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr fchmod
				// fchmodat fchownat fchown utimensat fchmodat2 setxattrat removexattrat truncate
				metadata: []uint32{45, 5, 6, 7, 14, 15, 16, 52, 53, 54, 55, 88, 452, 463, 466}},
			{audit: unix.AUDIT_ARCH_ARM, socket: 281, ioUringSetup: 425, open: 5, openat: 322, openat2: 437, ioctl: 54, prlimit: 369,
				// mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr semop semget
				// semctl msgsnd msgrcv msgget msgctl shmat shmdt shmget shmctl semtimedop
				// mq_timedsend_time64 mq_timedreceive_time64 semtimedop_time64
				ipc: []uint32{274, 275, 276, 277, 278, 279, 298, 299, 300, 301, 302, 303, 304, 305, 306, 307, 308, 312, 418, 419, 420},
				// chmod lchown fchmod fchown chown lchown32 fchown32 chown32 setxattr lsetxattr
				// fsetxattr removexattr lremovexattr fremovexattr utimes fchownat futimesat
				// fchmodat utimensat utimensat_time64 fchmodat2 setxattrat removexattrat
				// truncate truncate64
				metadata: []uint32{92, 193, 15, 16, 94, 95, 182, 198, 207, 212, 226, 227, 228, 235, 236, 237, 269, 325, 326, 333, 348, 412, 452, 463, 466}},
		},
	}
}}

// metadata32x86 are i386's metadata calls: chmod lchown utime fchmod fchown
// chown lchown32 fchown32 chown32 setxattr lsetxattr fsetxattr removexattr
// lremovexattr fremovexattr utimes fchownat futimesat fchmodat utimensat
// utimensat_time64 fchmodat2 setxattrat removexattrat truncate truncate64.
var metadata32x86 = []uint32{92, 193, 15, 16, 30, 94, 95, 182, 198, 207, 212, 226, 227, 228, 235, 236, 237, 271, 298, 299, 306, 320, 412, 452, 463, 466}

// readIoctls are the ioctl(2) requests a read-only command may make: they
// only read (a terminal's settings and size, a file's flags and extents)
// or change the command's own descriptor. Any other fails with EPERM
// under ReadOnly (denials.metadata): Landlock restricts ioctls on devices
// only, and on a file the user owns, opened for reading, FS_IOC_SETFLAGS
// (chattr) and FS_IOC_ENABLE_VERITY change it for good. The numbers are
// the same on every supported ABI but where a 32-bit one has its own
// (FS_IOC32_*).
var readIoctls = []uint32{
	0x5401, 0x5405, 0x540f, 0x5411, 0x5413, 0x5415, // TCGETS TCGETA TIOCGPGRP TIOCOUTQ TIOCGWINSZ TIOCMGET
	0x541b, 0x5421, 0x5424, 0x5429, 0x802c542a, // FIONREAD FIONBIO TIOCGETD TIOCGSID TCGETS2
	0x80045430, 0x80045440, 0x5450, 0x5451, 0x5452, // TIOCGPTN TIOCGEXCL FIONCLEX FIOCLEX FIOASYNC
	0x80086601, 0x80046601, 0x80087601, 0x80047601, // FS_IOC_GETFLAGS FS_IOC32_GETFLAGS FS_IOC_GETVERSION FS_IOC32_GETVERSION
	0x801c581f, 0xc020660b, 0x2, // FS_IOC_FSGETXATTR FS_IOC_FIEMAP FIGETBSZ
}

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits on little-endian machines
	offArg1 = 24
	offArg2 = 32
	high    = 4 // the high 32 bits of an argument, after its low ones
)

const sysSocket = 1 // socketcall's call number for socket(2)

// truncateABI is the Landlock ABI that restricts truncation
// (LANDLOCK_ACCESS_FS_TRUNCATE).
const truncateABI = 3

// resolveUnixABI is the Landlock ABI that restricts connecting to a
// pathname unix socket (LANDLOCK_ACCESS_FS_RESOLVE_UNIX).
const resolveUnixABI = 9

// denials are what the seccomp filter refuses; the zero value refuses
// nothing.
type denials struct {
	// network: socket(2) of every family but AF_UNIX, and io_uring.
	network bool
	// unix: socket(2) of AF_UNIX too (socketpair(2) stays allowed: its
	// sockets reach nothing outside the command).
	unix bool
	// metadata: the calls in socketArch.metadata, ioctl(2) but for
	// readIoctls, and io_uring.
	metadata bool
	// truncOpen: open(2) and openat(2) with O_TRUNC but not for writing
	// (O_RDONLY, or access mode 3), which truncate the file while
	// Landlock sees only a read, or no access at all,
	// and openat2(2), whose flags the filter cannot see (ENOSYS, so
	// that callers fall back to openat).
	truncOpen bool
	// others: changing another process's resource limits
	// (socketArch.prlimit): a command could otherwise set gen's file
	// size limit to 0, so that gen is killed at its next write, or its
	// open files limit, whatever the profile.
	others bool
	// ipc: the calls in socketArch.ipc, under ReadOnly without an IPC
	// namespace of its own (Spec.PrivateIPC), where another process's
	// shared memory, semaphores and queues would be the command's to
	// write to.
	ipc bool
}

// denialsFor is what the filter must refuse under s on a kernel with
// Landlock ABI abi: without network, other sockets; under ReadOnly, file
// metadata changes; under ReadOnly or without network, where Landlock
// cannot restrict connect(2) to pathname sockets, unix sockets too (a
// daemon's socket outside the workspace would otherwise act for the
// command: Docker's runs containers as root, the user's systemd bus runs
// programs outside the sandbox; a command without network reaches no
// server, as it reaches none on localhost); where Landlock does not
// restrict truncation, opening for reading with O_TRUNC (Landlock sees
// only the read, anywhere the command may read).
func denialsFor(s Spec, abi int) denials {
	ro := s.Profile == ReadOnly
	// others alone does not refuse a command on an architecture the
	// filter does not know, where it ran before the filter had it.
	_, known := socketArches.Get()[runtime.GOARCH]
	return denials{network: !s.Network, unix: (ro || !s.Network) && abi < resolveUnixABI, metadata: ro, truncOpen: abi < truncateABI, others: known, ipc: ro && !s.PrivateIPC}
}

func (d denials) any() bool {
	return d.network || d.unix || d.metadata || d.truncOpen || d.others || d.ipc
}

// socketFilter returns the BPF program for d: socket(2) fails with
// EACCES for the families d refuses, and open(2) and openat(2) for
// reading with O_TRUNC under d.truncOpen (openat2(2) with ENOSYS),
// io_uring_setup(2), d's metadata calls, ioctl(2) requests other than
// readIoctls and prlimit64(2) setting another process's limits with
// EPERM, and every system call of an ABI it does not know with ENOSYS.
func socketFilter(arches []socketArch, d denials) ([]bpf.RawInstruction, error) {
	var p program
	p.ins(bpf.LoadAbsolute{Off: offArch, Size: 4})
	for i, a := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		p.jeq(a.audit, "", next)
		p.ins(bpf.LoadAbsolute{Off: offNr, Size: 4})
		if a.x32 {
			p.jump(bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000}, "enosys", "")
		}
		if d.network || d.unix {
			p.jeq(a.socket, "domain", "")
			if a.socketcall != 0 {
				p.jeq(a.socketcall, "socketcall", "")
			}
		}
		if d.metadata {
			for _, nr := range a.metadata {
				p.jeq(nr, "eperm", "")
			}
			p.jeq(a.ioctl, "ioctl", "")
		}
		if d.truncOpen {
			if a.open != 0 {
				p.jeq(a.open, "openflags1", "")
			}
			p.jeq(a.openat, "openflags2", "")
			p.jeq(a.openat2, "enosys", "")
		}
		if d.others {
			p.jeq(a.prlimit, "prlimit", "")
		}
		if d.ipc {
			for _, nr := range a.ipc {
				p.jeq(nr, "eperm", "")
			}
		}
		if d.network || d.unix || d.metadata {
			// io_uring makes sockets and changes files without the
			// calls above; others alone has no need to refuse it.
			p.jeq(a.ioUringSetup, "eperm", "")
		}
		p.ret(unix.SECCOMP_RET_ALLOW)
		p.label(next)
	}
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	if d.truncOpen {
		// open's flags are its second argument, openat's its third.
		for _, f := range []struct {
			label string
			off   uint32
		}{{"openflags1", offArg1}, {"openflags2", offArg2}} {
			p.label(f.label)
			p.ins(bpf.LoadAbsolute{Off: f.off, Size: 4})
			p.jump(bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.O_TRUNC}, "", "allow")
			// Access mode 3 (ioctl only) writes no more than read-only
			// does, for Landlock.
			p.ins(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: unix.O_ACCMODE})
			p.jeq(unix.O_WRONLY, "allow", "")
			p.jeq(unix.O_RDWR, "allow", "eacces")
		}
	}
	if d.metadata {
		// The request is the second argument, an unsigned int.
		p.label("ioctl")
		p.ins(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		for _, req := range readIoctls {
			p.jeq(req, "allow", "")
		}
		p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	}
	if d.others {
		// prlimit64(pid, resource, new, old): pid 0 is the caller; a
		// NULL new only reads.
		p.label("prlimit")
		p.ins(bpf.LoadAbsolute{Off: offArg0, Size: 4})
		p.jeq(0, "allow", "")
		p.ins(bpf.LoadAbsolute{Off: offArg2, Size: 4})
		p.jeq(0, "", "eperm")
		p.ins(bpf.LoadAbsolute{Off: offArg2 + high, Size: 4})
		p.jeq(0, "allow", "eperm")
	}
	p.label("domain")
	p.ins(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	unixTo, otherTo := "allow", "allow"
	if d.unix {
		unixTo = "eacces"
	}
	if d.network {
		otherTo = "eacces"
	}
	p.jeq(unix.AF_UNIX, unixTo, otherTo)
	p.label("socketcall")
	p.ins(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	p.jeq(sysSocket, "eacces", "allow")
	p.label("allow")
	p.ret(unix.SECCOMP_RET_ALLOW)
	p.label("eacces")
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	p.label("eperm")
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	p.label("enosys")
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	return p.assemble()
}

// restrictSyscalls installs socketFilter for d on every thread of the
// process. The filter survives execve, and no_new_privs (which Landlock
// has already set) keeps a set-user-ID program from shedding it.
func restrictSyscalls(d denials) error {
	arches, ok := socketArches.Get()[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	raw, err := socketFilter(arches, d)
	if err != nil {
		return err
	}
	filters := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filters[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filters)), Filter: &filters[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filters)
	if errno != 0 {
		return errno
	}
	if r != 0 {
		return fmt.Errorf("thread %d could not be synchronised", r)
	}
	return nil
}

// program is a BPF program with jumps to named labels, resolved by
// assemble (classic BPF jumps only go forward, at most 255 instructions).
type program struct {
	code   []bpf.Instruction
	jumps  map[int][2]string // index → true, false label ("" = next)
	labels map[string]int
}

func (p *program) ins(i bpf.Instruction) { p.code = append(p.code, i) }

func (p *program) ret(v uint32) { p.ins(bpf.RetConstant{Val: v}) }

func (p *program) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.code)
}

func (p *program) jeq(v uint32, yes, no string) {
	p.jump(bpf.JumpIf{Cond: bpf.JumpEqual, Val: v}, yes, no)
}

func (p *program) jump(j bpf.JumpIf, yes, no string) {
	if p.jumps == nil {
		p.jumps = map[int][2]string{}
	}
	p.jumps[len(p.code)] = [2]string{yes, no}
	p.ins(j)
}

func (p *program) assemble() ([]bpf.RawInstruction, error) {
	for i, targets := range p.jumps {
		j := p.code[i].(bpf.JumpIf)
		skips := [2]uint8{}
		for k, name := range targets {
			if name == "" {
				continue
			}
			to, ok := p.labels[name]
			if !ok || to <= i || to-i-1 > 255 {
				return nil, fmt.Errorf("bpf: bad jump from %d to %q", i, name)
			}
			skips[k] = uint8(to - i - 1)
		}
		j.SkipTrue, j.SkipFalse = skips[0], skips[1]
		p.code[i] = j
	}
	return bpf.Assemble(p.code)
}
