// Package chat is a loop.Model that speaks the OpenAI-compatible
// chat-completions API, with or without streaming, retrying requests that
// failed for reasons that may pass (rate limits, server errors, broken
// connections).
package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
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
	// loop.Request.OnText as it is generated.
	Stream bool
	// HTTPClient sends the requests; nil means a client whose transport
	// gives up on a server that sends no response headers for 2 minutes.
	HTTPClient *http.Client
	// Timeout bounds one attempt, the whole streamed answer included; an
	// attempt that runs out is retried like a network error. 0 means 10
	// minutes. A headless run must never wait forever on a stalled server.
	Timeout time.Duration
	// MaxTries bounds the attempts per turn, the first included; 0 means 4.
	MaxTries int
	// Backoff returns the wait before retry number try (0 for the first
	// retry); nil means 500ms·2^try with jitter, at most 8s.
	Backoff func(try int) time.Duration
}

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

// Model is a chat-completions client. It is safe for concurrent use.
type Model struct {
	cfg    Config
	client *openai.Client
	url    string // for error messages
}

var _ loop.Model = (*Model)(nil)

const (
	defaultTries         = 4
	defaultTimeout       = 10 * time.Minute
	defaultHeaderTimeout = 2 * time.Minute
	backoffBase          = 500 * time.Millisecond
	backoffCeiling       = 8 * time.Second
)

// New returns a Model for cfg. It does not contact the server.
func New(cfg Config) *Model {
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	if cfg.HTTPClient != nil {
		oc.HTTPClient = cfg.HTTPClient
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = defaultHeaderTimeout
		oc.HTTPClient = &http.Client{Transport: tr}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.MaxTries <= 0 {
		cfg.MaxTries = defaultTries
	}
	if cfg.Backoff == nil {
		cfg.Backoff = Backoff
	}
	return &Model{cfg: cfg, client: openai.NewClientWithConfig(oc), url: oc.BaseURL + "/chat/completions"}
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

// Complete sends one turn. A request that fails with 429, a 5xx status or
// a network error is retried after a backoff, up to MaxTries attempts in
// all; other failures return at once. A stream that breaks after text was
// handed to req.OnText is not retried, since the text cannot be taken back.
func (m *Model) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if m.cfg.Model == "" {
		return loop.Response{}, errors.New("chat: no model name configured (set GEN_MODEL or pass a model)")
	}
	creq := openai.ChatCompletionRequest{
		Model:    m.cfg.Model,
		Messages: req.Messages,
		Tools:    req.Tools,
	}
	for try := 0; ; try++ {
		var (
			resp     loop.Response
			err      error
			streamed bool // text reached OnText
		)
		actx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		if m.cfg.Stream {
			resp, streamed, err = m.stream(actx, creq, req.OnText)
		} else {
			resp, err = m.complete(actx, creq, req.OnText)
		}
		if err != nil && actx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w: no complete answer within %v", errAttemptTimeout, m.cfg.Timeout)
		}
		cancel()
		if err == nil {
			return resp, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return loop.Response{}, fmt.Errorf("chat: %s: %w", m.url, cerr)
		}
		if streamed || !retryable(err) || try+1 >= m.cfg.MaxTries {
			tries := ""
			if try > 0 {
				tries = fmt.Sprintf(" (after %d tries)", try+1)
			}
			return loop.Response{}, fmt.Errorf("chat: POST %s, model %q%s: %w", m.url, m.cfg.Model, tries, err)
		}
		t := time.NewTimer(m.cfg.Backoff(try))
		select {
		case <-ctx.Done():
			t.Stop()
			return loop.Response{}, fmt.Errorf("chat: %s: waiting to retry after %v: %w", m.url, err, ctx.Err())
		case <-t.C:
		}
	}
}

func (m *Model) complete(ctx context.Context, creq openai.ChatCompletionRequest, onText func(string)) (loop.Response, error) {
	r, err := m.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		return loop.Response{}, err
	}
	if len(r.Choices) == 0 {
		return loop.Response{}, errors.New("the response has no choices")
	}
	msg := r.Choices[0].Message
	msg.Role = openai.ChatMessageRoleAssistant
	if onText != nil && msg.Content != "" {
		onText(msg.Content)
	}
	return loop.Response{Message: msg, Usage: r.Usage}, nil
}

// errAttemptTimeout reports an attempt that ran out of Config.Timeout.
var errAttemptTimeout = errors.New("the server did not answer in time")

// errTruncated reports a stream that ended without saying it was done.
var errTruncated = errors.New("the stream ended before the model finished (no finish_reason)")

func (m *Model) stream(ctx context.Context, creq openai.ChatCompletionRequest, onText func(string)) (resp loop.Response, streamed bool, err error) {
	creq.Stream = true
	creq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	s, err := m.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return resp, false, err
	}
	defer s.Close()

	var (
		text     strings.Builder
		calls    = map[int]*openai.ToolCall{}
		last     = -1 // index of the latest call, for servers that omit it
		finished bool
	)
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return resp, streamed, err
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
					c = &openai.ToolCall{Type: openai.ToolTypeFunction}
					calls[i] = c
				}
				last = i
				if tc.ID != "" {
					c.ID = tc.ID
				}
				if tc.Type != "" {
					c.Type = tc.Type
				}
				if c.Function.Name == "" {
					// The name comes whole, in the first chunk.
					c.Function.Name = tc.Function.Name
				}
				c.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if !finished {
		return resp, streamed, errTruncated
	}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text.String()}
	for _, i := range slices.Sorted(maps.Keys(calls)) {
		msg.ToolCalls = append(msg.ToolCalls, *calls[i])
	}
	resp.Message = msg
	return resp, streamed, nil
}

// retryable reports whether err may pass if the request is sent again.
func retryable(err error) bool {
	var (
		apiErr *openai.APIError
		reqErr *openai.RequestError
		netErr net.Error
	)
	status := 0
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	if status != 0 {
		return status == http.StatusTooManyRequests || status >= 500
	}
	return errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, errTruncated) ||
		errors.Is(err, errAttemptTimeout)
}
