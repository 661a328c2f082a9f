package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/spf13/cobra"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/cost"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
	"github.com/gen-run/gen/report"
	"github.com/gen-run/gen/session"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/structured"
	"github.com/gen-run/gen/tool"
	"github.com/gen-run/gen/transcript"
	"github.com/gen-run/gen/tui"
	"github.com/gen-run/gen/workspace"
)

// Input formats of --input-format.
const (
	inputText       = "text"
	inputStreamJSON = "stream-json"
)

// mainOptions are the flags of gen itself: the interactive main loop, or
// with -p (or a prompt on stdin) the headless one.
type mainOptions struct {
	policyFlags
	mcpFlags
	print        bool
	model        string
	maxTurns     int
	format       string
	noStream     bool
	inputFormat  string
	verbose      bool
	system       string
	appendSystem string
	// systemFile and appendSystemFile are --system-prompt-file and
	// --append-system-prompt-file, read into system and appendSystem by
	// check.
	systemFile, appendSystemFile string
	skipPerms                    bool
	allowBypass                  bool
	noSlash                      bool
	debug                        debugFlag
	resume                       string
	cont                         bool
	sessionID                    string
	fork                         bool
	partial                      bool
	replay                       bool
	noPersist                    bool
	fallback                     string
	jsonSchema                   string
	budget                       float64
	// agent is --agent: the agent the main loop runs as.
	agent string
	// output is --json-schema's tool, compiled by check.
	output *structured.Output
}

func (o *mainOptions) register(cmd *cobra.Command) {
	o.policyFlags.register(cmd, "permission-mode")
	o.mcpFlags.register(cmd, true)
	fl := cmd.Flags()
	_ = fl.MarkHidden("managed-settings") // refused: see policyFlags.whatIf
	fl.BoolVarP(&o.print, "print", "p", false, "run headless: answer the prompt (argument and/or stdin) and exit; Ask becomes Deny")
	fl.StringVar(&o.model, "model", "", "model name at the configured endpoint, or offline for the embedded offline model")
	fl.IntVar(&o.maxTurns, "max-turns", 0, "maximum model turns per prompt (default 50)")
	fl.StringVar(&o.format, "output-format", "text", "headless output: text, json or stream-json")
	fl.BoolVar(&o.noStream, "no-stream", false, noStreamHelp)
	fl.StringVar(&o.inputFormat, "input-format", inputText, "headless input: text, or stream-json (user messages as JSON lines on stdin; needs --output-format stream-json)")
	fl.BoolVar(&o.verbose, "verbose", false, "text output: also log the model's text between tool calls to stderr")
	fl.StringVar(&o.system, "system-prompt", "", "replace the main loop's system prompt (with --agent, the agent's prompt)")
	fl.StringVar(&o.agent, "agent", "", "run the main loop as this agent (see gen agent list; without the flag, the agent settings key's): its prompt is the system prompt, its tool rules and hooks apply, its mode caps the session's, and its model is used without --model")
	fl.StringVar(&o.appendSystem, "append-system-prompt", "", "add text to the end of the system prompt")
	fl.StringVar(&o.systemFile, "system-prompt-file", "", "--system-prompt, read from this file (a relative name from the directory gen was started in)")
	fl.StringVar(&o.appendSystemFile, "append-system-prompt-file", "", "--append-system-prompt, read from this file (a relative name from the directory gen was started in)")
	fl.BoolVar(&o.skipPerms, "dangerously-skip-permissions", false, "same as --permission-mode bypassPermissions (refused where managed settings disable it)")
	o.debug.register(fl)
	fl.BoolVar(&o.noSlash, "disable-slash-commands", false, "load no custom slash commands (.claude/commands, .gen/commands) and no skills: a prompt is sent as typed, and the model has no Skill tool")
	fl.BoolVar(&o.allowBypass, "allow-dangerously-skip-permissions", false, "let the person switch to bypassPermissions during the session (Shift+Tab, /mode), which is otherwise open only to a session started in it; managed settings may still disable it")
	fl.StringVarP(&o.resume, "resume", "r", "", "continue the session with this ID (see the session_id of a json result)")
	fl.BoolVarP(&o.cont, "continue", "c", false, "continue the most recent session in this project")
	fl.StringVar(&o.sessionID, "session-id", "", "start a new session with this ID (a UUID no session of this project has)")
	fl.BoolVar(&o.fork, "fork-session", false, "with --resume or --continue: go on from that session's conversation in a new session (a new ID, or --session-id's), leaving the old one as it was")
	fl.StringVar(&o.fallback, "fallback-model", "", "headless: the model to switch to, for the rest of the run, when the main model's server is overloaded (429 or 5xx after retries)")
	fl.Float64Var(&o.budget, "max-budget-usd", 0, "headless: "+budgetHelp)
	fl.StringVar(&o.jsonSchema, "json-schema", "", `headless: a JSON Schema (inline JSON, "type": "object") the answer must match; the model gives it through the StructuredOutput tool, and the result carries it as structured_output`)
	fl.BoolVar(&o.partial, "include-partial-messages", false, "stream-json: also print the main loop's text as the model streams it, as stream_event lines")
	fl.BoolVar(&o.noPersist, "no-session-persistence", false, "headless: save nothing of the session (no transcript to --resume; hooks get an empty transcript_path); --resume and --continue still read the session they name, and add nothing to it")
	fl.BoolVar(&o.replay, "replay-user-messages", false, "stream-json input and output: print each user message read from stdin back on stdout (with isReplay), before the turn that answers it")
}

