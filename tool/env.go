package tool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
	"github.com/gen-run/gen/workspace"
)

// Env is what the file tools share in one run. Must not be nil. Its exported
// fields must not change once a tool built from it has run.
type Env struct {
	Workspace perm.Workspace
	// CanRead reports whether the gate lets tool (Glob or Grep) show the
	// file at path, found while walking; they skip (silently) files it
	// refuses, so a Read(...) or Grep(...) deny also hides files from
	// directory-wide searches. nil = everything readable.
	CanRead func(tool, path string) bool
	// Confine returns what Bash's kernel sandbox enforces besides a
	// decision's profile, from the policy in force when the command
	// starts. nil = the default settings and nothing hidden.
	Confine func() Confinement
	// Warn receives warnings, such as running without a sandbox; nil
	// drops them.
	Warn func(string)

	// writeMu serialises Write and Edit, so that two concurrent edits of
	// one file cannot both pass the freshness check and lose one change.
	writeMu sync.Mutex

	mu sync.Mutex
	// seen holds, by absolute clean path, each file as this run last read
	// or wrote it: the write-safety baseline.
	seen map[string]fileState
}

// NewEnv returns an Env for ws with no file read yet.
func NewEnv(ws perm.Workspace) *Env {
	return &Env{Workspace: ws, seen: make(map[string]fileState)}
}

// fileTools returns the built-in file and shell tools: Read, Glob, Grep,
// Write, Edit and Bash.
func fileTools(env *Env) []Tool {
	return []Tool{
		readTool{env},
		globTool{env},
		grepTool{env},
		writeTool{env},
		editTool{env},
		bashTool{env},
	}
}

// Toolbox is what the built-in tools of one run share. Tools is the one
// place a run's tools are assembled: the main loop and subagents alike.
type Toolbox struct {
	// Env is the file tools' shared state. Required.
	Env *Env
	// Policy returns the policy in force: the gate's, with the rules
	// added during the run (gate.Gate.Effective). Glob and Grep hide every file
	// they find that Policy would not let them show (perm.FileAllowed),
	// so a Read deny also hides files from directory-wide searches.
	// Required: without it every walked file is hidden.
	Policy func() perm.Policy
	// Gate decides the redirects WebFetch follows; nil refuses them all.
	Gate Gate
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
	// Tasks is the list the Task tools edit; nil means a fresh one.
	Tasks *TaskList
	// Asker answers AskUserQuestion; nil makes the tool an error result.
	Asker Asker
}

// Confinement is what Bash's kernel sandbox enforces besides a decision's
// profile: the sandbox settings in force (perm.Policy.Sandbox), and the
// paths of the policy's Read deny rules (Hidden) and of its Edit and
// Write deny rules (Protected, perm.Policy.DeniedPaths), which it hides
// and keeps read-only behind the gate, and the files of the programs its
// Bash deny rules deny outright (Programs, perm.Policy.DeniedPrograms),
// which it hides too. Dirs are the workspace's additional directories in
// the policy (perm.Policy.Workspace.Dirs), which commands may write as the
// gate takes them to: the policy's as it is when the command starts, not
// the Env's (added with /add-dir, or taken out of the settings, since).
type Confinement struct {
	Settings                    sandbox.Settings
	Hidden, Protected, Programs []string
	Dirs                        []string
}

// Tools returns every built-in tool but Agent (package subagent), unguarded:
// they run only through a Set. It sets b.Env.CanRead and b.Env.Confine.
func (b Toolbox) Tools() []Tool {
	b.Env.CanRead = walkFilter(b.Policy)
	if b.Policy != nil {
		b.Env.Confine = func() Confinement {
			p := b.Policy()
			c := Confinement{Settings: p.Sandbox}
			c.Hidden, c.Protected = p.DeniedPaths()
			c.Programs = p.DeniedPrograms(os.Getenv("PATH"))
			c.Dirs = p.Workspace.Dirs
			return c
		}
	}
	tasks := b.Tasks
	if tasks == nil {
		tasks = &TaskList{}
	}
	ts := fileTools(b.Env)
	ts = append(ts,
		NewWebFetch(b.Gate, b.HTTPClient),
		NewWebSearch(b.SearchURL, b.HTTPClient),
		NewNotebookEdit(b.Env),
	)
	ts = append(ts, NewTaskTools(tasks)...)
	return append(ts, NewAskUserQuestion(b.Asker))
}

