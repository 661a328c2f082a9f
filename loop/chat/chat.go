// Package chat is a loop.Model that speaks the OpenAI-compatible
// chat-completions API, with or without streaming, retrying requests that
// failed for reasons that may pass (rate limits, server errors, broken
// connections, silence).
//
// Every wait is bounded: a streamed answer may fall silent for at most
// IdleTimeout (60 s by default) between chunks, before its response
// headers included; one attempt lasts at most Timeout (10 minutes); a
// Retry-After of 429 and 503 answers is honoured up to MaxRetryAfter; and
// no retry starts later than RetryWindow after a turn's first attempt. So
// a server that accepts connections and never answers ends a streaming
// turn within 4 × 60 s plus backoffs, under 5 minutes. The answer is
// bounded too: at most MaxResponse bytes, and MaxToolArgs for the
// arguments of one tool call.
package chat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
)

// Config configures a Model.
type Config struct {
	// BaseURL is the API root, such as http://127.0.0.1:8080/v1; the
	// request goes to BaseURL + "/chat/completions". Empty means OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Model is the model name sent with every request. Required.
	Model string
	// Stream requests server-sent events, so text reaches
	// loop.Request.OnText as it is generated. Some servers (llama.cpp
	// builds without streamed tool calls) need it off.
	Stream bool
	// HTTPClient sends the requests; nil means a default client. Its own
	// timeouts, if any, add to the ones below.
	HTTPClient *http.Client
	// Timeout bounds one attempt, the whole answer included; an attempt
	// that runs out is retried like a network error. 0 means 10 minutes.
	// Without streaming it is the only bound on waiting for the answer.
	Timeout time.Duration
	// IdleTimeout bounds the silence of a streamed answer: the wait for
	// the response headers and between two reads of the body. A silent
	// attempt is retried like a network error. 0 means 60 s.
	IdleTimeout time.Duration
	// MaxTries bounds the attempts per turn, the first included; 0 means 4.
	MaxTries int
	// Backoff returns the wait before retry number try (0 for the first
	// retry) when the server gave no Retry-After; nil means 500ms·2^try
	// with jitter, at most 8s.
	Backoff func(try int) time.Duration
	// Wait waits d before a retry, or until ctx is done; nil means a
	// timer. Tests record the waits with it.
	Wait func(ctx context.Context, d time.Duration) error
	// MaxResponse bounds one answer: the body of a response, or the text
	// and tool-call arguments of a stream together. 0 means
	// DefaultMaxResponse.
	MaxResponse int64
	// MaxToolArgs bounds the arguments of one tool call. 0 means
	// DefaultMaxToolArgs.
	MaxToolArgs int64
	// Debug, when set, is told of each attempt (--debug api): how it
	// ended and how long it took.
	Debug func(string)
}

// Defaults and bounds. They are documented in the README.
const (
	DefaultTimeout     = 10 * time.Minute
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxResponse and DefaultMaxToolArgs leave room for ordinary
	// large answers (a whole file written in one call) while keeping a
	// runaway server from exhausting memory.
	DefaultMaxResponse = 32 << 20
	DefaultMaxToolArgs = 16 << 20
	// MaxRetryAfter caps the wait a server asks for with Retry-After.
	MaxRetryAfter = 60 * time.Second
	// RetryWindow is how long after a turn's first attempt a retry may
	// still start; a wait is cut to end within it.
	RetryWindow = 4 * time.Minute

	defaultTries   = 4
	backoffBase    = 500 * time.Millisecond
	backoffCeiling = 8 * time.Second
)

// Environment variables read by ApplyEnv.
const (
	EnvIdleTimeout = "GEN_STREAM_IDLE_TIMEOUT"
	EnvTimeout     = "GEN_API_TIMEOUT"
	EnvNoStream    = "GEN_NO_STREAM"
)

