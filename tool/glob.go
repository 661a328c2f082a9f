package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/workspace"
)

// maxGlobResults is how many paths Glob prints.
const maxGlobResults = 1000

// maxGlobCollect bounds the matches one Glob keeps to sort (its memory):
// a walk stops at that many. A variable for tests.
var maxGlobCollect = 100 * maxGlobResults

// globFull stops a Glob walk at maxGlobCollect matches (a type, so that
// nothing is made at init).
type globFull struct{}

func (globFull) Error() string { return "glob: enough matches" }

// searchBudget bounds the walk of one Glob or Grep call: a pattern over
// a whole file system (** from /) or a slow network mount must not hold
// a run, headless or not, for minutes. What the walk found by then is
// the answer, said to be cut short (cutShort). A variable for tests.
var searchBudget = 2 * time.Minute

// cutShort is the line that ends the answer of a walk searchBudget cut
// short.
func cutShort(budget time.Duration) string {
	return fmt.Sprintf("(the search stopped after %s and covers only what it reached: narrow the pattern or the path)\n", budget)
}

// skipDirs are directory names that searches never descend into: version
// control metadata, dependencies and caches, which are large and almost
// never what a search is after. .gen/cache is skipped as well (see skipped).
var skipDirs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		".git":         true,
		".hg":          true,
		".svn":         true,
		"node_modules": true,
		"__pycache__":  true,
		".venv":        true,
	}
}}

// skipped reports whether the slash-separated path p, relative to a search
// directory whose own name is base, lies in a skipped directory. isDir says
// whether p's last element is itself a directory. Only directories reached
// below the search directory count: a search started inside node_modules
// was asked for explicitly.
func skipped(base, p string, isDir bool) bool {
	elems := strings.Split(p, "/")
	if !isDir {
		elems = elems[:len(elems)-1]
	}
	prev := base
	for _, e := range elems {
		if skipDir(e, prev) {
			return true
		}
		prev = e
	}
	return false
}

// skipDir reports whether a directory called name inside one called parent
// is skipped.
func skipDir(name, parent string) bool {
	return skipDirs.Get()[name] || (name == "cache" && parent == ".gen")
}

// prunedFS hides skipped directories from directory listings, so that a
// walk never descends into them. base is the name of the directory fsys is
// rooted at.
type prunedFS struct {
	fs.FS
	base string
}

func (p prunedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(p.FS, name)
	parent := path.Base(name)
	if name == "." {
		parent = p.base
	}
	kept := ents[:0]
	for _, e := range ents {
		if e.IsDir() && skipDir(e.Name(), parent) {
			continue
		}
		kept = append(kept, e)
	}
	return kept, err
}

type globTool struct{ env *Env }

func (globTool) Name() string { return "Glob" }

// Run is RunResponse without the response.
func (t globTool) Run(ctx context.Context, call Call) (string, error) {
	text, _, err := t.RunResponse(ctx, call)
	return text, err
}

