// Package mcp is gen's Model Context Protocol client, built on the official
// Go SDK (github.com/modelcontextprotocol/go-sdk). It reads server
// configurations in Claude Code's shape (ParseConfig, ParseSettings, Merge),
// starts the servers and discovers their tools (Manager), offers each tool
// to the loop as a tool.Tool named mcp__SERVER__TOOL (Tool), asks a
// permission-prompt tool on the user's behalf (AskDelegate) and groups tools
// for progressive disclosure (Catalog).
//
// Nothing here decides whether a call may run: MCP tools are Exec-class
// tools behind the same permission gate as every other tool, and server
// annotations such as readOnlyHint are kept for display only.
package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gen-run/gen/perm"
)

// Defaults for Options.
const (
	// DefaultInitTimeout bounds starting a server, the initialize
	// handshake and listing its tools.
	DefaultInitTimeout = 30 * time.Second
	// DefaultCallTimeout bounds one tool call. It matches the Bash tool's
	// default timeout; set MCP_TOOL_TIMEOUT (see TimeoutsFromEnv) for
	// servers whose tools run longer.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultStopGrace is how long a stdio server gets after its stdin is
	// closed before SIGTERM, and after SIGTERM before SIGKILL.
	DefaultStopGrace = 2 * time.Second
	// DefaultMaxOutput bounds the text one call returns, in bytes.
	DefaultMaxOutput = 100_000
	// maxToolName is the longest function name OpenAI-compatible APIs
	// accept; a longer mcp__SERVER__TOOL name would fail every request.
	maxToolName = 64
)

// Options configure a Manager. Zero values mean the defaults.
type Options struct {
	InitTimeout time.Duration
	CallTimeout time.Duration
	StopGrace   time.Duration
	MaxOutput   int
	// Dir is the working directory of stdio servers; "" means gen's.
	Dir string
	// Version is reported to servers as the client version.
	Version string
	// Keep, when set, is asked before each call of a server's tool
	// whether the server may still be used: the settings that let it
	// start may have changed while gen runs (a project whose trust no
	// longer holds, a server a managed deny list now names). An error
	// stops the server, and that call and every later one fail with it.
	Keep func(Server) error
}

// State is where a server is in its life.
type State string

// The states.
const (
	StateConnected State = "connected"
	StateFailed    State = "failed" // did not start, or died
	StateClosed    State = "closed" // stopped by Close, or because Keep refused it
)

// Status describes one server for `gen mcp list`, stderr and the init
// event.
type Status struct {
	Name      string
	Source    perm.Source
	Path      string
	Transport Transport
	State     State
	// Err says why the server failed; its message names the server.
	Err error
	// Tools are the full names of the server's tools, sorted.
	Tools []string
	// Notes are tools that were skipped, with the reason.
	Notes []string
}

// Manager runs a set of MCP servers for one gen run. It is safe for
// concurrent use. Close must be called to stop the servers.
type Manager struct {
	opts Options

	mu       sync.Mutex
	conns    map[string]*conn // by server name
	tools    map[string]*Tool // by full name
	closed   bool
	starting sync.WaitGroup // Start calls under way; Close waits for them
}

// conn is one server.
type conn struct {
	srv  Server
	cs   *sdk.ClientSession // nil unless it connected
	proc *process           // stdio only
	// stop ends the transport's own context (HTTP streams); called by
	// Close and when starting fails.
	stop context.CancelFunc

	// shut stops the server once, whoever asks first (Close, Keep).
	shut sync.Once

	mu    sync.Mutex
	info  string // the start of the server's instructions
	state State
	err   error
	tools []*Tool
	notes []string
}

// NewManager returns a Manager with no servers.
func NewManager(opts Options) *Manager {
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = DefaultInitTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Manager{opts: opts, conns: make(map[string]*conn), tools: make(map[string]*Tool)}
}

// Start connects to every server concurrently and lists its tools, each
// within Options.InitTimeout. A server that fails, or does not answer in
// time, is stopped and reported in its Status (State failed, Err naming
// it); the others are unaffected. Start returns the status of every server
// it was given, sorted by name. Servers already started are reported as
// failed duplicates.
func (m *Manager) Start(ctx context.Context, servers map[string]Server) []Status {
	m.mu.Lock()
	if !m.closed {
		m.starting.Add(1)
		defer m.starting.Done()
	}
	m.mu.Unlock()
	list := sortedServers(servers)
	conns := make([]*conn, len(list))
	var wg sync.WaitGroup
	for i, s := range list {
		c := &conn{srv: s}
		conns[i] = c
		m.mu.Lock()
		_, dup := m.conns[s.Name]
		closed := m.closed
		if !dup && !closed {
			m.conns[s.Name] = c
		}
		m.mu.Unlock()
		switch {
		case dup:
			c.fail(fmt.Errorf("MCP server %q: already started", s.Name))
			continue
		case closed:
			c.fail(fmt.Errorf("MCP server %q: the manager is closed", s.Name))
			continue
		}
		wg.Go(func() { m.connect(ctx, c) })
	}
	wg.Wait()

	m.mu.Lock()
	for _, c := range conns {
		if c.status().State != StateConnected || m.conns[c.srv.Name] != c {
			continue
		}
		for _, t := range c.tools {
			m.tools[t.name] = t
		}
	}
	m.mu.Unlock()
	out := make([]Status, len(conns))
	for i, c := range conns {
		out[i] = c.status()
	}
	return out
}

