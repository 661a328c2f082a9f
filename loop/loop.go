package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

// Sentinel errors. Run wraps them with details; test with errors.Is.
var (
	// ErrMaxTurns ends a run whose model still wants to call tools after
	// Runner.MaxTurns turns.
	ErrMaxTurns = errors.New("loop: maximum number of turns reached")
	// ErrRepeating ends a run whose model keeps making the same tool call
	// after being told to stop.
	ErrRepeating = errors.New("loop: the model keeps repeating the same tool call")
)

const (
	defaultMaxTurns = 50
	// Consecutive calls of tools that declare tool.Parallel run in
	// parallel, at most maxParallel at a time.
	maxParallel = 4
	// An identical call is refused from the refuseAt-th time in a row, and
	// the run ends at the abortAt-th.
	refuseAt = 3
	abortAt  = 5
	// maxContinuations bounds how often BeforeStop can keep a run going,
	// so that a stop hook that always blocks cannot keep it forever.
	maxContinuations = 8
)

// Runner runs one agent: a model, the tools it may call and the gate that
// decides each call. A Runner may be used for several runs, one at a time or
// concurrently, as long as its fields are not changed meanwhile.
type Runner struct {
	Model Model
	// Tools are the tools the model may call. Run puts them in a tool.Set
	// behind Gate, so nothing runs without Gate's decision. A name that
	// appears twice is an error.
	Tools []tool.Tool
	// Gate decides every tool call. Required.
	Gate tool.Gate
	// Schemas are sent to the model every turn (the filtered list).
	Schemas []openai.Tool
	// TurnSchemas, if set, is called before every turn and its result is
	// sent instead of Schemas: the tools shown may grow during a run
	// (progressive disclosure). It only changes what the model is shown;
	// which tools can be called is Tools, and the gate decides each call.
	TurnSchemas func() []openai.Tool
	// Normalize rewrites argument aliases; nil means schema.Normalize.
	Normalize func(name string, in map[string]any) map[string]any
	// Validate checks normalised arguments; nil means schema.Validate.
	Validate func(name string, in map[string]any) error
	// MaxTurns bounds the number of model turns; 0 means 50.
	MaxTurns int
	// OnEvent, if set, is called for every Event of this run, in order,
	// from the goroutine that called Run. A caller that hands the same
	// function to subagents running in parallel must make it safe for
	// concurrent use.
	OnEvent func(Event)
	// OnText, if set, is handed to the model as Request.OnText to receive
	// assistant text as it streams in. Unlike OnEvent it is called from
	// wherever the model calls it.
	OnText func(delta string)
	// Agent names the agent in events.
	Agent string
	// BeforeStop, if set, is asked before the run ends with the model's
	// final answer (Stop and SubagentStop hooks). A non-empty reason keeps
	// the run going, with the reason as the next user message; active is
	// set when the run is already going on that way. The run goes on at
	// most maxContinuations times, then ends anyway.
	BeforeStop func(ctx context.Context, final string, active bool) (reason string)
	// Reminder, if set, is what the model is told with the prompt of a
	// run in every request of it, added to the prompt's message, but
	// which is not part of the conversation the run returns: the state
	// of the session the model must know for this turn (plan mode),
	// which a transcript must not keep as the person's words. The next
	// run of a conversation carries only its own.
	Reminder string
	// Context, if set, is what a hook added to the prompt of a run
	// (UserPromptSubmit's additionalContext). As in Claude Code it is
	// part of the conversation, so the model sees it in this run and the
	// later ones, but as a message of its own after the prompt's
	// (Prompt), not as the person's words.
	Context string
	// Halt, if set, is asked after each round of tool calls whether a
	// hook answered "continue": false (or a PermissionRequest hook
	// "interrupt": true) during it; a non-empty reason ends the run there
	// without another model turn, with Outcome.Halted set.
	Halt func() (reason string)
}

