package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// approver is a permission-prompt server: it records what it was asked and
// answers with whatever text the test set.
type approver struct {
	mu      sync.Mutex
	answer  string
	isError bool
	hang    bool
	got     []map[string]any
	stop    <-chan struct{}
}

func (a *approver) server() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "approver", Version: "1"}, nil)
	handler := func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args map[string]any
		json.Unmarshal(req.Params.Arguments, &args)
		a.mu.Lock()
		a.got = append(a.got, args)
		answer, isError, hang, stop := a.answer, a.isError, a.hang, a.stop
		a.mu.Unlock()
		if hang {
			select {
			case <-ctx.Done():
			case <-stop:
			}
			return nil, ctx.Err()
		}
		return &sdk.CallToolResult{IsError: isError, Content: []sdk.Content{&sdk.TextContent{Text: answer}}}, nil
	}
	s.AddTool(&sdk.Tool{Name: "approve", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	// A tool with a closed schema that does not declare "agent", as a Go
	// server written for Claude Code's three fields would have.
	s.AddTool(&sdk.Tool{Name: "strict", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"tool_name":{"type":"string"},"input":{"type":"object"},"tool_use_id":{"type":"string"}},"additionalProperties":false}`)}, handler)
	return s
}

func (a *approver) set(answer string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answer, a.isError, a.hang = answer, false, false
}

func (a *approver) last() map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got[len(a.got)-1]
}

func TestAskDelegate(t *testing.T) {
	ap := &approver{}
	srv := httpServer(t, "perm", ap.server())
	stop := stopAtCleanup(t)
	ap.mu.Lock()
	ap.stop = stop
	ap.mu.Unlock()
	m, _ := start(t, Options{CallTimeout: 2 * time.Second}, srv)
	req := DelegateRequest{ToolName: "Bash", Input: map[string]any{"command": "npm test"}, ToolUseID: "call_1", Agent: "builder"}
	ask := func(tool string) (DelegateAnswer, error) {
		return guard(t, "AskDelegate", func() delegated {
			a, err := AskDelegate(context.Background(), m, tool, req)
			return delegated{a, err}
		}).get()
	}

	// Allow, with a rewritten input and a session rule.
	ap.set(`{"behavior":"allow","updatedInput":{"command":"npm test -- --ci"},
		"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"}],"behavior":"allow","destination":"session"}]}`)
	a, err := ask("mcp__perm__approve")
	if err != nil {
		t.Fatal(err)
	}
	want := DelegateAnswer{Allow: true, UpdatedInput: map[string]any{"command": "npm test -- --ci"},
		Updates: []PermissionUpdate{{Behavior: "allow", Rules: []string{"Bash(npm test:*)"}, Destination: "session"}}}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("allow = %+v\nwant %+v", a, want)
	}
	wantArgs := map[string]any{"tool_name": "Bash", "input": map[string]any{"command": "npm test"}, "tool_use_id": "call_1", "agent": "builder"}
	if got := ap.last(); !reflect.DeepEqual(got, wantArgs) {
		t.Errorf("the tool was asked %v, want %v", got, wantArgs)
	}

	// A closed schema without "agent" gets Claude Code's three fields.
	ap.set(`{"behavior":"allow","updatedInput":{"command":"npm test"}}`)
	if _, err := ask("mcp__perm__strict"); err != nil {
		t.Fatal(err)
	}
	if got := ap.last(); got["agent"] != nil || got["tool_name"] != "Bash" {
		t.Errorf("strict tool was asked %v", got)
	}

	// Deny.
	ap.set(`{"behavior":"deny","message":"not on Fridays"}`)
	a, err = ask("mcp__perm__approve")
	if err != nil || a.Allow || a.Message != "not on Fridays" {
		t.Errorf("deny = %+v, %v", a, err)
	}

	// Every failure is an error: the caller denies.
	fails := []struct{ name, answer, want string }{
		{"not json", `yes please`, "the answer is not JSON"},
		{"no behavior", `{"updatedInput":{}}`, `needs "behavior"`},
		{"other behavior", `{"behavior":"ask"}`, `behavior "ask": must be "allow" or "deny"`},
		{"case", `{"behavior":"Allow"}`, `behavior "Allow"`},
		{"repeated key", `{"behavior":"deny","behavior":"allow"}`, `repeats the key "behavior"`},
		{"input not object", `{"behavior":"allow","updatedInput":"rm -rf /"}`, "updatedInput must be a JSON object"},
		{"bad rule", `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"git:* x"}],"behavior":"allow","destination":"session"}]}`, "malformed rule"},
		{"array", `[]`, "must be a JSON object"},
	}
	for _, f := range fails {
		ap.set(f.answer)
		if a, err := ask("mcp__perm__approve"); err == nil || !strings.Contains(err.Error(), f.want) {
			t.Errorf("%s: %+v, %v; want error containing %q", f.name, a, err, f.want)
		}
	}
	ap.mu.Lock()
	ap.answer, ap.isError = `{"behavior":"allow"}`, true
	ap.mu.Unlock()
	if _, err := ask("mcp__perm__approve"); err == nil || !strings.Contains(err.Error(), "failed") {
		t.Errorf("isError result: %v", err)
	}
	ap.mu.Lock()
	ap.hang = true
	ap.mu.Unlock()
	if _, err := ask("mcp__perm__approve"); err == nil || !strings.Contains(err.Error(), "no answer within 2s") {
		t.Errorf("hanging tool: %v", err)
	}
	ap.set(`{"behavior":"allow"}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := AskDelegate(ctx, m, "mcp__perm__approve", req); err == nil {
		t.Error("cancelled context: no error")
	}
	if _, err := ask("mcp__perm__nope"); err == nil || !strings.Contains(err.Error(), `"mcp__perm__nope": no such MCP tool`) {
		t.Errorf("unknown tool: %v", err)
	}
}

