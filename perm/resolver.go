package perm

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gen-run/gen/internal/gitconfig"
	"github.com/gen-run/gen/workspace"
)

// Resolver caches, across the calls of a batch, what deciding them learns
// from the file system: which paths exist, are directories or symbolic
// links and where the links point, the small files git discovery reads,
// which repository git would use from a directory, what a glob matches,
// and the entries of small directories, from which most names are
// answered without a lookup of their own (listed). It is bounded: it
// holds at most the number of entries it was made with, forgetting its
// least recently used half when full. It is safe for concurrent use:
// decisions that share one are made one at a time (Evaluate).
//
// A cached answer is acceptable for `gen permissions check --batch`
// because a batch only asks what the gate would decide: its calls are
// evaluated, never run, so nothing the batch does changes the file system
// between them. An entry can go stale only if something else changes the
// tree during the batch, and then the decision is the one the gate made
// when the entry was cached, as if that call had come earlier.
//
// The interactive gate must not keep one across calls: there every
// allowed call runs before the next is decided, and a call may swap a
// symbolic link (`ln -sfn /etc link`) that the next one writes through.
// Without a Resolver each decision looks at the file system afresh,
// memoising only within itself.
//
// One lock guards it, held by Evaluate for a whole decision: a decision
// asks it a few dozen questions, each of which took and released the lock
// when it had one of its own. A batch gives each of its workers a
// Resolver of its own, so the lock is never waited for; a shared one
// would also pass its maps' cache lines between the cores, which costs
// more than the paths two workers both look up.
type Resolver struct {
	mu       sync.Mutex
	max      int // entries per generation
	maxBytes int // path and answer text per generation
	// n counts the entries cur holds, and bytes their path and answer
	// text: a generation also ends when it reaches maxBytes, whatever
	// the paths' length.
	n, bytes int
	// cur holds what was used since the last rotation, old what was used
	// in the generation before, a map per question (string keys hash
	// faster than structs); a hit in old moves the entry to cur. When
	// cur is full it becomes old and the previous old is forgotten.
	cur, old [numOps]map[string]fsVal
	// tcur and told are cur and old for the targets of paths relative to
	// a directory (targetIn), by directory: a path is found with one
	// lookup of its short name in its directory's map, not of the whole
	// path in a map of every path. gen counts the rotations, so that a
	// call knows when a directory it holds is no longer in tcur.
	tcur, told map[string]*dirTargets
	gen        int
	// configs are the git configuration files the batch's calls read,
	// parsed (call.gitConfig): at most maxGitConfigs.
	configs map[string]gitConfig
}

// dirTargets holds the targets of the names (or relative paths) a
// Resolver has resolved in one directory, each keyed by the name.
type dirTargets struct {
	kids map[string]fsVal
	// What resolving a path of plain names in the directory (resolveIn)
	// needs of the directory, worked out at the first: whether it is
	// known, and whether the directory is a clean path (such paths are
	// resolved from it only then); its real path, and whether that may
	// hold files (holdsFiles).
	known, clean, holds bool
	real                string
	// facts and realFacts are the dirFacts of the directory and its
	// real path (nameFacts).
	facts, realFacts dirFacts
}

// DefaultResolverEntries is the Resolver size NewResolver uses for 0:
// each entry is one path (about 200 bytes), so a full Resolver holds a
// few megabytes.
const DefaultResolverEntries = 1 << 15

// maxResolverBytes bounds the text one generation of a default Resolver
// holds, so that long paths (a command word may be megabytes) cannot make
// a bounded number of entries large; with two generations a Resolver
// holds at most twice this. minResolverBytes is the least a small one
// may hold. maxCachedPath is the longest path it keeps at all (the
// kernel's PATH_MAX: a longer one names nothing).
const (
	maxResolverBytes = 8 << 20
	minResolverBytes = 64 << 10
	maxCachedPath    = 4096
)

// NewResolver returns an empty Resolver holding at most entries answers
// (DefaultResolverEntries if entries <= 0).
func NewResolver(entries int) *Resolver {
	if entries <= 0 {
		entries = DefaultResolverEntries
	}
	// A Resolver smaller than the default holds less text in
	// proportion, so that the Resolvers of a batch's workers, which
	// split the default's entries, hold no more together than one would.
	r := &Resolver{
		max:      max(entries/2, 1),
		maxBytes: max(maxResolverBytes/DefaultResolverEntries*min(entries, DefaultResolverEntries), minResolverBytes),
	}
	r.rotate()
	return r
}

