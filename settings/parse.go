package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gen-run/gen/internal/editdist"
	"github.com/gen-run/gen/perm"
)

// Error is a problem at a place in a settings file.
type Error struct {
	Path string
	Line int
	Col  int // 0 when only the line is known
	Err  error
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// kind is the type of a JSON value.
type kind int

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a decoded JSON value that remembers where it starts, so that
// errors can name the line of the offending key or string.
type value struct {
	off     int
	end     int // offset just past the value
	kind    kind
	str     string
	boolean bool
	members []member // kindObject, in file order
	elems   []*value // kindArray
}

type member struct {
	key string
	off int // offset of the key
	val *value
}

// syntaxError returns err, a json.Unmarshal error for data, as an *Error
// with the line and column of the offending byte.
func syntaxError(path string, data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &Error{Path: path, Line: 1, Err: err}
	}
	// Offset counts the bytes read, the offending one included; at the
	// end of the input it is the length, which is where the error is.
	pos := int(se.Offset) - 1
	if pos < 0 || strings.HasPrefix(se.Error(), "unexpected end") {
		pos = int(se.Offset)
	}
	line, col := lineCol(data, pos)
	return &Error{Path: path, Line: line, Col: col, Err: err}
}

// decode parses data, which must be valid JSON, into a value tree.
func decode(path string, data []byte) (*value, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, syntaxError(path, data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return decodeValue(dec, data)
}

// start returns the offset of the next token: InputOffset is the end of
// the previous one, which may be followed by space, ',' or ':'.
func start(dec *json.Decoder, data []byte) int {
	off := int(dec.InputOffset())
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

func decodeValue(dec *json.Decoder, data []byte) (*value, error) {
	v := &value{off: start(dec, data)}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		v.kind = kindNull
	case bool:
		v.kind, v.boolean = kindBool, t
	case json.Number:
		v.kind, v.str = kindNumber, t.String()
	case string:
		v.kind, v.str = kindString, t
	case json.Delim:
		switch t {
		case '{':
			v.kind = kindObject
			for dec.More() {
				off := start(dec, data)
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeValue(dec, data)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, member{key: k.(string), off: off, val: val})
			}
		case '[':
			v.kind = kindArray
			for dec.More() {
				el, err := decodeValue(dec, data)
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, el)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	}
	v.end = int(dec.InputOffset())
	return v, nil
}

// lineCol returns the 1-based line and byte column of offset off in data.
func lineCol(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(data[:off], '\n')
}

// parser turns one settings file into a File.
type parser struct {
	path string
	data []byte
	warn []string
}

func (p *parser) errAt(off int, format string, args ...any) error {
	line, _ := lineCol(p.data, off)
	return &Error{Path: p.path, Line: line, Err: fmt.Errorf(format, args...)}
}

func (p *parser) wrapAt(off int, err error) error {
	line, _ := lineCol(p.data, off)
	return &Error{Path: p.path, Line: line, Err: err}
}

// trustedKey is the top-level key of the user settings that lists the
// project roots the user trusts (see package trust).
const trustedKey = "trustedProjects"

// TrustedProjects returns the trustedProjects list of the user settings
// file at path, whose contents are data.
func TrustedProjects(path string, data []byte) ([]string, error) {
	f, _, err := parseFile(perm.SourceUser, path, data, filepath.Dir(path), filepath.Dir(filepath.Dir(path)))
	if err != nil {
		return nil, err
	}
	return f.TrustedProjects, nil
}

// trusted parses trustedProjects. Only the user and managed scopes may
// grant trust: a project cannot vouch for itself.
func (p *parser) trusted(f *File, v *value) error {
	if f.Scope != perm.SourceUser && f.Scope != perm.SourceManaged {
		return p.errAt(v.off, "%s belongs in the user settings (~/.gen/settings.json): a project cannot trust itself", trustedKey)
	}
	strs, err := p.strings(v, trustedKey)
	if err != nil {
		return err
	}
	for _, s := range strs {
		if !filepath.IsAbs(s.str) {
			return p.errAt(s.off, "%s: %q is not an absolute path", trustedKey, s.str)
		}
		f.TrustedProjects = appendUnique(f.TrustedProjects, filepath.Clean(s.str))
	}
	return nil
}

// mcpKey is the top-level key that configures MCP servers, Claude Code's
// {"mcpServers": {NAME: {...}}}.
const mcpKey = "mcpServers"

// permissionKeys are the keys known inside "permissions": Claude Code's,
// and allowManagedPermissionRulesOnly, which gen read there before it
// followed Claude Code in reading it at the top level.
var permissionKeys = []string{
	"allow", "ask", "deny", "defaultMode", "additionalDirectories",
	"disableBypassPermissionsMode", "disableAutoMode", "allowManagedPermissionRulesOnly",
}

// Top-level keys gen reads besides permissions and trustedProjects.
const (
	managedRulesKey = "allowManagedPermissionRulesOnly"
	managedMCPKey   = "allowManagedMcpServersOnly"
	disableAutoKey  = "disableAutoMode"
	aliasesKey      = "modelAliases"
)

// topLevelKeys are the top-level keys gen reads, for the warning about
// any other key.
var topLevelKeys = []string{
	"permissions", "api", hooksKey, mcpKey, sandboxKey, trustedKey,
	managedRulesKey, managedHooksKey, managedMCPKey, disableAutoKey, aliasesKey, mcpAllowKey, mcpDenyKey,
}

// claudeMCPKeys are Claude Code's other top-level MCP keys. gen does not
// read them (they are warned about like any unknown key), but they are not
// misspellings of mcpServers.
var claudeMCPKeys = []string{
	"enableAllProjectMcpServers",
	"enabledMcpjsonServers", "disabledMcpjsonServers",
}

// parseFile parses the settings file at path. Relative
// additionalDirectories resolve against base.
func parseFile(scope perm.Source, path string, data []byte, base, home string) (*File, []string, error) {
	p := &parser{path: path, data: data}
	top, err := decode(path, data)
	if err != nil {
		return nil, nil, err
	}
	if top.kind != kindObject {
		return nil, nil, p.errAt(top.off, "settings must be a JSON object")
	}
	f := &File{Scope: scope, Path: path}
	keys, err := p.unique(top, "")
	if err != nil {
		return nil, nil, err
	}
	for _, m := range top.members {
		if m.key == "permissions" || m.key == "$schema" || m.key == "api" {
			continue
		}
		if m.key == mcpKey {
			// Package mcp parses the servers (mcp.ParseSettings), with
			// errors at their lines; here only the shape is checked.
			if m.val.kind != kindObject {
				return nil, nil, p.errAt(m.val.off, "%s must be an object of servers", mcpKey)
			}
			f.MCPServers = data
			continue
		}
		if m.key == sandboxKey {
			continue
		}
		switch m.key {
		case hooksKey:
			if err := p.hooks(f, m.val); err != nil {
				return nil, nil, err
			}
			continue
		case trustedKey:
			if err := p.trusted(f, m.val); err != nil {
				return nil, nil, err
			}
			continue
		case managedRulesKey:
			if err := p.flag(m.val, m.key, &f.ManagedRulesOnly, false); err != nil {
				return nil, nil, err
			}
			continue
		case managedHooksKey:
			if err := p.managedHooksOnly(f, m); err != nil {
				return nil, nil, err
			}
			continue
		case managedMCPKey:
			if err := p.flag(m.val, m.key, &f.ManagedMCPOnly, false); err != nil {
				return nil, nil, err
			}
			continue
		case disableAutoKey:
			if err := p.flag(m.val, m.key, &f.DisableAuto, true); err != nil {
				return nil, nil, err
			}
			continue
		case aliasesKey:
			if err := p.aliases(f, m.val); err != nil {
				return nil, nil, err
			}
			continue
		case mcpAllowKey:
			if f.MCPAllow, err = p.mcpRules(m.key, m.val); err != nil {
				return nil, nil, err
			}
			continue
		case mcpDenyKey:
			if f.MCPDeny, err = p.mcpRules(m.key, m.val); err != nil {
				return nil, nil, err
			}
			continue
		}
		line, _ := lineCol(data, m.off)
		if slices.Contains(permissionKeys, m.key) {
			// {"disableBypassPermissionsMode": true} at the top level
			// would silently do nothing.
			return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("%q belongs inside \"permissions\"", m.key)}
		}
		if near, ok := nearMiss(m.key, "permissions", mcpKey); ok && !slices.Contains(claudeMCPKeys, m.key) {
			// A misspelt permissions object would silently mean no rules.
			return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("unknown key %q: did you mean %q?", m.key, near)}
		}
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: unknown top-level key %q (gen reads only %s; ignored)", path, line, m.key, quoteList(topLevelKeys)))
	}
	if av, ok := keys["api"]; ok {
		if err := p.api(f, av); err != nil {
			return nil, nil, err
		}
	}
	if sv, ok := keys[sandboxKey]; ok {
		if err := p.sandbox(f, sv, base, home); err != nil {
			return nil, nil, err
		}
	}
	pv, ok := keys["permissions"]
	if !ok {
		return f, p.warn, nil
	}
	if pv.kind != kindObject {
		return nil, nil, p.errAt(pv.off, "permissions must be an object")
	}
	fields, err := p.unique(pv, "permissions.")
	if err != nil {
		return nil, nil, err
	}
	for _, m := range pv.members {
		if !slices.Contains(permissionKeys, m.key) {
			// An unknown key is an error, not a warning: a misspelt or
			// miscased deny list ("Deny") would silently drop its rules.
			line, _ := lineCol(data, m.off)
			if near, ok := nearMiss(m.key, permissionKeys...); ok {
				return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("unknown key %q in permissions: did you mean %q?", m.key, near)}
			}
			return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("unknown key %q in permissions (known keys: %s)", m.key, strings.Join(permissionKeys, ", "))}
		}
	}
	lists := []struct {
		key string
		dst *[]perm.Entry
	}{{"allow", &f.Allow}, {"ask", &f.Ask}, {"deny", &f.Deny}}
	for _, l := range lists {
		v, ok := fields[l.key]
		if !ok {
			continue
		}
		strs, err := p.strings(v, "permissions."+l.key)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range strs {
			r, err := perm.ParseRule(s.str)
			if err != nil {
				return nil, nil, p.wrapAt(s.off, err)
			}
			*l.dst = append(*l.dst, perm.Entry{Rule: r, Source: scope, Origin: path})
		}
	}
	if v, ok := fields["defaultMode"]; ok {
		if err := p.mode(f, v); err != nil {
			return nil, nil, err
		}
	}
	if v, ok := fields["additionalDirectories"]; ok {
		strs, err := p.strings(v, "permissions.additionalDirectories")
		if err != nil {
			return nil, nil, err
		}
		for _, s := range strs {
			dir, err := resolveDir(s.str, base, home)
			if err != nil {
				return nil, nil, p.errAt(s.off, "permissions.additionalDirectories: %v", err)
			}
			f.AdditionalDirectories = appendUnique(f.AdditionalDirectories, dir)
		}
	}
	for _, b := range []struct {
		key     string
		dst     *bool
		disable bool // also takes Claude Code's "disable"
	}{
		{"disableBypassPermissionsMode", &f.DisableBypass, true},
		{"disableAutoMode", &f.DisableAuto, true},
		{"allowManagedPermissionRulesOnly", &f.ManagedRulesOnly, false},
	} {
		if v, ok := fields[b.key]; ok {
			// Either place setting it to true sets it.
			was := *b.dst
			if err := p.flag(v, "permissions."+b.key, b.dst, b.disable); err != nil {
				return nil, nil, err
			}
			*b.dst = *b.dst || was
		}
	}
	return f, p.warn, nil
}