// check validates the flags on their own, before anything is read.
func (o *mainOptions) check() (report.Format, error) {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return "", usageErr(err)
	}
	if o.maxTurns < 0 {
		return "", usageErr(fmt.Errorf("--max-turns must not be negative"))
	}
	switch o.inputFormat {
	case inputText:
	case inputStreamJSON:
		if format != report.StreamJSON {
			return "", usageErr(fmt.Errorf("--input-format stream-json needs --output-format stream-json"))
		}
	default:
		return "", usageErr(fmt.Errorf("unknown input format %q (want text or stream-json)", o.inputFormat))
	}
	if err := checkBudget(o.budget); err != nil {
		return "", err
	}
	if o.jsonSchema != "" {
		out, err := structured.New([]byte(o.jsonSchema))
		if err != nil {
			return "", usageErr(fmt.Errorf("--json-schema: %w", err))
		}
		o.output = out
	}
	if o.replay && o.inputFormat != inputStreamJSON {
		return "", usageErr(fmt.Errorf("--replay-user-messages needs --input-format stream-json and --output-format stream-json"))
	}
	if o.partial {
		switch {
		case format != report.StreamJSON:
			return "", usageErr(fmt.Errorf("--include-partial-messages needs --output-format stream-json"))
		case o.noStream:
			return "", usageErr(fmt.Errorf("--include-partial-messages needs a streamed answer: it excludes --no-stream"))
		}
	}
	if o.skipPerms {
		if o.mode != "" && o.mode != "bypassPermissions" {
			return "", usageErr(fmt.Errorf("--dangerously-skip-permissions contradicts --permission-mode %s", o.mode))
		}
		o.mode = "bypassPermissions"
	}
	if err := o.checkRules(); err != nil {
		return "", err
	}
	if err := o.mcpFlags.check(); err != nil {
		return "", err
	}
	if err := o.agents.parse(); err != nil {
		return "", err
	}
	if o.system, err = promptFlag("--system-prompt", o.system, "--system-prompt-file", o.systemFile); err != nil {
		return "", usageErr(err)
	}
	if o.appendSystem, err = promptFlag("--append-system-prompt", o.appendSystem, "--append-system-prompt-file", o.appendSystemFile); err != nil {
		return "", usageErr(err)
	}
	if o.resume != "" && o.cont {
		return "", usageErr(fmt.Errorf("--resume and --continue exclude each other"))
	}
	if o.resume != "" {
		if err := transcript.CheckID(o.resume); err != nil {
			return "", usageErr(fmt.Errorf("--resume: %w", err))
		}
	}
	if o.fork && o.resume == "" && !o.cont {
		return "", usageErr(fmt.Errorf("--fork-session forks the session --resume or --continue names: give one of them"))
	}
	if o.sessionID != "" {
		if (o.resume != "" || o.cont) && !o.fork {
			return "", usageErr(fmt.Errorf("--session-id starts a new session: it excludes --resume and --continue (unless with --fork-session, for the fork's ID)"))
		}
		if err := transcript.CheckID(o.sessionID); err != nil {
			return "", usageErr(fmt.Errorf("--session-id: %w", err))
		}
	}
	return format, nil
}

