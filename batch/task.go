// Package batch runs many agent tasks in one process: it reads a JSONL
// task file, validates every line before anything runs, selects a shard,
// runs the tasks with bounded concurrency and writes one JSONL result line
// per task as it ends, so a killed batch can be resumed.
//
// The package does not know how a task is run: Run takes the per-task
// runner (an Exec) as a dependency. The cli package supplies one that runs
// the task's agent headless, like `gen agent run`.
package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gen-run/gen/perm"
)

// Task is one line of a task file.
type Task struct {
	// ID, Type and Prompt are required and non-empty. IDs are unique
	// within a file.
	ID, Type, Prompt string
	// Cwd is the task's working directory, absolute: the line's cwd
	// resolved against the task file's directory, or the base directory
	// Parse was given when the line has none.
	Cwd string
	// Model names the model ("" = the command's --model, else the agent's).
	Model string
	// MaxTurns is positive, or 0 when the line does not set it.
	MaxTurns int
	// Mode narrows the agent's permission mode; "" when not set.
	Mode perm.Mode
	// Metadata is the line's metadata verbatim (nil when absent); it is
	// copied to the result.
	Metadata json.RawMessage
	// Line is the 1-based line of the file the task came from; Index is
	// its zero-based position among the file's tasks (what shards split).
	Line, Index int
}

// MaxLine bounds one line of a task file.
const MaxLine = 4 << 20

// LineError is a problem with one line of a task file.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseError lists every invalid line of a task file, in file order.
type ParseError struct{ Lines []*LineError }

func (e *ParseError) Error() string {
	msgs := make([]string, len(e.Lines))
	for i, l := range e.Lines {
		msgs[i] = l.Error()
	}
	return strings.Join(msgs, "\n")
}

// Parse reads a task file: JSONL, one task object per line. name is what
// errors call the file; base is the absolute directory relative cwd
// fields resolve against (the file's directory, or the process's working
// directory for standard input).
//
// Every line is checked before Parse returns, and a file with any invalid
// line yields no tasks and a *ParseError naming each bad line (file:line),
// so nothing runs. A line is invalid when it is not one JSON object, has
// an unknown or repeated key (keys are case-sensitive), a value of the
// wrong type, a missing or empty id, type or prompt, an id already used, a
// max_turns that is not a positive integer, or a permission_mode that
// names no mode. Blank lines (only white space) are skipped and are not
// tasks; they do not shift task indexes. Whether the type names an agent
// is not checked: agents differ per cwd, so an unknown one fails its task.
func Parse(r io.Reader, name, base string) ([]Task, error) {
	br := bufio.NewReader(r)
	var (
		tasks []Task
		bad   []*LineError
		seen  = map[string]int{}
	)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, errLong) {
			bad = append(bad, &LineError{name, n, fmt.Sprintf("line longer than %d bytes", MaxLine)})
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			t, perr := parseLine(line, base)
			if perr == nil {
				if first, dup := seen[t.ID]; dup {
					perr = fmt.Errorf("duplicate id %q (first on line %d)", t.ID, first)
				}
			}
			if perr != nil {
				bad = append(bad, &LineError{name, n, perr.Error()})
			} else {
				seen[t.ID] = n
				t.Line, t.Index = n, len(tasks)
				tasks = append(tasks, t)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if len(bad) > 0 {
		return nil, &ParseError{bad}
	}
	return tasks, nil
}

var errLong = errors.New("line too long")

// readLine returns the next line without its newline. A line longer than
// MaxLine is consumed and reported as errLong. At the end of the input it
// returns what is left with io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine+1 {
			line = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

// parseLine decodes one task object key by key, so that unknown, repeated
// and differently-cased keys are errors (encoding/json would accept them).
func parseLine(line []byte, base string) (Task, error) {
	var t Task
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return t, errors.New("not a JSON object")
	}
	keys := map[string]bool{}
	var maxTurns json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return t, malformed(err)
		}
		key := tok.(string) // object keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return t, malformed(err)
		}
		if keys[key] {
			return t, fmt.Errorf("key %q appears twice", key)
		}
		keys[key] = true
		switch key {
		case "id":
			err = str(raw, &t.ID)
		case "type":
			err = str(raw, &t.Type)
		case "prompt":
			err = str(raw, &t.Prompt)
		case "cwd":
			err = str(raw, &t.Cwd)
		case "model":
			err = str(raw, &t.Model)
		case "permission_mode":
			var s string
			if err = str(raw, &s); err == nil {
				t.Mode, err = perm.ParseMode(s)
				if s == "" {
					err = errors.New("must name a mode")
				}
			}
		case "max_turns":
			maxTurns = raw
		case "metadata":
			t.Metadata = raw
		default:
			return t, fmt.Errorf("unknown key %q (want id, type, prompt, cwd, model, max_turns, permission_mode, metadata)", key)
		}
		if err != nil {
			return t, fmt.Errorf("%s: %w", key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return t, malformed(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return t, errors.New("more than one JSON value on the line")
	}
	if maxTurns != nil {
		if err := json.Unmarshal(maxTurns, &t.MaxTurns); err != nil || t.MaxTurns <= 0 {
			return t, fmt.Errorf("max_turns: must be a positive integer, not %s", shorten(maxTurns))
		}
	}
	for _, f := range []struct{ key, v string }{{"id", t.ID}, {"type", t.Type}, {"prompt", t.Prompt}} {
		if !keys[f.key] {
			return t, fmt.Errorf("missing %s", f.key)
		}
		if strings.TrimSpace(f.v) == "" {
			return t, fmt.Errorf("%s: must not be empty", f.key)
		}
	}
	switch {
	case !keys["cwd"]:
		t.Cwd = base
	case t.Cwd == "":
		return t, errors.New("cwd: must not be empty")
	case !filepath.IsAbs(t.Cwd):
		t.Cwd = filepath.Join(base, t.Cwd)
	default:
		t.Cwd = filepath.Clean(t.Cwd)
	}
	return t, nil
}

// malformed describes a JSON syntax error.
func malformed(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("malformed JSON: the line ends inside the object")
	}
	return fmt.Errorf("malformed JSON: %w", err)
}

// str decodes a JSON string; null and other types are errors.
func str(raw json.RawMessage, dst *string) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, dst) != nil {
		return fmt.Errorf("must be a string, not %s", shorten(raw))
	}
	return nil
}

// shorten cuts a JSON value for an error message.
func shorten(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}
