// Package agent reads agent definitions: markdown files whose YAML
// frontmatter sets an agent's name, permission mode and tool rules, and
// whose body is its system prompt. It only parses and discovers files;
// package policy turns a definition into a perm.Policy. It sits on perm
// (rules, modes), workspace (project root) and internal/textfile.
//
//	---
//	name: code-reviewer
//	description: Reviews a diff for bugs.
//	mode: explore
//	allow_tools: Read, Grep, Bash(git diff:*)
//	---
//	You review code...
//
// Parsing fails closed: bad YAML, an unknown mode, a malformed rule or a
// missing required field is an error naming the file and line, never a
// definition with the offending part left out. Claude Code's keys are
// mapped (permissionMode to mode with plan as explore, maxTurns to
// max_turns, tools to Hidden, the tools it does not list, and
// disallowedTools to Hidden for bare tool names and to deny_tools for the
// rest); a near miss of a permission key (deny-tools, allowTools)
// is an error. Claude Code's cosmetic color is accepted silently, and
// its keys gen does not use (skills, mcpServers, background, effort,
// isolation, initialPrompt, memory) are warnings; any other key refuses
// the agent, with a suggestion where one is near, and so do YAML merge
// keys (<<). Claude Code's hooks are the agent's own (Definition.Hooks).
// A description with an unquoted ": ", which strict
// YAML rejects and Claude Code accepts, is read as plain text with a
// warning; no other value is recovered that way.
//
// ParseJSON reads the same fields, with the same checks, given as JSON on
// the command line (Claude Code's --agents), with prompt for the body;
// its errors name the flag, the agent and the key where a file's name
// the line. Such agents take precedence over every file (Discover).
//
// project_memory: true gives the agent the project memory (package
// memory) after its prompt; without it a subagent sees only its own prompt.
// model names a model, an alias that settings map (ModelAliases), or
// inherit; see ResolveModel.
package agent

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/editdist"
	"github.com/gen-run/gen/internal/frontmatter"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// Definition is one agent type.
type Definition struct {
	Name, Description string
	// Mode is the agent's permission mode; ModeDefault when not set.
	Mode perm.Mode
	// AllowTools is never an empty non-nil slice: a file that writes an
	// empty allow_tools is refused, since an empty constraint would mean
	// "every tool" to perm.
	AllowTools []perm.Rule
	DenyTools  []perm.Rule
	// Hooks are the agent's own hooks (Claude Code's hooks: in the
	// frontmatter, hook.ParseAgent): they run besides the session's while
	// the agent runs, a project agent's only in a trusted project
	// (trust.AgentHooks). Their Source is not set.
	Hooks hook.Config
	// Hidden are the built-in tools the agent does not have: those
	// Claude Code's tools: does not list, and those disallowedTools
	// names bare, each once. Their calls are denied (perm.Policy.Hidden),
	// and only theirs: hiding Read does not deny a Bash command that
	// reads a file, as a bare Read in deny_tools does.
	Hidden []string
	// MCPTools are the MCP tools Claude Code's tools: lists
	// (mcp__server__tool, or mcp__server for a server's every tool):
	// the agent has no other (perm.Policy.MCPTools). nil when tools is
	// not given, or lists no MCP tool (every MCP tool is then denied,
	// DenyTools' MCP(mcp__*)).
	MCPTools []string
	// Delegates are the agent types Claude Code's tools: names in
	// Agent(type, ...): run as the main loop (--agent), the agent may
	// start only these (package policy denies the others). nil when tools
	// lists Agent bare, or lists no Agent(...) at all.
	Delegates []string
	// Model is the model as the file names it ("" when not set); see
	// ResolveModel.
	Model string
	// Memory is project_memory: the agent's prompt is followed by the
	// project memory and environment (package memory).
	Memory bool
	// MaxTurns is 0 when not set.
	MaxTurns int
	// Prompt is the body of the file. For mode explore it ends with a
	// paragraph telling the agent it is read-only.
	Prompt string
	// Path is the file the definition came from, or for one given on
	// the command line "--agents NAME" (ParseJSON); "" for built-ins.
	Path string
	// Source is "project", "user", "cli" or "builtin"; Parse leaves it "".
	Source string
	// Warnings are problems that did not stop parsing, such as unknown keys.
	Warnings []string
}