// flag reads a boolean setting: true or false, and with disable also
// Claude Code's "disable" (which means true). Anything else is an error,
// so that a misspelt value never leaves a restriction off.
func (p *parser) flag(v *value, name string, dst *bool, disable bool) error {
	switch {
	case v.kind == kindBool:
		*dst = v.boolean
	case disable && v.kind == kindString && v.str == "disable":
		*dst = true
	case disable:
		return p.errAt(v.off, "%s must be \"disable\", true or false", name)
	default:
		return p.errAt(v.off, "%s must be true or false", name)
	}
	return nil
}

// aliases reads modelAliases: an object of non-empty model names by alias.
func (p *parser) aliases(f *File, v *value) error {
	if v.kind != kindObject {
		return p.errAt(v.off, "%s must be an object of model names by alias, like {\"sonnet\": \"my-model\"}", aliasesKey)
	}
	if _, err := p.unique(v, aliasesKey+"."); err != nil {
		return err
	}
	f.ModelAliases = make(map[string]string, len(v.members))
	for _, m := range v.members {
		if m.val.kind != kindString || strings.TrimSpace(m.val.str) == "" {
			return p.errAt(m.val.off, "%s.%s must be a non-empty model name", aliasesKey, m.key)
		}
		f.ModelAliases[m.key] = m.val.str
	}
	return nil
}

