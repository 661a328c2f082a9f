package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/subagent"
)

func newAgentCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "List, inspect and run agents",
	}
	cmd.AddCommand(newAgentRunCmd(s), newAgentListCmd(s), newAgentShowCmd(s), newAgentBatchCmd(s))
	return cmd
}

type runOptions struct {
	policyFlags
	typ      string
	prompt   string
	model    string
	maxTurns int
	format   string
}

func newAgentRunCmd(s Streams) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run --type NAME --prompt TEXT",
		Short: "Run an agent headless as a subagent (Ask becomes Deny)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runAgent(cmd, o, s) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.cwd, "cwd", "", "working directory (default: the current directory)")
	fl.StringVar(&o.managed, "managed-settings", "", "refused: only gen permissions check takes a what-if managed policy")
	_ = fl.MarkHidden("managed-settings")
	fl.StringArrayVar(&o.disallowed, "disallowedTools", nil, "extra deny rule (repeatable)")
	fl.BoolVar(&o.trust, "trust", false, "trust this project's hooks, MCP servers and sandbox settings for this run only (see gen trust)")
	fl.StringVar(&o.typ, "type", "", "agent type (see gen agent list)")
	fl.StringVar(&o.prompt, "prompt", "", "the task")
	fl.StringVar(&o.model, "model", "", "model name, or offline for the embedded offline model")
	fl.IntVar(&o.maxTurns, "max-turns", 0, "maximum model turns (default: the agent's max_turns, else 50)")
	fl.StringVar(&o.format, "output-format", "text", "text, json or stream-json")
	_ = cmd.MarkFlagRequired("type")
	_ = cmd.MarkFlagRequired("prompt")
	return cmd
}

func runAgent(cmd *cobra.Command, o *runOptions, s Streams) error {
	format, err := subagent.ParseFormat(o.format)
	if err != nil {
		return usageErr(err)
	}
	if o.maxTurns < 0 {
		return usageErr(fmt.Errorf("--max-turns must not be negative"))
	}
	set, def, err := loadAgent(&o.policyFlags, o.typ, s.Err)
	if err != nil {
		return err
	}
	name := o.model
	if name == "" {
		name = def.Model
	}
	model, modelName, err := pickModel(name, s.Err)
	if err != nil {
		return err
	}
	p := &subagent.Printer{Format: format, Out: s.Out, Err: s.Err}
	cfg := subagent.Config{Def: def, Settings: set, Model: model, MaxTurns: o.maxTurns, OnEvent: p.Event}
	pol, warns := subagent.Policy(set, def, nil)
	for _, w := range warns {
		fmt.Fprintln(s.Err, "gen: warning:", w)
	}
	p.Init(def.Name, pol.Mode, schema.Visible(schema.Filter{Mode: pol.Mode, AllowTools: def.AllowTools, DenyTools: def.DenyTools, Subagent: true}), modelName)
	rep := subagent.Run(cmd.Context(), cfg, o.prompt)
	p.Result(&rep)
	return exitFor(&rep)
}

// exitFor maps a finished run to its exit code.
func exitFor(rep *subagent.Report) error {
	switch {
	case rep.Err != nil:
		return &exitError{ExitFailed, fmt.Errorf("")}
	case rep.Denied():
		return &exitError{ExitDenied, fmt.Errorf("")}
	}
	return nil
}

// loadAgent loads settings and the named agent definition.
func loadAgent(f *policyFlags, name string, errw io.Writer) (*settings.Settings, *agent.Definition, error) {
	set, err := f.load(errw)
	if err != nil {
		return nil, nil, err
	}
	cat, err := agent.Discover(set.Workspace.Cwd, set.Workspace.Home)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	def, ok := cat.Get(name)
	if !ok {
		var names []string
		for _, d := range cat.All() {
			names = append(names, d.Name)
		}
		return nil, nil, usageErr(fmt.Errorf("unknown agent type %q (available: %s)", name, strings.Join(names, ", ")))
	}
	for _, w := range def.Warnings {
		fmt.Fprintln(errw, "gen: warning:", w)
	}
	return set, def, nil
}

// pickModel returns the model to use: the embedded offline model when asked
// for, or when no endpoint or key is configured (said in one stderr line),
// else the OpenAI-compatible endpoint.
func pickModel(name string, errw io.Writer) (loop.Model, string, error) {
	if name != "offline" {
		if cfg, ok := chat.FromEnv(name); ok {
			if cfg.Model == "" {
				return nil, "", usageErr(fmt.Errorf("a model endpoint is configured but no model is named: set GEN_MODEL or pass --model (or --model offline)"))
			}
			cfg.Stream = true
			return chat.New(cfg), cfg.Model, nil
		}
		fmt.Fprintln(errw, "gen: no model endpoint configured (set OPENAI_BASE_URL or OPENAI_API_KEY); using the embedded offline model")
		return offline.New(), "offline", nil
	}
	fmt.Fprintln(errw, "gen: using the embedded offline model")
	return offline.New(), "offline", nil
}

func newAgentListCmd(s Streams) *cobra.Command {
	f := &policyFlags{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the agents: name, mode, source and description",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := f.load(s.Err)
			if err != nil {
				return err
			}
			cat, err := agent.Discover(set.Workspace.Cwd, set.Workspace.Home)
			if err != nil {
				return usageErr(err)
			}
			tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tMODE\tSOURCE\tDESCRIPTION")
			for _, d := range cat.All() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Name, d.Mode, d.Source, d.Description)
				for _, w := range d.Warnings {
					fmt.Fprintln(s.Err, "gen: warning:", w)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "working directory")
	return cmd
}

func newAgentShowCmd(s Streams) *cobra.Command {
	f := &policyFlags{}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show an agent's resolved policy: mode, visible tools, allow and deny rules",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, def, err := loadAgent(f, args[0], s.Err)
			if err != nil {
				return err
			}
			pol, warns := subagent.Policy(set, def, nil)
			for _, w := range warns {
				fmt.Fprintln(s.Err, "gen: warning:", w)
			}
			w := s.Out
			src := def.Source
			if def.Path != "" {
				src += " (" + def.Path + ")"
			}
			fmt.Fprintf(w, "name:        %s\n", def.Name)
			fmt.Fprintf(w, "description: %s\n", def.Description)
			fmt.Fprintf(w, "source:      %s\n", src)
			fmt.Fprintf(w, "mode:        %s\n", pol.Mode)
			fmt.Fprintf(w, "tools:       %s\n", strings.Join(schema.Visible(schema.Filter{Mode: pol.Mode, AllowTools: def.AllowTools, DenyTools: def.DenyTools, Subagent: true}), ", "))
			fmt.Fprintln(w, "allow:")
			for _, e := range pol.Allow {
				fmt.Fprintf(w, "  %s  (%s)\n", e.Rule, e.Source)
			}
			if len(pol.Constraint) > 0 {
				fmt.Fprintln(w, "constraint (allow_tools): every call must match one of the allow_tools rules")
			}
			fmt.Fprintln(w, "ask (denied, as a subagent cannot ask):")
			for _, e := range pol.Ask {
				fmt.Fprintf(w, "  %s  (%s)\n", e.Rule, e.Source)
			}
			fmt.Fprintln(w, "deny:")
			for _, e := range pol.Deny {
				fmt.Fprintf(w, "  %s  (%s)\n", e.Rule, e.Source)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "working directory")
	return cmd
}
