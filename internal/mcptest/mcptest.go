// Package mcptest provides MCP servers built on the go-sdk for tests: a
// tool server served over stdio by the test binary itself (re-executed)
// or over streamable HTTP, and a permission-prompt server whose answers a
// test scripts. It is for tests only.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// modeEnv makes the test binary an MCP server: ServeIfAsked, called from
// TestMain, serves the mode it names over stdio instead of running tests.
const modeEnv = "GEN_MCPTEST_SERVER"

// Serving reports whether the test binary was started as an MCP server:
// package-level test setup that reads the source tree should then do
// nothing, as the server runs in another directory.
func Serving() bool { return os.Getenv(modeEnv) != "" }

// ServeIfAsked serves an MCP server over stdio and exits when the test
// binary was started as one (see StdioEntry); otherwise it returns. Call
// it first in TestMain. Modes: "ok" serves Tools; "silent" reads the
// initialize request and never answers.
func ServeIfAsked() {
	mode := os.Getenv(modeEnv)
	if mode == "" {
		return
	}
	if mode == "silent" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	if err := Tools(nil).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// StdioEntry returns the mcpServers entry (JSON) that starts the test
// binary as a stdio server in mode.
func StdioEntry(mode string) string {
	b, _ := json.Marshal(map[string]any{
		"command": os.Args[0],
		"args":    []string{"-test.run=^$"},
		"env":     map[string]string{modeEnv: mode},
	})
	return string(b)
}

// HTTPEntry returns the mcpServers entry (JSON) of an HTTP server at url.
func HTTPEntry(url string) string {
	b, _ := json.Marshal(map[string]any{"type": "http", "url": url})
	return string(b)
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// Tools is the tool server: echo (read-only hint: it must not matter),
// pid (the server's process id), hang (answers when its context ends or
// stop is closed) and crash (the process exits mid-call; stdio only).
func Tools(stop <-chan struct{}) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, &sdk.ServerOptions{Instructions: "Test tools."})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process id."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
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
	return s
}

// Serve serves s over streamable HTTP until the test ends and returns its
// URL.
func Serve(t testing.TB, s *sdk.Server) string {
	t.Helper()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Approver is a permission-prompt server with one tool, "approve". Each
// call is recorded, and Answer (set before use) gives the JSON text of
// the answer; an answer of "" fails the call (isError).
type Approver struct {
	Answer func(req Request) string

	mu  sync.Mutex
	got []Request
}

// Request is what the permission-prompt tool was asked.
type Request struct {
	ToolName  string         `json:"tool_name"`
	Input     map[string]any `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Agent     string         `json:"agent"`
}

// Server returns the approver as an MCP server.
func (a *Approver) Server() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "approver", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "approve", Description: "Answers permission prompts.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var r Request
			json.Unmarshal(req.Params.Arguments, &r)
			a.mu.Lock()
			a.got = append(a.got, r)
			a.mu.Unlock()
			ans := a.Answer(r)
			if ans == "" {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "approver failed"}}}, nil
			}
			return text(ans), nil
		})
	return s
}

// Calls returns the requests the tool received, in order.
func (a *Approver) Calls() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.got...)
}
