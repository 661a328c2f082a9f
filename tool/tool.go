// Package tool implements the built-in tools an agent can call (Read, Glob,
// Grep, Write, Edit, Bash, ...) and the Set that runs them behind a gate.
// It sits on perm (decisions and the workspace's path semantics); the loop
// and the packages that assemble runs (session, subagent) sit on it.
//
// A Tool never decides whether it may run: a Set asks its Gate first and
// hands the decision to the tool with the call (Call.Decision), so the path
// the gate checked is the one the tool touches. A tool that is not in a Set
// must not be handed to a model.
package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/perm"
)

// Tool is one callable tool.
type Tool interface {
	Name() string
	// Run runs one call the gate allowed. call.Input has already been
	// normalised and validated against the tool's schema (package
	// schema); call.Decision is the gate's Allow.
	Run(ctx context.Context, call Call) (string, error)
}

// Call is one call of a tool, as the gate allowed it.
type Call struct {
	// ID identifies the call within its run (the model's tool call ID);
	// "" outside a loop.
	ID string
	// Input holds the call's arguments.
	Input map[string]any
	// Decision is the gate's decision on this call.
	Decision Decision
}

// Decision is the gate's decision on one call as a tool receives it. For
// Bash, Decision.Sandbox (perm.Result.Sandbox) is the profile the command
// runs under; Bash treats "" as workspace-write, never as none.
type Decision struct {
	perm.Result
}

// Parallel is implemented by tools whose consecutive calls in one model
// turn may run at the same time (Agent: independent subagents). Other
// calls run one at a time, in order.
type Parallel interface {
	Parallel() bool
}

// Describer is implemented by tools whose description depends on the run
// (Agent lists the agent types it may start). Description replaces the
// static description of the tool's schema in what the model is shown.
type Describer interface {
	Description() string
}

// Denial is one tool call the gate refused.
type Denial struct {
	ToolName string
	// ToolUseID is the ID of the refused call.
	ToolUseID string
	ToolInput map[string]any
	Reason    string
}

// Report is what a call did besides its text: the token usage and the
// denials of work it delegated (a subagent). A run adds it to its own.
type Report struct {
	Usage   openai.Usage
	Denials []Denial
	// APIDuration is the time the delegated work spent waiting for its
	// model.
	APIDuration time.Duration
}

// Reporter is implemented by tools whose calls report a Report (Agent).
// A Set calls RunReport instead of Run for them; the Report is kept also
// when err is not nil.
type Reporter interface {
	RunReport(ctx context.Context, call Call) (string, Report, error)
}

// Responder is implemented by tools whose calls have a structured result
// besides their text (Bash, Read, Glob and Grep, see response.go): the
// tool_response PostToolUse hooks are given, in Claude Code's shape. A Set
// calls RunResponse instead of Run for them and hands the response to its
// Reviewer; the response is nil when err is not nil.
type Responder interface {
	RunResponse(ctx context.Context, call Call) (string, any, error)
}

// Gate decides one call. Implementations resolve Ask themselves (by asking
// a person, or by coercing it to Deny), so the Decision they return is
// Allow or Deny; a Set runs a tool only on Allow. A Gate must be safe for
// concurrent use. Package gate has the implementation every run uses.
type Gate interface {
	Check(ctx context.Context, req perm.Request) perm.Result
}

// Decider is implemented by gates whose decision may be about other input
// than the model sent: a hook's or a permission-prompt delegate's
// updatedInput, which the gate checked and evaluated as a new call. Decide
// returns the decision and the input the call must run with. A Set calls
// Decide instead of Check for such gates.
type Decider interface {
	Decide(ctx context.Context, req perm.Request) (perm.Result, map[string]any)
}

// Reviewer is implemented by gates that look at what a call returned
// (PostToolUse hooks). Review is called after a call ran without error,
// with the output the tool returned and its structured response
// (Responder), nil for a tool that has none; what it returns, if not
// empty, is added to the output the model sees.
type Reviewer interface {
	Review(ctx context.Context, req perm.Request, output string, response any) string
}

// FailureReviewer is implemented by gates that look at a call that failed
// (PostToolUseFailure hooks). ReviewFailure is called after an allowed
// call returned an error other than a denial, or a response that says it
// failed (a command's non-zero exit; Reviewer is not called then); what
// it returns, if not empty, is added to the error or the output the model
// sees. interrupt is set for a call whose context was cancelled while it
// ran (the person interrupted it: Esc or Ctrl+C, SIGINT or SIGTERM), as
// Claude Code's is_interrupt: ctx is then one of its own, bounded by
// interruptReview, since the call's is done. A call whose context was
// done before it ran is not reviewed: nothing was interrupted, the run
// is being torn down.
type FailureReviewer interface {
	ReviewFailure(ctx context.Context, req perm.Request, err error, interrupt bool) string
}

// interruptReview bounds the review of an interrupted call
// (FailureReviewer): the person who interrupted it is waiting, and gen
// ends 10 s after SIGINT or SIGTERM (cli's shutdownGrace), which must
// leave room for an Agent call's own review after its subagent's call's,
// and for the SessionEnd hooks after both (at most 5 s then).
const interruptReview = 2 * time.Second

// ErrDenied is what every permission denial matches with errors.Is: the
// gate refused the call, or something the call tried after it was allowed
// (a WebFetch redirect).
var ErrDenied = errors.New("permission denied")

// DeniedError is a denial with the gate's decision. It matches ErrDenied.
// Its message is what the model sees: "DENIED: <reason>".
type DeniedError struct{ Result perm.Result }

func (e *DeniedError) Error() string { return "DENIED: " + e.Result.Reason }

