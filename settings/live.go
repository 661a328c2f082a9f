package settings

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"
)

// Live is the settings of one Options as their files say now, for a
// running session: before each decision, Current stats every scope's file
// and loads them all again when one appeared, disappeared or changed
// (size, modification time, mode, or identity: a file replaced by rename
// is another file). So a deny rule another session, an editor or an
// administrator adds to any scope takes effect at the next call. It
// follows the files a trust entry for the project covers too (a hook
// script, .mcp.json, an agent), so a project whose hook script a `git
// pull` changed is untrusted at the next call, as at the next start.
//
// A reload that fails (a file now malformed) fails closed: Current
// returns the error, naming the file, until the files change again; it
// never falls back to the settings loaded before. Live is safe for
// concurrent use.
type Live struct {
	opts  Options
	paths []string // every scope's file, existing or not

	mu sync.Mutex
	// trust are the files the last load checked a trust entry against
	// (Settings.trustPaths); stamps are those of paths and then trust.
	trust  []string
	stamps []stamp
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
	l := &Live{opts: opts, paths: followedPaths(loc)}
	stamps := stat(l.paths, nil)
	if l.set, err = loadAt(opts, loc); err != nil {
		return nil, err
	}
	l.follow(stamps)
	return l, nil
}

// followedPaths are the files of loc's scopes, but the --settings scope's,
// which is not followed, and the directories that choose some of them.
func followedPaths(loc location) []string {
	var out []string
	for _, sc := range loc.scopes {
		if sc.data == nil {
			out = append(out, sc.path)
		}
	}
	return append(out, loc.watch...)
}

// Current returns the settings in force now, reloading them first if a
// settings file changed since the last load. On error the settings are
// nil: every decision must then be a denial.
func (l *Live) Current() (*Settings, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := stat(l.paths, l.trust); !sameStamps(now, l.stamps) {
		l.load(now)
	}
	return l.set, l.err
}

// Reload loads the settings again whether or not a file looks changed
// (after gen itself wrote one), and returns them as Current does.
func (l *Live) Reload() (*Settings, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.load(stat(l.paths, l.trust))
	return l.set, l.err
}

// load loads the settings; stamps were taken before, so a change made
// during the load is seen by the next Current.
func (l *Live) load(stamps []stamp) {
	loc, err := locate(l.opts)
	var set *Settings
	if err == nil {
		if paths := followedPaths(loc); !slices.Equal(paths, l.paths) {
			// A drop-in came or went: follow the files there are now,
			// stamped before they are read.
			l.paths, stamps = paths, stat(paths, l.trust)
		}
		set, err = loadAt(l.opts, loc)
	}
	if err != nil {
		l.set, l.err = nil, fmt.Errorf("settings changed and cannot be loaded (every call is denied until this is fixed): %w", err)
		l.stamps = stamps
		return
	}
	l.set, l.err = set, nil
	l.follow(stamps)
}

// follow records stamps, taken before the load of l.set, and follows the
// files l.set's trust was checked against. Where these are not the files
// stamped before the load, theirs are taken now: a change made to one
// during the load has a modification time too recent to count as
// unchanged (stamp.racy), so the next Current still sees it.
func (l *Live) follow(stamps []stamp) {
	if !slices.Equal(l.set.trustPaths, l.trust) || len(stamps) != len(l.paths)+len(l.trust) {
		l.trust = l.set.trustPaths
		stamps = append(stamps[:len(l.paths)], stat(l.trust, nil)...)
	}
	l.stamps = stamps
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
	// ctime is the inode change time (changeTime): a write that sets
	// the modification time back still changes it.
	ctime int64
}

// racyWindow is how recent a modification makes a stamp racy: far more
// than any file system's timestamp tick.
const racyWindow = 2 * time.Second

// stat stamps the files of a and then of b.
func stat(a, b []string) []stamp {
	out := make([]stamp, 0, len(a)+len(b))
	for _, p := range slices.Concat(a, b) {
		var st stamp
		if fi, err := os.Stat(p); err != nil {
			st.err = err.Error()
		} else {
			st.fi, st.racy, st.ctime = fi, time.Since(fi.ModTime()) < racyWindow, changeTime(fi)
		}
		out = append(out, st)
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
			x.fi.Size() != y.fi.Size(), x.fi.Mode() != y.fi.Mode(), x.ctime != y.ctime:
			return false
		}
	}
	return len(a) == len(b)
}
