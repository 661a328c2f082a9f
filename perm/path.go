package perm

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/workspace"
)

// checkPathPattern validates a path rule pattern.
func checkPathPattern(p string) error {
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("invalid path pattern %q", p)
	}
	return nil
}

// target is a file path a call touches: the cleaned absolute path as
// named, and the same path with symlinks resolved (equal when none).
type target struct {
	abs, real string
	// facts are worked out once where the target is resolved
	// (resolveTarget) and kept with a Resolver's answer (targetVal);
	// without factsKnown, each is worked out when asked.
	facts facts
}

// facts are properties of a target's forms, pure functions of its paths,
// that each call matching its mentions would otherwise work out again.
type facts uint8

const (
	factsKnown    facts = 1 << iota
	factPlain           // every form is asciiClean
	factSensitive       // a form is a sensitive path (sensitive)
)

// factsOf works out t's facts.
func factsOf(t target) facts {
	t.facts = 0
	f := factsKnown
	if t.isPlain() {
		f |= factPlain
	}
	if t.isSensitive() {
		f |= factSensitive
	}
	return f
}

// dirFacts is what factsOf needs to know of a directory to work out the
// facts of a path naming an entry of it from the entry's name alone
// (nameFacts): whether that is sure (fast), and whether the directory
// is in a system directory.
type dirFacts struct{ fast, system bool }

// dirFactsOf returns the dirFacts of the directory d. They are sure for
// an ASCII clean d that holds no segment starting with "." (it is in no
// sensitive directory), is not /dev (whose null, tty and the like are no
// sensitive paths) and holds no system directory (which d/name may be).
func dirFactsOf(d string) dirFacts {
	if !asciiClean(d) || d == "/dev" || strings.Contains(d, "/.") {
		return dirFacts{}
	}
	f := dirFacts{fast: true}
	for _, sd := range systemDirs {
		if filepath.Dir(sd) == d {
			return dirFacts{}
		}
		f.system = f.system || cleanWithin(d, sd)
	}
	return f
}

// nameFacts returns factsOf for the paths d/name and, if real is set,
// r/name, where d's dirFacts are df and r's rf, and true; or false
// where it is not sure (a dirFacts is not fast, or name is not a plain
// ASCII name outside the dot files). Such a path is ASCII clean; it is
// in a sensitive directory only if its directory is (sensitivePath's
// directories all start with "."), in a system directory only if its
// directory is (no system directory is d/name), and a sensitive file
// only by its name.
func nameFacts(df, rf dirFacts, real bool, name string) (facts, bool) {
	if !df.fast || real && !rf.fast || !plainName(name) || name[0] == '.' || !isASCII(name) {
		return 0, false
	}
	f := factsKnown | factPlain
	if df.system || real && rf.system || sensitiveFileSet.Get()[foldCase(name)] {
		f |= factSensitive
	}
	return f, true
}

// foldCase is s as a case-insensitive file system may take it, the form
// broad matching compares besides s itself: each letter replaced by one
// of its case orbit (unicode.SimpleFold), its first, upper-cased, then
// lower-cased. strings.ToLower leaves ſ (long s) and ı (dotless i) as
// they are, yet NTFS, whose upcase table makes them S and I, and a
// casefold ext4 directory, which folds ſ to s, open secrets/key for
// ſecrets/key; here ſ is s, ı is i, the Kelvin sign is k and ς is σ.
// An s already folded is returned as it is, with no copy (strings.ToLower
// and strings.Map copy only when a letter changes).
func foldCase(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return strings.Map(foldRune, s)
}

// foldRune is foldCase for one rune.
func foldRune(r rune) rune {
	first := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		first = min(first, f)
	}
	return unicode.ToLower(unicode.ToUpper(first))
}

// isPlain reports whether every form of t is asciiClean.
func (t target) isPlain() bool {
	if t.facts&factsKnown != 0 {
		return t.facts&factPlain != 0
	}
	return asciiClean(t.abs) && (t.real == t.abs || asciiClean(t.real))
}

