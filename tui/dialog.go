package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
)

// Dialog limits, in lines.
const (
	maxSpecLines    = 12 // of the call's specifier
	minPreviewLines = 5
	maxPreviewLines = 20
	maxEditorLines  = 6
)

// dialog is the state of the dialog of the first open request.
type dialog struct {
	cursor int    // the highlighted option
	err    string // why the last key did nothing, shown until the next one
	width  int

	// quiet is when the dialog opened, or when it last ignored a key:
	// keys are ignored until the guard has passed since (model.guard).
	quiet time.Time
	// enterOK is false while Enter must not pick the highlighted option:
	// the person was typing as the dialog opened. Any other key the
	// dialog takes (an arrow, a digit, text) sets it.
	enterOK bool

	// Approvals.
	scroll  int  // first preview line shown
	editing bool // the Always allow rule editor is open
	editor  textarea.Model

	// Questions.
	q       int          // the question shown
	answers []string     // of the questions before q
	checked map[int]bool // multi-select: the options ticked
	other   textinput.Model
}

func (d *dialog) resize(w int) {
	d.width = w
	d.editor.SetWidth(max(w-3, 10))
	d.other.Width = max(w-20, 10)
}

// forward hands msg to the dialog's text input, if one has the focus.
func (d *dialog) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case d.editing:
		d.editor, cmd = d.editor.Update(msg)
		d.editor.SetHeight(min(max(d.editor.LineCount(), 1), maxEditorLines))
	case d.other.Focused():
		d.other, cmd = d.other.Update(msg)
	}
	return cmd
}

// open queues r; its dialog shows once those before it are answered.
func (m *model) open(r *request) tea.Cmd {
	m.requests = append(m.requests, r)
	if len(m.requests) == 1 {
		m.resetDialog()
		return m.guardTick()
	}
	return nil
}

// guardTick redraws the dialog when its guard may have passed.
func (m *model) guardTick() tea.Cmd {
	if m.guard <= 0 {
		return nil
	}
	return tea.Tick(m.guard, func(time.Time) tea.Msg { return guardDoneMsg{} })
}

// guarded reports whether the shown dialog still ignores keys.
func (m *model) guarded() bool { return m.now().Sub(m.dlg.quiet) < m.guard }

// withdraw closes the dialog of a request whose caller stopped waiting.
func (m *model) withdraw(id uint64) tea.Cmd {
	for i, r := range m.requests {
		if r.id != id {
			continue
		}
		r.respond(reply{err: ErrClosed})
		m.requests = append(m.requests[:i:i], m.requests[i+1:]...)
		var cmd tea.Cmd
		if i == 0 {
			m.resetDialog()
			if len(m.requests) > 0 {
				cmd = m.guardTick()
			}
		}
		what := "question"
		if r.approval != nil {
			what = "approval for " + r.approval.Request.Tool
		}
		m.note(dimStyle, "The "+what+" was withdrawn.")
		return cmd
	}
	return nil
}

// answer replies to the shown request and moves on to the next, which
// opens with its own guard.
func (m *model) answer(rep reply) tea.Cmd {
	m.requests[0].respond(rep)
	m.requests = m.requests[1:]
	m.resetDialog()
	if len(m.requests) > 0 {
		return m.guardTick()
	}
	return nil
}

// cancelRequest refuses the shown request with err.
func (m *model) cancelRequest(err error) {
	rep := reply{err: err}
	if m.requests[0].approval != nil {
		rep = reply{answer: gate.Reply{Choice: gate.No}}
	}
	m.answer(rep)
}

// resetDialog shows the first open request afresh. It opens guarded, and
// with Enter disarmed if the person was typing.
func (m *model) resetDialog() {
	now := m.now()
	typing := strings.TrimSpace(m.input.Value()) != "" ||
		!m.lastKey.IsZero() && now.Sub(m.lastKey) < typeAheadWindow
	m.dlg = dialog{checked: map[int]bool{}, quiet: now, enterOK: !typing}
	m.dlg.editor = newTextarea(m.sty, "Bash(npm run *)")
	m.dlg.other = textinput.New()
	m.dlg.other.Prompt = ""
	m.dlg.other.Placeholder = "type your own answer"
	m.dlg.other.PlaceholderStyle = m.sty.dim
	m.dlg.other.TextStyle = lipgloss.NewStyle()
	m.dlg.other.Cursor.Style = lipgloss.NewStyle()
	m.dlg.resize(m.width)
	if len(m.requests) > 0 && m.requests[0].approval == nil {
		m.focusOther()
	}
}

