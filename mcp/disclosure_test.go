package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

func schemaNames(ss []schema.Schema) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func TestCatalog(t *testing.T) {
	m, _ := start(t, Options{}, httpServer(t, "alpha", testServer(t)), httpServer(t, "beta", testServer(t)))
	tools := m.Tools() // 12 tools

	// At or under the threshold everything is shown and there are no
	// meta-tools.
	c := NewCatalog(28, tools, 0)
	if c.Disclosed() || len(c.Shown()) != 12 || len(c.MetaTools()) != 2 {
		t.Errorf("28+12 tools: disclosed %v, shown %d", c.Disclosed(), len(c.Shown()))
	}
	if got := schemaNames(c.Schemas()); len(got) != 12 || slices.Contains(got, ListGroupsName) {
		t.Errorf("schemas under threshold: %v", got)
	}

	// Over it, the model sees the two meta-tools and loads groups.
	c = NewCatalog(29, tools, 0)
	if !c.Disclosed() || len(c.Shown()) != 0 {
		t.Fatalf("29+12 tools: disclosed %v, shown %d", c.Disclosed(), len(c.Shown()))
	}
	if got := schemaNames(c.Schemas()); !slices.Equal(got, []string{ListGroupsName, LoadGroupName}) {
		t.Errorf("schemas = %v", got)
	}
	groups := c.Groups()
	if len(groups) != 2 || groups[0].Name != "alpha" || groups[1].Name != "beta" || len(groups[0].Tools) != 6 || groups[0].About != "Test tools." {
		t.Errorf("groups = %+v", groups)
	}
	meta := c.MetaTools()
	list, err := meta[0].Run(context.Background(), tool.Call{})
	if err != nil || !strings.Contains(list, "alpha: 6 tools (crash, dotted_name, echo, fail, hang, spawn) — Test tools.") || strings.Contains(list, "[loaded]") {
		t.Errorf("list = %q, %v", list, err)
	}
	out, err := meta[1].Run(context.Background(), tool.Call{Input: map[string]any{"group": "beta"}})
	if err != nil || !strings.Contains(out, "mcp__beta__echo") {
		t.Errorf("load = %q, %v", out, err)
	}
	shown := schemaNames(c.Schemas())
	if !slices.Equal(shown[:2], []string{ListGroupsName, LoadGroupName}) || len(shown) != 8 || !slices.Contains(shown, "mcp__beta__echo") || slices.Contains(shown, "mcp__alpha__echo") {
		t.Errorf("after load: %v", shown)
	}
	if list, _ := c.MetaTools()[0].Run(context.Background(), tool.Call{}); !strings.Contains(list, "beta: 6 tools (crash, dotted_name, echo, fail, hang, spawn) [loaded]") {
		t.Errorf("list after load = %q", list)
	}
	if _, err := meta[1].Run(context.Background(), tool.Call{Input: map[string]any{"group": "gamma"}}); err == nil || !strings.Contains(err.Error(), `no tool group "gamma"; groups: alpha, beta`) {
		t.Errorf("unknown group: %v", err)
	}
	if _, err := meta[1].Run(context.Background(), tool.Call{Input: map[string]any{"group": "beta", "x": 1}}); err == nil {
		t.Error("unknown argument accepted")
	}
	// The meta-tools are Safe for the gate; the loaded tools are not.
	for _, mt := range meta {
		if perm.ClassOf(mt.Name()) != perm.Safe {
			t.Errorf("%s is not a Safe tool", mt.Name())
		}
	}
	if perm.ClassOf("mcp__beta__echo") != perm.Exec {
		t.Error("a loaded MCP tool is not Exec")
	}
	// A custom threshold.
	if NewCatalog(0, tools, 12).Disclosed() || !NewCatalog(0, tools, 11).Disclosed() {
		t.Error("threshold not applied")
	}
}

func TestVisible(t *testing.T) {
	m, _ := start(t, Options{}, httpServer(t, "alpha", testServer(t)), httpServer(t, "beta", testServer(t)))
	tools := m.Tools()
	rules := func(ss ...string) []perm.Rule {
		var out []perm.Rule
		for _, s := range ss {
			r, err := perm.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	count := func(p perm.Policy, d *agent.Definition) (n int, servers []string) {
		for _, tl := range Visible(tools, policy.ShowsMCP(&p, d)) {
			n++
			if !slices.Contains(servers, tl.Server()) {
				servers = append(servers, tl.Server())
			}
		}
		return n, servers
	}
	deny := func(ss ...string) []perm.Entry {
		var out []perm.Entry
		for _, r := range rules(ss...) {
			out = append(out, perm.Entry{Rule: r, Source: perm.SourceProject})
		}
		return out
	}
	main := perm.Policy{Mode: perm.ModeDefault}
	sub := func(allow, denyTools []perm.Rule) *agent.Definition {
		return &agent.Definition{Name: "a", AllowTools: allow, DenyTools: denyTools}
	}
	cases := []struct {
		name string
		p    perm.Policy
		d    *agent.Definition
		want int
	}{
		{"main loop sees all", main, nil, 12},
		{"subagent sees none by default", main, sub(nil, nil), 0},
		{"subagent allow server", main, sub(rules("mcp__alpha"), nil), 6},
		{"subagent allow exact", main, sub(rules("Read", "mcp__beta__echo"), nil), 1},
		{"subagent allow glob", main, sub(rules("MCP(mcp__*__echo)"), nil), 2},
		{"explore needs allow", perm.Policy{Mode: perm.ModeExplore}, nil, 0},
		{"allow_tools without mcp", main, sub(rules("Read"), nil), 0},
		{"deny server hides", perm.Policy{Deny: deny("mcp__alpha")}, nil, 6},
		{"deny glob hides", perm.Policy{Deny: deny("MCP(mcp__*__hang)")}, nil, 10},
		{"deny beats allow", main, sub(rules("mcp__alpha"), rules("mcp__alpha__echo")), 5},
		{"settings deny beats agent allow", perm.Policy{Deny: deny("mcp__alpha__echo")}, sub(rules("mcp__alpha"), nil), 5},
	}
	for _, tc := range cases {
		if n, servers := count(tc.p, tc.d); n != tc.want {
			t.Errorf("%s: %d tools (%v), want %d", tc.name, n, servers, tc.want)
		}
	}
}