// The values of Definition.Source.
const (
	SourceProject = "project"
	SourceUser    = "user"
	SourceBuiltin = "builtin"
	// SourceCLI is an agent given on the command line (--agents,
	// ParseJSON): the user's own, as a user file is.
	SourceCLI = "cli"
)

// Error is a problem at a line of an agent file, or at a key of an agent
// given as JSON (ParseJSON).
type Error = frontmatter.Error

// exploreNotice ends the prompt of every explore-mode agent. The gate
// enforces read-only access regardless; telling the model saves it turns
// spent on calls that will be refused.
const exploreNotice = "You are running in explore mode, which is read-only: you cannot " +
	"modify, create or delete files, run commands that change anything, or " +
	"spawn other agents. Read, search and report what you find; if the task " +
	"needs changes, describe them instead of making them."

// validName is what an agent name may look like. Names appear inside
// Agent(name) permission rules, so parentheses, commas and spaces are out.
var validName = lazyre.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// checkName returns an error for a name no agent may have.
func checkName(name string) error {
	if !validName.Get().MatchString(name) {
		return fmt.Errorf("invalid name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit", name)
	}
	return nil
}

// Parse parses the agent file at path, whose content is data. Line numbers
// in errors and warnings are lines of the file.
func Parse(path string, data []byte) (*Definition, error) {
	// Only description is free text: a name or a permission value that
	// strict YAML rejects refuses the agent.
	doc, recovered, err := frontmatter.ParseLenient(path, data, "an agent file", "description")
	if err != nil {
		return nil, err
	}
	d := &Definition{Mode: perm.ModeDefault}
	p := &parser{doc: doc, warnings: recovered}
	if err := p.define(d, "name", "description"); err != nil {
		return nil, err
	}
	d.setPrompt(doc.Body, fmt.Sprintf("%s:%d: empty body: the agent has no system prompt", path, doc.Open))
	return d, nil
}

// ParseJSON parses agents given as JSON on the command line (the value
// of flag, Claude Code's --agents): an object that maps each agent's name
// to an object of the fields an agent file's frontmatter takes, gen's and
// Claude Code's, plus prompt, which is the file's body. The fields are
// read by the parser a file's are, with every check a file's get; prompt
// and description are required, and a name field must repeat the agent's
// own. Errors and warnings name flag, the agent and the key
// (--agents reviewer: tools[1]: ...). The definitions, in the order
// given, have Source SourceCLI and Path "flag NAME".
func ParseJSON(flag string, data []byte) ([]*Definition, error) {
	root, err := frontmatter.DecodeJSON(flag, data)
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s must be a JSON object that maps agent names to definitions", flag)
	}
	var defs []*Definition
	for i := 0; i+1 < len(root.Content); i += 2 {
		name, v := root.Content[i].Value, root.Content[i+1]
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		d, err := parseEntry(flag+" "+name, name, v)
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// parseEntry parses the definition v of the agent name, given on the
// command line; where names it in errors.
func parseEntry(where, name string, v *yaml.Node) (*Definition, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s must be a JSON object of the agent's fields (description, prompt, tools, ...)", where)
	}
	doc, err := frontmatter.Keyed(where, v)
	if err != nil {
		return nil, err
	}
	// prompt is the body, not a field of the frontmatter, where it would
	// be an unknown key.
	i := slices.IndexFunc(doc.Fields, func(f frontmatter.Field) bool { return f.Key.Value == "prompt" })
	if i < 0 {
		return nil, doc.Missing("prompt")
	}
	if pv := doc.Fields[i].Value; pv.Kind != yaml.ScalarNode || pv.ShortTag() != "!!str" {
		return nil, doc.Errorf(pv, "prompt must be a string")
	}
	prompt := strings.TrimSpace(doc.Fields[i].Value.Value)
	doc.Fields = slices.Delete(doc.Fields, i, i+1)
	// The name is the entry's key; a name field (read by field) must
	// repeat it.
	d := &Definition{Name: name, Mode: perm.ModeDefault, Source: SourceCLI}
	p := &parser{doc: doc}
	if err := p.define(d, "description"); err != nil {
		return nil, err
	}
	d.setPrompt(prompt, where+": prompt is empty: the agent has no system prompt")
	return d, nil
}