// dialogKey handles a key while a dialog is shown. Keys are ignored while
// the dialog is guarded, and each ignored key extends the guard: typing
// that began before the dialog opened never reaches it. Enter is ignored
// until another key was taken when the person was typing as it opened.
func (m *model) dialogKey(k tea.KeyMsg, now time.Time) tea.Cmd {
	d := &m.dlg
	if now.Sub(d.quiet) < m.guard {
		d.quiet, d.enterOK = now, false
		return m.guardTick()
	}
	if enter := k.Type == tea.KeyEnter && !k.Alt; enter && !d.enterOK && !d.editing {
		d.err = "Enter was ignored, as you were typing when this opened: choose with ↑/↓ or a digit."
		return nil
	} else if !enter {
		d.enterOK = true
	}
	if m.requests[0].approval != nil {
		return m.approvalKey(k, m.requests[0].approval)
	}
	return m.questionKey(k, m.requests[0])
}

// The approval dialog's options, in order; Choice values are 1-based.
var choices = []gate.Choice{gate.Yes, gate.YesSession, gate.Always, gate.No}

func (m *model) approvalKey(k tea.KeyMsg, a *gate.Approval) tea.Cmd {
	d := &m.dlg
	if d.editing {
		switch {
		case k.Type == tea.KeyEsc:
			d.editing, d.err = false, ""
			d.editor.Blur()
			return nil
		case k.Type == tea.KeyEnter && !k.Alt:
			rules, err := editedRules(d.editor.Value())
			if err != nil {
				d.err = err.Error()
				return nil
			}
			return m.answer(reply{answer: gate.Reply{Choice: gate.Always, Rules: rules}})
		}
		d.err = ""
		return d.forward(k)
	}
	d.err = ""
	switch k.String() {
	case "esc":
		return m.answer(reply{answer: gate.Reply{Choice: gate.No}})
	case "up", "ctrl+p", "shift+tab":
		d.cursor = m.step(a, -1)
	case "down", "ctrl+n", "tab":
		d.cursor = m.step(a, +1)
	case "pgup":
		d.scroll = max(d.scroll-m.previewHeight(), 0)
	case "pgdown":
		d.scroll += m.previewHeight() // clamped when drawn
	case "enter":
		return m.choose(a, choices[d.cursor])
	case "1", "2", "3", "4":
		return m.choose(a, choices[k.Runes[0]-'1'])
	}
	return nil
}

// blocked says why option c is not offered for a, or "": "Always allow"
// where no rule may be saved or could allow the call, and "allow all
// this session" for a switch to plan mode, which is the person's each
// time.
func blocked(a *gate.Approval, c gate.Choice) string {
	switch {
	case c == gate.YesSession && a.EnterPlan:
		return "the mode is switched each time"
	case c != gate.Always:
	case !a.CanPersist:
		return "managed settings allow only managed rules"
	case a.NoRule != "":
		return "no rule can allow this: " + a.NoRule
	}
	return ""
}

// step moves the cursor by dir, passing over a disabled option.
func (m *model) step(a *gate.Approval, dir int) int {
	c := m.dlg.cursor
	for {
		c += dir
		if c < 0 || c >= len(choices) {
			return m.dlg.cursor
		}
		if blocked(a, choices[c]) == "" {
			return c
		}
	}
}

func (m *model) choose(a *gate.Approval, c gate.Choice) tea.Cmd {
	if why := blocked(a, c); why != "" {
		m.dlg.err = c.String() + " is not available: " + why + "."
		return nil
	}
	if c != gate.Always {
		return m.answer(reply{answer: gate.Reply{Choice: c}})
	}
	d := &m.dlg
	d.editing = true
	d.editor.SetValue(strings.Join(a.Rules, "\n"))
	d.editor.SetHeight(min(max(d.editor.LineCount(), 1), maxEditorLines))
	return d.editor.Focus()
}

