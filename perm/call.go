package perm

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/workspace"
)

// kind says what a part of a call does.
type kind int

const (
	kindCommand kind = iota // one simple shell command
	kindRead                // reads a path
	kindWrite               // writes a path
	kindOther               // anything else: matched by tool name and specifier
)

// part is one unit a call is decided on. A Bash call has one part per
// simple command and per redirect; every other call has exactly one part.
// A call is allowed only if every part is.
type part struct {
	kind kind
	tool string // the tool the call was made to

	// kindCommand
	cmd *bash.Command
	// aliased is cmd with its git alias expanded, once for each
	// repository it may use (gitAliasedCommands): what git runs, whose
	// writes and destructiveness count as the command's.
	aliased   []*bash.Command
	allowForm string
	allowOK   bool
	denyForms []string
	// ownForms is how many of denyForms are the command's own (the rest
	// are its repository's aliases, added by the deny step).
	ownForms int
	// optForms are deny forms split into options and the rest for the
	// rules that name options (optionForm), each worked out once.
	optForms []optionForm
	// classified: readOnly, notRO, xargs, reads and recursion are
	// computed (classify).
	classified bool
	readOnly   bool
	notRO      bash.Why // why the command is not read-only
	xargs      bool     // xargs into a verified read-only program (bash.Command.XargsSafe)
	reads      []target // paths a read-only command reads
	recursion  recursion
	// mentions are every path its words could name; computed on demand
	// (mentionsOf).
	mentions       []mention
	mentionsDone   bool
	mentionsUnsure bool // a glob too deep to expand cheaply, a dynamic read, ...
	// aliasForms and aliasShell are repoAliasForms' answer, once
	// aliasesDone.
	aliasForms  []string
	aliasShell  string
	aliasesDone bool

	// kindRead, kindWrite
	path target
	// dynamic is set for a redirect whose target is not a static word,
	// and a write whose targets are not known; why, if set, says why.
	dynamic bool
	why     string
	// owner is 1 + the index of the command part whose arguments name
	// this write (cp's destination), or 0.
	owner int

	// kindOther
	spec    string
	hasSpec bool
	host    string // WebFetch
}

// call is a request analysed once for all steps.
type call struct {
	req Request
	// code is the Policy's Code, indexed.
	code *codeIndex
	// procDirs memoises procSplit's walk of the directories of paths.
	procDirs map[string]procWalk
	// cand is scratch space for ruleList.candidates, whose result is
	// used before the next candidates call.
	cand   []int32
	ws     Workspace
	parts  []part
	script *bash.Script
	// dirs memoises resolved directories (realDir), shells
	// shellTargets, globs glob.
	dirs   smallMemo[string]
	shells smallMemo[shellAnswer]
	globs  map[string]globAnswer
	// readScratch is mentionsOf's scratch, reused from part to part.
	readScratch []reading
	// mentions is stepDeny's scratch for the words of each part's forms
	// (appendMentionWords), reused from call to call.
	mentions struct {
		parts [][][]string
		lists [][]string
		block []string
	}
	// tdir is the directory whose targets targetIn looked up last, with
	// the Resolver's set of them and the Resolver's generation then.
	tdir struct {
		dir string
		set *dirTargets
		gen int
	}
	// block is where small target slices are carved from (targetSlice),
	// mentionBlock small mention slices (mentionSlice).
	block        []target
	mentionBlock []mention
	// formBlock holds the parts' deny forms (denyForms).
	formBlock []string
	// decided is stepParts' scratch: each part's Result.
	decided []Result
	// resolver, when not nil, answers file system questions across the
	// calls of a batch (Resolver); memo answers them within this call.
	resolver *Resolver
	memo     map[fsKey]fsVal
	// configs are the git configuration files read for this call.
	configs map[string]gitConfig
	// bases are the directories a Bash script may run commands in (the
	// cwd and every cd target); cdUnsure is set when one is computed, or
	// the script may set a variable cd or ~+ reads. homeUnsure is set
	// when the script may set HOME, which ~ names.
	bases      []string
	cdUnsure   bool
	homeUnsure bool
	// invalid is set when the call cannot be analysed (bad arguments, shell
	// syntax error, unparseable URL). Such a call is never allowed.
	invalid string
	writer  int // owner for the write parts being added
	// xargsOK: the policy lets xargs feed a verified read-only program
	// (no Bash deny or ask rules and no Read deny rules).
	xargsOK bool
	// unsandboxed: a Bash call with dangerouslyDisableSandbox set.
	unsandboxed bool
	// made are the links the script makes (ln, cp -s, a link copied or
	// moved), by where they are (linkPlace), with where each leads:
	// every shell path is also resolved through them (throughMade).
	made map[string][]string
	// treeMemo memoises tree; copied are the trees and glob directories
	// the script's placements read (writtenTrees); placedN counts the
	// paths they put in place.
	treeMemo map[string]treeAnswer
	copied   []placedTree
	placedN  int
}

// calls holds released calls, whose scratch space (parts, memo maps,
// target blocks) the next call reuses.
var calls = sync.Pool{New: func() any { return new(call) }}

// maxPooledParts bounds the calls kept for reuse: a call of a huge script
// is left to the collector.
const maxPooledParts = 256

// smallMemo maps strings to the answers of one call: its first entries
// in an array, searched in order, the rest in a map. Most calls memoise a
// few answers, found in the array with no hashing, and the array is
// emptied with no map to clear.
type smallMemo[V any] struct {
	near [smallMemoNear]struct {
		k string
		v V
	}
	n   int
	far map[string]V
}

// smallMemoNear is how many answers a smallMemo holds in its array: nine
// calls in ten of BenchmarkBatch's resolve no more words (shellTargets).
const smallMemoNear = 16

