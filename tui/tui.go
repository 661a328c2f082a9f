// Package tui is gen's interactive terminal user interface: a prompt, the
// streamed transcript of each turn with one line per tool call and its
// permission decision, the approval dialog the permission gate opens when it
// decides Ask, the AskUserQuestion dialog, mode cycling and the slash
// commands, the built-in ones and the custom ones package skill reads.
//
// The UI drives an Engine (package session implements it) and is itself the
// session's gate.Approver and tool.Asker: those are called from the
// engine's goroutines, hand their question to the Bubble Tea program and
// block until the person answers or the caller's context ends. It sits on
// loop (events), gate (the approval types), policy (rule views) and skill
// (custom commands); it does not import session.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/tool"
)

// Engine is the main-loop session the UI drives. Package session
// implements it.
//
// The UI calls the methods other than Submit from its own goroutine, also
// while a Submit is running (a person may cycle the mode or list the rules
// during a turn), so an implementation must be safe for that.
type Engine interface {
	// Submit runs one user turn of the conversation; the engine keeps the
	// history. It blocks until the turn ends, and cancelling ctx
	// interrupts it. onEvent and onText may be called from other
	// goroutines, but not concurrently with themselves.
	Submit(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(delta string)) (loop.Outcome, error)
	Mode() perm.Mode
	// CycleMode switches to the next main-loop mode, skipping modes the
	// session may not switch to (Modes), and returns it.
	CycleMode() perm.Mode
	SetMode(m perm.Mode) error
	// Modes returns the main-loop modes the session may switch to now,
	// in cycle order.
	Modes() []perm.Mode
	ModelName() string
	AddDir(path string) error
	// AllowPattern adds a session allow rule (/allow-pattern).
	AllowPattern(rule string) error
	// Rules returns the effective rules with their scopes.
	Rules() []policy.RuleView
	// AddRule writes rule to list (allow, ask or deny) of the settings
	// file of scope (local, project or user); RemoveRule removes it.
	AddRule(scope perm.Source, list, rule string) error
	RemoveRule(scope perm.Source, list, rule string) error
	Agents() []*agent.Definition
	// Tools returns the exact tool catalog the model sees now.
	Tools() []string
}

// notifier is an Engine that tells of what awaits the person
// (Notification hooks): the prompt idle after a turn (idle_prompt).
// Notify returns at once.
type notifier interface {
	Notify(ctx context.Context, message, typ string)
}

// idleNotice is how long the prompt waits for the person after a turn
// before the engine is told (notifier), as in Claude Code.
const idleNotice = 60 * time.Second

// starter is an Engine whose session starts when the UI opens
// (SessionStart hooks). Start may take as long as its hooks, so the UI
// calls it beside the program; a turn submitted meanwhile waits for it.
type starter interface {
	Start(ctx context.Context)
}

// ender is an Engine whose session ends when the UI does (SessionEnd
// hooks), told why: prompt_input_exit when the person left the prompt.
type ender interface {
	End(ctx context.Context, reason string)
}

// Options configure a UI.
type Options struct {
	// In is where key presses are read from; nil means os.Stdin. When it
	// is a terminal, it is put in raw mode while Run runs.
	In io.Reader
	// Out is where the UI is drawn; nil means os.Stdout. Colours are used
	// only when it is a terminal that supports them.
	Out io.Writer
	// Commands are the custom slash commands; nil means none. They must
	// be loaded with Builtins() reserved (skill.LoadCommands), so that
	// built-in commands take precedence over them.
	Commands *skill.Commands
}

// UI is the terminal user interface. Its Approve and AskQuestions methods
// may be called from any goroutine; they only get an answer while Run runs.
type UI struct {
	in   io.Reader
	out  io.Writer
	cmds *skill.Commands
	sty  styles
	// guard is how long a dialog ignores keys after it opens (dialogGuard;
	// tests of the real program set 0).
	guard time.Duration
	// idle is how long the prompt waits after a turn before the engine
	// is told the person is awaited (idleNotice; tests set less).
	idle time.Duration

	mu     sync.Mutex
	prog   *tea.Program  // the running program; nil outside Run
	done   chan struct{} // closed when the running program has ended
	nextID uint64
	// warnings are those Warn was given that the screen has not shown.
	warnings []string
}

// Compile-time checks that UI is what the session needs.
var (
	_ gate.Approver = (*UI)(nil)
	_ tool.Asker    = (*UI)(nil)
)

