package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
)

type entryKind int

const (
	textEntry entryKind = iota // assistant text
	callEntry                  // a tool call, with its decision and result
	noteEntry                  // a line from the UI itself
)

type entryStyle int

const (
	plainStyle entryStyle = iota
	dimStyle
	warnStyle
	errorStyle
)

// entry is one item of the transcript.
type entry struct {
	kind  entryKind
	style entryStyle // noteEntry
	text  string     // textEntry, noteEntry
	open  bool       // a textEntry still receiving deltas

	// callEntry.
	tool, spec string
	depth      int // 0 for the main loop's calls, 1 under an Agent call, …
	decided    bool
	result     perm.Result
	done       bool
	output     string
	isError    bool
	denied     bool
	children   []*entry // the calls of the subagent an Agent call started
}

// complete reports whether e will not change any more, so that it can be
// printed. last says whether e is the newest entry.
func (e *entry) complete(last bool) bool {
	switch e.kind {
	case textEntry:
		return !last || !e.open
	case callEntry:
		return e.done
	}
	return true
}

// callKey names a call: call IDs are only unique within one run, and a
// subagent's run may reuse the IDs of the main loop.
func callKey(parent, id string) string { return parent + "\x00" + id }

// event adds what a turn reported to the running turn's entries.
func (m *model) event(ev loop.Event) {
	switch ev.Kind {
	case loop.EventText, loop.EventFinal:
		if ev.Parent != "" || ev.IsError {
			// A subagent's text reaches the person as its Agent call's
			// result; an error ends the turn and is shown then.
			return
		}
		if !m.streamed && strings.TrimSpace(ev.Text) != "" {
			m.live = append(m.live, &entry{kind: textEntry, text: ev.Text})
		}
		m.closeText()
	case loop.EventToolCall:
		if ev.Parent == "" {
			m.closeText()
		}
		e := &entry{kind: callEntry, tool: ev.Tool, spec: specifier(ev.Tool, ev.Input, ev.Text)}
		parent := m.findCall(ev.Parent)
		switch {
		case ev.Parent == "":
			m.live = append(m.live, e)
		case parent != nil:
			e.depth = parent.depth + 1
			parent.children = append(parent.children, e)
		default:
			// The Agent call is not known (printed already, or never
			// reported): still show the call, marked as a subagent's.
			e.depth = 1
			m.live = append(m.live, e)
		}
		m.calls[callKey(ev.Parent, ev.CallID)] = e
	case loop.EventDecision:
		if e := m.calls[callKey(ev.Parent, ev.CallID)]; e != nil {
			e.decided, e.result = true, ev.Result
			e.denied = e.denied || ev.Denied || ev.Result.Decision != perm.Allow
		}
	case loop.EventToolResult:
		if e := m.calls[callKey(ev.Parent, ev.CallID)]; e != nil {
			e.done, e.output, e.isError = true, ev.Output, ev.IsError
			e.denied = e.denied || ev.Denied
		}
	}
}

// findCall returns the call an event with this Parent was delegated from:
// a main-loop call, or failing that a subagent's call with that ID.
func (m *model) findCall(id string) *entry {
	if id == "" {
		return nil
	}
	if e := m.calls[callKey("", id)]; e != nil {
		return e
	}
	for k, e := range m.calls {
		if strings.HasSuffix(k, "\x00"+id) {
			return e
		}
	}
	return nil
}

// text adds streamed assistant text.
func (m *model) text(delta string) {
	if delta == "" {
		return
	}
	m.streamed = true
	if n := len(m.live); n > 0 && m.live[n-1].kind == textEntry && m.live[n-1].open {
		m.live[n-1].text += delta
		return
	}
	m.live = append(m.live, &entry{kind: textEntry, text: delta, open: true})
}

// closeText ends the assistant message being streamed.
func (m *model) closeText() {
	m.streamed = false
	if n := len(m.live); n > 0 && m.live[n-1].kind == textEntry {
		m.live[n-1].open = false
	}
}

