// Package frontmatter reads markdown files that start with a YAML
// frontmatter block (agent definitions, skills) and keeps the file line of
// every value, so errors can name file:line. Fields given as JSON
// instead (an agent on the command line) are read into the same nodes
// (DecodeJSON, Keyed), for the same parsers; their errors name the key.
// It sits on github.com/adrg/frontmatter, yaml.v3 nodes and jsonpos.
package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// Error is a problem at a line of a file, or at a key of a keyed Doc.
type Error struct {
	Path string
	// Line is 0 where no line is known, as in a keyed Doc.
	Line int
	// Key is, in a keyed Doc, the key path of the value the problem is
	// at (tools[1], hooks.Stop[0].hooks[0].timeout); "" otherwise.
	Key string
	Err error
}

func (e *Error) Error() string { return e.where() + ": " + e.Err.Error() }

// where is the position Error names: path: key, path:line or path.
func (e *Error) where() string {
	switch {
	case e.Key != "":
		return e.Path + ": " + e.Key
	case e.Line > 0:
		return fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return e.Path
}

func (e *Error) Unwrap() error { return e.Err }

// Field is one key of the frontmatter and its value, aliases resolved.
type Field struct {
	Key, Value *yaml.Node
}

// Doc is a parsed file.
type Doc struct {
	Path string
	// Open is the line of the opening "---".
	Open int
	// Fields are the frontmatter's keys in file order. Keys are plain
	// scalars and unique.
	Fields []Field
	// Body is the text after the closing "---", trimmed.
	Body string
	// BodyLine is the file line of Body's first line.
	BodyLine int
	// Keyed is set for a Doc that was read from JSON rather than from
	// the lines of a file (Keyed): its errors and warnings name a value
	// by its key path (Error.Key), where a file's name its line.
	Keyed bool
}

var yamlFormat = lazy.Value[*frontmatter.Format]{New: func() *frontmatter.Format {
	return frontmatter.NewFormat("---", "---", func(data []byte, v any) error {
		return yaml.Unmarshal(data, v.(*yaml.Node))
	})
}}

// yamlLineError matches yaml.v3 errors that carry a line number.
var yamlLineError = lazyre.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse parses the file at path, whose content is data. what names the
// kind of file in the error for a missing block ("an agent file").
// Line numbers in errors are lines of the file.
func Parse(path string, data []byte, what string) (*Doc, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	open, err := find(path, data, what)
	if err != nil {
		return nil, err
	}
	d := &Doc{Path: path, Open: open}
	var root yaml.Node
	body, err := frontmatter.MustParse(bytes.NewReader(data), &root, yamlFormat.Get())
	if err != nil {
		return nil, d.yamlError(err)
	}
	d.Body = strings.TrimSpace(string(body))
	d.BodyLine = bodyLine(data, d.Body)
	var m *yaml.Node
	switch {
	case root.Kind == 0: // empty frontmatter
		return d, nil
	case root.Kind == yaml.DocumentNode && len(root.Content) == 1:
		m = Resolve(root.Content[0])
	default:
		m = &root
	}
	if err := d.setFields(m); err != nil {
		return nil, err
	}
	return d, nil
}

// Keyed returns the Doc whose fields are the members of m, a JSON object
// that DecodeJSON read: it has no body, and its errors and warnings name
// path and a key path (Doc.Keyed). Its keys are checked as a file's are.
func Keyed(path string, m *yaml.Node) (*Doc, error) {
	d := &Doc{Path: path, Keyed: true}
	if err := d.setFields(m); err != nil {
		return nil, err
	}
	return d, nil
}

// setFields makes the keys and values of the mapping m d's fields.
func (d *Doc) setFields(m *yaml.Node) error {
	if m.Kind != yaml.MappingNode {
		return d.Errorf(m, "frontmatter must be a mapping of keys to values")
	}
	seen := make(map[string]int)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := Resolve(m.Content[i]), Resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return d.Errorf(k, "keys must be plain names")
		}
		if k.ShortTag() == "!!merge" {
			// The keys a merge brings in would not be read as keys of
			// their own: a merged deny_tools would silently vanish.
			return d.Errorf(k, "YAML merge keys (<<) are not supported: write the keys out")
		}
		if line, dup := seen[k.Value]; dup {
			// A keyed Doc's come from JSON that DecodeJSON read, which
			// refuses a repeated name: only a file's are found here.
			return d.Errorf(k, "duplicate key %q (first at line %d)", k.Value, line)
		}
		seen[k.Value] = d.Line(k)
		d.Fields = append(d.Fields, Field{k, v})
	}
	return nil
}