func (m *smallMemo[V]) get(k string) (V, bool) {
	for i := range m.n {
		if m.near[i].k == k {
			return m.near[i].v, true
		}
	}
	v, ok := m.far[k]
	return v, ok
}

func (m *smallMemo[V]) put(k string, v V) {
	if m.n < len(m.near) {
		m.near[m.n].k, m.near[m.n].v = k, v
		m.n++
		return
	}
	if m.far == nil {
		m.far = make(map[string]V, len(m.near))
	}
	m.far[k] = v
}

func (m *smallMemo[V]) len() int { return m.n + len(m.far) }

// reset empties m. Its map is kept for reuse (a pooled call's) unless it
// held more than maxKeptFar answers: clearing a map costs in proportion
// to the most it ever held, so one a long command grew is dropped, or
// every later call would pay for its size.
func (m *smallMemo[V]) reset() {
	clear(m.near[:m.n])
	m.n = 0
	if len(m.far) > maxKeptFar {
		m.far = nil
	}
	clear(m.far)
}

// maxKeptFar bounds the map a smallMemo keeps when reset.
const maxKeptFar = 32

// release hands c back for reuse, and its script's memory (Script.Release);
// c must not be used afterwards. Nothing a Result holds points into a call
// or its script (its strings are immutable), so a call is released once
// its Result is made.
func (c *call) release() {
	if cap(c.parts) > maxPooledParts || c.shells.len() > maxPooledParts || cap(c.block) > maxPooledParts {
		return
	}
	c.shells.reset()
	parts, shells, block, cand, scratch, bases := c.parts, c.shells.far, c.block, c.cand, c.readScratch, c.bases
	// parts and the mention words are only appended to, once per call,
	// and targets and mentions are written only within what carve cut
	// from their blocks (their lengths): past their lengths they are
	// zero already, and only their lengths are cleared. mentionsOf
	// clears the scratch it used.
	clear(parts) // the parts' commands: no pointer into the script is left
	if c.script != nil {
		c.script.Release()
	}
	clear(block)
	clear(bases[:cap(bases)])
	mb, fb, dec := c.mentionBlock, c.formBlock, c.decided
	clear(dec)
	clear(mb)
	// AppendDenyForms may write past formBlock's length before it
	// moves to a larger array: its whole capacity (128) is cleared.
	clear(fb[:cap(fb)])
	ms := c.mentions
	if cap(ms.block) > 4*maxPooledParts {
		ms.block, ms.lists, ms.parts = nil, nil, nil // a huge script's: not kept
	}
	clear(ms.parts)
	clear(ms.lists)
	clear(ms.block)
	*c = call{parts: parts[:0], shells: smallMemo[shellAnswer]{far: shells}, block: block[:0], cand: cand[:0], readScratch: scratch[:0], bases: bases[:0]}
	c.mentions.parts, c.mentions.lists, c.mentions.block = ms.parts[:0], ms.lists[:0], ms.block[:0]
	c.mentionBlock, c.formBlock, c.decided = mb[:0], fb[:0], dec[:0]
	calls.Put(c)
}

// analyse analyses req in the workspace ws.
func analyse(req Request, ws Workspace) *call { return analyseWith(req, ws, nil) }

// analyseWith is analyse asking res (which may be nil) what it knows of
// the file system. Without a Resolver the workspace roots are resolved
// afresh for the call, through its own answers (a few lstats, shared with
// its paths), whatever Compile resolved: a call allowed before this one
// may have re-pointed a root that is a symbolic link. A Resolver's batch
// keeps the compiled resolution (see Resolver).
func analyseWith(req Request, ws Workspace, res *Resolver) *call {
	c := calls.Get().(*call)
	c.req, c.resolver = req, res
	if res == nil {
		c.ws = ws.Fresh(c.link)
	} else {
		c.ws = ws.Deferred()
	}
	switch req.Tool {
	case "Bash":
		c.analyseBash()
		c.sandboxArg()
	case "Read":
		c.pathPart(kindRead, "file_path", "")
	case "Edit", "Write":
		c.pathPart(kindWrite, "file_path", "")
	case "NotebookEdit":
		c.pathPart(kindWrite, "notebook_path", "")
	case "Grep":
		c.pathPart(kindRead, "path", ws.Cwd)
	case "Glob":
		c.analyseGlob()
	default:
		c.analyseOther()
	}
	return c
}

// str returns input[key] as a string. ok is false if the key is present
// with another type.
func (c *call) str(key string) (string, bool, bool) {
	v, present := c.req.Input[key]
	if !present || v == nil {
		return "", false, true
	}
	s, ok := v.(string)
	return s, true, ok
}

func (c *call) pathPart(k kind, key, dflt string) {
	p, present, ok := c.str(key)
	switch {
	case !ok:
		c.invalid = fmt.Sprintf("argument %q must be a string", key)
		return
	case !present || p == "":
		if dflt == "" {
			c.invalid = fmt.Sprintf("missing argument %q", key)
			return
		}
		p = dflt
	case strings.IndexByte(p, 0) >= 0:
		c.invalid = nulPath(key)
		return
	}
	t := c.target(p)
	if why := unjudged(t); why != "" {
		c.invalid = fmt.Sprintf("argument %q (%.200s) %s", key, p, why)
		return
	}
	c.parts = append(c.parts, part{kind: k, tool: c.req.Tool, path: t})
}

// unjudged says why the gate cannot tell which file a file tool's path
// t names, "" when it can: a form of t leads through /proc into another
// process's mount namespace (workspace.ForeignProc), or is PATH_MAX bytes
// or longer, past which the gate follows no links (open(2) would fail)
// but the tools, opening component by component, do.
func unjudged(t target) string {
	switch {
	case workspace.ForeignProc(t.abs) || workspace.ForeignProc(t.real):
		return "leads through /proc into another process's view of the file system (its mount namespace), where no rule can tell which file it names"
	case len(t.abs) >= workspace.PathMax || len(t.real) >= workspace.PathMax:
		return fmt.Sprintf("is %d bytes or longer, past which the links in it are not followed, so no rule can tell which file it names", workspace.PathMax)
	}
	return ""
}

