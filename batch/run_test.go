package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hangGuard fails a test that would otherwise hang; it is not a time
// budget.
const hangGuard = 60 * time.Second

func mkTasks(n int) []Task {
	var ts []Task
	for i := range n {
		ts = append(ts, Task{ID: fmt.Sprintf("t%d", i), Type: "r", Prompt: "p", Index: i, Metadata: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
	}
	return ts
}

// lineWriter records each Write call; every call must be one whole line.
type lineWriter struct {
	mu    sync.Mutex
	lines []string
	bad   []string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(p)
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 || !json.Valid(p) {
		w.bad = append(w.bad, s)
	}
	w.lines = append(w.lines, s)
	return len(p), nil
}

func (w *lineWriter) results(t *testing.T) map[string]Result {
	t.Helper()
	if len(w.bad) > 0 {
		t.Fatalf("writes that are not one whole JSON line: %q", w.bad)
	}
	m := map[string]Result{}
	for _, l := range w.lines {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if _, dup := m[r.ID]; dup {
			t.Fatalf("two result lines for %s", r.ID)
		}
		m[r.ID] = r
	}
	return m
}

func outcome(code int) Exec {
	return func(ctx context.Context, t Task) Result {
		r := Result{ExitCode: code, Result: "done " + t.ID}
		if code == ExitDenied {
			r.PermissionDenials = []Denial{{ToolName: "Bash", ToolInput: map[string]any{"command": "rm x"}, Reason: "deny rule Bash(rm:*)"}}
		}
		if code == ExitFailed {
			r.Result = "boom"
		}
		return r
	}
}

func TestRunResultsAndExitCodes(t *testing.T) {
	for _, c := range []struct {
		name  string
		codes []int
		exit  int
	}{
		{"all ok", []int{0, 0, 0}, ExitOK},
		{"denied", []int{0, 3, 0}, ExitDenied},
		{"failed", []int{3, 1, 0}, ExitFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			tasks := mkTasks(len(c.codes))
			w := &lineWriter{}
			exec := func(ctx context.Context, tk Task) Result { return outcome(c.codes[tk.Index])(ctx, tk) }
			sum, err := Run(context.Background(), Options{Concurrency: 2, Output: w}, tasks, exec)
			if err != nil {
				t.Fatal(err)
			}
			if sum.ExitCode != c.exit {
				t.Errorf("exit %d, want %d", sum.ExitCode, c.exit)
			}
			res := w.results(t)
			if len(res) != len(tasks) {
				t.Fatalf("%d results", len(res))
			}
			for _, tk := range tasks {
				r := res[tk.ID]
				if r.Type != "r" || string(r.Metadata) != string(tk.Metadata) || r.ExitCode != c.codes[tk.Index] || r.SessionID == "" || r.PermissionDenials == nil {
					t.Errorf("result %+v", r)
				}
				if failed := r.ExitCode == ExitFailed; r.IsError != failed || (r.Error != "") != failed {
					t.Errorf("%s: is_error %v, error %q", tk.ID, r.IsError, r.Error)
				}
			}
		})
	}
}

// At most Concurrency tasks run at once, and that many do: the first
// Concurrency tasks wait for each other.
func TestRunConcurrencyLimit(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		var inflight, peak atomic.Int64
		full := make(chan struct{})
		var once sync.Once
		exec := func(ctx context.Context, tk Task) Result {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if n == int64(limit) {
				once.Do(func() { close(full) })
			}
			select {
			case <-full:
			case <-time.After(hangGuard):
				t.Errorf("limit %d: never reached %d tasks in flight", limit, limit)
			}
			return Result{}
		}
		sum, err := Run(context.Background(), Options{Concurrency: limit, Output: &lineWriter{}}, mkTasks(40), exec)
		if err != nil || sum.OK != 40 {
			t.Fatalf("%+v %v", sum, err)
		}
		if peak.Load() != int64(limit) {
			t.Errorf("limit %d: peak in flight %d", limit, peak.Load())
		}
	}
}