// Outcome is what a run produced.
type Outcome struct {
	// Final is the model's final answer.
	Final string
	// Turns counts the model turns taken.
	Turns int
	// Denials lists the calls the gate refused, in call order, with the
	// denials tools reported (tool.Report: a subagent's) where their call
	// finished.
	Denials []Denial
	// Usage is summed over all turns and every tool.Report.
	Usage openai.Usage
	// APIDuration is the time spent waiting for the model, summed over
	// all turns and every tool.Report.
	APIDuration time.Duration
	// Halted is why a hook stopped the run (Runner.Halt); "" when none did.
	Halted string
}

// Denial is one tool call the gate refused.
type Denial = tool.Denial

// Run runs the loop: the conversation starts with system (omitted when
// empty) and the user's prompt, and ends when the model answers without
// calling a tool. The Outcome is filled as far as the run got, also when
// it returns an error. Cancelling ctx stops the run promptly and returns
// an error that wraps ctx.Err().
func (r *Runner) Run(ctx context.Context, system, prompt string) (Outcome, error) {
	var msgs []openai.ChatCompletionMessage
	if system != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	out, _, err := r.Continue(ctx, msgs, prompt)
	return out, err
}

// Continue runs one user turn of a longer conversation: history holds the
// earlier messages (the system prompt first, if any), prompt is the new
// user message. It returns the conversation with this turn appended, also
// on error, so an interrupted turn can still be kept. history itself is
// not modified.
func (r *Runner) Continue(ctx context.Context, history []openai.ChatCompletionMessage, prompt string) (Outcome, []openai.ChatCompletionMessage, error) {
	var out Outcome
	msgs := append(history[:len(history):len(history)], Prompt(prompt, r.Context)...)
	s, err := r.start()
	if err != nil {
		return out, msgs, err
	}
	s.out, s.prompt = &out, len(history)
	s.emit(Event{Kind: EventInit, Tools: s.set.Names()})

	msgs, err = s.loop(ctx, msgs)
	final := Event{Kind: EventFinal, Text: out.Final, Turns: out.Turns, Usage: &out.Usage}
	if err != nil {
		final.Text, final.IsError = err.Error(), true
	}
	s.emit(final)
	return out, msgs, err
}

// ContextName names a user message that holds what a hook added to the
// prompt before it (Runner.Context): part of the conversation, but not
// the person's words. Each request joins it to the prompt's message
// (run.request), so a model never sees the name, nor two user messages
// in a row.
const ContextName = "hook_context"

// Prompt returns the messages a run adds to a conversation for prompt:
// the person's words, then, if context is not empty, what a hook added
// to them (ContextName).
func Prompt(prompt, context string) []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: prompt}}
	if context != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Name: ContextName, Content: context})
	}
	return msgs
}

// run is the state of one Run.
type run struct {
	r         *Runner
	out       *Outcome
	set       *tool.Set
	normalize func(string, map[string]any) map[string]any
	validate  func(string, map[string]any) error
	maxTurns  int

	// The repetition breaker: the key of the last call and how many times
	// in a row it was made.
	lastKey string
	streak  int
	// continued counts the times BeforeStop kept the run going.
	continued int
	// prompt is the index of the run's prompt in its messages.
	prompt int
}

func (r *Runner) start() (*run, error) {
	if r.Model == nil {
		return nil, errors.New("loop: Runner.Model is nil")
	}
	if r.Gate == nil {
		return nil, errors.New("loop: Runner.Gate is nil; every tool call needs a permission gate")
	}
	set, err := tool.NewSet(r.Gate, r.Tools)
	if err != nil {
		return nil, fmt.Errorf("loop: Runner.Tools: %w", err)
	}
	s := &run{
		r:         r,
		set:       set,
		normalize: r.Normalize,
		validate:  r.Validate,
		maxTurns:  r.MaxTurns,
	}
	if s.normalize == nil {
		s.normalize = schema.Normalize
	}
	if s.validate == nil {
		s.validate = schema.Validate
	}
	if s.maxTurns <= 0 {
		s.maxTurns = defaultMaxTurns
	}
	return s, nil
}

func (s *run) emit(e Event) {
	if s.r.OnEvent == nil {
		return
	}
	e.Agent = s.r.Agent
	s.r.OnEvent(e)
}