// nameMax is the longest file name the kernel takes (NAME_MAX).
const nameMax = 255

// namesNothing reports whether a word has an element longer than nameMax
// bytes, so that as a path it names no file: a long string argument
// (echo xxx..., a message) that only its length made unjudged.
func namesNothing(word string) bool {
	for e := range strings.SplitSeq(word, "/") {
		if len(e) > nameMax {
			return true
		}
	}
	return false
}

// nulPath is the reason a path argument holding a NUL byte is invalid: no
// file name holds one, so the path names no file the gate could check.
func nulPath(key string) string {
	return fmt.Sprintf("argument %q holds a NUL byte, which no path can", key)
}

// analyseGlob checks the directory a glob pattern searches: its search path
// joined with the pattern's literal leading directories, so "../../etc/*"
// is a read outside the workspace.
func (c *call) analyseGlob() {
	pat, _, ok := c.str("pattern")
	if !ok || pat == "" {
		c.invalid = `missing or invalid argument "pattern"`
		return
	}
	dir, present, ok := c.str("path")
	if !ok {
		c.invalid = `argument "path" must be a string`
		return
	}
	if !present || dir == "" {
		dir = c.ws.Cwd
	}
	switch {
	case strings.IndexByte(pat, 0) >= 0:
		c.invalid = nulPath("pattern")
		return
	case strings.IndexByte(dir, 0) >= 0:
		c.invalid = nulPath("path")
		return
	}
	// The tool makes the search path absolute before it joins the
	// pattern's literal part to it; so does the gate: joined as written,
	// "~" and "../x" would be "x", in the cwd, where the tool walks the
	// home's sibling.
	if workspace.HomeRelative(dir) && !filepath.IsAbs(c.ws.Home) {
		c.invalid = fmt.Sprintf("argument \"path\" (%.200s) is in the home directory, which is not known", dir)
		return
	}
	if !filepath.IsAbs(dir) {
		dir = c.ws.Abs(dir)
	}
	// The directory is the one the Glob tool walks (workspace.GlobStart),
	// so `\*/../../x/*` is judged where the tool walks.
	start, _ := workspace.GlobStart(pat, dir)
	t := c.target(start)
	if why := unjudged(t); why != "" {
		c.invalid = fmt.Sprintf("the directory Glob searches (%.200s) %s", start, why)
		return
	}
	c.parts = append(c.parts, part{kind: kindRead, tool: "Glob", path: t})
}

func (c *call) analyseOther() {
	p := part{kind: kindOther, tool: c.req.Tool}
	key := specKey(c.req.Tool)
	if key != "" {
		s, present, ok := c.str(key)
		if !ok {
			c.invalid = fmt.Sprintf("argument %q must be a string", key)
			return
		}
		p.spec, p.hasSpec = s, present
	}
	if c.req.Tool == "WebFetch" {
		h, ok := webHost(p.spec)
		if !ok {
			c.invalid = fmt.Sprintf("URL %q has no host", p.spec)
			return
		}
		p.host = h
	}
	c.parts = append(c.parts, p)
}

// sandboxArg reads dangerouslyDisableSandbox. A value that is not a
// boolean makes the call invalid (never allowed); the command's own parts
// are analysed all the same, so deny rules still apply.
func (c *call) sandboxArg() {
	switch v := c.req.Input[UnsandboxedKey].(type) {
	case nil:
	case bool:
		c.unsandboxed = v
	default:
		if c.invalid == "" {
			c.invalid = fmt.Sprintf("argument %q must be true or false", UnsandboxedKey)
		}
	}
}

func (c *call) analyseBash() {
	src, present, ok := c.str("command")
	if !ok || !present {
		c.invalid = `missing or invalid argument "command"`
		return
	}
	s, err := bash.Parse(src)
	if err != nil {
		c.invalid = "command could not be parsed: " + err.Error()
		return
	}
	c.script = s
	c.cdBases(s)
	aliased := make([][]*bash.Command, len(s.Commands))
	for i, cmd := range s.Commands {
		aliased[i] = c.gitAliasedCommands(cmd)
	}
	// Where cp, mv and ln put what they place, and the links they make,
	// which every path below is also resolved through.
	pls := placings(s, aliased)
	single := len(s.Commands) == 1
	c.makeLinks(pls, single)
	c.parts = slices.Grow(c.parts[:0], len(s.Commands)+len(s.Redirects)+1)
	for i, cmd := range s.Commands {
		p := part{kind: kindCommand, tool: "Bash", cmd: cmd, aliased: aliased[i]}
		p.allowForm, p.allowOK = cmd.AllowForm()
		// A variable the script sets outside a command changes what a
		// command does, as one set before it does (for PATH in x; do
		// ls; done): no allow rule covers such a script.
		p.allowOK = p.allowOK && s.SetsOutside() == ""
		p.denyForms = c.programForms(c.denyForms(cmd))
		p.ownForms = len(p.denyForms)
		c.parts = append(c.parts, p)
	}
	// What commands write through their arguments (cp x .git/hooks/y,
	// tee, sed -i, ln to ~/.bashrc) is checked like a redirect: as an Edit.
	for i, cmd := range s.Commands {
		c.writer = i + 1
		targets, dynamic := cmd.Writes()
		if dynamic {
			c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", dynamic: true})
		}
		for _, w := range targets {
			c.pathParts(kindWrite, w)
		}
		// A patch or an archive names what it writes: not the gate.
		if why := cmd.DataWrites(); why != "" {
			c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", dynamic: true, why: why})
		}
		// A git alias writes what its expansion writes (lg = log
		// --output=FILE, a = apply).
		for _, a := range aliased[i] {
			targets, dynamic := a.Writes()
			if dynamic {
				c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", dynamic: true})
			}
			for _, w := range targets {
				c.pathParts(kindWrite, w)
			}
			if why := a.DataWrites(); why != "" {
				c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", dynamic: true, why: why})
			}
		}
	}
	c.writer = 0
	c.placeWrites(pls, single)
	for _, r := range s.Redirects {
		k := kindRead
		if r.Output {
			k = kindWrite
		}
		if !r.Target.Static {
			// A redirect to a computed path cannot be checked; no rule
			// may allow it, and it is at least Ask (see step 2).
			c.parts = append(c.parts, part{kind: k, tool: "Bash", dynamic: true})
			continue
		}
		c.pathParts(k, r.Target)
	}
	c.writtenTrees()
	if len(c.parts) == 0 {
		c.invalid = "empty command"
	}
}

