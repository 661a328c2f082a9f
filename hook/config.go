// Package hook runs the user's hook commands around tool calls and the
// session, in Claude Code's shape: the "hooks" key of a settings file maps
// an event to matcher groups, each a list of commands that receive the
// event as JSON on stdin and answer with an exit code and, optionally,
// JSON on stdout.
//
//	{"PreToolUse": [{"matcher": "Bash|Edit",
//	                 "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}
//
// The package only runs hooks and reports what they said (an Outcome). It
// decides nothing by itself: the caller combines an Outcome with the
// permission gate's result (ApplyPreToolUse, ApplyPermissionRequest), and
// those functions keep the security invariants written on Verdict.
package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gen-run/gen/internal/jsonpos"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// Event names a point at which hooks run.
type Event string

// The events gen runs hooks for.
const (
	// PreToolUse runs before the permission gate, for every tool call.
	PreToolUse Event = "PreToolUse"
	// PermissionRequest runs only when the gate says Ask, before a person
	// is asked or (headless, subagents) Ask becomes Deny.
	PermissionRequest Event = "PermissionRequest"
	// PermissionDenied runs when a call is finally denied.
	PermissionDenied Event = "PermissionDenied"
	// PostToolUse runs after a tool has run.
	PostToolUse Event = "PostToolUse"
	// PostToolUseFailure runs after a tool the gate allowed failed; what
	// its hooks add is told to the model with the error.
	PostToolUseFailure Event = "PostToolUseFailure"
	// Notification runs when gen wants the person's attention: a
	// permission dialog opens (notification_type permission_prompt), or
	// the prompt has waited idle after a turn (idle_prompt). It only
	// reports, and runs beside what awaits the person.
	Notification Event = "Notification"
	// UserPromptSubmit runs when a prompt is submitted, before the model
	// sees it.
	UserPromptSubmit Event = "UserPromptSubmit"
	// Stop runs when the main agent is about to finish its answer.
	Stop Event = "Stop"
	// SubagentStop runs when a subagent is about to finish.
	SubagentStop Event = "SubagentStop"
	// SessionStart runs when a session starts.
	SessionStart Event = "SessionStart"
	// SubagentStart runs when a subagent starts, before its model is
	// first asked; its hooks' additionalContext goes into the
	// subagent's system prompt. It cannot block.
	SubagentStart Event = "SubagentStart"
	// SessionEnd runs when a session whose SessionStart hooks ran ends.
	// It only reports: its hooks decide nothing.
	SessionEnd Event = "SessionEnd"
)

// Events lists every event, in lifecycle order.
var Events = []Event{SessionStart, UserPromptSubmit, SubagentStart, PreToolUse, PermissionRequest, Notification, PermissionDenied, PostToolUse, PostToolUseFailure, SubagentStop, Stop, SessionEnd}

// claudeEvents are Claude Code's hook events that gen has no twin for and
// whose hooks could decide nothing gen does: they concern what gen does
// not have (context compaction, agent teams, worktrees, MCP elicitation, a
// setup run) or only report (InstructionsLoaded). Parse accepts their hooks and
// never runs them (Config.Ignored lists them for a warning), so that the
// settings of a Claude Code user load; any other unknown name stays an
// error.
var claudeEvents = []string{
	"PreCompact", "PostCompact", "Setup", "TeammateIdle", "InstructionsLoaded",
	"WorktreeCreate", "WorktreeRemove", "Elicitation", "ElicitationResult",
}

// claudeGates are Claude Code's hook events that gen has no twin for whose
// hooks can refuse what gen does too (a settings change, a task marked
// completed): a refusal gen would not honour must not pass silently, so
// they stay errors, with a message saying why.
var claudeGates = []string{"ConfigChange", "TaskCompleted"}

// toolEvent reports whether e concerns one tool call (its matcher is
// tested against the tool name).
func (e Event) toolEvent() bool {
	switch e {
	case PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure:
		return true
	}
	return false
}

// DefaultTimeout bounds a hook whose configuration sets no timeout.
const DefaultTimeout = 60 * time.Second

// maxTimeout bounds the timeout a configuration may set: headless runs
// must never wait without a bound a person would call reasonable.
const maxTimeout = 24 * time.Hour

// SessionEnd hooks run as gen exits, while the person waits for their
// shell: as in Claude Code, they share one budget, endBudget, raised to
// the longest timeout one of them sets, up to maxEndBudget, unless
// EndBudgetEnv sets it (up to maxEndBudget too). A hook that sets no
// timeout gets the budget, not DefaultTimeout.
const (
	endBudget    = 1500 * time.Millisecond
	maxEndBudget = time.Minute
)

