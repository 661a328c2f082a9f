package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// HelperArg is the hidden subcommand that runs HelperMain: a binary that
// serves as the helper dispatches to HelperMain when os.Args[1] is
// HelperArg, before any other initialisation.
const HelperArg = "__sandbox"

// ExitSetupFailed is the helper's exit status when it refuses to run the
// command because a restriction could not be applied. Cmd.Wait reports
// that case as a *SetupError, which does not depend on the status.
const ExitSetupFailed = 121

// ErrUnavailable is returned by Command for a confining profile on a
// platform or kernel without a sandbox.
var ErrUnavailable = errors.New("sandbox unavailable")

// SetupError means the helper could not apply the Spec and did not run
// the command.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string {
	return "sandbox: " + e.Msg + "; the command was not run"
}

// statusWait bounds how long Wait reads the helper's status after the
// process has exited; the pipe's only writer is gone by then, so this is a
// hang guard, not a budget.
const statusWait = 5 * time.Second

// Cmd is one sandboxed command. Set Stdout, Stderr and Stdin on the
// embedded exec.Cmd, but not Env, Dir, ExtraFiles or SysProcAttr, which
// Command has set; then use Cmd's own Start, Wait or Run (the embedded
// ones do not report setup errors), and Cleanup afterwards.
//
// The command runs in a new session (its own process group, no controlling
// terminal); cancelling the context kills the whole group.
type Cmd struct {
	*exec.Cmd
	// Spec is the confinement in force: the caller's, plus the per-run
	// temp directory, minus the carve-outs where they are unavailable.
	// Pass it to Hint.
	Spec Spec
	// TempDir is the per-run temporary directory (TMPDIR), "" if none.
	TempDir string

	status *os.File   // read end of the helper's status pipe; nil without helper
	child  []*os.File // the child's ends, closed after Start
	once   sync.Once
}

// Start starts the command.
func (c *Cmd) Start() error {
	err := c.Cmd.Start()
	c.closeChild()
	return err
}

// Wait waits for the command. If the helper refused to run it, the error
// is a *SetupError.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	if c.status == nil {
		return err
	}
	c.status.SetReadDeadline(time.Now().Add(statusWait))
	buf := make([]byte, 4096)
	var msg []byte
	for {
		n, rerr := c.status.Read(buf)
		msg = append(msg, buf[:n]...)
		if rerr != nil || len(msg) > 64<<10 {
			break
		}
	}
	if len(msg) > 0 {
		return &SetupError{Msg: string(msg)}
	}
	return err
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Cleanup removes the per-run temporary directory and releases the
// descriptors. Call it once the command has finished (or was never
// started).
func (c *Cmd) Cleanup() error {
	c.closeChild()
	if c.status != nil {
		c.status.Close()
	}
	if c.TempDir == "" {
		return nil
	}
	if err := os.RemoveAll(c.TempDir); err != nil {
		return fmt.Errorf("sandbox: removing the temp directory: %w", err)
	}
	return nil
}

func (c *Cmd) closeChild() {
	c.once.Do(func() {
		for _, f := range c.child {
			f.Close()
		}
	})
}

// withEnv returns env with key set to value, replacing earlier settings.
func withEnv(env []string, key, value string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == key
	})
	return append(out, key+"="+value)
}

// Runner starts sandboxed commands through a helper executable. The zero
// value uses os.Executable() as the helper. A Runner is safe for
// concurrent use.
type Runner struct {
	// Helper is the path of an executable that calls HelperMain when its
	// first argument is HelperArg; "" means os.Executable().
	Helper string

	probe    sync.Once
	ok       bool   // Landlock usable
	userns   bool   // carve-out mounts usable
	ipc      bool   // private IPC namespaces usable
	why      string // what is missing
	helperOK string // resolved helper path
}

// Default is the Runner behind the package-level Command and Available.
var Default = &Runner{}

// Available reports whether Default can confine commands; see
// Runner.Available.
func Available() (ok bool, why string) { return Default.Available() }

// Command builds a sandboxed command with Default; see Runner.Command.
func Command(ctx context.Context, spec Spec, command string, env []string) (*Cmd, error) {
	return Default.Command(ctx, spec, command, env)
}
