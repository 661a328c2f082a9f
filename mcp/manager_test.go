package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/proctest"
	"github.com/gen-run/gen/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var wantTools = []string{"crash", "dotted_name", "echo", "fail", "hang", "spawn"}

func fullNames(server string) []string {
	var out []string
	for _, t := range wantTools {
		out = append(out, "mcp__"+server+"__"+t)
	}
	return out
}

// Tools arrive over the wire with their names, descriptions, schemas and
// annotations, over both transports.
func TestToolsOnTheWire(t *testing.T) {
	m, st := start(t, Options{}, stdioServer("local", "ok"), httpServer(t, "remote", testServer(t)))
	for _, name := range []string{"local", "remote"} {
		if st[name].State != StateConnected || st[name].Err != nil {
			t.Fatalf("%s: %v %v", name, st[name].State, st[name].Err)
		}
		if !slices.Equal(st[name].Tools, fullNames(name)) {
			t.Errorf("%s tools = %v, want %v", name, st[name].Tools, fullNames(name))
		}
	}
	if st["local"].Transport != Stdio || st["remote"].Transport != HTTP {
		t.Errorf("transports: %v %v", st["local"].Transport, st["remote"].Transport)
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name())
	}
	if want := append(fullNames("local"), fullNames("remote")...); !slices.Equal(names, want) {
		t.Errorf("Tools() = %v, want %v", names, want)
	}
	echo, ok := m.Tool("mcp__remote__echo")
	if !ok {
		t.Fatal("no mcp__remote__echo")
	}
	sc := echo.Schema()
	if sc.Name != "mcp__remote__echo" || sc.Description != "Echo the text back." {
		t.Errorf("schema = %q %q", sc.Name, sc.Description)
	}
	props, _ := sc.Parameters["properties"].(map[string]any)
	text, _ := props["text"].(map[string]any)
	if sc.Parameters["type"] != "object" || text["type"] != "string" || text["description"] != "the text to echo" {
		b, _ := json.Marshal(sc.Parameters)
		t.Errorf("parameters = %s", b)
	}
	if a := echo.Annotations(); a == nil || !a.ReadOnlyHint {
		t.Errorf("annotations = %+v, want readOnlyHint kept", a)
	}
	if echo.Server() != "remote" || echo.Remote() != "echo" {
		t.Errorf("server/remote = %q %q", echo.Server(), echo.Remote())
	}
	if d, _ := m.Tool("mcp__local__dotted_name"); d == nil || d.Remote() != "dotted.name" {
		t.Errorf("dotted tool not mapped back to its own name: %+v", d)
	}
}

// The older HTTP+SSE transport works too.
func TestSSE(t *testing.T) {
	s := testServer(t)
	ts := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	m, st := start(t, Options{}, Server{Name: "legacy", Transport: SSE, URL: ts.URL})
	if st["legacy"].State != StateConnected || len(st["legacy"].Tools) != len(wantTools) {
		t.Fatalf("legacy: %+v", st["legacy"])
	}
	if out, err := m.Call(context.Background(), "mcp__legacy__echo", map[string]any{"text": "sse"}); err != nil || out != "echo: sse" {
		t.Errorf("call = %q, %v", out, err)
	}
}