// pathParts adds the parts of kind k (a read or a write) for the path the
// static word w names: one per place it may be, one per directory the
// script may be in (shellTargets), and, for a glob, one per file it
// matches now in each of them (globMatches). It adds a dynamic part too,
// which no rule allows and which is at least Ask, when those places may
// not be all: a directory is not known (a cd to a computed directory, HOME
// set) or w is a glob (it may match a file made later in the line). The
// places the gate does know are kept all the same, so deny and ask rules
// judge them: under Edit(./.env), `cd $d; echo x > .env` is Deny, since
// the cwd is among the directories the script may be in.
//
// What is judged where a directory is not known is every directory the
// gate can name (the cwd, each static cd target, what a cd glob matches
// now, the values constant propagation gives a computed one: cdBases),
// not every directory there is: a deny rule naming a file only in a
// directory the script never names (Read(/etc/shadow) for `cd $d; cat
// shadow`) leaves the call Ask, not Deny. Judging the unknown directory as
// any directory would make every relative path after a computed cd Deny
// under any DIR/** rule.
func (c *call) pathParts(k kind, w bash.Word) {
	p := shellPath(w)
	if k == kindWrite && p == "/dev/null" {
		return
	}
	var ts []target
	sure := false // a glob is never sure: see above
	if w.Glob {
		ms, _ := c.globMatches(p)
		for _, m := range ms {
			ts = append(ts, c.target(m))
		}
	} else {
		ts, sure = c.shellTargets(p)
	}
	if !sure {
		c.parts = append(c.parts, part{kind: k, tool: "Bash", dynamic: true})
	}
	for _, t := range ts {
		c.parts = append(c.parts, part{kind: k, tool: "Bash", path: t, owner: c.writer})
	}
}

// globMatches returns the files the glob path p (shellPath of a static
// word) matches now, from each directory the script may be in that the
// gate knows, and whether they are all it may match: not when a directory
// is not known, an element before the last holds a glob (s*/k, which may
// match a directory made later in the line), or the last one may match
// unlike bash (unlikeBash). A pattern with more than maxGlobSegments
// globbed elements is not expanded.
func (c *call) globMatches(p string) (ms []string, sure bool) {
	ts, sure := c.shellTargets(p)
	ms, all := c.globIn(ts)
	return ms, sure && all
}

// globIn is globMatches of the glob paths ts, resolved already.
func (c *call) globIn(ts []target) (ms []string, sure bool) {
	sure = true
	for _, t := range ts {
		if hasGlobMeta(filepath.Dir(t.abs)) {
			sure = false
			if globSegments(t.abs) > maxGlobSegments {
				continue
			}
		}
		if unlikeBash(t.abs) {
			sure = false // the matches below are Go's guess
		}
		m, _ := c.glob(t.abs)
		ms = append(ms, m...)
	}
	return ms, sure
}

// maxBases bounds the directories a script may cd into that are tracked.
const maxBases = 16

// cdBases records every directory the script may change into with cd or
// pushd (builtin cd too), so that relative paths are resolved against
// each of them: in `cd / && cat etc/shadow` the path is /etc/shadow, not
// one in the workspace. Order and control flow are ignored (any base may
// apply); a cd to a computed or globbed directory makes relative paths
// unknown, and so does a cd, pushd or popd in a script that may set HOME,
// CDPATH or DIRSTACK, or a ~+ in one that may set PWD, in any way (for PWD
// in x, read HOME), not only by NAME=value. ~ is unknown where HOME may be
// set.
//
// A cd the gate cannot follow still adds the directories it can name, so
// that deny rules judge the paths in them (pathParts): what a globbed
// target matches now (cd sec* is cd secrets when secrets is the match),
// and the static values of a computed one (bash.Command.DirAlternatives:
// cd "$(echo secrets)", d=secrets; cd $d).
func (c *call) cdBases(s *bash.Script) {
	c.bases = append(c.bases[:0], c.ws.Cwd)
	c.homeUnsure = s.Sets("HOME")
	c.cdUnsure = s.ReadsPWD() && s.Sets("PWD")
	moved := c.homeUnsure || s.Sets("CDPATH") || s.Sets("DIRSTACK")
	for _, cmd := range s.Commands {
		name, args, ok := cmd.DirChange()
		switch {
		case !ok:
			continue
		case moved:
			c.cdUnsure = true
			continue
		case name == "popd":
			continue // back to a directory cd or pushd entered
		}
		w, ok := cdTarget(args)
		if !ok {
			c.bases = append(c.bases, c.ws.Home)
			continue
		}
		if plainCd(args) {
			if !c.addBases(shellPath(w), false) {
				return
			}
			continue
		}
		c.cdUnsure = true
		if cdOperands(args) > 1 {
			continue
		}
		if w.Static && w.Glob {
			if !c.addBases(shellPath(w), true) {
				return
			}
			continue
		}
		for _, alt := range cmd.DirAlternatives() {
			if a, ok := cdTarget(alt); ok && plainCd(alt) {
				if !c.addBases(shellPath(a), false) {
					return
				}
			}
		}
	}
}

