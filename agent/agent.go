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
// definition with the offending part left out. Unknown keys are only
// warnings, so that a definition written for a newer version still loads.
package agent

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"

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
	Model      string
	// MaxTurns is 0 when not set.
	MaxTurns int
	// Prompt is the body of the file. For mode explore it ends with a
	// paragraph telling the agent it is read-only.
	Prompt string
	// Path is the file the definition came from; "" for built-ins.
	Path string
	// Source is "project", "user" or "builtin"; Parse leaves it "".
	Source string
	// Warnings are problems that did not stop parsing, such as unknown keys.
	Warnings []string
}

// The values of Definition.Source.
const (
	SourceProject = "project"
	SourceUser    = "user"
	SourceBuiltin = "builtin"
)

// Error is a problem at a line of an agent file.
type Error struct {
	Path string
	Line int
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// exploreNotice ends the prompt of every explore-mode agent. The gate
// enforces read-only access regardless; telling the model saves it turns
// spent on calls that will be refused.
const exploreNotice = "You are running in explore mode, which is read-only: you cannot " +
	"modify, create or delete files, run commands that change anything, or " +
	"spawn other agents. Read, search and report what you find; if the task " +
	"needs changes, describe them instead of making them."

// validName is what an agent name may look like. Names appear inside
// Agent(name) permission rules, so parentheses, commas and spaces are out.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

var yamlFormat = frontmatter.NewFormat("---", "---", func(data []byte, v any) error {
	return yaml.Unmarshal(data, v.(*yaml.Node))
})

// yamlLineError matches yaml.v3 errors that carry a line number.
var yamlLineError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse parses the agent file at path, whose content is data. Line numbers
// in errors and warnings are lines of the file.
func Parse(path string, data []byte) (*Definition, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	open, err := findFrontmatter(path, data)
	if err != nil {
		return nil, err
	}
	// The YAML starts on the line after the opening delimiter.
	p := &parser{path: path, lineOffset: open}
	var root yaml.Node
	body, err := frontmatter.MustParse(bytes.NewReader(data), &root, yamlFormat)
	if err != nil {
		return nil, p.yamlError(err)
	}
	d, err := p.definition(&root)
	if err != nil {
		return nil, err
	}
	d.Path = path
	d.Prompt = strings.TrimSpace(string(body))
	if d.Prompt == "" {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s:%d: empty body: the agent has no system prompt", path, open))
	}
	if d.Mode == perm.ModeExplore {
		d.Prompt = withExploreNotice(d.Prompt)
	}
	return d, nil
}

func withExploreNotice(prompt string) string {
	if prompt == "" {
		return exploreNotice
	}
	return prompt + "\n\n" + exploreNotice
}

// findFrontmatter returns the line of the opening "---", checking that the
// file has a frontmatter block the way the frontmatter package finds one:
// blank lines, then "---", then YAML, then "---", all compared trimmed.
func findFrontmatter(path string, data []byte) (int, error) {
	open := 0
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case open == 0 && line == "":
			continue
		case open == 0 && line == "---":
			open = i + 1
		case open == 0:
			return 0, &Error{Path: path, Line: i + 1, Err: errors.New(`no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`)}
		case line == "---":
			return open, nil
		}
	}
	if open == 0 {
		return 0, &Error{Path: path, Line: 1, Err: errors.New(`no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`)}
	}
	return 0, &Error{Path: path, Line: open, Err: errors.New(`frontmatter is not closed by a "---" line`)}
}

// parser turns the frontmatter of one file into a Definition.
type parser struct {
	path       string
	lineOffset int // file line = YAML line + lineOffset
	warnings   []string
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	return &Error{Path: p.path, Line: n.Line + p.lineOffset, Err: fmt.Errorf(format, args...)}
}

func (p *parser) yamlError(err error) error {
	if m := yamlLineError.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{Path: p.path, Line: n + p.lineOffset, Err: errors.New(m[2])}
	}
	// Some yaml.v3 errors have no line; the frontmatter's first line is
	// the best place to point at.
	return &Error{Path: p.path, Line: 1 + p.lineOffset, Err: errors.New(strings.TrimPrefix(err.Error(), "yaml: "))}
}

