package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/spf13/cobra"
	"golang.org/x/sync/semaphore"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
)

// policyFlags are the flags every command that builds a policy shares.
type policyFlags struct {
	cwd        string
	mode       string
	addDirs    []string
	allowed    []string
	disallowed []string
	managed    string
	// whatIf is set for gen permissions check, the only command where
	// --managed-settings may stand in for the managed policy: it runs
	// nothing.
	whatIf bool
	// trust is --trust: trust the project for this run only.
	trust bool
	// tools is --tools; nil when it was not given.
	tools []string
	// settings is --settings: a settings file, or JSON.
	settings string
	// sources is --setting-sources; nil when it was not given.
	sources []string
	// agents is --agents, where the command takes it.
	agents agentsFlag
}

// trustHelp is the usage of --trust wherever a command loads settings.
const trustHelp = "trust this project for this run only: " + settings.TrustCovers + " apply (see gen trust)"

func (f *policyFlags) register(cmd *cobra.Command, modeName string) {
	fl := cmd.Flags()
	fl.StringVar(&f.cwd, "cwd", "", "working directory (default: the current directory)")
	fl.StringVar(&f.mode, modeName, "", "permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions, auto")
	stringsVar(fl, &f.addDirs, "add-dir", nil, "additional directory file tools may access (repeatable)")
	stringsVar(fl, &f.allowed, "allowedTools", nil, "allow rules for this session, comma- or space-separated, e.g. 'Read,Bash(npm test)' (repeatable; alias --allowed-tools)")
	stringsVar(fl, &f.disallowed, "disallowedTools", nil, "deny rules for this session, comma- or space-separated, e.g. 'Bash(rm:*)' (repeatable; alias --disallowed-tools)")
	fl.BoolVar(&f.trust, "trust", false, trustHelp)
	fl.StringVar(&f.settings, "settings", "", "a settings file, or a JSON object, to load as one more settings scope, above local settings and below managed ones (read once: not followed)")
	stringsVar(fl, &f.sources, "setting-sources", nil, `the settings scopes to load in full, comma-separated: user, project, local ("" for none); managed settings and --settings always load, and a scope left out still brings its deny and ask rules (the user's, its guard hooks too)`)
	stringsVar(fl, &f.tools, "tools", nil, `the built-in tools the run has, comma- or space-separated, e.g. 'Bash,Read,Edit'; "" for none, "default" for all (the others are denied and not shown; MCP tools stay, and so do EnterPlanMode and ExitPlanMode, which only switch the mode with your approval)`)
	fl.StringVar(&f.managed, "managed-settings", "", "what-if: read managed settings from this file instead of /etc/gen/managed-settings.json (gen permissions check only)")
	f.agents.register(fl)
}

// load resolves the working directory and loads every settings scope.
// Problems are usage errors (exit 2); warnings go to errw.
func (f *policyFlags) load(errw io.Writer) (*settings.Settings, error) {
	_, s, err := f.watch(errw)
	return s, err
}

// watch is load for a run that follows its settings files while it lasts
// (settings.Live); it returns them as loaded now too.
func (f *policyFlags) watch(errw io.Writer) (*settings.Live, *settings.Settings, error) {
	opts, err := f.options()
	if err != nil {
		return nil, nil, err
	}
	live, err := settings.Watch(opts)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	s, err := live.Current()
	if err != nil {
		return nil, nil, usageErr(err)
	}
	for _, w := range s.Warnings {
		warnTo(errw, w)
	}
	return live, s, nil
}

