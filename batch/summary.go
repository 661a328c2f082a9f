package batch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gen-run/gen/internal/atomicfile"
)

// Summary is what a batch run did. Its JSON shape (--summary FILE) is an
// interface CI jobs rely on.
type Summary struct {
	// Tasks is how many tasks this run was given (after sharding and
	// --resume); OK + Denied + Failed + NotStarted = Tasks.
	Tasks  int `json:"tasks"`
	OK     int `json:"ok"`
	Denied int `json:"denied"`
	Failed int `json:"failed"`
	// Interrupted counts the failed tasks cancelled with the batch.
	Interrupted int `json:"interrupted"`
	// Unrecorded counts the failed tasks that ran but whose result line
	// could not be written (a full disk, a closed pipe).
	Unrecorded int `json:"unrecorded"`
	// NotStarted counts tasks never started: after --fail-fast tripped,
	// a cancellation, or a failure to write results.
	NotStarted int `json:"not_started"`
	// Skipped counts tasks --resume found done; the caller sets it.
	Skipped int `json:"skipped"`
	// TotalMS is the batch's wall time; P50MS and P95MS are task times
	// (nearest rank).
	TotalMS int64 `json:"total_ms"`
	P50MS   int64 `json:"p50_ms"`
	P95MS   int64 `json:"p95_ms"`
	// TopDenials are the most frequent denial reasons, most frequent first.
	TopDenials []ReasonCount `json:"top_denials"`
	// ExitCode is the batch's: ExitFailed when any task failed or did not
	// start, else ExitDenied when any had a denial, else ExitOK.
	ExitCode int `json:"exit_code"`
	// TotalCostUSD is what the recorded tasks' model turns cost, when
	// every one of them was priced (Result.TotalCostUSD).
	TotalCostUSD *float64 `json:"total_cost_usd,omitempty"`
}

// ReasonCount is how many denials gave one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// topReasons is how many denial reasons a summary lists.
const topReasons = 5

func (rc *recorder) summary(notStarted int, total time.Duration) Summary {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := Summary{
		Tasks: rc.total, OK: rc.ok, Denied: rc.denied, Failed: rc.failed,
		Interrupted: rc.interrupted, Unrecorded: rc.unrecorded, NotStarted: notStarted,
		TotalMS:    total.Milliseconds(),
		TopDenials: []ReasonCount{},
	}
	if rc.unpriced == 0 && len(rc.durations) > 0 { // a duration per recorded task
		c := rc.cost
		s.TotalCostUSD = &c
	}
	d := slices.Clone(rc.durations)
	slices.Sort(d)
	s.P50MS, s.P95MS = percentile(d, 50), percentile(d, 95)
	for r, n := range rc.reasons {
		s.TopDenials = append(s.TopDenials, ReasonCount{r, n})
	}
	slices.SortFunc(s.TopDenials, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Reason, b.Reason))
	})
	if len(s.TopDenials) > topReasons {
		s.TopDenials = s.TopDenials[:topReasons]
	}
	switch {
	case s.Failed > 0 || s.NotStarted > 0:
		s.ExitCode = ExitFailed
	case s.Denied > 0:
		s.ExitCode = ExitDenied
	}
	return s
}

// percentile returns the nearest-rank p-th percentile of sorted values
// (0 for none).
func percentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	return sorted[max(rank, 1)-1]
}

// WriteText writes the summary for people (stderr).
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "gen batch: %d tasks: %d ok, %d denied, %d failed", s.Tasks, s.OK, s.Denied, s.Failed)
	switch {
	case s.Interrupted > 0 && s.Unrecorded > 0:
		fmt.Fprintf(w, " (%d interrupted, %d with no result line)", s.Interrupted, s.Unrecorded)
	case s.Interrupted > 0:
		fmt.Fprintf(w, " (%d interrupted)", s.Interrupted)
	case s.Unrecorded > 0:
		fmt.Fprintf(w, " (%d with no result line)", s.Unrecorded)
	}
	if s.NotStarted > 0 {
		fmt.Fprintf(w, ", %d not started", s.NotStarted)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, "; %d skipped as done (--resume)", s.Skipped)
	}
	fmt.Fprintf(w, "\ngen batch: total %s, task p50 %s, p95 %s", secs(s.TotalMS), secs(s.P50MS), secs(s.P95MS))
	if s.TotalCostUSD != nil {
		fmt.Fprintf(w, ", cost $%.4f", *s.TotalCostUSD)
	}
	fmt.Fprintln(w)
	if len(s.TopDenials) > 0 {
		fmt.Fprintln(w, "gen batch: top denial reasons:")
		for _, r := range s.TopDenials {
			fmt.Fprintf(w, "  %5d  %s\n", r.Count, r.Reason)
		}
	}
}

// WriteFile writes the summary as JSON to path, atomically.
func (s *Summary) WriteFile(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	return nil
}

// secs formats milliseconds as seconds with one decimal: "0.4s".
func secs(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) }
