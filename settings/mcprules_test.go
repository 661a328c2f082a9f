package settings

import (
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// allowedMcpServers and deniedMcpServers parse strictly (an administrator's
// list is never skipped) and merge: every deny list, and the allow lists of
// every scope or, under allowManagedMcpServersOnly, of managed settings.
func TestMCPServerRules(t *testing.T) {
	const path = "/etc/gen/managed-settings.json"
	for _, tc := range []struct{ json, err string }{
		{`{"deniedMcpServers": {"serverName": "x"}}`, "deniedMcpServers must be a list"},
		{`{"deniedMcpServers": [{"serverName": "x", "serverUrl": "y"}]}`, "deniedMcpServers[0] must be an object with exactly one"},
		{`{"allowedMcpServers": [{"name": "x"}]}`, `allowedMcpServers[0]: unknown key "name"`},
		{`{"allowedMcpServers": [{"serverCommand": "npx x"}]}`, "allowedMcpServers[0].serverCommand must be a non-empty list of strings"},
		{`{"allowedMcpServers": [{"serverName": ""}]}`, "allowedMcpServers[0].serverName must be a non-empty string"},
	} {
		_, _, err := parseFile(perm.SourceManaged, path, []byte(tc.json), "/", "/home/u")
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path+":1:") {
			t.Errorf("%s: error %v, want %q at %s:1", tc.json, err, tc.err, path)
		}
	}
	parse := func(scope perm.Source, json string) File {
		f, _, err := parseFile(scope, "/x/"+string(scope)+".json", []byte(json), "/", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		return *f
	}
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
