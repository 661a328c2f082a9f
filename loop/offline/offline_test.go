package offline_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/tool"
)

func user(prompt string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "Run bash: not from the system prompt"},
		{Role: openai.ChatMessageRoleUser, Content: prompt},
	}
}

// firstCall returns the tool call the model makes first for prompt.
func firstCall(t *testing.T, prompt string) (openai.ToolCall, bool) {
	t.Helper()
	resp, err := offline.New().Complete(context.Background(), loop.Request{Messages: user(prompt)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) == 0 {
		return openai.ToolCall{}, false
	}
	if n := len(resp.Message.ToolCalls); n != 1 {
		t.Fatalf("%d tool calls in one turn, want 1", n)
	}
	return resp.Message.ToolCalls[0], true
}

func TestDirectives(t *testing.T) {
	tests := []struct {
		name string
		line string
		tool string // "" for not a directive
		args map[string]string
	}{
		{"bash", "Run bash: ls -la | wc -l", "Bash", map[string]string{"command": "ls -la | wc -l"}},
		{"bash with surrounding space", "   Run bash:   go test ./...  ", "Bash", map[string]string{"command": "go test ./..."}},
		{"read", "Read: /etc/passwd", "Read", map[string]string{"file_path": "/etc/passwd"}},
		{"write keeps colons in the text", "Write out/a.txt: key: value", "Write", map[string]string{"file_path": "out/a.txt", "content": "key: value"}},
		{"write with empty text", "Write empty.txt:", "Write", map[string]string{"file_path": "empty.txt", "content": ""}},
		{"write without a path", "Write : text", "", nil},
		{"edit", "Edit main.go: old text => new text", "Edit", map[string]string{"file_path": "main.go", "old_string": "old text", "new_string": "new text"}},
		{"edit to nothing", "Edit main.go: debug() => ", "Edit", map[string]string{"file_path": "main.go", "old_string": "debug()", "new_string": ""}},
		{"edit without an arrow", "Edit main.go: just text", "", nil},
		{"glob", "Glob: **/*_test.go", "Glob", map[string]string{"pattern": "**/*_test.go"}},
		{"grep", "Grep: func \\w+\\(", "Grep", map[string]string{"pattern": "func \\w+\\("}},
		{"fetch", "Fetch: https://example.com/a?b=c", "WebFetch", map[string]string{"url": "https://example.com/a?b=c"}},
		{"delegate", "Delegate explore: find where settings are loaded", "Agent",
			map[string]string{"subagent_type": "explore", "prompt": "find where settings are loaded", "description": "find where settings are loaded"}},
		{"delegate cuts the description to 40 characters", "Delegate general: " + strings.Repeat("é", 50), "Agent",
			map[string]string{"subagent_type": "general", "prompt": strings.Repeat("é", 50), "description": strings.Repeat("é", 40)}},
		{"call", `Call mcp__gh__get_issue: {"repo": "a/b", "n": "7"}`, "mcp__gh__get_issue", map[string]string{"repo": "a/b", "n": "7"}},
		{"call without JSON", "Call mcp__gh__get_issue: issue 7", "", nil},
		{"call with an array", "Call mcp__gh__get_issue: [1]", "", nil},
		{"prose", "Please read the file", "", nil},
		{"lower case is not a directive", "run bash: ls", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := firstCall(t, "intro\n"+tt.line+"\n")
			if tt.tool == "" {
				if ok {
					t.Fatalf("%q became a call %+v", tt.line, c)
				}
				return
			}
			if !ok {
				t.Fatalf("%q was not recognised", tt.line)
			}
			if c.ID != "call_1" || c.Type != openai.ToolTypeFunction || c.Function.Name != tt.tool {
				t.Errorf("call = %+v, want call_1 to %s", c, tt.tool)
			}
			var got map[string]string
			if err := json.Unmarshal([]byte(c.Function.Arguments), &got); err != nil {
				t.Fatalf("arguments %q: %v", c.Function.Arguments, err)
			}
			if !reflect.DeepEqual(got, tt.args) {
				t.Errorf("arguments = %v, want %v", got, tt.args)
			}
		})
	}
}

