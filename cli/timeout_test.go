package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An unresponsive server ends a headless run with exit 1 and a message
// saying what happened; the timeouts come from the environment.
func TestHeadlessUnresponsiveServer(t *testing.T) {
	dir := project(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so the server notices the client leave
		<-r.Context().Done()        // accepts, never answers
	}))
	// Tries are counted as connections: on a loaded machine the client
	// may give up on a try before the server's handler has run at all,
	// but not before it connected (each try after a timeout dials anew).
	conns := &countingListener{Listener: srv.Listener}
	srv.Listener = conns
	srv.Start()
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	t.Setenv("GEN_STREAM_IDLE_TIMEOUT", "50ms")
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"-p", "--cwd", dir, "hello"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != ExitFailed || !strings.Contains(errb.String(), "sent nothing for 50ms") || !strings.Contains(errb.String(), "after 4 tries") {
		t.Fatalf("exit %d, stderr %q; want %d, the idle timeout named, after 4 tries", code, errb.String(), ExitFailed)
	}
	// The client counts its tries; the server sees at most as many
	// connections (on a loaded machine a try may give up before it has
	// connected). It accepts the last on its own time: wait for it, up
	// to a bound, then see that there was no fifth.
	for deadline := time.Now().Add(10 * time.Second); conns.n.Load() < 4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := conns.n.Load(); n > 4 {
		t.Errorf("%d connections, want no more than the 4 tries", n)
	}

	t.Setenv("GEN_API_TIMEOUT", "soon")
	code = Run(context.Background(), []string{"-p", "--cwd", dir, "hello"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != ExitUsage || !strings.Contains(errb.String(), "GEN_API_TIMEOUT") {
		t.Fatalf("a malformed GEN_API_TIMEOUT: exit %d, stderr %q", code, errb.String())
	}
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// streamServer answers every chat request "ok", streamed or whole as
// asked, and records whether each asked for a stream.
func streamServer(t *testing.T) (*httptest.Server, func() []bool) {
	t.Helper()
	var mu sync.Mutex
	var asked []bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		asked = append(asked, req.Stream)
		mu.Unlock()
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`+"\n\n"+"data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(asked)
	}
}

// --no-stream on gen -p and gen agent run, and api.stream in settings,
// ask for whole answers; by default answers are streamed.
func TestNoStream(t *testing.T) {
	dir := project(t)
	srv, asked := streamServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	local := filepath.Join(dir, ".gen", "settings.local.json")
	tasks := writeTasks(t, dir, task("a", "Explore", "hi"))
	cases := []struct {
		name     string
		settings string
		args     []string
		want     bool
	}{
		{"gen -p streams by default", "", []string{"-p", "--cwd", dir, "hi"}, true},
		{"gen -p --no-stream", "", []string{"-p", "--no-stream", "--cwd", dir, "hi"}, false},
		{"gen agent run --no-stream", "", []string{"agent", "run", "--no-stream", "--cwd", dir, "--type", "Explore", "--prompt", "hi"}, false},
		{"api.stream false", `{"api": {"stream": false}}`, []string{"-p", "--cwd", dir, "hi"}, false},
		{"api.stream true, --no-stream wins", `{"api": {"stream": true}}`, []string{"agent", "run", "--no-stream", "--cwd", dir, "--type", "Explore", "--prompt", "hi"}, false},
		{"gen agent batch streams by default", "", []string{"agent", "batch", tasks}, true},
		{"gen agent batch --no-stream", "", []string{"agent", "batch", "--no-stream", tasks}, false},
		{"gen agent batch, api.stream false in the task's cwd", `{"api": {"stream": false}}`, []string{"agent", "batch", tasks}, false},
	}
	for _, tc := range cases {
		os.Remove(local)
		if tc.settings != "" {
			if err := os.WriteFile(local, []byte(tc.settings), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := len(asked())
		code, _, stderr := run(tc.args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		got := asked()[before:]
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%s: stream asked %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The api timeouts in settings apply (a project's once it is trusted);
// the environment overrides them.
func TestAPISettingsTimeouts(t *testing.T) {
	dir := project(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // accepts, never answers
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	if err := os.WriteFile(filepath.Join(dir, ".gen", "settings.local.json"), []byte(`{"api": {"streamIdleTimeout": "40ms"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run("-p", "--trust", "--cwd", dir, "hello")
	if code != ExitFailed || !strings.Contains(stderr, "sent nothing for 40ms") {
		t.Fatalf("settings: exit %d, stderr %q; want %d and the idle timeout of the settings", code, stderr, ExitFailed)
	}
	t.Setenv("GEN_STREAM_IDLE_TIMEOUT", "60ms")
	code, _, stderr = run("-p", "--trust", "--cwd", dir, "hello")
	if code != ExitFailed || !strings.Contains(stderr, "sent nothing for 60ms") {
		t.Fatalf("environment: exit %d, stderr %q; want %d and the idle timeout of the environment", code, stderr, ExitFailed)
	}
}

// --fallback-model: when the main model's server stays overloaded, the
// run goes on with the fallback model, said on stderr; refused where it
// cannot mean anything.
func TestFallbackModel(t *testing.T) {
	dir := project(t)
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		asked[req.Model]++
		mu.Unlock()
		if req.Model == "big" {
			http.Error(w, `{"error":{"message":"overloaded"}}`, 529)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"answered by `+req.Model+`"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "big")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"-p", "--no-stream", "--cwd", dir}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := run("--fallback-model", "small", "hi")
	if code != ExitOK || out != "answered by small\n" || !strings.Contains(errs, "big is overloaded") || !strings.Contains(errs, "using the fallback model small") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want small's answer and the switch said", code, out, errs)
	}
	mu.Lock()
	big, small := asked["big"], asked["small"]
	mu.Unlock()
	if big != 4 || small != 1 {
		t.Errorf("requests: big %d, small %d; want big's 4 tries, then small once", big, small)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fallback-model", "big", "hi"}, "--fallback-model big is the main model"},
		{[]string{"--fallback-model", "offline", "hi"}, "not the offline model"},
		{[]string{"--model", "offline", "--fallback-model", "small", "hi"}, "not the offline model"},
	} {
		if code, _, errs := run(tc.args...); code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want a usage error saying %q", tc.args, code, errs, tc.want)
		}
	}
}

// --max-budget-usd and the result's total_cost_usd, priced by api.pricing:
// the turn that crosses the budget finishes, the next does not start.
func TestBudget(t *testing.T) {
	dir := project(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, turns := pricedServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "m")
	local := filepath.Join(dir, ".gen", "settings.local.json")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"-p", "--no-stream", "--trust", "--output-format", "json", "--cwd", dir}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := run("--max-budget-usd", "1", "read a.txt")
	if code != ExitUsage || !strings.Contains(errs, `--max-budget-usd: no price for the model m`) {
		t.Fatalf("no price: exit %d, stderr %q; want a usage error", code, errs)
	}
	if code, out, _ = run("read a.txt"); code != ExitOK || strings.Contains(out, "total_cost_usd") {
		t.Fatalf("no price, no budget: exit %d, %s; want a result without total_cost_usd", code, out)
	}
	if err := os.WriteFile(local, []byte(`{"api": {"pricing": {"m": {"input": 1, "output": 1}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run("read a.txt")
	if code != ExitOK || !strings.Contains(out, `"total_cost_usd":0.004`) {
		t.Fatalf("priced: exit %d, %s; want total_cost_usd 0.004", code, out)
	}
	turns.Store(0)
	code, out, _ = run("--max-budget-usd", "0.001", "read a.txt")
	if code != ExitFailed || !strings.Contains(out, `"subtype":"error_max_budget_usd"`) || !strings.Contains(out, `"total_cost_usd":0.002`) {
		t.Fatalf("budget: exit %d, %s; want error_max_budget_usd after one turn", code, out)
	}
	if n := turns.Load(); n != 1 {
		t.Errorf("%d turns reached the server, want 1", n)
	}
	for _, args := range [][]string{{"--max-budget-usd", "-1", "x"}, {"--max-budget-usd", "NaN", "x"}} {
		if code, _, errs := run(args...); code != ExitUsage || !strings.Contains(errs, "not negative") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// pricedServer answers a conversation's first turn with a Read of a.txt
// and its next with text, each turn reporting 1,000 tokens in and 1,000
// out ($0.002 at $1 per million); it counts the turns.
func pricedServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	turns := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		turns.Add(1)
		w.Header().Set("Content-Type", "application/json")
		const usage = `"usage":{"prompt_tokens":1000,"completion_tokens":1000,"total_tokens":2000}`
		if req.Messages[len(req.Messages)-1].Role != "tool" {
			io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}}]},"finish_reason":"tool_calls"}],`+usage+`}`)
			return
		}
		io.WriteString(w, `{"id":"y","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"read it"},"finish_reason":"stop"}],`+usage+`}`)
	}))
	t.Cleanup(srv.Close)
	return srv, turns
}