// walkFilter is the CanRead of a run under policy.
func walkFilter(policy func() perm.Policy) func(tool, path string) bool {
	if policy == nil {
		return func(string, string) bool { return false }
	}
	return func(tool, path string) bool {
		p := policy()
		return perm.FileAllowed(tool, path, &p)
	}
}

// fileState identifies one version of a file: its size, modification and
// change times, device and inode, and for files of at most hashLimit bytes
// a hash of the content. The change time (which no user-level call can set
// back) and the inode catch rewrites that keep the size and restore the
// modification time, and replacements by rename; the hash also covers
// file systems with coarse timestamps where that is cheap. Big files are
// never hashed, so reading a window of a huge file costs the window.
type fileState struct {
	size   int64
	mtime  time.Time
	ctime  time.Time // zero where the system does not report it
	dev    uint64
	ino    uint64
	hashed bool
	sum    [sha256.Size]byte
}

// hashLimit is the largest file whose content is part of its fileState.
const hashLimit = 8 << 20

// stateOf is the fileState of a file with information fi, without the
// hash.
func stateOf(fi fs.FileInfo) fileState {
	st := fileState{size: fi.Size(), mtime: fi.ModTime()}
	st.ctime, st.dev, st.ino = changeID(fi)
	return st
}

func (s fileState) equal(o fileState) bool {
	return s.size == o.size && s.mtime.Equal(o.mtime) && s.ctime.Equal(o.ctime) &&
		s.dev == o.dev && s.ino == o.ino && s.hashed == o.hashed && s.sum == o.sum
}

func (e *Env) remember(abs string, st fileState) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.seen == nil {
		e.seen = make(map[string]fileState)
	}
	e.seen[abs] = st
}

// checkFresh reports an error unless abs was read (or written) in this run
// and cur is still the state it had then.
func (e *Env) checkFresh(tool, abs string, cur fileState) error {
	e.mu.Lock()
	prev, ok := e.seen[abs]
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: %s exists and has not been read in this session: read the file first", tool, e.display(abs))
	}
	if !prev.equal(cur) {
		return fmt.Errorf("%s: %s: file changed since it was read; read it again", tool, e.display(abs))
	}
	return nil
}

// abs returns p as an absolute clean path the way the permission gate
// reads it: "~" and "~/x" are in the home directory, other relative paths
// are taken against the working directory. The tool must touch the very
// path the gate checked.
func (e *Env) abs(tool, p string) (string, error) {
	switch {
	case p == "":
		return "", fmt.Errorf("%s: empty path", tool)
	case workspace.HomeRelative(p) && !filepath.IsAbs(e.Workspace.Home):
		return "", fmt.Errorf("%s: path %q is in the home directory, which is not known", tool, p)
	case !filepath.IsAbs(p) && !workspace.HomeRelative(p) && !filepath.IsAbs(e.Workspace.Cwd):
		return "", fmt.Errorf("%s: working directory %q is not an absolute path", tool, e.Workspace.Cwd)
	}
	// One definition of what a path names, shared with the gate.
	return e.Workspace.Abs(p), nil
}

// checkedAbs is what a file tool calls first: the absolute path p names,
// once verify has confirmed it still resolves to the file the gate
// checked.
func (e *Env) checkedAbs(d Decision, tool, p string) (string, error) {
	abs, err := e.abs(tool, p)
	if err != nil {
		return "", err
	}
	if err := e.verify(d, tool, p); err != nil {
		return "", err
	}
	return abs, nil
}

// verify refuses a file call whose path no longer resolves to the file
// the gate checked: a symlink swapped in while the gate decided (or while
// a person was deciding) must not redirect the call. Calls the gate did
// not resolve a path for pass.
func (e *Env) verify(d Decision, tool, p string) error {
	want := d.Path
	if want == "" {
		return nil
	}
	if _, real := perm.Resolve(e.Workspace, p); real != want {
		return fmt.Errorf("%s: %s now resolves to %s, not to %s that the permission check allowed (a symbolic link changed); nothing was done", tool, p, real, want)
	}
	return nil
}

// openedChecked closes the last gap verify leaves for reads: the file
// actually opened (what its descriptor names) must be the checked one, so
// no swap between the re-check and the open goes unnoticed. Where /proc is
// not available it relies on verify alone.
func openedChecked(d Decision, tool string, f *os.File) error {
	want := d.Path
	if want == "" {
		return nil
	}
	got, known, err := openedPath(f)
	if err != nil {
		return fmt.Errorf("%s: cannot tell which file was opened for %s (%v); nothing was read", tool, want, err)
	}
	if !known || got == want {
		return nil
	}
	return fmt.Errorf("%s: opened %s, not %s that the permission check allowed (a symbolic link changed); nothing was read", tool, got, want)
}