// rotate makes cur old and starts an empty cur.
func (r *Resolver) rotate() {
	r.old = r.cur
	for op := range r.cur {
		r.cur[op] = make(map[string]fsVal)
	}
	r.told, r.tcur = r.tcur, make(map[string]*dirTargets)
	r.gen++
	r.n, r.bytes = 0, 0
}

// Evaluate is perm.Evaluate with file system answers taken from, and
// added to, r, whose lock it holds throughout. A nil Resolver evaluates
// like perm.Evaluate. Only a batch of what-if decisions may share one
// Resolver (see Resolver).
func (r *Resolver) Evaluate(req Request, p *Policy) Result {
	if r == nil {
		return evaluateWith(req, p, nil)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return evaluateWith(req, p, r)
}

// Len returns the number of answers r holds.
func (r *Resolver) Len() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	for _, m := range r.old {
		n += len(m)
	}
	for _, d := range r.told {
		n += 1 + len(d.kids)
	}
	return n
}

// get returns the answer to k, if r has one. get, put, targetsIn and
// putTarget are called during Evaluate, which holds r.mu.
func (r *Resolver) get(k fsKey) (fsVal, bool) {
	if v, ok := r.cur[k.op][k.path]; ok {
		return v, true
	}
	v, ok := r.old[k.op][k.path]
	if ok {
		k.path, _, _ = own(k.path, "", "")
		r.putLocked(k, v)
	}
	return v, ok
}

// dirTargetsOverhead is what a dirTargets takes besides its text, counted
// against the Resolver's bound on bytes: its map takes a group of eight
// slots at its first name, whatever the names' length.
const dirTargetsOverhead = 640

// targetsIn returns the targets tcur holds of paths in dir, adding an
// empty set (an entry of its own) if it holds none. dir is copied: it
// may be a slice of a command.
func (r *Resolver) targetsIn(dir string) *dirTargets {
	if d := r.tcur[dir]; d != nil {
		return d
	}
	size := len(dir) + dirTargetsOverhead
	if r.n >= r.max || r.bytes+size > r.maxBytes {
		r.rotate()
	}
	// The map starts as large as the directory's last generation's:
	// most of its names are asked again.
	hint := 0
	if o := r.told[dir]; o != nil {
		hint = len(o.kids)
	}
	d := &dirTargets{kids: make(map[string]fsVal, hint)}
	r.tcur[strings.Clone(dir)] = d
	r.n++
	r.bytes += size
	return d
}

// putTarget keeps v as the target of name in dir, whose set in tcur is
// d. What it keeps of their text is its own copy
// (put).
func (r *Resolver) putTarget(d *dirTargets, dir, name string, v fsVal) {
	size := len(name) + len(v.s) + len(v.real)
	if r.n >= r.max || r.bytes+size > r.maxBytes {
		r.rotate()
		d = r.targetsIn(dir)
	}
	name, v.s, v.real = own(name, v.s, v.real)
	n := len(d.kids)
	d.kids[name] = v
	r.n += len(d.kids) - n
	r.bytes += size
}

// put keeps v as the answer to k. What it keeps of their text is its
// own copy (own): a path a call asks about may be a slice of a longer
// string, the whole command it came from, which an answer kept across
// calls would otherwise keep alive, uncounted against maxBytes.
func (r *Resolver) put(k fsKey, v fsVal) {
	k.path, v.s, v.real = own(k.path, v.s, v.real)
	r.putLocked(k, v)
}

// own returns copies of a, b and c made in one allocation; one equal to
// an earlier one shares its copy (a target's path, abs and real are
// often one text).
func own(a, b, c string) (string, string, string) {
	var buf strings.Builder
	buf.Grow(len(a) + len(b) + len(c))
	buf.WriteString(a)
	if b != a {
		buf.WriteString(b)
	}
	if c != a && c != b {
		buf.WriteString(c)
	}
	s := buf.String()
	oa, ob, oc := s[:len(a)], s[:len(a)], s[len(s)-len(c):]
	if b != a {
		ob = s[len(a) : len(a)+len(b)]
	}
	switch c {
	case a:
		oc = oa
	case b:
		oc = ob
	}
	return oa, ob, oc
}