// runMain decides between the TUI and a headless run. Headless never
// waits on a terminal: without a terminal on stdin there is no TUI.
func runMain(cmd *cobra.Command, o *mainOptions, args []string, s Streams) error {
	if err := checkPositional(cmd.Root(), o.print, args); err != nil {
		return err
	}
	format, err := o.check()
	if err != nil {
		return err
	}
	headless := o.print || !s.InTerminal
	streamIn := o.inputFormat == inputStreamJSON
	prompt := strings.Join(args, " ")
	switch {
	case o.debug.set && !headless:
		return usageErr(fmt.Errorf("--debug writes to stderr, which the interactive loop draws on: use it with -p"))
	case streamIn && (!headless || s.InTerminal):
		return usageErr(fmt.Errorf("--input-format stream-json reads the messages from a pipe: add -p and pipe them in"))
	case streamIn && prompt != "":
		return usageErr(fmt.Errorf("with --input-format stream-json the prompts come on stdin, not as an argument"))
	case !headless && prompt != "":
		return usageErr(fmt.Errorf("a prompt argument runs headless with -p (gen -p %q); in the terminal, start gen and type it", prompt))
	case headless && !streamIn && !s.InTerminal:
		if prompt, err = promptWithStdin(cmd.Context(), prompt, s); err != nil {
			return err
		}
	}
	if o.fallback != "" && !headless {
		return usageErr(fmt.Errorf("--fallback-model is for headless runs (-p), as in Claude Code"))
	}
	if o.budget > 0 && !headless {
		return usageErr(fmt.Errorf("--max-budget-usd is for headless runs (-p), as in Claude Code"))
	}
	if o.output != nil && !headless {
		return usageErr(fmt.Errorf("--json-schema is for headless runs (-p), as in Claude Code"))
	}
	if o.noPersist && !headless {
		return usageErr(fmt.Errorf("--no-session-persistence is for headless runs (-p), as in Claude Code"))
	}
	if headless && !streamIn && prompt == "" {
		return usageErr(fmt.Errorf("no prompt: give it as an argument or on stdin"))
	}
	endBudget, err := hook.EndBudgetFromEnv(os.LookupEnv)
	if err != nil {
		return usageErr(err)
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
		trusted, err := offerTrust(cmd.Context(), set, &o.agents, s)
		if err != nil {
			return &exitError{ExitFailed, err}
		}
		if trusted {
			if set, err = live.Reload(); err != nil {
				return usageErr(err)
			}
		}
	}
	sid, history, err := o.sessionFor(setOpts)
	if err != nil {
		return err
	}
	def, err := o.mainAgent(set, &sid)
	if err != nil {
		return err
	}
	o.debug.warn(s.Err)
	model, modelName, meter, err := runModel(o.model, def, set, o.noStream, o.debug.logger("api", s.Err), o.budget, s.Err)
	if err != nil {
		return err
	}
	if o.fallback != "" {
		if model, err = o.withFallback(model, modelName, set.API, meter, s.Err); err != nil {
			return err
		}
	}
	servers, err := startMCP(cmd.Context(), live, set, &o.mcpFlags, headless, s.Err)
	if err != nil {
		return err
	}
	defer servers.close()
	cfg := session.Config{
		Settings:     setOpts,
		Live:         live,
		Model:        model,
		ModelName:    modelName,
		MaxTurns:     o.maxTurns,
		Output:       o.output,
		System:       o.system,
		AppendSystem: o.appendSystem,
		History:      history,
		SearchURL:    tool.SearchEndpointFromEnv(),
		OnWarning:    func(w string) { warnTo(s.Err, w) },
		MCP:          servers.MCP,
		Agents:       o.agents.defs,
		Agent:        def,
		AllowBypass:  o.allowBypass,
		NoSkills:     o.noSlash,
		DebugHooks:   o.debug.logger("hooks", s.Err),
		EndBudget:    endBudget,
	}
	if o.noPersist {
		cfg.SessionID = sid.ID
	} else {
		if err := sid.start(); err != nil {
			return err
		}
		defer sid.discardUnused(s.Err)
		sid.record(&cfg)
	}
	if headless {
		h := &headlessRun{
			cfg:     cfg,
			sid:     sid,
			servers: servers.initServers(),
			printer: &report.Printer{Format: format, Out: s.Out, Err: s.Err, Verbose: o.verbose},
			partial: o.partial,
			replay:  o.replay,
			meter:   meter,
		}
		// The commands are read once, as the session starts (as in
		// Claude Code); each prompt that invokes one is expanded against
		// them, its ! commands run as the session's Bash calls.
		if !o.noSlash && (streamIn || strings.HasPrefix(prompt, "/")) {
			h.cmds, _ = discoverCommands(set)
		}
		if streamIn {
			return h.stream(cmd.Context(), s)
		}
		return h.once(cmd.Context(), prompt)
	}
	// A broken command file is an error when its command is invoked, and
	// /help lists it.
	var cmds *skill.Commands
	if !o.noSlash {
		cmds, _ = discoverCommands(set)
	}
	ui := tui.New(tui.Options{In: s.In, Out: s.Out, Commands: cmds})
	// The TUI owns the screen: warnings are shown in its transcript.
	cfg.Approver, cfg.Asker, cfg.OnWarning = ui, ui, ui.Warn
	sess, err := session.New(cfg)
	if err != nil {
		return usageErr(err)
	}
	if err := ui.Run(cmd.Context(), sess); err != nil {
		return &exitError{ExitFailed, err}
	}
	return nil
}

