package perm

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// ruleSet is a Policy's rule lists compiled for matching in one
// workspace: patterns compiled once, and each list indexed so that a part
// is matched only against the rules that could match it. A ruleSet is
// never changed once built, so goroutines share it freely.
type ruleSet struct {
	// cwd, root and home are the workspace the path patterns were made
	// absolute in.
	cwd, root, home     string
	deny, ask, allow    *ruleList
	session, constraint *ruleList
	// failed is the first list's failed: every call is then denied.
	failed string
	// code is the Policy's Code, indexed (codeOf).
	code *codeIndex
}

// smallList is the length up to which a list is scanned whole: an index
// costs more than it saves.
const smallList = 8

// ruleList is one compiled rule list. Its candidates for a part are a
// superset of the rules that match the part, in list order, so the first
// rule that matches among them is the first a scan of the whole list
// would find.
type ruleList struct {
	// entries and rules are the slices the list was compiled from (one
	// of them is nil), to tell whether the Policy still holds them.
	entries []Entry
	rs      []Rule

	rules []crule
	all   []int32 // every index
	// indexed is set when the maps below are built; otherwise every rule
	// is a candidate.
	indexed bool

	hasBash, hasRead bool
	// failed, when not "", says why a rule of the list cannot be
	// matched as written (unanchored): the policy then denies every call.
	failed string
	// hasPath: a Read, Edit or Write rule, which may look at the paths a
	// command reads or names (commandPath). namesPaths: a Read rule, or
	// an Edit or Write rule with a pattern, which any word of any command
	// may name a path of (mentionMatch).
	hasPath, namesPaths bool

	// Command parts: Bash rules by the first word every command they
	// match starts with, and the rules no word keys.
	bashKey map[string][]int32
	// bashTail keys rules that start with a wildcard by the last
	// tailLen bytes of the word every match must contain (bashTailKey).
	bashTail map[string][]int32
	bashAny  []int32
	// Read, Edit and Write rules, which cover commands through the paths
	// they read or name (commandPath).
	cmdPath pathIndex
	// Path parts (file tools, redirects, written arguments).
	path pathIndex
	// Other parts: rules by tool, WebFetch rules by domain, and MCP(glob)
	// and MCP server rules, which may match any tool.
	byTool   map[string][]int32
	domains  map[string][]int32
	otherAny []int32
	// progs are the Bash rules with a program, by program, for the
	// mention check of deny rules (mentionMatch).
	progs map[string][]int32
	// mentionProgs are the distinct programs of the Bash rules with a
	// pattern, while there are at most maxMentionProgs of them; manyProgs
	// is set when there are more. A command part none of whose forms
	// holds one of them as text mentions none (mayMention).
	mentionProgs []string
	manyProgs    bool
	// pathProgs are the programs Bash rules name by a path (/bin/rm),
	// by the name PATH finds them under (rm): a command that runs rm
	// is judged as /bin/rm too (pathProgramForms).
	pathProgs map[string][]string
	// reads are the Read rules.
	reads []int32
}

// maxMentionProgs bounds the programs mayMention looks for one by one.
const maxMentionProgs = 8

// addMentionProg notes prog, a Bash rule's program, among mentionProgs.
func (l *ruleList) addMentionProg(prog string) {
	if prog == "" || l.manyProgs || slices.Contains(l.mentionProgs, prog) {
		return
	}
	if len(l.mentionProgs) == maxMentionProgs {
		l.manyProgs, l.mentionProgs = true, nil
		return
	}
	l.mentionProgs = append(l.mentionProgs, prog)
}

// mayMention reports whether a command part with these forms may mention
// the program of one of l's Bash rules (mentionMatch, mentioned): a word
// names a program only if the program's name is part of its text (as
// itself, its basename or a versioned name), and every word of a form is
// text of the form. False is sure; true is when there are too many
// programs to look for.
func (l *ruleList) mayMention(forms []string) bool {
	if l.manyProgs {
		return true
	}
	for _, f := range forms {
		for _, p := range l.mentionProgs {
			if strings.Contains(f, p) {
				return true
			}
		}
	}
	return false
}