func (r *Resolver) putLocked(k fsKey, v fsVal) {
	size := len(k.path) + len(v.s) + len(v.real)
	if v.names != nil {
		size += v.names.size
	}
	if r.n >= r.max || r.bytes+size > r.maxBytes {
		r.rotate()
	}
	m := r.cur[k.op]
	n := len(m)
	m[k.path] = v
	r.n += len(m) - n
	r.bytes += size
}

// fsOp says which question about a path an fsKey asks.
type fsOp uint8

const (
	opLink     fsOp = iota // lstat: exists; a symbolic link, and its target
	opStat                 // stat (links followed): exists; a directory
	opSmall                // the contents of a small regular file
	opDiscover             // the repositories git may use started in the path
	opReal                 // the path with its links followed (FollowLinks)
	opTarget               // an absolute path's target (abs in s, real in real)
	opGlob                 // filepath.Glob's matches of a pattern
	opList                 // a small directory's entries (listing)
	opAccess               // access(X_OK) succeeds (searchable)
	numOps
)

type fsKey struct {
	op   fsOp
	path string
}

// fsVal is one answer: s is a link's target, a file's contents, the
// repositories git may use (opDiscover: their git directories and roots,
// each followed by a NUL, with why the gate cannot tell in real) or a
// target's abs (with its real in real and its facts in facts,
// targetVal); ok says the path is a link (opLink), the file was read
// (opSmall), exists (opStat), is searchable (opAccess) or the
// repository is not known (opDiscover); exists and dir are lstat's and
// stat's.
type fsVal struct {
	s, real string
	ok      bool
	exists  bool
	dir     bool
	facts   facts
	// names is opList's answer, nil if the directory cannot be listed
	// or is not small (and ok set if it is sure to hold nothing).
	names *listing
}

// ask returns the answer to k: from the call's Resolver if it has one,
// else from the call's memo, else from the file system (by answer).
func (c *call) ask(k fsKey, answer func(string) fsVal) fsVal {
	if c.resolver != nil && len(k.path) <= maxCachedPath {
		v, ok := c.resolver.get(k)
		if !ok {
			v = answer(k.path)
			c.resolver.put(k, v)
		}
		return v
	}
	if v, ok := c.memo[k]; ok {
		return v
	}
	v := answer(k.path)
	if c.memo == nil {
		c.memo = make(map[fsKey]fsVal, 16)
	}
	c.memo[k] = v
	return v
}

// link is the workspace.LinkFunc of the call.
func (c *call) link(p string) (string, bool) {
	v := c.lstat(p)
	return v.s, v.ok
}

// lstat answers opLink for p. A path of PathMax bytes or more names
// nothing, and is not looked up. With a Resolver, a name in a small
// directory is answered from the directory's listing where that is sure
// (listed), with no lstat and no entry of its own.
func (c *call) lstat(p string) fsVal {
	if len(p) >= workspace.PathMax {
		return fsVal{} // it names nothing
	}
	if c.resolver != nil {
		if v, ok := c.listed(p); ok {
			return v
		}
	}
	return c.ask(fsKey{opLink, p}, func(p string) fsVal {
		fi, err := os.Lstat(p)
		if err != nil {
			return fsVal{}
		}
		v := fsVal{exists: true, dir: fi.IsDir()}
		if fi.Mode()&os.ModeSymlink != 0 {
			v.s, v.ok = osReadlink(p)
		}
		return v
	})
}

// maxListed bounds the entries of the directories a Resolver lists: a
// name in a larger one is looked up on its own.
const maxListed = 1024

// listedOverhead is what a listing's map spends on a name besides its
// bytes, counted against the Resolver's bound on bytes.
const listedOverhead = 48

// listing is what a Resolver keeps of a small directory's entries: each
// name's kind, for the names lstat may answer from it.
type listing struct {
	// kinds maps each entry's name to what it is; links are not in it
	// (lstat reads them).
	kinds map[string]entryKind
	// folded holds the lower-cased names of the entries with upper-case
	// letters: a name that matches an entry only ignoring case may be that
	// entry on a case-insensitive file system, and is looked up on its own.
	folded map[string]struct{}
	size   int // the memory the names take, for the Resolver's bound
}

