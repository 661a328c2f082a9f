package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gen-run/gen/internal/editdist"
	"github.com/gen-run/gen/internal/jsonpos"
	"github.com/gen-run/gen/perm"
)

// Error is a problem at a place in a settings file: file, line and,
// where known, column.
type Error = jsonpos.Error

// The settings parser works on jsonpos's positional value tree.
type (
	value  = jsonpos.Value
	member = jsonpos.Member
)

const (
	kindNull   = jsonpos.Null
	kindBool   = jsonpos.Bool
	kindNumber = jsonpos.Number
	kindString = jsonpos.String
	kindArray  = jsonpos.Array
	kindObject = jsonpos.Object
)

var (
	decode  = jsonpos.Decode
	lineCol = jsonpos.LineCol
)

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
func TrustedProjects(path string, data []byte) ([]TrustedProject, error) {
	f, _, err := parseFile(perm.SourceUser, path, data, filepath.Dir(path), filepath.Dir(filepath.Dir(path)))
	if err != nil {
		return nil, err
	}
	return f.TrustedProjects, nil
}

// trusted parses trustedProjects: an array whose entries are an absolute
// path, or {"path": ..., "files": {relpath: digest}} (TrustedProject).
// Only the user and managed scopes may grant trust: a project cannot vouch
// for itself.
func (p *parser) trusted(f *File, v *value) error {
	if f.Scope != perm.SourceUser && f.Scope != perm.SourceManaged {
		return p.errAt(v.Off, "%s belongs in the user settings (~/.gen/settings.json): a project cannot trust itself", trustedKey)
	}
	const shape = "%s must be an array of project paths or {\"path\": ..., \"files\": {...}} objects"
	if v.Kind != kindArray {
		return p.errAt(v.Off, shape, trustedKey)
	}
	for _, el := range v.Elems {
		var t TrustedProject
		switch el.Kind {
		case kindString:
			t.Path = el.Str
		case kindObject:
			var err error
			if t, err = p.trustedEntry(el); err != nil {
				return err
			}
		default:
			return p.errAt(el.Off, shape, trustedKey)
		}
		if !filepath.IsAbs(t.Path) {
			return p.errAt(el.Off, "%s: %q is not an absolute path", trustedKey, t.Path)
		}
		t.Path = filepath.Clean(t.Path)
		f.TrustedProjects = append(f.TrustedProjects, t)
	}
	return nil
}

// trustedEntry parses one {"path", "files"} entry of trustedProjects.
func (p *parser) trustedEntry(v *value) (TrustedProject, error) {
	var t TrustedProject
	keys, err := p.unique(v, trustedKey+"[].")
	if err != nil {
		return t, err
	}
	for _, m := range v.Members {
		if m.Key != "path" && m.Key != "files" {
			return t, p.errAt(m.Off, "unknown key %q in a %s entry (want \"path\" and \"files\")", m.Key, trustedKey)
		}
	}
	pv, ok := keys["path"]
	if !ok || pv.Kind != kindString {
		return t, p.errAt(v.Off, "a %s entry needs \"path\", a string", trustedKey)
	}
	t.Path = pv.Str
	fv, ok := keys["files"]
	if !ok || fv.Kind != kindObject {
		return t, p.errAt(v.Off, "the %s entry for %q needs \"files\", an object of file digests (run `gen trust %s` to record it)", trustedKey, t.Path, t.Path)
	}
	t.Files = make(map[string]string, len(fv.Members))
	if _, err := p.unique(fv, trustedKey+"[].files."); err != nil {
		return t, err
	}
	for _, m := range fv.Members {
		if !validTrustPath(m.Key) {
			return t, p.errAt(m.Off, "%s: %q is not a path inside the project", trustedKey, m.Key)
		}
		if m.Val.Kind != kindString || !validDigest(m.Val.Str) {
			return t, p.errAt(m.Val.Off, "%s: the digest of %q must be %q or \"sha256:\" and 64 lowercase hex digits", trustedKey, m.Key, Absent)
		}
		t.Files[m.Key] = m.Val.Str
	}
	return t, nil
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
	agentKey        = "agent"
)