// pathIndex indexes path rules by a path segment every path they match
// (or whose ancestor they match) contains; rules without one are in any.
type pathIndex struct {
	bySeg map[string][]int32
	any   []int32
}

// crule is a rule compiled for matching.
type crule struct {
	Entry
	bash bashPattern // Bash rules with a pattern
	// opt is the pattern's options and the rest, if it names options
	// (hasOpt): deny and ask rules match it against the forms split the
	// same way too (canonMatch).
	opt    optionRule
	hasOpt bool
	// canonLead is the pattern's first word and a space when it is
	// literal (a form canonMatch matches starts with it), else "".
	canonLead string
	path      pathPattern // path rules with a pattern
	// prog is the program a Bash pattern names (ruleProgram).
	prog string
}

// rules returns the compiled rules Evaluate uses for p: p's index where
// it is current, otherwise lists compiled for this call (reusing those of
// p's index that are). It never writes to p.
func (p *Policy) rules() *ruleSet {
	if rs := p.idx; rs != nil && rs.current(p) {
		return rs
	}
	return compileRules(p, p.idx)
}

// Compile prepares p for Evaluate: patterns compiled once and every rule
// list indexed, so that a decision under 1,000 rules costs about what it
// costs under 10, and the real paths of the workspace directories
// resolved once (workspace.Roots.Resolve) for the decisions of a
// Resolver's batch. Evaluate without a Resolver (the interactive gate)
// does not use that resolution: it resolves the roots afresh for every
// call, since a call it allowed may have re-pointed one. Package policy
// compiles every policy it builds; a Policy that was not compiled (a
// literal in a test) is decided the same, only slower.
//
// Compile after the last change to the rule lists or the workspace. A
// Policy changed after Compile (a list replaced or appended to, as when
// session rules are added to a copy, or a new workspace) is still decided
// correctly: Evaluate compiles what changed for each call, which is
// slower, until Compile is called again. Rules must not be changed in
// place after Compile. Compile must not run concurrently with Evaluate on
// the same Policy.
func (p *Policy) Compile() {
	p.Workspace = p.Workspace.Resolve()
	p.idx = compileRules(p, p.idx)
}

// CompileFrom is Compile reusing what prevs compiled: a list holding the
// same rules (compared entry by entry) in the same workspace as a list of
// a compiled prev is not compiled again, and the workspace resolution of
// a prev with the same directories is reused (workspace.Roots.ResolveFrom).
// A policy rebuilt for every call from the same settings thus costs a
// comparison, not a compilation.
func (p *Policy) CompileFrom(prevs ...*Policy) {
	prev := Workspace{}
	for _, q := range prevs {
		if q != nil && q.Workspace.Cwd == p.Workspace.Cwd && q.Workspace.Root == p.Workspace.Root && slices.Equal(q.Workspace.Dirs, p.Workspace.Dirs) {
			prev = q.Workspace
			break
		}
	}
	p.Workspace = p.Workspace.ResolveFrom(prev)
	var sets []*ruleSet
	for _, q := range append([]*Policy{p}, prevs...) {
		if q != nil && q.idx != nil {
			sets = append(sets, q.idx)
		}
	}
	p.idx = compileRules(p, sets...)
}

// Compiled reports whether p's compiled index (Compile, CompileFrom) is
// current for its rule lists and workspace, so that Evaluate compiles
// nothing for a call.
func (p *Policy) Compiled() bool { return p.idx != nil && p.idx.current(p) }

