package perm

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/linktest"
)

// TestEmptyWorkspaceFailsClosed: a Policy literal without a Workspace has
// no directory to contain anything, so no read or write is allowed for
// being "inside the workspace" (once, RealPath("") was "/", which
// contained every path). Compiled or not, with a Resolver or without.
func TestEmptyWorkspaceFailsClosed(t *testing.T) {
	f := newFixture(t)
	file := f.outside + "/data"
	cases := []struct {
		name string
		mode Mode
		req  Request
	}{
		{"write outside, acceptEdits", ModeAcceptEdits, fileReq("Write", file)},
		{"edit outside, auto", ModeAuto, fileReq("Edit", file)},
		{"new file outside, acceptEdits", ModeAcceptEdits, fileReq("Write", f.outside+"/new.txt")},
		{"relative write, acceptEdits", ModeAcceptEdits, fileReq("Write", "rel.txt")},
		{"redirect write, acceptEdits", ModeAcceptEdits, bashReq("echo x > " + file)},
		{"read-only command reading outside", ModeDefault, bashReq("cat " + file)},
		{"redirect read outside", ModeDefault, bashReq("wc -l < " + file)},
		{"grep outside", ModeDefault, Request{Tool: "Grep", Input: map[string]any{"pattern": "x", "path": f.outside}}},
	}
	for _, ws := range []Workspace{{}, {Home: f.home}, {Dirs: []string{""}}} {
		for _, tc := range cases {
			lit := &Policy{Mode: tc.mode, Workspace: ws}
			compiled := &Policy{Mode: tc.mode, Workspace: ws}
			compiled.Compile()
			for how, decide := range map[string]func() Result{
				"literal":  func() Result { return Evaluate(tc.req, lit) },
				"compiled": func() Result { return Evaluate(tc.req, compiled) },
				"resolver": func() Result { return NewResolver(0).Evaluate(tc.req, compiled) },
			} {
				if r := decide(); r.Decision == Allow {
					t.Errorf("%s, %s, workspace %+v: %v at step %d (%s), want no auto-allow", tc.name, how, ws, r.Decision, r.Step, r.Reason)
				}
			}
		}
	}
}