func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == "" || c.state == StateConnected {
		c.state, c.err = StateFailed, err
	}
}

func (c *conn) about() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Name: c.srv.Name, Source: c.srv.Source, Path: c.srv.Path, Transport: c.srv.Transport,
		State: c.state, Err: c.err, Notes: slices.Clone(c.notes)}
	for _, t := range c.tools {
		st.Tools = append(st.Tools, t.name)
	}
	return st
}

// connect starts c's server, runs the handshake and lists its tools.
func (m *Manager) connect(ctx context.Context, c *conn) {
	ictx, cancel := context.WithTimeout(ctx, m.opts.InitTimeout)
	defer cancel()
	// The transport lives on after the handshake (an SSE client keeps its
	// stream on the context it connected with), so it gets a context of
	// its own, cancelled only if the handshake does not finish in time.
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	unbind := context.AfterFunc(ictx, stop)
	err := m.handshake(ictx, life, c)
	if err == nil && unbind() {
		return
	}
	if err == nil {
		err = ictx.Err()
	}
	stop()
	if ictx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		err = fmt.Errorf("no answer within %s: %w", m.opts.InitTimeout, err)
	}
	if c.cs != nil {
		closeBounded(c.cs, m.opts.StopGrace)
	}
	if c.proc != nil {
		c.proc.kill(m.opts.StopGrace)
		if s := c.proc.stderrText(m.opts.StopGrace); s != "" {
			err = fmt.Errorf("%w; stderr: %s", err, s)
		}
	}
	c.fail(fmt.Errorf("MCP server %q: %w", c.srv.Name, err))
}

// handshake connects c's transport on life and runs the handshake and
// the tool listing on ctx.
func (m *Manager) handshake(ctx, life context.Context, c *conn) error {
	var t sdk.Transport
	switch c.srv.Transport {
	case Stdio:
		p, err := startProcess(c.srv, m.opts.Dir)
		if err != nil {
			return fmt.Errorf("starting %s: %w", c.srv.Command, err)
		}
		c.proc = p
		t = &sdk.IOTransport{Reader: stdoutReader{p.stdout}, Writer: stdinWriter{p.stdin, m.opts.CallTimeout}}
	case HTTP:
		t = &sdk.StreamableClientTransport{
			Endpoint:   c.srv.URL,
			HTTPClient: headerClient(c.srv.Headers),
			// gen needs no server-initiated messages; without the
			// standing GET stream nothing outlives a call.
			DisableStandaloneSSE: true,
			MaxRetries:           -1,
		}
	case SSE:
		t = &sdk.SSEClientTransport{Endpoint: c.srv.URL, HTTPClient: headerClient(c.srv.Headers)}
	default:
		return fmt.Errorf("unknown transport %q", c.srv.Transport)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "gen", Version: m.opts.Version}, nil)
	cs, err := client.Connect(ctx, detached{t, life}, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c.cs = cs
	var tools []*Tool
	var notes []string
	seen := make(map[string]string)
	for rt, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		t, note := newTool(m, c, rt)
		if note == "" {
			if other, dup := seen[t.name]; dup {
				note = fmt.Sprintf("tool %q skipped: its name %s is also the name of tool %q", rt.Name, t.name, other)
			}
		}
		if note != "" {
			notes = append(notes, note)
			continue
		}
		seen[t.name] = rt.Name
		tools = append(tools, t)
	}
	slices.SortFunc(tools, func(a, b *Tool) int { return cmp.Compare(a.name, b.name) })
	about := ""
	if ir := cs.InitializeResult(); ir != nil {
		about, _, _ = strings.Cut(strings.TrimSpace(ir.Instructions), "\n")
		if len(about) > 200 {
			about = about[:200] + "…"
		}
	}
	c.mu.Lock()
	c.state, c.tools, c.notes, c.info = StateConnected, tools, notes, about
	c.mu.Unlock()
	go m.watch(c)
	return nil
}

// watch marks c failed when its connection ends other than by Close: a
// server that crashed is reported by Status, and calls fail at once.
func (m *Manager) watch(c *conn) {
	c.cs.Wait()
	err := fmt.Errorf("MCP server %q: connection closed", c.srv.Name)
	if c.proc != nil {
		select {
		case <-c.proc.done:
			err = fmt.Errorf("MCP server %q: %s", c.srv.Name, c.proc.describe(m.opts.StopGrace))
		case <-time.After(m.opts.StopGrace):
		}
	}
	c.fail(err)
}