// Equal reports whether p and q decide every call alike because their
// fields are equal: mode, flags and failure, the rule lists entry by entry
// (the same slice at once) and the workspace by its directories and home.
// What Compile prepared is not compared: of two equal policies one may be
// compiled and the other not. A slice is taken to hold what it held: as
// for Compile, rules are never changed in place (gate and mcp keep a
// merged policy while Equal holds).
func (p *Policy) Equal(q *Policy) bool {
	return p.Mode == q.Mode && p.NoPrompt == q.NoPrompt && p.NoSandbox == q.NoSandbox && p.Failed == q.Failed && p.ManagedRulesOnly == q.ManagedRulesOnly &&
		sameWorkspace(p.Workspace, q.Workspace) &&
		equalList(p.Deny, q.Deny) && equalList(p.Ask, q.Ask) && equalList(p.Allow, q.Allow) &&
		equalList(p.Constraint, q.Constraint) && equalList(p.Session, q.Session) && slices.Equal(p.Code, q.Code) &&
		slices.Equal(p.Hidden, q.Hidden) && slices.Equal(p.MCPTools, q.MCPTools) && (p.MCPTools == nil) == (q.MCPTools == nil) &&
		p.Sandbox.Equal(q.Sandbox)
}

// sameWorkspace reports whether a and b name the same directories.
func sameWorkspace(a, b Workspace) bool {
	return a.Cwd == b.Cwd && a.Root == b.Root && a.Home == b.Home && slices.Equal(a.Dirs, b.Dirs)
}

// equalList reports whether a and b hold the same rules: the same slice,
// or equal entry by entry.
func equalList[E comparable](a, b []E) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b))
}

// current reports whether rs was compiled from p's lists and workspace.
func (rs *ruleSet) current(p *Policy) bool {
	return rs.sameWorkspace(p.Workspace) && sameEntries(rs.deny.entries, p.Deny) && sameEntries(rs.ask.entries, p.Ask) &&
		sameEntries(rs.allow.entries, p.Allow) && sameRules(rs.session.rs, p.Session) && sameRules(rs.constraint.rs, p.Constraint)
}

func (rs *ruleSet) sameWorkspace(ws Workspace) bool {
	return rs.cwd == ws.Cwd && rs.root == ws.Root && rs.home == ws.Home
}

// sameEntries reports whether a and b are the same slice.
func sameEntries(a, b []Entry) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }
func sameRules(a, b []Rule) bool    { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }

// compileRules compiles p's lists, reusing the lists of prevs that hold
// the same rules in the same workspace.
func compileRules(p *Policy, prevs ...*ruleSet) *ruleSet {
	ws := p.Workspace
	rs := &ruleSet{cwd: ws.Cwd, root: ws.Root, home: ws.Home}
	reuse := func(pick func(*ruleSet) *ruleList, es []Entry, r []Rule) *ruleList {
		for _, prev := range prevs {
			if prev == nil || !prev.sameWorkspace(ws) {
				continue
			}
			old := pick(prev)
			if sameEntries(old.entries, es) && sameRules(old.rs, r) {
				return old
			}
			if slices.Equal(old.entries, es) && slices.Equal(old.rs, r) {
				l := *old
				l.entries, l.rs = es, r
				return &l
			}
		}
		return compileList(ws, es, r, true)
	}
	rs.deny = reuse(func(x *ruleSet) *ruleList { return x.deny }, p.Deny, nil)
	rs.ask = reuse(func(x *ruleSet) *ruleList { return x.ask }, p.Ask, nil)
	rs.allow = reuse(func(x *ruleSet) *ruleList { return x.allow }, p.Allow, nil)
	rs.session = reuse(func(x *ruleSet) *ruleList { return x.session }, nil, p.Session)
	rs.constraint = reuse(func(x *ruleSet) *ruleList { return x.constraint }, nil, p.Constraint)
	for _, prev := range prevs {
		if prev != nil && prev.code != nil && slices.Equal(prev.code.files, p.Code) {
			x := *prev.code
			x.files = p.Code
			rs.code = &x
			break
		}
	}
	if rs.code == nil {
		rs.code = newCodeIndex(p.Code)
	}
	for _, l := range []*ruleList{rs.deny, rs.ask, rs.allow, rs.session, rs.constraint} {
		if rs.failed == "" {
			rs.failed = l.failed
		}
	}
	return rs
}

