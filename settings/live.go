package settings

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Live is the settings of one Options as their files say now, for a
// running session: before each decision, Current stats every scope's file
// and loads them all again when one appeared, disappeared or changed
// (size, modification time, mode, or identity: a file replaced by rename
// is another file). So a deny rule another session, an editor or an
// administrator adds to any scope takes effect at the next call.
//
// A reload that fails (a file now malformed) fails closed: Current
// returns the error, naming the file, until the files change again; it
// never falls back to the settings loaded before. Live is safe for
// concurrent use.
type Live struct {
	opts  Options
	paths []string // every scope's file, existing or not

	mu     sync.Mutex
	stamps []stamp // of paths, taken before the last load
	set    *Settings
	err    error
}

// Watch loads the settings for opts (as Load does, with its errors) and
// follows their files from then on.
func Watch(opts Options) (*Live, error) {
	loc, err := locate(opts)
	if err != nil {
		return nil, err
	}
	l := &Live{opts: opts}
	for _, sc := range loc.scopes {
		l.paths = append(l.paths, sc.path)
	}
	l.stamps = l.stat()
	if l.set, err = loadAt(opts, loc); err != nil {
		return nil, err
	}
	return l, nil
}

// Current returns the settings in force now, reloading them first if a
// settings file changed since the last load. On error the settings are
// nil: every decision must then be a denial.
func (l *Live) Current() (*Settings, error) {
	now := l.stat()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !sameStamps(now, l.stamps) {
		l.load(now)
	}
	return l.set, l.err
}

// Reload loads the settings again whether or not a file looks changed
// (after gen itself wrote one), and returns them as Current does.
func (l *Live) Reload() (*Settings, error) {
	now := l.stat()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.load(now)
	return l.set, l.err
}

// load loads the settings; stamps were taken before, so a change made
// during the load is seen by the next Current.
func (l *Live) load(stamps []stamp) {
	l.stamps = stamps
	set, err := Load(l.opts)
	if err != nil {
		l.set, l.err = nil, fmt.Errorf("settings changed and cannot be loaded (every call is denied until this is fixed): %w", err)
		return
	}
	l.set, l.err = set, nil
}

// stamp is what stat says about one settings file; fi is nil when there
// is no file (or it cannot be stat'ed: Load then says why).
type stamp struct {
	fi  fs.FileInfo
	err string
	// racy is set when the file was modified so shortly before the stat
	// that another write could follow with the same modification time
	// (file systems keep it in coarse ticks) and the same size: such a
	// stamp never counts as unchanged.
	racy bool
}

// racyWindow is how recent a modification makes a stamp racy: far more
// than any file system's timestamp tick.
const racyWindow = 2 * time.Second

func (l *Live) stat() []stamp {
	out := make([]stamp, len(l.paths))
	for i, p := range l.paths {
		fi, err := os.Stat(p)
		if err != nil {
			out[i].err = err.Error()
			continue
		}
		out[i].fi = fi
		out[i].racy = time.Since(fi.ModTime()) < racyWindow
	}
	return out
}

func sameStamps(a, b []stamp) bool {
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x.fi == nil || y.fi == nil:
			if x.fi != y.fi || x.err != y.err {
				return false
			}
		case y.racy, !os.SameFile(x.fi, y.fi), !x.fi.ModTime().Equal(y.fi.ModTime()),
			x.fi.Size() != y.fi.Size(), x.fi.Mode() != y.fi.Mode():
			return false
		}
	}
	return len(a) == len(b)
}
