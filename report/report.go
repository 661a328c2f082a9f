// Package report renders finished and running runs for machines and logs:
// the text, json and stream-json output formats of `gen -p` and `gen agent
// run`, and the exit code a run maps to. It sits on loop (events and
// outcomes) and perm (decisions).
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
)

// Format is an output format of `gen agent run` and `gen -p`.
type Format string

// The output formats.
const (
	Text       Format = "text"
	JSON       Format = "json"
	StreamJSON Format = "stream-json"
)

// ParseFormat validates an --output-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, JSON, StreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q (want text, json or stream-json)", s)
}

// Printer renders a run in one format: events as they happen, the result
// at the end. It is safe for concurrent use (parallel subagents report
// through one Printer).
type Printer struct {
	Format   Format
	Out, Err io.Writer
	// MCPServers, when not nil, are listed in the init event as
	// "mcp_servers" (Claude Code's key): each server and its status.
	MCPServers []MCPServer
	mu         sync.Mutex
}

// MCPServer is one MCP server in the init event. A server that failed
// has Status "failed" and Error saying why; the run goes on without its
// tools.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Init announces the run (stream-json only).
func (p *Printer) Init(agentName string, mode perm.Mode, tools []string, model string) {
	if p.Format != StreamJSON {
		return
	}
	ev := map[string]any{"type": "init", "agent": agentName, "mode": mode, "tools": nonNil(tools), "model": model}
	if p.MCPServers != nil {
		ev["mcp_servers"] = p.MCPServers
	}
	p.line(ev)
}

// Event renders one loop event.
func (p *Printer) Event(e loop.Event) {
	switch p.Format {
	case StreamJSON:
		if e.Kind == loop.EventInit || e.Kind == loop.EventFinal {
			return // Init and Result print those, with more detail
		}
		p.line(e)
	case Text:
		if e.Kind != loop.EventToolResult {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintln(p.Err, CallLine(e))
	}
}

// CallLine renders a tool result event as one log line:
// "[agent] Tool(spec) -> allowed" / "-> DENIED: reason" / "-> ERROR: msg".
func CallLine(e loop.Event) string {
	var b strings.Builder
	if e.Parent != "" || e.Agent != "" {
		fmt.Fprintf(&b, "[%s] ", e.Agent)
	}
	b.WriteString(Short(e.Tool, e.Input))
	switch {
	case e.Denied:
		b.WriteString(" -> " + firstLine(e.Output))
	case e.IsError:
		out := firstLine(e.Output)
		if !strings.HasPrefix(out, "ERROR: ") {
			out = "ERROR: " + out
		}
		b.WriteString(" -> " + out)
	default:
		b.WriteString(" -> ALLOWED")
	}
	return b.String()
}

// Short renders a call as Tool(specifier), shortened for logs.
func Short(tool string, input map[string]any) string {
	spec := perm.Specifier(tool, input)
	if spec == "" {
		return tool
	}
	spec = strings.ReplaceAll(spec, "\n", " ")
	if len(spec) > 120 {
		spec = spec[:117] + "..."
	}
	return tool + "(" + spec + ")"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// ResultObject is the final JSON object of the json and stream-json
// formats; its shape is an interface other tools rely on.
type ResultObject struct {
	Type              string       `json:"type"`
	IsError           bool         `json:"is_error"`
	Result            string       `json:"result"`
	NumTurns          int          `json:"num_turns"`
	PermissionDenials []DenialJSON `json:"permission_denials"`
	Usage             openai.Usage `json:"usage"`
}

// DenialJSON is one permission denial in a ResultObject.
type DenialJSON struct {
	ToolName  string         `json:"tool_name"`
	ToolInput map[string]any `json:"tool_input"`
	Reason    string         `json:"reason"`
}

// Exit codes shared by every command.
const (
	ExitOK     = 0
	ExitFailed = 1 // the run failed: model errors after retries, max turns, loop breaker
	ExitUsage  = 2 // usage, agent or settings error
	ExitDenied = 3 // the run finished but a call was denied
)

// Run is one finished run.
type Run struct {
	Outcome loop.Outcome
	// Err is why the run failed (nil on success).
	Err error
}

// Denied reports whether any call was denied.
func (r *Run) Denied() bool { return len(r.Outcome.Denials) > 0 }

// ExitCode maps r to its exit code: ExitFailed for a failed run, else
// ExitDenied if a call was denied, else ExitOK.
func (r *Run) ExitCode() int {
	switch {
	case r.Err != nil:
		return ExitFailed
	case r.Denied():
		return ExitDenied
	}
	return ExitOK
}

// Object builds the result object of a run.
func (r *Run) Object() ResultObject {
	o := ResultObject{
		Type:              "result",
		IsError:           r.Err != nil,
		Result:            r.Outcome.Final,
		NumTurns:          r.Outcome.Turns,
		PermissionDenials: []DenialJSON{},
		Usage:             r.Outcome.Usage,
	}
	if r.Err != nil {
		o.Result = r.Err.Error()
	}
	for _, d := range r.Outcome.Denials {
		o.PermissionDenials = append(o.PermissionDenials, DenialJSON{ToolName: d.ToolName, ToolInput: d.ToolInput, Reason: d.Reason})
	}
	return o
}

// Result prints the end of a run: the final answer (text) or the result
// object (json, stream-json).
func (p *Printer) Result(r *Run) {
	switch p.Format {
	case Text:
		p.mu.Lock()
		defer p.mu.Unlock()
		if r.Err != nil {
			fmt.Fprintln(p.Err, "gen: run failed:", r.Err)
			return
		}
		fmt.Fprintln(p.Out, r.Outcome.Final)
	default:
		p.line(r.Object())
	}
}

func (p *Printer) line(v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": "error", "error": err.Error()})
	}
	p.Out.Write(append(b, '\n'))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
