package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/gen-run/gen/session"
)

// inputMessage is one line of --input-format stream-json: Claude Code's
// user message, {"type":"user","message":{"role":"user","content":...}}
// where content is a string or a list of text blocks. Other fields
// (session_id, parent_tool_use_id) are accepted and ignored. Names are
// matched exactly and may not repeat in any object (jsonv2's defaults):
// with encoding/json, "Content" after "content", or a second "message",
// was the prompt, while a filter in front of gen that reads the line as
// most JSON parsers do saw the first.
type inputMessage struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// parseInputLine returns the prompt of one stream-json input line.
func parseInputLine(line []byte) (string, error) {
	var m inputMessage
	if err := jsonv2.Unmarshal(line, &m); err != nil {
		return "", err
	}
	if m.Type != "user" || m.Message.Role != "user" {
		return "", fmt.Errorf(`want a user message, {"type":"user","message":{"role":"user","content":"..."}}; got type %q, role %q`, m.Type, m.Message.Role)
	}
	var text string
	if err := jsonv2.Unmarshal(m.Message.Content, &text); err == nil {
		if strings.TrimSpace(text) == "" {
			return "", errors.New("empty message content")
		}
		return text, nil
	}
	var blocks []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := jsonv2.Unmarshal(m.Message.Content, &blocks); err != nil {
		return "", errors.New("message content must be a string or a list of text blocks")
	}
	var parts []string
	for i, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return "", fmt.Errorf("content block %d: gen takes text blocks only, not %q", i+1, b.Type)
		}
		parts = append(parts, *b.Text)
	}
	text = strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		return "", errors.New("empty message content")
	}
	return text, nil
}

// stream runs one turn per user message on stdin, in order, in one
// session, printing a result event after each; it ends at the end of
// stdin. A malformed line ends the run with a usage error (exit 2) after
// the turns before it. Otherwise the exit code is the worst of the turns:
// failed (1) over denied (3) over ok.
func (h *headlessRun) stream(ctx context.Context, s Streams) error {
	sess, err := h.start()
	if err != nil {
		return err
	}
	defer sess.End(ctx, "other")
	type line struct {
		n    int
		text string
		raw  map[string]json.RawMessage // the message as read, for --replay-user-messages
		err  error
	}
	lines := make(chan line)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		// Reads in its own goroutine, so that a signal ends the wait;
		// it is left blocked on stdin then, which the exiting process
		// ends.
		defer close(lines)
		r := bufio.NewReaderSize(s.In, 64<<10)
		for n := 1; ; n++ {
			b, err := readInputLine(r)
			if len(strings.TrimSpace(string(b))) == 0 && err == nil {
				continue
			}
			var l line
			switch {
			case errors.Is(err, io.EOF) && len(strings.TrimSpace(string(b))) == 0:
				return
			case err != nil && !errors.Is(err, io.EOF):
				l = line{n: n, err: err}
			default:
				text, perr := parseInputLine(b)
				if perr == nil && h.replay {
					perr = json.Unmarshal(b, &l.raw)
				}
				l.n, l.text, l.err = n, text, perr
			}
			select {
			case lines <- l:
			case <-stop:
				return
			}
			if l.err != nil || err != nil {
				return
			}
		}
	}()
	code := ExitOK
	for {
		var (
			l  line
			ok bool
		)
		select {
		case l, ok = <-lines:
		case <-ctx.Done():
			return &exitError{ExitFailed, fmt.Errorf("interrupted while reading stdin: %w", context.Cause(ctx))}
		}
		if !ok {
			break
		}
		var stopped error
		if l.err == nil {
			l.text, stopped = h.expand(ctx, sess, l.text)
			if invalid(stopped) {
				l.err, stopped = stopped, nil
			}
		}
		if l.err != nil {
			return usageErr(fmt.Errorf("stdin:%d: %w", l.n, l.err))
		}
		if h.replay {
			h.printer.Replay(l.raw)
		}
		code = worse(code, h.turn(ctx, sess, l.text, stopped))
		if ctx.Err() != nil {
			break
		}
	}
	if code != ExitOK {
		return &exitError{code, fmt.Errorf("")}
	}
	return nil
}

// turn runs one turn (submit) and prints its result.
func (h *headlessRun) turn(ctx context.Context, sess *session.Session, prompt string, stopped error) int {
	h.printer.StartTurn()
	rep := h.submit(ctx, sess, prompt, stopped)
	h.printer.Result(&rep)
	return rep.ExitCode()
}

// worse returns the exit code that says more: failed over denied over ok.
func worse(a, b int) int {
	rank := func(c int) int {
		switch c {
		case ExitFailed:
			return 2
		case ExitDenied:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// readInputLine reads one line of at most MaxStdinPrompt bytes.
func readInputLine(r *bufio.Reader) ([]byte, error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > MaxStdinPrompt {
			return nil, errPromptTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return b, err
	}
}