type entryKind uint8

const (
	entryFile entryKind = iota + 1 // not a directory, not a link
	entryDir
	entryLink
)

// listed answers opLink for p from its directory's listing, and true, if
// the listing makes the answer sure: p's last element is a plain ASCII
// name, the directory was listed whole and holds only ASCII names, and the
// name is not a link and differs, ignoring case, from every name that is
// not itself (a case-insensitive file system would find that entry). A
// directory its own parent's listing shows missing, or a file, holds
// nothing, and is not opened.
func (c *call) listed(p string) (fsVal, bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 || i == len(p)-1 {
		return fsVal{}, false
	}
	dir, name := p[:i], p[i+1:]
	if dir == "" {
		dir = "/"
	}
	if name == "." || name == ".." || !isASCII(name) {
		return fsVal{}, false
	}
	lv := c.ask(fsKey{opList, dir}, func(dir string) fsVal {
		if dir != "/" {
			if pv, ok := c.listed(dir); ok && !pv.dir {
				return fsVal{ok: true} // nothing is under what is missing or a file
			}
		}
		return listDir(dir)
	})
	if lv.ok {
		return fsVal{}, true
	}
	l := lv.names
	if l == nil {
		return fsVal{}, false
	}
	switch l.kinds[name] {
	case entryFile:
		return fsVal{exists: true}, true
	case entryDir:
		return fsVal{exists: true, dir: true}, true
	case entryLink:
		return fsVal{}, false
	}
	lower := foldCase(name)
	if lower != name {
		if _, ok := l.kinds[lower]; ok {
			return fsVal{}, false
		}
	}
	if _, ok := l.folded[lower]; ok {
		return fsVal{}, false
	}
	return fsVal{}, true // no entry has the name
}

// listDir answers opList for dir: its entries if it can be read, is on a
// file system whose listings are whole (openListing), holds at most
// maxListed entries and all have ASCII names; names nil otherwise.
func listDir(dir string) fsVal {
	f, ok := openListing(dir)
	if !ok {
		return fsVal{}
	}
	defer f.Close()
	ents, err := f.ReadDir(maxListed + 1)
	if err == io.EOF {
		err = nil // empty
	}
	if err != nil || len(ents) > maxListed {
		return fsVal{}
	}
	if more, _ := f.ReadDir(1); len(more) > 0 {
		return fsVal{}
	}
	l := &listing{kinds: make(map[string]entryKind, len(ents))}
	for _, e := range ents {
		name := e.Name()
		if !isASCII(name) {
			return fsVal{}
		}
		k := entryFile
		switch t := e.Type(); {
		case t&os.ModeSymlink != 0:
			k = entryLink
		case t.IsDir():
			k = entryDir
		}
		l.kinds[name] = k
		l.size += len(name) + listedOverhead
		if folded := foldCase(name); folded != name {
			if l.folded == nil {
				l.folded = make(map[string]struct{})
			}
			l.folded[folded] = struct{}{}
			l.size += len(name) + listedOverhead
		}
	}
	return fsVal{names: l}
}

func osReadlink(p string) (string, bool) {
	if workspace.ForeignProc(p) {
		// Followed in another mount namespace: taken for a file, so the
		// path keeps its /proc form (and is not judged, pathPart).
		return "", false
	}
	dest, err := os.Readlink(p)
	return dest, err == nil
}

// stat answers opStat for p: whether it exists with links followed, and
// is a directory.
func (c *call) stat(p string) (exists, dir bool) {
	v := c.ask(fsKey{opStat, p}, func(p string) fsVal {
		fi, err := os.Stat(p)
		if err != nil {
			return fsVal{}
		}
		return fsVal{exists: true, dir: fi.IsDir()}
	})
	return v.exists, v.dir
}

// maxSmall bounds the files readSmall reads (a .git file, commondir).
const maxSmall = 64 << 10

// readSmall returns the contents of the regular file p; ok is false if it
// cannot be read, is not a regular file (a FIFO would block) or is larger
// than maxSmall.
func (c *call) readSmall(p string) (string, bool) {
	v := c.ask(fsKey{opSmall, p}, func(p string) fsVal {
		b, err := readRegular(p, maxSmall)
		if err != nil {
			return fsVal{}
		}
		return fsVal{s: string(b), ok: true}
	})
	return v.s, v.ok
}

