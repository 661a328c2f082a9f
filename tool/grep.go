package tool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gen-run/gen/internal/textfile"
)

const (
	defaultGrepResults = 200
	maxGrepResults     = 1000
	// maxGrepLine is how much of one line Grep matches against: files of
	// any size are searched as a stream, line by line, but a longer line
	// (minified or data files) is searched only in its first maxGrepLine
	// bytes, and the result says so.
	maxGrepLine = 1 << 20
)

type grepTool struct{ env *Env }

func (grepTool) Name() string { return "Grep" }

// errEnough stops the walk once the result cap is exceeded.
var errEnough = errors.New("enough matches")

// Run is RunResponse without the response.
func (t grepTool) Run(ctx context.Context, call Call) (string, error) {
	text, _, err := t.RunResponse(ctx, call)
	return text, err
}

// RunResponse searches file contents with an RE2 regexp, walking from path
// (a file or directory) through its os.Root in lexical order, so output is
// deterministic. The response is a GrepResponse.
func (t grepTool) RunResponse(ctx context.Context, call Call) (string, any, error) {
	in := call.Input
	const name = "Grep"
	env := t.env
	pattern, err := requiredString(name, in, "pattern")
	if err != nil {
		return "", nil, err
	}
	ci, err := boolArg(name, in, "case_insensitive")
	if err != nil {
		return "", nil, err
	}
	expr := pattern
	if ci {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", nil, fmt.Errorf("%s: invalid regexp (Go RE2 syntax): %w", name, err)
	}
	glob, _, err := stringArg(name, in, "glob")
	if err != nil {
		return "", nil, err
	}
	glob = filepath.ToSlash(glob)
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return "", nil, fmt.Errorf("%s: invalid glob %q (unbalanced [ ] or { }, or a trailing \\)", name, glob)
	}
	limit, ok, err := intArg(name, in, "max_results")
	if err != nil {
		return "", nil, err
	}
	if !ok {
		limit = defaultGrepResults
	} else if limit < 1 || limit > maxGrepResults {
		return "", nil, fmt.Errorf("%s: max_results must be between 1 and %d, got %d", name, maxGrepResults, limit)
	}
	start, ok, err := stringArg(name, in, "path")
	if err != nil {
		return "", nil, err
	}
	if !ok || start == "" {
		start = env.Workspace.Cwd
	}
	startAbs, err := env.abs(name, start)
	if err != nil {
		return "", nil, err
	}
	root, rel, err := env.openRoot(name, startAbs)
	if err != nil {
		return "", nil, err
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if err != nil {
		return "", nil, env.describe(name, startAbs, err)
	}

	s := &search{env: env, root: root, re: re, glob: glob, limit: int(limit), files: []string{}}
	wctx, stop := context.WithTimeout(ctx, searchBudget)
	defer stop()
	if !fi.IsDir() {
		// A file named explicitly is searched even if ignore rules or
		// the glob would have skipped it in a walk.
		err = s.file(wctx, rel, startAbs)
	} else {
		err = s.walk(wctx, rel, startAbs)
	}
	if err != nil && !errors.Is(err, errEnough) {
		switch {
		case ctx.Err() != nil:
			return "", nil, fmt.Errorf("%s: %w", name, ctx.Err())
		case wctx.Err() != nil:
			s.cut = true // what the search found by then is the answer
		case !fi.IsDir():
			return "", nil, err
		default:
			return "", nil, fmt.Errorf("%s: %s: %w", name, env.display(startAbs), err)
		}
	}
	text := s.result()
	resp := GrepResponse{Mode: "content", Filenames: s.files, NumFiles: len(s.files),
		Content: strings.Join(s.lines, "\n"), NumLines: len(s.lines), Output: text}
	if s.truncated {
		resp.AppliedLimit = s.limit
	}
	return text, resp, nil
}

// search is one Grep run's state.
type search struct {
	env   *Env
	root  *os.Root
	re    *regexp.Regexp
	glob  string
	limit int

	// lines are the matching lines, "path:line:text", and files the
	// files they are in, in the order found.
	lines     []string
	files     []string
	truncated bool
	longLines int  // lines cut to maxGrepLine
	cut       bool // searchBudget ran out
}

// walk searches every eligible file below dir, which is rel in the root
// and dirAbs on disk.
func (s *search) walk(ctx context.Context, rel, dirAbs string) error {
	fsys := s.root.FS()
	if rel != "." {
		var err error
		if fsys, err = fs.Sub(fsys, filepath.ToSlash(rel)); err != nil {
			return err
		}
	}
	ign := s.ignore(rel, dirAbs)
	dirName := filepath.Base(dirAbs)
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable entry below the start is skipped
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if skipped(dirName, p, true) || ign.match(p, true) {
				return fs.SkipDir
			}
			return nil
		}
		// Symbolic links are not followed (a link would either repeat a
		// file or lead outside the walk); devices and FIFOs are not text.
		if !d.Type().IsRegular() || ign.match(p, false) {
			return nil
		}
		if s.glob != "" && !matchGlob(s.glob, p) {
			return nil
		}
		abs := filepath.Join(dirAbs, filepath.FromSlash(p))
		if s.env.CanRead != nil && !s.env.CanRead("Grep", abs) {
			return nil
		}
		return s.file(ctx, path.Join(filepath.ToSlash(rel), p), abs)
	})
}

