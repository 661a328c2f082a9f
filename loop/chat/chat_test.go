package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
)

// server is a chat-completions endpoint on 127.0.0.1 that answers the n-th
// request (from 0) with replies[n], or the last reply once they run out,
// and records every request body.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	headers []http.Header
}

type reply func(w http.ResponseWriter, r *http.Request)

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		replies[min(n, len(replies)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func (s *server) config() chat.Config {
	return chat.Config{
		BaseURL: s.URL + "/v1/",
		APIKey:  "test-key",
		Model:   "test-model",
		Backoff: func(int) time.Duration { return time.Millisecond },
	}
}

func jsonReply(v any) reply {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
}

func status(code int, msg string) reply {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"test_error"}}`, msg)
	}
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// sse streams events (JSON-encoded) and, if done, the [DONE] line.
func sse(done bool, events ...any) reply {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		if done {
			io.WriteString(w, "data: [DONE]\n\n")
		}
	}
}

var okReply = jsonReply(map[string]any{
	"id": "x", "object": "chat.completion",
	"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "fine"}}},
	"usage":   map[string]any{"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
})

var tools = []openai.Tool{
	{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "Bash", Description: "Run a command",
		Parameters: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"command": map[string]any{"type": "string"}},
			"required":             []any{"command"},
			"additionalProperties": false,
		},
	}},
	{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "Read", Parameters: map[string]any{"type": "object", "properties": map[string]any{}},
	}},
}

var messages = []openai.ChatCompletionMessage{
	{Role: "system", Content: "be brief"},
	{Role: "user", Content: "hi"},
	{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "Bash", Arguments: `{"command":"ls"}`}}}},
	{Role: "tool", ToolCallID: "c1", Content: "a.txt"},
}

// asJSON round-trips v through JSON, as the server sees it.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestComplete(t *testing.T) {
	s := newServer(t, jsonReply(map[string]any{
		"id": "x", "object": "chat.completion",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{
				"role": "assistant", "content": "Checking.",
				"tool_calls": []any{map[string]any{"id": "call_9", "type": "function", "function": map[string]any{"name": "Read", "arguments": `{"file_path":"a.txt"}`}}},
			},
		}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	}))
	var text []string
	resp, err := chat.New(s.config()).Complete(context.Background(), loop.Request{
		Messages: messages, Tools: tools, OnText: func(d string) { text = append(text, d) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := openai.ChatCompletionMessage{
		Role: "assistant", Content: "Checking.",
		ToolCalls: []openai.ToolCall{{ID: "call_9", Type: "function", Function: openai.FunctionCall{Name: "Read", Arguments: `{"file_path":"a.txt"}`}}},
	}
	if !reflect.DeepEqual(resp.Message, want) {
		t.Errorf("message %+v, want %+v", resp.Message, want)
	}
	if resp.Usage.TotalTokens != 15 || resp.Usage.PromptTokens != 10 {
		t.Errorf("usage %+v", resp.Usage)
	}
	if !reflect.DeepEqual(text, []string{"Checking."}) {
		t.Errorf("OnText got %q", text)
	}
	body := s.bodies[0]
	if got, want := body["tools"], asJSON(t, tools); !reflect.DeepEqual(got, want) {
		t.Errorf("tools on the wire:\n%v\nwant\n%v", got, want)
	}
	// An assistant message with tool calls and no text carries
	// "content": null; some gateways reject it without the field.
	wantMsgs := asJSON(t, messages).([]any)
	wantMsgs[2].(map[string]any)["content"] = nil
	if got, want := body["messages"], any(wantMsgs); !reflect.DeepEqual(got, want) {
		t.Errorf("messages on the wire:\n%v\nwant\n%v", got, want)
	}
	if body["model"] != "test-model" || body["stream"] != false {
		t.Errorf("model %v, stream %v", body["model"], body["stream"])
	}
	if got := s.headers[0].Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization %q", got)
	}
}

func TestStream(t *testing.T) {
	chunk := func(finish string, delta map[string]any) map[string]any {
		ch := map[string]any{"index": 0, "delta": delta}
		if finish != "" {
			ch["finish_reason"] = finish
		}
		return map[string]any{"id": "x", "object": "chat.completion.chunk", "choices": []any{ch}}
	}
	call := func(index int, id, name, args string) map[string]any {
		c := map[string]any{"index": index, "function": map[string]any{"arguments": args}}
		if id != "" {
			c["id"], c["type"] = id, "function"
			c["function"].(map[string]any)["name"] = name
		}
		return map[string]any{"tool_calls": []any{c}}
	}
	s := newServer(t, sse(true,
		chunk("", map[string]any{"role": "assistant", "content": ""}),
		chunk("", map[string]any{"content": "Let me "}),
		chunk("", map[string]any{"content": "check."}),
		chunk("", call(0, "call_a", "Bash", "")),
		chunk("", call(0, "", "", `{"comm`)),
		chunk("", call(1, "call_b", "Read", `{"file_`)),
		chunk("", call(0, "", "", `and":"ls -l`)),
		chunk("", call(1, "", "", `path":"x.go"}`)),
		chunk("", call(0, "", "", `"}`)),
		chunk("tool_calls", map[string]any{}),
		map[string]any{"id": "x", "object": "chat.completion.chunk", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27}},
	))
	cfg := s.config()
	cfg.Stream = true
	var text []string
	resp, err := chat.New(cfg).Complete(context.Background(), loop.Request{
		Messages: messages, Tools: tools, OnText: func(d string) { text = append(text, d) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := openai.ChatCompletionMessage{
		Role: "assistant", Content: "Let me check.",
		ToolCalls: []openai.ToolCall{
			{ID: "call_a", Type: "function", Function: openai.FunctionCall{Name: "Bash", Arguments: `{"command":"ls -l"}`}},
			{ID: "call_b", Type: "function", Function: openai.FunctionCall{Name: "Read", Arguments: `{"file_path":"x.go"}`}},
		},
	}
	if !reflect.DeepEqual(resp.Message, want) {
		t.Errorf("message\n%+v\nwant\n%+v", resp.Message, want)
	}
	if !reflect.DeepEqual(text, []string{"Let me ", "check."}) {
		t.Errorf("OnText got %q", text)
	}
	if resp.Usage.TotalTokens != 27 {
		t.Errorf("usage %+v", resp.Usage)
	}
	body := s.bodies[0]
	if body["stream"] != true || !reflect.DeepEqual(body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("stream %v, stream_options %v", body["stream"], body["stream_options"])
	}
	if got, want := body["tools"], asJSON(t, tools); !reflect.DeepEqual(got, want) {
		t.Errorf("tools on the wire:\n%v\nwant\n%v", got, want)
	}
}

func TestRetry(t *testing.T) {
	textThenHangUp := func(w http.ResponseWriter, r *http.Request) {
		sse(false, map[string]any{"id": "x", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "partial"}}}})(w, r)
	}
	streamOK := sse(true, map[string]any{"id": "x", "choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "delta": map[string]any{"content": "fine"}}}})
	tests := []struct {
		name     string
		stream   bool
		onText   bool
		maxTries int
		replies  []reply
		wantReqs int
		wantErr  []string // substrings; nil means success
	}{
		{name: "a 500 then success recovers", replies: []reply{status(500, "boom"), okReply}, wantReqs: 2},
		{name: "a 429 then success recovers", replies: []reply{status(429, "slow down"), okReply}, wantReqs: 2},
		{name: "a dropped connection then success recovers", replies: []reply{hangUp, okReply}, wantReqs: 2},
		{name: "four 503s give up with the status", replies: []reply{status(503, "overloaded")}, wantReqs: 4,
			wantErr: []string{"after 4 tries", "503", "overloaded", "test-model"}},
		{name: "MaxTries bounds the attempts", maxTries: 2, replies: []reply{status(502, "bad gateway")}, wantReqs: 2,
			wantErr: []string{"after 2 tries", "502"}},
		{name: "a 400 is not retried", replies: []reply{status(400, "unknown parameter foo"), okReply}, wantReqs: 1,
			wantErr: []string{"400", "unknown parameter foo"}},
		{name: "a 401 is not retried", replies: []reply{status(401, "bad key"), okReply}, wantReqs: 1,
			wantErr: []string{"401", "bad key"}},
		{name: "a 404 without a JSON body is not retried", replies: []reply{func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no such route", http.StatusNotFound)
		}, okReply}, wantReqs: 1, wantErr: []string{"404", "no such route"}},
		{name: "streaming: a 500 then success recovers", stream: true, replies: []reply{status(500, "boom"), streamOK}, wantReqs: 2},
		{name: "streaming: a stream cut before any text is retried", stream: true, onText: true,
			replies: []reply{sse(false), streamOK}, wantReqs: 2},
		{name: "streaming: a stream cut after text reached OnText is not retried", stream: true, onText: true,
			replies: []reply{textThenHangUp, streamOK}, wantReqs: 1, wantErr: []string{"no finish_reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.replies...)
			cfg := s.config()
			cfg.Stream, cfg.MaxTries = tt.stream, tt.maxTries
			req := loop.Request{Messages: messages[:2]}
			if tt.onText {
				req.OnText = func(string) {}
			}
			resp, err := chat.New(cfg).Complete(context.Background(), req)
			if got := s.requests(); got != tt.wantReqs {
				t.Errorf("%d requests, want %d", got, tt.wantReqs)
			}
			if tt.wantErr == nil {
				if err != nil || resp.Message.Content != "fine" {
					t.Errorf("Complete = %+v, %v; want the answer", resp.Message, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Complete succeeded with %+v", resp.Message)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name    string
		replies []reply
	}{
		{"during the backoff", []reply{status(500, "boom")}},
		{"during the request", []reply{func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }}},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", tt.name, stream), func(t *testing.T) {
				s := newServer(t, tt.replies...)
				cfg := s.config()
				cfg.Stream = stream
				cfg.Backoff = func(int) time.Duration { return time.Hour }
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go func() {
					for s.requests() == 0 {
						time.Sleep(time.Millisecond)
					}
					time.Sleep(20 * time.Millisecond) // into the backoff, or the blocked request
					cancel()
				}()
				// Backoff is an hour and the blocked request never
				// answers: only cancellation can end Complete.
				_, err := chat.New(cfg).Complete(ctx, loop.Request{Messages: messages[:2]})
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
				if n := s.requests(); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
			})
		}
	}
}

func TestNoModel(t *testing.T) {
	s := newServer(t, okReply)
	cfg := s.config()
	cfg.Model = ""
	_, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
	if err == nil || !strings.Contains(err.Error(), "no model name") {
		t.Errorf("err = %v", err)
	}
	if s.requests() != 0 {
		t.Error("a request was sent without a model name")
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name           string
		base, key, env string
		arg            string
		want           chat.Config
		ok             bool
	}{
		{name: "nothing set", want: chat.Config{}, ok: false},
		{name: "only a model is not a server", env: "m", want: chat.Config{Model: "m"}, ok: false},
		{name: "a base URL is enough", base: "http://127.0.0.1:1/v1", env: "llama", want: chat.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "llama"}, ok: true},
		{name: "a key is enough", key: "sk-1", want: chat.Config{APIKey: "sk-1"}, ok: true},
		{name: "the argument wins over GEN_MODEL", key: "sk-1", env: "a", arg: "b", want: chat.Config{APIKey: "sk-1", Model: "b"}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPENAI_BASE_URL", tt.base)
			t.Setenv("OPENAI_API_KEY", tt.key)
			t.Setenv("GEN_MODEL", tt.env)
			got, ok := chat.FromEnv(tt.arg)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FromEnv(%q) = %+v, %v; want %+v, %v", tt.arg, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	for try := range 12 {
		full := min(500*time.Millisecond<<min(try, 10), 8*time.Second)
		for range 50 {
			if d := chat.Backoff(try); d < full/2 || d > full {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", try, d, full/2, full)
			}
		}
	}
}

// A server that stalls never hangs a turn: each attempt has a deadline,
// and a stalled attempt is retried like a network error.
func TestStalledServer(t *testing.T) {
	stall := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("recovers stream=%v", stream), func(t *testing.T) {
			ok := jsonReply(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "hi"}, "finish_reason": "stop"}}})
			if stream {
				ok = func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"}}]}\n\n")
					fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
				}
			}
			s := newServer(t, stall, ok)
			cfg := s.config()
			cfg.Stream, cfg.Timeout = stream, 100*time.Millisecond
			resp, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
			if err != nil || resp.Message.Content != "hi" || s.requests() != 2 {
				t.Fatalf("resp %q, err %v, %d requests", resp.Message.Content, err, s.requests())
			}
		})
	}
	t.Run("gives up", func(t *testing.T) {
		s := newServer(t, stall)
		cfg := s.config()
		cfg.Timeout = 50 * time.Millisecond
		_, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
		if err == nil || !strings.Contains(err.Error(), "did not answer in time") || s.requests() != 4 {
			t.Fatalf("err %v after %d requests", err, s.requests())
		}
	})
}

// A password in the endpoint's URL is not repeated in errors or debug
// lines; the request still carries it.
func TestURLPasswordHidden(t *testing.T) {
	var gotUser string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, _, _ = r.BasicAuth()
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer srv.Close()
	var debug []string
	m := chat.New(chat.Config{BaseURL: strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/v1", Model: "m",
		Debug: func(s string) { debug = append(debug, s) }})
	_, err := m.Complete(context.Background(), loop.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "user:xxxxx@") {
		t.Errorf("error %v: want the URL with its password hidden", err)
	}
	if len(debug) == 0 || strings.Contains(strings.Join(debug, "\n"), "s3cret") {
		t.Errorf("debug lines %q: want some, without the password", debug)
	}
	if gotUser != "user" {
		t.Errorf("the request's user is %q, want the URL's", gotUser)
	}
}
