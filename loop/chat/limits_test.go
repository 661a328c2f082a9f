package chat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
)

// waits records the waits before retries.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func withHeader(k, v string, r reply) reply {
	return func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set(k, v)
		r(w, req)
	}
}

func TestRetryAfter(t *testing.T) {
	backoff := time.Millisecond
	tests := []struct {
		name     string
		first    reply
		min, max time.Duration
	}{
		{"429 with seconds", withHeader("Retry-After", "7", status(429, "slow down")), 7 * time.Second, 7 * time.Second},
		{"503 with an HTTP date", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", time.Now().Add(30*time.Second).UTC().Format(http.TimeFormat))
			status(503, "busy")(w, r)
		}, 28 * time.Second, 31 * time.Second},
		{"a long Retry-After is capped", withHeader("Retry-After", "86400", status(429, "tomorrow")), chat.MaxRetryAfter, chat.MaxRetryAfter},
		{"a 500's Retry-After is not asked for", withHeader("Retry-After", "7", status(500, "boom")), backoff, backoff},
		{"a malformed Retry-After falls back to the backoff", withHeader("Retry-After", "soon", status(429, "x")), backoff, backoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.first, okReply)
			cfg := s.config()
			var w waits
			cfg.Wait = w.wait
			cfg.Backoff = func(int) time.Duration { return backoff }
			resp, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
			if err != nil || resp.Message.Content != "fine" {
				t.Fatalf("Complete = %q, %v", resp.Message.Content, err)
			}
			if len(w.d) != 1 || w.d[0] < tt.min || w.d[0] > tt.max {
				t.Fatalf("waited %v, want one wait in [%v, %v]", w.d, tt.min, tt.max)
			}
		})
	}
}

// A stream that falls silent is cut after IdleTimeout, however long the
// attempt's Timeout, and retried; one that keeps sending is not cut.
func TestIdleTimeout(t *testing.T) {
	stallAfterRole := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	stallBeforeHeaders := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	for name, stall := range map[string]reply{"after a chunk": stallAfterRole, "before the headers": stallBeforeHeaders} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, stall)
			cfg := s.config()
			cfg.Stream, cfg.Timeout, cfg.IdleTimeout = true, time.Hour, 50*time.Millisecond
			_, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2], OnText: func(string) {}})
			if err == nil || !strings.Contains(err.Error(), "sent nothing for 50ms") || !strings.Contains(err.Error(), "GEN_STREAM_IDLE_TIMEOUT") || s.requests() != 4 {
				t.Fatalf("err %v after %d requests", err, s.requests())
			}
		})
	}
	t.Run("a slow stream that keeps sending", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for i := range 5 {
				fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%d\"}}]}\n\n", i)
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		})
		cfg := s.config()
		cfg.Stream, cfg.IdleTimeout = true, 5*time.Second
		resp, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
		if err != nil || resp.Message.Content != "01234" {
			t.Fatalf("Complete = %q, %v", resp.Message.Content, err)
		}
	})
}

func TestApplyEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg := chat.Config{Stream: true}
	if err := cfg.ApplyEnv(env(map[string]string{"GEN_STREAM_IDLE_TIMEOUT": "5s", "GEN_API_TIMEOUT": "2m", "GEN_NO_STREAM": "1"})); err != nil {
		t.Fatal(err)
	}
	if cfg.IdleTimeout != 5*time.Second || cfg.Timeout != 2*time.Minute || cfg.Stream {
		t.Fatalf("got %+v", cfg)
	}
	for k, v := range map[string]string{"GEN_STREAM_IDLE_TIMEOUT": "60", "GEN_API_TIMEOUT": "-1s", "GEN_NO_STREAM": "maybe"} {
		cfg := chat.Config{}
		if err := cfg.ApplyEnv(env(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: err %v, want one naming the variable", k, v, err)
		}
	}
}

// bodyReply answers with the prepared bytes b.
func bodyReply(contentType string, b []byte) reply {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(b)
	}
}

func completion(content, args string) []byte {
	msg := map[string]any{"role": "assistant", "content": content}
	if args != "" {
		msg["tool_calls"] = []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "Write", "arguments": args}}}
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": msg}}})
	return b
}

// streamOf is a stream that sends args as the arguments of one Write call
// in pieces of n bytes.
func streamOf(args string, n int) []byte {
	var b bytes.Buffer
	b.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"Write\",\"arguments\":\"\"}}]}}]}\n\n")
	for len(args) > 0 {
		piece := args[:min(n, len(args))]
		args = args[len(piece):]
		q, _ := json.Marshal(piece)
		fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%s}}]}}]}\n\n", q)
	}
	b.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// streamText is a stream that sends text in pieces of n bytes.
func streamText(text string, n int) []byte {
	var b bytes.Buffer
	for len(text) > 0 {
		piece := text[:min(n, len(text))]
		text = text[len(piece):]
		q, _ := json.Marshal(piece)
		fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", q)
	}
	b.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

func TestSizeLimits(t *testing.T) {
	big := strings.Repeat("a", 2<<20)
	tests := []struct {
		name    string
		stream  bool
		body    []byte
		wantErr string
	}{
		{"a response over MaxResponse", false, completion(big, ""), "the response is over the 1 MiB limit"},
		{"arguments over MaxToolArgs", false, completion("", `{"content":"`+big[:600<<10]+`"}`), "arguments of a Write call are over the 524288 bytes limit"},
		{"streamed arguments over MaxToolArgs", true, streamOf(big[:600<<10], 1000), "arguments of a Write call"},
		{"a streamed answer over MaxResponse", true, streamText(big, 100<<10), "the streamed answer is over the 1 MiB limit"},
		{"one stream event over MaxResponse", true, streamOf(big, 2<<20), "one stream event is over the 1 MiB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := "application/json"
			if tt.stream {
				ct = "text/event-stream"
			}
			s := newServer(t, bodyReply(ct, tt.body))
			cfg := s.config()
			cfg.Stream, cfg.MaxResponse, cfg.MaxToolArgs = tt.stream, 1<<20, 512<<10
			_, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
			if !errors.Is(err, chat.ErrTooLarge) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want ErrTooLarge with %q", err, tt.wantErr)
			}
			if s.requests() != 1 {
				t.Errorf("%d requests: a too-large answer must not be retried", s.requests())
			}
		})
	}
}

// The default caps let ordinary large answers through (16 MiB of tool-call
// arguments), and gathering a streamed answer costs a small multiple of
// its size, not a copy per chunk.
func TestLargeAnswerWithinDefaults(t *testing.T) {
	args := `{"content":"` + strings.Repeat("b", 16<<20-64) + `"}`
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			body, ct := completion("", args), "application/json"
			if stream {
				body, ct = streamOf(args, 4<<10), "text/event-stream"
			}
			s := newServer(t, bodyReply(ct, body))
			cfg := s.config()
			cfg.Stream = stream
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, err := chat.New(cfg).Complete(context.Background(), loop.Request{Messages: messages[:2]})
			runtime.ReadMemStats(&after)
			if err != nil || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Function.Arguments != args {
				t.Fatalf("Complete: %v", err)
			}
			// Everything allocated in the process while the answer was
			// read, the test server's writes included.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(args)) {
				t.Errorf("reading a %d MiB answer allocated %d MiB", len(args)>>20, alloc>>20)
			}
		})
	}
}
