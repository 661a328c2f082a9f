package cli

import (
	"context"
	"fmt"
	"io"
)

// MaxStdinPrompt is the largest prompt gen reads from stdin: 16 MiB, far
// above any context window, so that a longer input is a mistake worth an
// error rather than a prompt to cut.
const MaxStdinPrompt = 16 << 20

// errPromptTooLong reports a prompt on stdin over MaxStdinPrompt.
var errPromptTooLong = fmt.Errorf("the prompt on stdin is over the %d MiB limit", MaxStdinPrompt>>20)

// readPrompt reads all of r, at most MaxStdinPrompt bytes, and returns it.
// The read runs in a goroutine of its own, so that a cancelled ctx (SIGINT,
// SIGTERM) ends the wait even while a writer holds the pipe open; the
// goroutine is then left blocked on r, which the exiting process ends.
func readPrompt(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, MaxStdinPrompt+1))
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		switch {
		case res.err != nil:
			return nil, fmt.Errorf("reading the prompt from stdin: %w", res.err)
		case len(res.b) > MaxStdinPrompt:
			return nil, errPromptTooLong
		}
		return res.b, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("interrupted while reading the prompt from stdin: %w", context.Cause(ctx))
	}
}