// FromEnv returns the configuration named by OPENAI_BASE_URL, OPENAI_API_KEY
// and GEN_MODEL; a non-empty model overrides GEN_MODEL. ok is false when
// neither a base URL nor an API key is set, i.e. no server is configured.
func FromEnv(model string) (cfg Config, ok bool) {
	cfg = Config{
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
		APIKey:  os.Getenv("OPENAI_API_KEY"),
		Model:   model,
	}
	if cfg.Model == "" {
		cfg.Model = os.Getenv("GEN_MODEL")
	}
	return cfg, cfg.BaseURL != "" || cfg.APIKey != ""
}

// ApplyEnv sets IdleTimeout from GEN_STREAM_IDLE_TIMEOUT and Timeout from
// GEN_API_TIMEOUT (Go durations such as 90s or 5m, which must be positive),
// and turns Stream off when GEN_NO_STREAM is 1 or true, reading variables
// with getenv. Unset variables change nothing; a malformed one is an error
// naming it.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{EnvIdleTimeout, &c.IdleTimeout}, {EnvTimeout, &c.Timeout}} {
		v := getenv(d.name)
		if v == "" {
			continue
		}
		t, err := time.ParseDuration(v)
		if err != nil || t <= 0 {
			return fmt.Errorf("%s=%q: want a positive Go duration such as 90s or 5m", d.name, v)
		}
		*d.dst = t
	}
	switch v := getenv(EnvNoStream); strings.ToLower(v) {
	case "":
	case "1", "true":
		c.Stream = false
	case "0", "false":
	default:
		return fmt.Errorf("%s=%q: want 1, true, 0 or false", EnvNoStream, v)
	}
	return nil
}

// Model is a chat-completions client. It is safe for concurrent use.
type Model struct {
	cfg    Config
	client *http.Client
	url    string
	// shown is url as messages name it: a password in it is hidden.
	shown string
}

var _ loop.Model = (*Model)(nil)

// New returns a Model for cfg. It does not contact the server.
func New(cfg Config) *Model {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxTries <= 0 {
		cfg.MaxTries = defaultTries
	}
	if cfg.Backoff == nil {
		cfg.Backoff = Backoff
	}
	if cfg.Wait == nil {
		cfg.Wait = sleep
	}
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	if cfg.MaxToolArgs <= 0 {
		cfg.MaxToolArgs = DefaultMaxToolArgs
	}
	m := &Model{cfg: cfg, client: cfg.HTTPClient, url: base + "/chat/completions"}
	m.shown = m.url
	if u, err := url.Parse(m.url); err == nil {
		m.shown = u.Redacted()
	}
	return m
}

