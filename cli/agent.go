package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/cost"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/report"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/subagent"
	"github.com/gen-run/gen/transcript"
	"github.com/gen-run/gen/trust"
)

func newAgentCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "List, inspect and run agents",
	}
	cmd.AddCommand(newAgentRunCmd(s, nil), newAgentListCmd(s), newAgentShowCmd(s), newAgentBatchCmd(s))
	groupRun(cmd)
	return cmd
}

type runOptions struct {
	policyFlags
	mcpFlags
	typ          string
	prompt       string
	model        string
	maxTurns     int
	format       string
	noStream     bool
	verbose      bool
	appendSystem string
	// appendSystemFile is --append-system-prompt-file.
	appendSystemFile string
	debug            debugFlag
	budget           float64
}

// newAgentRunCmd returns `gen agent run`. runF, if not nil, replaces
// runAgent, so that flag parsing can be tested apart from behaviour.
func newAgentRunCmd(s Streams, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run --type NAME --prompt TEXT",
		Short: "Run an agent headless as a subagent (Ask becomes Deny)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return runAgent(cmd, o, s)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.cwd, "cwd", "", "working directory (default: the current directory)")
	fl.StringVar(&o.managed, "managed-settings", "", "refused: only gen permissions check takes a what-if managed policy")
	_ = fl.MarkHidden("managed-settings")
	stringsVar(fl, &o.disallowed, "disallowedTools", nil, "extra deny rules, comma- or space-separated (repeatable; alias --disallowed-tools)")
	fl.BoolVar(&o.trust, "trust", false, trustHelp)
	fl.StringVar(&o.typ, "type", "", "agent type (see gen agent list)")
	fl.StringVar(&o.prompt, "prompt", "", "the task")
	fl.StringVar(&o.model, "model", "", "model name, or offline for the embedded offline model")
	fl.IntVar(&o.maxTurns, "max-turns", 0, "maximum model turns (default: the agent's max_turns, else 50)")
	fl.StringVar(&o.format, "output-format", "text", "text, json or stream-json")
	o.mcpFlags.register(cmd, true)
	fl.BoolVar(&o.noStream, "no-stream", false, noStreamHelp)
	fl.BoolVar(&o.verbose, "verbose", false, "text output: also log the model's text between tool calls to stderr")
	fl.StringVar(&o.appendSystem, "append-system-prompt", "", "add text to the end of the agent's prompt")
	fl.StringVar(&o.appendSystemFile, "append-system-prompt-file", "", "--append-system-prompt, read from this file (a relative name from the directory gen was started in)")
	fl.Float64Var(&o.budget, "max-budget-usd", 0, budgetHelp)
	o.debug.register(fl)
	o.agents.register(fl)
	_ = cmd.MarkFlagRequired("type")
	_ = cmd.MarkFlagRequired("prompt")
	return cmd
}

