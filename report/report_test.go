package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
)

func TestExitCode(t *testing.T) {
	denied := loop.Outcome{Denials: []loop.Denial{{ToolName: "Bash", Reason: "no"}}}
	for _, tt := range []struct {
		name string
		run  Run
		want int
	}{
		{"ok", Run{}, ExitOK},
		{"denied", Run{Outcome: denied}, ExitDenied},
		{"failed beats denied", Run{Outcome: denied, Err: errors.New("boom")}, ExitFailed},
	} {
		if got := tt.run.ExitCode(); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestResultFormats(t *testing.T) {
	r := &Run{Outcome: loop.Outcome{Final: "done", Turns: 2, Denials: []loop.Denial{{ToolName: "Bash", ToolInput: map[string]any{"command": "x"}, Reason: "no"}}}}
	var out, errb bytes.Buffer
	(&Printer{Format: Text, Out: &out, Err: &errb}).Result(r)
	if out.String() != "done\n" {
		t.Errorf("text result %q", out.String())
	}
	out.Reset()
	(&Printer{Format: JSON, Out: &out, Err: &errb}).Result(r)
	var o ResultObject
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if o.Type != "result" || o.IsError || o.Result != "done" || o.NumTurns != 2 || len(o.PermissionDenials) != 1 {
		t.Errorf("json result %+v", o)
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Errorf("ParseFormat(yaml) = %v", err)
	}
}

func TestSubtypes(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, SubtypeSuccess},
		{fmt.Errorf("after 3 turns: %w", loop.ErrMaxTurns), SubtypeMaxTurns},
		{errors.New("model: 500"), SubtypeExecutionError},
	} {
		r := &Run{Err: tt.err}
		if got := r.Subtype(); got != tt.want {
			t.Errorf("Subtype(%v) = %s, want %s", tt.err, got, tt.want)
		}
		if o := r.Object(); o.Subtype != tt.want || o.IsError != (tt.err != nil) {
			t.Errorf("Object(%v) = %+v", tt.err, o)
		}
	}
}

// The printer carries the session ID from Init into every event and the
// result; a decision event names the call it decides.
func TestStreamCarriesSession(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Format: StreamJSON, Out: &out, Err: io.Discard}
	p.Init(Init{SessionID: "S", Cwd: "/w", Model: "m", Mode: "default", Agent: "main"})
	p.Event(loop.Event{Kind: loop.EventToolCall, CallID: "c1", Tool: "Bash"})
	p.Event(loop.Event{Kind: loop.EventDecision, CallID: "c1", Tool: "Bash", Result: perm.Result{Decision: perm.Deny, Step: 8, Reason: "no"}})
	p.Event(loop.Event{Kind: loop.EventToolResult, CallID: "c1", Tool: "Bash", Output: "DENIED: no", IsError: true, Denied: true})
	p.Result(&Run{Outcome: loop.Outcome{Denials: []loop.Denial{{ToolName: "Bash", ToolUseID: "c1", Reason: "no"}}}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"type":"system","subtype":"init","session_id":"S","cwd":"/w","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","agent":"main"}`,
		`{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{}}]},"parent_tool_use_id":null,"session_id":"S"}`,
		`{"type":"decision","tool_use_id":"c1","tool_name":"Bash","tool_input":{},"decision":"deny","step":8,"reason":"no","session_id":"S"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"DENIED: no","is_error":true}]},"parent_tool_use_id":null,"session_id":"S"}`,
	}
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
	var res ResultObject
	if err := json.Unmarshal([]byte(lines[4]), &res); err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "S" || res.PermissionDenials[0].ToolUseID != "c1" || res.Subtype != SubtypeSuccess {
		t.Errorf("result %+v", res)
	}
}

func TestVerboseText(t *testing.T) {
	var errb bytes.Buffer
	for _, verbose := range []bool{false, true} {
		errb.Reset()
		p := &Printer{Format: Text, Out: io.Discard, Err: &errb, Verbose: verbose}
		p.Event(loop.Event{Kind: loop.EventText, Text: "thinking aloud"})
		if got := strings.Contains(errb.String(), "thinking aloud"); got != verbose {
			t.Errorf("verbose %v: stderr %q", verbose, errb.String())
		}
	}
}

// Streamed text stays open across a subagent's events and is closed by
// the result when the run ends without the main loop's message (an
// error): stop_reason null. Other formats print no stream events.
func TestPartialClosedByResult(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Format: StreamJSON, Out: &out, Err: io.Discard}
	p.Init(Init{SessionID: "S", Model: "m"})
	p.Partial("he")
	p.Partial("")
	p.Event(loop.Event{Kind: loop.EventText, Text: "sub", Agent: "x", Parent: "c9"})
	p.Partial("llo")
	p.Result(&Run{Err: errors.New("broken stream")})
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ev struct {
			Type  string `json:"type"`
			Event struct {
				Type  string `json:"type"`
				Delta struct {
					Text       string  `json:"text"`
					StopReason *string `json:"stop_reason"`
				} `json:"delta"`
			} `json:"event"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		s := ev.Type
		if ev.Type == "stream_event" {
			s = ev.Event.Type + ":" + ev.Event.Delta.Text
			if ev.Event.Type == "message_delta" && ev.Event.Delta.StopReason != nil {
				s += *ev.Event.Delta.StopReason
			}
		}
		types = append(types, s)
	}
	want := []string{"system", "message_start:", "content_block_start:", "content_block_delta:he", "assistant",
		"content_block_delta:llo", "content_block_stop:", "message_delta:", "message_stop:", "result"}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("lines:\n got %q\nwant %q", types, want)
	}

	out.Reset()
	p = &Printer{Format: JSON, Out: &out, Err: io.Discard}
	p.Partial("x")
	if out.Len() != 0 {
		t.Errorf("json format printed %q for a partial", out.String())
	}
}

// The log line of a call is escaped: the model's input and the tool's
// answer reach stderr, often a terminal, as text, never as the escapes
// they may hold (a title, the clipboard through OSC 52).
func TestCallLineEscaped(t *testing.T) {
	const esc = "\x1b]52;c;ZWNobw==\x07"
	line := CallLine(loop.Event{Kind: loop.EventToolResult, Tool: "Read", Input: map[string]any{"file_path": "x" + esc}, IsError: true, Output: "ERROR: no " + esc})
	if strings.ContainsAny(line, "\x1b\x07") || !strings.Contains(line, `Read(x\u{1b}]52;c;ZWNobw==\u{7}) -> ERROR: no \u{1b}`) {
		t.Errorf("CallLine = %q", line)
	}
}
