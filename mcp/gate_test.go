package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/tool"
)

// evalGate is the gate of a headless run: perm.Evaluate with Ask coerced
// to Deny.
type evalGate struct{ p *perm.Policy }

func (g evalGate) Check(_ context.Context, req perm.Request) perm.Result {
	return perm.Evaluate(req, g.p)
}

// An MCP tool runs behind the gate like any other: allowed by each rule
// form, denied by each form without reaching the server, and Ask is Deny
// headless whatever the server's annotations say.
func TestGuardedTool(t *testing.T) {
	ap := &approver{}
	srv := httpServer(t, "srv", ap.server())
	m, _ := start(t, Options{}, srv)
	ap.set(`called`)
	entries := func(src perm.Source, ss ...string) []perm.Entry {
		var out []perm.Entry
		for _, s := range ss {
			r, err := perm.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, perm.Entry{Rule: r, Source: src})
		}
		return out
	}
	cases := []struct {
		name         string
		allow, deny  []string
		wantAllowed  bool
		reasonSubstr string
	}{
		{"no rule: ask is deny headless", nil, nil, false, "requires approval"},
		{"allow exact", []string{"mcp__srv__approve"}, nil, true, ""},
		{"allow server", []string{"mcp__srv"}, nil, true, ""},
		{"allow glob", []string{"MCP(mcp__srv__*)"}, nil, true, ""},
		{"deny exact", []string{"mcp__srv"}, []string{"mcp__srv__approve"}, false, "deny rule mcp__srv__approve"},
		{"deny server", []string{"mcp__srv__approve"}, []string{"mcp__srv"}, false, "deny rule mcp__srv"},
		{"deny glob", []string{"mcp__srv"}, []string{"MCP(mcp__srv__app*)"}, false, "deny rule MCP(mcp__srv__app*)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &perm.Policy{Mode: perm.ModeDefault, NoPrompt: true, Workspace: perm.Workspace{Cwd: t.TempDir()},
				Allow: entries(perm.SourceUser, tc.allow...), Deny: entries(perm.SourceProject, tc.deny...)}
			tl, _ := m.Tool("mcp__srv__approve")
			ap.mu.Lock()
			before := len(ap.got)
			ap.mu.Unlock()
			set, err := tool.NewSet(evalGate{p}, []tool.Tool{tl})
			if err != nil {
				t.Fatal(err)
			}
			r := set.Call(context.Background(), tl.Name(), "", map[string]any{"x": "y"}, nil)
			out, err := r.Output, r.Err
			ap.mu.Lock()
			calls := len(ap.got) - before
			ap.mu.Unlock()
			if tc.wantAllowed {
				if err != nil || out != "called" || calls != 1 {
					t.Errorf("allowed call: %q, %v, %d server calls", out, err, calls)
				}
				return
			}
			if !tool.IsDenied(err) || !strings.Contains(err.Error(), tc.reasonSubstr) || calls != 0 {
				t.Errorf("denied call: %q, %v, %d server calls", out, err, calls)
			}
		})
	}
}