// RunResponse lists the regular files matching a doublestar pattern,
// sorted. The static leading part of the pattern picks the directory the
// walk starts in; the walk goes through that directory's os.Root and does
// not follow symbolic links to directories, so it cannot loop or leave the
// root. The response is a GlobResponse.
func (t globTool) RunResponse(ctx context.Context, call Call) (string, any, error) {
	in := call.Input
	const name = "Glob"
	env := t.env
	pattern, err := requiredString(name, in, "pattern")
	if err != nil {
		return "", nil, err
	}
	if pattern == "" {
		return "", nil, fmt.Errorf("%s: empty pattern", name)
	}
	base, ok, err := stringArg(name, in, "path")
	if err != nil {
		return "", nil, err
	}
	if !ok || base == "" {
		base = env.Workspace.Cwd
	}
	baseAbs, err := env.abs(name, base)
	if err != nil {
		return "", nil, err
	}
	if !doublestar.ValidatePattern(filepath.ToSlash(pattern)) {
		return "", nil, fmt.Errorf("%s: invalid pattern %q (unbalanced [ ] or { }, or a trailing \\)", name, pattern)
	}
	// The walk starts where the gate judged it would (workspace.GlobStart).
	staticDir, pat := workspace.GlobStart(pattern, baseAbs)
	dirAbs, err := env.abs(name, staticDir)
	if err != nil {
		return "", nil, err
	}
	root, rel, err := env.openRoot(name, dirAbs)
	if err != nil {
		return "", nil, err
	}
	defer root.Close()
	fsys := root.FS()
	if rel != "." {
		if fsys, err = fs.Sub(fsys, filepath.ToSlash(rel)); err != nil {
			return "", nil, fmt.Errorf("%s: %s: %w", name, env.display(dirAbs), err)
		}
	}

	dirName := filepath.Base(dirAbs)
	began := time.Now()
	type match struct{ shown, abs string }
	var found []match
	wctx, stop := context.WithTimeout(ctx, searchBudget)
	defer stop()
	err = doublestar.GlobWalk(prunedFS{fsys, dirName}, pat, func(p string, d fs.DirEntry) error {
		if err := wctx.Err(); err != nil {
			return err
		}
		// Not fs.SkipDir for directories: for a directory matched by a
		// plain segment GlobWalk would skip its remaining siblings too.
		// prunedFS keeps the walk out of skipped directories instead, and
		// this check catches paths whose skipped directory was named by a
		// literal segment, which GlobWalk stats without listing.
		if d.IsDir() || skipped(dirName, p, false) {
			return nil
		}
		if !d.Type().IsRegular() {
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			// A link to a regular file inside the root counts; one
			// that leaves the root fails to stat and is dropped.
			fi, err := fs.Stat(fsys, p)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		}
		abs := filepath.Join(dirAbs, filepath.FromSlash(p))
		if env.CanRead != nil && !env.CanRead("Glob", abs) {
			return nil
		}
		found = append(found, match{env.display(abs), abs})
		if len(found) == maxGlobCollect {
			return globFull{}
		}
		return nil
	}, doublestar.WithNoFollow())
	full := errors.Is(err, globFull{})
	if full {
		err = nil
	}
	cut := false
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return "", nil, fmt.Errorf("%s: %w", name, ctx.Err())
		case wctx.Err() != nil:
			cut = true // what the walk found by then is the answer
		default:
			return "", nil, fmt.Errorf("%s: %s: %w", name, pattern, err)
		}
	}
	resp := GlobResponse{Filenames: []string{}, DurationMs: time.Since(began).Milliseconds()}
	if len(found) == 0 {
		resp.Output = "no files matched\n"
		if cut {
			resp.Output += cutShort(searchBudget)
			resp.Truncated = true
		}
		return resp.Output, resp, nil
	}
	slices.SortFunc(found, func(a, b match) int { return strings.Compare(a.shown, b.shown) })
	var b strings.Builder
	for _, f := range found[:min(len(found), maxGlobResults)] {
		b.WriteString(f.shown)
		b.WriteByte('\n')
		resp.Filenames = append(resp.Filenames, f.abs)
	}
	if len(found) > maxGlobResults {
		fmt.Fprintf(&b, "(truncated: %d more)\n", len(found)-maxGlobResults)
		resp.Truncated = true
	}
	if cut {
		b.WriteString(cutShort(searchBudget))
		resp.Truncated = true
	}
	if full {
		fmt.Fprintf(&b, "(the search stopped at %d matches and covers only what it reached: narrow the pattern or the path)\n", maxGlobCollect)
		resp.Truncated = true
	}
	resp.NumFiles, resp.Output = len(resp.Filenames), b.String()
	return resp.Output, resp, nil
}

// matchGlob reports whether the slash-separated path p matches the
// user-supplied file filter glob: a glob without a slash is matched against
// the file name alone, as in *.go; one with a slash against the whole path.
func matchGlob(glob, p string) bool {
	if !strings.Contains(glob, "/") {
		return doublestar.MatchUnvalidated(glob, path.Base(p))
	}
	return doublestar.MatchUnvalidated(glob, p)
}