// ParseOptional is Parse for files whose frontmatter block may be left
// out (Claude Code's slash commands): a file whose first line that is not
// blank is not "---" is all body, with no fields.
func ParseOptional(path string, data []byte, what string) (*Doc, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first := bytes.TrimLeft(data, " \t\r\n")
	if line, _, _ := bytes.Cut(first, []byte("\n")); string(bytes.TrimSpace(line)) == "---" {
		return Parse(path, data, what)
	}
	d := &Doc{Path: path, Body: strings.TrimSpace(string(data))}
	d.BodyLine = bodyLine(data, d.Body)
	return d, nil
}

// bodyLine returns the file line where body, which ends data but for
// white space, starts.
func bodyLine(data []byte, body string) int {
	i := bytes.LastIndex(data, []byte(body))
	if i < 0 || body == "" {
		return 1 + bytes.Count(data, []byte("\n"))
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// find returns the line of the opening "---", checking that the file has
// a frontmatter block the way the frontmatter package finds one: blank
// lines, then "---", then YAML, then "---", each line compared with its
// surrounding white space trimmed. It reads data in place, without
// splitting it, so that errors name the line.
func find(path string, data []byte, what string) (int, error) {
	open := 0
	for n, rest := 1, data; len(rest) > 0; n++ {
		line := rest
		rest = nil
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, rest = line[:i], line[i+1:]
		}
		line = bytes.TrimSpace(line)
		switch {
		case open == 0 && len(line) == 0:
			continue
		case open == 0 && string(line) == "---":
			open = n
		case open == 0:
			return 0, &Error{Path: path, Line: n, Err: errMissing(what)}
		case string(line) == "---":
			return open, nil
		}
	}
	if open == 0 {
		return 0, &Error{Path: path, Line: 1, Err: errMissing(what)}
	}
	return 0, &Error{Path: path, Line: open, Err: errors.New(`frontmatter is not closed by a "---" line`)}
}

// errMissing is the error for a file with no frontmatter block.
func errMissing(what string) error {
	return fmt.Errorf(`no frontmatter: %s starts with a "---" line, YAML with at least name and description, and a closing "---" line`, what)
}

func (d *Doc) yamlError(err error) error {
	if m := yamlLineError.Get().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{Path: d.Path, Line: n + d.Open, Err: errors.New(m[2])}
	}
	// Some yaml.v3 errors have no line; the frontmatter's first line is
	// the best place to point at.
	return &Error{Path: d.Path, Line: 1 + d.Open, Err: errors.New(strings.TrimPrefix(err.Error(), "yaml: "))}
}

// Line is the file line of n.
func (d *Doc) Line(n *yaml.Node) int { return n.Line + d.Open }

// Errorf returns an error at n: at its line, or in a keyed Doc at its
// key path.
func (d *Doc) Errorf(n *yaml.Node, format string, args ...any) error {
	return d.errorAt(n, fmt.Errorf(format, args...))
}

// KeyErrorf is Errorf for a problem that a parser of the value n (such
// as hook.ParseAgent) found at key, a key path it names from n down
// (hooks.Stop[0].hooks[0].timeout): a file's error names n's line and
// then key; a keyed Doc's names key alone, which says as much.
func (d *Doc) KeyErrorf(n *yaml.Node, key, format string, args ...any) error {
	if d.Keyed {
		return &Error{Path: d.Path, Key: key, Err: fmt.Errorf(format, args...)}
	}
	return d.Errorf(n, "%s: %w", key, fmt.Errorf(format, args...))
}

// Pos names where n is, as an error at n names it (path:line, or path:
// key in a keyed Doc), for a warning to start with.
func (d *Doc) Pos(n *yaml.Node) string { return d.errorAt(n, nil).where() }

