// Package cli implements the gen command line: flag parsing and the wiring
// of settings, agents, policies, the session and subagents; output formats
// and exit codes come from package report. Each command has an options
// struct and a run function; Main is what cmd/gen calls. It sits on
// session, subagent, policy, report and tui.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gen-run/gen/internal/termsafe"
	"github.com/gen-run/gen/report"
)

// Exit codes shared by every command (package report maps runs to them).
const (
	ExitOK     = report.ExitOK
	ExitFailed = report.ExitFailed
	ExitUsage  = report.ExitUsage
	ExitDenied = report.ExitDenied
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as a usage, agent or settings error (exit 2).
func usageErr(err error) error { return &exitError{ExitUsage, err} }

// Streams are the standard streams a command uses.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// InTerminal reports whether In is a terminal (interactive use).
	InTerminal bool
}

// Main runs gen with the process's arguments and streams and returns the
// exit code.
func Main() int {
	// SIGTERM (CI timeouts, docker stop) and SIGHUP (the terminal or the
	// ssh connection went away) cancel like Ctrl+C, so running commands
	// are killed instead of orphaned: they run in sessions of their own,
	// which no hangup reaches.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// Without Notify, a write to stdout or stderr whose reader went away
	// (`gen -p ... | head`) would end gen at once, leaving what its run
	// started running.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	go watchPipes(pipes, sigs, outputGone)
	go watchSignals(sigs, cancel, shutdownGrace, os.Stderr, os.Exit)
	return Run(ctx, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, InTerminal: isTerminal(os.Stdin)})
}

// shutdownGrace bounds how long gen goes on after SIGINT or SIGTERM:
// what is running is cancelled, and work that does not notice (a
// permission decision in progress) does not keep the process alive.
const shutdownGrace = 10 * time.Second

// watchSignals cancels at the first signal on sigs. A second signal, or
// grace passing, ends the process through exit with 128 plus the
// signal's number, as a shell reports a process a signal killed.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelFunc, grace time.Duration, errOut io.Writer, exit func(int)) {
	sig := <-sigs
	cancel()
	code := 128 + signalNumber(sig)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-sigs:
		fmt.Fprintf(errOut, "gen: %s again: stopping now\n", sig)
	case <-t.C:
		fmt.Fprintf(errOut, "gen: still running %s after %s: stopping now\n", grace, sig)
	}
	exit(code)
}

// watchPipes hands a SIGPIPE on to sigs, as if it had come as SIGINT or
// SIGTERM do, once gone reports that stdout's or stderr's reader went
// away: the run is cancelled, and the commands it started are killed.
// Other SIGPIPEs (a hook that does not read its input, a server that
// died) only fail their write with EPIPE.
func watchPipes(pipes <-chan os.Signal, sigs chan<- os.Signal, gone func() bool) {
	for range pipes {
		if gone() {
			select {
			case sigs <- syscall.SIGPIPE:
			default: // a signal is already waiting: it stops the run
			}
			return
		}
	}
}

// signalNumber is sig's number (SIGINT's for a signal with none).
func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return int(syscall.SIGINT)
}

// Run runs gen with args and returns the exit code.
func Run(ctx context.Context, args []string, s Streams) int {
	root := newRoot(s)
	prepareCompletion(root, args)
	if cmd, _, err := root.Find(args); err == nil && takesVariadic(cmd) {
		args = expandVariadic(args)
	}
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	// An error may quote what a model, a hook or a file wrote (a
	// UserPromptSubmit hook's reason, a line of a task file): its escapes
	// are shown, not sent to the terminal (termsafe.Text).
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(s.Err, "gen:", termsafe.Text(ee.err.Error()))
		}
		return ee.code
	}
	// Errors cobra produces itself are flag and argument errors.
	fmt.Fprintln(s.Err, "gen:", termsafe.Text(err.Error()))
	return ExitUsage
}

func newRoot(s Streams) *cobra.Command { return newRootWith(&mainOptions{}, s) }

// newRootWith builds the command tree with o holding the root's flags
// (tests parse flags into o without running anything).
func newRootWith(o *mainOptions, s Streams) *cobra.Command {
	root := &cobra.Command{
		Use: "gen [flags] [PROMPT]",
		// Any non-empty Version gives the root its --version flag; the
		// version printed comes from the template (versionTemplate).
		Version: "(from the build information)",
		Short:   "Run LLM agents behind one permission gate",
		Long: `gen runs LLM agents whose every tool call passes one permission gate.

In a terminal, gen starts the interactive main loop. With -p, or with the
prompt on stdin when stdin is not a terminal, it runs headless: Ask becomes
Deny, and the exit code says how it went (0 ok, 1 failed, 2 usage or
settings error, 3 a call was denied). Piped stdin and a prompt argument
are combined: the argument, then stdin on the next line.

--allowedTools and --disallowedTools take every following argument up to
the next flag, as Claude Code's do: put the prompt first, or end the list
with --  (gen -p --allowedTools Read Edit -- "fix the test").`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE:          func(cmd *cobra.Command, args []string) error { return runMain(cmd, o, args, s) },
		// Every command: a flag that must not be empty is not.
		PersistentPreRunE: noEmpty,
	}
	o.register(root)
	root.SetVersionTemplate(versionTemplate)
	root.SetGlobalNormalizationFunc(normalizeFlag)
	root.SuggestionsMinimumDistance = 2
	root.AddCommand(newPermissionsCmd(s, nil), newAgentCmd(s), newTrustCmd(s), newMCPCmd(s), newSkillsCmd(s), newCommandsCmd(s), newVersionCmd(s))
	return root
}

// takesVariadic reports whether cmd reads --allowedTools,
// --disallowedTools and --mcp-config as Claude Code's variadic lists
// (variadicFlags): the commands that run an agent. gen permissions check
// keeps one value per flag, as its positional CALL would otherwise be
// taken for a rule, and gen mcp list one per --mcp-config.
func takesVariadic(cmd *cobra.Command) bool {
	return !cmd.HasParent() || cmd.CommandPath() == "gen agent run"
}

// isTerminal reports whether f is a terminal: a character device such as
// /dev/null is not one, and must not start the TUI.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// warnTo writes msg to w as gen's warning. A warning may quote what a
// model, a hook, a server or a file wrote: its escapes are shown, not
// sent to the terminal (termsafe.Text).
func warnTo(w io.Writer, msg string) {
	fmt.Fprintln(w, "gen: warning:", termsafe.Text(msg))
}
