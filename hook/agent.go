package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gen-run/gen/internal/termsafe"
)

// Agent runs hooks on behalf of one agent of one session: it fills in the
// fields every input of the agent's events carries, reports what the
// hooks printed for the user, and remembers a hook's asking to stop the
// agent (TakeHalt). A nil *Agent runs no hooks. Its fields must not change
// while it is in use; Run is safe for concurrent use.
type Agent struct {
	Runner *Runner
	// SessionID is the session_id every input carries. The main loop and
	// its subagents share one.
	SessionID string
	// TranscriptPath is the transcript_path every input carries: the
	// session's transcript file, which holds the turns before the one
	// under way; "" when the run keeps none.
	TranscriptPath string
	// Cwd is the working directory the hooks run in and are told.
	Cwd string
	// AgentID and AgentType name a subagent; both empty for the main
	// loop, which has an AgentType only when it runs as an agent
	// (--agent: Claude Code tells its hooks agent_type then too). A
	// subagent's stop event is SubagentStop, matched against AgentType.
	AgentID, AgentType string
	// Warn receives the warnings and system messages of every event; nil
	// drops them.
	Warn func(string)

	halt atomic.Pointer[string] // the first stop asked for since TakeHalt
}

// Has reports whether any hook that may run now is configured for ev.
func (a *Agent) Has(ev Event) bool {
	return a != nil && a.Runner != nil && a.Runner.Has(ev)
}

// Run runs the hooks of ev with in, whose common fields (session, cwd,
// agent) a fills in, and returns their combined Outcome. Warnings and
// system messages go to Warn.
func (a *Agent) Run(ctx context.Context, ev Event, in Input) Outcome {
	if !a.Has(ev) {
		return Outcome{Event: ev}
	}
	in.SessionID, in.TranscriptPath, in.Cwd = a.SessionID, a.TranscriptPath, a.Cwd
	in.AgentID, in.AgentType = a.AgentID, a.AgentType
	o := a.Runner.Run(ctx, ev, in)
	if ev.toolEvent() && (o.Stop || o.Interrupt) {
		// The agent stops after the round of calls this one is in
		// (TakeHalt); the call itself is denied (ApplyPreToolUse,
		// ApplyPermissionRequest) or, for PostToolUse, already made.
		why := o.StopReason
		if o.Interrupt {
			why = o.Reason
		}
		reason := fmt.Sprintf("a %s hook stopped the agent%s", ev, suffix(why))
		a.halt.CompareAndSwap(nil, &reason)
		o.Warnings = append(o.Warnings, reason)
	}
	if a.Warn != nil {
		// A hook's stderr and systemMessage may hold what the model
		// wrote (a hook echoing the command it refused): on one line,
		// no escape in them reaches the person's terminal (OSC 52
		// writes the clipboard).
		for _, w := range o.Warnings {
			a.Warn(termsafe.Line(w))
		}
		for _, m := range o.SystemMessages {
			a.Warn(termsafe.Line(string(ev) + " hook: " + m))
		}
	}
	return o
}

// TakeHalt returns why a hook asked to stop the agent since the last call
// ("continue": false in a tool event's answer, or a PermissionRequest
// deny with "interrupt": true), and forgets it; "" when none did.
func (a *Agent) TakeHalt() string {
	if a == nil {
		return ""
	}
	if p := a.halt.Swap(nil); p != nil {
		return *p
	}
	return ""
}

// StopEvent is the event a's run ends with: SubagentStop for a subagent,
// Stop for the main loop (also when it runs as an agent).
func (a *Agent) StopEvent() Event {
	if a != nil && a.AgentID != "" {
		return SubagentStop
	}
	return Stop
}

// Stop runs the stop hooks before the agent ends its answer final and
// returns the reason to carry on when one blocks, else "". active is set
// when the agent is already carrying on because a stop hook blocked.
func (a *Agent) Stop(ctx context.Context, final string, active bool) string {
	ev := a.StopEvent()
	o := a.Run(ctx, ev, Input{StopHookActive: active, LastAssistantMessage: final})
	if !o.Block || o.Stop {
		// "continue": false comes before a block, as in Claude Code.
		return ""
	}
	return o.Reason
}

// Empty reports whether c has no hooks at all.
func (c Config) Empty() bool {
	for _, gs := range c.groups {
		if len(gs) > 0 {
			return false
		}
	}
	return true
}

// agentEvents are the events an agent's own hooks may name: those that
// come while the agent runs. Stop is Claude Code's name in agent
// frontmatter for the agent's end, which for gen's agents (subagents) is
// SubagentStop.
var agentEvents = []Event{SubagentStart, PreToolUse, PermissionRequest, Notification, PermissionDenied, PostToolUse, PostToolUseFailure, SubagentStop, Stop}

// ParseAgent parses the hooks of an agent definition (Claude Code's
// hooks: in agent frontmatter, converted to JSON), origin naming the
// file, as Parse does. Stop hooks run as SubagentStop hooks, with their
// matchers ignored as under Stop; SessionStart, UserPromptSubmit and
// SessionEnd, which never come while an agent runs, are errors, as a hook
// that would silently never run. (SubagentStart hooks run at the agent's
// own start as a subagent; Notification hooks when it is the main loop,
// the one that opens dialogs.)
func ParseAgent(origin string, raw json.RawMessage) (Config, error) {
	c, err := Parse(origin, raw)
	if err != nil {
		return Config{}, err
	}
	for _, ev := range Events {
		if c.Has(ev) && !slices.Contains(agentEvents, ev) {
			return Config{}, parser{origin}.errorf("hooks."+string(ev), "an agent's hooks run while it runs, and %s does not come then: put the hook in a settings file", ev)
		}
	}
	if stops := c.groups[Stop]; len(stops) > 0 {
		// Before the SubagentStop groups, as Parse orders events by name.
		var gs []Group
		for _, g := range stops {
			g.Matcher, g.names, g.re = "", nil, nil
			gs = append(gs, g)
		}
		c.groups[SubagentStop] = append(gs, c.groups[SubagentStop]...)
		delete(c.groups, Stop)
	}
	return c, nil
}

// AsMain returns c, the hooks of the agent called name (ParseAgent), as
// they run when that agent is the main loop (--agent), whose run ends
// with Stop rather than SubagentStop: the stop hooks that would run at its
// end as a subagent (its Stop hooks, and its SubagentStop hooks whose
// matcher names it) are Stop hooks. The others are as they were.
func (c Config) AsMain(name string) Config {
	out := Merge(c)
	var stops []Group
	for _, g := range out.groups[SubagentStop] {
		if g.Matches(name) {
			g.Matcher, g.names, g.re = "", nil, nil
			stops = append(stops, g)
		}
	}
	delete(out.groups, SubagentStop)
	if len(stops) > 0 {
		out.groups[Stop] = append(stops, out.groups[Stop]...)
	}
	return out
}

// Unmatched returns, in configuration order, the matchers of ev's groups
// that do not match subject: for an agent's own SubagentStop hooks, a
// matcher naming another agent, whose hooks would never run.
func (c Config) Unmatched(ev Event, subject string) []string {
	var out []string
	for _, g := range c.groups[ev] {
		if !g.Matches(subject) {
			out = append(out, g.Matcher)
		}
	}
	return out
}
