package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gen-run/gen/transcript"
)

// Exec runs one task and reports how it went. It must honour ctx
// (return promptly once it is cancelled) and be safe for concurrent use.
// Run fills in the result's id, type, metadata and duration itself, and a
// session id when Exec leaves it empty.
type Exec func(ctx context.Context, t Task) Result

// Options configure Run.
type Options struct {
	// Concurrency bounds the tasks running at once; 0 or less means
	// runtime.NumCPU().
	Concurrency int
	// FailFast stops starting tasks after the first failed one (denials
	// are not failures). Tasks already running finish.
	FailFast bool
	// Output receives one JSON result line per finished task, each in a
	// single Write call of the complete line, as the task ends. It must
	// not be nil.
	Output io.Writer
	// Progress, if not nil, receives the progress display.
	Progress *Progress
}

// Run runs tasks, at most Concurrency at a time, in order of starting
// (they finish in any order), and returns the summary.
//
// When ctx is cancelled no further task starts; running tasks see the
// cancellation through their context, and Run waits for them and writes
// their result lines (marked interrupted) before it returns. The error is
// the first failure to write a result line; no task starts after one.
func Run(ctx context.Context, opts Options, tasks []Task, exec Exec) (Summary, error) {
	n := opts.Concurrency
	if n <= 0 {
		n = runtime.NumCPU()
	}
	start := time.Now()
	rec := &recorder{out: opts.Output, progress: opts.Progress, total: len(tasks)}
	var (
		g       errgroup.Group
		stop    atomic.Bool // fail-fast tripped or a write failed
		started atomic.Int64
	)
	g.SetLimit(n)
	for _, t := range tasks {
		if ctx.Err() != nil || stop.Load() {
			break
		}
		g.Go(func() error {
			// Checked again: waiting for a slot may have taken a while.
			if ctx.Err() != nil || stop.Load() {
				return nil
			}
			started.Add(1)
			r := runOne(ctx, t, exec)
			if err := rec.add(&r); err != nil {
				stop.Store(true)
			}
			if opts.FailFast && r.ExitCode == ExitFailed {
				stop.Store(true)
			}
			return nil
		})
	}
	g.Wait()
	s := rec.summary(len(tasks)-int(started.Load()), time.Since(start))
	return s, rec.err
}

// runOne runs t and completes its result.
func runOne(ctx context.Context, t Task, exec Exec) Result {
	began := time.Now()
	r := exec(ctx, t)
	r.ID, r.Type, r.Metadata = t.ID, t.Type, t.Metadata
	r.DurationMS = time.Since(began).Milliseconds()
	if r.SessionID == "" {
		// A task that did not start a run (it failed first) still has
		// a session ID, of the same form as those of runs.
		r.SessionID = transcript.NewID()
	}
	if r.PermissionDenials == nil {
		r.PermissionDenials = []Denial{}
	}
	if r.ExitCode == ExitFailed {
		r.IsError = true
		if r.Error == "" {
			r.Error = r.Result
		}
		r.Interrupted = ctx.Err() != nil
	}
	return r
}

// recorder writes result lines and keeps what the summary needs: counts,
// durations and denial reasons, not whole results, so memory grows by a
// few bytes per task.
type recorder struct {
	mu       sync.Mutex
	out      io.Writer
	progress *Progress
	total    int
	err      error // the first write error

	ok, denied, failed, interrupted int
	// unrecorded counts the tasks that ran but whose result line could
	// not be written: failed, to the summary.
	unrecorded int
	durations  []int64
	// reasons counts denials by reason, for at most maxReasons distinct
	// reasons; the rest are counted in otherReasons.
	reasons      map[string]int
	otherReasons int
	// cost sums the tasks' total_cost_usd; unpriced counts the recorded
	// tasks without one, which make the sum no total.
	cost     float64
	unpriced int
}

// maxReasons bounds the distinct denial reasons a summary tracks.
const maxReasons = 1000

func (rc *recorder) add(r *Result) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding the result of task %s: %w", r.ID, err)
	}
	line = append(line, '\n')
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.err == nil {
		if _, err := rc.out.Write(line); err != nil {
			rc.err = fmt.Errorf("writing the result of task %s: %w", r.ID, err)
		}
	}
	if rc.err != nil {
		// The task ran, but what it did is lost: it counts as failed
		// (--resume runs it again), so that the summary's counts still
		// add up to the tasks.
		rc.failed++
		rc.unrecorded++
		return rc.err
	}
	if r.TotalCostUSD != nil {
		rc.cost += *r.TotalCostUSD
	} else {
		rc.unpriced++
	}
	switch r.Status() {
	case "ok":
		rc.ok++
	case "denied":
		rc.denied++
	default:
		rc.failed++
	}
	if r.Interrupted {
		rc.interrupted++
	}
	rc.durations = append(rc.durations, r.DurationMS)
	for _, d := range r.PermissionDenials {
		if rc.reasons == nil {
			rc.reasons = map[string]int{}
		}
		if _, ok := rc.reasons[d.Reason]; ok || len(rc.reasons) < maxReasons {
			rc.reasons[d.Reason]++
		} else {
			rc.otherReasons++
		}
	}
	if rc.progress != nil {
		rc.progress.finished(r, rc.ok+rc.denied+rc.failed, rc.total, rc.ok, rc.denied, rc.failed)
	}
	return nil
}