// define sets d from the fields of p.doc, each read by field, and checks
// that p.doc has the keys required and that the fields agree with each
// other. d.Name is the name the agent is known by already, if it has one.
// It sets the warnings and the path, not the prompt (setPrompt).
func (p *parser) define(d *Definition, required ...string) error {
	for _, f := range p.doc.Fields {
		if err := p.field(d, f.Key, f.Value); err != nil {
			return err
		}
	}
	for _, req := range required {
		if !p.doc.Has(req) {
			return p.doc.Missing(req)
		}
	}
	if ms := d.Hooks.Unmatched(hook.SubagentStop, d.Name); len(ms) > 0 {
		// They run only while this agent runs, so they would never run.
		return p.doc.Errorf(p.hooksKey, "hooks.SubagentStop matcher %q does not match the agent's name %q: the hook would never run", ms[0], d.Name)
	}
	d.Warnings = p.warnings
	d.Path = p.doc.Path
	return nil
}

// setPrompt makes body d's prompt; an empty one adds the warning empty.
// An explore agent's prompt ends with the notice that it is read-only.
func (d *Definition) setPrompt(body, empty string) {
	d.Prompt = body
	if d.Prompt == "" {
		d.Warnings = append(d.Warnings, empty)
	}
	if d.Mode == perm.ModeExplore {
		d.Prompt = withExploreNotice(d.Prompt)
	}
}

func withExploreNotice(prompt string) string {
	if prompt == "" {
		return exploreNotice
	}
	return prompt + "\n\n" + exploreNotice
}

// parser turns the frontmatter of one file into a Definition.
type parser struct {
	doc      *frontmatter.Doc
	warnings []string
	// modeKey and turnsKey are the keys (gen's or Claude Code's) that set
	// the mode and the turn limit, so that both spellings at once are an
	// error rather than a silent choice.
	modeKey, turnsKey string
	// hooksKey is the hooks key, for errors about the hooks as a whole.
	hooksKey *yaml.Node
}