func (s *run) loop(ctx context.Context, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	out := s.out
	for {
		if err := ctx.Err(); err != nil {
			return msgs, fmt.Errorf("loop: before turn %d: %w", out.Turns+1, err)
		}
		out.Turns++
		schemas := s.r.Schemas
		if s.r.TurnSchemas != nil {
			schemas = s.r.TurnSchemas()
		}
		asked := time.Now()
		resp, err := s.r.Model.Complete(ctx, Request{
			Messages: s.request(msgs),
			Tools:    schemas,
			OnText:   s.r.OnText,
		})
		out.APIDuration += time.Since(asked)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
				err = fmt.Errorf("%w (%v)", cerr, err)
			}
			return msgs, fmt.Errorf("loop: turn %d: model: %w", out.Turns, err)
		}
		AddUsage(&out.Usage, resp.Usage)

		msg := resp.Message
		msg.Role = openai.ChatMessageRoleAssistant
		if len(msg.ToolCalls) > 0 {
			// Copied before IDs are filled in: the slice belongs to
			// the model.
			msg.ToolCalls = append([]openai.ToolCall(nil), msg.ToolCalls...)
			for i := range msg.ToolCalls {
				if msg.ToolCalls[i].ID == "" {
					// Every tool message must name its call.
					msg.ToolCalls[i].ID = fmt.Sprintf("call_t%d_%d", out.Turns, i+1)
				}
				if msg.ToolCalls[i].Type == "" {
					msg.ToolCalls[i].Type = openai.ToolTypeFunction
				}
			}
		}
		msgs = append(msgs, msg)

		if len(msg.ToolCalls) == 0 {
			out.Final = msg.Content
			if reason := s.beforeStop(ctx, msg.Content); reason != "" {
				msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: reason})
				continue
			}
			return msgs, nil
		}
		if msg.Content != "" {
			s.emit(Event{Kind: EventText, Text: msg.Content})
		}
		if out.Turns >= s.maxTurns {
			// The results could only be read in a turn the run does
			// not have, so the calls are not made at all.
			return msgs, fmt.Errorf("%w: the model still calls tools after %d turns", ErrMaxTurns, s.maxTurns)
		}
		results, err := s.calls(ctx, msg.ToolCalls)
		msgs = append(msgs, results...)
		if s.r.Halt != nil {
			// Asked also after a failed round, so that a halt never
			// outlives the round it came in.
			out.Halted = s.r.Halt()
		}
		if err != nil {
			return msgs, err
		}
		if out.Halted != "" {
			return msgs, nil
		}
	}
}

// request returns the messages of a request: a copy of msgs, so that a
// model appending to them or changing them cannot touch the
// conversation, in which what a hook added to a prompt (ContextName) is
// joined to the prompt's message, and the Reminder added to this run's.
func (s *run) request(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	prompt := -1
	for i, m := range msgs {
		if n := len(out); n > 0 && m.Name == ContextName && m.Role == openai.ChatMessageRoleUser && out[n-1].Role == openai.ChatMessageRoleUser {
			out[n-1].Content += "\n\n" + m.Content
			continue
		}
		if i == s.prompt {
			prompt = len(out)
		}
		out = append(out, m)
	}
	if s.r.Reminder != "" && prompt >= 0 {
		out[prompt].Content += "\n\n" + s.r.Reminder
	}
	return out
}

// beforeStop asks BeforeStop whether the run may end with final, and
// returns the reason to go on ("" to end).
func (s *run) beforeStop(ctx context.Context, final string) string {
	if s.r.BeforeStop == nil || s.continued >= maxContinuations || ctx.Err() != nil {
		return ""
	}
	if out := s.out; out.Turns >= s.maxTurns {
		return ""
	}
	reason := s.r.BeforeStop(ctx, final, s.continued > 0)
	if reason != "" {
		s.continued++
	}
	return reason
}

