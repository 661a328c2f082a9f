package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// MaxStdinPrompt is the largest prompt gen reads from stdin: 16 MiB, far
// above any context window, so that a longer input is a mistake worth an
// error rather than a prompt to cut.
const MaxStdinPrompt = 16 << 20

// stdinGrace is how long gen waits for the first byte on stdin when a
// prompt argument was given (Claude Code waits as long).
var stdinGrace = 3 * time.Second

// errPromptTooLong reports a prompt on stdin over MaxStdinPrompt.
var errPromptTooLong error = promptTooLong{}

// promptTooLong is errPromptTooLong's type: its message is formatted when
// it is printed, not at package init.
type promptTooLong struct{}

func (promptTooLong) Error() string {
	return fmt.Sprintf("the prompt on stdin is over the %d MiB limit", MaxStdinPrompt>>20)
}

// errNoStdin reports that nothing arrived on stdin within the grace time.
var errNoStdin = errors.New("nothing on stdin")

// readPrompt reads all of r, at most MaxStdinPrompt bytes, and returns it.
// The read runs in a goroutine of its own, so that a cancelled ctx (SIGINT,
// SIGTERM) ends the wait even while a writer holds the pipe open; the
// goroutine is then left blocked on r, which the exiting process ends.
// When grace is positive and no byte (nor the end) arrives within it,
// readPrompt returns errNoStdin.
func readPrompt(ctx context.Context, r io.Reader, grace time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	started := make(chan struct{})
	go func() {
		first := make([]byte, 4096)
		n, err := r.Read(first)
		for n == 0 && err == nil {
			n, err = r.Read(first)
		}
		close(started)
		var rest []byte
		if err == nil {
			rest, err = io.ReadAll(io.LimitReader(r, MaxStdinPrompt+1-int64(n)))
		} else if errors.Is(err, io.EOF) {
			err = nil
		}
		done <- result{append(first[:n:n], rest...), err}
	}()
	var timeout <-chan time.Time
	if grace > 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case res := <-done:
			switch {
			case res.err != nil:
				return nil, fmt.Errorf("reading the prompt from stdin: %w", res.err)
			case len(res.b) > MaxStdinPrompt:
				return nil, errPromptTooLong
			}
			return res.b, nil
		case <-started:
			started, timeout = nil, nil // the rest is read without a deadline
		case <-timeout:
			return nil, errNoStdin
		case <-ctx.Done():
			return nil, fmt.Errorf("interrupted while reading the prompt from stdin: %w", context.Cause(ctx))
		}
	}
}
