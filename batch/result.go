package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gen-run/gen/internal/atomicfile"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/report"
)

// Per-task exit codes: those of `gen agent run` (report.Run.ExitCode).
const (
	ExitOK     = report.ExitOK
	ExitFailed = report.ExitFailed
	ExitDenied = report.ExitDenied
)

// Denial is one permission denial: the object `gen agent run
// --output-format json` lists in permission_denials (report.DenialJSON,
// the one definition of its shape).
type Denial = report.DenialJSON

// Result is one line of the result file. Its JSON shape is an interface
// CI jobs rely on.
type Result struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// ExitCode is ExitOK, ExitFailed or ExitDenied, as for `gen agent run`.
	ExitCode int  `json:"exit_code"`
	IsError  bool `json:"is_error"`
	// Result is the final answer, or the error message when the task
	// failed (as in the json output format).
	Result string `json:"result"`
	// Error is why the task failed; empty on success.
	Error string `json:"error,omitempty"`
	// Interrupted marks a task cancelled with the whole batch (SIGINT,
	// SIGTERM): --resume runs it again.
	Interrupted       bool         `json:"interrupted,omitempty"`
	NumTurns          int          `json:"num_turns"`
	DurationMS        int64        `json:"duration_ms"`
	Usage             report.Usage `json:"usage"`
	SessionID         string       `json:"session_id"`
	PermissionDenials []Denial     `json:"permission_denials"`
	// TotalCostUSD is what the task's model turns cost (package cost);
	// left out when its model has no price.
	TotalCostUSD *float64 `json:"total_cost_usd,omitempty"`
}

// Status is how a finished task is counted: "ok", "denied" or "failed".
func (r *Result) Status() string {
	switch r.ExitCode {
	case ExitOK:
		return "ok"
	case ExitDenied:
		return "denied"
	}
	return "failed"
}

// Resume prepares the result file path for --resume and returns the ids
// that already have a result there, which are not run again. A missing
// file has none.
//
// Every complete line (one ending in a newline) must be a JSON object with
// a string id, else Resume returns an error naming file:line and changes
// nothing: results are not thrown away on a guess. A trailing partial line
// (a crash in the middle of a write, which a single write per line makes
// unlikely but not impossible on every file system) and the lines of
// interrupted tasks are dropped, by replacing the file atomically with the
// lines that are kept; the dropped tasks run again.
func Resume(path string) (map[string]bool, error) {
	data, err := readResults(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	done := map[string]bool{}
	var keep []byte
	dropped := false
	for n, rest := 1, data; len(rest) > 0; n++ {
		line, after, complete := bytes.Cut(rest, []byte("\n"))
		rest = after
		if !complete {
			dropped = true // a partial last line
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			keep = append(keep, '\n')
			continue
		}
		var r struct {
			ID          *string `json:"id"`
			Interrupted bool    `json:"interrupted"`
		}
		if err := json.Unmarshal(line, &r); err != nil || r.ID == nil {
			return nil, fmt.Errorf("--resume: %s:%d: not a result line (want a JSON object with an id)", path, n)
		}
		if r.Interrupted {
			dropped = true
			continue
		}
		done[*r.ID] = true
		keep = append(append(keep, line...), '\n')
	}
	if dropped {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("--resume: %w", err)
		}
		if err := atomicfile.WriteFile(path, keep, fi.Mode().Perm()); err != nil {
			return nil, fmt.Errorf("--resume: rewriting %s: %w", path, err)
		}
	}
	return done, nil
}

// readResults reads the result file at path, which must be a regular
// file (textfile.Open): --output /dev/stdout into a pipe, or a named pipe,
// was read for the results it held until the pipe's end, which never came
// (gen holds its write end), and one on a terminal read the keyboard.
func readResults(path string) ([]byte, error) {
	f, err := textfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