// call is one tool call on its way through the loop.
type call struct {
	id, name string
	input    map[string]any
	// runnable is set when the call goes to the tool set; otherwise it
	// was answered without running (output is then already set).
	runnable bool

	decision     *perm.Result // the gate's, once asked
	decisionSent bool
	output       string
	isError      bool
	denied       bool
	reason       string      // why it was denied
	report       tool.Report // what the tool reported besides its output
}

func (c *call) fail(format string, args ...any) {
	c.output, c.isError = fmt.Sprintf(format, args...), true
}

// calls makes the tool calls of one assistant message and returns one tool
// message per call made, in call order. Consecutive Agent calls run in
// parallel when their tools declare it (tool.Parallel); everything else
// runs one at a time.
func (s *run) calls(ctx context.Context, tcs []openai.ToolCall) ([]openai.ChatCompletionMessage, error) {
	var msgs []openai.ChatCompletionMessage
	for i := 0; i < len(tcs); {
		j := i + 1
		if s.set.Parallel(tcs[i].Function.Name) {
			for j < len(tcs) && s.set.Parallel(tcs[j].Function.Name) {
				j++
			}
		}
		batch := make([]*call, 0, j-i)
		for _, tc := range tcs[i:j] {
			c, err := s.prepare(tc)
			if err != nil {
				return msgs, err
			}
			batch = append(batch, c)
		}
		s.execute(ctx, batch)
		for _, c := range batch {
			msgs = append(msgs, s.finish(c))
		}
		if err := ctx.Err(); err != nil {
			return msgs, fmt.Errorf("loop: turn %d: %w", s.out.Turns, err)
		}
		i = j
	}
	return msgs, nil
}

// prepare parses, normalises, checks and validates one call. A call that
// must not run gets its error output here.
func (s *run) prepare(tc openai.ToolCall) (*call, error) {
	c := &call{id: tc.ID, name: tc.Function.Name}
	in, perr := parseArgs(tc.Function.Arguments)
	key := c.name + "\x00"
	if perr == nil {
		c.input = s.normalize(c.name, in)
		key += canonical(c.input)
	} else {
		key += "raw\x00" + tc.Function.Arguments
	}
	ev := Event{Kind: EventToolCall, CallID: c.id, Tool: c.name, Input: c.input}
	if perr != nil {
		ev.Text = tc.Function.Arguments
	}
	s.emit(ev)

	if key == s.lastKey {
		s.streak++
	} else {
		s.lastKey, s.streak = key, 1
	}
	switch {
	case s.streak >= abortAt:
		return nil, fmt.Errorf("%w: %s called with identical arguments %d times in a row", ErrRepeating, c.name, s.streak)
	case s.streak >= refuseAt:
		c.fail("ERROR: identical call repeated %d times; try something else", s.streak)
	case perr != nil:
		c.fail("ERROR: the arguments for %s are not valid JSON: %v; send one JSON object", c.name, perr)
	case !s.set.Has(c.name):
		list := "(none)"
		if names := s.set.Names(); len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		c.fail("ERROR: tool %q is not available; available tools: %s", c.name, list)
	default:
		if err := s.validate(c.name, c.input); err != nil {
			c.fail("ERROR: %v", err)
			break
		}
		c.runnable = true
	}
	return c, nil
}

// execute runs the runnable calls of batch. Several run in parallel, and
// their decisions are reported afterwards by finish; a single call runs
// here, and its decision is reported as soon as the gate makes it.
func (s *run) execute(ctx context.Context, batch []*call) {
	var runnable []*call
	for _, c := range batch {
		if c.runnable {
			runnable = append(runnable, c)
		}
	}
	if len(runnable) == 1 {
		c := runnable[0]
		s.invoke(ctx, c, func(res perm.Result) {
			s.emitDecision(c, res)
		})
		return
	}
	var g errgroup.Group
	g.SetLimit(maxParallel)
	for _, c := range runnable {
		g.Go(func() error {
			s.invoke(ctx, c, nil)
			return nil // a failed call is a result for the model, not a reason to stop the others
		})
	}
	g.Wait()
}