type delegated struct {
	a   DelegateAnswer
	err error
}

func (d delegated) get() (DelegateAnswer, error) { return d.a, d.err }

func TestParseDelegateAnswer(t *testing.T) {
	cases := []struct {
		name, in string
		want     DelegateAnswer
	}{
		{"allow bare", `{"behavior":"allow"}`, DelegateAnswer{Allow: true}},
		{"allow null input", `{"behavior":"allow","updatedInput":null}`, DelegateAnswer{Allow: true}},
		{"unknown keys ignored", `{"behavior":"allow","toolUseID":"x","decisionReason":"ok"}`, DelegateAnswer{Allow: true}},
		{"deny without message", `{"behavior":"deny"}`, DelegateAnswer{Message: defaultDenyMessage}},
		{"deny interrupt", `{"behavior":"deny","message":"stop","interrupt":true}`, DelegateAnswer{Message: "stop", Interrupt: true}},
		{"deny ignores updates", `{"behavior":"deny","message":"m","updatedPermissions":[{"type":"addRules"}]}`,
			DelegateAnswer{Message: "m", Ignored: []string{"updatedPermissions on a deny answer"}}},
	}
	for _, tc := range cases {
		got, err := ParseDelegateAnswer([]byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{"behavior":"deny","message":3}`, `{"behavior":"deny","interrupt":"yes"}`, `{"behavior":true}`, ``} {
		if _, err := ParseDelegateAnswer([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParsePermissionUpdates(t *testing.T) {
	in := `[
	  {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"},{"toolName":"mcp__gh"}],"behavior":"allow","destination":"session"},
	  {"type":"addRules","rules":[{"toolName":"WebFetch","ruleContent":"domain:evil.com"}],"behavior":"deny","destination":"session"},
	  {"type":"addRules","rules":[{"toolName":"Read","ruleContent":""}],"behavior":"ask","destination":"session"},
	  {"type":"addRules","rules":[{"toolName":"Edit"}],"behavior":"allow","destination":"userSettings"},
	  {"type":"setMode","mode":"bypassPermissions","destination":"session"},
	  {"type":"addDirectories","directories":["/"],"destination":"session"}
	]`
	got, ignored, err := ParsePermissionUpdates(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []PermissionUpdate{
		{Behavior: "allow", Rules: []string{"Bash(npm test)", "mcp__gh"}, Destination: "session"},
		{Behavior: "deny", Rules: []string{"WebFetch(domain:evil.com)"}, Destination: "session"},
		{Behavior: "ask", Rules: []string{"Read"}, Destination: "session"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("updates = %+v\nwant %+v", got, want)
	}
	wantIgnored := []string{
		`updatedPermissions[3]: destination "userSettings" is not applied (gen keeps delegate rules for the session only)`,
		`updatedPermissions[4]: type "setMode" is not applied`,
		`updatedPermissions[5]: type "addDirectories" is not applied`,
	}
	if !reflect.DeepEqual(ignored, wantIgnored) {
		t.Errorf("ignored = %q", ignored)
	}
	for _, bad := range []struct{ in, want string }{
		{`{}`, "must be an array of objects"},
		{`[{"rules":[]}]`, "updatedPermissions[0]: missing type"},
		{`[{"type":"addRules","rules":[],"behavior":"allow","destination":"session"}]`, "non-empty rules"},
		{`[{"type":"addRules","rules":[{"ruleContent":"x"}],"behavior":"allow","destination":"session"}]`, "rules[0]: missing toolName"},
		{`[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"always","destination":"session"}]`, `behavior "always"`},
		{`[{"type":"addRules","rules":[{"toolName":"Bash x"}],"behavior":"allow","destination":"session"}]`, "malformed rule"},
		{`[{"type":"addRules","rules":[{"toolName":"MCP","ruleContent":"github"}],"behavior":"allow","destination":"session"}]`, "MCP patterns name tools"},
		// Unknown types and destinations are malformed, not merely not
		// applied: an answer with a typo in the entry that was to deny
		// something is no answer (the call is denied), never the allow
		// without that entry.
		{`[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"},{"type":"addRule","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"deny","destination":"session"}]`, `updatedPermissions[1]: unknown update type "addRule"`},
		{`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"deny","destination":"sesion"}]`, `updatedPermissions[0]: unknown destination "sesion"`},
		{`[{"type":"setMode","mode":"yolo","destination":"session"}]`, `updatedPermissions[0]: setMode: unknown mode "yolo"`},
		{`[{"type":"addDirectories","destination":"session"}]`, `updatedPermissions[0]: addDirectories without directories`},
		{`[{"type":"setMode","mode":"bypassPermissions"}]`, `updatedPermissions[0]: unknown destination ""`},
	} {
		if _, _, err := ParsePermissionUpdates(json.RawMessage(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want %q", bad.in, err, bad.want)
		}
	}
}