// editedRules returns the non-empty lines of the rule editor. Every one
// must be a well-formed rule: saving a rule the gate cannot parse would
// break the settings file for every later run.
func editedRules(text string) ([]string, error) {
	var rules []string
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if _, err := perm.ParseRule(l); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		rules = append(rules, l)
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("write at least one rule, or press Esc to go back")
	}
	return rules, nil
}

// previewHeight is how many lines of a diff preview the dialog shows.
func (m *model) previewHeight() int {
	if m.height <= 0 {
		return 12
	}
	return min(max(m.height-18, minPreviewLines), maxPreviewLines)
}

func (m *model) dialogView(w int) string {
	r := m.requests[0]
	var v string
	if r.approval != nil {
		v = m.approvalView(r.approval, w)
	} else {
		v = m.questionView(r, w)
	}
	if m.guarded() {
		v += "\n" + clip(m.sty.warn.Render(" Wait a moment: keys typed as this dialog opened are ignored."), w)
	}
	return v
}

func (m *model) approvalView(a *gate.Approval, w int) string {
	d := &m.dlg
	var b strings.Builder
	line := func(s string) { b.WriteString(clip(s, w) + "\n") }

	line(m.sty.title.Render(strings.Repeat("─", w)))
	line(m.sty.title.Render(" Permission needed: ") + m.sty.bold.Render(sanitize(a.Request.Tool)))
	spec := a.Specifier
	if spec == "" {
		spec = specifier(a.Request.Tool, a.Request.Input, "")
	}
	if spec != "" {
		// The whole specifier: what is approved must be visible, so a
		// long one is wrapped, never cut without saying so.
		lines := strings.Split(wrap(sanitize(spec), w-4), "\n")
		if len(lines) > maxSpecLines {
			n := len(lines) - maxSpecLines + 1
			lines = append(lines[:maxSpecLines-1], m.sty.dim.Render(fmt.Sprintf("… %d more lines", n)))
		}
		for _, l := range lines {
			line("   " + l)
		}
	}
	if reason := a.Result.Reason; reason != "" {
		for _, l := range strings.Split(wrap(sanitize("Reason: "+reason), w-4), "\n") {
			line("   " + m.sty.dim.Render(l))
		}
	}
	switch a.Result.Sandbox {
	case "":
	case sandbox.None:
		line("   " + m.sty.warn.Render("Sandbox: none: the command runs without the kernel sandbox"))
	default:
		line("   " + m.sty.dim.Render("Sandbox: "+string(a.Result.Sandbox)))
	}
	if a.Preview != "" {
		b.WriteString(m.previewView(a.Preview, w, true))
	}
	if a.Plan != "" {
		b.WriteString(m.previewView(planText(a), w, false))
		if n := len(a.PlanPrompts); n > 0 {
			text := fmt.Sprintf("The plan lists %d kind(s) of command it expects to run, after the plan: approving it allows none of them; each call is still checked, and asked about, as usual.", n)
			for _, l := range strings.Split(wrap(text, w-4), "\n") {
				line("   " + m.sty.warn.Render(l))
			}
		}
	}

	if d.editing {
		line("")
		line(m.sty.bold.Render(" Always allow: these rules will be saved to .gen/settings.local.json"))
		line(m.sty.dim.Render(" One rule per line; edit them to broaden or narrow, e.g. Bash(npm run *)."))
		b.WriteString(indent(d.editor.View(), " ") + "\n")
		if a.StillAsks != "" {
			m.stillAsks(&b, a, w)
		}
		if d.err != "" {
			line(" " + m.sty.deny.Render(d.err))
		}
		b.WriteString(clip(m.sty.dim.Render(" Enter to save · Alt+Enter or Ctrl+J for a new line · Esc to go back"), w))
		return b.String()
	}

	line("")
	class := a.Class
	if class == "" {
		class = a.Request.Tool
	}
	labels := []string{
		"Yes",
		"Yes, allow all " + sanitize(class) + " this session",
		"Always allow…",
		"No",
	}
	switch {
	case a.Plan != "":
		line(" Do you approve this plan?")
		labels = []string{
			"Yes, and ask before each edit (default mode)",
			"Yes, and make the edits without asking (acceptEdits mode)",
			"Always allow…",
			"No, keep planning",
		}
	case a.EnterPlan:
		text := "The model proposes plan mode: it would only read and search, and nothing that changes anything would run, until you approve the plan it presents (or switch modes with Shift+Tab)."
		for _, l := range strings.Split(wrap(text, w-2), "\n") {
			line(" " + l)
		}
		line(" Switch to plan mode?")
		labels[0] = "Yes, switch to plan mode"
		labels[3] = "No, stay in " + string(m.mode) + " mode"
	default:
		line(" Do you want to allow this call?")
	}
	for i, l := range labels {
		text := fmt.Sprintf("%d. %s", i+1, l)
		switch why := blocked(a, choices[i]); {
		case why != "":
			line("   " + m.sty.disabled.Render(text+" ("+sanitize(why)+")"))
		case i == d.cursor:
			line(m.sty.selected.Render(" ❯ " + text))
		default:
			line("   " + text)
		}
	}
	if a.StillAsks != "" && blocked(a, gate.Always) == "" {
		m.stillAsks(&b, a, w)
	}
	if d.err != "" {
		line(" " + m.sty.deny.Render(d.err))
	}
	help := " ↑/↓ and Enter, or 1-4 · Esc = No"
	switch {
	case a.Preview != "":
		help += " · PgUp/PgDn scroll the diff"
	case a.Plan != "":
		help += " · PgUp/PgDn scroll the plan"
	}
	b.WriteString(clip(m.sty.dim.Render(help), w))
	return b.String()
}