// unique indexes the members of object v by key. A key given twice is an
// error: encoding/json would silently keep the last one, and which of two
// deny lists applies must not be a guess.
func (p *parser) unique(v *value, prefix string) (map[string]*value, error) {
	m := make(map[string]*value, len(v.members))
	for _, mem := range v.members {
		if _, dup := m[mem.key]; dup {
			return nil, p.errAt(mem.off, "duplicate key %q", prefix+mem.key)
		}
		m[mem.key] = mem.val
	}
	return m, nil
}

// strings checks that v is an array of strings and returns its elements.
func (p *parser) strings(v *value, name string) ([]*value, error) {
	if v.kind != kindArray {
		return nil, p.errAt(v.off, "%s must be an array of strings", name)
	}
	for _, el := range v.elems {
		if el.kind != kindString {
			return nil, p.errAt(el.off, "%s must be an array of strings", name)
		}
	}
	return v.elems, nil
}

func (p *parser) mode(f *File, v *value) error {
	if v.kind != kindString {
		return p.errAt(v.off, "permissions.defaultMode must be a string")
	}
	if v.str == "plan" {
		// Claude Code's plan mode has no main-loop twin in gen (explore is
		// for subagents). default, which asks before every change, is the
		// closest mode that is not more permissive.
		line, _ := lineCol(p.data, v.off)
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: defaultMode \"plan\" is Claude Code's; gen starts in \"default\", which asks before any change", p.path, line))
		f.DefaultMode, f.modeLine = perm.ModeDefault, line
		return nil
	}
	m, err := perm.ParseMode(v.str)
	if err != nil || v.str == "" {
		// ParseMode reads "" as default; in a file it is more likely a
		// mistake than a wish, so it is refused like any unknown name.
		return p.errAt(v.off, "unknown mode %q in permissions.defaultMode (want one of %s)", v.str, mainLoopModeList())
	}
	if m == perm.ModeExplore {
		return p.errAt(v.off, "permissions.defaultMode %q is only for subagents (want one of %s)", v.str, mainLoopModeList())
	}
	f.DefaultMode = m
	f.modeLine, _ = lineCol(p.data, v.off)
	return nil
}

func mainLoopModeList() string {
	names := make([]string, len(perm.MainLoopModes))
	for i, m := range perm.MainLoopModes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// nearMiss reports the key of want that key most likely misspells: the
// same key in another case ("Deny"), one within two edits, or one it
// contains ("deny_rules"), case-insensitively. A key equal to one of want
// is no miss.
func nearMiss(key string, want ...string) (string, bool) {
	if slices.Contains(want, key) {
		return "", false
	}
	k := strings.ToLower(key)
	for _, w := range want {
		if lw := strings.ToLower(w); k == lw || strings.Contains(k, lw) || editdist.Distance(k, lw) <= 2 {
			return w, true
		}
	}
	return "", false
}

// quoteList is keys quoted and joined with ", ".
func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}