// cdTarget returns the first operand of a cd, pushd or popd (args are its
// arguments): the directory it changes into; false if it has none.
func cdTarget(args []bash.Word) (bash.Word, bool) {
	for _, w := range args {
		if !isCdOption(w) {
			return w, true
		}
	}
	return bash.Word{}, false
}

// plainCd reports whether a cd's arguments name one static directory the
// gate can follow: no glob, not "-" (the last directory) nor "+N" (one
// from the stack).
func plainCd(args []bash.Word) bool {
	w, ok := cdTarget(args)
	return ok && w.Static && !w.Glob && w.Value != "-" && !strings.HasPrefix(w.Value, "+") && cdOperands(args) == 1
}

// cdOperands counts the arguments of a cd that are not options.
func cdOperands(args []bash.Word) int {
	n := 0
	for _, w := range args {
		if !isCdOption(w) {
			n++
		}
	}
	return n
}

// isCdOption reports whether w is an option of cd (-P, -L, -e), not the
// directory "-".
func isCdOption(w bash.Word) bool {
	return w.Static && strings.HasPrefix(w.Value, "-") && w.Value != "-"
}

// addBases adds the directory p, or with glob every path the glob p
// matches now, as a base: an absolute one or one under ~ as it is, a
// relative one joined to each base there is. It returns false, with
// cdUnsure set, once relative ones or a glob's matches would pass
// maxBases: each relative one may double the bases.
func (c *call) addBases(p string, glob bool) bool {
	if glob {
		// Not shellTargets: its answers are memoised for the bases the
		// call ends with, and these are still being found.
		ts, _ := c.resolveShell(p)
		ms, _ := c.globIn(ts)
		for _, m := range ms {
			if !c.addBases(m, false) || len(c.bases) > maxBases {
				c.cdUnsure = true // cd * in a large directory
				return false
			}
		}
		return true
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		c.bases = append(c.bases, resolvePath(c.ws, p))
		return true
	}
	for _, b := range c.bases[:len(c.bases):len(c.bases)] {
		c.bases = append(c.bases, filepath.Join(b, p))
	}
	if len(c.bases) > maxBases {
		c.cdUnsure = true
		return false
	}
	return true
}

// shellTargets resolves a path a shell command names against every
// directory the script may be in. ok is false when one of them is not
// known (a relative path after a cd to a computed directory); the targets
// returned are then those of the directories that are known.
//
// The answer is memoised for the call (a command's words are resolved for
// its reads, its mentions and its writes): callers must not modify the
// slice.
func (c *call) shellTargets(p string) ([]target, bool) {
	if a, ok := c.shells.get(p); ok {
		return a.ts, a.ok
	}
	ts, ok := c.resolveShell(p)
	c.shells.put(p, shellAnswer{ts, ok})
	return ts, ok
}

// shellAnswer is a memoised answer of shellTargets.
type shellAnswer struct {
	ts []target
	ok bool
}

// glob is filepath.Glob, memoised for the call: a glob operand is
// expanded for the command's reads and for its mentions alike.
func (c *call) glob(pattern string) ([]string, error) {
	if a, ok := c.globs[pattern]; ok {
		return a.matches, a.err
	}
	m, err := c.globFS(pattern)
	if c.globs == nil {
		c.globs = make(map[string]globAnswer, 2)
	}
	c.globs[pattern] = globAnswer{m, err}
	return m, err
}

// globFS is filepath.Glob; a Resolver keeps its answers (the matches,
// NUL-separated: no file name holds a NUL).
func (c *call) globFS(pattern string) ([]string, error) {
	if c.resolver == nil {
		return filepath.Glob(pattern)
	}
	v := c.ask(fsKey{opGlob, pattern}, func(pattern string) fsVal {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return fsVal{}
		}
		return fsVal{s: strings.Join(m, "\x00"), ok: true, exists: len(m) > 0}
	})
	switch {
	case !v.ok:
		return nil, filepath.ErrBadPattern
	case !v.exists:
		return nil, nil
	}
	return strings.Split(v.s, "\x00"), nil
}

