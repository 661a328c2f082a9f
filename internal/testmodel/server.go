// Package testmodel serves a loop.Model over the OpenAI chat-completions
// wire format on a local httptest server, so tests can run the real HTTP
// client (loop/chat) against a deterministic model such as the offline one.
package testmodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
)

// Server is a local chat-completions endpoint.
type Server struct {
	*httptest.Server
	model loop.Model

	mu       sync.Mutex
	requests []openai.ChatCompletionRequest
}

// New starts a server answering with m; it is closed when t ends.
func New(t testing.TB, m loop.Model) *Server {
	s := &Server{model: m}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// Model returns a chat client for the server; stream selects SSE streaming.
func (s *Server) Model(stream bool) loop.Model {
	return chat.New(chat.Config{BaseURL: s.URL + "/v1", APIKey: "test", Model: "test-model", Stream: stream, Backoff: func(int) time.Duration { return 0 }})
}

// Requests returns every request received, in order.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	resp, err := s.model.Complete(context.WithoutCancel(r.Context()), loop.Request{Messages: req.Messages, Tools: req.Tools})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	msg := resp.Message
	msg.Role = openai.ChatMessageRoleAssistant
	finish := openai.FinishReasonStop
	if len(msg.ToolCalls) > 0 {
		finish = openai.FinishReasonToolCalls
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			ID: "chatcmpl-test", Object: "chat.completion", Model: req.Model,
			Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: finish}},
			Usage:   resp.Usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(d openai.ChatCompletionStreamChoiceDelta, fin openai.FinishReason) {
		chunk := openai.ChatCompletionStreamResponse{
			ID: "chatcmpl-test", Object: "chat.completion.chunk", Model: req.Model,
			Choices: []openai.ChatCompletionStreamChoice{{Delta: d, FinishReason: fin}},
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	send(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, "")
	// Text and arguments arrive in small pieces, as real servers send them.
	for _, piece := range split(msg.Content, 7) {
		send(openai.ChatCompletionStreamChoiceDelta{Content: piece}, "")
	}
	for i, tc := range msg.ToolCalls {
		idx := i
		send(openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &idx, ID: tc.ID, Type: tc.Type, Function: openai.FunctionCall{Name: tc.Function.Name}}}}, "")
		for _, piece := range split(tc.Function.Arguments, 5) {
			send(openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &idx, Function: openai.FunctionCall{Arguments: piece}}}}, "")
		}
	}
	send(openai.ChatCompletionStreamChoiceDelta{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// split cuts s into pieces of n runes (never inside a UTF-8 sequence).
func split(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > n {
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	if len(r) > 0 {
		out = append(out, string(r))
	}
	return out
}