// compileList compiles one list, given as entries or as bare rules, and
// indexes it unless it is short or indexed is false (every rule is then
// a candidate).
func compileList(ws Workspace, es []Entry, r []Rule, indexed bool) *ruleList {
	l := &ruleList{entries: es, rs: r}
	if es == nil {
		for _, x := range r {
			es = append(es, Entry{Rule: x})
		}
	}
	l.rules = make([]crule, len(es))
	small := len(es) <= smallList || !indexed
	var reals map[string]string // the anchors' real paths (compilePath)
	add := func(m *map[string][]int32, k string, i int32) {
		if *m == nil {
			*m = map[string][]int32{}
		}
		(*m)[k] = append((*m)[k], i)
	}
	addPath := func(x *pathIndex, cr *crule, i int32) {
		if k, ok := cr.pathKey(); ok {
			add(&x.bySeg, k, i)
		} else {
			x.any = append(x.any, i)
		}
	}
	for n, e := range es {
		i := int32(n)
		cr := &l.rules[n]
		cr.Entry = e
		l.all = append(l.all, i)
		r := e.Rule
		switch r.Tool {
		case "Bash":
			l.hasBash = true
		case "Read":
			l.hasRead = true
			l.reads = append(l.reads, i)
		}
		if r.Tool == "Read" || r.Tool == "Edit" || r.Tool == "Write" {
			l.hasPath = true
			l.namesPaths = l.namesPaths || r.Tool == "Read" || r.HasPattern
		}
		switch r.Tool {
		case "Bash":
			if r.HasPattern {
				cr.bash = compileBash(r.Pattern)
				cr.prog, _ = ruleProgram(r.Pattern)
				l.addMentionProg(cr.prog)
				if strings.Contains(cr.prog, "/") {
					if l.pathProgs == nil {
						l.pathProgs = make(map[string][]string)
					}
					if base := path.Base(cr.prog); !slices.Contains(l.pathProgs[base], cr.prog) {
						l.pathProgs[base] = append(l.pathProgs[base], cr.prog)
					}
				}
				if or, ok := compileOptionRule(r.Pattern); ok {
					cr.opt, cr.hasOpt = or, true
					if w, _, found := strings.Cut(r.Pattern, " "); found && !strings.ContainsRune(w, '*') {
						cr.canonLead = w + " "
					}
				}
			}
		case "Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep":
			if r.HasPattern {
				if reals == nil {
					reals = make(map[string]string, 3)
				}
				cr.path = compilePath(ws, r.Pattern, reals)
				if dir := unanchored(ws, r.Pattern); dir != "" && l.failed == "" {
					l.failed = fmt.Sprintf("rule %s is relative to the %s, which the policy's workspace does not give as an absolute path", r, dir)
				}
			}
		}
		if small {
			continue
		}
		l.indexed = true
		switch r.Tool {
		case "Bash":
			head, byHead := bashKey(r)
			tail, byTail := bashTailKey(r)
			switch {
			case strings.ContainsRune(r.Pattern, utf8.RuneError):
				// Such a pattern matches as a regular expression,
				// where an invalid byte of a command reads as U+FFFD:
				// no byte key covers it.
				l.bashAny = append(l.bashAny, i)
			case byHead:
				add(&l.bashKey, head, i)
			case byTail:
				add(&l.bashTail, tail[len(tail)-tailLen:], i)
			default:
				l.bashAny = append(l.bashAny, i)
			}
			if cr.prog != "" {
				add(&l.progs, cr.prog, i)
			}
			if !r.HasPattern {
				l.path.any = append(l.path.any, i) // a redirect under allow_tools Bash
			}
		case "Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep":
			if r.Tool == "Read" || r.Tool == "Edit" || r.Tool == "Write" {
				addPath(&l.cmdPath, cr, i)
			}
			addPath(&l.path, cr, i)
		}
		switch {
		case r.Tool == "MCP" || !r.HasPattern && mcpServerMatch(r.Tool, r.Tool+"__"):
			l.otherAny = append(l.otherAny, i)
		case r.Tool == "WebFetch" && r.HasPattern:
			if d := domainKey(r.Pattern); d != "" {
				add(&l.domains, d, i)
			} else {
				l.otherAny = append(l.otherAny, i)
			}
		default:
			add(&l.byTool, r.Tool, i)
		}
	}
	return l
}