// mainAgent returns the agent the main loop runs as, and records it in
// sid (sessionRef.Agent): --agent's; else, for a resumed session, the one
// it ran as; else the settings' (their agent key, settings.Settings.Agent),
// looked up among the agents of set's workspace and --agents; nil
// without one. A usage error names the flag, the session or the
// settings file when the name is unknown or its file did not load.
//
// A resumed session keeps its agent's rules, as it keeps its
// conversation: resuming must not give the model more than it had. So
// it is refused, never run without them, when its agent is gone, when
// the agent of that name now comes from elsewhere (the --agents one of
// the session is not given again, and a file of that name would stand
// in), or when the settings that chose it no longer do (their project is
// no longer trusted, or they choose another): their choice was only
// ever theirs to make while they made it.
func (o *mainOptions) mainAgent(set *settings.Settings, sid *sessionRef) (*agent.Definition, error) {
	resumed := sid.Agent
	name, by := o.agent, "--agent"
	from := "--agent"
	switch {
	case name != "":
	case resumed.Name != "":
		name, by = resumed.Name, resumed.By
		from = fmt.Sprintf("session %s ran as agent %q (give --agent to run as another)", sid.ID, name)
		if resumed.By != "" && resumed.By != "--agent" && set.Agent != name {
			now := "no agent"
			if set.Agent != "" {
				now = fmt.Sprintf("agent %q (%s)", set.Agent, set.AgentAt)
			}
			return nil, usageErr(fmt.Errorf("%s, chosen by %s, whose settings now choose %s: give --agent to resume as an agent", from, resumed.By, now))
		}
	default:
		name, by, from = set.Agent, set.AgentAt, set.AgentAt+": agent"
	}
	if name == "" {
		sid.Agent = transcript.Agent{}
		return nil, nil
	}
	cat, err := o.agents.discover(set)
	if err != nil {
		return nil, usageErr(err)
	}
	def, err := cat.Lookup(name)
	if err != nil {
		return nil, usageErr(fmt.Errorf("%s: %w", from, err))
	}
	if o.agent == "" && resumed.Source != "" && def.Source != resumed.Source {
		hint := ""
		if resumed.Source == agent.SourceCLI {
			hint = "; give its --agents again"
		}
		return nil, usageErr(fmt.Errorf("%s, a %s agent; the agent of that name now is a %s one (%s)%s", from, resumed.Source, def.Source, def.Path, hint))
	}
	sid.Agent = transcript.Agent{Name: def.Name, Source: def.Source, By: by}
	return def, nil
}