// New returns a UI reading opts.In and drawing on opts.Out.
func New(opts Options) *UI {
	u := &UI{in: opts.In, out: opts.Out, cmds: opts.Commands, guard: dialogGuard, idle: idleNotice}
	if u.in == nil {
		u.in = os.Stdin
	}
	if u.out == nil {
		u.out = os.Stdout
	}
	u.sty = newStyles(lipgloss.NewRenderer(u.out))
	return u
}

// ErrClosed is returned by Approve and AskQuestions when no UI is running
// to ask, or when it ends before the person answered. The call asked
// about is then denied.
var ErrClosed = errors.New("tui: the terminal UI is not running")

// ErrDeclined is returned by AskQuestions when the person dismisses the
// questions without answering.
var ErrDeclined = errors.New("tui: the user declined to answer")

// turnGrace bounds how long Run waits, after the program ended, for an
// interrupted turn to return from Engine.Submit.
const turnGrace = 3 * time.Second

// Run runs the UI on e until the person types /exit or presses Ctrl+C
// twice, or until ctx ends (then it returns ctx's error). A turn still
// running is interrupted, and Run waits a short while for it to end.
func (u *UI) Run(ctx context.Context, e Engine) error {
	if e == nil {
		return errors.New("tui: Run needs an Engine")
	}
	pr := newPrinter()
	m := newModel(ctx, e, u.sty)
	m.guard, m.cmds, m.idle = u.guard, u.cmds, u.idle
	m.print = pr.add
	m.warnings = u.takeWarnings
	m.replay()
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(u.in), tea.WithOutput(u.out), tea.WithFilter(pr.filter))
	m.send = p.Send

	u.mu.Lock()
	if u.prog != nil {
		u.mu.Unlock()
		return errors.New("tui: Run is already running")
	}
	done := make(chan struct{})
	u.prog, u.done = p, done
	u.mu.Unlock()
	// Those given before Run (the session's start), taken once u.prog
	// is set: a Warn from now on sends for itself. The model is still
	// this goroutine's alone until p.Run.
	m.showWarnings()

	started := make(chan struct{})
	startCtx, stopStart := context.WithCancel(ctx)
	defer stopStart()
	if st, ok := e.(starter); ok {
		go func() {
			defer close(started)
			st.Start(startCtx)
		}()
	} else {
		close(started)
	}
	pctx, stop := context.WithCancel(ctx)
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		pr.run(pctx, p.Send)
	}()
	_, err := p.Run()
	stop()
	<-printed

	u.mu.Lock()
	u.prog, u.done = nil, nil
	close(done) // pending Approve and AskQuestions calls return ErrClosed
	u.mu.Unlock()

	// No Update runs any more, so the model may be touched here.
	m.shutdown()
	if m.turnDone != nil {
		select {
		case <-m.turnDone:
		case <-time.After(turnGrace):
		}
	}
	pr.flush(u.out)
	// SessionStart hooks still running as the person leaves are
	// stopped: the wait ends as their process groups are killed.
	stopStart()
	<-started
	if en, ok := e.(ender); ok {
		reason := "prompt_input_exit"
		if err != nil && !errors.Is(err, tea.ErrInterrupted) {
			reason = "other"
		}
		en.End(ctx, reason)
	}
	// Warnings given as the program ended (a transcript that could not
	// be saved at exit, what SessionEnd hooks said) are printed below it
	// rather than lost.
	for _, w := range u.takeWarnings() {
		fmt.Fprintln(u.out, u.sty.warn.Render("warning: "+w))
	}

	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return fmt.Errorf("tui: %w", err)
}

// Warn shows warning w (of the settings, agent files, hooks, skills...)
// in the transcript: at once while Run runs, else when it starts. It may
// be called from any goroutine, and never waits for the screen.
func (u *UI) Warn(w string) {
	u.mu.Lock()
	u.warnings = append(u.warnings, w)
	p := u.prog
	u.mu.Unlock()
	if p != nil {
		// Send waits for the program to take the message, which must
		// not hold up a hook or a turn, nor Update itself if a command
		// warns; it returns when the program ends, too.
		go p.Send(warnedMsg{})
	}
}

// takeWarnings returns the warnings not yet shown, oldest first, and
// forgets them.
func (u *UI) takeWarnings() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	w := u.warnings
	u.warnings = nil
	return w
}