// options checks the flags that name files and directories and returns
// the settings options they stand for. Problems are usage errors.
func (f *policyFlags) options() (settings.Options, error) {
	cwd := f.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return settings.Options{}, usageErr(err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return settings.Options{}, usageErr(err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return settings.Options{}, usageErr(fmt.Errorf("--cwd %s: not a directory", cwd))
	}
	if f.managed != "" && !f.whatIf {
		// The managed policy is the administrator's: a flag that swapped
		// it would defeat disableBypassPermissionsMode.
		return settings.Options{}, usageErr(fmt.Errorf("--managed-settings is only for gen permissions check (a what-if); runs always read %s", settings.DefaultManagedPath))
	}
	if f.managed != "" {
		// A what-if against a file that is not there would silently
		// answer for no managed settings at all.
		if _, err := os.Stat(f.managed); err != nil {
			return settings.Options{}, usageErr(fmt.Errorf("--managed-settings: %w", err))
		}
	}
	flagData, flagPath, err := f.flagSettings()
	if err != nil {
		return settings.Options{}, usageErr(err)
	}
	sources, err := settings.ParseSources(f.sources)
	if err != nil {
		return settings.Options{}, usageErr(fmt.Errorf("--setting-sources: %w", err))
	}
	if err := f.agents.parse(); err != nil {
		return settings.Options{}, err
	}
	dirs, err := startDirs(f.addDirs)
	if err != nil {
		return settings.Options{}, usageErr(err)
	}
	return settings.Options{
		FlagSettings:     flagData,
		FlagSettingsPath: flagPath,
		Cwd:              cwd,
		ManagedPath:      f.managed,
		Mode:             f.mode,
		AddDirs:          dirs,
		Allowed:          splitRuleLists(f.allowed),
		Disallowed:       splitRuleLists(f.disallowed),
		Trust:            f.trust,
		Tools:            splitRuleLists(f.tools),
		LimitTools:       f.tools != nil,
		Sources:          sources,
		LimitSources:     f.sources != nil,
	}, nil
}

// flagSettings reads --settings (readJSONFlag), now and only now. A file
// that cannot be read is an error: its deny rules must not vanish.
func (f *policyFlags) flagSettings() (data []byte, path string, err error) {
	if f.settings == "" {
		return nil, "", nil // not given: an empty value is refused (noEmpty)
	}
	return readJSONFlag("--settings", f.settings)
}

type checkOptions struct {
	policyFlags
	agent     string
	mainAgent string
	headless  bool
	input     string
	json      bool
	batch     string
}

// newPermissionsCmd returns `gen permissions`. runF, if not nil, replaces
// runCheck, so that flag parsing can be tested apart from behaviour.
func newPermissionsCmd(s Streams, runF func(*checkOptions, []string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Inspect permission decisions",
	}
	o := &checkOptions{policyFlags: policyFlags{whatIf: true}}
	check := &cobra.Command{
		Use:   "check [flags] CALL",
		Short: "Show the decision for one tool call, with its step and reason",
		Long: `Show the decision for one tool call, with its step and reason.

CALL is Tool(specifier): Bash(git status), Read(./a.txt), WebFetch(https://x.org),
Agent(Explore), or a bare tool name such as mcp__github__get_issue. With --input,
CALL is the tool name and the JSON object gives its full arguments.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.batch != "" {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o, args)
			}
			return runCheck(cmd.Context(), o, args, s)
		},
	}
	o.register(check, "mode")
	fl := check.Flags()
	fl.StringVar(&o.agent, "agent", "", "evaluate as this subagent")
	fl.StringVar(&o.mainAgent, "main-agent", "", "evaluate as the main loop running as this agent (gen --agent NAME)")
	fl.BoolVar(&o.headless, "headless", false, "evaluate as a headless run (Ask becomes Deny)")
	fl.StringVar(&o.input, "input", "", "the call's full arguments as a JSON object")
	fl.BoolVar(&o.json, "json", false, "print the result as one JSON object")
	fl.StringVar(&o.batch, "batch", "", "evaluate each JSON line of FILE (- for stdin), printing one JSON result per line")
	cmd.AddCommand(check)
	groupRun(cmd)
	return cmd
}

// checkResult is the --json object; its shape is an interface.
type checkResult struct {
	Decision string  `json:"decision"`
	Step     int     `json:"step"`
	Reason   string  `json:"reason"`
	Rule     *string `json:"rule"`
	Source   string  `json:"source"`
	// Sandbox is the profile a Bash command runs under (read-only,
	// workspace-write or none); absent for other tools.
	Sandbox string `json:"sandbox,omitempty"`
}

func toCheckResult(r perm.Result) checkResult {
	out := checkResult{Decision: r.Decision.String(), Step: r.Step, Reason: r.Reason, Source: string(r.Source), Sandbox: string(r.Sandbox)}
	if r.Rule != "" {
		out.Rule = &r.Rule
	}
	return out
}

func runCheck(ctx context.Context, o *checkOptions, args []string, s Streams) error {
	set, err := o.load(s.Err)
	if err != nil {
		return err
	}
	c := policy.Check{ModeFlag: o.mode != "", Headless: o.headless}
	// The agents the main loop may delegate to: the files their hooks
	// run are code to it too.
	cat, err := o.agents.discover(set)
	if err != nil {
		return usageErr(err)
	}
	c.Agents = cat.All()
	if o.agent != "" && o.mainAgent != "" {
		return usageErr(fmt.Errorf("--agent (a subagent) and --main-agent (the main loop as an agent) exclude each other"))
	}
	if name := cmp.Or(o.agent, o.mainAgent); name != "" {
		def, err := cat.Lookup(name)
		if err != nil {
			return usageErr(fmt.Errorf("%w (see gen agent list)", err))
		}
		if o.agent != "" {
			c.Agent = def
		} else {
			c.MainAgent = def
		}
	}
	pol, warns := policy.ForCheck(set, c)
	for _, w := range warns {
		warnTo(s.Err, w)
	}
	if o.batch != "" {
		return runBatch(ctx, o.batch, &pol, s)
	}
	req, err := parseCheckCall(args[0], o.input)
	if err != nil {
		return usageErr(err)
	}
	res := perm.Evaluate(req, &pol)
	if o.json {
		return json.NewEncoder(s.Out).Encode(toCheckResult(res))
	}
	printResult(s.Out, res)
	return nil
}

func printResult(w io.Writer, r perm.Result) {
	fmt.Fprintf(w, "%s (step %d): %s\n", r.Decision, r.Step, r.Reason)
	if r.Rule != "" {
		fmt.Fprintf(w, "  rule:   %s\n", r.Rule)
	}
	fmt.Fprintf(w, "  source: %s\n", r.Source)
	if r.Sandbox != "" {
		fmt.Fprintf(w, "  sandbox: %s\n", r.Sandbox)
	}
}

// parseCheckCall builds the request from CALL and, if given, --input.
func parseCheckCall(callText, input string) (perm.Request, error) {
	if input == "" {
		// CALL carries only the specifier: nothing else to validate.
		return perm.ParseCall(callText)
	}
	if strings.Contains(callText, "(") {
		return perm.Request{}, fmt.Errorf("with --input, CALL is a bare tool name, not %q", callText)
	}
	// Strict, as a --batch line is: a repeated name (read as its first
	// value by one reader and its last by another) or invalid UTF-8 is an
	// error.
	var in map[string]any
	if err := jsonv2.Unmarshal([]byte(input), &in); err != nil {
		return perm.Request{}, fmt.Errorf("--input: %w", err)
	}
	if in == nil {
		return perm.Request{}, fmt.Errorf("--input must be a JSON object")
	}
	return normalise(perm.Request{Tool: callText, Input: in})
}

// normalise applies the argument aliases and validates the full arguments
// of a built-in tool, exactly as the loop does before the gate. It
// rewrites req.Input itself (schema.NormalizeOwned): the caller owns it,
// a map it has just decoded.
func normalise(req perm.Request) (perm.Request, error) {
	if !schema.Known(req.Tool) {
		if strings.HasPrefix(req.Tool, "mcp__") {
			return req, nil
		}
		return req, fmt.Errorf("unknown tool %q", req.Tool)
	}
	req.Input = schema.NormalizeOwned(req.Tool, req.Input)
	if err := schema.Validate(req.Tool, req.Input); err != nil {
		return req, err
	}
	return req, nil
}

// batchLine is one --batch input line.
type batchLine struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	Call  string         `json:"call"`
}

// unmarshalBatchLine decodes a --batch line into a zero *bl, strictly
// (parseBatchLine).
func unmarshalBatchLine(line []byte, bl *batchLine) error {
	*bl = batchLine{}
	return jsonv2.Unmarshal(line, bl, jsonv2.RejectUnknownMembers(true))
}

// runBatch evaluates every line of file ("-" for s.In) in one process,
// on GOMAXPROCS workers (see checkBatch).
func runBatch(ctx context.Context, file string, pol *perm.Policy, s Streams) error {
	var r io.Reader = s.In
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return usageErr(err)
		}
		defer f.Close()
		r = f
	}
	defer raiseGCPercent()()
	return checkBatch(ctx, r, file, runtime.GOMAXPROCS(0), pol, s)
}

// batchJob is one non-blank input line on its way through checkBatch.
type batchJob struct {
	n      int    // line number, for messages
	line   []byte // the line, trimmed
	weight int64  // its share of batchInflightBytes
	// end is where the answer line, with its newline, ends in its
	// chunk's out, and err the line's problem if it is bad; both are set
	// before its chunk is done.
	end int
	err error
}

// batchChunk is a run of consecutive lines handed to one worker at once:
// handing over lines one by one cost a goroutine wake-up each, about a
// sixth of a batch's CPU.
type batchChunk struct {
	jobs []batchJob
	// in holds the jobs' lines, one after the other: a copy each would
	// be an allocation per line. A line that does not fit moves it to a
	// larger array; the lines before stay where they are.
	in     []byte
	out    []byte        // the answer lines, one after the other
	weight int64         // the sum of the jobs' weights
	done   chan struct{} // closed when every job is answered
}

// keep returns a copy of line in c.in. The arrays it makes are at most
// twice the lines they hold, or the size of a chunk.
func (c *batchChunk) keep(line []byte) []byte {
	if cap(c.in)-len(c.in) < len(line) {
		c.in = make([]byte, 0, max(len(line), min(2*cap(c.in), batchChunkBytes), batchChunkInBytes))
	}
	start := len(c.in)
	c.in = append(c.in, line...)
	return c.in[start:len(c.in):len(c.in)]
}

// batchChunkInBytes is the room a chunk first makes for its lines.
const batchChunkInBytes = 16 << 10

// batchInflightBytes bounds the input lines checkBatch holds at once, in
// bytes, whatever their number and length (a line may be 16 MiB).
// batchChunkLines and batchChunkBytes bound one chunk; at most
// batchChunksPerWorker chunks per worker are in flight.
var batchInflightBytes int64 = 32 << 20 // a test lowers it

const (
	batchChunkLines      = 128
	batchChunkBytes      = 256 << 10
	batchChunksPerWorker = 8
)

// checkBatch answers every line read from r with one JSON line on s.Out,
// evaluating on workers goroutines. Output is in input order: output line
// i answers the i-th non-blank input line. A bad line yields an
// {"error": "..."} line in its place, a message naming file:line on s.Err
// (in input order too) and a usage exit at the end. A read error or a
// line over batchMaxLine ends the batch with a usage error naming the
// file (and the line), after the answers to the lines before it.
//
// Lines go to the workers in chunks of consecutive lines. A chunk is
// handed over when it is full and, whatever its size, before the reader
// asks r for more input, which may block. Output is buffered and flushed
// whenever every chunk handed over has been answered: a client that
// writes one line and waits gets its answer. At most
// batchChunksPerWorker chunks per worker and batchInflightBytes of lines
// are in flight.
func checkBatch(ctx context.Context, r io.Reader, file string, workers int, pol *perm.Policy, s Streams) error {
	workers = max(workers, 1)
	// order holds the chunks handed over, oldest first; work hands the
	// same chunks to the workers.
	order := make(chan *batchChunk, batchChunksPerWorker*workers)
	work := make(chan *batchChunk, workers)
	inflight := semaphore.NewWeighted(batchInflightBytes)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var scanErr error
	go func() {
		defer close(order)
		defer close(work)
		var pending *batchChunk
		handOver := func() error {
			c := pending
			if c == nil {
				return nil
			}
			pending = nil
			select {
			case order <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case work <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		}
		// Every line read so far is handed over before a read that may
		// wait for more input.
		sc := bufio.NewScanner(readerFunc(func(p []byte) (int, error) {
			if err := handOver(); err != nil {
				return 0, err
			}
			return r.Read(p)
		}))
		sc.Buffer(make([]byte, 1<<20), batchMaxLine)
		n := 1
		for ; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			w := min(int64(len(line)), batchInflightBytes)
			if !inflight.TryAcquire(w) {
				// The pending chunk's own lines may hold what this
				// one waits for.
				if handOver() != nil || inflight.Acquire(ctx, w) != nil {
					return
				}
			}
			if pending == nil {
				pending = &batchChunk{jobs: make([]batchJob, 0, batchChunkLines), done: make(chan struct{})}
			}
			pending.jobs = append(pending.jobs, batchJob{n: n, line: pending.keep(line), weight: w})
			pending.weight += w
			if len(pending.jobs) == batchChunkLines || pending.weight >= batchChunkBytes {
				if handOver() != nil {
					return
				}
			}
		}
		if handOver() != nil {
			return
		}
		// scanErr is read after order is closed.
		switch err := sc.Err(); {
		case errors.Is(err, bufio.ErrTooLong):
			scanErr = fmt.Errorf("%s:%d: line longer than %d MiB", file, n, batchMaxLine>>20)
		case err != nil:
			scanErr = fmt.Errorf("%s: %w", file, err)
		}
	}()
	for range workers {
		go func() {
			res := workerResolver(workers)
			for c := range work {
				c.out = make([]byte, 0, len(c.jobs)*batchAnswerBytes)
				for i := range c.jobs {
					j := &c.jobs[i]
					c.out, j.err = appendAnswer(c.out, j.line, pol, res)
					j.end, j.line = len(c.out), nil
				}
				close(c.done)
			}
		}()
	}
	out := bufio.NewWriterSize(s.Out, 64<<10)
	bad := 0
	// A cancelled ctx (SIGINT, SIGTERM) ends the batch at once, after the
	// answers written so far: the reader may be blocked on input that
	// never comes.
	interrupted := func() error {
		out.Flush()
		return &exitError{ExitFailed, fmt.Errorf("%s: interrupted", file)}
	}
	for {
		var c *batchChunk
		more := false
		select {
		case c, more = <-order:
		case <-ctx.Done():
			return interrupted()
		}
		if !more {
			break
		}
		select {
		case <-c.done:
		case <-ctx.Done():
			return interrupted()
		}
		var err error
		start := 0
		for i := range c.jobs {
			j := &c.jobs[i]
			if j.err != nil {
				bad++
				fmt.Fprintf(s.Err, "gen: %s:%d: %v\n", file, j.n, j.err)
			}
			if _, err = out.Write(c.out[start:j.end]); err != nil {
				break
			}
			start = j.end
		}
		inflight.Release(c.weight)
		if err == nil && len(order) == 0 {
			// Everything handed over is answered: the reader may be
			// waiting for input.
			err = out.Flush()
		}
		if err != nil {
			return err // stop ends the reader and so the workers
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if scanErr != nil {
		return usageErr(scanErr)
	}
	if bad > 0 {
		return &exitError{ExitUsage, fmt.Errorf("%s: %d bad line(s)", file, bad)}
	}
	return nil
}

// batchMaxLine is the longest --batch input line.
const batchMaxLine = 16 << 20

// batchAnswerBytes is about the length of an answer line.
const batchAnswerBytes = 192

// readerFunc is an io.Reader made of a function.
type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// appendAnswer appends to b the output line, with its newline, for one
// --batch input line: its decision, or for a bad line {"error": ...} and
// the problem.
func appendAnswer(b []byte, line []byte, pol *perm.Policy, res *perm.Resolver) ([]byte, error) {
	req, bad := parseBatchLine(line)
	if bad != nil {
		return appendJSONLine(b, map[string]string{"error": bad.Error()}), bad
	}
	return appendResult(b, res.Evaluate(req, pol)), nil
}

// appendResult appends r as the line the single check's --json prints:
// checkResult's bytes, as encoding/json writes them, and a newline.
// Written by hand, it is five times faster than marshalling the struct.
func appendResult(b []byte, r perm.Result) []byte {
	b = append(b, `{"decision":`...)
	b = appendJSONString(b, r.Decision.String())
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(r.Step), 10)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, r.Reason)
	b = append(b, `,"rule":`...)
	if r.Rule == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, r.Rule)
	}
	b = append(b, `,"source":`...)
	b = appendJSONString(b, string(r.Source))
	if r.Sandbox != "" {
		b = append(b, `,"sandbox":`...)
		b = appendJSONString(b, string(r.Sandbox))
	}
	return append(b, "}\n"...)
}

// appendJSONString appends s as encoding/json writes it: printable ASCII
// that needs no escape as it is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return appendJSON(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSON appends a string or a map of strings as encoding/json writes
// it (those always encode).
func appendJSON(b []byte, v any) []byte {
	out, _ := json.Marshal(v)
	return append(b, out...)
}

// appendJSONLine is appendJSON with a newline.
func appendJSONLine(b []byte, v any) []byte { return append(appendJSON(b, v), '\n') }

// batchGCPercent is the GC target while a short-lived-garbage-heavy
// command runs (--batch, gen agent list): its live heap is small (a
// policy and the lines in flight; the parsed agents), so collecting at
// four times it trades a few megabytes for much less GC work.
var batchGCPercent = 400

// raiseGCPercent sets the GC target to batchGCPercent unless the user
// set one (GOGC), and returns what restores the previous one. A memory
// limit (GOMEMLIMIT) still holds: the runtime collects earlier to keep it.
func raiseGCPercent() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(batchGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// workerResolver returns the Resolver one of workers --batch workers
// keeps. The lines are only evaluated, never run, so their file system
// answers may be kept (perm.Resolver, bounded). Each worker keeps its
// own, with its share of the default's entries: a shared one costs more
// in locks and cache lines passed between cores than the few paths both
// workers look up twice.
func workerResolver(workers int) *perm.Resolver {
	return perm.NewResolver(perm.DefaultResolverEntries / workers)
}

// parseBatchLine decodes one --batch input line. It is strict JSON
// (encoding/json/v2): unknown or duplicate names, names in another case
// and invalid UTF-8 are errors, not guesses. Plain lines take a shortcut
// that decodes them as jsonv2 would (decodePlainBatchLine).
func parseBatchLine(line []byte) (perm.Request, error) {
	bl, ok := decodePlainBatchLine(line)
	if !ok {
		if err := unmarshalBatchLine(line, &bl); err != nil {
			return perm.Request{}, err
		}
	}
	switch {
	case bl.Call != "" && bl.Tool == "" && bl.Input == nil:
		return perm.ParseCall(bl.Call)
	case bl.Tool != "" && bl.Call == "":
		if bl.Input == nil {
			bl.Input = map[string]any{}
		}
		return normalise(perm.Request{Tool: bl.Tool, Input: bl.Input})
	}
	return perm.Request{}, fmt.Errorf(`want {"tool":...,"input":{...}} or {"call":"Tool(...)"}`)
}

// startDirs returns the --add-dir values with each relative name made
// absolute from the directory gen was started in, as readJSONFlag takes
// file names and for the same reasons: a command line means what it
// means in the shell it was typed in, whatever --cwd says. "~" and "~/…"
// stay, for settings to put under the home directory, and so does "",
// for settings to refuse: made absolute, an unset variable
// (--add-dir "$EXTRA") would add the start directory to the workspace.
func startDirs(dirs []string) ([]string, error) {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = d
		if d == "" || d == "~" || strings.HasPrefix(d, "~/") || filepath.IsAbs(d) {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--add-dir %s: %w", d, err)
		}
		out[i] = abs
	}
	return out, nil
}