// KeyPos is Pos for a warning that starts with the key path below n it
// is about (hook.IgnoredNote's hooks.SubagentStart: ...), as KeyErrorf's
// errors do: n's line in a file; in a keyed Doc the path alone.
func (d *Doc) KeyPos(n *yaml.Node) string {
	if d.Keyed {
		return d.Path
	}
	return d.Pos(n)
}

func (d *Doc) errorAt(n *yaml.Node, err error) *Error {
	if d.Keyed {
		return &Error{Path: d.Path, Key: d.keyOf(n), Err: err}
	}
	return &Error{Path: d.Path, Line: d.Line(n), Err: err}
}

// keyOf returns the key path of n among d's fields: a field's key, then
// ".member" for a mapping's value and "[i]" for a list's element
// (hooks.Stop[0].matcher), the way JSON parsers name a value; "" when n
// is not in d.
func (d *Doc) keyOf(n *yaml.Node) string {
	for _, f := range d.Fields {
		if f.Key == n {
			return f.Key.Value
		}
		if p, ok := keyPath(f.Value, n, f.Key.Value); ok {
			return p
		}
	}
	return ""
}

// keyPath returns the key path of n within v, whose own is at.
func keyPath(v, n *yaml.Node, at string) (string, bool) {
	if v == n {
		return at, true
	}
	switch v.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			k := v.Content[i]
			if k == n {
				return at + "." + k.Value, true
			}
			if p, ok := keyPath(v.Content[i+1], n, at+"."+k.Value); ok {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for i, el := range v.Content {
			if p, ok := keyPath(el, n, fmt.Sprintf("%s[%d]", at, i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// Missing returns the error for a required key the block lacks: it names
// the opening delimiter, or in a keyed Doc no position.
func (d *Doc) Missing(key string) error {
	err := fmt.Errorf("missing required field %q", key)
	if d.Keyed {
		return &Error{Path: d.Path, Err: err}
	}
	return &Error{Path: d.Path, Line: max(d.Open, 1), Err: err}
}

// Has reports whether the frontmatter sets key.
func (d *Doc) Has(key string) bool {
	for _, f := range d.Fields {
		if f.Key.Value == key {
			return true
		}
	}
	return false
}

// Resolve follows an alias to the node it names.
func Resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Text returns the value of a required, non-empty string field.
func (d *Doc) Text(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", d.Errorf(v, "%s must be a string", key)
	}
	s := strings.TrimSpace(v.Value)
	if v.ShortTag() == "!!null" || s == "" {
		return "", d.Errorf(v, "%s must not be empty", key)
	}
	return s, nil
}

// Rules parses a YAML list of rule strings, or one string of
// comma-separated rules (SplitRules), for a list of the given kind. Each
// must parse with perm.ParseListRule; an error names the line of the bad
// rule. Claude Code's own files name its tools beside gen's (Read, Edit,
// MultiEdit, TodoWrite): one gen does not have, where kind lets the list
// leave it out, is left out with a warning naming file:line. No rules is
// nil.
func (d *Doc) Rules(key string, v *yaml.Node, kind perm.ListKind) ([]perm.Rule, []string, error) {
	type item struct {
		text string
		node *yaml.Node
	}
	var items []item
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		// "key:" with no value: no rules.
	case v.Kind == yaml.ScalarNode:
		for _, s := range SplitRules(v.Value) {
			items = append(items, item{s, v})
		}
	case v.Kind == yaml.SequenceNode:
		for _, el := range v.Content {
			el = Resolve(el)
			if el.Kind != yaml.ScalarNode || el.ShortTag() == "!!null" {
				return nil, nil, d.Errorf(el, "%s must be a list of rule strings", key)
			}
			items = append(items, item{el.Value, el})
		}
	default:
		return nil, nil, d.Errorf(v, "%s must be a list of rule strings or one comma-separated string", key)
	}
	rules := make([]perm.Rule, 0, len(items))
	var warnings []string
	for _, it := range items {
		r, left, err := perm.ParseListRule(it.text, kind)
		if err != nil {
			return nil, nil, d.errorAt(it.node, err)
		}
		if left != "" {
			warnings = append(warnings, fmt.Sprintf("%s: %s: %s", d.Pos(it.node), key, left))
			continue
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, warnings, nil
	}
	return rules, warnings, nil
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

// ParseLenient is Parse for files written for Claude Code, whose loader
// accepts an unquoted free-text value containing ": " (as in
// "description: Use this agent when: ...") that strict YAML rejects. When
// strict parsing fails, each single-line, unquoted value of a key in
// freeText that contains ": " is read as a quoted string and the file is
// parsed again; warnings name each line recovered so. Only the keys in
// freeText are ever rewritten, so a broken value of any other key (a
// permission, say) still fails, with the line of that value.
func ParseLenient(path string, data []byte, what string, freeText ...string) (*Doc, []string, error) {
	return lenient(Parse, path, data, what, freeText)
}

// ParseOptionalLenient is ParseLenient for files whose frontmatter block
// may be left out (ParseOptional).
func ParseOptionalLenient(path string, data []byte, what string, freeText ...string) (*Doc, []string, error) {
	return lenient(ParseOptional, path, data, what, freeText)
}

func lenient(parse func(path string, data []byte, what string) (*Doc, error), path string, data []byte, what string, freeText []string) (*Doc, []string, error) {
	doc, err := parse(path, data, what)
	if err == nil || len(freeText) == 0 {
		return doc, nil, err
	}
	var fe *Error
	if !errors.As(err, &fe) || !isYAMLError(data, path, what) {
		return nil, nil, err
	}
	fixed, lines := quoteFreeText(bytes.TrimPrefix(data, []byte("\ufeff")), freeText)
	if len(lines) == 0 {
		return nil, nil, err
	}
	doc, err2 := parse(path, fixed, what)
	if err2 != nil {
		// The rewritten lines keep their numbers, so this error points at
		// the next problem, which is not one a free-text field can have.
		return nil, nil, err2
	}
	var warns []string
	for _, l := range lines {
		if l.bracket {
			// Claude Code's documentation writes argument hints so:
			// nothing to tell its users.
			continue
		}
		warns = append(warns, fmt.Sprintf("%s:%d: %s has an unquoted \": \" that strict YAML rejects; read as plain text (quote the value to silence this)", path, l.line, l.key))
	}
	return doc, warns, nil
}

// isYAMLError reports whether Parse fails on the YAML itself rather than
// on a missing or unclosed block.
func isYAMLError(data []byte, path, what string) bool {
	_, err := find(path, bytes.TrimPrefix(data, []byte("\ufeff")), what)
	return err == nil
}

// flowList reports whether val, which starts with "[", is one YAML flow
// list: the bracket that closes the first one ends it.
func flowList(val string) bool {
	depth := 0
	for i := 0; i < len(val); i++ {
		switch val[i] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return strings.TrimSpace(val[i+1:]) == ""
			}
		}
	}
	return false
}

type fixedLine struct {
	key     string
	line    int
	bracket bool // the value starts with "[", as in "[pr-number] [priority]"
}

// quoteFreeText rewrites, inside the frontmatter block, each top-level line
// "key: value" whose key is in keys and whose value is a plain scalar that
// contains ": ", or that starts with "[" and is not YAML by itself (Claude
// Code's "argument-hint: [pr-number] [priority]"), as "key: <value as a
// JSON string>" (a valid YAML double-quoted scalar). Line numbers are
// unchanged.
func quoteFreeText(data []byte, keys []string) ([]byte, []fixedLine) {
	lines := strings.Split(string(data), "\n")
	var fixed []fixedLine
	state := 0 // 0 before the block, 1 inside, 2 after
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case state == 0 && trimmed == "---":
			state = 1
			continue
		case state == 1 && trimmed == "---":
			state = 2
		}
		if state != 1 {
			if state == 2 {
				break
			}
			continue
		}
		for _, k := range keys {
			rest, ok := strings.CutPrefix(line, k+":")
			if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
				continue
			}
			val := strings.TrimSpace(rest)
			bracket := strings.HasPrefix(val, "[") && !flowList(val)
			if !bracket && (val == "" || strings.ContainsRune("\"'|>[{&*!%@`#", rune(val[0])) || !strings.Contains(val, ": ")) {
				continue
			}
			q, _ := json.Marshal(val)
			cr := ""
			if strings.HasSuffix(raw, "\r") {
				cr = "\r"
			}
			lines[i] = k + ": " + string(q) + cr
			fixed = append(fixed, fixedLine{k, i + 1, bracket})
		}
	}
	return []byte(strings.Join(lines, "\n")), fixed
}