// TestRepointedRootSeenAfresh: the interactive gate (no Resolver) looks at
// the file system afresh for every decision, the workspace roots included,
// even under a compiled Policy that resolved them before: a workspace
// root that is a symbolic link re-pointed between two decisions is seen
// where it points now. A Resolver (--batch, what-if decisions) may keep
// the compiled resolution.
func TestRepointedRootSeenAfresh(t *testing.T) {
	_, a, b, link := linktest.Dirs(t, "a", "b", "ws")
	p := &Policy{Mode: ModeAcceptEdits, Workspace: Workspace{Cwd: link, Root: link}}
	p.Compile()
	inA, inB := fileReq("Write", a+"/x.txt"), fileReq("Write", b+"/x.txt")
	res := NewResolver(0)
	for _, decide := range []func(Request) Result{
		func(r Request) Result { return Evaluate(r, p) },
		func(r Request) Result { return res.Evaluate(r, p) },
	} {
		if r := decide(inA); r.Decision != Allow {
			t.Fatalf("write into the link's target before the switch: %v (%s), want Allow", r.Decision, r.Reason)
		}
		if r := decide(inB); r.Decision != Ask {
			t.Fatalf("write outside before the switch: %v (%s), want Ask", r.Decision, r.Reason)
		}
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	if r := Evaluate(inA, p); r.Decision != Ask {
		t.Errorf("write into the old target after the switch: %v (%s), want Ask (the root was resolved before the switch)", r.Decision, r.Reason)
	}
	if r := Evaluate(inB, p); r.Decision != Allow {
		t.Errorf("write into the new target after the switch: %v (%s), want Allow", r.Decision, r.Reason)
	}
	// The batch keeps what Compile resolved: its decisions are what-ifs
	// about the tree as it was.
	if r := res.Evaluate(inA, p); r.Decision != Allow {
		t.Errorf("Resolver after the switch: %v (%s), want Allow (the compiled resolution)", r.Decision, r.Reason)
	}
}

// TestPolicyEqual: Equal tells apart policies that differ in any exported
// field (a field added to Policy later must be compared too, or this
// fails), compares rule lists by content, and ignores what Compile
// prepared.
func TestPolicyEqual(t *testing.T) {
	base := func() Policy {
		return Policy{Mode: ModeDefault, Deny: entries(SourceUser, "Bash(rm:*)"), Ask: entries(SourceUser, "Read"),
			Allow: entries(SourceUser, "Bash(ls)"), Constraint: rules("Read"), Session: rules("Bash(make)"),
			Workspace: Workspace{Cwd: "/w", Root: "/w", Home: "/h", Dirs: []string{"/d"}}}
	}
	p, q := base(), base()
	q.Compile()
	if !p.Equal(&q) || !q.Equal(&p) {
		t.Fatal("equal policies, one compiled, are not Equal")
	}
	if p.Compiled() || !q.Compiled() {
		t.Errorf("Compiled: literal %v, compiled %v", p.Compiled(), q.Compiled())
	}
	q.Ask = append(entries(SourceUser, "Read"), q.Ask[1:]...)
	if !p.Equal(&q) || q.Compiled() {
		t.Error("a list replaced by an equal copy: Equal and not Compiled expected")
	}
	change := map[string]func(*Policy){
		"Mode":             func(p *Policy) { p.Mode = ModeAcceptEdits },
		"Deny":             func(p *Policy) { p.Deny = entries(SourceUser, "Bash(rm -rf:*)") },
		"Ask":              func(p *Policy) { p.Ask = append(p.Ask, entries(SourceUser, "Edit")...) },
		"Allow":            func(p *Policy) { p.Allow = entries(SourceProject, "Bash(ls)") },
		"Constraint":       func(p *Policy) { p.Constraint = nil },
		"Session":          func(p *Policy) { p.Session = rules("Bash(make test)") },
		"Workspace":        func(p *Policy) { p.Workspace.Dirs = []string{"/e"} },
		"NoPrompt":         func(p *Policy) { p.NoPrompt = true },
		"NoSandbox":        func(p *Policy) { p.NoSandbox = true },
		"ManagedRulesOnly": func(p *Policy) { p.ManagedRulesOnly = true },
		"Failed":           func(p *Policy) { p.Failed = "settings.json: bad" },
		"Code":             func(p *Policy) { p.Code = []string{"/w/hook.sh"} },
		"Hidden":           func(p *Policy) { p.Hidden = []string{"Read"} },
		"MCPTools":         func(p *Policy) { p.MCPTools = []string{} }, // nil is no limit; empty denies every MCP tool
		"Sandbox": func(p *Policy) {
			off := false
			p.Sandbox.Network = &off
		},
	}
	typ := reflect.TypeFor[Policy]()
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() && change[f.Name] == nil {
			t.Errorf("Policy.%s: no case here; make Equal compare it and add one", f.Name)
		}
	}
	for name, f := range change {
		q := base()
		f(&q)
		if p.Equal(&q) || q.Equal(&p) {
			t.Errorf("policies differing in %s are Equal", name)
		}
	}
	changeWS := map[string]func(*Workspace){
		"Cwd":  func(w *Workspace) { w.Cwd = "/x" },
		"Root": func(w *Workspace) { w.Root = "/x" },
		"Home": func(w *Workspace) { w.Home = "/x" },
		"Dirs": func(w *Workspace) { w.Dirs = nil },
	}
	wtyp := reflect.TypeFor[Workspace]()
	for i := range wtyp.NumField() {
		if f := wtyp.Field(i); f.IsExported() && changeWS[f.Name] == nil {
			t.Errorf("Workspace.%s: no case here; make Equal compare it and add one", f.Name)
		}
	}
	for name, f := range changeWS {
		q := base()
		f(&q.Workspace)
		if p.Equal(&q) {
			t.Errorf("policies whose workspace differs in %s are Equal", name)
		}
	}
}

// A path rule relative to a directory the workspace does not give as an
// absolute path (a hand-built Policy) would be made absolute from "/":
// the policy denies every call instead, naming the rule.
func TestUnanchoredRuleFailsClosed(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		ws   Workspace
		rule string
		dir  string
	}{
		{Workspace{Cwd: f.root, Root: f.root}, "Read(~/.ssh/**)", "home directory"},
		{Workspace{Cwd: f.root, Root: f.root, Home: "home"}, "Read(~)", "home directory"},
		{Workspace{Cwd: f.root, Home: f.home}, "Edit(/src/**)", "project root"},
		{Workspace{Root: f.root, Home: f.home}, "Read(./secrets/**)", "working directory"},
		{Workspace{Root: f.root, Home: f.home}, "Read(src/*.go)", "working directory"},
	} {
		for _, list := range []string{"deny", "ask", "allow"} {
			p := &Policy{Mode: ModeDefault, Workspace: tc.ws}
			es := entries(SourceProject, tc.rule)
			switch list {
			case "deny":
				p.Deny = es
			case "ask":
				p.Ask = es
			default:
				p.Allow = es
			}
			r := Evaluate(fileReq("Read", "/tmp/x"), p)
			if r.Decision != Deny || !strings.Contains(r.Reason, tc.rule) || !strings.Contains(r.Reason, tc.dir) {
				t.Errorf("%s %s in %+v: %+v, want Deny naming the rule and the %s", list, tc.rule, tc.ws, r, tc.dir)
			}
		}
	}
	// Rules that need no workspace directory are fine without one.
	p := &Policy{Mode: ModeDefault, Deny: entries(SourceProject, "Read(.env)", "Read(//etc/shadow)")}
	if r := Evaluate(fileReq("Read", "/etc/shadow"), p); r.Decision != Deny || r.Rule != "Read(//etc/shadow)" {
		t.Errorf("Read /etc/shadow: %+v, want Deny by Read(//etc/shadow)", r)
	}
}
