package settings

import (
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// allowedMcpServers and deniedMcpServers, and the approvals of .mcp.json
// servers, parse strictly (an administrator's list is never skipped) and merge: every deny list, and the allow lists of
// every scope or, under allowManagedMcpServersOnly, of managed settings.
func TestMCPServerRules(t *testing.T) {
	const path = "/etc/gen/managed-settings.json"
	for _, tc := range []struct{ json, err string }{
		{`{"deniedMcpServers": {"serverName": "x"}}`, "deniedMcpServers must be a list"},
		{`{"deniedMcpServers": [{"serverName": "x", "serverUrl": "y"}]}`, "deniedMcpServers[0] must be an object with exactly one"},
		{`{"allowedMcpServers": [{"name": "x"}]}`, `allowedMcpServers[0]: unknown key "name"`},
		{`{"allowedMcpServers": [{"serverCommand": "npx x"}]}`, "allowedMcpServers[0].serverCommand must be a non-empty list of strings"},
		{`{"allowedMcpServers": [{"serverName": ""}]}`, "allowedMcpServers[0].serverName must be a non-empty string"},
		{`{"enabledMcpjsonServers": "a"}`, "enabledMcpjsonServers must be a list of the names of servers in .mcp.json"},
		{`{"disabledMcpjsonServers": [""]}`, "disabledMcpjsonServers[0] must be the non-empty name of a server in .mcp.json"},
		{`{"disabledMcpjsonServers": [{"serverName": "a"}]}`, "disabledMcpjsonServers[0] must be the non-empty name"},
		{`{"enableAllProjectMcpServers": "yes"}`, "enableAllProjectMcpServers must be true or false"},
	} {
		_, _, err := parseFile(perm.SourceManaged, path, []byte(tc.json), "/", "/home/u")
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path+":1:") {
			t.Errorf("%s: error %v, want %q at %s:1", tc.json, err, tc.err, path)
		}
	}
	parse := func(scope perm.Source, json string) File { return parseScope(t, scope, json) }
	managed := parse(perm.SourceManaged, `{"allowedMcpServers": [{"serverName": "corp"}], "deniedMcpServers": [{"serverUrl": "https://evil.example/*"}]}`)
	user := parse(perm.SourceUser, `{"allowedMcpServers": [{"serverCommand": ["my-mcp", "--stdio"]}], "deniedMcpServers": [{"serverName": "old"}]}`)
	s := &Settings{Files: []File{managed, user}}
	s.mergeMCPRules()
	if len(s.MCP.Deny) != 2 || len(s.MCP.Allow) != 2 || s.MCP.Allow[1].Command[1] != "--stdio" {
		t.Errorf("merged %+v", s.MCP)
	}
	s = &Settings{Files: []File{managed, user}, ManagedMCPOnly: true}
	s.mergeMCPRules()
	if len(s.MCP.Deny) != 2 || len(s.MCP.Allow) != 1 || s.MCP.Allow[0].Name != "corp" {
		t.Errorf("managed only: merged %+v", s.MCP)
	}
	s = &Settings{Files: []File{parse(perm.SourceUser, `{"deniedMcpServers": []}`)}}
	if s.mergeMCPRules(); s.MCP.Allow != nil {
		t.Error("no allow list must mean no restriction, not an empty list")
	}
}

// An untrusted project's allowedMcpServers only narrow: beside a user or
// managed list they are ignored with a warning (joined, a cloned
// repository's {"serverName": "x"} would start the user's server x that
// the administrator's list keeps out); alone they restrict; in a trusted
// project they join.
func TestMCPAllowUntrustedProject(t *testing.T) {
	parse := func(scope perm.Source, json string) File {
		f, _, err := parseFile(scope, "/proj/.gen/"+string(scope)+".json", []byte(json), "/", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		return *f
	}
	managed := parse(perm.SourceManaged, `{"allowedMcpServers": [{"serverName": "corp"}]}`)
	project := parse(perm.SourceProject, `{"allowedMcpServers": [{"serverName": "shell"}]}`)
	local := parse(perm.SourceLocal, `{"allowedMcpServers": [{"serverName": "fs"}]}`)
	names := func(s *Settings) []string {
		var out []string
		for _, r := range s.MCP.Allow {
			out = append(out, r.Name)
		}
		return out
	}

	s := &Settings{Files: []File{managed, local, project}, Workspace: perm.Workspace{Root: "/proj"}}
	s.mergeMCPRules()
	if got := names(s); !slices.Equal(got, []string{"corp"}) {
		t.Errorf("untrusted beside managed: allow = %v, want [corp]", got)
	}
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[0], "/proj/.gen/local.json: ignoring project allowedMcpServers: the project /proj is not trusted") {
		t.Errorf("warnings = %q", s.Warnings)
	}

	s = &Settings{Files: []File{local, project}, Workspace: perm.Workspace{Root: "/proj"}}
	s.mergeMCPRules()
	if got := names(s); !slices.Equal(got, []string{"fs", "shell"}) || len(s.Warnings) != 0 {
		t.Errorf("untrusted alone: allow = %v, want [fs shell] (it narrows); warnings %q", got, s.Warnings)
	}

	s = &Settings{Files: []File{managed, project}, Workspace: perm.Workspace{Root: "/proj"}, Trusted: true}
	s.mergeMCPRules()
	if got := names(s); !slices.Equal(got, []string{"corp", "shell"}) || len(s.Warnings) != 0 {
		t.Errorf("trusted: allow = %v, want [corp shell]; warnings %q", got, s.Warnings)
	}
}