// errUnbounded is readRegular's refusal of a file it could not read to
// the end within its limit.
var errUnbounded = errors.New("larger than the limit, or not a regular file")

// errIsDir is readRegular's refusal of a directory.
var errIsDir = errors.New("is a directory")

// readRegular reads the regular file p, refusing a directory (errIsDir)
// and one larger than limit or that is not a regular file (errUnbounded):
// a FIFO or /dev/zero would never end.
func readRegular(p string, limit int64) ([]byte, error) {
	f, err := openRead(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errIsDir
	}
	if !fi.Mode().IsRegular() {
		return nil, errUnbounded
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errUnbounded
	}
	return b, nil
}

// realPath resolves the links of the path p (workspace.FollowLinks)
// through the call's answers; a Resolver keeps whole resolutions too.
func (c *call) realPath(p string) string {
	if c.resolver == nil {
		return workspace.FollowLinksWith(p, c.link)
	}
	return c.ask(fsKey{opReal, p}, func(p string) fsVal {
		return fsVal{s: workspace.FollowLinksWith(p, c.link)}
	}).s
}

// lexists reports whether p names a file (a link, dangling or not, counts).
func (c *call) lexists(p string) bool { return c.lstat(p).exists }

// gitRepo is a repository git may use: its git directory, and the top of
// its work tree ("" for a bare one).
type gitRepo struct{ gitDir, root string }

// discoverRepos returns every repository git may use when started in dir
// (setup_git_directory_gently in git's setup.c): walking up from dir with
// its links followed, as git does from its working directory, a .git file
// names the repository (git stops there, with an error if the file or
// what it names is not one); a .git directory, or the directory itself
// (bare), that git takes for a repository (repoState) ends the walk. A
// directory git may or may not take for one — a .git directory that is
// not a whole repository, a directory that is partly one (repoState) — is
// returned too, and the walk goes on, as git's would: both are judged.
// why says why the gate cannot tell at all (a .git file it cannot read);
// repos are then those found below it.
func (c *call) discoverRepos(dir string) (repos []gitRepo, why string) {
	// Not cleaned first: a ".." after a link leads where the link does.
	v := c.ask(fsKey{opDiscover, c.realPath(dir)}, func(dir string) fsVal {
		repos, why := c.discover(dir)
		var b strings.Builder
		for _, r := range repos {
			b.WriteString(r.gitDir + "\x00" + r.root + "\x00")
		}
		return fsVal{s: b.String(), real: why, ok: why != ""}
	})
	for rest := v.s; rest != ""; {
		var r gitRepo
		r.gitDir, rest, _ = strings.Cut(rest, "\x00")
		r.root, rest, _ = strings.Cut(rest, "\x00")
		repos = append(repos, r)
	}
	return repos, v.real
}

func (c *call) discover(dir string) (repos []gitRepo, why string) {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if ok, isDir := c.stat(dotgit); ok {
			if !isDir {
				p, ok, why := c.gitFile(dotgit)
				switch {
				case why != "":
					return repos, why
				case ok && c.repoState(p) != notRepo:
					// git uses it, or stops with an error.
					return append(repos, gitRepo{p, d}), ""
				}
				return repos, "" // git stops with an error
			}
			// A .git directory is judged whatever it holds: git may
			// read its configuration, or walk on.
			repos = append(repos, gitRepo{dotgit, d})
			if c.repoState(dotgit) == isRepo {
				return repos, ""
			}
		}
		switch c.repoState(d) {
		case isRepo:
			return append(repos, gitRepo{d, ""}), ""
		case partRepo:
			repos = append(repos, gitRepo{d, ""})
		}
		if d == filepath.Dir(d) {
			return repos, ""
		}
	}
}