// detached connects its transport on its own context rather than the
// handshake's.
type detached struct {
	sdk.Transport
	ctx context.Context
}

func (d detached) Connect(context.Context) (sdk.Connection, error) { return d.Transport.Connect(d.ctx) }

// headerClient returns an HTTP client that adds headers to every request.
func headerClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return &http.Client{}
	}
	return &http.Client{Transport: headerTransport{headers, http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	return h.next.RoundTrip(req)
}

// closeBounded closes cs, giving up after grace (an HTTP server that does
// not answer the closing DELETE must not hold up gen's exit).
func closeBounded(cs *sdk.ClientSession, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		cs.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
	}
}

// Tools returns every discovered tool of every connected server, sorted
// by name. Tools of a server that died stay listed; calling them fails.
func (m *Manager) Tools() []*Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Tool, 0, len(m.tools))
	for _, t := range m.tools {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tool) int { return cmp.Compare(a.name, b.name) })
	return out
}

// Tool returns the tool called name (mcp__SERVER__TOOL).
func (m *Manager) Tool(name string) (*Tool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tools[name]
	return t, ok
}

// Status returns the status of every server given to Start, sorted by
// name.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	out := make([]Status, len(conns))
	for i, c := range conns {
		out[i] = c.status()
	}
	slices.SortFunc(out, func(a, b Status) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Call calls the tool called name (mcp__SERVER__TOOL) with args, within
// Options.CallTimeout (or ctx's deadline, if sooner). It does not consult
// the permission gate: callers reach it through a guarded Tool. The
// result's text content is returned, at most Options.MaxOutput bytes; a
// result the server flags as an error, a timeout, and a server that dies
// during the call are errors naming the tool.
func (m *Manager) Call(ctx context.Context, name string, args map[string]any) (string, error) {
	t, ok := m.Tool(name)
	if !ok {
		return "", fmt.Errorf("unknown MCP tool %q", name)
	}
	return t.call(ctx, args)
}

// Close stops every server and reaps stdio servers' processes (and their
// process groups). It first waits for Start calls under way (cancel their
// context to hurry them), then at most about three times
// Options.StopGrace. Calls after Close fail. Close is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.starting.Wait()
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()

	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			if err := m.stop(c, nil); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stop marks c closed (with why, which its calls then fail with; nil for
// Close) and, the first time it is asked, stops its server and reaps a
// stdio server's process, within about three times Options.StopGrace.
func (m *Manager) stop(c *conn, why error) error {
	c.mu.Lock()
	if c.state == StateConnected {
		c.state, c.err = StateClosed, why
	}
	c.mu.Unlock()
	var err error
	c.shut.Do(func() {
		if c.cs != nil {
			closeBounded(c.cs, m.opts.StopGrace)
		}
		if c.stop != nil {
			c.stop()
		}
		if c.proc != nil {
			if perr := c.proc.stop(m.opts.StopGrace); perr != nil {
				err = fmt.Errorf("MCP server %q: %w", c.srv.Name, perr)
			}
		}
	})
	return err
}

// render turns a call result into the text the model sees.
func render(res *sdk.CallToolResult, max int) string {
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource %s]", c.URI)
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil && r.Text != "" {
				b.WriteString(r.Text)
			} else if r != nil {
				fmt.Fprintf(&b, "[resource %s]", r.URI)
			}
		default:
			fmt.Fprintf(&b, "[%T content]", c)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if j, err := jsonText(res.StructuredContent); err == nil {
			b.WriteString(j)
		}
	}
	s := b.String()
	if len(s) > max {
		s = s[:max] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", max, len(s))
	}
	return s
}

// TimeoutsFromEnv sets o.InitTimeout and o.CallTimeout from MCP_TIMEOUT
// and MCP_TOOL_TIMEOUT (milliseconds), the variables Claude Code reads;
// unset variables leave o alone. lookup is os.LookupEnv outside tests. A
// value that is not a positive integer is an error naming the variable.
func (o *Options) TimeoutsFromEnv(lookup func(string) (string, bool)) error {
	for _, v := range []struct {
		name string
		dst  *time.Duration
	}{{"MCP_TIMEOUT", &o.InitTimeout}, {"MCP_TOOL_TIMEOUT", &o.CallTimeout}} {
		s, ok := lookup(v.name)
		if !ok || strings.TrimSpace(s) == "" {
			continue
		}
		ms, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || ms <= 0 || ms > math.MaxInt64/int64(time.Millisecond) {
			return fmt.Errorf("%s=%q: must be a positive number of milliseconds", v.name, s)
		}
		*v.dst = time.Duration(ms) * time.Millisecond
	}
	return nil
}