// topLevelKeys are the top-level keys gen reads, for the warning about
// any other key.
var topLevelKeys = []string{
	"permissions", "api", hooksKey, mcpKey, sandboxKey, trustedKey,
	managedRulesKey, managedHooksKey, noHooksKey, managedMCPKey, disableAutoKey, aliasesKey, mcpAllowKey, mcpDenyKey,
	mcpjsonOnKey, mcpjsonOffKey, mcpjsonAllOnKey, agentKey, pluginOnlyKey, noShellKey,
}

// forbiddingKeys are the top-level keys whose value may forbid or narrow
// (rules, guard hooks, the sandbox, the switches that keep rules, hooks
// and servers to managed settings, the lists of servers): an unknown key
// that misspells one (nearMiss) is an error, as ignoring it would allow
// what the file meant to forbid. Other unknown keys, most of them Claude
// Code's, are a warning.
var forbiddingKeys = []string{
	"permissions", mcpKey, hooksKey, sandboxKey, managedRulesKey, managedHooksKey, noHooksKey,
	managedMCPKey, disableAutoKey, mcpAllowKey, mcpDenyKey, mcpjsonOnKey, mcpjsonOffKey, pluginOnlyKey, noShellKey,
}

// parseManagedMCP reads Claude Code's managed-mcp.json, which holds only
// "mcpServers" (package mcp parses the servers): any other key, or
// servers that are not an object, is an error naming the line, never a
// file without its servers and so without its exclusivity.
func parseManagedMCP(path string, data []byte) (*File, error) {
	p := &parser{path: path, data: data}
	top, err := decode(path, data)
	if err != nil {
		return nil, err
	}
	if top.Kind != kindObject {
		return nil, p.errAt(top.Off, "managed-mcp.json must be a JSON object")
	}
	if _, err := p.unique(top, ""); err != nil {
		return nil, err
	}
	for _, m := range top.Members {
		if m.Key != mcpKey {
			return nil, p.errAt(m.Off, "unknown key %q (managed-mcp.json holds only %q)", m.Key, mcpKey)
		}
		if m.Val.Kind != kindObject {
			return nil, p.errAt(m.Val.Off, "%s must be an object of servers", mcpKey)
		}
	}
	return &File{Scope: perm.SourceManaged, Path: path, MCPServers: data, mcpExclusive: true}, nil
}