// parseScope parses json as the settings file of scope, /x/SCOPE.json.
func parseScope(t *testing.T, scope perm.Source, json string) File {
	t.Helper()
	f, _, err := parseFile(scope, "/x/"+string(scope)+".json", []byte(json), "/", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	return *f
}

// Claude Code's approvals of .mcp.json servers (parsed strictly:
// TestMCPServerRules) merge: every disabledMcpjsonServers list; the
// enabledMcpjsonServers lists of the user's and managed settings joined,
// which a project's list or enableAllProjectMcpServers cannot widen; a
// file that --setting-sources drops keeps its lists (they narrow), not
// enableAllProjectMcpServers.
func TestMCPJSONApprovalLists(t *testing.T) {
	parse := func(scope perm.Source, json string) File { return parseScope(t, scope, json) }
	names := func(rs []MCPServerRule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name+"@"+r.Origin)
		}
		return out
	}
	user := parse(perm.SourceUser, `{"enabledMcpjsonServers": ["a"], "disabledMcpjsonServers": ["x"]}`)
	managed := parse(perm.SourceManaged, `{"enabledMcpjsonServers": ["m"]}`)
	local := parse(perm.SourceLocal, `{"enabledMcpjsonServers": ["b"], "disabledMcpjsonServers": ["y"]}`)
	all := parse(perm.SourceProject, `{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": []}`)
	userAll := parse(perm.SourceUser, `{"enableAllProjectMcpServers": true}`)
	none := parse(perm.SourceProject, `{"enableAllProjectMcpServers": false}`)

	for _, tc := range []struct {
		name  string
		files []File
		on    []string // nil: no narrowing
		warns int
	}{
		{"the user's and managed lists join", []File{managed, user, none}, []string{"m@/x/managed.json", "a@/x/user.json"}, 0},
		{"a project's list alone applies", []File{local, none}, []string{"b@/x/local.json"}, 0},
		{"beside the user's, a project's list does not widen it", []File{local, user}, []string{"a@/x/user.json"}, 1},
		{"nor does a project's enableAllProjectMcpServers", []File{all, user}, []string{"a@/x/user.json"}, 1},
		{"a project's enableAllProjectMcpServers clears its own", []File{local, all}, nil, 0},
		{"the user's enableAllProjectMcpServers clears every list", []File{local, userAll, user}, nil, 0},
	} {
		s := &Settings{Files: tc.files, Trusted: true}
		s.mergeMCPRules()
		if got := names(s.MCP.JSONOn); !slices.Equal(got, tc.on) || (s.MCP.JSONOn == nil) != (tc.on == nil) || len(s.Warnings) != tc.warns {
			t.Errorf("%s: on %v (nil %v), warnings %q; want %v and %d warnings", tc.name, got, s.MCP.JSONOn == nil, s.Warnings, tc.on, tc.warns)
		}
	}
	s := &Settings{Files: []File{local, user, all}, Trusted: true}
	if s.mergeMCPRules(); !slices.Equal(names(s.MCP.JSONOff), []string{"y@/x/local.json", "x@/x/user.json"}) {
		t.Errorf("every disabled list applies: off %v", names(s.MCP.JSONOff))
	}
	s = &Settings{Files: []File{parse(perm.SourceUser, `{"enabledMcpjsonServers": []}`)}, Trusted: true}
	if s.mergeMCPRules(); s.MCP.JSONOn == nil || len(s.MCP.JSONOn) != 0 {
		t.Error("an empty enabledMcpjsonServers must approve no server, not every one")
	}
	s = &Settings{Files: []File{user}, Trusted: true}
	if s.mergeMCPRules(); s.MCP.JSONOn == nil {
		t.Error("no enabled list")
	}
	s = &Settings{Files: []File{{}}}
	if s.mergeMCPRules(); s.MCP.JSONOn != nil {
		t.Error("no enabledMcpjsonServers must mean no narrowing")
	}

	dropped := func(f File) File { return f.restrictions() }
	s = &Settings{Files: []File{dropped(local), dropped(all)}, Trusted: true}
	if s.mergeMCPRules(); !slices.Equal(names(s.MCP.JSONOn), []string{"b@/x/local.json"}) || len(s.MCP.JSONOff) != 1 {
		t.Errorf("dropped files: on %v, off %v; want local's lists kept and enableAllProjectMcpServers dropped", names(s.MCP.JSONOn), names(s.MCP.JSONOff))
	}
}
