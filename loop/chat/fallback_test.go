package chat_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/chat"
)

// byModel is a chat-completions endpoint whose answer depends on the model
// a request names; it counts the requests for each.
type byModel struct {
	mu    sync.Mutex
	count map[string]int
	url   string
}

func newByModel(t *testing.T, replies map[string]reply) *byModel {
	t.Helper()
	b := &byModel{count: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		b.count[body.Model]++
		b.mu.Unlock()
		replies[body.Model](w, r)
	}))
	t.Cleanup(srv.Close)
	b.url = srv.URL + "/v1"
	return b
}

func (b *byModel) model(name string) loop.Model {
	return chat.New(chat.Config{BaseURL: b.url, Model: name, Stream: name == "broken", MaxTries: 2, Backoff: func(int) time.Duration { return time.Millisecond }})
}

func (b *byModel) requests(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.count[name]
}

// An overloaded main model is tried as often as it is retried, then the
// fallback answers that turn and every later one.
func TestFallbackSwitchesOnceOverloaded(t *testing.T) {
	srv := newByModel(t, map[string]reply{"big": status(529, "overloaded"), "small": okReply})
	var switches []error
	f := &chat.Fallback{Primary: srv.model("big"), Secondary: srv.model("small"), OnSwitch: func(err error) { switches = append(switches, err) }}
	req := loop.Request{Messages: messages[:2]}
	for turn := range 3 {
		resp, err := f.Complete(context.Background(), req)
		if err != nil || resp.Message.Content != "fine" {
			t.Fatalf("turn %d: %q, %v; want the fallback's answer", turn, resp.Message.Content, err)
		}
	}
	if n := srv.requests("big"); n != 2 {
		t.Errorf("%d requests for the main model, want 2 (its tries in the first turn only)", n)
	}
	if n := srv.requests("small"); n != 3 {
		t.Errorf("%d requests for the fallback, want 3", n)
	}
	if len(switches) != 1 || !chat.Overloaded(switches[0]) {
		t.Errorf("OnSwitch told %v, want the overloaded error once", switches)
	}
}

// Other failures are the turn's: a refused request, or a stream that broke
// after text went out, does not switch models.
func TestFallbackKeepsOtherErrors(t *testing.T) {
	broken := sse(false, map[string]any{"id": "x", "object": "chat.completion.chunk",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": "par"}}}})
	srv := newByModel(t, map[string]reply{"bad": status(400, "no such parameter"), "broken": broken, "small": okReply})
	for _, name := range []string{"bad", "broken"} {
		f := &chat.Fallback{Primary: srv.model(name), Secondary: srv.model("small"), OnSwitch: func(err error) { t.Errorf("%s: switched on %v", name, err) }}
		req := loop.Request{Messages: messages[:2], OnText: func(string) {}}
		if _, err := f.Complete(context.Background(), req); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := srv.requests("small"); n != 0 {
		t.Errorf("%d requests for the fallback, want none", n)
	}
}