func TestRunFailFast(t *testing.T) {
	tasks := mkTasks(6)
	var ran []string
	exec := func(ctx context.Context, tk Task) Result {
		ran = append(ran, tk.ID) // concurrency 1: no race
		if tk.ID == "t2" {
			return Result{ExitCode: ExitFailed, Result: "boom"}
		}
		return Result{}
	}
	w := &lineWriter{}
	sum, err := Run(context.Background(), Options{Concurrency: 1, FailFast: true, Output: w}, tasks, exec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "t0,t1,t2" || sum.NotStarted != 3 || sum.Failed != 1 || sum.ExitCode != ExitFailed {
		t.Errorf("ran %v, summary %+v", ran, sum)
	}
	if len(w.results(t)) != 3 {
		t.Errorf("lines %q", w.lines)
	}
	// Without --fail-fast every task runs.
	ran = nil
	sum, _ = Run(context.Background(), Options{Concurrency: 1, Output: &lineWriter{}}, tasks, exec)
	if len(ran) != 6 || sum.NotStarted != 0 {
		t.Errorf("ran %v", ran)
	}
}

// Cancelling the batch starts no further task, cancels the running ones
// and still writes their (interrupted) result lines.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int64
	exec := func(ctx context.Context, tk Task) Result {
		if started.Add(1) == 2 {
			cancel()
		}
		select {
		case <-ctx.Done():
			return Result{ExitCode: ExitFailed, Result: ctx.Err().Error()}
		case <-time.After(hangGuard):
			t.Error("task not cancelled")
			return Result{}
		}
	}
	w := &lineWriter{}
	sum, err := Run(ctx, Options{Concurrency: 2, Output: w}, mkTasks(10), exec)
	if err != nil {
		t.Fatal(err)
	}
	res := w.results(t)
	if len(res) != 2 || sum.Interrupted != 2 || sum.NotStarted != 8 || sum.ExitCode != ExitFailed {
		t.Fatalf("results %v, summary %+v", res, sum)
	}
	for _, r := range res {
		if !r.Interrupted || r.ExitCode != ExitFailed || r.Error != "context canceled" {
			t.Errorf("%+v", r)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, os.ErrClosed
	}
	f.n--
	return len(p), nil
}

// A result that cannot be written stops the batch: no task runs whose
// result would be lost.
func TestRunWriteError(t *testing.T) {
	var ran atomic.Int64
	exec := func(ctx context.Context, tk Task) Result { ran.Add(1); return Result{} }
	sum, err := Run(context.Background(), Options{Concurrency: 1, Output: &failWriter{n: 2}}, mkTasks(5), exec)
	if err == nil || !strings.Contains(err.Error(), "writing the result of task t2") || ran.Load() != 3 || sum.NotStarted != 2 {
		t.Errorf("err %v, ran %d, summary %+v", err, ran.Load(), sum)
	}
	// The task whose line was lost is counted: the counts add up.
	if sum.OK != 2 || sum.Failed != 1 || sum.Unrecorded != 1 || sum.OK+sum.Denied+sum.Failed+sum.NotStarted != sum.Tasks || sum.ExitCode != ExitFailed {
		t.Errorf("summary %+v: want t2 failed and unrecorded, counts adding up to %d", sum, sum.Tasks)
	}
	var b bytes.Buffer
	sum.WriteText(&b)
	if want := "5 tasks: 2 ok, 0 denied, 1 failed (1 with no result line), 2 not started"; !strings.Contains(b.String(), want) {
		t.Errorf("summary text %q lacks %q", b.String(), want)
	}
}

func TestProgress(t *testing.T) {
	exec := func(ctx context.Context, tk Task) Result { return outcome([]int{0, 3, 1}[tk.Index])(ctx, tk) }
	var b bytes.Buffer
	Run(context.Background(), Options{Concurrency: 1, Output: &lineWriter{}, Progress: &Progress{W: &b}}, mkTasks(3), exec)
	want := regexp.MustCompile(`^\[1/3\] t0 r ok \d+\.\ds\n\[2/3\] t1 r denied \d+\.\ds\n\[3/3\] t2 r failed \d+\.\ds\n$`)
	if !want.MatchString(b.String()) {
		t.Errorf("progress %q, want %v", b.String(), want)
	}
	b.Reset()
	p := &Progress{W: &b, Terminal: true}
	Run(context.Background(), Options{Concurrency: 1, Output: &lineWriter{}, Progress: p}, mkTasks(3), exec)
	p.Close()
	out := b.String()
	for _, s := range []string{"ok 1  denied 1  failed 1", "3/3", "[2/3] t1 r denied", "[3/3] t2 r failed", "\r\x1b[K"} {
		if !strings.Contains(out, s) {
			t.Errorf("terminal progress %q lacks %q", out, s)
		}
	}
	if strings.Contains(out, "t0 r ok") || !strings.HasSuffix(out, "\n") {
		t.Errorf("terminal progress %q: ok tasks show only in the bar; the bar's line ends", out)
	}
}

func TestSummary(t *testing.T) {
	rc := &recorder{total: 20}
	for i := range 20 {
		r := &Result{ID: fmt.Sprint(i), DurationMS: int64(100 - i*5)}
		switch {
		case i < 3:
			r.ExitCode = ExitDenied
			r.PermissionDenials = []Denial{{Reason: "b"}, {Reason: "a"}}
		case i == 3:
			r.ExitCode = ExitDenied
			r.PermissionDenials = []Denial{{Reason: "c"}, {Reason: "a"}}
		}
		rc.out = &lineWriter{}
		if err := rc.add(r); err != nil {
			t.Fatal(err)
		}
	}
	s := rc.summary(0, 1500*time.Millisecond)
	// Durations 5..100: nearest-rank p50 is the 10th (50), p95 the 19th (95).
	if s.P50MS != 50 || s.P95MS != 95 || s.OK != 16 || s.Denied != 4 || s.ExitCode != ExitDenied || s.TotalMS != 1500 {
		t.Errorf("%+v", s)
	}
	want := []ReasonCount{{"a", 4}, {"b", 3}, {"c", 1}}
	if fmt.Sprint(s.TopDenials) != fmt.Sprint(want) {
		t.Errorf("top denials %v, want %v", s.TopDenials, want)
	}
	var b bytes.Buffer
	s.Skipped = 2
	s.WriteText(&b)
	for _, w := range []string{"20 tasks: 16 ok, 4 denied, 0 failed", "2 skipped", "total 1.5s, task p50 0.1s, p95 0.1s", "    4  a\n"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("summary text %q lacks %q", b.String(), w)
		}
	}
	path := filepath.Join(t.TempDir(), "sum.json")
	if err := s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	var back Summary
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &back); err != nil || back.P95MS != 95 || back.Skipped != 2 || len(back.TopDenials) != 3 {
		t.Errorf("%s: %+v %v", data, back, err)
	}
}

