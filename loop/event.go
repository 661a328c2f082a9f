package loop

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/perm"
)

// EventKind says what an Event reports. Its value is the "type" of the event
// when printed as a stream-json line.
type EventKind string

// The event kinds, in the order a run produces them: one EventInit, then per
// turn an optional EventText followed by, for every tool call, EventToolCall,
// EventDecision (only when the gate was asked) and EventToolResult; the last
// event of a run is always EventFinal.
const (
	EventInit       EventKind = "init"
	EventText       EventKind = "text"
	EventToolCall   EventKind = "tool_call"
	EventDecision   EventKind = "decision"
	EventToolResult EventKind = "tool_result"
	EventFinal      EventKind = "final"
)

// Event reports one step of a run to Runner.OnEvent. Only the fields that
// make sense for Kind are set.
type Event struct {
	Kind EventKind `json:"type"`
	// Agent is Runner.Agent.
	Agent string `json:"agent,omitempty"`
	// Parent is the call ID of the Agent tool call this run was delegated
	// from; the runner leaves it empty for its caller to fill in.
	Parent string `json:"parent,omitempty"`
	// Text is assistant text (EventText), the final answer (EventFinal),
	// the error that ended the run (EventFinal with IsError), or the raw
	// arguments of an EventToolCall whose arguments are not valid JSON.
	Text string `json:"text,omitempty"`
	// CallID, Tool and Input identify a tool call. Input is the normalised
	// input; it is nil when the arguments were not valid JSON.
	CallID string         `json:"call_id,omitempty"`
	Tool   string         `json:"tool,omitempty"`
	Input  map[string]any `json:"input,omitempty"`
	// Result is the gate's decision (EventDecision only).
	Result perm.Result `json:"-"`
	// Output is what the model receives as the tool result.
	Output string `json:"output,omitempty"`
	// IsError marks a tool result that is an error or a denial, and an
	// EventFinal for a run that ended with an error.
	IsError bool `json:"is_error,omitempty"`
	// Denied marks a denial (EventDecision and EventToolResult).
	Denied bool `json:"denied,omitempty"`
	// Tools names the tools the run may call (EventInit).
	Tools []string `json:"tools,omitempty"`
	// Turns and Usage summarise the run (EventFinal).
	Turns int           `json:"turns,omitempty"`
	Usage *openai.Usage `json:"usage,omitempty"`
}

// decisionJSON is how a perm.Result is printed: perm keeps its types free of
// serialisation concerns, and a numeric Decision would mean nothing to a
// reader of the stream.
type decisionJSON struct {
	Decision string      `json:"decision"`
	Step     int         `json:"step,omitempty"`
	Reason   string      `json:"reason,omitempty"`
	Rule     string      `json:"rule,omitempty"`
	Source   perm.Source `json:"source,omitempty"`
	// Sandbox is a Bash call's sandbox profile (perm.Result.Sandbox).
	Sandbox string `json:"sandbox,omitempty"`
}

// MarshalJSON prints e as one stream-json object, such as
// {"type":"decision","tool":"Bash","result":{"decision":"deny",...}}.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event // drops the method, so Marshal does not recurse
	v := struct {
		plain
		Result *decisionJSON `json:"result,omitempty"`
	}{plain: plain(e)}
	if e.Kind == EventDecision {
		r := e.Result
		v.Result = &decisionJSON{
			Decision: r.Decision.String(),
			Step:     r.Step,
			Reason:   r.Reason,
			Rule:     r.Rule,
			Source:   r.Source,
			Sandbox:  string(r.Sandbox),
		}
	}
	return json.Marshal(v)
}