// Backoff is the default wait before retry number try: 500ms·2^try, at
// most 8s, of which a random part of up to a half is taken off so that
// clients that failed together do not retry together.
func Backoff(try int) time.Duration {
	d := backoffCeiling
	if try < 5 {
		d = min(backoffBase<<try, backoffCeiling)
	}
	return d - rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Complete sends one turn. A request that fails with 429, a 5xx status, a
// network error or silence is retried after a backoff (or the server's
// Retry-After, capped), up to MaxTries attempts in all and within
// RetryWindow; other failures return at once. A stream that breaks after
// text was handed to req.OnText is not retried, since the text cannot be
// taken back. An answer over MaxResponse or MaxToolArgs fails the turn.
func (m *Model) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if m.cfg.Model == "" {
		return loop.Response{}, errors.New("chat: no model name configured (set GEN_MODEL or pass a model)")
	}
	body, err := m.requestBody(req)
	if err != nil {
		return loop.Response{}, fmt.Errorf("chat: encoding the request: %w", err)
	}
	start := time.Now()
	for try := 0; ; try++ {
		began := time.Now()
		resp, streamed, err := m.attempt(ctx, body, req.OnText)
		if m.cfg.Debug != nil {
			took := time.Since(began).Round(time.Millisecond)
			if err == nil {
				m.cfg.Debug(fmt.Sprintf("POST %s, model %q, attempt %d: ok after %v (%d prompt and %d completion tokens, %d tool calls)",
					m.shown, m.cfg.Model, try+1, took, resp.Usage.PromptTokens, resp.Usage.CompletionTokens, len(resp.Message.ToolCalls)))
			} else {
				m.cfg.Debug(fmt.Sprintf("POST %s, model %q, attempt %d: %v after %v", m.shown, m.cfg.Model, try+1, err, took))
			}
		}
		if err == nil {
			return resp, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return loop.Response{}, fmt.Errorf("chat: %s: %w", m.shown, cerr)
		}
		fail := func(note string) (loop.Response, error) {
			if try > 0 {
				note = fmt.Sprintf(" (after %d tries%s)", try+1, note)
			}
			return loop.Response{}, fmt.Errorf("chat: POST %s, model %q%s: %w", m.shown, m.cfg.Model, note, err)
		}
		if streamed || !retryable(err) || try+1 >= m.cfg.MaxTries {
			return fail("")
		}
		wait := m.cfg.Backoff(try)
		if se, ok := errors.AsType[*StatusError](err); ok && se.RetryAfter > 0 {
			wait = min(se.RetryAfter, MaxRetryAfter)
		}
		left := RetryWindow - time.Since(start)
		if left <= 0 {
			return fail(fmt.Sprintf(", none started later than %v into the turn", RetryWindow))
		}
		wait = min(wait, left)
		if werr := m.cfg.Wait(ctx, wait); werr != nil {
			return loop.Response{}, fmt.Errorf("chat: %s: waiting to retry after %v: %w", m.shown, err, werr)
		}
	}
}