// isSensitive reports whether sensitive(t) is not "".
func (t target) isSensitive() bool {
	if t.facts&factsKnown != 0 {
		return t.facts&factSensitive != 0
	}
	return sensitive(t) != ""
}

// forms returns the distinct paths of t.
func (t target) forms() []string {
	if t.real == t.abs {
		return []string{t.abs}
	}
	return []string{t.abs, t.real}
}

// Path semantics belong to package workspace; perm's analysis uses them
// under these short names.
var (
	resolvePath = workspace.Roots.Abs
	rawPath     = workspace.Roots.Raw
	hasDotDot   = workspace.HasDotDot
	physical    = workspace.Physical
	realPath    = workspace.RealPath
	within      = workspace.Within
	clean       = workspace.Clean
)

// Resolve returns the path p names (workspace.Roots.Abs) and the same
// path with its symlinks resolved the way the gate resolves them (the
// Path of a Result). Tools call it at the moment of use to check that
// nothing was swapped since the gate looked.
func Resolve(ws Workspace, p string) (abs, real string) {
	t := newTarget(ws, p)
	return t.abs, t.real
}

// newTarget resolves p and its symlinks. The longest existing prefix is
// resolved, so a path to a file about to be created under a symlinked
// directory is still seen through the link.
func newTarget(ws Workspace, p string) target {
	abs := resolvePath(ws, p)
	if raw := rawPath(ws, p); hasDotDot(raw) {
		return target{abs: abs, real: physical(raw)}
	}
	return target{abs: abs, real: realPath(abs)}
}

// inWorkspace reports whether both the named and the resolved path of t
// lie in the workspace: a link inside pointing outside is outside.
func inWorkspace(ws Workspace, t target) bool {
	for _, p := range t.forms() {
		if !ws.Contains(p) {
			return false
		}
	}
	return true
}

// absPattern turns a path rule pattern into an absolute doublestar pattern,
// or reports that it matches basenames (a pattern without a slash).
//
//	//abs   filesystem absolute
//	~/x     home relative
//	/x      project-root relative
//	./x, x/y cwd relative
//	name    any path whose basename (or, for broad matching, any ancestor's) matches
func absPattern(ws Workspace, pat string) (abs string, base bool) {
	switch {
	case strings.HasPrefix(pat, "//"):
		return pat[1:], false
	case pat == "~" || strings.HasPrefix(pat, "~/"):
		return escapeMeta(ws.Home) + strings.TrimPrefix(pat, "~"), false
	case strings.HasPrefix(pat, "/"):
		return escapeMeta(ws.Root) + pat, false
	case !strings.Contains(pat, "/"):
		return pat, true
	}
	return escapeMeta(ws.Cwd) + "/" + strings.TrimPrefix(pat, "./"), false
}

// unanchored returns the directory a path rule pattern is relative to
// ("home directory", "project root" or "working directory") when ws does
// not give it as an absolute path, or "". Such a pattern would be made
// absolute from "/" and match paths the rule's author never meant.
func unanchored(ws Workspace, pat string) string {
	if dir, name := anchorOf(&ws, pat); dir != nil && !filepath.IsAbs(*dir) {
		return name
	}
	return ""
}