// invoke runs c through the tool set. It records the gate's decision in c
// and, when live is set, hands it to live right away (from this
// goroutine), before the tool runs.
func (s *run) invoke(ctx context.Context, c *call, live func(perm.Result)) {
	res := s.set.Call(ctx, c.name, c.id, c.input, func(d perm.Result) {
		c.decision = &d
		if d.Decision == perm.Allow && d.Input != nil {
			c.input = d.Input // the call runs rewritten; report it so
		}
		if live != nil {
			live(d)
		}
	})
	c.report = res.Report
	if res.Input != nil {
		// The gate decided on, and the tool ran with, a substituted input.
		c.input = res.Input
	}
	out, err := res.Output, res.Err
	switch {
	case res.Decision.Decision != perm.Allow:
		c.reason = res.Decision.Reason
		c.output, c.isError, c.denied = "DENIED: "+c.reason, true, true
	case errors.Is(err, tool.ErrDenied):
		// The gate refused something the tool tried after the call
		// itself was allowed (a WebFetch redirect): that is a
		// permission denial too.
		c.reason = err.Error()
		c.output, c.isError, c.denied = "DENIED: "+c.reason, true, true
	case err != nil:
		c.fail("ERROR: %v", err)
	case out == "":
		// Some servers reject a tool message without content.
		c.output = "(no output)"
	case strings.HasPrefix(out, "DENIED: ") || strings.HasPrefix(out, "ERROR: "):
		// Only the loop says DENIED or ERROR: output that starts like
		// that (echo "DENIED: x") must not pass for a denial.
		c.output = "(output) " + out
	default:
		c.output = out
	}
}

// finish reports c and returns its tool message.
func (s *run) finish(c *call) openai.ChatCompletionMessage {
	if c.decision != nil && !c.decisionSent {
		s.emitDecision(c, *c.decision)
	}
	if c.denied {
		s.out.Denials = append(s.out.Denials, Denial{ToolName: c.name, ToolUseID: c.id, ToolInput: c.input, Reason: c.reason})
	}
	s.out.Denials = append(s.out.Denials, c.report.Denials...)
	s.out.APIDuration += c.report.APIDuration
	AddUsage(&s.out.Usage, c.report.Usage)
	s.emit(Event{Kind: EventToolResult, CallID: c.id, Tool: c.name, Input: c.input, Output: c.output, IsError: c.isError, Denied: c.denied})
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.id, Content: c.output}
}

func (s *run) emitDecision(c *call, res perm.Result) {
	c.decisionSent = true
	s.emit(Event{Kind: EventDecision, CallID: c.id, Tool: c.name, Input: c.input, Result: res, Denied: res.Decision != perm.Allow})
}

// parseArgs decodes tool-call arguments, which must be one JSON object.
func parseArgs(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("the arguments are empty (for no arguments send {})")
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the arguments are a JSON %s, not an object", jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}

// canonical returns the same text for equal inputs: encoding/json sorts map
// keys at every level.
func canonical(in map[string]any) string {
	b, err := json.Marshal(in)
	if err != nil {
		// Only inputs that did not come from JSON can fail; they are
		// still compared by value.
		return fmt.Sprintf("%#v", in)
	}
	return string(b)
}

// AddUsage adds u into sum, token details included. Callers that run
// several loops (delegation) use it to report one total.
func AddUsage(sum *openai.Usage, u openai.Usage) {
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
	if d := u.PromptTokensDetails; d != nil {
		if sum.PromptTokensDetails == nil {
			sum.PromptTokensDetails = new(openai.PromptTokensDetails)
		}
		sum.PromptTokensDetails.AudioTokens += d.AudioTokens
		sum.PromptTokensDetails.CachedTokens += d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		if sum.CompletionTokensDetails == nil {
			sum.CompletionTokensDetails = new(openai.CompletionTokensDetails)
		}
		sum.CompletionTokensDetails.AudioTokens += d.AudioTokens
		sum.CompletionTokensDetails.ReasoningTokens += d.ReasoningTokens
		sum.CompletionTokensDetails.AcceptedPredictionTokens += d.AcceptedPredictionTokens
		sum.CompletionTokensDetails.RejectedPredictionTokens += d.RejectedPredictionTokens
	}
}