// sessionEndBudget is how long the SessionEnd hooks hs may run, together.
func sessionEndBudget(hs []Handler) time.Duration {
	b := endBudget
	for _, h := range hs {
		b = max(b, min(h.Timeout, maxEndBudget))
	}
	return b
}

// EndBudgetEnv is the variable that sets the SessionEnd hooks' budget
// explicitly, in milliseconds, as it does in Claude Code.
const EndBudgetEnv = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"

// EndBudgetFromEnv returns the SessionEnd hooks' budget EndBudgetEnv sets
// (Runner.EndBudget), reading it with lookup (os.LookupEnv outside
// tests); 0 when it is unset or empty. A value that is not a whole
// number of milliseconds from 1 to maxEndBudget is an error naming the
// variable: gen waits for these hooks as it exits, and must not be told
// to wait without a bound, nor to wait a different time than was meant.
func EndBudgetFromEnv(lookup func(string) (string, bool)) (time.Duration, error) {
	v, ok := lookup(EndBudgetEnv)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, nil
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || ms < 1 || ms > maxEndBudget.Milliseconds() {
		return 0, fmt.Errorf("%s=%q: must be a whole number of milliseconds from 1 to %d (a minute)", EndBudgetEnv, v, maxEndBudget.Milliseconds())
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// Handler is one hook command.
type Handler struct {
	// Command is run with bash -c.
	Command string
	// Timeout is how long the command may run; 0 means DefaultTimeout.
	Timeout time.Duration
	// Source is the settings scope the hook came from. Parse leaves it
	// empty; WithSource sets it. Callers drop hooks of untrusted scopes
	// with Filter before running anything.
	Source perm.Source
	// Origin names the file and key the hook was configured at, for
	// warnings: ".gen/settings.json: hooks.PreToolUse[0].hooks[1]".
	Origin string
	// Guard marks a hook kept only to refuse (Config.Guards): the command
	// line left its settings out. Its deny, ask, block and "continue":
	// false stand; its allow and updatedPermissions are not taken, and an
	// updatedInput, the call it would run instead, is asked about.
	Guard bool
	// If is Claude Code's "if" of a tool event's hook, a permission rule
	// (Bash(git *)): the hook runs only for a call the rule may match,
	// read as a deny rule reads a call (every form of it), and its allow
	// counts only for a call the rule matches as an allow rule would
	// (Runner.ifMatch). nil runs the hook for every call its matcher
	// selects.
	If *perm.Rule
}

// Group is a matcher and the hooks that run when it matches.
type Group struct {
	// Matcher is the matcher as written. See Matches.
	Matcher string
	Hooks   []Handler

	names []string       // exact names, when the matcher is a plain list
	re    *regexp.Regexp // otherwise, when it is not empty or "*"
	whole *regexp.Regexp // re, matching only the whole subject
	// tools is set for a tool event's group, whose matcher names tools:
	// Task, Claude Code's old name for Agent, names Agent there.
	tools bool
}

// Config is the hooks of one or more settings files. The zero Config has
// no hooks. A Config is never modified after it is built, so it is safe
// for concurrent use.
type Config struct {
	groups map[Event][]Group
	// ignored are the claudeEvents the configuration names, sorted.
	ignored []string
}

// plainMatcher is a matcher made only of names and "|": a list of exact
// names rather than a regular expression (so "Bash" does not match
// "BashOutput"), as Claude Code reads it.
var plainMatcher = lazyre.MustCompile(`^[A-Za-z0-9_|]+$`)

// compile prepares g's matcher.
func (g *Group) compile() error {
	m := g.Matcher
	switch {
	case m == "" || m == "*":
	case plainMatcher.Get().MatchString(m):
		for n := range strings.SplitSeq(m, "|") {
			if n != "" {
				g.names = append(g.names, n)
			}
		}
	default:
		re, err := regexp.Compile(m)
		if err != nil {
			return err
		}
		whole, err := regexp.Compile(`^(?:` + m + `)$`)
		if err != nil {
			return err
		}
		g.re, g.whole = re, whole
	}
	return nil
}

// MatchesWhole reports whether the group applies to subject with its
// matcher matching all of it: always as Matches for an empty matcher,
// "*" or a list of names; for a regular expression, matching the whole
// subject rather than somewhere in it. "mcp__github__.*" matches
// mcp__evil__mcp__github__x, a tool of server evil, only in part.
func (g *Group) MatchesWhole(subject string) bool {
	if g.re == nil {
		return g.Matches(subject)
	}
	return g.whole.MatchString(subject) || g.tools && subject == "Agent" && g.whole.MatchString("Task")
}

// Matches reports whether the group applies to subject (a tool name, a
// SessionStart source, a subagent type, a SessionEnd reason). An empty matcher or "*" matches
// everything; a matcher of only letters, digits, "_" and "|" is a list of
// exact names; anything else is a regular expression that must match
// somewhere in subject ("mcp__github__.*", "Notebook.*").
func (g *Group) Matches(subject string) bool {
	return g.match(subject) || g.tools && subject == "Agent" && g.match("Task")
}

func (g *Group) match(subject string) bool {
	switch {
	case g.re != nil:
		return g.re.MatchString(subject)
	case g.names != nil:
		return slices.Contains(g.names, subject)
	}
	return true
}

// ParseError is a problem in a hooks configuration.
type ParseError struct {
	// Origin is the file the configuration came from.
	Origin string
	// Key is the JSON path of the offending value, such as
	// hooks.PreToolUse[0].matcher.
	Key string
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s: %s: %s", e.Origin, e.Key, e.Msg) }

// Parse parses the value of the "hooks" key of the settings file origin:
// an object mapping events to lists of matcher groups. Anything it does not
// understand is an error naming origin and the key — an unknown event or
// key, a matcher that is not a valid regular expression, a hook type other
// than "command", a bad timeout — so a mistyped hook never silently stops
// running. Claude Code's events that gen has no twin for (claudeEvents)
// are not errors: their hooks are left out, and Ignored names them. A JSON
// null or empty raw is an empty Config.
func Parse(origin string, raw json.RawMessage) (Config, error) {
	p := parser{origin: origin}
	c := Config{groups: map[Event][]Group{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return Config{}, p.errorf("hooks", "must be an object mapping event names to lists of matcher groups")
	}
	if err := p.duplicates(raw); err != nil {
		return Config{}, err
	}
	keys := make([]string, 0, len(events))
	for k := range events {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first error found does not depend on map order
	for _, name := range keys {
		ev := Event(name)
		if slices.Contains(claudeEvents, name) {
			c.ignored = append(c.ignored, name)
			continue
		}
		if slices.Contains(claudeGates, name) {
			return Config{}, p.errorf("hooks."+name, "gen has no %s event (a Claude Code one), and a hook there could refuse what gen would do without asking it; remove the hook", name)
		}
		if !slices.Contains(Events, ev) {
			return Config{}, p.errorf("hooks."+name, "unknown hook event (want one of %s)", eventList())
		}
		gs, err := p.groups(ev, "hooks."+name, events[name])
		if err != nil {
			return Config{}, err
		}
		if len(gs) > 0 {
			c.groups[ev] = gs
		}
	}
	return c, nil
}

// Ignored returns the events of Claude Code's that the configuration
// names and whose hooks gen never runs (see claudeEvents), sorted. Only
// Parse and ParseAgent set them, for the caller to warn about.
func (c Config) Ignored() []string { return c.ignored }

// IgnoredNote is the warning about the hooks of ev, one of Ignored.
func IgnoredNote(ev string) string {
	return fmt.Sprintf("hooks.%s: gen has no %s event (a Claude Code one); its hooks never run", ev, ev)
}

func eventList() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

type parser struct{ origin string }

func (p parser) errorf(key, format string, args ...any) error {
	return &ParseError{Origin: p.origin, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// duplicates refuses a key given twice in one object anywhere in raw,
// the hooks configuration, naming its key path. encoding/json, which the
// parser reads with, keeps the last silently: {"PreToolUse": [guard],
// "PreToolUse": []} dropped the guard hook, and two "command"s ran the
// second; which one applies must not be a guess, as for every other key
// of a settings file.
func (p parser) duplicates(raw json.RawMessage) error {
	v, err := jsonpos.Decode(p.origin, raw)
	if err != nil {
		return nil // json.Unmarshal read it: cannot happen
	}
	var walk func(v *jsonpos.Value, key string) error
	walk = func(v *jsonpos.Value, key string) error {
		seen := make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			if seen[m.Key] {
				return p.errorf(key+"."+m.Key, "duplicate key: a JSON object keeps only one of them, so which applies would be a guess; remove one")
			}
			seen[m.Key] = true
			if err := walk(m.Val, key+"."+m.Key); err != nil {
				return err
			}
		}
		for i, el := range v.Elems {
			if err := walk(el, fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(v, "hooks")
}

// object decodes raw as a JSON object whose keys must all be in known.
func (p parser) object(key string, raw json.RawMessage, what string, known ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, p.errorf(key, "must be %s", what)
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, p.errorf(key+"."+unknown[0], "unknown key (want one of %s)", strings.Join(known, ", "))
	}
	return m, nil
}

func (p parser) groups(ev Event, key string, raw json.RawMessage) ([]Group, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, p.errorf(key, "must be a list of matcher groups")
	}
	var out []Group
	for i, item := range items {
		gk := fmt.Sprintf("%s[%d]", key, i)
		m, err := p.object(gk, item, `an object with "matcher" and "hooks"`, "matcher", "hooks")
		if err != nil {
			return nil, err
		}
		var g Group
		if v, ok := m["matcher"]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, &g.Matcher); err != nil {
				return nil, p.errorf(gk+".matcher", "must be a string")
			}
		}
		if ev.toolEvent() {
			// A tool event matches tool names; other events match a
			// SessionStart source, a subagent type or a SessionEnd
			// reason.
			if err := checkToolMatcher(g.Matcher); err != nil {
				return nil, p.errorf(gk+".matcher", "%v", err)
			}
			g.tools = true
		}
		if err := g.compile(); err != nil {
			return nil, p.errorf(gk+".matcher", "invalid regular expression %q: %v", g.Matcher, err)
		}
		hs, ok := m["hooks"]
		if !ok {
			return nil, p.errorf(gk, `missing "hooks"`)
		}
		var hooks []json.RawMessage
		if err := json.Unmarshal(hs, &hooks); err != nil {
			return nil, p.errorf(gk+".hooks", "must be a list of hooks")
		}
		for j, h := range hooks {
			hk := fmt.Sprintf("%s.hooks[%d]", gk, j)
			hd, err := p.handler(ev, hk, h)
			if err != nil {
				return nil, err
			}
			g.Hooks = append(g.Hooks, hd)
		}
		if len(g.Hooks) > 0 {
			out = append(out, g)
		}
	}
	return out, nil
}

func (p parser) handler(ev Event, key string, raw json.RawMessage) (Handler, error) {
	// statusMessage is Claude Code's text for its spinner while the hook
	// runs: cosmetic, so accepted and not shown. if narrows which calls
	// the hook runs for (Handler.If). shell "bash" and async false are
	// what gen does anyway; other values of them, and Claude Code's other
	// keys (once, ...), change when or how a hook decides, and are errors.
	m, err := p.object(key, raw, `an object with "type" and "command"`, "type", "command", "timeout", "statusMessage", "if", "shell", "async")
	if err != nil {
		return Handler{}, err
	}
	if v, ok := m["shell"]; ok {
		var sh string
		if err := json.Unmarshal(v, &sh); err != nil || sh != "bash" {
			return Handler{}, p.errorf(key+".shell", `gen runs hooks with bash only (want "bash", or no shell)`)
		}
	}
	if v, ok := m["async"]; ok {
		var async bool
		if err := json.Unmarshal(v, &async); err != nil || async {
			return Handler{}, p.errorf(key+".async", "gen waits for every hook (want false, or no async): a hook run in the background could not refuse what it guards")
		}
	}
	var cond *perm.Rule
	if v, ok := m["if"]; ok {
		var text string
		if err := json.Unmarshal(v, &text); err != nil {
			return Handler{}, p.errorf(key+".if", "must be a string: a permission rule, such as \"Bash(git *)\"")
		}
		if !ev.toolEvent() {
			return Handler{}, p.errorf(key+".if", "applies to the hooks of tool events only, not %s", ev)
		}
		rule, err := perm.ParseRule(text)
		if err != nil {
			return Handler{}, p.errorf(key+".if", "%v", err)
		}
		cond = &rule
	}
	if v, ok := m["statusMessage"]; ok {
		var msg string
		if err := json.Unmarshal(v, &msg); err != nil {
			return Handler{}, p.errorf(key+".statusMessage", "must be a string")
		}
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ == "" {
		return Handler{}, p.errorf(key+".type", `missing or not a string (want "command")`)
	}
	if typ != "command" {
		return Handler{}, p.errorf(key+".type", `unsupported hook type %q (gen runs only "command" hooks)`, typ)
	}
	h := Handler{Origin: p.origin + ": " + key, If: cond}
	if err := json.Unmarshal(m["command"], &h.Command); err != nil || strings.TrimSpace(h.Command) == "" {
		return Handler{}, p.errorf(key+".command", "missing, empty or not a string")
	}
	if v, ok := m["timeout"]; ok {
		// The bound is checked on the seconds, before converting: a
		// conversion of 1e10 seconds overflows to a negative Duration.
		// A timeout that rounds to no time at all would be the default.
		var secs float64
		if err := json.Unmarshal(v, &secs); err != nil || !(secs > 0 && secs <= maxTimeout.Seconds()) ||
			time.Duration(secs*float64(time.Second)) <= 0 {
			return Handler{}, p.errorf(key+".timeout", "must be a positive number of seconds, at most %d", int(maxTimeout.Seconds()))
		}
		h.Timeout = time.Duration(secs * float64(time.Second))
	}
	return h, nil
}

// WithSource returns a copy of c whose hooks all carry source s.
func (c Config) WithSource(s perm.Source) Config {
	return c.mapHandlers(func(h Handler) (Handler, bool) {
		h.Source = s
		return h, true
	})
}

// Filter returns the hooks of c whose source keep accepts. Callers use it
// to drop the hooks of an untrusted project (project and local scopes) and
// to keep only managed hooks under allowManagedHooksOnly.
func (c Config) Filter(keep func(perm.Source) bool) Config {
	return c.mapHandlers(func(h Handler) (Handler, bool) { return h, keep(h.Source) })
}

func (c Config) mapHandlers(f func(Handler) (Handler, bool)) Config {
	out := Config{groups: map[Event][]Group{}}
	for ev, gs := range c.groups {
		for _, g := range gs {
			ng := g
			ng.Hooks = nil
			for _, h := range g.Hooks {
				if h, ok := f(h); ok {
					ng.Hooks = append(ng.Hooks, h)
				}
			}
			if len(ng.Hooks) > 0 {
				out.groups[ev] = append(out.groups[ev], ng)
			}
		}
	}
	return out
}

// Guards returns the PreToolUse and PermissionRequest hooks of c as
// guards (Handler.Guard). The user's hooks, where the command line
// leaves them out (--setting-sources, a --settings that sets
// disableAllHooks), still guard the calls, as the user's deny and ask
// rules still apply: a user's guard is policy a command line cannot swap
// out.
func (c Config) Guards() Config {
	out := Config{groups: map[Event][]Group{}}
	for _, ev := range []Event{PreToolUse, PermissionRequest} {
		for _, g := range c.groups[ev] {
			ng := g
			ng.Hooks = make([]Handler, len(g.Hooks))
			for i, h := range g.Hooks {
				h.Guard = true
				ng.Hooks[i] = h
			}
			out.groups[ev] = append(out.groups[ev], ng)
		}
	}
	return out
}

// Merge returns every hook of cs, the groups of each event in argument
// order. Hooks of all scopes run (none overrides another); the order only
// makes the combination of their answers and the order of warnings
// deterministic. Pass the scopes highest precedence first.
func Merge(cs ...Config) Config {
	out := Config{groups: map[Event][]Group{}}
	for _, c := range cs {
		for ev, gs := range c.groups {
			out.groups[ev] = append(out.groups[ev], gs...)
		}
	}
	return out
}

// Has reports whether any hook is configured for ev.
func (c Config) Has(ev Event) bool { return len(c.groups[ev]) > 0 }

// Matching returns the hooks of ev whose group matches subject, in
// configuration order, without duplicates: a command configured twice (in
// two scopes, say) runs once, as the first occurrence. For UserPromptSubmit
// and Stop, which have no subject, matchers are ignored.
func (c Config) Matching(ev Event, subject string) []Handler {
	ms := c.matching(ev, subject)
	out := make([]Handler, len(ms))
	for i, m := range ms {
		out[i] = m.Handler
	}
	return out
}

// match is a hook Matching returns; partial when no group it is in
// matches the whole subject (Group.MatchesWhole).
type match struct {
	Handler
	partial bool
	// unsureIf: the call may match the hook's if, but not as an allow
	// rule would (Runner.ifMatch).
	unsureIf bool
}

func (c Config) matching(ev Event, subject string) []match {
	var out []match
	for _, g := range c.groups[ev] {
		if ev != UserPromptSubmit && ev != Stop && !g.Matches(subject) {
			continue
		}
		partial := ev != UserPromptSubmit && ev != Stop && !g.MatchesWhole(subject)
		for _, h := range g.Hooks {
			if i := slices.IndexFunc(out, func(o match) bool { return o.Command == h.Command && sameIf(o.If, h.If) }); i >= 0 {
				out[i].partial = out[i].partial && partial
			} else {
				out = append(out, match{Handler: h, partial: partial})
			}
		}
	}
	return out
}

// sameIf reports whether two hooks' if rules are the same (both absent,
// or the same text): a command configured twice runs once only where
// both run for the same calls.
func sameIf(a, b *perm.Rule) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
}
