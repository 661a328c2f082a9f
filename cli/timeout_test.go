package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// An unresponsive server ends a headless run with exit 1 and a message
// saying what happened; the timeouts come from the environment.
func TestHeadlessUnresponsiveServer(t *testing.T) {
	dir := project(t)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.Copy(io.Discard, r.Body) // so the server notices the client leave
		<-r.Context().Done()        // accepts, never answers
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	t.Setenv("GEN_STREAM_IDLE_TIMEOUT", "50ms")
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--cwd", dir, "hello"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != ExitFailed || !strings.Contains(errb.String(), "sent nothing for 50ms") {
		t.Fatalf("exit %d, stderr %q; want %d and the idle timeout named", code, errb.String(), ExitFailed)
	}
	if n := requests.Load(); n != 4 {
		t.Errorf("%d requests, want 4 tries", n)
	}

	t.Setenv("GEN_API_TIMEOUT", "soon")
	code = Run(context.Background(), []string{"-p", "--cwd", dir, "hello"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != ExitUsage || !strings.Contains(errb.String(), "GEN_API_TIMEOUT") {
		t.Fatalf("a malformed GEN_API_TIMEOUT: exit %d, stderr %q", code, errb.String())
	}
}
