package mcp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

func TestParseConfig(t *testing.T) {
	t.Setenv("GEN_TEST_TOKEN", "s3cret")
	data := `{
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "headers": {"Authorization": "Bearer ${GEN_TEST_TOKEN}"}
    },
    "files": {
      "command": "npx",
      "args": ["-y", "server-fs", "${GEN_TEST_ROOT:-/srv}"],
      "env": {"TOKEN": "${GEN_TEST_TOKEN}"}
    },
    "old-sse": {"type": "sse", "url": "http://localhost:9/sse"},
    "plain": {"type": "stdio", "command": "srv"}
  }
}`
	got, err := ParseConfig("/p/.mcp.json", []byte(data), perm.SourceProject)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Server{
		"github": {Name: "github", Source: perm.SourceProject, Path: "/p/.mcp.json", Line: 3, Transport: HTTP,
			URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		"files": {Name: "files", Source: perm.SourceProject, Path: "/p/.mcp.json", Line: 8, Transport: Stdio,
			Command: "npx", Args: []string{"-y", "server-fs", "/srv"}, Env: map[string]string{"TOKEN": "s3cret"}},
		"old-sse": {Name: "old-sse", Source: perm.SourceProject, Path: "/p/.mcp.json", Line: 13, Transport: SSE, URL: "http://localhost:9/sse"},
		"plain":   {Name: "plain", Source: perm.SourceProject, Path: "/p/.mcp.json", Line: 14, Transport: Stdio, Command: "srv"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Setenv("GEN_TEST_EMPTY", "")
	cases := []struct{ name, data, want string }{
		{"syntax", "{\n  \"mcpServers\": {,}\n}", `f.json:2:18: invalid character ','`},
		{"not object", `[]`, `f.json:1: the file must hold a JSON object, not an array`},
		{"unknown top key", "{\n\"servers\": {}}", `f.json:2: unknown key "servers" (an MCP configuration holds only "mcpServers")`},
		{"servers not object", `{"mcpServers": []}`, `f.json:1: mcpServers must be an object, not an array`},
		{"duplicate server", "{\"mcpServers\": {\n\"a\": {\"command\": \"x\"},\n\"a\": {\"command\": \"y\"}}}", `f.json:3: duplicate key "mcpServers.a"`},
		{"bad name dot", `{"mcpServers": {"a.b": {"command": "x"}}}`, `f.json:1: invalid server name "a.b"`},
		{"bad name double underscore", `{"mcpServers": {"a__b": {"command": "x"}}}`, `invalid server name "a__b"`},
		{"bad name trailing underscore", `{"mcpServers": {"a_": {"command": "x"}}}`, `invalid server name "a_"`},
		{"bad name empty", `{"mcpServers": {"": {"command": "x"}}}`, `invalid server name ""`},
		{"server not object", `{"mcpServers": {"a": "x"}}`, `mcpServers.a must be an object, not a string`},
		{"unknown key", "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"cwd\": \"/\"}}}", `f.json:2: unknown key "cwd" in mcpServers.a (a stdio server takes type, command, args, env)`},
		{"url in stdio", `{"mcpServers": {"a": {"type": "stdio", "command": "x", "url": "http://h"}}}`, `unknown key "url" in mcpServers.a (a stdio server takes`},
		{"command in http", `{"mcpServers": {"a": {"type": "http", "url": "http://h", "command": "x"}}}`, `unknown key "command" in mcpServers.a (a http server takes type, url, headers)`},
		{"url without type", `{"mcpServers": {"a": {"url": "http://h"}}}`, `mcpServers.a has a url but no type: add "type": "http"`},
		{"unknown type", `{"mcpServers": {"a": {"type": "ws", "url": "ws://h"}}}`, `mcpServers.a.type "ws": must be "stdio", "http" or "sse"`},
		{"streamable-http", `{"mcpServers": {"a": {"type": "streamable-http", "url": "http://h"}}}`, `write "http" for streamable HTTP`},
		{"missing command", `{"mcpServers": {"a": {"args": []}}}`, `mcpServers.a: missing "command"`},
		{"empty command", `{"mcpServers": {"a": {"command": " "}}}`, `mcpServers.a.command must not be empty`},
		{"args not strings", `{"mcpServers": {"a": {"command": "x", "args": ["a", 1]}}}`, `mcpServers.a.args must be an array of strings`},
		{"env not strings", `{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}`, `mcpServers.a.env.A must be a string, not a number`},
		{"bad url", `{"mcpServers": {"a": {"type": "http", "url": "file:///x"}}}`, `mcpServers.a.url "file:///x" must be an http:// or https:// URL`},
		{"headers not object", `{"mcpServers": {"a": {"type": "http", "url": "http://h", "headers": []}}}`, `mcpServers.a.headers must be an object of strings`},
		{"unset variable", "{\"mcpServers\": {\"a\": {\n\"command\": \"${GEN_TEST_UNSET_VAR}\"}}}", `f.json:2: mcpServers.a.command: environment variable GEN_TEST_UNSET_VAR is not set and has no default`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig("f.json", []byte(tc.data), perm.SourceCLI)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant containing %q", err, tc.want)
			}
			if got != nil {
				t.Errorf("partial result %v", got)
			}
		})
	}
	// A set but empty variable expands to "" (no default), as in a shell.
	got, err := ParseConfig("f.json", []byte(`{"mcpServers": {"a": {"command": "x", "args": ["${GEN_TEST_EMPTY}", "${GEN_TEST_EMPTY:-d}"]}}}`), perm.SourceCLI)
	if err != nil || !reflect.DeepEqual(got["a"].Args, []string{"", "d"}) {
		t.Errorf("empty variable: %v %v", got["a"].Args, err)
	}
}

func TestParseSettings(t *testing.T) {
	data := `{"permissions": {"allow": ["Read"]}, "model": "x", "mcpServers": {"a": {"command": "srv"}}}`
	got, err := ParseSettings("/home/u/.gen/settings.json", []byte(data), perm.SourceUser)
	if err != nil {
		t.Fatal(err)
	}
	if s := got["a"]; s.Command != "srv" || s.Source != perm.SourceUser {
		t.Errorf("got %+v", got)
	}
	got, err = ParseSettings("s.json", []byte(`{"permissions": {}}`), perm.SourceUser)
	if err != nil || len(got) != 0 {
		t.Errorf("no mcpServers: %v %v", got, err)
	}
	if _, err := ParseSettings("s.json", []byte(`{"mcpServers": {"a": {"command": "x", "bogus": 1}}}`), perm.SourceManaged); err == nil || !strings.Contains(err.Error(), `s.json:1: unknown key "bogus"`) {
		t.Errorf("unknown key in settings: %v", err)
	}
}

func TestMerge(t *testing.T) {
	srv := func(name string, src perm.Source, cmd string) map[string]Server {
		return map[string]Server{name: {Name: name, Source: src, Path: string(src) + ".json", Command: cmd}}
	}
	project := srv("gh", perm.SourceProject, "project")
	user := srv("gh", perm.SourceUser, "user")
	cli1 := srv("gh", perm.SourceCLI, "cli1")
	cli2 := srv("gh", perm.SourceCLI, "cli2")
	managed := srv("gh", perm.SourceManaged, "managed")
	local := srv("gh", perm.SourceLocal, "local")
	other := srv("other", perm.SourceProject, "other")
	cases := []struct {
		name string
		sets []map[string]Server
		want string
	}{
		{"user over project", []map[string]Server{project, user}, "user"},
		{"user over project, any order", []map[string]Server{user, project}, "user"},
		{"cli over user", []map[string]Server{user, cli1, project}, "cli1"},
		{"user over local", []map[string]Server{local, user}, "user"},
		{"local over project", []map[string]Server{project, local}, "local"},
		{"later cli file wins", []map[string]Server{cli1, cli2}, "cli2"},
		{"managed over all", []map[string]Server{managed, cli1, user, project}, "managed"},
		{"managed over all, last", []map[string]Server{cli1, user, project, managed}, "managed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, shadowed := Merge(append(tc.sets, other)...)
			if got["gh"].Command != tc.want || got["other"].Command != "other" {
				t.Errorf("winner %q, want %q", got["gh"].Command, tc.want)
			}
			if len(shadowed) != len(tc.sets)-1 {
				t.Errorf("shadowed = %q", shadowed)
			}
		})
	}
	_, shadowed := Merge(project, user)
	if want := `MCP server "gh" from project.json (project) is shadowed by user.json (user)`; len(shadowed) != 1 || shadowed[0] != want {
		t.Errorf("shadowed = %q, want %q", shadowed, want)
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		server, tool, full string
	}{
		{"gh", "list_issues", "mcp__gh__list_issues"},
		{"gh", "files.read", "mcp__gh__files_read"},
		{"a-b", "x/y z", "mcp__a-b__x_y_z"},
		{"a", "_b", "mcp__a___b"},
	} {
		full := ToolName(tc.server, tc.tool)
		if full != tc.full {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, full, tc.full)
		}
		s, _, ok := SplitName(full)
		if !ok || s != tc.server {
			t.Errorf("SplitName(%q) = %q %v", full, s, ok)
		}
		// The server rule covers the tool; no other server's rule does.
		r, err := perm.ParseRule("mcp__" + tc.server)
		if err != nil || !r.NamesTool(full) {
			t.Errorf("rule mcp__%s does not cover %s (%v)", tc.server, full, err)
		}
	}
	for _, bad := range []string{"Read", "mcp__", "mcp__gh", "mcp__gh__", "mcp___x__y"} {
		if _, _, ok := SplitName(bad); ok {
			t.Errorf("SplitName(%q) ok", bad)
		}
	}
}