// gitFile returns the git directory the .git file dotgit names, read as
// git reads it (read_gitfile_gently): "gitdir: " and the path to the end
// of the file, less the line ends closing it, relative to the directory
// holding the file. ok is false for a file git refuses (no such line, no
// path); why says the gate cannot read it as git would (too large, not a
// regular file, unreadable, a NUL in the path).
func (c *call) gitFile(dotgit string) (dir string, ok bool, why string) {
	b, read := c.readSmall(dotgit)
	if !read {
		return "", false, "cannot read " + dotgit
	}
	p, ok := gitconfig.GitDir(b)
	switch {
	case !ok && strings.HasPrefix(b, "gitdir: ") && strings.IndexByte(b, 0) >= 0:
		return "", false, "a NUL in the path " + dotgit + " names"
	case !ok:
		return "", false, ""
	case !filepath.IsAbs(p):
		// Joined as written: the kernel resolves a ".." after a link
		// where it leads, not where the path's text does.
		p = filepath.Dir(dotgit) + "/" + p
	}
	return c.realPath(p), true, ""
}

// commonDir returns the directory holding the objects, refs and shared
// configuration of the git directory gitDir: where its commondir file
// points (a worktree's), read as git reads it (get_common_dir_noenv: the
// path less the line ends closing it, relative to gitDir), or gitDir
// itself. ok is false when the file is there but the gate cannot read it.
func (c *call) commonDir(gitDir string) (dir string, ok bool) {
	f := filepath.Join(gitDir, "commondir")
	if !c.lexists(f) {
		return gitDir, true
	}
	b, read := c.readSmall(f)
	b, ok = gitconfig.CommonDir(b)
	if !read || !ok {
		return "", false
	}
	if !filepath.IsAbs(b) {
		b = gitDir + "/" + b
	}
	return c.realPath(b), true
}

// repoKind is what git's is_git_directory makes of a directory.
type repoKind uint8

const (
	notRepo  repoKind = iota // git does not take it for a repository
	isRepo                   // git takes it for one
	partRepo                 // partly one: git may take it, or walk on
)

// repoState judges the directory d as git's is_git_directory does: HEAD
// a valid head (headRef), and objects and refs (in the common directory)
// that git may search (access X_OK). A directory that fails that test but
// holds HEAD and objects or refs, or whose HEAD or commondir the gate
// cannot read as git would, is partly a repository: the gate does not
// rest on telling which way git (of whatever version) decides.
func (c *call) repoState(d string) repoKind {
	head := c.headRef(filepath.Join(d, "HEAD"))
	if head == headMissing {
		return notRepo
	}
	common, ok := c.commonDir(d)
	if !ok {
		return partRepo
	}
	objects, refs := filepath.Join(common, "objects"), filepath.Join(common, "refs")
	switch {
	case head == headValid && c.searchable(objects) && c.searchable(refs):
		return isRepo
	case !c.lexists(objects) && !c.lexists(refs):
		return notRepo
	}
	return partRepo
}

// headState is what git's validate_headref makes of a HEAD file.
type headState uint8

const (
	headMissing headState = iota
	headValid
	headInvalid
	headUnknown // the gate cannot read it as git would
)

// headRef judges the file p as git's validate_headref does: a symbolic
// link whose target starts with "refs/", or a file starting with "ref:",
// any spaces and "refs/", or with an object id (40 hexadecimal digits,
// SHA-1's length, which git assumes while it looks for a repository).
func (c *call) headRef(p string) headState {
	v := c.lstat(p)
	switch {
	case !v.exists:
		return headMissing
	case v.ok:
		if strings.HasPrefix(v.s, "refs/") {
			return headValid
		}
		return headInvalid
	case v.dir:
		return headInvalid // git cannot read it
	}
	b, ok := c.readSmall(p)
	if !ok {
		return headUnknown
	}
	b = b[:min(len(b), 255)] // git reads no more
	if i := strings.IndexByte(b, 0); i >= 0 {
		b = b[:i] // a C string
	}
	if ref, ok := strings.CutPrefix(b, "ref:"); ok && strings.HasPrefix(strings.TrimLeft(ref, " \t\n\v\f\r"), "refs/") {
		return headValid
	}
	if len(b) >= 40 && isHex(b[:40]) {
		return headValid
	}
	return headInvalid
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; !('0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// searchable answers git's access(p, X_OK) for p (searchable).
func (c *call) searchable(p string) bool {
	return c.ask(fsKey{opAccess, p}, func(p string) fsVal {
		return fsVal{ok: searchable(p)}
	}).ok
}