func (p *parser) field(d *Definition, k, v *yaml.Node) error {
	var err error
	switch k.Value {
	case "name":
		name, err := p.doc.Text(k.Value, v)
		if err != nil {
			return err
		}
		if err := checkName(name); err != nil {
			return p.doc.Errorf(v, "%w", err)
		}
		if d.Name != "" && name != d.Name {
			// Given on the command line, the agent is named by its key.
			return p.doc.Errorf(v, "name %q is not the agent's name %q", name, d.Name)
		}
		d.Name = name
	case "description":
		d.Description, err = p.doc.Text(k.Value, v)
	case "model":
		d.Model, err = p.doc.Text(k.Value, v)
	case "mode", "permissionMode":
		// permissionMode is Claude Code's key.
		if p.modeKey != "" {
			return p.doc.Errorf(k, "%s repeats the permission mode already set by %s", k.Value, p.modeKey)
		}
		p.modeKey = k.Value
		if v.Kind != yaml.ScalarNode {
			return p.doc.Errorf(v, "%s must be a string", k.Value)
		}
		val := v.Value
		if val == string(perm.ModePlan) {
			// Plan mode is the main loop's, left with the person's
			// approval; an agent that only plans is an explore agent.
			val = string(perm.ModeExplore)
		}
		m, perr := perm.ParseMode(val)
		if perr != nil || val == "" || v.ShortTag() == "!!null" {
			return p.doc.Errorf(v, "unknown mode %q (want one of %s)", v.Value, modeList())
		}
		d.Mode = m
	case "allow_tools":
		// allow_tools bounds the agent: it is read as strictly as a deny
		// list, for with its last rule left out it would bound nothing.
		if d.AllowTools, _, err = p.doc.Rules(k.Value, v, perm.DenyList); err != nil {
			return err
		}
		if len(d.AllowTools) == 0 {
			// An empty constraint means "no constraint" to perm; whoever
			// wrote an empty list more likely meant "no tools".
			return p.doc.Errorf(v, "allow_tools is empty: list the tools the agent may use, or remove the key to leave tools to the mode")
		}
	case "deny_tools", "disallowedTools":
		// disallowedTools is Claude Code's: it removes tools from the
		// agent, so its bare built-in names hide those tools (Hidden);
		// its rules with a pattern and MCP names are deny rules, as
		// deny_tools' are. Both given deny the union.
		kind := perm.DenyList
		if k.Value == "disallowedTools" {
			// Its bare names only hide tools: one of Claude Code's that
			// gen does not have hides nothing, and is left out.
			kind = perm.ToolList
		}
		rs, left, err := p.doc.Rules(k.Value, v, kind)
		if err != nil {
			return err
		}
		p.warnings = append(p.warnings, left...)
		if len(rs) == 0 && len(left) == 0 {
			// deny_tools: ~, "" or []: a list that denies nothing is
			// more likely a rule lost than one meant.
			return p.doc.Errorf(v, "%s is empty: list the rules to deny, or remove the key", k.Value)
		}
		for _, r := range rs {
			if k.Value == "disallowedTools" && !r.HasPattern && builtin(r.Tool) {
				d.hide(r.Tool)
			} else {
				d.DenyTools = append(d.DenyTools, r)
			}
		}
	case "tools":
		// Claude Code's tools limits what the model sees. It is never an
		// allow rule: every built-in tool it does not list is hidden.
		var rs []perm.Rule
		var hidden []string
		if hidden, rs, d.MCPTools, d.Delegates, err = p.visibleTools(k, v); err != nil {
			return err
		}
		for _, t := range hidden {
			d.hide(t)
		}
		d.DenyTools = append(d.DenyTools, rs...)
	case "max_turns", "maxTurns":
		if p.turnsKey != "" {
			return p.doc.Errorf(k, "%s repeats the turn limit already set by %s", k.Value, p.turnsKey)
		}
		p.turnsKey = k.Value
		n, aerr := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || aerr != nil || n <= 0 {
			return p.doc.Errorf(v, "%s must be a positive integer, not %q", k.Value, v.Value)
		}
		d.MaxTurns = n
	case "project_memory":
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
			return p.doc.Errorf(v, "project_memory must be true or false, not %q", v.Value)
		}
		d.Memory = v.Value == "true"
	case "color":
		// Claude Code's display colour: nothing to do, nothing to warn.
	case "memory":
		// Claude Code's persistent agent memory (user, project, local) is
		// another feature than project memory; say so rather than guess.
		p.warnings = append(p.warnings, p.doc.Pos(k)+": memory (Claude Code's persistent agent memory) is not supported and is ignored; project_memory: true gives the agent AGENTS.md")
	case "hooks":
		// Claude Code's hooks scoped to the agent: they run, besides the
		// session's, while the agent runs (package trust says when).
		if d.Hooks, err = p.hooks(k, v); err != nil {
			return err
		}
		p.hooksKey = k
	default:
		if slices.Contains(claudeUnused, k.Value) {
			p.warnings = append(p.warnings, fmt.Sprintf("%s: %s (a Claude Code key) is not supported by gen and is ignored", p.doc.Pos(k), k.Value))
			break
		}
		// Any other key refuses the agent: one that looks like a
		// permission key but is none (deny, denied_tools, blockedTools)
		// would silently drop its rules.
		if near := permissionKeyMiss(k.Value); near != "" {
			return p.doc.Errorf(k, "unknown key %q: did you mean %q?", k.Value, near)
		}
		if near := nearestKey(k.Value); near != "" {
			return p.doc.Errorf(k, "unknown key %q: did you mean %q?", k.Value, near)
		}
		return p.doc.Errorf(k, "unknown key %q (gen reads %s, and Claude Code's %s)", k.Value, strings.Join(genKeys, ", "), strings.Join(append(slices.Clone(claudeKeys), claudeUnused...), ", "))
	}
	return err
}

// hooks parses the agent's hooks: the YAML value v of the key k, as JSON,
// with hook.ParseAgent. An error names the line of the offending key.
func (p *parser) hooks(k, v *yaml.Node) (hook.Config, error) {
	if v.Kind != yaml.MappingNode {
		return hook.Config{}, p.doc.Errorf(v, "hooks must be a mapping of event names to lists of matcher groups")
	}
	raw, err := p.doc.JSON(v)
	if err != nil {
		return hook.Config{}, err
	}
	c, err := hook.ParseAgent(p.doc.Path, raw)
	var pe *hook.ParseError
	if errors.As(err, &pe) {
		return hook.Config{}, p.doc.KeyErrorf(keyNode(k, v, pe.Key), pe.Key, "%s", pe.Msg)
	}
	if err != nil {
		return hook.Config{}, p.doc.Errorf(k, "%v", err)
	}
	for _, ev := range c.Ignored() {
		p.warnings = append(p.warnings, p.doc.KeyPos(keyNode(k, v, "hooks."+ev))+": "+hook.IgnoredNote(ev))
	}
	if c.Empty() && len(c.Ignored()) == 0 {
		// hooks: {} or groups without hooks: more likely a hook lost
		// than none meant, as for an empty deny_tools.
		return hook.Config{}, p.doc.Errorf(k, "hooks is empty: configure a hook, or remove the key")
	}
	return c, nil
}

