package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
)

// commands are the slash commands, in the order /help lists them.
var commands = []struct{ usage, help string }{
	{"/permissions", "list the effective rules with their scopes"},
	{"/permissions add SCOPE LIST RULE", "save a rule (SCOPE: local, project, user;"},
	{"", "LIST: allow, ask, deny)"},
	{"/permissions remove SCOPE LIST RULE", "remove a saved rule"},
	{"/add-dir PATH", "let file tools work in PATH this session"},
	{"/allow-pattern RULE", "allow calls matching RULE for this session"},
	{"/mode [NAME]", "show the permission mode, or switch to NAME"},
	{"/agents", "list the agents the model can delegate to"},
	{"/tools", "list the tools the model sees"},
	{"/help", "show this help"},
	{"/exit", "leave gen (or press Ctrl+C twice)"},
}

// handlers run the built-in slash commands, by name. Their names are the
// ones a custom command may not take (Builtins); TestCommandsAreListed
// checks that /help lists each of them (quit is exit's alias).
var handlers = []handler{
	{"permissions", func(m *model, args string) (tea.Cmd, error) { return nil, m.cmdPermissions(args) }},
	{"add-dir", func(m *model, args string) (tea.Cmd, error) { return nil, m.cmdAddDir(args) }},
	{"allow-pattern", func(m *model, args string) (tea.Cmd, error) { return nil, m.cmdAllowPattern(args) }},
	{"mode", func(m *model, args string) (tea.Cmd, error) { return nil, m.cmdMode(args) }},
	{"agents", func(m *model, _ string) (tea.Cmd, error) { return nil, m.cmdAgents() }},
	{"tools", func(m *model, _ string) (tea.Cmd, error) { return nil, m.cmdTools() }},
	{"help", func(m *model, _ string) (tea.Cmd, error) { m.cmdHelp(); return nil, nil }},
	{"exit", func(m *model, _ string) (tea.Cmd, error) { return m.quit(), nil }},
	{"quit", func(m *model, _ string) (tea.Cmd, error) { return m.quit(), nil }},
}

// handler runs the slash command called name.
type handler struct {
	name string
	run  func(m *model, args string) (tea.Cmd, error)
}

// Builtins returns the names of the UI's own slash commands, which custom
// commands (package skill) may not shadow.
func Builtins() []string {
	names := make([]string, len(handlers))
	for i, h := range handlers {
		names[i] = h.name
	}
	return names
}

// command runs a slash command line. Its output and errors go to the
// transcript: an engine error never ends the UI.
func (m *model) command(line string) tea.Cmd {
	m.print(m.userLine(line))
	name, args := cutWord(strings.TrimPrefix(line, "/"))
	i := slices.IndexFunc(handlers, func(h handler) bool { return h.name == name })
	if i < 0 {
		m.note(errorStyle, fmt.Sprintf("✗ unknown command /%s; /help lists the commands", name))
		return nil
	}
	cmd, err := handlers[i].run(m, args)
	if err != nil {
		m.note(errorStyle, "✗ "+err.Error())
	}
	return cmd
}

// cutWord splits s into its first word and the trimmed rest.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

func (m *model) cmdHelp() {
	var b strings.Builder
	b.WriteString("Commands:")
	for _, c := range commands {
		fmt.Fprintf(&b, "\n  %-36s %s", c.usage, c.help)
	}
	if cmds := m.cmds.All(); len(cmds) > 0 || len(m.cmds.Errors()) > 0 {
		b.WriteString("\nCustom commands (.gen/commands, .claude/commands, ~/.gen/commands, ~/.claude/commands):")
		for _, c := range cmds {
			usage := "/" + c.Name
			if c.ArgumentHint != "" {
				usage += " " + c.ArgumentHint
			}
			fmt.Fprintf(&b, "\n  %-36s %s (%s)", usage, oneLine(c.Description), c.Scope)
		}
		for _, err := range m.cmds.Errors() {
			b.WriteString("\n  ✗ " + err.Error())
		}
		for _, w := range m.cmds.Warnings {
			b.WriteString("\n  warning: " + w)
		}
	}
	b.WriteString("\nKeys: Enter sends · Alt+Enter or Ctrl+J adds a line · Shift+Tab cycles the mode\n      Ctrl+C interrupts a turn; twice exits")
	m.note(plainStyle, b.String())
}

// lists are the rule lists, in the order /permissions shows them.
var lists = []string{"allow", "ask", "deny"}