// Headers from the configuration reach an HTTP server.
func TestHeaders(t *testing.T) {
	s := testServer(t)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	m, _ := start(t, Options{}, Server{Name: "auth", Transport: HTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer t0k"}})
	if _, err := m.Call(context.Background(), "mcp__auth__echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || slices.ContainsFunc(seen, func(s string) bool { return s != "Bearer t0k" }) {
		t.Errorf("Authorization headers seen: %q", seen)
	}
}

func TestCall(t *testing.T) {
	m, _ := start(t, Options{}, stdioServer("local", "ok"), httpServer(t, "remote", testServer(t)))
	for _, name := range []string{"mcp__local__echo", "mcp__remote__echo"} {
		out, err := m.Call(context.Background(), name, map[string]any{"text": "hi"})
		if err != nil || out != "echo: hi" {
			t.Errorf("%s = %q, %v", name, out, err)
		}
	}
	// A name sanitised for the model reaches the server under its own.
	if out, err := m.Call(context.Background(), "mcp__local__dotted_name", nil); err != nil || out != "dotted" {
		t.Errorf("dotted = %q, %v", out, err)
	}
	// The Tool adapter runs the same call.
	tl, _ := m.Tool("mcp__remote__echo")
	if out, err := tl.Run(context.Background(), tool.Call{Input: map[string]any{"text": "x"}}); err != nil || out != "echo: x" {
		t.Errorf("Run = %q, %v", out, err)
	}
	// A result the server flags as an error is an error naming the tool.
	if _, err := m.Call(context.Background(), "mcp__remote__fail", nil); err == nil || !strings.Contains(err.Error(), "mcp__remote__fail: it went wrong") {
		t.Errorf("fail: %v", err)
	}
	if _, err := m.Call(context.Background(), "mcp__remote__nope", nil); err == nil || !strings.Contains(err.Error(), `unknown MCP tool "mcp__remote__nope"`) {
		t.Errorf("unknown: %v", err)
	}
}

func TestValidate(t *testing.T) {
	m, _ := start(t, Options{}, httpServer(t, "remote", testServer(t)))
	next := func(name string, _ map[string]any) error { return &unknownErr{name} }
	v := m.Validator(next)
	if err := v("mcp__remote__echo", map[string]any{"text": "a"}); err != nil {
		t.Errorf("valid input: %v", err)
	}
	if err := v("mcp__remote__echo", map[string]any{"text": 3}); err == nil || !strings.Contains(err.Error(), "mcp__remote__echo") {
		t.Errorf("wrong type: %v", err)
	}
	if err := v("Read", nil); err == nil || err.Error() != "next Read" {
		t.Errorf("built-in not handed on: %v", err)
	}
	if err := v(LoadGroupName, map[string]any{"group": "remote"}); err != nil {
		t.Errorf("meta-tool: %v", err)
	}
	if err := v(LoadGroupName, map[string]any{}); err == nil {
		t.Error("meta-tool without group accepted")
	}
}

type unknownErr struct{ name string }

func (e *unknownErr) Error() string { return "next " + e.name }

// A stdio server that dies during a call fails the call at once (not at
// the call timeout), and the server is reported as failed with its stderr.
func TestCrashMidCall(t *testing.T) {
	m, _ := start(t, Options{CallTimeout: time.Hour}, stdioServer("local", "ok"))
	_, err := guard(t, "crash call", func() pair {
		out, err := m.Call(context.Background(), "mcp__local__crash", nil)
		return pair{out, err}
	}).get()
	if err == nil || !strings.Contains(err.Error(), "mcp__local__crash") {
		t.Fatalf("crash call: %v", err)
	}
	st := guard(t, "status", func() Status {
		for {
			if st := m.Status()[0]; st.State == StateFailed {
				return st
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	if !strings.Contains(st.Err.Error(), `MCP server "local"`) || !strings.Contains(st.Err.Error(), "exit status 3") || !strings.Contains(st.Err.Error(), "crashing now") {
		t.Errorf("status error = %v", st.Err)
	}
	// Later calls fail at once, naming why.
	if _, err := m.Call(context.Background(), "mcp__local__echo", map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("call after crash: %v", err)
	}
}

// A server that dies while a process it started in a session of its own
// still holds its stdout fails the call at once too: that process is out
// of reach of the group's kill, and the call must not wait for its
// timeout.
func TestCrashWithStdoutHeld(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "held.pid")
	s := stdioServer("local", "held")
	s.Env[heldPIDEnv] = pidFile
	m, st := start(t, Options{CallTimeout: time.Hour}, s)
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if st["local"].State != StateConnected {
		t.Fatalf("start: %v %v", st["local"].State, st["local"].Err)
	}
	_, err := guard(t, "crash call", func() pair {
		out, err := m.Call(context.Background(), "mcp__local__crash", nil)
		return pair{out, err}
	}).get()
	if err == nil || !strings.Contains(err.Error(), "mcp__local__crash") || !strings.Contains(err.Error(), "the server exited") {
		t.Fatalf("crash call: %v", err)
	}
}

// An HTTP server that goes away fails calls instead of hanging them.
func TestHTTPServerGone(t *testing.T) {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newTestServer(nil) }, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	m, _ := start(t, Options{CallTimeout: time.Hour}, Server{Name: "remote", Transport: HTTP, URL: ts.URL})
	ts.Close()
	_, err := guard(t, "call", func() pair {
		out, err := m.Call(context.Background(), "mcp__remote__echo", map[string]any{"text": "x"})
		return pair{out, err}
	}).get()
	if err == nil || !strings.Contains(err.Error(), "mcp__remote__echo") {
		t.Errorf("call to a closed server: %v", err)
	}
}

type pair struct {
	out string
	err error
}

func (p pair) get() (string, error) { return p.out, p.err }

// A server that does not answer initialize within the bound is reported,
// naming it, and does not hold up the others; one that exits at once is
// reported with its stderr.
func TestStartFailures(t *testing.T) {
	block := make(chan struct{})
	silentHTTP := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer silentHTTP.Close()
	defer close(block)
	m, st := start(t, Options{InitTimeout: 5 * time.Second},
		stdioServer("quiet", "silent"),
		Server{Name: "quiet-http", Transport: HTTP, URL: silentHTTP.URL},
		stdioServer("broken", "exit"),
		Server{Name: "missing", Transport: Stdio, Command: "/nonexistent/gen-mcp-server"},
		stdioServer("good", "ok"),
		httpServer(t, "good-http", testServer(t)),
	)
	for name, want := range map[string][]string{
		"quiet":      {`MCP server "quiet"`, "no answer within 5s"},
		"quiet-http": {`MCP server "quiet-http"`, "no answer within 5s"},
		"broken":     {`MCP server "broken"`, "boom: missing API token"},
		"missing":    {`MCP server "missing"`, "/nonexistent/gen-mcp-server"},
	} {
		s := st[name]
		if s.State != StateFailed || s.Err == nil {
			t.Errorf("%s: state %v err %v", name, s.State, s.Err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(s.Err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, s.Err, w)
			}
		}
		if len(s.Tools) != 0 {
			t.Errorf("%s: tools %v", name, s.Tools)
		}
	}
	for _, name := range []string{"good", "good-http"} {
		if st[name].State != StateConnected {
			t.Errorf("%s: %v %v", name, st[name].State, st[name].Err)
		}
		if out, err := m.Call(context.Background(), "mcp__"+name+"__echo", map[string]any{"text": "ok"}); err != nil || out != "echo: ok" {
			t.Errorf("%s call = %q, %v", name, out, err)
		}
	}
	for _, tl := range m.Tools() {
		if s := tl.Server(); s != "good" && s != "good-http" {
			t.Errorf("tool %s of failed server %s listed", tl.Name(), s)
		}
	}
}

// The per-call timeout cuts a call that never answers; the server stays
// usable.
func TestCallTimeout(t *testing.T) {
	m, _ := start(t, Options{CallTimeout: 2 * time.Second}, stdioServer("local", "ok"), httpServer(t, "remote", testServer(t)))
	for _, server := range []string{"local", "remote"} {
		name := "mcp__" + server + "__hang"
		_, err := guard(t, "hanging call", func() pair {
			out, err := m.Call(context.Background(), name, nil)
			return pair{out, err}
		}).get()
		if err == nil || !strings.Contains(err.Error(), name+": no answer within 2s") {
			t.Errorf("%s: %v", server, err)
		}
		if out, err := m.Call(context.Background(), "mcp__"+server+"__echo", map[string]any{"text": "still"}); err != nil || out != "echo: still" {
			t.Errorf("%s after timeout: %q %v", server, out, err)
		}
	}
	// The caller's cancellation is reported as such.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Call(ctx, "mcp__remote__echo", map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancelled call: %v", err)
	}
}

// reapGrace is StopGrace in the tests of stopping a server that exits
// when its stdin closes: each wait ends as soon as the server is reaped,
// so the grace is only a bound, and one a loaded machine must not reach
// (500 ms did, at a load of 8: "did not exit after SIGKILL").
const reapGrace = 10 * time.Second

// Close stops the server and reaps it and what it started; calls after
// Close fail.
func TestCloseReaps(t *testing.T) {
	m, _ := start(t, Options{StopGrace: reapGrace}, stdioServer("local", "ok"))
	pids := spawned(t, m, "mcp__local__spawn")
	for _, pid := range pids {
		if !proctest.Alive(pid) {
			t.Fatalf("pid %d not running before Close", pid)
		}
	}
	if err := guard(t, "Close", m.Close); err != nil {
		t.Errorf("Close: %v", err)
	}
	reaped(t, pids, "Close")
	if st := m.Status()[0]; st.State != StateClosed {
		t.Errorf("state after Close = %v", st.State)
	}
	if _, err := m.Call(context.Background(), "mcp__local__echo", map[string]any{"text": "x"}); err == nil {
		t.Error("call after Close succeeded")
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// spawned calls the spawn tool, whose server starts processes in its
// group, and returns their pids.
func spawned(t *testing.T, m *Manager, tool string) []int {
	t.Helper()
	out, err := m.Call(context.Background(), tool, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("spawn answered %q", out)
		}
		pids = append(pids, pid)
	}
	return pids
}

// reaped fails the test for each of pids still running once what
// stopped their server is done.
func reaped(t *testing.T, pids []int, what string) {
	t.Helper()
	for _, pid := range pids {
		gone := guard(t, "reaping", func() bool {
			for proctest.Alive(pid) {
				time.Sleep(10 * time.Millisecond)
			}
			return true
		})
		if !gone {
			t.Errorf("pid %d survived %s", pid, what)
		}
	}
}

func TestTimeoutsFromEnv(t *testing.T) {
	env := map[string]string{"MCP_TIMEOUT": "1500", "MCP_TOOL_TIMEOUT": "600000"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var o Options
	if err := o.TimeoutsFromEnv(lookup); err != nil {
		t.Fatal(err)
	}
	if o.InitTimeout != 1500*time.Millisecond || o.CallTimeout != 10*time.Minute {
		t.Errorf("got %v %v", o.InitTimeout, o.CallTimeout)
	}
	env["MCP_TOOL_TIMEOUT"] = "10s"
	if err := o.TimeoutsFromEnv(lookup); err == nil || !strings.Contains(err.Error(), "MCP_TOOL_TIMEOUT") {
		t.Errorf("bad value: %v", err)
	}
}

// A server Keep refuses is stopped before its next call (its process
// group reaped), and that call and every later one fail with the reason;
// the other servers go on.
func TestKeepStops(t *testing.T) {
	var mu sync.Mutex
	refused := map[string]bool{}
	keep := func(s Server) error {
		mu.Lock()
		defer mu.Unlock()
		if refused[s.Name] {
			return errors.New("the project is not trusted any more")
		}
		return nil
	}
	m, _ := start(t, Options{StopGrace: reapGrace, Keep: keep}, stdioServer("local", "ok"), httpServer(t, "remote", testServer(t)))
	pids := spawned(t, m, "mcp__local__spawn")
	mu.Lock()
	refused["local"] = true
	mu.Unlock()
	want := `mcp__local__echo: MCP server "local" stopped: the project is not trusted any more`
	for range 2 {
		if out, err := m.Call(context.Background(), "mcp__local__echo", map[string]any{"text": "x"}); err == nil || err.Error() != want {
			t.Errorf("call of a refused server = %q, %v; want error %q", out, err, want)
		}
	}
	reaped(t, pids, "the refusal")
	sts := m.Status()
	if sts[0].Name != "local" || sts[0].State != StateClosed || sts[0].Err == nil {
		t.Errorf("refused server's status = %+v", sts[0])
	}
	if out, err := m.Call(context.Background(), "mcp__remote__echo", map[string]any{"text": "on"}); err != nil || out != "echo: on" {
		t.Errorf("other server after the refusal: %q %v", out, err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close after the refusal: %v", err)
	}
}

// TestCallToDeafServer: a stdio server that stops reading its stdin (here
// stopped with SIGSTOP) left a request bigger than the pipe holds blocked
// in its write, which the call's timeout did not reach: the call never
// returned. Each write is bounded by the call timeout now.
func TestCallToDeafServer(t *testing.T) {
	m, _ := start(t, Options{CallTimeout: 500 * time.Millisecond, StopGrace: 200 * time.Millisecond}, stdioServer("local", "ok"))
	out, err := m.Call(context.Background(), "mcp__local__spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.Fields(out)[0])
	if err != nil {
		t.Fatalf("spawn: %q", out)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	_, err = guard(t, "a call to a server that does not read", func() pair {
		out, err := m.Call(context.Background(), "mcp__local__echo", map[string]any{"text": strings.Repeat("x", 1<<20)})
		return pair{out, err}
	}).get()
	if err == nil || !strings.Contains(err.Error(), "mcp__local__echo") {
		t.Errorf("call: %v", err)
	}
}