// hookKeyStep is one step of a hook.ParseError key: a member name or an
// index.
var hookKeyStep = lazyre.MustCompile(`\.?([^.\[\]]+)|\[(\d+)\]`)

// keyNode returns the node of the hooks value v (the value of key k) that
// a key such as hooks.PreToolUse[0].hooks[1].timeout names, as deep as
// the key can be followed: a member by its key, the line a person looks
// for.
func keyNode(k, v *yaml.Node, key string) *yaml.Node {
	at := k
	for _, st := range hookKeyStep.Get().FindAllStringSubmatch(strings.TrimPrefix(key, "hooks"), -1) {
		v = frontmatter.Resolve(v)
		switch {
		case st[1] != "" && v.Kind == yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(v.Content); i += 2 {
				if v.Content[i].Value == st[1] {
					at, next = v.Content[i], v.Content[i+1]
				}
			}
			if next == nil {
				return at
			}
			v = next
		case st[2] != "" && v.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(st[2])
			if err != nil || i >= len(v.Content) {
				return at
			}
			v = v.Content[i]
			at = v
		default:
			return at
		}
	}
	return at
}

// The frontmatter keys: gen's own, Claude Code's that gen reads (hooks
// and memory refused or warned about by name), and Claude Code's that gen
// does not use, which are warnings so that a Claude Code file loads.
var (
	genKeys      = []string{"name", "description", "mode", "allow_tools", "deny_tools", "model", "max_turns", "project_memory"}
	claudeKeys   = []string{"tools", "disallowedTools", "permissionMode", "maxTurns", "color", "hooks", "memory"}
	claudeUnused = []string{"skills", "mcpServers", "background", "effort", "isolation", "initialPrompt"}
)

// nearestKey returns the frontmatter key that key most likely misspells
// (ignoring case, "-" and "_"): one within a few edits, or one it is the
// start of (deny for deny_tools); "" if none.
func nearestKey(key string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s))
	}
	k := norm(key)
	best, bestD := "", 0
	for _, want := range slices.Concat(genKeys, claudeKeys, claudeUnused) {
		w := norm(want)
		d := editdist.Distance(k, w)
		limit := 1
		switch {
		case len(w) > 8:
			limit = 3
		case len(w) > 4:
			limit = 2
		}
		if len(k) >= 4 && strings.HasPrefix(w, k) {
			d = min(d, 1) // deny, disallowed
		}
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = want, d
		}
	}
	return best
}

// permissionKeys are the frontmatter keys that carry permissions, gen's and
// Claude Code's.
var permissionKeys = []string{"mode", "allow_tools", "deny_tools", "max_turns", "permissionMode", "disallowedTools", "maxTurns", "tools"}

// permissionKeyMiss returns the permission key that key most likely
// misspells (deny-tools, allowTools, allowed_tools, DenyTools), or "".
func permissionKeyMiss(key string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s))
	}
	k := norm(key)
	for _, want := range permissionKeys {
		w := norm(want)
		// Short keys allow one typo, so that hooks is not tools.
		if d := editdist.Distance(k, w); d == 0 || d == 1 && len(w) > 4 || d == 2 && len(w) > 6 {
			return want
		}
	}
	for _, want := range []string{"allow_tools", "deny_tools"} {
		// allowedtools, toolsallow, denied_tools...
		if stem := strings.TrimSuffix(norm(want), "tools"); strings.Contains(k, "tool") && strings.Contains(k, stem) {
			return want
		}
	}
	return ""
}