// stillAsks says that the offered rules do not cover the whole call, and
// what will still ask.
func (m *model) stillAsks(b *strings.Builder, a *gate.Approval, w int) {
	text := fmt.Sprintf("Always allow: the %d offered rule(s) do not cover the whole call; this part will still ask: %s", len(a.Rules), a.StillAsks)
	for _, l := range strings.Split(wrap(sanitize(text), w-4), "\n") {
		b.WriteString(clip("   "+m.sty.warn.Render(l), w) + "\n")
	}
}

// planText is the plan as the dialog shows it: the plan, then what the
// model says carrying it out will run (its allowedPrompts), each on one
// line, so that a description cannot pass for more of the dialog.
func planText(a *gate.Approval) string {
	if len(a.PlanPrompts) == 0 {
		return a.Plan
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(a.Plan, "\n"))
	b.WriteString("\n\nCommands the plan expects to run, in the model's words:")
	for _, p := range a.PlanPrompts {
		b.WriteString("\n  • " + oneLine(p.Tool) + ": " + oneLine(p.Prompt))
	}
	return b.String()
}

// previewView draws the window of the diff (or, not diff, the plan) the
// person scrolled to, a diff's added lines green and removed lines red.
func (m *model) previewView(preview string, w int, diff bool) string {
	lines := strings.Split(sanitize(strings.TrimRight(preview, "\n")), "\n")
	h := m.previewHeight()
	d := &m.dlg
	d.scroll = min(d.scroll, max(len(lines)-h, 0))
	end := min(d.scroll+h, len(lines))

	var b strings.Builder
	b.WriteString("\n")
	for _, l := range lines[d.scroll:end] {
		l = clip(l, w-3)
		switch {
		case !diff:
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			l = m.sty.bold.Render(l)
		case strings.HasPrefix(l, "+"):
			l = m.sty.add.Render(l)
		case strings.HasPrefix(l, "-"):
			l = m.sty.del.Render(l)
		case strings.HasPrefix(l, "@@"):
			l = m.sty.hunk.Render(l)
		}
		b.WriteString("   " + l + "\n")
	}
	if above, below := d.scroll, len(lines)-end; above > 0 || below > 0 {
		b.WriteString(m.sty.dim.Render(fmt.Sprintf("   (%d lines above, %d below: PgUp/PgDn to scroll)", above, below)) + "\n")
	}
	return b.String()
}

// The question dialog: each question's options, then a free-text Other.

func (m *model) focusOther() {
	q := m.requests[0].questions[m.dlg.q]
	if m.dlg.cursor == len(q.Options) {
		m.dlg.other.Focus()
	} else {
		m.dlg.other.Blur()
	}
}