// withFallback returns main, the model named mainName, switching to the
// model --fallback-model names when main's server is overloaded
// (chat.Fallback), with a warning to errw. Both must be models of the
// configured endpoint: the offline model is no stand-in for one.
func (o *mainOptions) withFallback(main loop.Model, mainName string, api settings.API, meter *cost.Meter, errw io.Writer) (loop.Model, error) {
	if o.fallback == "offline" || mainName == "offline" {
		return nil, usageErr(fmt.Errorf("--fallback-model %s: both models must be served by the configured endpoint, not the offline model", o.fallback))
	}
	if o.fallback == mainName {
		return nil, usageErr(fmt.Errorf("--fallback-model %s is the main model", o.fallback))
	}
	fb, _, err := pickModel(o.fallback, true, api, o.noStream, o.debug.logger("api", errw), errw)
	if err != nil {
		return nil, err
	}
	if meter != nil {
		price, ok := api.Pricing[o.fallback]
		if !ok {
			// Turns of an unpriced model would pass the budget uncounted.
			return nil, usageErr(fmt.Errorf("--fallback-model %s: no price for it in the api.pricing setting, and the run is priced", o.fallback))
		}
		fb = meter.Model(fb, price)
	}
	return &chat.Fallback{Primary: main, Secondary: fb, OnSwitch: func(err error) {
		fmt.Fprintf(errw, "gen: warning: %s is overloaded (%v); using the fallback model %s for the rest of the run\n", mainName, err, o.fallback)
	}}, nil
}

// meterFor returns a run's cost meter, with budget (0 for none) and
// parent (nil for none), and main, named name, priced by it, when the
// api.pricing setting prices the model; else nil and main unchanged.
// A budget needs the price: without one it could not be kept.
func meterFor(budget float64, parent *cost.Meter, main loop.Model, name string, api settings.API) (*cost.Meter, loop.Model, error) {
	price, ok := api.Pricing[name]
	budgeted := budget > 0 || parent.Budgeted()
	if name == "offline" {
		if !budgeted {
			return nil, main, nil // nothing to count or report
		}
		price, ok = cost.Price{}, true // it runs here, for nothing
	}
	if !ok {
		if budgeted {
			return nil, nil, fmt.Errorf("--max-budget-usd: no price for the model %s: add it to the api.pricing setting, e.g. \"api\": {\"pricing\": {%q: {\"input\": 3, \"output\": 15}}} (dollars per million tokens)", name, name)
		}
		return nil, main, nil
	}
	m := &cost.Meter{Max: budget, Parent: parent}
	return m, m.Model(main, price), nil
}

// checkBudget checks a --max-budget-usd value.
func checkBudget(budget float64) error {
	if !(budget >= 0) || math.IsInf(budget, 0) {
		return usageErr(fmt.Errorf("--max-budget-usd must be a number of dollars, not negative"))
	}
	return nil
}

// sessionRef names a run's session and its transcript file.
type sessionRef struct {
	ID   string
	Path string
	Cwd  string
	// Agent is the agent the main loop runs as, which every entry
	// records: sessionFor sets it to the one the resumed session ran as,
	// mainAgent to the one this run runs as.
	Agent transcript.Agent
	// create is set for a session that start must create: one whose ID
	// was given (--session-id) or a fork (--fork-session), whose
	// transcript then starts with forked, the conversation it goes on
	// from.
	create bool
	forked []openai.ChatCompletionMessage
	// created is the size of the transcript start created, for
	// discardUnused; 0 when it created none.
	created int64
}

// start creates the transcript of a session that must be new (create),
// holding the conversation a fork goes on from: from its first turn on,
// hooks find the whole conversation at transcript_path. Of two runs that
// would start the same session, the second is refused.
func (r *sessionRef) start() error {
	if !r.create {
		return nil
	}
	size, err := transcript.Create(r.Path, r.meta(), r.forked)
	if errors.Is(err, fs.ErrExist) {
		return r.taken()
	}
	if err != nil {
		return &exitError{ExitFailed, err}
	}
	r.created = size
	return nil
}

// discardUnused removes the transcript start created if the session got
// no turn (transcript.Discard): the run failed or was stopped before its
// first prompt was sent, a hook blocked that prompt, or the person left
// the TUI without one. As in Claude Code, such a session is not kept: an
// empty one (--session-id) would become the newest session --continue
// picks over the last real one, and keep a retry from naming its ID; a
// fork's would be a copy of the conversation it forked, which stays
// where it was. A session that got a turn, a failed one included, keeps
// everything. A failure to remove it is a warning on errw.
func (r *sessionRef) discardUnused(errw io.Writer) {
	if r.created == 0 {
		return
	}
	if _, err := transcript.Discard(r.Path, r.created); err != nil {
		fmt.Fprintln(errw, "gen: warning: removing the transcript of a session that got no turn:", err)
	}
}

