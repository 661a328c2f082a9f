package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gen-run/gen/perm"
)

// serverEnv makes the test binary an MCP server: TestMain serves the mode
// it names over stdio instead of running tests.
const serverEnv = "GEN_MCP_TEST_SERVER"

// heldPIDEnv names the file where a "held" server writes the pid of the
// process that holds its stdout.
const heldPIDEnv = "GEN_MCP_TEST_HELD_PID"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" {
		os.Exit(serveStdio(mode))
	}
	os.Exit(m.Run())
}

func serveStdio(mode string) int {
	switch mode {
	case "silent":
		// Reads the initialize request and never answers.
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "boom: missing API token")
		return 7
	case "held", "escaped":
		// Serves as "ok", after starting a process in a session of its
		// own (out of reach of the group's kill) that holds stdout; its
		// pid goes to the file heldPIDEnv names. Held, it also clears
		// its environment, so nothing finds it but the process tree.
		c := exec.Command("/bin/sleep", "300")
		c.Stdout = os.Stdout
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if mode == "held" {
			c.Env = []string{}
		}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.WriteFile(os.Getenv(heldPIDEnv), []byte(strconv.Itoa(c.Process.Pid)), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := newTestServer(nil).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// newTestServer is the server the tests talk to, over stdio or HTTP.
// Hanging calls end when their context does or stop is closed (nil for a
// server in its own process, which is killed).
func newTestServer(stop <-chan struct{}) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ServerOptions{Instructions: "Test tools.\nSecond line."})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("it went wrong")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-stop:
			}
			return nil, nil, errors.New("released")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits the server mid-call."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing now")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Starts a child process and reports both pids."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("%d %d", os.Getpid(), cmd.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "dotted.name", Description: "A name with a dot."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text("dotted"), nil, nil
		})
	return s
}

// stdioServer configures the test binary as a stdio server in mode.
func stdioServer(name, mode string) Server {
	return Server{Name: name, Source: perm.SourceCLI, Transport: Stdio, Command: os.Args[0],
		Args: []string{"-test.run=^$"}, Env: map[string]string{serverEnv: mode}}
}

// httpServer serves s over streamable HTTP for the test's duration.
func httpServer(t *testing.T, name string, s *sdk.Server) Server {
	t.Helper()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return Server{Name: name, Source: perm.SourceProject, Transport: HTTP, URL: ts.URL}
}

// testServer returns a server for httpServer whose hanging calls are
// released before the HTTP server closes at the end of the test (Close
// waits for running handlers).
func testServer(t *testing.T) *sdk.Server {
	return newTestServer(stopAtCleanup(t))
}

// stopAtCleanup returns a channel closed when the test ends, before any
// of its cleanups run (t.Context is cancelled first), whatever the order
// they were registered in: httpServer(t, name, testServer(t)) registers
// httptest.Server.Close after this, and Close waits for the handlers a
// hanging call holds.
func stopAtCleanup(t *testing.T) <-chan struct{} {
	return t.Context().Done()
}

// guard fails the test instead of letting it hang when f does not return.
func guard[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: still waiting after 60 s", what)
		panic("unreachable")
	}
}

// start starts servers on a fresh manager closed at the end of the test.
func start(t *testing.T, opts Options, servers ...Server) (*Manager, map[string]Status) {
	t.Helper()
	m := NewManager(opts)
	t.Cleanup(func() { m.Close() })
	set := make(map[string]Server)
	for _, s := range servers {
		set[s.Name] = s
	}
	sts := guard(t, "Start", func() []Status { return m.Start(context.Background(), set) })
	byName := make(map[string]Status)
	for _, st := range sts {
		byName[st.Name] = st
	}
	return m, byName
}