func (m *model) questionKey(k tea.KeyMsg, r *request) tea.Cmd {
	d := &m.dlg
	q := r.questions[d.q]
	other := len(q.Options) // the row of the Other field
	onOther := d.cursor == other
	d.err = ""
	switch k.String() {
	case "esc":
		return m.answer(reply{err: ErrDeclined})
	case "up", "ctrl+p":
		d.cursor = max(d.cursor-1, 0)
		m.focusOther()
		return nil
	case "down", "ctrl+n", "tab":
		d.cursor = min(d.cursor+1, other)
		m.focusOther()
		return nil
	case "enter":
		var ans string
		switch {
		case q.MultiSelect:
			var picked []string
			for i, o := range q.Options {
				if d.checked[i] {
					picked = append(picked, o.Label)
				}
			}
			if t := strings.TrimSpace(d.other.Value()); t != "" {
				picked = append(picked, t)
			}
			ans = strings.Join(picked, ", ")
		case onOther:
			ans = strings.TrimSpace(d.other.Value())
		default:
			ans = q.Options[d.cursor].Label
		}
		if ans == "" {
			d.err = "Choose an option or type an answer (Esc to dismiss the questions)."
			return nil
		}
		return m.nextQuestion(ans)
	}
	if onOther {
		return d.forward(k)
	}
	if k.String() == " " && q.MultiSelect {
		d.checked[d.cursor] = !d.checked[d.cursor]
		return nil
	}
	if k.Type == tea.KeyRunes && len(k.Runes) == 1 && k.Runes[0] >= '1' && k.Runes[0] <= '9' {
		i := int(k.Runes[0] - '1')
		switch {
		case i > other:
		case i == other:
			d.cursor = other
			m.focusOther()
		case q.MultiSelect:
			d.cursor = i
			d.checked[i] = !d.checked[i]
		default:
			return m.nextQuestion(q.Options[i].Label)
		}
	}
	return nil
}

// nextQuestion records ans and shows the next question of the request,
// without a guard: the person is answering this dialog already.
func (m *model) nextQuestion(ans string) tea.Cmd {
	d := &m.dlg
	d.answers = append(d.answers, ans)
	qs := m.requests[0].questions
	if len(d.answers) == len(qs) {
		return m.answer(reply{answers: d.answers})
	}
	q, answers := d.q+1, d.answers
	m.resetDialog()
	m.dlg.q, m.dlg.answers = q, answers
	m.dlg.quiet, m.dlg.enterOK = time.Time{}, true
	m.focusOther()
	return nil
}

func (m *model) questionView(r *request, w int) string {
	d := &m.dlg
	q := r.questions[d.q]
	var b strings.Builder
	line := func(s string) { b.WriteString(clip(s, w) + "\n") }

	line(m.sty.title.Render(strings.Repeat("─", w)))
	head := " "
	if q.Header != "" {
		head += m.sty.header.Render(" "+sanitize(q.Header)+" ") + " "
	}
	if len(r.questions) > 1 {
		head += m.sty.dim.Render(fmt.Sprintf("question %d of %d", d.q+1, len(r.questions)))
	}
	if strings.TrimSpace(head) != "" {
		line(head)
	}
	for _, l := range strings.Split(wrap(sanitize(q.Question), w-2), "\n") {
		line(" " + m.sty.bold.Render(l))
	}
	for i, o := range q.Options {
		mark := ""
		if q.MultiSelect {
			mark = "[ ] "
			if d.checked[i] {
				mark = "[x] "
			}
		}
		text := fmt.Sprintf("%d. %s%s", i+1, mark, sanitize(o.Label))
		if o.Description != "" {
			text += m.sty.dim.Render("  " + oneLine(o.Description))
		}
		if i == d.cursor {
			line(m.sty.selected.Render(" ❯ ") + text)
		} else {
			line("   " + text)
		}
	}
	pre := "   "
	if d.cursor == len(q.Options) {
		pre = m.sty.selected.Render(" ❯ ")
	}
	line(pre + fmt.Sprintf("%d. Other: ", len(q.Options)+1) + d.other.View())
	if d.err != "" {
		line(" " + m.sty.deny.Render(d.err))
	}
	help := " ↑/↓ and Enter, or a digit · Esc to dismiss"
	if q.MultiSelect {
		help = " ↑/↓ · Space or a digit to tick · Enter to confirm · Esc to dismiss"
	}
	b.WriteString(clip(m.sty.dim.Render(help), w))
	return b.String()
}