func (r sessionRef) meta() transcript.Meta {
	return transcript.Meta{SessionID: r.ID, Cwd: r.Cwd, Agent: r.Agent}
}

// record names the session in cfg and makes it append every turn to the
// session's transcript.
func (r sessionRef) record(cfg *session.Config) {
	cfg.SessionID, cfg.TranscriptPath = r.ID, r.Path
	meta := r.meta()
	cfg.OnTurn = func(msgs []openai.ChatCompletionMessage) error {
		return transcript.Append(r.Path, meta, msgs)
	}
}

// sessionFor returns the session of this run: a new one, or the one
// --resume or --continue names, with its conversation so far and the
// agent it ran as (sessionRef.Agent), or a fork of it (--fork-session).
// The project is the workspace's project root, as settings find it.
func (o *mainOptions) sessionFor(opts settings.Options) (sessionRef, []openai.ChatCompletionMessage, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return sessionRef{}, nil, usageErr(fmt.Errorf("sessions: %w", err))
	}
	project := workspace.ProjectRoot(opts.Cwd, home)
	id := o.resume
	if o.cont {
		id, err = transcript.Latest(home, project)
		if errors.Is(err, transcript.ErrNone) {
			return sessionRef{}, nil, usageErr(fmt.Errorf("--continue: %w (%s)", err, transcript.ProjectDir(home, project)))
		}
		if err != nil {
			return sessionRef{}, nil, usageErr(fmt.Errorf("--continue: %w", err))
		}
	}
	if id == "" {
		ref, err := o.newSession(home, project, opts.Cwd)
		return ref, nil, err
	}
	ref := sessionRef{ID: id, Cwd: opts.Cwd}
	ref.Path = transcript.Path(home, project, id)
	history, agent, err := transcript.LoadAgent(ref.Path)
	if err != nil {
		return sessionRef{}, nil, usageErr(err)
	}
	ref.Agent = agent
	if in, err := transcript.In(ref.Path, project); err != nil || !in {
		return sessionRef{}, nil, usageErr(fmt.Errorf("--resume %s: the session was not held in %s", id, project))
	}
	if o.fork {
		fork, err := o.newSession(home, project, opts.Cwd)
		if err != nil {
			return sessionRef{}, nil, err
		}
		fork.create, fork.forked, fork.Agent = true, history, agent
		return fork, history, nil
	}
	return ref, history, nil
}

// newSession returns a new session of project: --session-id's, which
// start creates, or one with a new ID. One the project has already is
// refused here, before anything starts; start's exclusive create is what
// keeps two runs racing for one ID from both writing it.
func (o *mainOptions) newSession(home, project, cwd string) (sessionRef, error) {
	ref := sessionRef{ID: cmp.Or(o.sessionID, transcript.NewID()), Cwd: cwd, create: o.sessionID != ""}
	ref.Path = transcript.Path(home, project, ref.ID)
	if _, err := os.Lstat(ref.Path); err == nil {
		return sessionRef{}, ref.taken()
	}
	return ref, nil
}

// taken is the error for a new session whose ID the project has already.
func (r sessionRef) taken() error {
	return usageErr(fmt.Errorf("--session-id %s: the project has a session with this ID already (%s); resume it with --resume", r.ID, r.Path))
}

// headlessRun is one headless run of the main loop.
type headlessRun struct {
	cfg session.Config
	sid sessionRef
	// servers are the MCP servers for the init event.
	servers []report.MCPServer
	printer *report.Printer
	// cmds are the custom slash commands a prompt may invoke (expand);
	// nil for none.
	cmds *skill.Commands
	// partial is --include-partial-messages.
	partial bool
	// replay is --replay-user-messages.
	replay bool
	// meter prices the run's turns; nil when its model has no price.
	meter *cost.Meter
}

