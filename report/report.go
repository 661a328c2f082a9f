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
	"time"

	"github.com/gen-run/gen/internal/termsafe"
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
// through one Printer). The stream-json shapes are in stream.go.
type Printer struct {
	Format   Format
	Out, Err io.Writer
	// Verbose makes the text format also log the model's text between
	// tool calls to Err.
	Verbose bool

	mu      sync.Mutex
	session string
	model   string
	start   time.Time
	msgs    int // assistant messages so far, for their IDs
	// streaming is set while a message streamed by Partial is open.
	streaming bool
}

// Event renders one loop event.
func (p *Printer) Event(e loop.Event) {
	switch p.Format {
	case StreamJSON:
		p.streamEvent(e)
	case Text:
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case e.Kind == loop.EventToolResult:
			fmt.Fprintln(p.Err, CallLine(e))
		case e.Kind == loop.EventText && p.Verbose:
			if e.Agent != "" && e.Parent != "" {
				fmt.Fprintf(p.Err, "[%s] ", e.Agent)
			}
			fmt.Fprintln(p.Err, e.Text)
		}
	}
}

// CallLine renders a tool result event as one log line:
// "[agent] Tool(spec) -> allowed" / "-> DENIED: reason" / "-> ERROR: msg".
// The line goes to stderr, often a terminal, and holds what the model
// chose (the call's input) and what the tool said: it is escaped
// (termsafe.Line), so that no escape in them reaches the terminal.
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
	return termsafe.Line(b.String())
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
	// Structured is the answer the model gave through --json-schema's
	// tool; nil without one. Text output prints it as JSON instead of
	// the final text.
	Structured map[string]any
	// CostUSD is what the run's model turns cost so far (package cost);
	// nil when its model has no price.
	CostUSD *float64
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

// Result prints the end of a run: the final answer (text) or the result
// object (json, stream-json).
func (p *Printer) Result(r *Run) {
	switch p.Format {
	case Text:
		p.mu.Lock()
		defer p.mu.Unlock()
		if r.Err != nil {
			fmt.Fprintln(p.Err, "gen: run failed:", termsafe.Text(r.Err.Error()))
			return
		}
		if r.Structured != nil {
			b, err := json.Marshal(r.Structured)
			if err == nil {
				fmt.Fprintf(p.Out, "%s\n", b)
				return
			}
		}
		fmt.Fprintln(p.Out, r.Outcome.Final)
	default:
		p.closeStream("")
		p.line(p.resultObject(r))
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