// StatusError is an answer with a status other than 200.
type StatusError struct {
	Code    int
	Message string // the server's error message, or the start of its body
	// RetryAfter is the wait the server asked for (Retry-After, in
	// seconds or as an HTTP date, on 429 and 503); 0 if none.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("status %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

var (
	// errAttemptTimeout reports an attempt that ran out of Config.Timeout.
	errAttemptTimeout = errors.New("the server did not answer in time")
	// errIdle reports a server silent for Config.IdleTimeout.
	errIdle = errors.New("the server sent nothing")
	// errTruncated reports a stream that ended without saying it was done.
	errTruncated = errors.New("the stream ended before the model finished (no finish_reason)")
	// ErrTooLarge reports an answer over MaxResponse or MaxToolArgs.
	ErrTooLarge = errors.New("the answer is too large")
)

// requestBody encodes the request. It is built here rather than by the
// client library so that an assistant message with tool calls and no text
// carries "content": null: some gateways reject the message without it.
func (m *Model) requestBody(req loop.Request) ([]byte, error) {
	msgs := make([]json.RawMessage, len(req.Messages))
	for i, msg := range req.Messages {
		b, err := json.Marshal(msg)
		if err != nil {
			return nil, err
		}
		if msg.Role == openai.ChatMessageRoleAssistant && msg.Content == "" && len(msg.MultiContent) == 0 {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err != nil {
				return nil, err
			}
			if _, ok := fields["content"]; !ok {
				b = append([]byte(`{"content":null,`), b[1:]...)
				if len(fields) == 0 {
					b = []byte(`{"content":null}`)
				}
			}
		}
		msgs[i] = b
	}
	type wire struct {
		Model         string                `json:"model"`
		Messages      []json.RawMessage     `json:"messages"`
		Tools         []openai.Tool         `json:"tools,omitempty"`
		Stream        bool                  `json:"stream"`
		StreamOptions *openai.StreamOptions `json:"stream_options,omitempty"`
	}
	w := wire{Model: m.cfg.Model, Messages: msgs, Tools: req.Tools, Stream: m.cfg.Stream}
	if m.cfg.Stream {
		w.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return json.Marshal(w)
}

// attempt sends the request once. streamed reports that text reached
// onText.
func (m *Model) attempt(ctx context.Context, body []byte, onText func(string)) (resp loop.Response, streamed bool, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deadline := time.AfterFunc(m.cfg.Timeout, func() {
		cancel(fmt.Errorf("%w: no complete answer within %v", errAttemptTimeout, m.cfg.Timeout))
	})
	defer deadline.Stop()
	// The idle watchdog: reset by every read; only a streamed answer is
	// watched before its headers arrive, since a server answering without
	// streaming says nothing until it is done.
	idle := time.AfterFunc(m.cfg.IdleTimeout, func() {
		cancel(fmt.Errorf("%w for %v (set %s to wait longer)", errIdle, m.cfg.IdleTimeout, EnvIdleTimeout))
	})
	defer idle.Stop()
	if !m.cfg.Stream {
		idle.Stop()
	}
	defer func() {
		if err != nil && ctx.Err() == nil {
			if cause := context.Cause(actx); cause != nil && cause != context.Canceled {
				err = cause
			}
		}
	}()

	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		return resp, false, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if m.cfg.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	if m.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	hresp, err := m.client.Do(hreq)
	if err != nil {
		return resp, false, err
	}
	defer hresp.Body.Close()
	idle.Reset(m.cfg.IdleTimeout)
	r := &watchedReader{r: hresp.Body, idle: idle, d: m.cfg.IdleTimeout}
	if hresp.StatusCode != http.StatusOK {
		return resp, false, statusError(hresp, r)
	}
	if m.cfg.Stream {
		return m.stream(r, onText)
	}
	resp, err = m.decode(r, onText)
	return resp, false, err
}

// watchedReader resets the idle watchdog on every read that returns data.
type watchedReader struct {
	r    io.Reader
	idle *time.Timer
	d    time.Duration
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.idle.Reset(w.d)
	}
	return n, err
}

// statusError reads the error answer (its first 64 KiB) into a StatusError.
func statusError(resp *http.Response, r io.Reader) error {
	b, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	e := &StatusError{Code: resp.StatusCode}
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
		e.Message = body.Error.Message
	} else {
		e.Message = strings.TrimSpace(strings.ToValidUTF8(string(b[:min(len(b), 500)]), "\uFFFD"))
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// retryAfter parses a Retry-After value, delay seconds or an HTTP date,
// into a wait from now; 0 if it is absent, malformed or past.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(MaxRetryAfter/time.Second)+1)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// limited reads at most n bytes of r and then fails with ErrTooLarge, so
// an answer over the cap is an error rather than a cut.
type limited struct {
	r    io.Reader
	n    int64 // bytes still allowed
	what string
	max  int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var b [1]byte
		if n, _ := l.r.Read(b[:]); n > 0 {
			return 0, fmt.Errorf("%w: %s is over the %s limit", ErrTooLarge, l.what, limitText(l.max))
		}
		return l.r.Read(p[:0])
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// decode reads a whole (non-streamed) answer, at most MaxResponse bytes.
func (m *Model) decode(r io.Reader, onText func(string)) (loop.Response, error) {
	var cr openai.ChatCompletionResponse
	lr := &limited{r: r, n: m.cfg.MaxResponse, what: "the response", max: m.cfg.MaxResponse}
	if err := json.NewDecoder(lr).Decode(&cr); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return loop.Response{}, err
		}
		return loop.Response{}, fmt.Errorf("decoding the response: %w", err)
	}
	if len(cr.Choices) == 0 {
		return loop.Response{}, errors.New("the response has no choices")
	}
	msg := cr.Choices[0].Message
	msg.Role = openai.ChatMessageRoleAssistant
	for _, c := range msg.ToolCalls {
		if int64(len(c.Function.Arguments)) > m.cfg.MaxToolArgs {
			return loop.Response{}, m.argsTooLarge(c.Function.Name)
		}
	}
	if onText != nil && msg.Content != "" {
		onText(msg.Content)
	}
	return loop.Response{Message: msg, Usage: cr.Usage}, nil
}

func (m *Model) argsTooLarge(tool string) error {
	return fmt.Errorf("%w: the arguments of a %s call are over the %s limit", ErrTooLarge, tool, limitText(m.cfg.MaxToolArgs))
}

// streamChunk is one server-sent event of a streamed answer; some servers
// report a failure mid-stream as an error object.
type streamChunk struct {
	openai.ChatCompletionStreamResponse
	Error *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// call is a tool call being assembled from a stream.
type call struct {
	id, typ, name string
	args          strings.Builder
}

// stream reads a streamed answer. Text and tool-call arguments are
// gathered in builders (amortised growth, not a copy per chunk), and their
// total size is checked as they grow.
func (m *Model) stream(r io.Reader, onText func(string)) (resp loop.Response, streamed bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		text     strings.Builder
		calls    = map[int]*call{}
		last     = -1 // index of the latest call, for servers that omit it
		finished bool
		size     int64 // text and arguments so far
	)
	for {
		line, err := readLine(br, m.cfg.MaxResponse)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return resp, streamed, err
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // comments, event names, blank separators
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			break
		}
		var chunk streamChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			return resp, streamed, fmt.Errorf("decoding a stream event: %w", err)
		}
		if chunk.Error != nil {
			return resp, streamed, fmt.Errorf("the server reported an error mid-stream: %s", chunk.Error.Message)
		}
		if chunk.Usage != nil {
			resp.Usage = *chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // only one choice is asked for
			}
			if ch.FinishReason != "" {
				finished = true
			}
			size += int64(len(ch.Delta.Content))
			for _, tc := range ch.Delta.ToolCalls {
				size += int64(len(tc.Function.Arguments))
			}
			if size > m.cfg.MaxResponse {
				return resp, streamed, fmt.Errorf("%w: the streamed answer is over the %s limit", ErrTooLarge, limitText(m.cfg.MaxResponse))
			}
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				if onText != nil {
					onText(d)
					streamed = true
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := last
				switch {
				case tc.Index != nil:
					i = *tc.Index
				case tc.ID != "" || last < 0:
					i = last + 1
				}
				c, ok := calls[i]
				if !ok {
					c = &call{typ: string(openai.ToolTypeFunction)}
					calls[i] = c
				}
				last = i
				if tc.ID != "" {
					c.id = tc.ID
				}
				if tc.Type != "" {
					c.typ = string(tc.Type)
				}
				if c.name == "" {
					// The name comes whole, in the first chunk.
					c.name = tc.Function.Name
				}
				if int64(c.args.Len()+len(tc.Function.Arguments)) > m.cfg.MaxToolArgs {
					return resp, streamed, m.argsTooLarge(c.name)
				}
				c.args.WriteString(tc.Function.Arguments)
			}
		}
		if err != nil { // io.EOF after a last line without a newline
			break
		}
	}
	if !finished {
		return resp, streamed, errTruncated
	}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text.String()}
	for _, i := range slices.Sorted(maps.Keys(calls)) {
		c := calls[i]
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
			ID: c.id, Type: openai.ToolType(c.typ),
			Function: openai.FunctionCall{Name: c.name, Arguments: c.args.String()},
		})
	}
	resp.Message = msg
	return resp, streamed, nil
}

// readLine returns the next line of br without its line ending; a line
// over max bytes is ErrTooLarge.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if int64(len(line)+len(frag)) > max {
			return nil, fmt.Errorf("%w: one stream event is over the %s limit", ErrTooLarge, limitText(max))
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			line = append(line, frag...)
			continue
		}
		if line == nil {
			line = frag
		} else {
			line = append(line, frag...)
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// limitText formats a limit of n bytes.
func limitText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// retryable reports whether err may pass if the request is sent again.
func retryable(err error) bool {
	if se, ok := errors.AsType[*StatusError](err); ok {
		return se.overloaded()
	}
	if errors.Is(err, ErrTooLarge) {
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, errTruncated) ||
		errors.Is(err, errAttemptTimeout) ||
		errors.Is(err, errIdle)
}