func runAgent(cmd *cobra.Command, o *runOptions, s Streams) error {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return usageErr(err)
	}
	if o.maxTurns < 0 {
		return usageErr(fmt.Errorf("--max-turns must not be negative"))
	}
	if err := checkBudget(o.budget); err != nil {
		return err
	}
	if o.appendSystem, err = promptFlag("--append-system-prompt", o.appendSystem, "--append-system-prompt-file", o.appendSystemFile); err != nil {
		return usageErr(err)
	}
	live, set, cat, def, err := loadAgent(&o.policyFlags, o.typ, s.Err)
	if err != nil {
		return err
	}
	prompt, err := commandPrompt(set, o.prompt, s.Err)
	if err != nil {
		return usageErr(err)
	}
	o.debug.warn(s.Err)
	model, modelName, meter, err := runModel(o.model, def, set, o.noStream, o.debug.logger("api", s.Err), o.budget, s.Err)
	if err != nil {
		return err
	}
	if o.appendSystem != "" {
		d := *def
		d.Prompt += "\n\n" + o.appendSystem
		def = &d
	}
	servers, err := startMCP(cmd.Context(), live, set, &o.mcpFlags, true, s.Err)
	if err != nil {
		return err
	}
	defer servers.close()
	p := &report.Printer{Format: format, Out: s.Out, Err: s.Err, Verbose: o.verbose}
	warn := func(w string) { warnTo(s.Err, w) }
	// The run follows the settings files: a deny rule added while it
	// runs applies to its next call.
	sid := transcript.NewID()
	cfg := subagent.Config{Def: def, Settings: set, Live: live, Agents: cat.All(), Model: model, MaxTurns: o.maxTurns, OnEvent: p.Event, MCP: servers.MCP, OnWarning: warn, SessionID: sid}
	hs := loadHooksAndSkills(live, set, warn)
	hs.hooks.Debug = o.debug.logger("hooks", s.Err)
	hs.apply(&cfg)
	pol, warns := policy.Subagent(set, def, nil)
	_, sbWarns := policy.Sandbox(set)
	for _, w := range append(warns, sbWarns...) {
		warn(w)
	}
	// A subagent run is not a conversation that can be resumed: it has a
	// session ID for its events and its hooks, and no transcript.
	p.Init(report.Init{
		SessionID:  sid,
		Cwd:        set.Workspace.Cwd,
		Model:      modelName,
		Mode:       pol.Mode,
		Tools:      servers.Names(&pol, def, policy.Visible(&pol, def)),
		MCPServers: servers.initServers(),
		Agent:      def.Name,
	})
	rep := subagent.Run(cmd.Context(), cfg, prompt)
	rep.CostUSD = meter.SpentIfPriced()
	p.Result(&rep.Run)
	return exitFor(&rep.Run)
}

// hooksAndSkills are what a headless run takes from its settings besides
// its policy, as gen agent run and every batch task take them: the
// settings' hooks that may run, following live as the settings change
// (trust.LiveHooks: a project's need its trust, and stop when the trust
// stops holding), and the skills. Both are safe for concurrent runs to
// share: the runner works out its hooks under a lock, and a skill.Set is
// never modified.
type hooksAndSkills struct {
	hooks  *hook.Runner
	skills *skill.Set
}

// loadHooksAndSkills loads the hooks and skills of a run under live,
// whose settings are set now; warn gets each warning once.
func loadHooksAndSkills(live *settings.Live, set *settings.Settings, warn func(string)) hooksAndSkills {
	return hooksAndSkills{trust.LiveHooks(live, set, warn), loadSkills(set, warn)}
}

// apply gives cfg the hooks and skills.
func (h hooksAndSkills) apply(cfg *subagent.Config) { cfg.Hooks, cfg.Skills = h.hooks, h.skills }

// exitFor is the error that carries a finished run's exit code (nil for
// ExitOK); the printer has already said what happened.
func exitFor(r *report.Run) error {
	if code := r.ExitCode(); code != ExitOK {
		return &exitError{code, fmt.Errorf("")}
	}
	return nil
}

// loadAgent loads settings, to be followed while a run lasts, and the
// named agent definition, with the catalog it was found in.
func loadAgent(f *policyFlags, name string, errw io.Writer) (*settings.Live, *settings.Settings, *agent.Catalog, *agent.Definition, error) {
	live, set, err := f.watch(errw)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cat, err := f.agents.discover(set)
	if err != nil {
		return nil, nil, nil, nil, usageErr(err)
	}
	def, err := cat.Lookup(name)
	if err != nil {
		return nil, nil, nil, nil, usageErr(err)
	}
	for _, w := range def.Warnings {
		warnTo(errw, w)
	}
	return live, set, cat, def, nil
}

// modelFor returns the name of the model a run uses: flag, the --model
// flag, when given; else the model agent d names, resolved with set's
// modelAliases (agent.Definition.ResolveModel, its warning to errw), for
// a run of d on its own or the main loop run as d; "" (the configured
// default model) for no model, inherit, or no agent.
func modelFor(flag string, d *agent.Definition, set *settings.Settings, errw io.Writer) string {
	if flag != "" || d == nil {
		return flag
	}
	name, warn := d.ResolveModel(set.ModelAliases, "")
	if warn != "" {
		warnTo(errw, warn)
	}
	return name
}

