package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// socketArch is one system call ABI the filter understands.
type socketArch struct {
	audit        uint32 // AUDIT_ARCH_*
	socket       uint32 // socket(2)
	socketcall   uint32 // socketcall(2), 0 if the ABI has none
	ioUringSetup uint32 // io_uring can create sockets without socket(2)
	x32          bool   // x86-64: x32 system calls share the audit arch
}

// socketArches are the native and compat ABIs of each supported GOARCH.
// A process can make system calls through any ABI its CPU runs, so the
// compat one is filtered too; any other arch is refused outright.
var socketArches = map[string][]socketArch{
	"amd64": {
		{audit: unix.AUDIT_ARCH_X86_64, socket: 41, ioUringSetup: 425, x32: true},
		{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUringSetup: 425},
	},
	"arm64": {
		{audit: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425},
		{audit: unix.AUDIT_ARCH_ARM, socket: 281, ioUringSetup: 425},
	},
}

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits on little-endian machines
)

const sysSocket = 1 // socketcall's call number for socket(2)

// socketFilter returns the BPF program that fails socket(2) with EACCES
// for every family but AF_UNIX, io_uring_setup(2) with EPERM, and every
// system call of an ABI it does not know with ENOSYS.
func socketFilter(arches []socketArch) ([]bpf.RawInstruction, error) {
	var p program
	p.ins(bpf.LoadAbsolute{Off: offArch, Size: 4})
	for i, a := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		p.jeq(a.audit, "", next)
		p.ins(bpf.LoadAbsolute{Off: offNr, Size: 4})
		if a.x32 {
			p.jump(bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000}, "enosys", "")
		}
		p.jeq(a.socket, "domain", "")
		if a.socketcall != 0 {
			p.jeq(a.socketcall, "socketcall", "")
		}
		p.jeq(a.ioUringSetup, "eperm", "allow")
		p.label(next)
	}
	p.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	p.label("domain")
	p.ins(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	p.jeq(unix.AF_UNIX, "allow", "eacces")
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

// restrictSockets installs socketFilter on every thread of the process.
// The filter survives execve, and no_new_privs (which Landlock has already
// set) keeps a set-user-ID program from shedding it.
func restrictSockets() error {
	arches, ok := socketArches[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no socket filter for %s", runtime.GOARCH)
	}
	raw, err := socketFilter(arches)
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