// bashKey returns the first word of every command the Bash rule r
// matches: the pattern's literal text up to its first space, when no
// wildcard comes before that space (or the pattern ends without one).
func bashKey(r Rule) (string, bool) {
	if !r.HasPattern {
		return "", false
	}
	lit, prefix := strings.CutSuffix(r.Pattern, ":*")
	star := false
	if !prefix {
		if i := strings.IndexByte(lit, '*'); i >= 0 {
			lit, star = lit[:i], true
		}
	}
	if i := strings.IndexByte(lit, ' '); i >= 0 {
		return lit[:i], true
	}
	return lit, !star
}

// tailLen is the length of the bashTail keys.
const tailLen = 3

// bashTailKey returns, for a Bash pattern that starts with a wildcard,
// text every command it matches has at the end of one of its words (a
// word being a run of bytes other than " "): the pattern's first literal
// up to its first space ("*-helper *" needs a word ending in "-helper"),
// or a final literal without a space ("*.sh" needs the last word to end
// in ".sh"). ok is false when there is no such text of at least tailLen
// bytes, or the pattern is not of that shape.
func bashTailKey(r Rule) (string, bool) {
	if !r.HasPattern || strings.HasSuffix(r.Pattern, ":*") || !strings.HasPrefix(r.Pattern, "*") {
		return "", false
	}
	lit := strings.TrimLeft(r.Pattern, "*")
	end := strings.IndexByte(lit, '*')
	if end >= 0 {
		lit = lit[:end]
	}
	sp := strings.IndexByte(lit, ' ')
	switch {
	case sp >= 0:
		lit = lit[:sp] // the literal space follows the word's end
	case end >= 0:
		return "", false // "*x*": x may be anywhere in a word
	}
	if len(lit) < tailLen {
		return "", false
	}
	return lit, true
}

// addTails adds the bashTail rules keyed by the end of each word of s.
func (l *ruleList) addTails(buf []int32, s string) []int32 {
	for w := range strings.SplitSeq(s, " ") {
		if len(w) >= tailLen {
			buf = append(buf, l.bashTail[w[len(w)-tailLen:]]...)
		}
	}
	return buf
}

// firstWord returns s up to its first space.
func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// domainKey returns the domain a WebFetch pattern names, as domainMatch
// reads it: every host it matches is that domain or ends in "." and it.
func domainKey(pat string) string {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimPrefix(pat, "domain:")), ".")
	return strings.TrimPrefix(d, "*.")
}

// pathKey returns a segment every path the rule's pattern matches (or
// matches an ancestor of) contains: the last one without a wildcard. A
// pattern with classes, alternatives or escapes is keyed only by its
// literal leading directory.
func (cr *crule) pathKey() (string, bool) {
	if !cr.Rule.HasPattern {
		return "", false
	}
	// Keys are in lower case, as addSegs looks them up: deny and ask
	// rules match lower-cased paths too (foldMatch).
	pp := cr.path
	if pp.base {
		return foldCase(pp.abs), pp.literal
	}
	key := pp.segKey()
	if pp.alias != nil && pp.alias.segKey() != key {
		return "", false // the alias may match paths without key
	}
	return foldCase(key), key != ""
}