// runModel returns the model of a run of def (nil for the main loop
// without --agent) as flag (--model), def and set name it (modelFor,
// pickModel), priced by the run's meter with budget (meterFor; nil when
// the model has no price and there is no budget).
func runModel(flag string, def *agent.Definition, set *settings.Settings, noStream bool, debug func(string), budget float64, errw io.Writer) (loop.Model, string, *cost.Meter, error) {
	model, name, err := pickModel(modelFor(flag, def, set, errw), flag != "", set.API, noStream, debug, errw)
	if err != nil {
		return nil, "", nil, err
	}
	meter, model, err := meterFor(budget, nil, model, name, set.API)
	if err != nil {
		return nil, "", nil, usageErr(err)
	}
	return model, name, meter, nil
}

// budgetHelp describes --max-budget-usd.
const budgetHelp = "stop starting model turns once the run has spent this many US dollars (prices from the api.pricing setting)"

// noStreamHelp describes --no-stream.
const noStreamHelp = "ask the model server for whole answers instead of a stream (for servers that cannot stream tool calls; also api.stream: false, GEN_NO_STREAM=1)"

// pickModel returns the model to use: the embedded offline model when
// asked for by name ("offline"), or when no endpoint or key is configured
// (said in one stderr line), else the OpenAI-compatible endpoint,
// configured by the api settings, then --no-stream, then the environment
// (which wins). A model named by a flag (flagged) needs an endpoint:
// --model X without one is a usage error, never a silent run on the
// offline model. A model an agent definition names falls back to the
// offline model like no model at all. debug, when set, is told of each
// request to the endpoint (chat.Config.Debug).
func pickModel(name string, flagged bool, api settings.API, noStream bool, debug func(string), errw io.Writer) (loop.Model, string, error) {
	if name != "offline" {
		cfg, ok := chat.FromEnv(name)
		if !ok && flagged && name != "" {
			return nil, "", usageErr(fmt.Errorf("--model %s: no model endpoint is configured (set OPENAI_BASE_URL or OPENAI_API_KEY), or use --model offline for the embedded offline model", name))
		}
		if ok {
			if cfg.Model == "" {
				return nil, "", usageErr(fmt.Errorf("a model endpoint is configured but no model is named: set GEN_MODEL or pass --model (or --model offline)"))
			}
			cfg.Stream = true
			if api.Stream != nil {
				cfg.Stream = *api.Stream
			}
			if noStream {
				cfg.Stream = false
			}
			cfg.Timeout, cfg.IdleTimeout, cfg.Debug = api.Timeout, api.StreamIdleTimeout, debug
			if err := cfg.ApplyEnv(os.Getenv); err != nil {
				return nil, "", usageErr(err)
			}
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
			// Parsing every agent file makes much short-lived garbage
			// and little that lives (a thousand files: about 14 MB
			// allocated, 2 MB kept).
			defer raiseGCPercent()()
			set, err := f.load(s.Err)
			if err != nil {
				return err
			}
			cat, err := f.agents.discover(set)
			if err != nil {
				return usageErr(err)
			}
			// tabwriter writes each cell on its own: buffered, the
			// listing is a few writes instead of several per line.
			out := bufio.NewWriter(s.Out)
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tMODE\tSOURCE\tDESCRIPTION")
			for _, d := range cat.All() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Name, d.Mode, d.Source, d.Description)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if err := out.Flush(); err != nil {
				return err
			}
			for _, w := range cat.Warnings() {
				warnTo(s.Err, w)
			}
			// A broken file does not hide the others, but it is an error:
			// the listing is complete and the exit status says a file
			// needs fixing.
			for _, e := range cat.Errors() {
				fmt.Fprintln(s.Err, "gen: error:", e)
			}
			if n := len(cat.Errors()); n > 0 {
				return &exitError{ExitFailed, fmt.Errorf("%d agent file(s) did not load", n)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "working directory")
	f.agents.register(cmd.Flags())
	return cmd
}

func newAgentShowCmd(s Streams) *cobra.Command {
	f := &policyFlags{}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show an agent's resolved policy: mode, visible tools, allow and deny rules",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, set, _, def, err := loadAgent(f, args[0], s.Err)
			if err != nil {
				return err
			}
			pol, warns := policy.Subagent(set, def, nil)
			for _, w := range warns {
				warnTo(s.Err, w)
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
			fmt.Fprintf(w, "tools:       %s\n", strings.Join(policy.Visible(&pol, def), ", "))
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
			if !def.Hooks.Empty() {
				var evs []string
				for _, ev := range hook.Events {
					if def.Hooks.Has(ev) {
						evs = append(evs, string(ev))
					}
				}
				state := "run while it runs"
				if _, w := trust.AgentHooks(set, def); w != "" {
					state = "not run: " + w
				}
				fmt.Fprintf(w, "hooks:       %s (%s)\n", strings.Join(evs, ", "), state)
			}
			if len(pol.Hidden) > 0 {
				// Their own calls are denied; not what Bash reads or writes.
				fmt.Fprintf(w, "not its tools (tools, disallowedTools): %s\n", strings.Join(pol.Hidden, ", "))
			}
			if len(def.Delegates) > 0 {
				fmt.Fprintf(w, "starts, as the main loop (--agent): %s\n", strings.Join(def.Delegates, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "working directory")
	cmd.Flags().BoolVar(&f.trust, "trust", false, trustHelp)
	f.agents.register(cmd.Flags())
	return cmd
}

// agentsFlag is --agents, Claude Code's agents for one run: a JSON object
// of agent names to definitions (agent.ParseJSON), which take precedence
// over agent files of the same name. Claude Code takes the JSON inline;
// gen also takes a file holding it, as for --settings (readJSONFlag).
type agentsFlag struct {
	// values are the values given, to refuse a second one rather than
	// drop the first's agents.
	values []string
	// parsed is set once parse has read them, into defs.
	parsed bool
	defs   []*agent.Definition
}

func (f *agentsFlag) register(fl *pflag.FlagSet) {
	fl.Var(f, "agents", `agents for this run only, as a JSON object or a file holding one: {"NAME": {"description": "...", "prompt": "...", "tools": ["Read"], ...}} (an agent file's frontmatter keys, and its body as prompt); they replace agent files of the same name`)
}

// parse reads the agents of the flag, once: a file is read only then.
// Problems are usage errors.
func (f *agentsFlag) parse() error {
	switch {
	case len(f.values) == 0 || f.parsed:
		return nil
	case len(f.values) > 1:
		return usageErr(fmt.Errorf("--agents is given %d times: give every agent in one JSON object", len(f.values)))
	}
	data, path, err := readJSONFlag("--agents", f.values[0])
	if err != nil {
		return usageErr(err)
	}
	if path != "--agents" {
		// Errors name the flag, then the file.
		path = "--agents " + path
	}
	defs, err := agent.ParseJSON(path, data)
	if err != nil {
		return usageErr(err)
	}
	f.defs, f.parsed = defs, true
	return nil
}

// discover loads the agents of set's workspace, with those of the flag
// above them (agent.Discover); parse must have run.
func (f *agentsFlag) discover(set *settings.Settings) (*agent.Catalog, error) {
	if why := set.LockedBy("agents"); why != "" {
		return agent.DiscoverLocked(set.Workspace.Cwd, set.Workspace.Home, why, f.defs...), nil
	}
	return agent.Discover(set.Workspace.Cwd, set.Workspace.Home, f.defs...)
}

// The pflag.Value methods. String is the value for help's default,
// which is none.
func (f *agentsFlag) String() string { return "" }
func (f *agentsFlag) Set(v string) error {
	f.values = append(f.values, v)
	return nil
}
func (f *agentsFlag) Type() string { return "json" }