// escapeMeta escapes doublestar metacharacters in a literal directory.
func escapeMeta(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pathPattern is a path rule pattern made absolute for one workspace.
type pathPattern struct {
	abs  string
	base bool // match basenames
	// dir is the pattern's literal leading directory, ending in "/": a
	// path matches only if it (or, for broad matching, an ancestor) lies
	// in it, so paths elsewhere are rejected without matching.
	dir string
	// literal is set when abs has no metacharacter: equality suffices.
	literal bool
	// star is set when abs is matched by starMatch: its only wildcards
	// are "*" within segments, or a final "/**" (globstar).
	star, globstar bool
	// starAbs is abs without that final "/**"; oneStar is the index of
	// its only "*", or -1.
	starAbs string
	oneStar int
	// dirOnly is set for a pattern written with a trailing "/" (abs is
	// without it): like a gitignore line it names a directory, so deny
	// and ask rules cover what is in it, and an allow rule matches
	// nothing (it never did: no clean path ends in "/").
	dirOnly bool
	// alias is the pattern anchored at the real path of the directory
	// it is relative to (the cwd, project root or home), when that
	// directory is reached through a symbolic link: deny and ask rules
	// match a file named by its real path too (/private/tmp/p/.env for
	// ./.env with the cwd /tmp/p). Allow rules do not use it.
	alias *pathPattern
	// folded is the pattern in lower case, for deny and ask rules: on a
	// case-insensitive file system (macOS, Windows, a casefold ext4
	// directory) SECRETS/k is secrets/k, so broad matching compares
	// lower-cased paths too (matching more is the safe side). nil when
	// the pattern has no upper case: then it is matched itself.
	folded *pathPattern
	// orig, in a folded pattern, is the pattern as written when it is
	// all ASCII (byte for byte an upper-case form of abs), else "".
	orig string
	// foldLit is abs in lower case when abs is an ASCII literal absolute
	// path, or such a path followed by "/**" (not a basename or
	// directory-only pattern): broad matching of an ASCII clean path is
	// then one comparison ignoring case (foldLiteral, foldLiteralOf).
	foldLit string
}

// compilePath compiles a path rule pattern for ws. The directory the
// pattern is relative to is resolved now, through reals (a few lstats
// once per directory): a link among the roots is re-pointed only by
// writing outside the workspace.
func compilePath(ws Workspace, pat string, reals map[string]string) pathPattern {
	pp := compileAnchored(ws, pat)
	if anchor, _ := anchorOf(&ws, pat); anchor != nil && filepath.IsAbs(*anchor) {
		real, ok := reals[*anchor]
		if !ok {
			real = realPath(*anchor)
			reals[*anchor] = real
		}
		if real != *anchor && filepath.IsAbs(real) {
			*anchor = real
			alias := compileAnchored(ws, pat)
			pp.alias = &alias
		}
	}
	return pp
}

// anchorOf returns the field of ws that the pattern pat is relative to
// (absPattern) and what it is called, or nil for an absolute or basename
// pattern.
func anchorOf(ws *Workspace, pat string) (dir *string, name string) {
	switch {
	case strings.HasPrefix(pat, "//") || !strings.Contains(pat, "/") && pat != "~":
		return nil, ""
	case pat == "~" || strings.HasPrefix(pat, "~/"):
		return &ws.Home, "home directory"
	case strings.HasPrefix(pat, "/"):
		return &ws.Root, "project root"
	}
	return &ws.Cwd, "working directory"
}

// compileAnchored is compilePath without the alias.
func compileAnchored(ws Workspace, pat string) pathPattern {
	ap, base := absPattern(ws, pat)
	pp := compileAbs(cleanPattern(ap), base)
	if lower := foldCase(pp.abs); lower != pp.abs {
		f := compileAbs(lower, base)
		f.dirOnly = pp.dirOnly
		if isASCII(pp.abs) {
			f.orig = pp.abs
		}
		pp.folded = &f
	}
	if lit, ok := foldLiteralOf(&pp); ok {
		pp.foldLit = strings.ToLower(lit)
	}
	return pp
}

// foldLiteralOf returns the ASCII clean absolute path that broad matching
// of pp amounts to (foldLiteral): pp itself when it is such a literal,
// or the literal before a final "/**", which broad matching finds in a
// path just as it finds that literal (starMatch: the literal, or
// anything under it). Basename and directory-only patterns match
// otherwise.
func foldLiteralOf(pp *pathPattern) (string, bool) {
	var lit string
	switch {
	case pp.base || pp.dirOnly:
		return "", false
	case pp.literal:
		lit = pp.abs
	case pp.star && pp.globstar:
		lit = pp.starAbs
	default:
		return "", false
	}
	return lit, asciiClean(lit)
}

// compileAbs compiles a clean absolute (or basename) pattern.
func compileAbs(abs string, base bool) pathPattern {
	pp := pathPattern{abs: abs, base: base}
	if len(pp.abs) > 1 && strings.HasSuffix(pp.abs, "/") {
		pp.abs, pp.dirOnly = strings.TrimRight(pp.abs, "/"), true
		if pp.abs == "" {
			pp.abs = "/"
		}
	}
	pp.literal = !strings.ContainsAny(pp.abs, `*?[{\`)
	if !base {
		lit := pp.abs
		if i := strings.IndexAny(lit, `*?[{\`); i >= 0 {
			lit = lit[:i]
		}
		pp.dir = lit[:strings.LastIndexByte(lit, '/')+1]
	}
	if !pp.literal {
		pp.setStar(pp.abs)
	}
	return pp
}

// setStar sets pp's star fields for the pattern pat (starPattern).
func (pp *pathPattern) setStar(pat string) {
	pp.starAbs, pp.globstar, pp.star = starPattern(pat)
	pp.oneStar = -1
	if pp.star && !pp.globstar && strings.Count(pp.starAbs, "*") == 1 {
		pp.oneStar = strings.IndexByte(pp.starAbs, '*')
	}
}

// starMatch is doublestar.Match(pp.abs, q) for a star pattern: a literal
// before a final "/**" is q or an ancestor of it; A*B is q starting with
// A and ending with B with no "/" between; others go segment by segment.
func (pp *pathPattern) starMatch(q string) bool {
	switch r := pp.starAbs; {
	case pp.globstar:
		return q == r || len(q) > len(r) && q[len(r)] == '/' && q[:len(r)] == r
	case pp.oneStar >= 0:
		a, b := r[:pp.oneStar], r[pp.oneStar+1:]
		return len(q) >= len(a)+len(b) && strings.HasPrefix(q, a) && strings.HasSuffix(q, b) &&
			strings.IndexByte(q[len(a):len(q)-len(b)], '/') < 0
	}
	return starMatch(pp.starAbs, q, false)
}

// starPattern reports whether doublestar.Match(pat, q) is starMatch(rest,
// q, globstar) for every q: pat's only metacharacters are "*" within
// segments, or a final "/**" after literal text, and it is valid UTF-8 without U+FFFD (which
// doublestar compares to any invalid byte, by runes).
func starPattern(pat string) (rest string, globstar, ok bool) {
	if !utf8.ValidString(pat) || strings.ContainsRune(pat, utf8.RuneError) || strings.ContainsAny(pat, `?[]{}\,`) {
		return "", false, false
	}
	rest, globstar = strings.CutSuffix(pat, "/**")
	// Before a final "/**" only literal text is read this way: doublestar
	// does not let "/*/**" match "/", which "/*" matches.
	if globstar && strings.Contains(rest, "*") || strings.Contains(rest, "**") {
		return "", false, false
	}
	return rest, globstar, true
}

// starMatch matches q against pat segment by segment ("/" separates;
// "*" matches any run of bytes within a segment). With globstar, q may
// go on with "/" and anything after the segments pat matches: a final
// "/**" matches zero or more directories.
func starMatch(pat, q string, globstar bool) bool {
	for {
		pseg, prest, pmore := strings.Cut(pat, "/")
		qseg, qrest, qmore := strings.Cut(q, "/")
		if !segmentMatch(pseg, qseg) {
			return false
		}
		if !pmore {
			return !qmore || globstar
		}
		if !qmore {
			return false
		}
		pat, q = prest, qrest
	}
}

// segmentMatch matches one segment against a pattern segment whose only
// wildcard is "*": the leftmost placement of each literal run, backing up
// to the last "*" on a mismatch.
func segmentMatch(p, s string) bool {
	px, sx := 0, 0
	star, next := -1, 0 // the last "*" seen, and where its match ends
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			if p[px] == '*' {
				star, next = px, sx
				px++
				continue
			}
			if sx < len(s) && p[px] == s[sx] {
				px++
				sx++
				continue
			}
		}
		if star >= 0 && next < len(s) {
			next++
			px, sx = star+1, next
			continue
		}
		return false
	}
	return true
}

// match matches one absolute path. Broad matching (deny, ask) also fires
// when the pattern names an ancestor directory of the path: denying a
// directory denies what is in it.
func (pp pathPattern) match(p string, broad bool) bool {
	if pp.dirOnly && !broad {
		return false
	}
	// Any q matching the pattern has q+"/" starting with dir (a "/**" may
	// match dir itself), and q is p or an ancestor of p.
	if !dirPrefix(p, pp.dir) {
		return false
	}
	// The ancestors of a clean absolute path are found by cutting at its
	// last "/"; filepath.Dir is for anything else.
	cut := len(p) > 0 && p[0] == '/' && clean(p) == p
	if cut && pp.literal && !pp.base {
		return literalMatch(pp.abs, p, broad)
	}
	for q := p; ; {
		if !pp.base && !dirPrefix(q, pp.dir) {
			return false // q and every ancestor of it are outside dir
		}
		subject := q
		if pp.base {
			subject = filepath.Base(q)
		}
		switch {
		case pp.literal:
			if subject == pp.abs {
				return true
			}
		case pp.star:
			if pp.starMatch(subject) {
				return true
			}
		default:
			if ok, _ := doublestar.Match(pp.abs, subject); ok {
				return true
			}
		}
		if !broad {
			return false
		}
		var parent string
		switch i := strings.LastIndexByte(q, '/'); {
		case !cut:
			parent = filepath.Dir(q)
		case i > 0:
			parent = q[:i]
		default:
			parent = "/"
		}
		if parent == q {
			return false
		}
		q = parent
	}
}

// literalMatch is match for a pattern without metacharacters and a clean
// absolute p: p is lit, or (broad) an ancestor of p is, which is lit
// followed by "/" starting p, or lit is the root.
func literalMatch(lit, p string, broad bool) bool {
	if p == lit {
		return true
	}
	return broad && lit != "" && (lit == "/" || len(p) > len(lit) && p[len(lit)] == '/' && p[:len(lit)] == lit)
}

// dirPrefix reports whether q+"/" starts with dir, without building it.
func dirPrefix(q, dir string) bool {
	if len(dir) == len(q)+1 {
		return dir[len(q)] == '/' && dir[:len(q)] == q
	}
	return strings.HasPrefix(q, dir)
}

// cleanPattern removes "." and ".." segments a pattern was written with, so
// "./src/../lib/**" compares equal to the cleaned paths it is matched
// against. Patterns are validated at parse time.
func cleanPattern(p string) string {
	if !strings.Contains(p, "/.") {
		return p
	}
	trail := strings.HasSuffix(p, "/")
	c := filepath.Clean(p)
	if trail {
		c += "/"
	}
	return c
}

// targetMatch applies a path pattern to every form of t: broad matching
// fires if any form matches; narrow matching needs all of them to.
func targetMatch(pp pathPattern, t target, broad bool) bool {
	return targetMatchFold(pp, t, nil, broad)
}

// targetMatchFold is targetMatch with a cache for t lower-cased (nil:
// none): a path matched against many rules is lower-cased at most once.
func targetMatchFold(pp pathPattern, t target, fc *foldCache, broad bool) bool {
	if broad && pp.foldLit != "" && t.isPlain() {
		// What matching each form as it is and lower-cased finds.
		if foldLiteral(pp.foldLit, t.abs) || t.real != t.abs && foldLiteral(pp.foldLit, t.real) {
			return true
		}
		return pp.alias != nil && targetMatchFold(*pp.alias, t, fc, true)
	}
	for _, p := range t.forms() {
		m := pp.match(p, broad)
		if broad && m {
			return true
		}
		if !broad && !m {
			return false
		}
	}
	if !broad {
		return true
	}
	if foldMatch(pp, t, fc) {
		return true
	}
	return pp.alias != nil && targetMatchFold(*pp.alias, t, fc, true)
}

// asciiClean reports whether p is an absolute, clean, all-ASCII path.
func asciiClean(p string) bool {
	return len(p) > 0 && p[0] == '/' && isASCII(p) && clean(p) == p
}

// foldLiteral reports whether the ASCII clean absolute path p, ignoring
// case, is the lower-case literal lit or lies under it: what broad
// matching finds for p and for p lower-cased.
func foldLiteral(lit, p string) bool {
	if lit == "/" {
		return true
	}
	return len(p) >= len(lit) && (len(p) == len(lit) || p[len(lit)] == '/') && strings.EqualFold(p[:len(lit)], lit)
}

// foldCache holds a target lower-cased, worked out on first use.
type foldCache struct {
	t    target
	done bool
}

func (fc *foldCache) get(t target) target {
	if !fc.done {
		fc.t.abs = foldCase(t.abs)
		fc.t.real = fc.t.abs
		if t.real != t.abs {
			fc.t.real = foldCase(t.real)
		}
		fc.done = true
	}
	return fc.t
}

// foldMatch is broad matching of the lower-cased forms of t against the
// lower-cased pattern. A form that lower-casing leaves as it is was
// matched already against a pattern without upper case. Forms are
// lower-cased (through fc, if not nil) only when one may match
// (foldCandidate): most paths are ruled out by their first bytes.
func foldMatch(pp pathPattern, t target, fc *foldCache) bool {
	fp := &pp
	if pp.folded != nil {
		fp = pp.folded
	}
	if !foldCandidate(t.abs, fp) && (t.real == t.abs || !foldCandidate(t.real, fp)) {
		return false
	}
	if fc == nil {
		fc = &foldCache{}
	}
	l := fc.get(t)
	if pp.folded == nil && l.abs == t.abs && l.real == t.real {
		return false
	}
	for _, p := range l.forms() {
		if fp.match(p, true) {
			return true
		}
	}
	return false
}

// foldCandidate reports whether p lower-cased may match the lower-case
// pattern fp broadly: false only if its first bytes, lower-cased as
// ASCII, rule it out. match needs the pattern's literal directory as a
// prefix, and a literal pattern matched against a clean path the whole
// pattern, followed by nothing or "/".
func foldCandidate(p string, fp *pathPattern) bool {
	if fp.base {
		return true
	}
	dir := fp.dir
	if len(p)+1 == len(dir) {
		// dirPrefix: p+"/" is dir. Where p is not all ASCII, lower-casing
		// may change its length: nothing is known.
		if !isASCII(p) {
			return true
		}
		if dir[len(p)] != '/' {
			return false
		}
		dir = dir[:len(p)]
	}
	if ok, known := foldPrefix(p, dir, fp.orig); !known {
		return true
	} else if !ok {
		return false
	}
	if !fp.literal || fp.abs == "/" || len(p) == 0 || p[0] != '/' {
		return true
	}
	if ok, known := foldPrefix(p, fp.abs, fp.orig); !known || ok && (len(p) == len(fp.abs) || p[len(fp.abs)] == '/') {
		return true
	}
	return clean(p) != p // match goes through the ancestors of a path not clean
}

// foldPrefix reports whether p starts with pre once lower-cased as ASCII.
// known is false when a byte of p outside ASCII comes first: lower-casing
// it may change p's length, so nothing is known. alt, if not "", is an
// ASCII string whose lower case starts with pre.
func foldPrefix(p, pre, alt string) (ok, known bool) {
	// A block of p equal to pre's (lower case) or alt's (ASCII, so its
	// lower case is pre's) is equal lower-cased: compared a block at a
	// time, they are most of a path's prefix (the workspace's
	// directories).
	const block = 16
	i := 0
	for ; i+block <= len(pre) && i+block <= len(p); i += block {
		if q := p[i : i+block]; q != pre[i:i+block] && (len(alt) < i+block || q != alt[i:i+block]) {
			break
		}
	}
	for ; i < len(pre); i++ {
		if i == len(p) {
			return false, true
		}
		b := p[i]
		if b >= utf8.RuneSelf {
			return false, false
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != pre[i] {
			return false, true
		}
	}
	return true, true
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Sensitive directories and files: writing them can change how tools,
// shells or credentials behave, so they always need a person's approval.
// Both lists are in lower case: paths are compared lower-cased.
var (
	sensitiveDirs = []string{
		".git", ".gen", ".claude", ".vscode", ".idea", ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud",
		".husky", ".github/workflows", ".config/fish", ".config/git", ".config/systemd", ".config/autostart", ".local/bin",
		".config/environment.d", ".config/plasma-workspace", ".config/upstart", ".config/nvim", ".config/code/user",
		".devcontainer", ".circleci", ".cargo", ".gitlab", ".buildkite", ".mise", ".config/mise",
	}
	sensitiveFiles = []string{
		".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
		".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc", ".gitconfig", ".gitmodules", ".npmrc",
		".yarnrc", ".pypirc", ".netrc", ".env", ".envrc", ".git-credentials", ".pgpass", ".mcp.json",
		".bash_aliases", ".vimrc", ".exrc", ".tmux.conf", ".xprofile", ".xinitrc", ".pam_environment",
		".gitattributes", "authorized_keys", ".pre-commit-config.yaml",
		"sitecustomize.py", "usercustomize.py", ".yarnrc.yml", ".pnpmrc", ".bunfig.toml", "bunfig.toml",
		".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", "bitbucket-pipelines.yml", ".travis.yml",
		".xsession", ".xsessionrc", ".pythonrc", ".pythonstartup",
		// Run on entering the directory (mise's hooks and env sources,
		// like direnv's .envrc) or by every install (pnpm's hooks).
		"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".pnpmfile.cjs",
	}
	systemDirs = []string{"/etc", "/dev", "/proc", "/sys", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/var/spool/cron"}
)

// sensitive returns a label if writing t would touch a sensitive or system
// path ("" otherwise). Either form of t counts.
func sensitive(t target) string {
	for _, p := range t.forms() {
		if l := sensitivePath(p); l != "" {
			return l
		}
	}
	return ""
}

func sensitivePath(p string) string {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return ""
	}
	// within(p, d) for every system directory, with p cleaned once: the
	// directories are clean and absolute, so containment is a prefix
	// ending at a separator; a relative p is in none of them.
	if len(p) > 0 && p[0] == '/' {
		cp := clean(p)
		for _, d := range systemDirs {
			if cleanWithin(cp, d) {
				return d + "/"
			}
		}
	}
	// Compared case-insensitively: on a case-insensitive file system
	// .GIT/ is .git/, and matching more is the safe side. Every
	// sensitive directory starts with ".": a path without a segment that
	// does is in none of them, and need not be lower-cased.
	if p = filepath.ToSlash(p); strings.Contains(p, "/.") {
		lower := foldCase(p)
		for _, d := range sensitiveDirs {
			if hasSegments(lower, d) {
				return d + "/"
			}
		}
	}
	base := foldCase(filepath.Base(p))
	if sensitiveFileSet.Get()[base] || strings.HasPrefix(base, ".env.") {
		return base
	}
	return ""
}

// sensitiveFileSet is the set of sensitiveFiles, made on first use.
var sensitiveFileSet = lazy.Value[map[string]bool]{New: func() map[string]bool {
	m := make(map[string]bool, len(sensitiveFiles))
	for _, f := range sensitiveFiles {
		m[f] = true
	}
	return m
}}

// cleanWithin is workspace.Within for clean absolute paths: p is dir or
// inside it.
func cleanWithin(p, dir string) bool {
	return dir == "/" || p == dir || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// hasSegments reports whether the path p+"/" contains "/"+d+"/": d as
// whole segments of p.
func hasSegments(p, d string) bool {
	for i := 0; i+len(d) <= len(p); {
		j := strings.Index(p[i:], d)
		if j < 0 {
			return false
		}
		j += i
		if end := j + len(d); j > 0 && p[j-1] == '/' && (end == len(p) || p[end] == '/') {
			return true
		}
		i = j + 1
	}
	return false
}

// isDevice reports whether p is a block device node path such as /dev/sda.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	for _, pre := range []string{"/dev/sd", "/dev/hd", "/dev/nvme", "/dev/vd", "/dev/xvd", "/dev/mmcblk", "/dev/disk", "/dev/mapper/"} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