func (p *parser) definition(root *yaml.Node) (*Definition, error) {
	var m *yaml.Node
	switch {
	case root.Kind == 0: // empty frontmatter
		m = &yaml.Node{Kind: yaml.MappingNode}
	case root.Kind == yaml.DocumentNode && len(root.Content) == 1:
		m = resolve(root.Content[0])
	default:
		m = root
	}
	if m.Kind != yaml.MappingNode {
		return nil, p.errorf(m, "frontmatter must be a mapping of keys to values")
	}
	d := &Definition{Mode: perm.ModeDefault}
	seen := make(map[string]int)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, p.errorf(k, "keys must be plain names")
		}
		if line, dup := seen[k.Value]; dup {
			return nil, p.errorf(k, "duplicate key %q (first at line %d)", k.Value, line)
		}
		seen[k.Value] = k.Line + p.lineOffset
		if err := p.field(d, k, v); err != nil {
			return nil, err
		}
	}
	for _, req := range []string{"name", "description"} {
		if _, ok := seen[req]; !ok {
			// The block as a whole lacks it: name its opening delimiter.
			return nil, &Error{Path: p.path, Line: max(p.lineOffset, 1), Err: fmt.Errorf("missing required field %q", req)}
		}
	}
	d.Warnings = p.warnings
	return d, nil
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func (p *parser) field(d *Definition, k, v *yaml.Node) error {
	var err error
	switch k.Value {
	case "name":
		if d.Name, err = p.text(k.Value, v); err != nil {
			return err
		}
		if !validName.MatchString(d.Name) {
			return p.errorf(v, "invalid name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit", d.Name)
		}
	case "description":
		d.Description, err = p.text(k.Value, v)
	case "model":
		d.Model, err = p.text(k.Value, v)
	case "mode":
		if v.Kind != yaml.ScalarNode {
			return p.errorf(v, "mode must be a string")
		}
		m, perr := perm.ParseMode(v.Value)
		if perr != nil || v.Value == "" || v.ShortTag() == "!!null" {
			return p.errorf(v, "unknown mode %q (want one of %s)", v.Value, modeList())
		}
		d.Mode = m
	case "allow_tools":
		if d.AllowTools, err = p.rules(k.Value, v); err != nil {
			return err
		}
		if len(d.AllowTools) == 0 {
			// An empty constraint means "no constraint" to perm; whoever
			// wrote an empty list more likely meant "no tools".
			return p.errorf(v, "allow_tools is empty: list the tools the agent may use, or remove the key to leave tools to the mode")
		}
	case "deny_tools":
		d.DenyTools, err = p.rules(k.Value, v)
	case "max_turns":
		n, aerr := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || aerr != nil || n <= 0 {
			return p.errorf(v, "max_turns must be a positive integer, not %q", v.Value)
		}
		d.MaxTurns = n
	default:
		p.warnings = append(p.warnings, fmt.Sprintf("%s:%d: unknown key %q", p.path, k.Line+p.lineOffset, k.Value))
	}
	return err
}

// text returns the value of a required, non-empty string field.
func (p *parser) text(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", p.errorf(v, "%s must be a string", key)
	}
	s := strings.TrimSpace(v.Value)
	if v.ShortTag() == "!!null" || s == "" {
		return "", p.errorf(v, "%s must not be empty", key)
	}
	return s, nil
}

// rules parses a YAML list of rule strings, or one string of
// comma-separated rules.
func (p *parser) rules(key string, v *yaml.Node) ([]perm.Rule, error) {
	type item struct {
		text string
		node *yaml.Node
	}
	var items []item
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		// "allow_tools:" with no value: no rules.
	case v.Kind == yaml.ScalarNode:
		for _, s := range SplitRules(v.Value) {
			items = append(items, item{s, v})
		}
	case v.Kind == yaml.SequenceNode:
		for _, el := range v.Content {
			el = resolve(el)
			if el.Kind != yaml.ScalarNode || el.ShortTag() == "!!null" {
				return nil, p.errorf(el, "%s must be a list of rule strings", key)
			}
			items = append(items, item{el.Value, el})
		}
	default:
		return nil, p.errorf(v, "%s must be a list of rule strings or one comma-separated string", key)
	}
	rules := make([]perm.Rule, 0, len(items))
	for _, it := range items {
		r, err := perm.ParseRule(it.text)
		if err != nil {
			return nil, &Error{Path: p.path, Line: it.node.Line + p.lineOffset, Err: err}
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, nil
	}
	return rules, nil
}

// SplitRules splits a comma-separated list of rules. Commas inside
// parentheses belong to a pattern and do not split, so
// "Read, Bash(git diff a,b), Grep" is three rules. Pieces are trimmed; an
// empty piece (as in "Read,,Grep") is kept so that it fails validation
// instead of vanishing. An empty or all-blank s has no rules.
func SplitRules(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func modeList() string {
	return "default, acceptEdits, explore, dontAsk, bypassPermissions, auto"
}
