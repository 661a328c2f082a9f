package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/report"
	"github.com/gen-run/gen/session"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/tool"
	"github.com/gen-run/gen/tui"
)

// mainOptions are the flags of gen itself: the interactive main loop, or
// with -p (or a prompt on stdin) the headless one.
type mainOptions struct {
	policyFlags
	mcpFlags
	print    bool
	model    string
	maxTurns int
	format   string
	noStream bool
}

func (o *mainOptions) register(cmd *cobra.Command) {
	o.policyFlags.register(cmd, "permission-mode")
	o.mcpFlags.register(cmd, true)
	fl := cmd.Flags()
	_ = fl.MarkHidden("managed-settings") // refused: see policyFlags.whatIf
	fl.BoolVarP(&o.print, "print", "p", false, "run headless: answer the prompt (argument or stdin) and exit; Ask becomes Deny")
	fl.StringVar(&o.model, "model", "", "model name, or offline for the embedded offline model")
	fl.IntVar(&o.maxTurns, "max-turns", 0, "maximum model turns per prompt (default 50)")
	fl.StringVar(&o.format, "output-format", "text", "headless output: text, json or stream-json")
	fl.BoolVar(&o.noStream, "no-stream", false, noStreamHelp)
}

// runMain decides between the TUI and a headless run. Headless never
// waits on a terminal: without a terminal on stdin there is no TUI.
func runMain(cmd *cobra.Command, o *mainOptions, args []string, s Streams) error {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return usageErr(err)
	}
	if o.maxTurns < 0 {
		return usageErr(fmt.Errorf("--max-turns must not be negative"))
	}
	prompt := strings.Join(args, " ")
	headless := o.print || !s.InTerminal
	if headless && prompt == "" && !s.InTerminal {
		b, err := readPrompt(cmd.Context(), s.In)
		if err != nil {
			if cmd.Context().Err() != nil {
				return &exitError{ExitFailed, err}
			}
			return usageErr(err)
		}
		prompt = strings.TrimSpace(string(b))
	}
	if headless && prompt == "" {
		return usageErr(fmt.Errorf("no prompt: give it as an argument or on stdin"))
	}
	if !headless && prompt != "" {
		return usageErr(fmt.Errorf("a prompt argument runs headless with -p (gen -p %q); in the terminal, start gen and type it", prompt))
	}
	// Settings are loaded once, here, and followed by the session, which
	// reports warnings.
	setOpts, err := o.options()
	if err != nil {
		return err
	}
	live, err := settings.Watch(setOpts)
	if err != nil {
		return usageErr(err)
	}
	set, err := live.Current()
	if err != nil {
		return usageErr(err)
	}
	if !headless {
		trusted, err := offerTrust(cmd.Context(), set, s)
		if err != nil {
			return &exitError{ExitFailed, err}
		}
		if trusted {
			if set, err = live.Reload(); err != nil {
				return usageErr(err)
			}
		}
	}
	model, modelName, err := pickModel(o.model, set.API, o.noStream, s.Err)
	if err != nil {
		return err
	}
	servers, err := startMCP(cmd.Context(), set, &o.mcpFlags, headless, s.Err)
	if err != nil {
		return err
	}
	defer servers.close()
	cfg := session.Config{
		Settings:  setOpts,
		Live:      live,
		Model:     model,
		ModelName: modelName,
		MaxTurns:  o.maxTurns,
		SearchURL: tool.SearchEndpointFromEnv(),
		OnWarning: func(w string) { fmt.Fprintln(s.Err, "gen: warning:", w) },
		MCP:       servers.MCP,
	}
	if headless {
		return runHeadless(cmd, cfg, prompt, format, s, servers.initServers())
	}
	ui := tui.New(tui.Options{In: s.In, Out: s.Out})
	cfg.Approver, cfg.Asker = ui, ui
	cfg.OnWarning = nil // the TUI owns the screen
	sess, err := session.New(cfg)
	if err != nil {
		return usageErr(err)
	}
	if err := ui.Run(cmd.Context(), sess); err != nil {
		return &exitError{ExitFailed, err}
	}
	return nil
}

func runHeadless(cmd *cobra.Command, cfg session.Config, prompt string, format report.Format, s Streams, servers []report.MCPServer) error {
	sess, err := session.New(cfg)
	if err != nil {
		return usageErr(err)
	}
	p := &report.Printer{Format: format, Out: s.Out, Err: s.Err, MCPServers: servers}
	p.Init("main", sess.Mode(), sess.Tools(), cfg.ModelName)
	var onText func(string)
	out, err := sess.Submit(cmd.Context(), prompt, p.Event, onText)
	rep := report.Run{Outcome: out, Err: err}
	p.Result(&rep)
	return exitFor(&rep)
}