// Is makes errors.Is(err, ErrDenied) true.
func (e *DeniedError) Is(target error) bool { return target == ErrDenied }

// IsDenied reports whether err is (or wraps) a permission denial.
func IsDenied(err error) bool { return errors.Is(err, ErrDenied) }

// Set is the tools of one run behind one gate: the only way a loop runs a
// tool. It is safe for concurrent use.
type Set struct {
	gate   Gate
	byName map[string]Tool
	names  []string
}

// NewSet returns the tools ts behind g. g must not be nil, and no name
// may appear twice.
func NewSet(g Gate, ts []Tool) (*Set, error) {
	if g == nil {
		return nil, errors.New("tool: no gate; every tool call needs a permission gate")
	}
	s := &Set{gate: g, byName: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		name := t.Name()
		if _, dup := s.byName[name]; dup {
			return nil, fmt.Errorf("tool %q is listed twice", name)
		}
		s.byName[name] = t
		s.names = append(s.names, name)
	}
	return s, nil
}

// Names lists the tools in the order they were given.
func (s *Set) Names() []string { return s.names }

// Has reports whether the set has a tool called name.
func (s *Set) Has(name string) bool {
	_, ok := s.byName[name]
	return ok
}

// Parallel reports whether the tool called name declares that its calls
// may run in parallel.
func (s *Set) Parallel(name string) bool {
	p, ok := s.byName[name].(Parallel)
	return ok && p.Parallel()
}

// Result is what one call through a Set produced.
type Result struct {
	// Decision is the gate's decision. The tool ran only if it is Allow.
	Decision perm.Result
	// Input is the input the decision is about, which the tool ran with:
	// the one given to Call unless the gate substituted one (Decider).
	Input  map[string]any
	Output string
	Report Report
	// Response is the tool's structured response (Responder), nil for a
	// tool without one.
	Response any
	// Err is the tool's error, or a *DeniedError when the gate refused.
	Err error
}

// Call asks the gate about one call of the tool called name and, if the
// gate allows it, runs the tool with the decision and the input the gate
// decided on (see Decider: the gate hands back a rewritten call's input).
// decided, if not nil, receives the decision before the tool runs. After a
// call that ran without error, a Reviewer gate's notes are added to the
// output. The tool must be in s.
func (s *Set) Call(ctx context.Context, name, id string, input map[string]any, decided func(perm.Result)) Result {
	t, ok := s.byName[name]
	if !ok {
		return Result{Err: fmt.Errorf("tool: %q is not in the set", name)}
	}
	req := perm.Request{Tool: name, Input: input, ID: id}
	var res perm.Result
	if d, ok := s.gate.(Decider); ok {
		res, req.Input = d.Decide(ctx, req)
	} else {
		res = s.gate.Check(ctx, req)
	}
	if decided != nil {
		decided(res)
	}
	out := Result{Decision: res, Input: req.Input}
	if res.Decision != perm.Allow {
		out.Err = &DeniedError{Result: res}
		return out
	}
	call := Call{ID: id, Input: req.Input, Decision: Decision{Result: res}}
	live := ctx.Err() == nil
	switch r := t.(type) {
	case Reporter:
		out.Output, out.Report, out.Err = r.RunReport(ctx, call)
	case Responder:
		out.Output, out.Response, out.Err = r.RunResponse(ctx, call)
	default:
		out.Output, out.Err = t.Run(ctx, call)
	}
	// A call that ran but failed (a command's non-zero exit: failure)
	// is reviewed as a failure, as Claude Code reviews it, though the
	// model is told its output as of any call.
	failed := ""
	if f, ok := out.Response.(failure); ok && out.Err == nil {
		failed = f.Failure()
	}
	fr, reviewFailure := s.gate.(FailureReviewer)
	// A call that failed because it was interrupted is reviewed in a
	// context of its own, which the interruption has not ended.
	interrupted := live && ctx.Err() != nil && out.Err != nil
	rctx := ctx
	if interrupted {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), interruptReview)
		defer cancel()
	}
	reviewFailure = reviewFailure && rctx.Err() == nil
	var note string
	switch {
	case out.Err != nil:
		if reviewFailure && !errors.Is(out.Err, ErrDenied) {
			if n := fr.ReviewFailure(rctx, req, out.Err, interrupted); n != "" {
				out.Err = &reviewedError{err: out.Err, note: n}
			}
		}
	case failed != "":
		if reviewFailure {
			note = fr.ReviewFailure(ctx, req, errors.New(failed), false)
		}
	default:
		if rv, ok := s.gate.(Reviewer); ok {
			note = rv.Review(ctx, req, out.Output, out.Response)
		}
	}
	if note != "" {
		out.Output = strings.TrimRight(out.Output, "\n") + "\n\n" + note
	}
	return out
}

// failure is a tool's structured response (Responder) that may say the
// call failed though it returned output: Failure is what it failed with
// (a command's output and exit status), "" when it did not.
type failure interface {
	Failure() string
}

// reviewedError is a call's error with what PostToolUseFailure hooks
// said of it, which the model is told after it.
type reviewedError struct {
	err  error
	note string
}

func (e *reviewedError) Error() string { return e.err.Error() + "\n\n" + e.note }
func (e *reviewedError) Unwrap() error { return e.err }

// Select returns the tools of all whose names are in visible, in visible's
// order: the one place a run's tool list is narrowed to what its policy
// shows the model (policy.Visible).
func Select(all []Tool, visible []string) []Tool {
	byName := make(map[string]Tool, len(all))
	for _, t := range all {
		byName[t.Name()] = t
	}
	var out []Tool
	for _, n := range visible {
		if t, ok := byName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}