// gen agent run and gen agent batch take --max-budget-usd too: a batch's
// is one budget for all its tasks, and its summary adds up their costs.
func TestBudgetAgentRunAndBatch(t *testing.T) {
	dir := project(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, turns := pricedServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "m")
	if err := os.WriteFile(filepath.Join(dir, ".gen", "settings.local.json"), []byte(`{"api": {"pricing": {"m": {"input": 1, "output": 1}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := run("agent", "run", "--trust", "--no-stream", "--cwd", dir, "--type", "Explore", "--output-format", "json", "--max-budget-usd", "0.001", "--prompt", "read a.txt")
	if code != ExitFailed || !strings.Contains(out, `"subtype":"error_max_budget_usd"`) || !strings.Contains(out, `"total_cost_usd":0.002`) {
		t.Fatalf("agent run: exit %d, %s %s; want error_max_budget_usd after one turn", code, out, errs)
	}
	// Two tasks, one at a time: the first spends $0.004 of $0.005, the
	// second's first turn crosses the budget and its next never starts.
	tasks := writeTasks(t, dir, task("a", "Explore", "read a.txt"), task("b", "Explore", "read a.txt"))
	summary := filepath.Join(t.TempDir(), "summary.json")
	turns.Store(0)
	code, out, errs = run("agent", "batch", "--trust", "--no-stream", "--concurrency", "1", "--max-budget-usd", "0.005", "--summary", summary, tasks)
	if code != ExitFailed || turns.Load() != 3 {
		t.Fatalf("batch: exit %d, %d turns, stdout %s stderr %s; want exit 1 after 3 turns", code, turns.Load(), out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"total_cost_usd":0.004`) || !strings.Contains(lines[1], "reached its budget") || !strings.Contains(lines[1], `"total_cost_usd":0.002`) {
		t.Errorf("results:\n%s\nwant a's $0.004, then b stopped by the budget after $0.002", out)
	}
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"total_cost_usd": 0.006`) || !strings.Contains(errs, "cost $0.0060") {
		t.Errorf("summary %s, stderr %s; want a total of $0.006", b, errs)
	}
}
