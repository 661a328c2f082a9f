package mcp

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/jsonpos"
	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// Transport is how gen talks to a server.
type Transport string

// The transports. HTTP is the streamable HTTP transport; SSE is the older
// HTTP+SSE transport (protocol 2024-11-05), kept because Claude Code
// configurations still name it.
const (
	Stdio Transport = "stdio"
	HTTP  Transport = "http"
	SSE   Transport = "sse"
)

// Server is one configured MCP server. Environment variables written as
// ${VAR} or ${VAR:-default} in Command, Args, Env, URL and Headers have
// already been expanded.
type Server struct {
	// Name is the key in mcpServers; it is valid (see ValidName).
	Name string
	// Source is the scope the server came from: perm.SourceProject for
	// .mcp.json, perm.SourceUser or perm.SourceManaged for settings files,
	// perm.SourceCLI for --mcp-config. Project servers must start only in
	// a trusted project; the caller enforces that.
	Source perm.Source
	// Path and Line locate the server's entry.
	Path string
	Line int

	Transport Transport
	// Command, Args and Env start a Stdio server. Env is added to gen's
	// own environment.
	Command string
	Args    []string
	Env     map[string]string
	// URL and Headers reach an HTTP or SSE server.
	URL     string
	Headers map[string]string
}

// ValidName reports whether name may name a server (perm.ValidMCPServer:
// the names rules can name).
func ValidName(name string) bool { return perm.ValidMCPServer(name) }

// ParseConfig parses an MCP configuration file in Claude Code's shape,
// {"mcpServers": {NAME: {...}}}, as found in .mcp.json and in the files
// given to --mcp-config. Any other top-level key is an error. src is the
// Source given to every server.
//
// A stdio server has "command" and optionally "args" and "env" (and may
// say "type": "stdio"); an HTTP server has "type": "http" (or "sse"),
// "url" and optionally "headers". Unknown keys, keys of the other
// transport, wrong types, invalid server names and unset environment
// variables without a default are errors naming path and line. The result
// is never partial: a file with one bad server yields no servers.
func ParseConfig(path string, data []byte, src perm.Source) (map[string]Server, error) {
	return parse(path, data, src, false)
}

// ParseSettings reads the "mcpServers" key of a settings file (user or
// managed scope) and ignores every other key, which belong to package
// settings. A file without mcpServers yields no servers.
func ParseSettings(path string, data []byte, src perm.Source) (map[string]Server, error) {
	return parse(path, data, src, true)
}

func parse(path string, data []byte, src perm.Source, settings bool) (map[string]Server, error) {
	root, err := jsonpos.Decode(path, data)
	if err != nil {
		return nil, err
	}
	p := parser{path: path, data: data, lookup: os.LookupEnv}
	if root.Kind != jsonpos.Object {
		return nil, p.errAt(root.Off, "the file must hold a JSON object, not %s", root.Kind)
	}
	top, err := p.unique(root, "")
	if err != nil {
		return nil, err
	}
	if !settings {
		for _, m := range root.Members {
			if m.Key != "mcpServers" {
				return nil, p.errAt(m.Off, "unknown key %q (an MCP configuration holds only \"mcpServers\")", m.Key)
			}
		}
	}
	list, ok := top["mcpServers"]
	if !ok {
		return map[string]Server{}, nil
	}
	if list.Kind != jsonpos.Object {
		return nil, p.errAt(list.Off, "mcpServers must be an object, not %s", list.Kind)
	}
	if _, err := p.unique(list, "mcpServers."); err != nil {
		return nil, err
	}
	out := make(map[string]Server, len(list.Members))
	for _, m := range list.Members {
		if !ValidName(m.Key) {
			return nil, p.errAt(m.Off, "invalid server name %q: use letters, digits, '_' and '-', without \"__\" or a leading or trailing '_'", m.Key)
		}
		s, err := p.server(m.Key, m.Val)
		if err != nil {
			return nil, err
		}
		s.Source, s.Path = src, path
		s.Line, _ = jsonpos.LineCol(data, m.Off)
		out[m.Key] = s
	}
	return out, nil
}