// openedPath is the path f's descriptor names (/proc/self/fd). known is
// false where the system has no /proc (the callers then rely on the
// check before the open); where it has one, a descriptor whose path
// cannot be read back (longer than PATH_MAX, which the gate does not
// follow links in) is an error, never a pass.
func openedPath(f *os.File) (got string, known bool, err error) {
	got, err = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err == nil {
		return got, true, nil
	}
	if _, serr := os.Stat("/proc/self/fd"); serr != nil {
		return "", false, nil
	}
	return "", true, err
}

// display returns abs relative to the working directory when it is inside
// it, else abs itself.
func (e *Env) display(abs string) string {
	if rel, ok := within(e.Workspace.Cwd, abs); ok {
		return rel
	}
	return abs
}

// within reports whether abs is dir or below it, and abs relative to dir.
func within(dir, abs string) (string, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return "", false
	}
	dir = filepath.Clean(dir)
	if abs == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rest, ok := strings.CutPrefix(abs, prefix)
	return rest, ok
}

// openRoot opens the os.Root every access to abs goes through, and returns
// it with abs relative to it. The root is the most specific workspace
// directory (Cwd, Root or one of Dirs) containing abs; a path outside the
// workspace, which the gate has approved on its own, gets a root at its
// parent directory. os.Root refuses symbolic links that leave the root, so
// a link swapped in after the gate's check fails instead of escaping. The
// caller must close the root.
func (e *Env) openRoot(tool, abs string) (*os.Root, string, error) {
	best, rel := "", ""
	for _, d := range e.workspaceDirs() {
		if r, ok := within(d, abs); ok && len(d) > len(best) {
			best, rel = filepath.Clean(d), r
		}
	}
	if best == "" {
		best, rel = filepath.Dir(abs), filepath.Base(abs)
		if best == abs { // the file system root itself
			rel = "."
		}
	}
	root, err := os.OpenRoot(best)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %s: %w", tool, e.display(abs), err)
	}
	return root, rel, nil
}

func (e *Env) workspaceDirs() []string {
	ws := e.Workspace
	return append([]string{ws.Cwd, ws.Root}, ws.Dirs...)
}

// openRegular opens name in root for reading and checks that it is a
// regular file, and not one whose reads may wait (textfile.Waits: a
// kernel pseudo-file such as /proc/kmsg). O_NONBLOCK keeps a FIFO swapped
// in for the file from blocking the open until a writer appears.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, fi, errIsDir
		}
		return nil, fi, errNotRegular
	}
	if textfile.Waits(f) {
		// /proc/kmsg: Read drained the kernel log, then waited for the
		// next message forever, past cancellation.
		f.Close()
		return nil, fi, errWaits
	}
	return f, fi, nil
}

var (
	errIsDir      = errors.New("is a directory")
	errNotRegular = errors.New("is not a regular file")
	// errWaits is errNotRegular for a file that textfile.Waits (a type
	// of its own: the package allocates nothing at init).
	errWaits error = waitsError{}
)

type waitsError struct{}

func (waitsError) Error() string {
	return "is not a regular file but a kernel file whose reads may wait for data"
}

func (waitsError) Is(target error) bool { return target == errNotRegular }

// describe turns an error opening abs into a message for the model.
func (e *Env) describe(tool, abs string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %s does not exist", tool, e.display(abs))
	case errors.Is(err, errIsDir):
		return fmt.Errorf("%s: %s is a directory, not a file", tool, e.display(abs))
	}
	return fmt.Errorf("%s: %s: %w", tool, e.display(abs), err)
}

// ctxReader fails reads once ctx is done, so a long read can be cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// isBinary reports whether head, a file's first bytes, holds a NUL.
func isBinary(head []byte) bool {
	if len(head) > binarySniff {
		head = head[:binarySniff]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// binarySniff is how much of a file is searched for a NUL byte.
const binarySniff = 8 << 10

// truncateLine cuts s to maxLineRunes runes, marking the cut.
func truncateLine(s string) string {
	n := 0
	for i := range s {
		if n == maxLineRunes {
			return s[:i] + " … [line truncated]"
		}
		n++
	}
	return s
}

// maxLineRunes is the longest line Read and Grep print in full.
const maxLineRunes = 2000
