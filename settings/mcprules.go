package settings

import (
	"fmt"
	"strings"

	"github.com/gen-run/gen/perm"
)

// Claude Code's lists of the MCP servers that may start, and its
// approvals of the servers of a project's .mcp.json.
const (
	mcpAllowKey     = "allowedMcpServers"
	mcpDenyKey      = "deniedMcpServers"
	mcpjsonOnKey    = "enabledMcpjsonServers"
	mcpjsonOffKey   = "disabledMcpjsonServers"
	mcpjsonAllOnKey = "enableAllProjectMcpServers"
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
//
// JSONOn and JSONOff are Claude Code's approvals of the servers of the
// project's .mcp.json (enabledMcpjsonServers, disabledMcpjsonServers), as
// rules by name. They only narrow what the project's trust lets start: a
// server JSONOff names never starts, and while JSONOn is not nil only the
// servers it names do. JSONOn is nil when no scope lists servers or one
// sets enableAllProjectMcpServers.
type MCPRules struct {
	Allow, Deny     []MCPServerRule
	JSONOn, JSONOff []MCPServerRule
}

// mcpRules parses allowedMcpServers or deniedMcpServers. Anything that is
// not a list of entries with exactly one known key is an error: a list an
// administrator wrote must never be skipped.
func (p *parser) mcpRules(key string, v *value) ([]MCPServerRule, error) {
	if v.Kind != kindArray {
		return nil, p.errAt(v.Off, "%s must be a list of {\"serverName\"}, {\"serverCommand\"} or {\"serverUrl\"} entries", key)
	}
	out := make([]MCPServerRule, 0, len(v.Elems))
	for i, el := range v.Elems {
		at := fmt.Sprintf("%s[%d]", key, i)
		if el.Kind != kindObject || len(el.Members) != 1 {
			return nil, p.errAt(el.Off, "%s must be an object with exactly one of serverName, serverCommand or serverUrl", at)
		}
		m := el.Members[0]
		r := MCPServerRule{Origin: p.path}
		switch m.Key {
		case "serverName":
			if m.Val.Kind != kindString || strings.TrimSpace(m.Val.Str) == "" {
				return nil, p.errAt(m.Val.Off, "%s.serverName must be a non-empty string", at)
			}
			r.Name = m.Val.Str
		case "serverUrl":
			if m.Val.Kind != kindString || strings.TrimSpace(m.Val.Str) == "" {
				return nil, p.errAt(m.Val.Off, "%s.serverUrl must be a non-empty string", at)
			}
			r.URL = m.Val.Str
		case "serverCommand":
			if m.Val.Kind != kindArray || len(m.Val.Elems) == 0 {
				return nil, p.errAt(m.Val.Off, "%s.serverCommand must be a non-empty list of strings", at)
			}
			for _, w := range m.Val.Elems {
				if w.Kind != kindString {
					return nil, p.errAt(w.Off, "%s.serverCommand must be a non-empty list of strings", at)
				}
				r.Command = append(r.Command, w.Str)
			}
		default:
			return nil, p.errAt(m.Off, "%s: unknown key %q (want serverName, serverCommand or serverUrl)", at, m.Key)
		}
		out = append(out, r)
	}
	return out, nil
}

// mcpjsonNames parses enabledMcpjsonServers or disabledMcpjsonServers, a
// list of server names, as rules by name.
func (p *parser) mcpjsonNames(key string, v *value) ([]MCPServerRule, error) {
	if v.Kind != kindArray {
		return nil, p.errAt(v.Off, "%s must be a list of the names of servers in .mcp.json", key)
	}
	out := make([]MCPServerRule, 0, len(v.Elems))
	for i, el := range v.Elems {
		if el.Kind != kindString || strings.TrimSpace(el.Str) == "" {
			return nil, p.errAt(el.Off, "%s[%d] must be the non-empty name of a server in .mcp.json", key, i)
		}
		out = append(out, MCPServerRule{Name: el.Str, Origin: p.path})
	}
	return out, nil
}

// mergeMCPRules sets s.MCP from s.Files: every deny list; the allow lists
// of every scope, or only managed ones under allowManagedMcpServersOnly;
// every disabledMcpjsonServers list; and the enabledMcpjsonServers lists
// (mergeMCPJSONOn).
//
// An untrusted project's allow list may only narrow. Alone it applies (only
// the servers it names start); beside a list from a scope the user trusts
// it is ignored with a warning, since joining it would start servers that
// the user's or administrator's list keeps out. Set s.Trusted first.
func (s *Settings) mergeMCPRules() {
	var untrusted []File
	for _, f := range s.Files {
		s.MCP.Deny = append(s.MCP.Deny, f.MCPDeny...)
		s.MCP.JSONOff = append(s.MCP.JSONOff, f.MCPJSONOff...)
		if f.MCPAllow == nil || s.ManagedMCPOnly && f.Scope != perm.SourceManaged {
			continue
		}
		if s.untrusted(f) {
			untrusted = append(untrusted, f)
			continue
		}
		s.MCP.Allow = append(orEmpty(s.MCP.Allow), f.MCPAllow...)
	}
	s.mergeMCPJSONOn()
	widens := s.MCP.Allow != nil
	for _, f := range untrusted {
		if widens {
			s.Warnings = append(s.Warnings, s.Refusal(mcpAllowKey, f.Path)+"; the list in your (or managed) settings applies alone")
			continue
		}
		s.MCP.Allow = append(orEmpty(s.MCP.Allow), f.MCPAllow...)
	}
}

// mergeMCPJSONOn sets s.MCP.JSONOn from the files' enabledMcpjsonServers
// and enableAllProjectMcpServers. Those of the user's and managed
// settings join; a project's (shared or local) only narrow what the
// project's servers may be, as its allowedMcpServers do: they apply where
// no user or managed file has a list, and beside one they are ignored
// with a warning, since joining a project's list to the user's, or
// letting its enableAllProjectMcpServers clear it, would start servers
// the user's list keeps out.
func (s *Settings) mergeMCPJSONOn() {
	var mine, project []MCPServerRule // nil: no list
	var allMine, allProject bool
	var projectFiles []string
	for _, f := range s.Files {
		if f.Project() {
			if f.MCPJSONOn != nil {
				project = append(orEmpty(project), f.MCPJSONOn...)
			}
			allProject = allProject || f.MCPJSONAllOn
			if f.MCPJSONOn != nil || f.MCPJSONAllOn {
				projectFiles = append(projectFiles, f.Path)
			}
			continue
		}
		if f.MCPJSONOn != nil {
			mine = append(orEmpty(mine), f.MCPJSONOn...)
		}
		allMine = allMine || f.MCPJSONAllOn
	}
	switch {
	case allMine:
		s.MCP.JSONOn = nil
	case mine != nil:
		s.MCP.JSONOn = mine
		for _, p := range projectFiles {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: ignoring the project's %s and %s: the %s in your (or managed) settings applies alone", p, mcpjsonOnKey, mcpjsonAllOnKey, mcpjsonOnKey))
		}
	case allProject:
		s.MCP.JSONOn = nil
	default:
		s.MCP.JSONOn = project
	}
}

// orEmpty returns list, or an empty non-nil list for nil: an allow list
// that is set but empty allows no server.
func orEmpty(list []MCPServerRule) []MCPServerRule {
	if list == nil {
		return []MCPServerRule{}
	}
	return list
}