func TestPercentile(t *testing.T) {
	for _, c := range []struct {
		v    []int64
		p    int
		want int64
	}{{nil, 50, 0}, {[]int64{7}, 95, 7}, {[]int64{1, 2}, 50, 1}, {[]int64{1, 2, 3, 4}, 95, 4}, {[]int64{1, 2, 3, 4}, 50, 2}} {
		if got := percentile(c.v, c.p); got != c.want {
			t.Errorf("percentile(%v, %d) = %d, want %d", c.v, c.p, got, c.want)
		}
	}
}

func TestResume(t *testing.T) {
	dir := t.TempDir()
	if done, err := Resume(filepath.Join(dir, "none.jsonl")); err != nil || len(done) != 0 {
		t.Fatalf("missing file: %v %v", done, err)
	}
	path := filepath.Join(dir, "out.jsonl")
	whole := `{"id":"a","exit_code":0}` + "\n" + `{"id":"b","exit_code":1,"interrupted":true}` + "\n" + `{"id":"c","exit_code":1}` + "\n"
	os.WriteFile(path, []byte(whole+`{"id":"d","exit_co`), 0o600)
	done, err := Resume(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || !done["a"] || !done["c"] {
		t.Errorf("done = %v", done)
	}
	// The partial line and the interrupted task's line are gone; the
	// rest is kept, and the file's mode too.
	data, _ := os.ReadFile(path)
	if string(data) != `{"id":"a","exit_code":0}`+"\n"+`{"id":"c","exit_code":1}`+"\n" {
		t.Errorf("file now %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	// A whole line that is no result is an error, and the file is left.
	bad := whole + "garbage\n"
	os.WriteFile(path, []byte(bad), 0o644)
	if _, err := Resume(path); err == nil || !strings.Contains(err.Error(), "out.jsonl:4: not a result line") {
		t.Errorf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Errorf("file changed to %q", data)
	}
}

func TestCache(t *testing.T) {
	var c Cache[int]
	var loads atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			key := fmt.Sprint(i % 3)
			v, err := c.Get(key, func() (int, error) { loads.Add(1); return i % 3, nil })
			if err != nil || fmt.Sprint(v) != key {
				t.Errorf("%s: %d %v", key, v, err)
			}
		})
	}
	wg.Wait()
	if loads.Load() != 3 || c.Len() != 3 {
		t.Errorf("%d loads, %d keys", loads.Load(), c.Len())
	}
	// Errors are cached too.
	_, err1 := c.Get("bad", func() (int, error) { return 0, os.ErrNotExist })
	_, err2 := c.Get("bad", func() (int, error) { return 1, nil })
	if err1 == nil || err2 != err1 {
		t.Errorf("%v %v", err1, err2)
	}
}

// Two batches never write one result file: the second is refused while
// the first has it open, also after the first's --resume replaced the
// file, and what the first writes lands in the file the path names.
func TestOutputLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	f, _, err := OpenOutput(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, resume := range []bool{false, true} {
		if _, _, err := OpenOutput(path, resume); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "out.jsonl") {
			t.Errorf("second batch (resume %v): %v, want ErrBusy", resume, err)
		}
	}
	f.Close()

	// An interrupted task's line makes Resume replace the file.
	os.WriteFile(path, []byte(`{"id":"a","exit_code":0}`+"\n"+`{"id":"b","exit_code":1,"interrupted":true}`+"\n"), 0o644)
	f, done, err := OpenOutput(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(done) != 1 || !done["a"] {
		t.Errorf("done = %v", done)
	}
	if _, _, err := OpenOutput(path, true); !errors.Is(err, ErrBusy) {
		t.Errorf("second batch after a rewrite: %v, want ErrBusy", err)
	}
	// Any number of batches may write what is not a regular file.
	for range 2 {
		null, _, err := OpenOutput(os.DevNull, false)
		if err != nil {
			t.Fatalf("%s: %v", os.DevNull, err)
		}
		defer null.Close()
	}
	if _, err := f.WriteString(`{"id":"b","exit_code":0}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"id":"a","exit_code":0}`+"\n"+`{"id":"b","exit_code":0}`+"\n" {
		t.Errorf("file now %q", data)
	}
}