// visibleTools reads Claude Code's tools list (bare tool names): the
// built-in tools it does not list are hidden, MCP tools, when it lists
// none, are denied (MCP(mcp__*), a rule that covers only their own
// calls), and when it lists some, mcp are those it lists: the agent has
// no other (Definition.MCPTools). delegates are the agent types its
// Agent(type, ...) entries name (Definition.Delegates).
func (p *parser) visibleTools(k, v *yaml.Node) (hidden []string, deny []perm.Rule, mcp, delegates []string, err error) {
	// Claude Code's tools gen does not have are left out: listing them
	// shows nothing more.
	listed, left, err := p.doc.Rules(k.Value, v, perm.ToolList)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	p.warnings = append(p.warnings, left...)
	if len(listed) == 0 && len(left) == 0 {
		return nil, nil, nil, nil, p.doc.Errorf(v, "tools is empty: list the tools the agent may see, or remove the key")
	}
	names := map[string]bool{}
	anyAgent := false
	for _, r := range listed {
		if r.Tool == "Agent" && !r.HasPattern {
			anyAgent = true
		}
		if r.HasPattern && r.Tool == "Agent" {
			// Claude Code's Agent(type, ...) limits which agents a
			// main-thread agent (--agent) may start. A subagent starts
			// none, whatever it lists.
			for name := range strings.SplitSeq(r.Pattern, ",") {
				name = strings.TrimSpace(name)
				if err := checkName(name); err != nil {
					return nil, nil, nil, nil, p.doc.Errorf(v, "tools lists %s: %w", r, err)
				}
				delegates = append(delegates, name)
			}
			r = perm.Rule{Tool: "Agent"}
		}
		if r.HasPattern {
			return nil, nil, nil, nil, p.doc.Errorf(v, "tools lists tool names, not %s: use allow_tools for rules with patterns", r)
		}
		names[r.Tool] = true
		if strings.HasPrefix(r.Tool, "mcp__") && !slices.Contains(mcp, r.Tool) {
			mcp = append(mcp, r.Tool)
		}
	}
	for _, t := range perm.Tools {
		// The mode switches are the person's (ExitPlanMode approves a
		// plan, the way out of plan mode), not something the agent does:
		// a tools list does not hide them.
		if !names[t] && builtin(t) && !slices.Contains(perm.ModeTools, t) {
			hidden = append(hidden, t)
		}
	}
	switch {
	case names["MCP"]:
		mcp = nil // every MCP tool
	case mcp == nil:
		deny = append(deny, perm.Rule{Tool: "MCP", Pattern: "mcp__*", HasPattern: true})
	}
	if anyAgent {
		delegates = nil // a bare Agent starts any agent
	}
	return hidden, deny, mcp, delegates, nil
}

// builtin reports whether t names a built-in tool (MCP names rules
// over MCP tools, not a tool).
func builtin(t string) bool { return t != "MCP" && slices.Contains(perm.Tools, t) }

// hide adds t to d.Hidden once.
func (d *Definition) hide(t string) {
	if !slices.Contains(d.Hidden, t) {
		d.Hidden = append(d.Hidden, t)
	}
}

// SplitRules splits a comma-separated list of rules; see
// frontmatter.SplitRules.
func SplitRules(s string) []string { return frontmatter.SplitRules(s) }

func modeList() string {
	return "default, acceptEdits, explore (or plan, read as explore), dontAsk, bypassPermissions, auto"
}

// claudeAliases are Claude Code's model aliases. An agent naming one runs on
// the model settings map it to (modelAliases), else on the parent's model.
var claudeAliases = []string{"sonnet", "opus", "haiku"}

// ResolveModel returns the model name a run of d uses, given the settings'
// modelAliases and the parent's model (the main loop's, or "" for the
// configured default). No model and "inherit" are the parent's. A name the
// aliases map is replaced by its mapping. Claude Code's aliases sonnet,
// opus and haiku with no mapping are the parent's, with a warning: sending
// them to another provider's endpoint would only fail. Any other name is
// used as written.
func (d *Definition) ResolveModel(aliases map[string]string, parent string) (name, warning string) {
	switch m := d.Model; {
	case m == "" || m == "inherit":
		return parent, ""
	case aliases[m] != "":
		return aliases[m], ""
	case slices.Contains(claudeAliases, m):
		where := d.Path
		if where == "" {
			where = d.Name
		}
		return parent, fmt.Sprintf("%s: model %q has no mapping in the modelAliases setting; using the parent's model", where, m)
	default:
		return m, ""
	}
}

// Widens reports whether d asks for what a project's agent may have only
// in a trusted project (package policy caps it otherwise): allow_tools,
// which allow as well as restrict, or a mode that asks less than default.
func (d *Definition) Widens() bool {
	return len(d.AllowTools) > 0 || d.Mode.Rank() > perm.ModeDefault.Rank()
}