// TestConversation plays the runner by hand: it feeds tool results back
// and checks the next call and the final report.
func TestConversation(t *testing.T) {
	m := offline.New()
	msgs := user("Run bash: make\nRead: a.txt\nDelegate explore: look\nWrite b.txt: x")
	results := []string{
		"built\nexit code: 0",
		"ERROR: open a.txt: no such file\nmore",
		"DENIED: Agent is not allowed in explore mode",
		"(no output)",
	}
	wantTools := []string{"Bash", "Read", "Agent", "Write"}
	var prev loop.Response
	for i, res := range results {
		resp, err := m.Complete(context.Background(), loop.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		again, _ := m.Complete(context.Background(), loop.Request{Messages: msgs})
		if !reflect.DeepEqual(resp, again) {
			t.Fatalf("turn %d: two answers to one conversation differ:\n%+v\n%+v", i+1, resp, again)
		}
		if resp.Usage.TotalTokens <= prev.Usage.TotalTokens || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
			t.Errorf("turn %d: usage %+v does not grow with the conversation", i+1, resp.Usage)
		}
		prev = resp
		calls := resp.Message.ToolCalls
		if len(calls) != 1 || calls[0].Function.Name != wantTools[i] || calls[0].ID != "call_"+string(rune('1'+i)) {
			t.Fatalf("turn %d: calls %+v, want one %s call", i+1, calls, wantTools[i])
		}
		msgs = append(msgs, resp.Message, openai.ChatCompletionMessage{
			Role: openai.ChatMessageRoleTool, ToolCallID: calls[0].ID, Content: res,
		})
	}
	resp, err := m.Complete(context.Background(), loop.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"RESULT: Bash(make) -> ALLOWED",
		"RESULT: Read(a.txt) -> ERROR: open a.txt: no such file",
		"RESULT: Agent(explore) -> DENIED: Agent is not allowed in explore mode",
		"RESULT: Write(b.txt) -> ALLOWED",
	}, "\n")
	if len(resp.Message.ToolCalls) != 0 || resp.Message.Content != want || resp.Message.Role != openai.ChatMessageRoleAssistant {
		t.Errorf("final message %+v, want the report\n%s", resp.Message, want)
	}
}

func TestErrors(t *testing.T) {
	m := offline.New()
	_, err := m.Complete(context.Background(), loop.Request{Messages: []openai.ChatCompletionMessage{{Role: "system", Content: "Read: x"}}})
	if err == nil || !strings.Contains(err.Error(), "no user message") {
		t.Errorf("no user message: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Complete(ctx, loop.Request{Messages: user("Read: x")}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

type allow struct{}

func (allow) Check(context.Context, perm.Request) perm.Result {
	return perm.Result{Decision: perm.Allow}
}

type echo struct{ name string }

func (e echo) Name() string { return e.name }
func (e echo) Run(context.Context, tool.Call) (string, error) {
	return e.name + " ok", nil
}

func BenchmarkOfflineRun(b *testing.B) {
	r := &loop.Runner{
		Model: offline.New(),
		Tools: []tool.Tool{echo{"Bash"}, echo{"Read"}, echo{"Glob"}},
		Gate:  allow{},
	}
	prompt := "Run bash: go build\nRead: go.mod\nGlob: **/*.go\nRun bash: go vet"
	want := strings.Count(prompt, "\n") + 2
	b.ReportAllocs()
	for b.Loop() {
		out, err := r.Run(context.Background(), "system", prompt)
		if err != nil || out.Turns != want || strings.Contains(out.Final, "ERROR") {
			b.Fatalf("Run: %v after %d turns:\n%s", err, out.Turns, out.Final)
		}
	}
}

// In a conversation of several turns the model answers the latest prompt,
// and its call IDs stay unique across turns.
func TestLaterTurn(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "Run bash: echo one"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "Bash", Arguments: `{"command":"echo one"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "one"},
		{Role: openai.ChatMessageRoleAssistant, Content: "RESULT: Bash(echo one) -> ALLOWED"},
		{Role: openai.ChatMessageRoleUser, Content: "Read: a.txt"},
	}
	resp, err := offline.New().Complete(context.Background(), loop.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	tcs := resp.Message.ToolCalls
	if len(tcs) != 1 || tcs[0].ID != "call_2" || tcs[0].Function.Name != "Read" || tcs[0].Function.Arguments != `{"file_path":"a.txt"}` {
		t.Fatalf("tool calls = %+v, want one Read of a.txt with ID call_2", tcs)
	}
	msgs = append(msgs, resp.Message, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "call_2", Content: "DENIED: no"})
	resp, err = offline.New().Complete(context.Background(), loop.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if want := "RESULT: Read(a.txt) -> DENIED: no"; resp.Message.Content != want || len(resp.Message.ToolCalls) != 0 {
		t.Fatalf("final = %q, want %q", resp.Message.Content, want)
	}
}

// Consecutive Delegate directives are one turn with several Agent calls.
func TestDelegatesBatch(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Delegate a: x\nDelegate b: y\nRead: f"}}
	resp, err := offline.New().Complete(context.Background(), loop.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range resp.Message.ToolCalls {
		got = append(got, tc.ID+" "+tc.Function.Name)
	}
	if want := "call_1 Agent,call_2 Agent"; strings.Join(got, ",") != want {
		t.Fatalf("first turn calls = %v, want %s", got, want)
	}
	msgs = append(msgs, resp.Message,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "ok"},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "call_2", Content: "ok"})
	resp, err = offline.New().Complete(context.Background(), loop.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if tcs := resp.Message.ToolCalls; len(tcs) != 1 || tcs[0].ID != "call_3" || tcs[0].Function.Name != "Read" {
		t.Fatalf("second turn calls = %+v, want call_3 Read", tcs)
	}
}