func (m *model) cmdPermissions(args string) error {
	if args == "" {
		m.note(plainStyle, m.permissions())
		return nil
	}
	verb, rest := cutWord(args)
	if verb != "add" && verb != "remove" {
		return fmt.Errorf("unknown /permissions subcommand %q; use /permissions, /permissions add SCOPE LIST RULE or /permissions remove SCOPE LIST RULE", verb)
	}
	scopeArg, rest := cutWord(rest)
	list, rule := cutWord(rest)
	if scopeArg == "" || list == "" || rule == "" {
		return fmt.Errorf("usage: /permissions %s SCOPE LIST RULE (SCOPE: local, project or user; LIST: allow, ask or deny)", verb)
	}
	scope, err := parseScope(scopeArg)
	if err != nil {
		return err
	}
	if !slices.Contains(lists, list) {
		return fmt.Errorf("unknown list %q: use allow, ask or deny", list)
	}
	if _, err := perm.ParseRule(rule); err != nil {
		return err
	}
	if verb == "add" {
		if err := m.eng.AddRule(scope, list, rule); err != nil {
			return fmt.Errorf("could not add %s to the %s %s rules: %w", rule, scope, list, err)
		}
		m.note(plainStyle, fmt.Sprintf("Added %s to the %s %s rules.", rule, scope, list))
		return nil
	}
	if err := m.eng.RemoveRule(scope, list, rule); err != nil {
		return fmt.Errorf("could not remove %s from the %s %s rules: %w", rule, scope, list, err)
	}
	m.note(plainStyle, fmt.Sprintf("Removed %s from the %s %s rules.", rule, scope, list))
	return nil
}

// parseScope accepts the scopes a person may write to. Managed settings
// are not theirs to change, and session rules have /allow-pattern.
func parseScope(s string) (perm.Source, error) {
	switch src := perm.Source(s); src {
	case perm.SourceLocal, perm.SourceProject, perm.SourceUser:
		return src, nil
	}
	return "", fmt.Errorf("unknown scope %q: use local (.gen/settings.local.json), project (.gen/settings.json) or user (~/.gen/settings.json)", s)
}

// permissions renders the effective rules grouped by list.
func (m *model) permissions() string {
	rules := m.eng.Rules()
	byList := map[string][]policy.RuleView{}
	order := slices.Clone(lists)
	width := 0
	for _, r := range rules {
		if !slices.Contains(order, r.List) {
			order = append(order, r.List) // shown, not hidden, if unexpected
		}
		byList[r.List] = append(byList[r.List], r)
		width = max(width, len(r.Rule))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Permission rules (mode %s):", m.eng.Mode())
	for _, l := range order {
		fmt.Fprintf(&b, "\n  %s:", l)
		if len(byList[l]) == 0 {
			b.WriteString(" (none)")
		}
		for _, r := range byList[l] {
			fmt.Fprintf(&b, "\n    %-*s  %s", width, r.Rule, r.Source)
			if r.Origin != "" {
				fmt.Fprintf(&b, " (%s)", r.Origin)
			}
		}
	}
	b.WriteString("\nChange them with /permissions add|remove SCOPE LIST RULE.")
	return b.String()
}

func (m *model) cmdAddDir(path string) error {
	if path == "" {
		return errors.New("usage: /add-dir PATH")
	}
	if err := m.eng.AddDir(path); err != nil {
		return fmt.Errorf("could not add directory %s: %w", path, err)
	}
	m.note(plainStyle, "Added directory "+path+" for this session.")
	return nil
}

func (m *model) cmdAllowPattern(rule string) error {
	if rule == "" {
		return errors.New("usage: /allow-pattern RULE, e.g. /allow-pattern Bash(npm run *)")
	}
	if _, err := perm.ParseRule(rule); err != nil {
		return err
	}
	if err := m.eng.AllowPattern(rule); err != nil {
		return fmt.Errorf("could not allow %s: %w", rule, err)
	}
	m.note(plainStyle, "Allowed "+rule+" for this session.")
	return nil
}

func (m *model) cmdMode(name string) error {
	open := m.eng.Modes()
	modes := make([]string, len(open))
	for i, md := range open {
		modes[i] = string(md)
	}
	if name == "" {
		m.mode = m.eng.Mode()
		m.note(plainStyle, fmt.Sprintf("Permission mode: %s (modes: %s; Shift+Tab cycles)", m.mode, strings.Join(modes, ", ")))
		return nil
	}
	md, err := perm.ParseMode(name)
	if err != nil {
		return err
	}
	if err := m.eng.SetMode(md); err != nil {
		return fmt.Errorf("could not switch to %s mode: %w", md, err)
	}
	m.mode = m.eng.Mode()
	m.note(plainStyle, fmt.Sprintf("Permission mode: %s", m.mode))
	return nil
}

func (m *model) cmdAgents() error {
	defs := m.eng.Agents()
	if len(defs) == 0 {
		m.note(plainStyle, "No agents.")
		return nil
	}
	var b strings.Builder
	b.WriteString("Agents:")
	for _, d := range defs {
		mode := d.Mode
		if mode == "" {
			mode = perm.ModeDefault
		}
		fmt.Fprintf(&b, "\n  %s (%s, %s mode)", d.Name, orDash(d.Source), mode)
		if d.Description != "" {
			b.WriteString(": " + oneLine(d.Description))
		}
	}
	m.note(plainStyle, b.String())
	return nil
}

func (m *model) cmdTools() error {
	names := m.eng.Tools()
	if len(names) == 0 {
		m.note(plainStyle, "The model sees no tools.")
		return nil
	}
	m.note(plainStyle, fmt.Sprintf("Tools the model sees (%d): %s", len(names), strings.Join(names, ", ")))
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
