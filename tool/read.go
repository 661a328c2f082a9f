package tool

import (
	"bufio"
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

// Run prints a window of lines numbered like cat -n, and records the
// file's state (see fileState) as the baseline that Write and Edit check
// the file against.
func (t readTool) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "Read"
	p, err := requiredString(name, in, "file_path")
	if err != nil {
		return "", err
	}
	offset, hasOffset, err := intArg(name, in, "offset")
	if err != nil {
		return "", err
	}
	if !hasOffset {
		offset = 1
	} else if offset < 1 {
		return "", fmt.Errorf("%s: offset must be at least 1 (lines are numbered from 1), got %d", name, offset)
	}
	limit, hasLimit, err := intArg(name, in, "limit")
	if err != nil {
		return "", err
	}
	if !hasLimit {
		limit = defaultReadLimit
	} else if limit < 1 {
		return "", fmt.Errorf("%s: limit must be at least 1, got %d", name, limit)
	}

	env := t.env
	abs, err := env.checkedAbs(call.Decision, name, p)
	if err != nil {
		return "", err
	}
	root, rel, err := env.openRoot(name, abs)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, fi, err := openRegular(root, rel)
	if err != nil {
		return "", env.describe(name, abs, err)
	}
	defer f.Close()
	if err := openedChecked(call.Decision, name, f); err != nil {
		return "", err
	}
	if fi.Size() > maxWholeRead && !hasOffset && !hasLimit {
		return "", fmt.Errorf("%s: %s is %d bytes, over the 256 KiB whole-file limit: read it in windows with offset and limit (for example offset 1, limit 500), or use Grep to find the part you need",
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
		return "", env.describe(name, abs, err)
	}
	if isBinary(head) {
		return "", fmt.Errorf("%s: %s is a binary file (it contains NUL bytes); Read only shows text", name, env.display(abs))
	}

	var out strings.Builder
	n := int64(0) // lines read so far
	printed := int64(0)
	more := false
	for {
		line, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", env.describe(name, abs, err)
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
			fmt.Fprintf(&out, "%6d\t%s\n", n, truncateLine(string(line)))
			printed++
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if st.size <= hashLimit {
		// Hash the rest of the file so the baseline covers all of it.
		if _, err := io.Copy(io.Discard, br); err != nil {
			return "", env.describe(name, abs, err)
		}
		st.hashed = true
		h.Sum(st.sum[:0])
	}
	env.remember(abs, st)

	switch {
	case n == 0:
		return "(file is empty)\n", nil
	case printed == 0:
		return fmt.Sprintf("(offset %d is past the end of the file: it has %d lines)\n", offset, n), nil
	case more:
		next := offset + printed
		fmt.Fprintf(&out, "(file continues after line %d: read on with offset %d)\n", next-1, next)
	}
	return out.String(), nil
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
