package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/tool"
)

// fakeTool runs fn and counts its runs; it records every input it got.
type fakeTool struct {
	name string
	fn   func(ctx context.Context, in map[string]any) (string, error)

	mu     sync.Mutex
	inputs []map[string]any
}

func (t *fakeTool) Name() string { return t.name }

func (t *fakeTool) Run(ctx context.Context, call tool.Call) (string, error) {
	in := call.Input
	t.mu.Lock()
	t.inputs = append(t.inputs, maps.Clone(in))
	t.mu.Unlock()
	if t.fn == nil {
		return "ok from " + t.name, nil
	}
	return t.fn(ctx, in)
}

// Parallel makes the fake Agent declare, as the real one does, that its
// calls may run in parallel.
func (t *fakeTool) Parallel() bool { return t.name == "Agent" }

func (t *fakeTool) runs() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inputs)
}

// echoTools returns tools that answer "<name> ran".
func echoTools(names ...string) []*fakeTool {
	var ts []*fakeTool
	for _, n := range names {
		ts = append(ts, &fakeTool{name: n, fn: func(context.Context, map[string]any) (string, error) {
			return n + " ran", nil
		}})
	}
	return ts
}

// fakeGate denies the tools in deny (with reason "<tool> is not allowed
// here") and allows everything else; it records every request.
type fakeGate struct {
	deny map[string]bool

	mu   sync.Mutex
	reqs []perm.Request
}

func (g *fakeGate) Check(_ context.Context, req perm.Request) perm.Result {
	g.mu.Lock()
	g.reqs = append(g.reqs, perm.Request{Tool: req.Tool, Input: maps.Clone(req.Input)})
	g.mu.Unlock()
	if g.deny[req.Tool] {
		return perm.Result{Decision: perm.Deny, Step: 1, Reason: req.Tool + " is not allowed here", Rule: req.Tool, Source: perm.SourceProject}
	}
	return perm.Result{Decision: perm.Allow, Step: 7, Reason: "allowed by test", Source: perm.SourceMode}
}

// scripted is a Model that answers turn n (from 1) with reply(n, req) and
// records a deep copy of every Request it was sent.
type scripted struct {
	reply func(ctx context.Context, turn int, req loop.Request) (loop.Response, error)

	mu   sync.Mutex
	reqs []loop.Request
}

func (m *scripted) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	m.mu.Lock()
	cp := req
	cp.Messages = slices.Clone(req.Messages)
	for i := range cp.Messages {
		cp.Messages[i].ToolCalls = slices.Clone(cp.Messages[i].ToolCalls)
	}
	m.reqs = append(m.reqs, cp)
	turn := len(m.reqs)
	m.mu.Unlock()
	return m.reply(ctx, turn, req)
}

func (m *scripted) requests() []loop.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// turns scripts a model from a fixed list of assistant messages; a turn
// past the end is an error.
func turns(msgs ...openai.ChatCompletionMessage) *scripted {
	return &scripted{reply: func(_ context.Context, turn int, _ loop.Request) (loop.Response, error) {
		if turn > len(msgs) {
			return loop.Response{}, fmt.Errorf("script has no turn %d", turn)
		}
		return loop.Response{Message: msgs[turn-1]}, nil
	}}
}

func final(text string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text}
}

func calling(calls ...openai.ToolCall) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: calls}
}

func tc(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func args(v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// identity and accept stand in for schema.Normalize and schema.Validate.
func identity(_ string, in map[string]any) map[string]any { return maps.Clone(in) }
func accept(string, map[string]any) error                 { return nil }

// runner returns a Runner over m, tools and g with the stand-ins above.
func runner(m loop.Model, g *fakeGate, tools ...*fakeTool) *loop.Runner {
	r := &loop.Runner{Model: m, Gate: g, Normalize: identity, Validate: accept, Agent: "main"}
	for _, t := range tools {
		r.Tools = append(r.Tools, t)
	}
	return r
}

// toolMessages returns the tool messages of the last request m received.
func toolMessages(t *testing.T, m *scripted) []openai.ChatCompletionMessage {
	t.Helper()
	reqs := m.requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never called")
	}
	var out []openai.ChatCompletionMessage
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.Role == openai.ChatMessageRoleTool {
			out = append(out, msg)
		}
	}
	return out
}
