package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/gen-run/gen/cost"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/structured"
)

// The json and stream-json formats follow Claude Code's headless output,
// so that its parsers read gen's: a system/init event, assistant and user
// message events with text, tool_use and tool_result content blocks, and
// a result event. gen adds one event type of its own, "decision" (the
// gate's decision on a call, DecisionEvent), which those parsers skip as
// they skip every type they do not know. Field names are an interface:
// change them only together with the golden files in tests/testdata.

// Init describes a run for the system/init event (stream-json), and gives
// the session ID every later event and the result carry.
type Init struct {
	// SessionID identifies the conversation (package transcript).
	SessionID string
	// Cwd is the run's working directory.
	Cwd   string
	Model string
	Mode  perm.Mode
	// Tools are the tools the model sees, in order.
	Tools []string
	// MCPServers are the configured MCP servers and their status.
	MCPServers []MCPServer
	// Agent names the agent that runs: "main" for the main loop (gen's
	// addition to the event).
	Agent string
}

// MCPServer is one MCP server's entry in the init event. A server that
// failed has Status "failed" and Error saying why; the run goes on
// without its tools.
type MCPServer struct {
	Name string `json:"name"`
	// Status is "connected" or "failed".
	Status string `json:"status"`
	// Error is gen's addition: why a failed server failed.
	Error string `json:"error,omitempty"`
}

// systemInit is the first stream-json line.
type systemInit struct {
	Type           string      `json:"type"`
	Subtype        string      `json:"subtype"`
	SessionID      string      `json:"session_id"`
	Cwd            string      `json:"cwd"`
	Tools          []string    `json:"tools"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	Model          string      `json:"model"`
	PermissionMode perm.Mode   `json:"permissionMode"`
	Agent          string      `json:"agent,omitempty"`
}

// Init starts the run: it remembers the session ID and the start time,
// and prints the system/init event (stream-json only).
func (p *Printer) Init(in Init) {
	p.mu.Lock()
	p.session, p.model, p.start = in.SessionID, in.Model, time.Now()
	p.mu.Unlock()
	if p.Format != StreamJSON {
		return
	}
	servers := in.MCPServers
	if servers == nil {
		servers = []MCPServer{}
	}
	tools := in.Tools
	if tools == nil {
		tools = []string{}
	}
	p.line(systemInit{
		Type: "system", Subtype: "init", SessionID: in.SessionID, Cwd: in.Cwd,
		Tools: tools, MCPServers: servers, Model: in.Model, PermissionMode: in.Mode, Agent: in.Agent,
	})
}

// StartTurn restarts the clock for the next result's duration_ms (with
// --input-format stream-json a run has several turns, each with a result).
func (p *Printer) StartTurn() {
	p.mu.Lock()
	p.start = time.Now()
	p.mu.Unlock()
}

// messageEvent is an assistant or a user message event.
type messageEvent struct {
	Type    string  `json:"type"`
	Message message `json:"message"`
	// ParentToolUseID is the Agent call a subagent's message belongs
	// to; null for the main loop's.
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
}

type message struct {
	ID      string `json:"id,omitempty"`
	Type    string `json:"type,omitempty"`
	Role    string `json:"role"`
	Model   string `json:"model,omitempty"`
	Content []any  `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string         `json:"type"`
	ID    string         `json:"id"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// DecisionEvent is gen's own stream-json event: the gate's decision on
// one call, printed between the call's tool_use and its tool_result.
// Further facts about a decision (a sandbox profile, a hook's verdict)
// belong here, as fields with omitempty.
type DecisionEvent struct {
	Type      string         `json:"type"` // "decision"
	ToolUseID string         `json:"tool_use_id"`
	ToolName  string         `json:"tool_name"`
	ToolInput map[string]any `json:"tool_input"`
	Decision  string         `json:"decision"` // allow or deny
	Step      int            `json:"step,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Rule      string         `json:"rule,omitempty"`
	Source    perm.Source    `json:"source,omitempty"`
	// Sandbox is a Bash call's sandbox profile (perm.Result.Sandbox).
	Sandbox         string `json:"sandbox,omitempty"`
	Agent           string `json:"agent,omitempty"`
	ParentToolUseID string `json:"parent_tool_use_id,omitempty"`
	SessionID       string `json:"session_id"`
}

// NewDecisionEvent builds the decision event of e (an EventDecision).
func NewDecisionEvent(e loop.Event, sessionID string) DecisionEvent {
	return DecisionEvent{
		Type:            string(loop.EventDecision),
		ToolUseID:       e.CallID,
		ToolName:        e.Tool,
		ToolInput:       nonNilMap(e.Input),
		Decision:        e.Result.Decision.String(),
		Step:            e.Result.Step,
		Reason:          e.Result.Reason,
		Rule:            e.Result.Rule,
		Source:          e.Result.Source,
		Sandbox:         string(e.Result.Sandbox),
		Agent:           e.Agent,
		ParentToolUseID: e.Parent,
		SessionID:       sessionID,
	}
}