// Approve implements gate.Approver: it shows the approval dialog and
// blocks until the person answers or ctx ends. Any error means the call
// is denied, and the Answer is then No.
func (u *UI) Approve(ctx context.Context, a gate.Approval) (gate.Reply, error) {
	rep, err := u.ask(ctx, func(r *request) { r.approval = &a })
	if err != nil {
		return gate.Reply{Choice: gate.No}, err
	}
	if rep.err != nil {
		return gate.Reply{Choice: gate.No}, rep.err
	}
	return rep.answer, nil
}

// AskQuestions implements tool.Asker: it shows each question in turn and
// returns the answers in question order, or an error when the person
// dismissed them or ctx ended.
func (u *UI) AskQuestions(ctx context.Context, qs []tool.Question) ([]string, error) {
	if len(qs) == 0 {
		return nil, errors.New("tui: no questions to ask")
	}
	for i, q := range qs {
		if strings.TrimSpace(q.Question) == "" {
			return nil, fmt.Errorf("tui: question %d is empty", i+1)
		}
	}
	rep, err := u.ask(ctx, func(r *request) { r.questions = qs })
	if err != nil {
		return nil, err
	}
	return rep.answers, rep.err
}

// ask hands one request to the running program and waits for its reply.
func (u *UI) ask(ctx context.Context, fill func(*request)) (reply, error) {
	if err := ctx.Err(); err != nil {
		return reply{}, err
	}
	u.mu.Lock()
	p, done := u.prog, u.done
	u.nextID++
	r := &request{id: u.nextID, reply: make(chan reply, 1)}
	u.mu.Unlock()
	if p == nil {
		return reply{}, ErrClosed
	}
	fill(r)
	p.Send(requestMsg{r})
	select {
	case rep := <-r.reply:
		return rep, nil
	case <-ctx.Done():
		// Close the dialog; the program may be gone already, so this
		// must not block the caller.
		go p.Send(withdrawMsg{r.id})
		return reply{}, ctx.Err()
	case <-done:
		return reply{}, ErrClosed
	}
}

// request is one question for the person: an approval or a list of
// AskUserQuestion questions.
type request struct {
	id        uint64
	approval  *gate.Approval
	questions []tool.Question
	// reply has room for the one reply, so the model never blocks on a
	// caller that has stopped waiting.
	reply chan reply
}

type reply struct {
	answer  gate.Reply
	answers []string
	err     error
}

// respond delivers the reply; only the first one counts.
func (r *request) respond(rep reply) {
	select {
	case r.reply <- rep:
	default:
	}
}

// printer hands finished transcript lines to the program in order. Bubble
// Tea runs commands on goroutines of their own, so lines printed with
// tea.Println commands from successive updates could overtake each other.
type printer struct {
	mu    sync.Mutex
	queue []string
	wake  chan struct{}
	// sent is what run has sent the program and the program's event
	// loop has not yet received (filter): a program that ends before it
	// does drops it, so flush writes it.
	sent []string
}

func newPrinter() *printer { return &printer{wake: make(chan struct{}, 1)} }

// add queues s, which may hold several lines. It never blocks.
func (p *printer) add(s string) {
	p.mu.Lock()
	p.queue = append(p.queue, s)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *printer) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queue
	p.queue = nil
	return q
}

// printMsg asks the program to print what run sent; filter turns it
// into Bubble Tea's own print message as the event loop receives it.
type printMsg struct{}

// run hands queued lines to the program, through send (Program.Send),
// until ctx ends.
func (p *printer) run(ctx context.Context, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		if q := p.take(); len(q) > 0 {
			p.mu.Lock()
			p.sent = append(p.sent, q...)
			p.mu.Unlock()
			send(printMsg{})
		}
	}
}

// filter is the program's message filter (tea.WithFilter), which its
// event loop calls on each message it receives: a printMsg becomes the
// print of every line sent so far, which the renderer then holds and
// writes as it stops, even if the program quits next. Lines it never
// received stay in sent for flush. (A program killed by its context's
// end stops its renderer without that last write: the lines of its last
// frame may then be lost.)
func (p *printer) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(printMsg); !ok {
		return msg
	}
	p.mu.Lock()
	lines := p.sent
	p.sent = nil
	p.mu.Unlock()
	if len(lines) == 0 {
		return nil
	}
	return tea.Println(strings.Join(lines, "\n"))()
}

// flush writes what the program did not get to print: the lines it was
// sent but never received, then those never sent.
func (p *printer) flush(w io.Writer) {
	p.mu.Lock()
	lines := append(p.sent, p.queue...)
	p.sent, p.queue = nil, nil
	p.mu.Unlock()
	for _, s := range lines {
		fmt.Fprintln(w, s)
	}
}