// submit runs one turn of sess, its events printed as they come, and
// returns what the turn's result reports. stopped is what expand
// returned for prompt: nil, or the ! command (a *skill.ShellError) that
// stopped the expansion of the command prompt invoked. Then nothing is
// sent, and the turn failed with it, as a turn whose model call failed
// does (a client still gets the turn's result, an error during
// execution); one the gate refused is among its denials, as a refused
// call of the model's would be.
func (h *headlessRun) submit(ctx context.Context, sess *session.Session, prompt string, stopped error) report.Run {
	if stopped != nil {
		rep := report.Run{Err: stopped, CostUSD: h.meter.SpentIfPriced()}
		var shell *skill.ShellError
		var denied *tool.DeniedError
		if errors.As(stopped, &shell) && errors.As(shell.Err, &denied) {
			rep.Outcome.Denials = []loop.Denial{{ToolName: "Bash", ToolInput: map[string]any{"command": shell.Command}, Reason: denied.Result.Reason}}
		}
		return rep
	}
	var onText func(string)
	if h.partial {
		onText = h.printer.Partial
	}
	out, err := sess.Submit(ctx, prompt, h.printer.Event, onText)
	rep := report.Run{Outcome: out, Err: err}
	if h.cfg.Output != nil {
		rep.Structured, _ = h.cfg.Output.Value()
	}
	rep.CostUSD = h.meter.SpentIfPriced()
	return rep
}

func (h *headlessRun) start() (*session.Session, error) {
	sess, err := session.New(h.cfg)
	if err != nil {
		return nil, usageErr(err)
	}
	ev := report.Init{
		SessionID:  h.sid.ID,
		Cwd:        h.sid.Cwd,
		Model:      h.cfg.ModelName,
		Mode:       sess.Mode(),
		Tools:      sess.Tools(),
		MCPServers: h.servers,
		Agent:      "main",
	}
	if h.cfg.Agent != nil {
		ev.Agent = h.cfg.Agent.Name
	}
	h.printer.Init(ev)
	return sess, nil
}

// once answers one prompt.
func (h *headlessRun) once(ctx context.Context, prompt string) error {
	sess, err := h.start()
	if err != nil {
		return err
	}
	prompt, err = h.expand(ctx, sess, prompt)
	if invalid(err) {
		return usageErr(err)
	}
	rep := h.submit(ctx, sess, prompt, err)
	h.printer.Result(&rep)
	sess.End(ctx, "other")
	return exitFor(&rep)
}

// expand returns the prompt that invoking one of h.cmds sends
// (expandCommand), its ! commands run in sess; prompt as it is when there
// are no commands. Its error is either one of invoking the command
// (invalid) or the ! command that stopped the expansion, which the
// turn reports (submit).
func (h *headlessRun) expand(ctx context.Context, sess *session.Session, prompt string) (string, error) {
	if h.cmds == nil {
		return prompt, nil
	}
	return expandCommand(h.cmds, prompt, h.printer.Err, func(c string) (string, error) { return sess.Shell(ctx, c) })
}

// invalid reports whether err, from expand, says the prompt invokes a
// command that cannot be sent as invoked (its file is broken or refused,
// the project may not run its ! commands, the arguments do not split): a
// usage error. A ! command that ran, or that the gate refused, and
// stopped the expansion (skill.ShellError) is not: that is the outcome
// of the turn.
func invalid(err error) bool {
	var shell *skill.ShellError
	return err != nil && !errors.As(err, &shell)
}

// promptWithStdin reads stdin (not a terminal) and combines it with the
// prompt argument as Claude Code does: the argument first, then on the
// next line what came on stdin. Without an argument, stdin is the prompt
// and gen waits for its end (Ctrl+C and SIGTERM end the wait). With one,
// stdin is optional: when nothing arrives within stdinGrace, gen goes on
// without it (a caller that left stdin open must not hang a run).
func promptWithStdin(ctx context.Context, prompt string, s Streams) (string, error) {
	grace := time.Duration(0)
	if prompt != "" {
		grace = stdinGrace
	}
	b, err := readPrompt(ctx, s.In, grace)
	switch {
	case errors.Is(err, errNoStdin):
		fmt.Fprintf(s.Err, "gen: warning: nothing arrived on stdin within %s; going on with the prompt argument alone (redirect stdin from /dev/null to skip the wait)\n", stdinGrace)
		return prompt, nil
	case err != nil && ctx.Err() != nil:
		return "", &exitError{ExitFailed, err}
	case err != nil:
		return "", usageErr(err)
	}
	in := strings.TrimSpace(string(b))
	switch {
	case prompt == "":
		return in, nil
	case in == "":
		return prompt, nil
	}
	return prompt + "\n" + in, nil
}