// streamEvent prints e as Claude Code's message events (or gen's decision
// event). The run's init and result are printed by Init and Result.
func (p *Printer) streamEvent(e loop.Event) {
	var parent *string
	if e.Parent != "" {
		parent = &e.Parent
	}
	p.mu.Lock()
	session, model := p.session, p.model
	p.mu.Unlock()
	assistant := func(block any) {
		p.mu.Lock()
		p.msgs++
		id := msgID(p.msgs)
		p.mu.Unlock()
		p.line(messageEvent{
			Type:            "assistant",
			Message:         message{ID: id, Type: "message", Role: "assistant", Model: model, Content: []any{block}},
			ParentToolUseID: parent,
			SessionID:       session,
		})
	}
	if e.Parent == "" {
		// The main loop's message that Partial streamed is whole now.
		switch e.Kind {
		case loop.EventFinal:
			p.closeStream("end_turn")
		case loop.EventText, loop.EventToolCall:
			p.closeStream("tool_use")
		}
	}
	switch e.Kind {
	case loop.EventText:
		assistant(textBlock{Type: "text", Text: e.Text})
	case loop.EventFinal:
		// The final answer is the run's last assistant message; an
		// error is reported by the result alone.
		if !e.IsError && e.Text != "" {
			assistant(textBlock{Type: "text", Text: e.Text})
		}
	case loop.EventToolCall:
		assistant(toolUseBlock{Type: "tool_use", ID: e.CallID, Name: e.Tool, Input: nonNilMap(e.Input)})
	case loop.EventDecision:
		p.line(NewDecisionEvent(e, session))
	case loop.EventToolResult:
		p.line(messageEvent{
			Type:            "user",
			Message:         message{Role: "user", Content: []any{toolResultBlock{Type: "tool_result", ToolUseID: e.CallID, Content: e.Output, IsError: e.IsError}}},
			ParentToolUseID: parent,
			SessionID:       session,
		})
	}
}

// Replay prints msg, a user message of --input-format stream-json as
// it was read, back on stdout (Claude Code's --replay-user-messages), so
// that a client sees which of its messages the next turn answers: its
// fields with their values as sent (a uuid included; the keys sorted),
// with the session_id, a null parent_tool_use_id and isReplay true.
// stream-json only.
func (p *Printer) Replay(msg map[string]json.RawMessage) {
	if p.Format != StreamJSON {
		return
	}
	p.mu.Lock()
	session, _ := json.Marshal(p.session)
	p.mu.Unlock()
	out := maps.Clone(msg)
	out["session_id"], out["parent_tool_use_id"], out["isReplay"] = session, json.RawMessage("null"), json.RawMessage("true")
	p.line(out)
}

// msgID is the ID of the run's n-th assistant message.
func msgID(n int) string { return fmt.Sprintf("msg_%d", n) }