// unlikeBash reports whether filepath.Glob may expand the last element of
// pattern unlike bash, which would then read files the gate never saw:
// [!x] is a set holding "!" to it, [[:alpha:]] no class, and a backslash
// escapes. Its matches are then neither all nor only bash's.
func unlikeBash(pattern string) bool {
	return strings.ContainsAny(filepath.Base(pattern), `[\`)
}

// globAnswer is a memoised answer of glob.
type globAnswer struct {
	matches []string
	err     error
}

// denyForms returns cmd.DenyForms(), written into a block the call keeps
// from call to call when they fit in its spare room. The slice returned
// has no spare room: an append to it (a git alias's forms) copies it.
func (c *call) denyForms(cmd *bash.Command) []string {
	if cap(c.formBlock)-len(c.formBlock) < 16 {
		c.formBlock = make([]string, 0, 128)
	}
	l := len(c.formBlock)
	forms := cmd.AppendDenyForms(c.formBlock[l:l])
	if n := len(forms); n > 0 && l+n <= cap(c.formBlock) && &forms[0] == &c.formBlock[:l+1][l] {
		c.formBlock = c.formBlock[:l+n]
	}
	return forms[:len(forms):len(forms)]
}

// programForms returns forms and, for each whose program word names a
// file by path (holds a "/"), the command run by each file that path
// leads to through links: the path each link names, the path with every
// link followed, and each of their names that differs from the word's
// (./del -f x is /bin/rm -f x, /usr/bin/rm -f x and rm -f x when del is
// a link to /bin/rm and /bin one to usr/bin). Deny and ask rules judge
// the program that runs, whatever word names it. A program word is
// resolved from every directory the script may be in. A hard link or a
// copy of a program keeps no trace of what it was: it is judged by its
// own name.
func (c *call) programForms(forms []string) []string {
	forms = slices.Clip(forms) // an append must not write past them
	n := len(forms)
	for i := 0; i < n; i++ {
		prog, tail, _ := strings.Cut(forms[i], " ")
		if !strings.Contains(prog, "/") || hasGlobMeta(prog) {
			continue // a name PATH finds; a glob (globDeny)
		}
		ts, _ := c.shellTargets(prog)
		for _, t := range ts {
			for _, run := range c.linkHops(t) {
				for _, r := range []string{run, filepath.Base(run)} {
					if r == filepath.Base(prog) {
						continue // the name rules see already
					}
					f := r
					if tail != "" {
						f += " " + tail
					}
					if !slices.Contains(forms, f) {
						forms = append(forms, f)
					}
				}
			}
		}
	}
	return forms
}

// pathProgramForms adds to each command part, for each of its forms
// whose program is a name that a deny or ask rule names by a path (rm,
// and Bash(/bin/rm:*)), the form with that path: which file a name runs
// depends on PATH, so deny and ask rules judge the name as each program
// of that name they name. (A path program word is judged by its name
// already: /usr/bin/rm x is also rm x.)
func (c *call) pathProgramForms(rs *ruleSet) {
	for i := range c.parts {
		pt := &c.parts[i]
		if pt.kind != kindCommand {
			continue
		}
		n := len(pt.denyForms)
		for j := 0; j < n; j++ {
			prog, tail, _ := strings.Cut(pt.denyForms[j], " ")
			if strings.Contains(prog, "/") {
				continue
			}
			for _, l := range []*ruleList{rs.deny, rs.ask} {
				for _, p := range l.pathProgs[prog] {
					f := p
					if tail != "" {
						f += " " + tail
					}
					if !slices.Contains(pt.denyForms, f) {
						pt.denyForms = append(pt.denyForms, f)
					}
				}
			}
		}
	}
}

// linkHops returns the paths the file t names leads to: where each link
// in turn points, as the link says (cleaned), while the path itself is a
// link, and then its real path; none if it is no link and none is on its
// way.
func (c *call) linkHops(t target) []string {
	var hops []string
	cur := t.abs
	for range maxProgramLinks {
		dest, ok := c.link(cur)
		if !ok {
			break
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(cur), dest)
		}
		cur = filepath.Clean(dest)
		hops = append(hops, cur)
	}
	if t.real != t.abs && t.real != "" && !slices.Contains(hops, t.real) {
		hops = append(hops, t.real)
	}
	return hops
}

// maxProgramLinks bounds the links linkHops follows one by one (the
// kernel's own bound, 40).
const maxProgramLinks = 40

// mentionSlice returns an empty slice with room for n mentions, carved
// from a block the call keeps from call to call, as targetSlice does for
// targets: most commands mention a few paths.
func (c *call) mentionSlice(n int) []mention { return carve(&c.mentionBlock, n, 32, 64) }

// targetSlice returns an empty slice with room for n targets, carved
// from a block the call keeps: most answers of shellTargets hold one
// target each.
func (c *call) targetSlice(n int) []target { return carve(&c.block, n, 8, 16) }

// carve returns an empty slice with room for n elements cut from *block,
// which it replaces with a new block of size elements when too little is
// left; more than most elements get a slice of their own. The slice has no
// spare room past n: an append past it copies, never reaching the next
// slice carved.
func carve[T any](block *[]T, n, most, size int) []T {
	if n > most {
		return make([]T, 0, n)
	}
	if cap(*block)-len(*block) < n {
		*block = make([]T, 0, size)
	}
	l := len(*block)
	*block = (*block)[:l+n]
	return (*block)[l : l : l+n]
}

// resolveShell is shellTargets without the memo. Where the directory or
// HOME is not known, it still returns the paths p names from the ones the
// gate knows, which deny rules judge, with ok false. Where the script
// makes links, it returns where p leads through them too.
func (c *call) resolveShell(p string) ([]target, bool) {
	ts, ok := c.resolveNow(p)
	if len(c.made) > 0 {
		return c.throughMade(p, ts, ok)
	}
	return ts, ok
}

// resolveNow is resolveShell with the file system as it is now.
func (c *call) resolveNow(p string) ([]target, bool) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		t := c.target(p)
		more, ok := c.procTargets(rawPath(c.ws, p), t, 0)
		return append(append(c.targetSlice(1), t), more...), !c.homeUnsure && ok
	}
	if filepath.IsAbs(p) {
		t := c.target(p)
		more, ok := c.procTargets(p, t, 0)
		return append(append(c.targetSlice(1), t), more...), ok
	}
	ts := c.targetSlice(len(c.bases))
	sure := !c.cdUnsure
	for i, b := range c.bases {
		// A base listed twice names the same path twice (b/p, joined
		// raw, not cleaned: target must see a ".." after a symlink).
		if i == 0 || !slices.Contains(c.bases[:i], b) {
			t := c.targetIn(b, p)
			ts = append(ts, t)
			if t.real != t.abs || joinedHasProc(b, p) {
				more, ok := c.procTargets(b+"/"+p, t, 0)
				ts = append(ts, more...)
				sure = sure && ok
			}
		}
	}
	return ts, sure
}

// target resolves p like newTarget, memoising the resolution of its
// directory and asking the call's file system answers (ask). A Resolver
// keeps whole resolutions of absolute paths: they depend on nothing but
// the path and the file system.
func (c *call) target(p string) target {
	if c.resolver != nil && len(p) > 0 && p[0] == '/' {
		v := c.ask(fsKey{opTarget, p}, func(p string) fsVal {
			return targetVal(c.resolveTarget(p))
		})
		return valTarget(v)
	}
	return c.resolveTarget(p)
}

// targetVal is a Resolver's answer for t, a target resolveTarget made:
// abs in s, real in real, and its facts, so that each later call's
// mentions need not work them out again.
func targetVal(t target) fsVal { return fsVal{s: t.abs, real: t.real, facts: t.facts} }

// valTarget is the target of targetVal's answer.
func valTarget(v fsVal) target { return target{abs: v.s, real: v.real, facts: v.facts} }

// targetIn is target(dir + "/" + p) for an absolute dir, without making
// that string when the Resolver knows the answer: it looks p up among
// the targets it holds in dir (targetsIn), a set the call keeps at hand
// while the Resolver has not rotated (its commands' paths are mostly in
// one directory).
func (c *call) targetIn(dir, p string) target {
	r := c.resolver
	if r == nil || dir == "" || dir[0] != '/' || len(dir)+1+len(p) > maxCachedPath {
		return c.target(dir + "/" + p)
	}
	d := c.tdir.set
	if d == nil || c.tdir.gen != r.gen || c.tdir.dir != dir {
		d = r.targetsIn(dir)
		c.tdir.dir, c.tdir.set, c.tdir.gen = dir, d, r.gen
	}
	if v, ok := d.kids[p]; ok {
		return valTarget(v)
	}
	v, ok := fsVal{}, false
	if o := r.told[dir]; o != nil {
		v, ok = o.kids[p]
	}
	if !ok {
		// Neither generation has it: resolve it, from what d keeps of
		// dir where p is a path of plain names (resolveIn).
		if relPath(p) {
			v = targetVal(c.resolveIn(d, dir, p))
		} else {
			v = targetVal(c.resolveTarget(dir + "/" + p))
		}
		if r.gen != c.tdir.gen {
			// Resolving it rotated the Resolver: d is old now.
			d = r.targetsIn(dir)
			c.tdir.dir, c.tdir.set, c.tdir.gen = dir, d, r.gen
		}
	}
	r.putTarget(d, dir, p, v)
	return valTarget(v)
}

// plainName reports whether p is one element naming an entry of a
// directory: not empty, ".", ".." nor holding a separator.
func plainName(p string) bool {
	return p != "" && p != "." && p != ".." && strings.IndexByte(p, '/') < 0
}

// relPath reports whether p is a relative path of plain names joined by
// single separators: joined to a clean directory, a clean path.
func relPath(p string) bool {
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return plainName(p)
		}
		if !plainName(p[:i]) {
			return false
		}
		p = p[i+1:]
	}
}

// resolveIn is resolveTarget(dir + "/" + p) for a relPath p in the
// absolute dir, whose targets d holds: what resolvePaths works out of
// the directory holding p's last element (its real path, whether it may
// hold files) is worked out from what d keeps of dir, learnt at the
// first path resolved in it, an element at a time (walk), so that a
// path costs the lookups of its own elements alone. A dir that is not
// clean (a ".." after a link leads where the link does) is resolved
// whole.
func (c *call) resolveIn(d *dirTargets, dir, p string) target {
	if !d.known {
		d.known, d.clean = true, clean(dir) == dir
		if d.clean {
			// The real path may be a slice of dir, which may be one of
			// a command: the set keeps a copy of its own, counted
			// against the Resolver's bound (a rotation leaves d in
			// told, which targetIn sees).
			real := c.realPath(dir)
			d.holds = c.holdsFiles(real)
			if r := c.resolver; r.bytes+len(real) > r.maxBytes {
				r.rotate()
			}
			d.real = strings.Clone(real)
			c.resolver.bytes += len(real)
			d.facts, d.realFacts = dirFactsOf(dir), dirFactsOf(d.real)
		}
	}
	if !d.clean {
		return c.resolveTarget(dir + "/" + p)
	}
	var t target
	switch {
	case dir == "/":
		t.abs = "/" + p
	default:
		t.abs = dir + "/" + p
	}
	// rdir is the real path of the directory holding p's last element,
	// whose path is pdir, and holds whether it may hold files.
	name, pdir, rdir, holds := p, dir, d.real, d.holds
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		name, pdir = p[i+1:], t.abs[:len(t.abs)-len(p)+i]
		rdir, holds = c.walk(t.abs, len(t.abs)-len(p), rdir, holds)
	}
	t.real = realIn(t.abs, pdir, rdir, name)
	if holds {
		if _, link := c.link(t.real); link {
			t.real = c.realPath(t.real)
			t.facts = factsOf(t)
			return t
		}
	}
	f, ok := nameFacts(d.facts, d.realFacts, t.real != t.abs, p)
	if !ok {
		f = factsOf(t)
	}
	t.facts = f
	return t
}

// realIn returns the real path of p, the entry name of the directory
// dir whose real path is real, before p itself is looked up: p while no
// link is on the way.
func realIn(p, dir, real, name string) string {
	switch {
	case real == dir:
		return p
	case real == "/":
		return "/" + name
	}
	return real + "/" + name
}

// walk returns the real path of the directory holding the last element
// of the clean absolute path abs, and whether it may hold files
// (holdsFiles), given those of abs[:at-1] (real, holds) and that abs[at:]
// is a relPath. Each element's real path is its parent's joined with it
// unless it is a link there, as FollowLinks finds it (whose walk has
// reached the parent's real path when it asks about the element), and
// only then is it resolved whole: the links it followed on its way
// count against the kernel's bound. Under what holds no files, nothing is
// a link and nothing holds files.
func (c *call) walk(abs string, at int, real string, holds bool) (string, bool) {
	for {
		j := strings.IndexByte(abs[at:], '/')
		if j < 0 {
			return real, holds
		}
		end := at + j
		parent := abs[:at-1]
		if parent == "" {
			parent = "/"
		}
		next := realIn(abs[:end], parent, real, abs[at:end])
		if holds {
			if v := c.lstat(next); v.ok {
				next = c.realPath(abs[:end])
				holds = c.holdsFiles(next)
			} else {
				holds = v.exists && v.dir
			}
		}
		real, at = next, end+1
	}
}

// resolveTarget is target without a Resolver's whole resolutions. The
// target carries its facts: every mention of it is matched with them.
func (c *call) resolveTarget(p string) target {
	t := c.resolvePaths(p)
	t.facts = factsOf(t)
	return t
}

// resolvePaths works out the two paths of p's target (resolveTarget).
func (c *call) resolvePaths(p string) target {
	abs := resolvePath(c.ws, p)
	// A ".." in the raw path comes from p, the cwd or home.
	if strings.Contains(p, "..") || strings.Contains(c.ws.Cwd, "..") || strings.Contains(c.ws.Home, "..") {
		if raw := rawPath(c.ws, p); hasDotDot(raw) {
			// The kernel follows a symlink before applying "..": link/..
			// is the link target's parent, not the directory holding link.
			return target{abs: abs, real: c.realPath(raw)}
		}
	}
	dir, base := filepath.Split(abs)
	rdir, ok := c.realDir(dir)
	if !ok {
		// Clean(dir) without its trailing separator is the same path,
		// and clean at once when abs is.
		d := dir
		if len(d) > 1 {
			d = d[:len(d)-1]
		}
		rdir = c.realPath(clean(d))
		c.addRealDir(dir, rdir)
	}
	var real string
	inDir := true // real is rdir/base
	switch {
	case base == "" || base == "." || base == "..":
		real, inDir = filepath.Join(rdir, base), false
	case rdir == "/" && len(abs) == 1+len(base) && abs[0] == '/':
		real = abs // abs is "/"+base already
	case rdir == "/":
		real = "/" + base
	case len(abs) == len(rdir)+1+len(base) && abs[len(rdir)] == '/' && strings.HasPrefix(abs, rdir):
		real = abs // no link on the way: abs is rdir/base already
	default:
		// rdir is clean and base a plain name: nothing to clean.
		real = rdir + "/" + base
	}
	if inDir && !c.holdsFiles(rdir) {
		return target{abs: abs, real: real} // it names nothing: no link
	}
	if _, link := c.link(real); link {
		real = c.realPath(real)
	}
	return target{abs: abs, real: real}
}

// holdsFiles reports whether the resolved directory path rdir may hold
// files: it is a directory, or a link FollowLinks left unresolved (a loop
// the kernel judges). A name under anything else (nothing, a file) names
// nothing, and is not looked up.
func (c *call) holdsFiles(rdir string) bool {
	v := c.lstat(rdir)
	return v.ok || (v.exists && v.dir)
}

// realDir returns the memoised resolution of dir: the arguments of one
// command line mostly share a few directories.
func (c *call) realDir(dir string) (string, bool) { return c.dirs.get(dir) }

// addRealDir memoises the resolution of dir.
func (c *call) addRealDir(dir, real string) { c.dirs.put(dir, real) }

// shellPath is the path a static shell word names: "~" is the home
// directory only where the shell expands it.
func shellPath(w bash.Word) string {
	if strings.HasPrefix(w.Value, "~") && !w.Tilde {
		return "./" + w.Value
	}
	return w.Value
}

// specKey names the argument a tool's rule pattern is matched against.
func specKey(tool string) string {
	switch tool {
	case "Bash":
		return "command"
	case "Read", "Edit", "Write":
		return "file_path"
	case "NotebookEdit":
		return "notebook_path"
	case "Glob", "Grep":
		return "pattern"
	case "WebFetch":
		return "url"
	case "WebSearch":
		return "query"
	case "Agent":
		return "subagent_type"
	case "Skill":
		return "skill"
	}
	return ""
}

// ParseCall parses a call written as Tool(specifier) — the tool name up to
// the first "(", the specifier up to the last ")" — or as a bare tool name,
// into a Request with the specifier under the tool's usual argument name.
func ParseCall(s string) (Request, error) {
	name, spec, hasSpec := s, "", false
	if i := strings.IndexByte(s, '('); i >= 0 {
		j := strings.LastIndexByte(s, ')')
		if j < i {
			return Request{}, fmt.Errorf("call %q: missing closing parenthesis", s)
		}
		if strings.TrimSpace(s[j+1:]) != "" {
			return Request{}, fmt.Errorf("call %q: text after the closing parenthesis", s)
		}
		name, spec, hasSpec = s[:i], s[i+1:j], true
	}
	if _, err := ParseRule(name); err != nil || name == "" {
		return Request{}, fmt.Errorf("call %q: invalid tool name %q", s, name)
	}
	req := Request{Tool: name, Input: map[string]any{}}
	if hasSpec {
		key := specKey(name)
		if key == "" {
			return Request{}, fmt.Errorf("call %q: tool %s takes no specifier; use --input", s, name)
		}
		req.Input[key] = spec
	}
	return req, nil
}

// Specifier renders the argument a call's rules match against, for logs,
// dialogs and "Always allow" rules: the command, path, pattern, URL or
// agent type. It is "" for tools without one.
func Specifier(tool string, input map[string]any) string {
	s, _ := input[specKey(tool)].(string)
	return s
}