type parser struct {
	path   string
	data   []byte
	lookup func(string) (string, bool)
}

func (p *parser) errAt(off int, format string, args ...any) error {
	line, _ := jsonpos.LineCol(p.data, off)
	return &jsonpos.Error{Path: p.path, Line: line, Err: fmt.Errorf(format, args...)}
}

// unique indexes the members of object v by key. A key given twice is an
// error: encoding/json would silently keep the last one.
func (p *parser) unique(v *jsonpos.Value, prefix string) (map[string]*jsonpos.Value, error) {
	m := make(map[string]*jsonpos.Value, len(v.Members))
	for _, mem := range v.Members {
		if _, dup := m[mem.Key]; dup {
			return nil, p.errAt(mem.Off, "duplicate key %q", prefix+mem.Key)
		}
		m[mem.Key] = mem.Val
	}
	return m, nil
}

// serverKeys lists the keys each transport takes.
var serverKeys = lazy.Value[map[Transport][]string]{New: func() map[Transport][]string {
	return map[Transport][]string{
		Stdio: {"type", "command", "args", "env"},
		HTTP:  {"type", "url", "headers"},
		SSE:   {"type", "url", "headers"},
	}
}}

func (p *parser) server(name string, v *jsonpos.Value) (Server, error) {
	s := Server{Name: name}
	where := "mcpServers." + name
	if v.Kind != jsonpos.Object {
		return s, p.errAt(v.Off, "%s must be an object, not %s", where, v.Kind)
	}
	keys, err := p.unique(v, where+".")
	if err != nil {
		return s, err
	}
	s.Transport = Stdio
	if t, ok := keys["type"]; ok {
		if t.Kind != jsonpos.String {
			return s, p.errAt(t.Off, "%s.type must be a string", where)
		}
		switch Transport(t.Str) {
		case Stdio, HTTP, SSE:
			s.Transport = Transport(t.Str)
		case "streamable-http", "streamableHttp":
			return s, p.errAt(t.Off, "%s.type %q: write \"http\" for streamable HTTP", where, t.Str)
		default:
			return s, p.errAt(t.Off, "%s.type %q: must be \"stdio\", \"http\" or \"sse\"", where, t.Str)
		}
	} else if _, hasURL := keys["url"]; hasURL {
		return s, p.errAt(v.Off, "%s has a url but no type: add \"type\": \"http\"", where)
	}
	for _, m := range v.Members {
		if !slices.Contains(serverKeys.Get()[s.Transport], m.Key) {
			return s, p.errAt(m.Off, "unknown key %q in %s (a %s server takes %s)", m.Key, where, s.Transport, strings.Join(serverKeys.Get()[s.Transport], ", "))
		}
	}
	str := func(key string, required bool) (string, error) {
		val, ok := keys[key]
		if !ok {
			if required {
				return "", p.errAt(v.Off, "%s: missing %q", where, key)
			}
			return "", nil
		}
		if val.Kind != jsonpos.String {
			return "", p.errAt(val.Off, "%s.%s must be a string, not %s", where, key, val.Kind)
		}
		out, err := p.expand(val.Str)
		if err != nil {
			return "", p.errAt(val.Off, "%s.%s: %v", where, key, err)
		}
		if required && strings.TrimSpace(out) == "" {
			return "", p.errAt(val.Off, "%s.%s must not be empty", where, key)
		}
		return out, nil
	}
	strMap := func(key string) (map[string]string, error) {
		val, ok := keys[key]
		if !ok {
			return nil, nil
		}
		if val.Kind != jsonpos.Object {
			return nil, p.errAt(val.Off, "%s.%s must be an object of strings, not %s", where, key, val.Kind)
		}
		if _, err := p.unique(val, where+"."+key+"."); err != nil {
			return nil, err
		}
		out := make(map[string]string, len(val.Members))
		for _, m := range val.Members {
			if m.Val.Kind != jsonpos.String {
				return nil, p.errAt(m.Off, "%s.%s.%s must be a string, not %s", where, key, m.Key, m.Val.Kind)
			}
			x, err := p.expand(m.Val.Str)
			if err != nil {
				return nil, p.errAt(m.Val.Off, "%s.%s.%s: %v", where, key, m.Key, err)
			}
			out[m.Key] = x
		}
		return out, nil
	}
	if s.Transport == Stdio {
		if s.Command, err = str("command", true); err != nil {
			return s, err
		}
		if a, ok := keys["args"]; ok {
			if a.Kind != jsonpos.Array {
				return s, p.errAt(a.Off, "%s.args must be an array of strings, not %s", where, a.Kind)
			}
			for _, el := range a.Elems {
				if el.Kind != jsonpos.String {
					return s, p.errAt(el.Off, "%s.args must be an array of strings", where)
				}
				x, err := p.expand(el.Str)
				if err != nil {
					return s, p.errAt(el.Off, "%s.args: %v", where, err)
				}
				s.Args = append(s.Args, x)
			}
		}
		if s.Env, err = strMap("env"); err != nil {
			return s, err
		}
		for k := range s.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return s, p.errAt(keys["env"].Off, "%s.env: invalid variable name %q", where, k)
			}
		}
		return s, nil
	}
	if s.URL, err = str("url", true); err != nil {
		return s, err
	}
	if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return s, p.errAt(keys["url"].Off, "%s.url %q must be an http:// or https:// URL", where, s.URL)
	}
	s.Headers, err = strMap("headers")
	return s, err
}

