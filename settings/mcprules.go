package settings

import (
	"fmt"
	"strings"

	"github.com/gen-run/gen/perm"
)

// Claude Code's lists of the MCP servers that may start.
const (
	mcpAllowKey = "allowedMcpServers"
	mcpDenyKey  = "deniedMcpServers"
)

// MCPServerRule is one entry of allowedMcpServers or deniedMcpServers, in
// Claude Code's shape: exactly one of a server name, a stdio command line
// (command and arguments, exactly) or a URL pattern where * matches any
// run of characters.
type MCPServerRule struct {
	Name    string
	Command []string
	URL     string
	// Origin is the file the rule came from, for warnings.
	Origin string
}

// MCPRules are the merged allow and deny lists. Deny entries from every
// scope apply. Allow is nil when no scope sets allowedMcpServers (no
// restriction); an empty, non-nil Allow allows no server.
type MCPRules struct {
	Allow, Deny []MCPServerRule
}

// mcpRules parses allowedMcpServers or deniedMcpServers. Anything that is
// not a list of entries with exactly one known key is an error: a list an
// administrator wrote must never be skipped.
func (p *parser) mcpRules(key string, v *value) ([]MCPServerRule, error) {
	if v.kind != kindArray {
		return nil, p.errAt(v.off, "%s must be a list of {\"serverName\"}, {\"serverCommand\"} or {\"serverUrl\"} entries", key)
	}
	out := make([]MCPServerRule, 0, len(v.elems))
	for i, el := range v.elems {
		at := fmt.Sprintf("%s[%d]", key, i)
		if el.kind != kindObject || len(el.members) != 1 {
			return nil, p.errAt(el.off, "%s must be an object with exactly one of serverName, serverCommand or serverUrl", at)
		}
		m := el.members[0]
		r := MCPServerRule{Origin: p.path}
		switch m.key {
		case "serverName":
			if m.val.kind != kindString || strings.TrimSpace(m.val.str) == "" {
				return nil, p.errAt(m.val.off, "%s.serverName must be a non-empty string", at)
			}
			r.Name = m.val.str
		case "serverUrl":
			if m.val.kind != kindString || strings.TrimSpace(m.val.str) == "" {
				return nil, p.errAt(m.val.off, "%s.serverUrl must be a non-empty string", at)
			}
			r.URL = m.val.str
		case "serverCommand":
			if m.val.kind != kindArray || len(m.val.elems) == 0 {
				return nil, p.errAt(m.val.off, "%s.serverCommand must be a non-empty list of strings", at)
			}
			for _, w := range m.val.elems {
				if w.kind != kindString {
					return nil, p.errAt(w.off, "%s.serverCommand must be a non-empty list of strings", at)
				}
				r.Command = append(r.Command, w.str)
			}
		default:
			return nil, p.errAt(m.off, "%s: unknown key %q (want serverName, serverCommand or serverUrl)", at, m.key)
		}
		out = append(out, r)
	}
	return out, nil
}

// mergeMCPRules sets s.MCP from s.Files: every deny list; the allow lists
// of every scope, or only managed ones under allowManagedMcpServersOnly.
func (s *Settings) mergeMCPRules() {
	for _, f := range s.Files {
		s.MCP.Deny = append(s.MCP.Deny, f.MCPDeny...)
		if f.MCPAllow == nil || s.ManagedMCPOnly && f.Scope != perm.SourceManaged {
			continue
		}
		if s.MCP.Allow == nil {
			s.MCP.Allow = []MCPServerRule{}
		}
		s.MCP.Allow = append(s.MCP.Allow, f.MCPAllow...)
	}
}