// file searches one file, rel in the root, as a stream, so a file of any
// size is searched whole (a cancelled ctx stops it). Files that are not
// regular or look binary are skipped without error.
func (s *search) file(ctx context.Context, rel, abs string) error {
	if s.env.CanRead != nil && !s.env.CanRead("Grep", abs) {
		return nil
	}
	f, _, err := openRegular(s.root, rel)
	if err != nil {
		if errors.Is(err, errNotRegular) || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return s.env.describe("Grep", abs, err)
	}
	defer f.Close()
	// The file opened is what its descriptor names: a symbolic link
	// swapped in between the check and the open (a link at the file or a
	// directory above it, inside the root) is judged as what it reached.
	// One whose path cannot be read back is skipped.
	if got, known, err := openedPath(f); err != nil || known && got != abs && s.env.CanRead != nil && !s.env.CanRead("Grep", got) {
		return nil
	}
	br := bufio.NewReaderSize(ctxReader{ctx, f}, 64<<10)
	head, err := br.Peek(binarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return s.env.describe("Grep", abs, err)
	}
	if isBinary(head) {
		return nil
	}
	shown := s.env.display(abs)
	for n := 1; ; n++ {
		line, cut, err := readLineCap(br, maxGrepLine)
		if err != nil && !errors.Is(err, io.EOF) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.env.describe("Grep", abs, err)
		}
		if line == nil {
			return nil
		}
		if cut {
			s.longLines++
		}
		if s.re.Match(line) {
			if len(s.lines) == s.limit {
				s.truncated = true
				return errEnough
			}
			if len(s.files) == 0 || s.files[len(s.files)-1] != shown {
				s.files = append(s.files, shown)
			}
			s.lines = append(s.lines, fmt.Sprintf("%s:%d:%s", shown, n, truncateLine(string(line))))
		}
		if err != nil {
			return nil
		}
	}
}

// result is the text the model is given: the matching lines and notes.
func (s *search) result() string {
	var out strings.Builder
	for _, l := range s.lines {
		out.WriteString(l)
		out.WriteByte('\n')
	}
	if len(s.lines) == 0 {
		out.WriteString("no matches\n")
	}
	if s.truncated {
		fmt.Fprintf(&out, "(truncated after %d matches: narrow the pattern, path or glob, or raise max_results)\n", len(s.lines))
	}
	if s.cut {
		out.WriteString(cutShort(searchBudget))
	}
	switch s.longLines {
	case 0:
	case 1:
		fmt.Fprintf(&out, "(1 line longer than %d MiB was searched only in its first %d MiB)\n", maxGrepLine>>20, maxGrepLine>>20)
	default:
		fmt.Fprintf(&out, "(%d lines longer than %d MiB were searched only in their first %d MiB)\n", s.longLines, maxGrepLine>>20, maxGrepLine>>20)
	}
	return out.String()
}

// ignore is the subset of a .gitignore that Grep honours: the file at the
// walk's starting directory only, without negation.
type ignore []ignoreRule

type ignoreRule struct {
	pattern string
	dirOnly bool // written with a trailing slash
	// anchored patterns contain a slash and match the path from the walk
	// root; others match any single path element.
	anchored bool
}

// ignore returns the rules of the .gitignore in the walk's start
// directory (rel in the root, dirAbs on disk) if Grep may read that file
// (Env.CanRead), by its name and as the file its descriptor names: the
// lines of a file Grep may not show (a .gitignore that links to a
// Read-denied .env, or that of a denied directory reached through a link)
// decided which files it skipped, which told what they hold.
func (s *search) ignore(rel, dirAbs string) ignore {
	abs := filepath.Join(dirAbs, ".gitignore")
	can := s.env.CanRead
	if can != nil && !can("Grep", abs) {
		return nil
	}
	return loadIgnore(s.root, filepath.Join(rel, ".gitignore"), func(f *os.File) bool {
		got, known, err := openedPath(f)
		return err == nil && (!known || got == abs || can == nil || can("Grep", got))
	})
}

// loadIgnore reads the .gitignore at name in root, if the file opened
// passes readable. A missing or unreadable file means no rules, and so
// does one that is not a regular file: a named pipe there, which any
// command could make, was waited on forever, and Grep never returned
// (openRegular opens without blocking, and checks the file it opened). Negated (!) lines are dropped:
// honouring them needs git's full precedence rules, and without them Grep
// only searches less.
func loadIgnore(root *os.Root, name string, readable func(*os.File) bool) ignore {
	// Checked before it is opened too, so a device is not opened at all.
	if fi, err := root.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, _, err := openRegular(root, name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if !readable(f) {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, textfile.Max+1))
	if err != nil || len(data) > textfile.Max {
		return nil
	}
	var ign ignore
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, " \t\r\n")
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		r := ignoreRule{}
		if p, ok := strings.CutSuffix(line, "/"); ok {
			line, r.dirOnly = p, true
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		if line == "" || !doublestar.ValidatePattern(line) {
			continue
		}
		r.pattern = line
		ign = append(ign, r)
	}
	return ign
}

// match reports whether the slash-separated path p (relative to the walk
// root) is ignored. Directories are matched as the walk reaches them, so a
// file below an ignored directory is never asked about.
func (ign ignore) match(p string, isDir bool) bool {
	for _, r := range ign {
		if r.dirOnly && !isDir {
			continue
		}
		target := p
		if !r.anchored {
			target = path.Base(p)
		}
		if doublestar.MatchUnvalidated(r.pattern, target) {
			return true
		}
	}
	return false
}