// envRef is ${VAR} or ${VAR:-default}.
var envRef = lazyre.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces ${VAR} and ${VAR:-default}, as Claude Code does in
// .mcp.json. A variable that is unset and has no default is an error:
// a server started with half its configuration would fail in ways that
// are hard to trace back.
func (p *parser) expand(s string) (string, error) {
	var missing []string
	out := envRef.Get().ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef.Get().FindStringSubmatch(ref)
		v, ok := p.lookup(m[1])
		if ok && (v != "" || m[2] == "") {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		missing = append(missing, m[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set and has no default (write ${%s:-default})", missing[0], missing[0])
	}
	return out, nil
}

// rank orders sources for Merge, highest precedence first: the project's
// files (local, then shared) below everything the user and the
// administrator configure.
var rank = []perm.Source{perm.SourceManaged, perm.SourceCLI, perm.SourceUser, perm.SourceLocal, perm.SourceProject}

func rankOf(s perm.Source) int {
	if i := slices.Index(rank, s); i >= 0 {
		return i
	}
	return len(rank)
}

// Merge combines server sets from several sources into one. When a name is
// configured more than once, the server from the highest-precedence source
// wins whole (fields are never mixed): managed, then --mcp-config (CLI),
// then user, local, and project (.mcp.json) last. Of two with the same
// source (two --mcp-config files), the later set wins.
//
// Claude Code lets a project's .mcp.json override a user's server of the
// same name; gen does not, so that a rule a user wrote for their own
// server (an allow of mcp__github) never covers a server a repository
// brought in under that name. A project's local settings file
// (.gen/settings.local.json) is a file of the repository's tree too, which
// a clone may hold: its servers rank below the user's as well.
//
// Shadowed lists one line per server that lost, naming both entries.
func Merge(sets ...map[string]Server) (merged map[string]Server, shadowed []string) {
	merged = make(map[string]Server)
	for _, set := range sets {
		names := make([]string, 0, len(set))
		for n := range set {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			s := set[n]
			old, ok := merged[n]
			if !ok {
				merged[n] = s
				continue
			}
			win, lose := s, old
			if rankOf(old.Source) < rankOf(s.Source) {
				win, lose = old, s
			}
			merged[n] = win
			shadowed = append(shadowed, fmt.Sprintf("MCP server %q from %s (%s) is shadowed by %s (%s)", n, where(lose), lose.Source, where(win), win.Source))
		}
	}
	return merged, shadowed
}

func where(s Server) string {
	if s.Path == "" {
		return "(no file)"
	}
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.Path, s.Line)
	}
	return s.Path
}

// sortedServers returns the servers of m ordered by name.
func sortedServers(m map[string]Server) []Server {
	out := make([]Server, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