// parseFile parses the settings file at path. Relative
// additionalDirectories resolve against base.
func parseFile(scope perm.Source, path string, data []byte, base, home string) (*File, []string, error) {
	p := &parser{path: path, data: data}
	top, err := decode(path, data)
	if err != nil {
		return nil, nil, err
	}
	if top.Kind != kindObject {
		return nil, nil, p.errAt(top.Off, "settings must be a JSON object")
	}
	f := &File{Scope: scope, Path: path}
	keys, err := p.unique(top, "")
	if err != nil {
		return nil, nil, err
	}
	for _, m := range top.Members {
		if m.Key == "permissions" || m.Key == "$schema" || m.Key == "api" {
			continue
		}
		if m.Key == mcpKey {
			// Package mcp parses the servers (mcp.ParseSettings), with
			// errors at their lines; here only the shape is checked.
			if m.Val.Kind != kindObject {
				return nil, nil, p.errAt(m.Val.Off, "%s must be an object of servers", mcpKey)
			}
			f.MCPServers = data
			continue
		}
		if m.Key == sandboxKey {
			continue
		}
		switch m.Key {
		case hooksKey:
			if err := p.hooks(f, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case trustedKey:
			if err := p.trusted(f, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case managedRulesKey:
			if err := p.flag(m.Val, m.Key, &f.ManagedRulesOnly, false); err != nil {
				return nil, nil, err
			}
			continue
		case managedHooksKey:
			if err := p.managedHooksOnly(f, m); err != nil {
				return nil, nil, err
			}
			continue
		case noShellKey:
			if err := p.flag(m.Val, m.Key, &f.NoSkillShell, false); err != nil {
				return nil, nil, err
			}
			continue
		case pluginOnlyKey:
			if err := p.pluginOnly(f, m); err != nil {
				return nil, nil, err
			}
			continue
		case noHooksKey:
			if err := p.flag(m.Val, m.Key, &f.NoHooks, false); err != nil {
				return nil, nil, err
			}
			continue
		case managedMCPKey:
			if err := p.flag(m.Val, m.Key, &f.ManagedMCPOnly, false); err != nil {
				return nil, nil, err
			}
			continue
		case disableAutoKey:
			if err := p.flag(m.Val, m.Key, &f.DisableAuto, true); err != nil {
				return nil, nil, err
			}
			continue
		case aliasesKey:
			if err := p.aliases(f, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case agentKey:
			if m.Val.Kind != kindString || strings.TrimSpace(m.Val.Str) == "" {
				return nil, nil, p.errAt(m.Val.Off, "%s must be the name of an agent, like \"code-reviewer\"", agentKey)
			}
			f.Agent = m.Val.Str
			f.agentLine, _ = lineCol(data, m.Val.Off)
			continue
		case mcpAllowKey:
			if f.MCPAllow, err = p.mcpRules(m.Key, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case mcpDenyKey:
			if f.MCPDeny, err = p.mcpRules(m.Key, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case mcpjsonOnKey:
			if f.MCPJSONOn, err = p.mcpjsonNames(m.Key, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case mcpjsonOffKey:
			if f.MCPJSONOff, err = p.mcpjsonNames(m.Key, m.Val); err != nil {
				return nil, nil, err
			}
			continue
		case mcpjsonAllOnKey:
			if err := p.flag(m.Val, m.Key, &f.MCPJSONAllOn, false); err != nil {
				return nil, nil, err
			}
			continue
		}
		line, _ := lineCol(data, m.Off)
		if slices.Contains(permissionKeys, m.Key) {
			// {"disableBypassPermissionsMode": true} at the top level
			// would silently do nothing.
			return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("%q belongs inside \"permissions\"", m.Key)}
		}
		if near, ok := nearMiss(m.Key, forbiddingKeys...); ok {
			// A misspelt permissions object would silently mean no
			// rules, a misspelt deniedMcpServers no denied server.
			return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("unknown key %q: did you mean %q?", m.Key, near)}
		}
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: unknown top-level key %q (gen reads only %s; ignored)", path, line, m.Key, quoteList(topLevelKeys)))
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
	if pv.Kind != kindObject {
		return nil, nil, p.errAt(pv.Off, "permissions must be an object")
	}
	fields, err := p.unique(pv, "permissions.")
	if err != nil {
		return nil, nil, err
	}
	for _, m := range pv.Members {
		if !slices.Contains(permissionKeys, m.Key) {
			// An unknown key is an error, not a warning: a misspelt or
			// miscased deny list ("Deny") would silently drop its rules.
			line, _ := lineCol(data, m.Off)
			if near, ok := nearMiss(m.Key, permissionKeys...); ok {
				return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("unknown key %q in permissions: did you mean %q?", m.Key, near)}
			}
			return nil, nil, &Error{Path: path, Line: line, Err: fmt.Errorf("unknown key %q in permissions (known keys: %s)", m.Key, strings.Join(permissionKeys, ", "))}
		}
	}
	lists := []struct {
		key  string
		dst  *[]perm.Entry
		kind perm.ListKind
	}{{"allow", &f.Allow, perm.AllowList}, {"ask", &f.Ask, perm.AllowList}, {"deny", &f.Deny, perm.DenyList}}
	for _, l := range lists {
		v, ok := fields[l.key]
		if !ok {
			continue
		}
		strs, err := p.strings(v, "permissions."+l.key)
		if err != nil {
			return nil, nil, err
		}
		if l.key == "allow" && len(strs) > 0 {
			f.allowLine, _ = lineCol(p.data, strs[0].Off)
		}
		for _, s := range strs {
			// Claude Code's "allow": ["Edit", "MultiEdit"]: a rule that
			// could only allow or ask about calls gen never makes is
			// left out.
			r, left, err := perm.ParseListRule(s.Str, l.kind)
			if err != nil {
				return nil, nil, p.wrapAt(s.Off, err)
			}
			if left != "" {
				line, _ := lineCol(p.data, s.Off)
				p.warn = append(p.warn, fmt.Sprintf("%s:%d: permissions.%s: %s", p.path, line, l.key, left))
				continue
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
			dir, err := resolveDir(s.Str, base, home)
			if err != nil {
				return nil, nil, p.errAt(s.Off, "permissions.additionalDirectories: %v", err)
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				// As for --add-dir: a directory that is not there yet
				// would be workspace the moment anything appears under
				// that name. Leaving it out only narrows.
				line, _ := lineCol(p.data, s.Off)
				p.warn = append(p.warn, fmt.Sprintf("%s:%d: permissions.additionalDirectories: %s is not an existing directory; ignored", p.path, line, dir))
				continue
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
	case v.Kind == kindBool:
		*dst = v.Boolean
	case disable && v.Kind == kindString && v.Str == "disable":
		*dst = true
	case disable:
		return p.errAt(v.Off, "%s must be \"disable\", true or false", name)
	default:
		return p.errAt(v.Off, "%s must be true or false", name)
	}
	return nil
}

// aliases reads modelAliases: an object of non-empty model names by alias.
func (p *parser) aliases(f *File, v *value) error {
	if v.Kind != kindObject {
		return p.errAt(v.Off, "%s must be an object of model names by alias, like {\"sonnet\": \"my-model\"}", aliasesKey)
	}
	if _, err := p.unique(v, aliasesKey+"."); err != nil {
		return err
	}
	f.ModelAliases = make(map[string]string, len(v.Members))
	for _, m := range v.Members {
		if m.Val.Kind != kindString || strings.TrimSpace(m.Val.Str) == "" {
			return p.errAt(m.Val.Off, "%s.%s must be a non-empty model name", aliasesKey, m.Key)
		}
		f.ModelAliases[m.Key] = m.Val.Str
	}
	return nil
}

// unique indexes the members of object v by key. A key given twice is an
// error: encoding/json would silently keep the last one, and which of two
// deny lists applies must not be a guess.
func (p *parser) unique(v *value, prefix string) (map[string]*value, error) {
	m := make(map[string]*value, len(v.Members))
	for _, mem := range v.Members {
		if _, dup := m[mem.Key]; dup {
			return nil, p.errAt(mem.Off, "duplicate key %q", prefix+mem.Key)
		}
		m[mem.Key] = mem.Val
	}
	return m, nil
}

// strings checks that v is an array of strings and returns its elements.
func (p *parser) strings(v *value, name string) ([]*value, error) {
	if v.Kind != kindArray {
		return nil, p.errAt(v.Off, "%s must be an array of strings", name)
	}
	for _, el := range v.Elems {
		if el.Kind != kindString {
			return nil, p.errAt(el.Off, "%s must be an array of strings", name)
		}
	}
	return v.Elems, nil
}

func (p *parser) mode(f *File, v *value) error {
	if v.Kind != kindString {
		return p.errAt(v.Off, "permissions.defaultMode must be a string")
	}
	m, err := perm.ParseMode(v.Str)
	if err != nil || v.Str == "" {
		// ParseMode reads "" as default; in a file it is more likely a
		// mistake than a wish, so it is refused like any unknown name.
		return p.errAt(v.Off, "unknown mode %q in permissions.defaultMode (want one of %s)", v.Str, mainLoopModeList())
	}
	if m == perm.ModeExplore {
		return p.errAt(v.Off, "permissions.defaultMode %q is only for subagents (want one of %s)", v.Str, mainLoopModeList())
	}
	f.DefaultMode = m
	f.modeLine, _ = lineCol(p.data, v.Off)
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
// contains ("deny_rules"), case-insensitively; of several, the fewest
// edits away ("disableallhooks" is disableAllHooks, not hooks). A key
// equal to one of want is no miss.
func nearMiss(key string, want ...string) (string, bool) {
	if slices.Contains(want, key) {
		return "", false
	}
	k := strings.ToLower(key)
	best, bestDist := "", -1
	for _, w := range want {
		lw := strings.ToLower(w)
		d := editdist.Distance(k, lw)
		if (k == lw || strings.Contains(k, lw) || d <= 2) && (bestDist < 0 || d < bestDist) {
			best, bestDist = w, d
		}
	}
	return best, bestDist >= 0
}

// quoteList is keys quoted and joined with ", ".
func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}
