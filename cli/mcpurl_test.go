package cli

import (
	"testing"

	"github.com/gen-run/gen/mcp"
	"github.com/gen-run/gen/settings"
)

// TestURLMatches: a deny pattern of deniedMcpServers matches a URL
// however its host is written (https://x.EVIL.example:443/ was not kept
// out by https://*.evil.example/*), and an allow pattern matches
// narrowly: its * in the host matched across the path
// (https://evil.example/.corp/ was allowed by https://*.corp/*), and
// across user information.
func TestURLMatches(t *testing.T) {
	tests := []struct {
		pattern, url string
		allow, want  bool
	}{
		// Deny: broadly, any spelling of the host.
		{"https://*.evil.example/*", "https://x.evil.example/mcp", false, true},
		{"https://*.evil.example/*", "https://x.EVIL.example/mcp", false, true},
		{"https://*.evil.example/*", "HTTPS://x.evil.example:443/mcp", false, true},
		{"https://*.evil.example/*", "https://x.evil.example./mcp", false, true},
		{"https://evil.example/*", "https://user@evil.example/mcp", false, true},
		{"https://evil.example/*", "https://good.example/mcp", false, false},
		{"https://*.evil.example/*", "https://evil.example/mcp", false, false},

		// Allow: narrowly.
		{"https://*.corp/*", "https://mcp.corp/x", true, true},
		{"https://*.corp/*", "https://MCP.Corp:443/x", true, true},
		{"https://*.corp/*", "https://evil.example/.corp/", true, false},
		{"https://*.corp/*", "https://mcp.corp@evil.example/", true, false},
		{"https://*.corp/*", "https://evil.example/?.corp/", true, false},
		{"https://*.corp/*", "https://mcp.corp:8443/x", true, false},
		{"https://*.corp:*/*", "https://mcp.corp:8443/x", true, true},
		{"https://mcp.corp/*", "https://mcp.corp/a/b?c=d", true, true},
		{"https://mcp.corp/api/*", "https://mcp.corp/other", true, false},
		{"*", "https://anything.example/x", true, true},
		{"https://*", "https://evil.example/x", true, false},
		{"https://*/*", "https://evil.example/x", true, true},
		{"https://*.corp/*", "not a url", true, false},
	}
	for _, tt := range tests {
		if got := urlMatches(tt.pattern, tt.url, tt.allow); got != tt.want {
			t.Errorf("urlMatches(%q, %q, allow %v) = %v, want %v", tt.pattern, tt.url, tt.allow, got, tt.want)
		}
	}
}

// TestMCPRefusedByURL: the lists of a managed policy, as mcpRefused
// applies them to a server a user or a trusted project configured.
func TestMCPRefusedByURL(t *testing.T) {
	set := &settings.Settings{}
	set.MCP.Deny = []settings.MCPServerRule{{URL: "https://*.evil.example/*", Origin: "managed.json"}}
	set.MCP.Allow = []settings.MCPServerRule{{URL: "https://*.corp/*", Origin: "managed.json"}}
	for url, want := range map[string]string{
		"https://mcp.corp/x":           "",
		"https://x.EVIL.example/x":     "denied by deniedMcpServers in managed.json",
		"https://evil.example/.corp/x": "not in allowedMcpServers",
	} {
		srv := mcp.Server{Name: "s", Transport: mcp.HTTP, URL: url}
		if got := mcpRefused(set, "s", srv); got != want {
			t.Errorf("mcpRefused(%s) = %q, want %q", url, got, want)
		}
	}
}