// flush prints the leading entries that are complete (all of them when
// all is set), so that the live part of the view stays short.
func (m *model) flush(all bool) {
	n := 0
	for n < len(m.live) && (all || m.live[n].complete(n == len(m.live)-1)) {
		n++
	}
	if n == 0 {
		return
	}
	w := max(m.width, 20)
	lines := make([]string, n)
	for i, e := range m.live[:n] {
		lines[i] = m.render(e, w)
	}
	m.print(strings.Join(lines, "\n"))
	m.live = append([]*entry(nil), m.live[n:]...)
}

// render draws e in at most w columns.
func (m *model) render(e *entry, w int) string {
	switch e.kind {
	case textEntry:
		return wrap(sanitize(strings.TrimRight(e.text, "\n")), w)
	case noteEntry:
		s := wrap(sanitize(e.text), w)
		switch e.style {
		case dimStyle:
			s = m.sty.dim.Render(s)
		case warnStyle:
			s = m.sty.warn.Render(s)
		case errorStyle:
			s = m.sty.deny.Render(s)
		}
		return s
	}
	return m.renderCall(e, w)
}

// renderCall draws a call as
//
//	● Tool(specifier)  ✓ allowed
//	  ⎿ first line of the output
//
// with the calls of a subagent indented under their Agent call.
func (m *model) renderCall(e *entry, w int) string {
	pad := strings.Repeat("    ", e.depth)
	head := e.tool
	if e.spec != "" {
		head += "(" + e.spec + ")"
	}
	var status string
	switch {
	case e.denied:
		reason := e.result.Reason
		if !e.decided || reason == "" {
			reason, _ = firstLine(strings.TrimPrefix(e.output, "DENIED: "))
		}
		status = m.sty.deny.Render("✗ DENIED: " + oneLine(sanitize(reason)))
	case e.decided && e.result.Sandbox != "":
		// A Bash call shows the sandbox profile it runs under.
		status = m.sty.ok.Render("✓ allowed") + m.sty.dim.Render(" ["+string(e.result.Sandbox)+"]")
	case e.decided:
		status = m.sty.ok.Render("✓ allowed")
	case !e.done:
		status = m.sty.dim.Render("…")
	}

	var b strings.Builder
	room := w - len(pad) - 2
	line := m.sty.bold.Render(head)
	if status != "" {
		sw := ansi.StringWidth(status)
		if ansi.StringWidth(head)+2+sw <= room {
			line += "  " + status
			status = ""
		} else if room-2-sw >= 20 {
			line = m.sty.bold.Render(ansi.Truncate(head, room-2-sw, "…")) + "  " + status
			status = ""
		}
	}
	b.WriteString(clip(pad+"● "+line, w))
	if status != "" {
		// Too long to share the line: the status gets its own.
		b.WriteString("\n" + clip(pad+"  ⎿ "+status, w))
	}
	for _, c := range e.children {
		b.WriteString("\n" + m.renderCall(c, w))
	}
	if e.done && !e.denied {
		first, more := firstLine(sanitize(e.output))
		if strings.TrimSpace(first) == "" && more == 0 {
			first = "(no output)"
		}
		switch {
		case more == 1:
			first += " (+1 line)"
		case more > 1:
			first += fmt.Sprintf(" (+%d lines)", more)
		}
		st := m.sty.dim
		if e.isError {
			st = m.sty.warn
		}
		b.WriteString("\n" + st.Render(clip(pad+"  ⎿ "+first, w)))
	}
	return b.String()
}

// specifier renders a call's input for its one transcript line: the
// argument that identifies the call (perm.Specifier), nothing for
// AskUserQuestion (its questions show in their dialog), and the JSON input
// of other tools (MCP). raw is the unparsed arguments of a call whose
// input was not valid JSON.
func specifier(toolName string, in map[string]any, raw string) string {
	if in == nil {
		return oneLine(raw)
	}
	if perm.HasSpecifier(toolName) {
		return oneLine(perm.Specifier(toolName, in))
	}
	if toolName == "AskUserQuestion" || len(in) == 0 {
		return ""
	}
	b, err := json.Marshal(in) // sorted keys: stable output
	if err != nil {
		return ""
	}
	return oneLine(string(b))
}

// oneLine keeps s on one line, so that a multi-line command cannot make a
// call look like several.
func oneLine(s string) string {
	s = strings.TrimSpace(sanitize(s))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}
