//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Available reports that this platform has no sandbox.
func (r *Runner) Available() (ok bool, why string) {
	return false, fmt.Sprintf("no sandbox: %s has none in gen", runtime.GOOS)
}

// Command runs profile None directly and refuses every other profile with
// ErrUnavailable.
func (r *Runner) Command(ctx context.Context, spec Spec, command string, env []string) (*Cmd, error) {
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if spec.Profile != None {
		_, why := r.Available()
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, why)
	}
	if env == nil {
		env = os.Environ()
	}
	c := exec.CommandContext(ctx, "bash", "-c", command)
	c.Dir, c.Env = spec.Cwd, env
	return &Cmd{Cmd: c, Spec: spec}, nil
}

// HelperMain refuses: there is nothing to apply on this platform.
func HelperMain(args []string) int {
	fmt.Fprintf(os.Stderr, "gen sandbox: no sandbox on %s; the command was not run\n", runtime.GOOS)
	return ExitSetupFailed
}

// Supported reports that this platform has no sandbox.
func Supported() bool { return false }
