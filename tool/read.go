package tool

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

const (
	// defaultReadLimit is how many lines Read returns without a limit.
	defaultReadLimit = 2000
	// maxWholeRead is the largest file Read returns without offset or
	// limit; bigger files must be read in windows.
	maxWholeRead = 256 << 10
)

type readTool struct{ env *Env }

func (readTool) Name() string { return "Read" }

// Run is RunResponse without the response.
func (t readTool) Run(ctx context.Context, call Call) (string, error) {
	text, _, err := t.RunResponse(ctx, call)
	return text, err
}

// RunResponse prints a window of lines numbered like cat -n, and records
// the file's state (see fileState) as the baseline that Write and Edit
// check the file against. The response is a ReadResponse.
func (t readTool) RunResponse(ctx context.Context, call Call) (string, any, error) {
	in := call.Input
	const name = "Read"
	p, err := requiredString(name, in, "file_path")
	if err != nil {
		return "", nil, err
	}
	offset, hasOffset, err := intArg(name, in, "offset")
	if err != nil {
		return "", nil, err
	}
	if !hasOffset {
		offset = 1
	} else if offset < 1 {
		return "", nil, fmt.Errorf("%s: offset must be at least 1 (lines are numbered from 1), got %d", name, offset)
	}
	limit, hasLimit, err := intArg(name, in, "limit")
	if err != nil {
		return "", nil, err
	}
	if !hasLimit {
		limit = defaultReadLimit
	} else if limit < 1 {
		return "", nil, fmt.Errorf("%s: limit must be at least 1, got %d", name, limit)
	}

	env := t.env
	abs, err := env.checkedAbs(call.Decision, name, p)
	if err != nil {
		return "", nil, err
	}
	root, rel, err := env.openRoot(name, abs)
	if err != nil {
		return "", nil, err
	}
	defer root.Close()
	f, fi, err := openRegular(root, rel)
	if err != nil {
		return "", nil, env.describe(name, abs, err)
	}
	defer f.Close()
	if err := openedChecked(call.Decision, name, f); err != nil {
		return "", nil, err
	}
	if fi.Size() > maxWholeRead && !hasOffset && !hasLimit {
		return "", nil, fmt.Errorf("%s: %s is %d bytes, over the 256 KiB whole-file limit: read it in windows with offset and limit (for example offset 1, limit 500), or use Grep to find the part you need",
			name, env.display(abs), fi.Size())
	}

	// A file small enough to hash is hashed as it streams past (the
	// window and the rest); a bigger one is read only up to the window.
	st := stateOf(fi)
	h := sha256.New()
	var src io.Reader = ctxReader{ctx, f}
	if st.size <= hashLimit {
		src = io.TeeReader(src, h)
	}
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(binarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", nil, env.describe(name, abs, err)
	}
	if isBinary(head) {
		return "", nil, fmt.Errorf("%s: %s is a binary file (it contains NUL bytes); Read only shows text", name, env.display(abs))
	}

	var out strings.Builder
	var lines []string // the lines printed, for the response
	n := int64(0)      // lines read so far
	printed := int64(0)
	more := false
	for {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", nil, env.describe(name, abs, err)
		}
		if line == nil && errors.Is(err, io.EOF) {
			break
		}
		n++
		if n >= offset {
			// Every window is capped too: a large limit must not
			// return a file of any size in one result.
			if printed == limit || out.Len() >= maxWholeRead {
				more = true
				break
			}
			shown := truncateLine(string(line))
			fmt.Fprintf(&out, "%6d\t%s\n", n, shown)
			lines = append(lines, shown)
			printed++
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	// Read knows how many lines the file has if it reads to its end.
	counted := !more
	if st.size <= hashLimit {
		// Hash the rest of the file so the baseline covers all of it,
		// counting its lines on the way.
		rest := lineCounter{}
		if _, err := io.Copy(&rest, br); err != nil {
			return "", nil, env.describe(name, abs, err)
		}
		st.hashed = true
		h.Sum(st.sum[:0])
		n += rest.lines()
		counted = true
	}
	env.remember(abs, st)

	var text string
	switch {
	case n == 0:
		text = "(file is empty)\n"
	case printed == 0:
		text = fmt.Sprintf("(offset %d is past the end of the file: it has %d lines)\n", offset, n)
	case more:
		next := offset + printed
		fmt.Fprintf(&out, "(file continues after line %d: read on with offset %d)\n", next-1, next)
		fallthrough
	default:
		text = out.String()
	}
	file := ReadFile{FilePath: abs, Content: strings.Join(lines, "\n"), NumLines: len(lines), StartLine: int(offset)}
	if counted {
		total := int(n)
		file.TotalLines = &total
	}
	return text, ReadResponse{Type: "text", File: file, Output: text}, nil
}

// lineCounter counts the lines written to it as readLine splits them: a
// last line without a newline counts too.
type lineCounter struct {
	newlines int64
	partial  bool // bytes written after the last newline
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if len(p) > 0 {
		c.partial = p[len(p)-1] != '\n'
	}
	return len(p), nil
}

func (c *lineCounter) lines() int64 {
	if c.partial {
		return c.newlines + 1
	}
	return c.newlines
}

// readLine returns the next line without its newline, keeping at most
// enough bytes for maxLineRunes runes plus one (so truncateLine can tell it
// was cut) and discarding the rest, so one huge line cannot exhaust memory.
// It returns a nil line with io.EOF at the end of the input, and a non-nil
// line with io.EOF for a last line that has no newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, _, err := readLineCap(br, (maxLineRunes+1)*utf8.UTFMax)
	return line, err
}

// readLineCap is readLine keeping at most keep bytes of the line; cut
// reports that bytes were discarded.
func readLineCap(br *bufio.Reader, keep int) (line []byte, cut bool, err error) {
	line = []byte{}
	got := false
	for {
		frag, err := br.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1]
		}
		got = got || len(frag) > 0
		room := keep - len(line)
		if len(frag) > room {
			cut = true
		}
		if room > 0 {
			line = append(line, frag[:min(room, len(frag))]...)
		}
		switch {
		case err == nil:
			return line, cut, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF) && got:
			return line, cut, io.EOF
		default:
			return nil, false, err
		}
	}
}