// segKey is pathKey's segment for an anchored pattern.
func (pp *pathPattern) segKey() string {
	lit := pp.abs
	if strings.ContainsAny(lit, `[]{}\`) {
		lit = pp.dir
	}
	key := ""
	for _, s := range strings.Split(lit, "/") {
		if s != "" && !strings.ContainsAny(s, "*?") {
			key = s
		}
	}
	return key
}

// addSegs adds the rules keyed by a segment of p, in lower case.
func (x *pathIndex) addSegs(buf []int32, p string) []int32 {
	if x.bySeg == nil {
		return buf
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg != "" {
			buf = append(buf, x.bySeg[foldCase(seg)]...)
		}
	}
	return buf
}

func (x *pathIndex) addTarget(buf []int32, t target) []int32 {
	buf = x.addSegs(buf, t.abs)
	if t.real != t.abs {
		buf = x.addSegs(buf, t.real)
	}
	return buf
}

// linear reports whether every rule of l is a candidate for every part.
func (l *ruleList) linear() bool { return !l.indexed }

func (x *pathIndex) empty() bool { return len(x.any) == 0 && len(x.bySeg) == 0 }

// candidates returns, in list order, the rules of l that may match part
// pt of c the way h says: every rule that matches is among them. The
// result lives in c's scratch space: it is valid until the next call.
func (l *ruleList) candidates(c *call, pt *part, h how) []int32 {
	if l.linear() {
		return l.all
	}
	buf := c.cand[:0]
	defer func() { c.cand = buf[:0] }()
	switch pt.kind {
	case kindCommand:
		buf = append(buf, l.bashAny...)
		if l.bashKey != nil {
			buf = append(buf, l.bashKey[firstWord(pt.allowForm)]...)
			for _, f := range pt.denyForms {
				buf = append(buf, l.bashKey[firstWord(f)]...)
			}
		}
		if l.bashTail != nil {
			buf = l.addTails(buf, pt.allowForm)
			for _, f := range pt.denyForms {
				buf = l.addTails(buf, f)
			}
		}
		if h.broad() && !l.cmdPath.empty() {
			buf = append(buf, l.cmdPath.any...)
			for _, t := range pt.reads {
				buf = l.cmdPath.addTarget(buf, t)
			}
			if h == matchDeny {
				ms, _ := c.mentionsOf(pt)
				for _, m := range ms {
					buf = l.cmdPath.addTarget(buf, m.t)
				}
			}
		}
	case kindRead, kindWrite:
		buf = append(buf, l.path.any...)
		buf = l.path.addTarget(buf, pt.path)
	default:
		buf = append(buf, l.otherAny...)
		buf = append(buf, l.byTool[pt.tool]...)
		if l.domains != nil && pt.tool == "WebFetch" {
			for h := pt.host; ; {
				buf = append(buf, l.domains[h]...)
				i := strings.IndexByte(h, '.')
				if i < 0 {
					break
				}
				h = h[i+1:]
			}
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// first returns the first rule of l that matches part pt of c the way h
// says, or nil.
func (l *ruleList) first(c *call, pt *part, h how) *crule {
	for _, i := range l.candidates(c, pt, h) {
		if cr := &l.rules[i]; c.matches(cr, pt, h) {
			return cr
		}
	}
	return nil
}

// mentioned returns the Bash rules of l whose program may be named by a
// word of toks (the words of a command's deny forms), in list order.
func (l *ruleList) mentioned(toks [][]string) []int32 {
	if l.linear() {
		return l.all
	}
	if l.progs == nil {
		return nil
	}
	var buf []int32
	look := func(k string) { buf = append(buf, l.progs[k]...) }
	for _, ts := range toks {
		for _, t := range ts {
			if t == "" {
				continue
			}
			look(t)
			base := path.Base(t)
			if base != t {
				look(base)
			}
			// Versioned names: python3.11 names python3 and python.
			for k := len(base) - 1; k >= 1; k-- {
				ch := base[k]
				if !(ch >= '0' && ch <= '9' || ch == '.' || ch == '-') {
					break
				}
				if isVersion(base[k:]) {
					look(base[:k])
				}
			}
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// isVersion reports what versionRe matches, without a regular expression.
func isVersion(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '.') {
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}
