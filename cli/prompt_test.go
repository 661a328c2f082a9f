package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReadPromptWhole(t *testing.T) {
	// Over the old 1 MiB cut, up to the limit: read in full.
	for _, n := range []int{2 << 20, MaxStdinPrompt} {
		in := bytes.Repeat([]byte("x"), n)
		got, err := readPrompt(context.Background(), bytes.NewReader(in), 0)
		if err != nil || len(got) != n {
			t.Fatalf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
	}
	_, err := readPrompt(context.Background(), io.MultiReader(bytes.NewReader(make([]byte, MaxStdinPrompt)), strings.NewReader("!")), 0)
	if !errors.Is(err, errPromptTooLong) {
		t.Fatalf("one byte over the limit: %v, want %v", err, errPromptTooLong)
	}
}

func TestReadPromptCancelled(t *testing.T) {
	pr, pw := io.Pipe() // a writer that never writes nor closes
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := readPrompt(ctx, pr, 0)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	case <-time.After(60 * time.Second): // hang guard
		t.Fatal("readPrompt ignored the cancelled context")
	}
}

func TestHeadlessPromptTooLong(t *testing.T) {
	project(t)
	var out, errb bytes.Buffer
	in := io.MultiReader(strings.NewReader("Read: a.txt\n"), bytes.NewReader(make([]byte, MaxStdinPrompt)))
	code := Run(context.Background(), nil, Streams{In: in, Out: &out, Err: &errb})
	if code != ExitUsage || !strings.Contains(errb.String(), "over the 16 MiB limit") {
		t.Fatalf("exit %d, stderr %q; want %d and the limit named", code, errb.String(), ExitUsage)
	}
}

// With a grace time, stdin that stays silent is given up on; stdin that
// has data (or its end) is read whole.
func TestReadPromptGrace(t *testing.T) {
	pr, pw := io.Pipe() // a writer that never writes nor closes
	defer pw.Close()
	if _, err := readPrompt(context.Background(), pr, time.Millisecond); !errors.Is(err, errNoStdin) {
		t.Fatalf("silent stdin: %v, want errNoStdin", err)
	}
	got, err := readPrompt(context.Background(), strings.NewReader("diff"), time.Hour)
	if err != nil || string(got) != "diff" {
		t.Fatalf("stdin with data: %q, %v", got, err)
	}
	got, err = readPrompt(context.Background(), strings.NewReader(""), time.Hour)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty stdin: %q, %v", got, err)
	}
}
