package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// failingReader reads r, then fails with err where r ends.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		err = f.err
	}
	return n, err
}

// A read error in the middle of the input answers every line read before
// it, in order (the unfinished last line too, as a bad line, as the
// sequential batch did), then ends with a usage exit naming the file and
// the error.
func TestBatchReadError(t *testing.T) {
	pol := checkPolicy(t)
	in := strings.Repeat(`{"call": "Bash(ls)"}`+"\n", 1000) + `{"call": "Bash(l`
	for _, workers := range []int{1, 3} {
		r := runWith(func(s Streams) error {
			return checkBatch(context.Background(), &failingReader{strings.NewReader(in), errors.New("device gone")}, "calls", workers, pol, s)
		})
		lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
		if len(lines) != 1001 || !strings.HasPrefix(lines[999], `{"decision":"allow"`) || !strings.HasPrefix(lines[1000], `{"error":`) {
			t.Fatalf("%d workers: %d answers, last two %q", workers, len(lines), lines[max(len(lines)-2, 0):])
		}
		if r.err != "calls: device gone (exit 2)" {
			t.Errorf("%d workers: error %q, want the read error as a usage exit", workers, r.err)
		}
	}
}

// An interactive client that stops reading the answers (the output pipe
// closed) while it still writes lines ends the batch with the write's
// error: it does not wait for more input first.
func TestBatchOutputClosedInteractive(t *testing.T) {
	pol := checkPolicy(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- checkBatch(context.Background(), inR, "-", 2, pol, Streams{Out: outW, Err: io.Discard})
	}()
	if _, err := io.WriteString(inW, `{"call": "Bash(ls)"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		a, _ := bufio.NewReader(outR).ReadString('\n')
		first <- a
	}()
	select {
	case a := <-first:
		if !strings.Contains(a, `"decision":"allow"`) {
			t.Fatalf("first answer %q", a)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no answer to the first line while the client waits for it")
	}
	outR.Close()
	go io.WriteString(inW, `{"call": "Bash(ls)"}`+"\n") // the pipe stays open after it
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("error = %v, want the closed pipe's", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the batch hangs after its output closed")
	}
}

// A cancelled context (SIGINT or SIGTERM reaching gen) ends a batch that
// waits for input which never comes, after the answers to the lines read
// so far, with a failure exit.
func TestBatchInterrupted(t *testing.T) {
	pol := checkPolicy(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- checkBatch(ctx, inR, "-", 2, pol, Streams{Out: outW, Err: io.Discard})
		outW.Close()
	}()
	if _, err := io.WriteString(inW, `{"call": "Bash(ls)"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outR)
	if a, err := out.ReadString('\n'); err != nil || !strings.Contains(a, `"decision":"allow"`) {
		t.Fatalf("first answer %q, %v", a, err)
	}
	cancel() // the input stays open, and the reader blocked on it
	select {
	case err := <-done:
		if exitCode(err) != ExitFailed || !strings.Contains(err.Error(), "-: interrupted") {
			t.Errorf("checkBatch returned %v (exit %d), want an interrupted failure", err, exitCode(err))
		}
	case <-time.After(60 * time.Second): // a hang guard, not a budget
		t.Fatal("checkBatch still waits for input after its context was cancelled")
	}
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Errorf("output after the interruption: %q", rest)
	}
}

// --input is read as strictly as a --batch line: a repeated name, which
// two readers could take differently (the first or the last value), and
// invalid UTF-8 are errors, not a decision about one of the readings.
func TestCheckInputStrict(t *testing.T) {
	dir := project(t)
	for _, in := range []string{
		`{"command": "ls", "command": "rm -rf /"}`,
		"{\"command\": \"ls \xff\"}",
		`{"command": "ls"} x`,
	} {
		code, out, errs := run("permissions", "check", "--cwd", dir, "--input", in, "Bash")
		if code != 2 || out != "" || !strings.Contains(errs, "--input") {
			t.Errorf("--input %q: exit %d, stdout %q, stderr %q; want a usage error", in, code, out, errs)
		}
	}
	if code, out, errs := run("permissions", "check", "--cwd", dir, "--input", `{"command": "ls"}`, "Bash"); code != 0 || !strings.HasPrefix(out, "allow") {
		t.Errorf("a plain --input: exit %d, %q, %q", code, out, errs)
	}
}