// streamEventLine is a stream_event line (--include-partial-messages):
// one of the events a streaming model sends, in the shapes Claude Code
// passes on from its API, made here from the text the model server
// streams. Only the main loop's text streams: tool calls and subagents'
// messages arrive whole, as message events.
type streamEventLine struct {
	Type            string  `json:"type"` // "stream_event"
	Event           any     `json:"event"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
}

type messageStart struct {
	Type    string  `json:"type"` // "message_start"
	Message message `json:"message"`
}

type blockStart struct {
	Type         string    `json:"type"` // "content_block_start"
	Index        int       `json:"index"`
	ContentBlock textBlock `json:"content_block"`
}

type blockDelta struct {
	Type  string    `json:"type"` // "content_block_delta"
	Index int       `json:"index"`
	Delta textDelta `json:"delta"`
}

type textDelta struct {
	Type string `json:"type"` // "text_delta"
	Text string `json:"text"`
}

type blockStop struct {
	Type  string `json:"type"` // "content_block_stop"
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string    `json:"type"` // "message_delta"
	Delta stopDelta `json:"delta"`
}

type stopDelta struct {
	// StopReason is end_turn or tool_use; null when the run ended
	// otherwise (an error).
	StopReason *string `json:"stop_reason"`
}

type messageStop struct {
	Type string `json:"type"` // "message_stop"
}

// Partial prints delta, text of the main loop's answer as the model
// streams it, as stream_event lines: the first delta of a message opens
// it (message_start, then content_block_start of a text block), each is
// a content_block_delta. The main loop's next message event, or the
// result, closes it (closeStream). The message's ID is the one the
// assistant message event that follows carries. It prints nothing in
// the other formats.
func (p *Printer) Partial(delta string) {
	if p.Format != StreamJSON || delta == "" {
		return
	}
	p.mu.Lock()
	session, model := p.session, p.model
	opening := !p.streaming
	p.streaming = true
	var id string
	if opening {
		id = msgID(p.msgs + 1)
	}
	p.mu.Unlock()
	if opening {
		p.line(streamEventLine{Type: "stream_event", SessionID: session,
			Event: messageStart{Type: "message_start", Message: message{ID: id, Type: "message", Role: "assistant", Model: model, Content: []any{}}}})
		p.line(streamEventLine{Type: "stream_event", SessionID: session,
			Event: blockStart{Type: "content_block_start", ContentBlock: textBlock{Type: "text"}}})
	}
	p.line(streamEventLine{Type: "stream_event", SessionID: session,
		Event: blockDelta{Type: "content_block_delta", Delta: textDelta{Type: "text_delta", Text: delta}}})
}

// closeStream ends the message Partial opened, if one is open, with the
// stop reason stop ("" for none known).
func (p *Printer) closeStream(stop string) {
	p.mu.Lock()
	open, session := p.streaming, p.session
	p.streaming = false
	p.mu.Unlock()
	if !open {
		return
	}
	var reason *string
	if stop != "" {
		reason = &stop
	}
	for _, ev := range []any{
		blockStop{Type: "content_block_stop"},
		messageDelta{Type: "message_delta", Delta: stopDelta{StopReason: reason}},
		messageStop{Type: "message_stop"},
	} {
		p.line(streamEventLine{Type: "stream_event", SessionID: session, Event: ev})
	}
}

// The result subtypes.
const (
	SubtypeSuccess        = "success"
	SubtypeMaxTurns       = "error_max_turns"
	SubtypeExecutionError = "error_during_execution"
	// SubtypeNoStructured is a run whose model never answered through
	// --json-schema's tool (structured.ErrMissing).
	SubtypeNoStructured = "error_max_structured_output_retries"
	// SubtypeBudget is a run stopped by --max-budget-usd (cost.ErrBudget).
	SubtypeBudget = "error_max_budget_usd"
)

// ResultObject is the last line of stream-json and the whole of json:
// Claude Code's result message. Usage counts the tokens of the whole run,
// delegated work included; TotalCostUSD prices them where the
// api.pricing setting gives the model a price (package cost).
// PermissionDenials carry gen's reason besides Claude Code's fields.
type ResultObject struct {
	Type              string       `json:"type"`
	Subtype           string       `json:"subtype"`
	IsError           bool         `json:"is_error"`
	DurationMS        int64        `json:"duration_ms"`
	DurationAPIMS     int64        `json:"duration_api_ms"`
	NumTurns          int          `json:"num_turns"`
	Result            string       `json:"result"`
	SessionID         string       `json:"session_id"`
	Usage             Usage        `json:"usage"`
	PermissionDenials []DenialJSON `json:"permission_denials"`
	// TotalCostUSD is what the run's model turns cost, from the
	// api.pricing setting; left out when the model has no price.
	TotalCostUSD *float64 `json:"total_cost_usd,omitempty"`
	// StructuredOutput is the answer given through --json-schema's tool.
	StructuredOutput map[string]any `json:"structured_output,omitempty"`
}

// Usage is the token usage in a ResultObject.
type Usage struct {
	InputTokens          int `json:"input_tokens"`
	OutputTokens         int `json:"output_tokens"`
	CacheReadInputTokens int `json:"cache_read_input_tokens"`
}

// DenialJSON is one permission denial in a ResultObject.
type DenialJSON struct {
	ToolName  string         `json:"tool_name"`
	ToolUseID string         `json:"tool_use_id"`
	ToolInput map[string]any `json:"tool_input"`
	// Reason is why the gate refused (gen's addition).
	Reason string `json:"reason"`
}

// Subtype is the result subtype of r.
func (r *Run) Subtype() string {
	switch {
	case r.Err == nil:
		return SubtypeSuccess
	case errors.Is(r.Err, loop.ErrMaxTurns):
		return SubtypeMaxTurns
	case errors.Is(r.Err, structured.ErrMissing):
		return SubtypeNoStructured
	case errors.Is(r.Err, cost.ErrBudget):
		return SubtypeBudget
	}
	return SubtypeExecutionError
}

// Object builds the result object of r; the caller fills in SessionID
// and DurationMS, which the run itself does not know.
func (r *Run) Object() ResultObject {
	u := r.Outcome.Usage
	o := ResultObject{
		Type:              "result",
		Subtype:           r.Subtype(),
		IsError:           r.Err != nil,
		DurationAPIMS:     r.Outcome.APIDuration.Milliseconds(),
		NumTurns:          r.Outcome.Turns,
		Result:            r.Outcome.Final,
		Usage:             Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens},
		PermissionDenials: []DenialJSON{},
		StructuredOutput:  r.Structured,
		TotalCostUSD:      r.CostUSD,
	}
	if d := u.PromptTokensDetails; d != nil {
		o.Usage.CacheReadInputTokens = d.CachedTokens
	}
	if r.Err != nil {
		o.Result = r.Err.Error()
	}
	for _, d := range r.Outcome.Denials {
		o.PermissionDenials = append(o.PermissionDenials, DenialJSON{ToolName: d.ToolName, ToolUseID: d.ToolUseID, ToolInput: nonNilMap(d.ToolInput), Reason: d.Reason})
	}
	return o
}

func (p *Printer) resultObject(r *Run) ResultObject {
	o := r.Object()
	p.mu.Lock()
	defer p.mu.Unlock()
	o.SessionID = p.session
	if !p.start.IsZero() {
		o.DurationMS = time.Since(p.start).Milliseconds()
	}
	return o
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
