package bash

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/internal/lazy"
)

// Word is one shell word as the permission engine sees it.
//
// Invariant: Value is empty unless Static is true, and Glob and Tilde are
// only ever set on a Static word.
type Word struct {
	// Raw is the source text as written, e.g. `r'm'` or `"$HOME"/x`.
	Raw string
	// Value is the word with its quoting removed (backslash escapes
	// resolved, $'...' decoded) if the word is Static; else "".
	Value string
	// Static reports that the word is made only of literal text: no
	// parameter, command, arithmetic or process substitution, no brace
	// expansion, no extended glob and no tilde form other than a leading
	// "~" or "~/" (and none after "=" or ":" in an assignment-like word),
	// or a leading "~+" or "~+/" ($PWD), whose Value starts with "."
	// instead.
	Static bool
	// Glob reports unquoted pathname-expansion characters (*, ?, [): the
	// shell may replace the word with file names, so Value is a pattern.
	Glob bool
	// Tilde reports that Value starts with an unquoted "~" (alone or before
	// "/") that the shell replaces with $HOME. A quoted "~" is literal and
	// leaves Tilde false.
	Tilde bool
	// Braces holds the words a brace expansion (c{u,x}rl, .{env,x})
	// makes of a word that is otherwise static, in order, when there are
	// at most maxBraces of them; nil otherwise. Such a word is not Static.
	Braces []Word
}

// maxBraces bounds the words one brace expansion is followed into, and
// maxBraceOpens the unquoted "{" of a word whose brace expansions are
// looked for: splitting unbalanced ones ({a,{a,{a,...) costs time and
// memory in the square of their number. A word past either is not
// static.
const (
	maxBraces     = 64
	maxBraceOpens = 2 * maxBraces
)

// newWord returns the Word for w, whose source text is src.
func newWord(w *syntax.Word, src string) Word {
	out := unquote(w)
	out.Raw = sourceText(src, w)
	return out
}

// sourceText returns the text of n in src. Positions come from the parser
// that read src, so they are in range; the check keeps a bug there from
// turning into a panic in the permission path.
func sourceText(src string, n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if start > end || end > uint(len(src)) {
		return ""
	}
	return src[start:end]
}

// unquote resolves the quoting of w the way the shell would, without
// expanding anything. It is the one place that decides whether a word is
// static; every other function trusts its answer. Raw is left empty.
func unquote(w *syntax.Word) Word {
	if len(w.Parts) == 1 {
		if out, ok := unquoteSimple(w.Parts[0]); ok {
			return out
		}
	}
	return unquoteFull(w)
}

// unquoteFull is unquote for every word; unquote only uses it when
// unquoteSimple cannot answer, and FuzzUnquote checks the two agree.
func unquoteFull(w *syntax.Word) Word {
	var (
		b       strings.Builder
		out     Word
		unknown bool // an unquoted "~" after "=" or ":" that may expand
		bracket = -1 // where an unquoted "[" is in the value, if any
	)
	b.Grow(literalLen(w))
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			val := p.Value
			if i == 0 && strings.HasPrefix(val, "~") {
				prefix, _, found := strings.Cut(val, "/")
				switch {
				case !found && len(w.Parts) > 1:
					return Word{} // ~"x", ~+"x": a quoted tilde-prefix is literal
				case prefix == "~+":
					// bash replaces ~+ with $PWD, the directory the
					// command runs in: "." names it (a script that sets
					// PWD makes the gate's directories unsure).
					b.WriteByte('.')
					val = val[len(prefix):]
				case prefix != "~":
					return Word{} // ~user, ~- ($OLDPWD): unknown here
				default:
					out.Tilde = true
				}
			}
			start := b.Len()
			glob, tilde := unescape(&b, val, i > 0 || !out.Tilde)
			if glob == globBracket {
				if bracket < 0 {
					bracket = start + strings.IndexByte(b.String()[start:], '[')
				}
			} else if glob == globYes {
				out.Glob = true
			}
			unknown = unknown || tilde
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(decodeANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			// $"..." is a locale translation: the plain string is its
			// text without a message catalogue, the reading deny rules
			// see. A catalogue (TEXTDOMAIN, TEXTDOMAINDIR, a file the
			// script or an earlier command wrote) may replace it with
			// any text, so the collector flags it (labelLocale).
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return Word{}
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return Word{}
		}
	}
	if hasBraceExpansion(w) {
		return Word{Braces: braceWords(w)}
	}
	return finish(out, b.String(), bracket, unknown)
}

// braceWords returns the static words the brace expansion of w makes, or
// nil if there are more than maxBraces of them or of its brace groups, or
// one of them is not static.
func braceWords(w *syntax.Word) []Word {
	if opens, _ := litBraces(w); opens > maxBraceOpens {
		return nil // splitting them costs time and memory in the square of their number
	}
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	syntax.SplitBraces(cp)
	if braceCount(cp.Parts, maxBraces) > maxBraces {
		// Expanding many brace groups costs the square of their number
		// before the first word, and their words would be too many.
		return nil
	}
	var out []Word
	for x, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) == maxBraces {
			return nil
		}
		v := unquoteFull(joinLits(x))
		if !v.Static {
			return nil
		}
		v.Raw = v.Value // a glob or "~" stays unquoted: it still expands
		if !v.Glob && !v.Tilde {
			v.Raw = quoteString(v.Value)
		}
		out = append(out, v)
	}
	return out
}

// braceCount counts the brace expansions in parts, nested ones included,
// stopping once it passes limit.
func braceCount(parts []syntax.WordPart, limit int) int {
	n := 0
	for _, p := range parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n++
		for _, e := range b.Elems {
			if n > limit {
				return n
			}
			n += braceCount(e.Parts, limit-n)
		}
	}
	return n
}

// joinLits returns w with each run of adjacent literal parts made one, as
// the shell reads the word a brace expansion makes: {~,x}/a is ~/a and
// x/a, so its "~" is a tilde-prefix, while the quoted "~" of {'~',x}/a
// stays literal.
func joinLits(w *syntax.Word) *syntax.Word {
	parts := w.Parts[:0:0]
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if n := len(parts); ok && n > 0 {
			if prev, ok := parts[n-1].(*syntax.Lit); ok {
				parts[n-1] = &syntax.Lit{ValuePos: prev.ValuePos, ValueEnd: lit.ValueEnd, Value: prev.Value + lit.Value}
				continue
			}
		}
		parts = append(parts, p)
	}
	return &syntax.Word{Parts: parts}
}

// literalLen returns the length of w's literal text as written, which
// bounds the unquoted value's length closely enough to size a buffer.
func literalLen(w *syntax.Word) int {
	n := 0
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			n += len(p.Value)
		case *syntax.SglQuoted:
			n += len(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					n += len(lit.Value)
				}
			}
		}
	}
	return n
}

// finish completes unquote's answer for the unquoted value v, in which an
// unquoted "[" is at bracket (-1 if none) and, if unknown, an unquoted "~"
// follows "=" or ":".
func finish(out Word, v string, bracket int, unknown bool) Word {
	out.Value = v
	if bracket >= 0 && strings.Contains(out.Value[bracket+1:], "]") {
		// "[" only starts a pattern when a "]" can close it: a lone
		// "[" (the test command) is literal.
		out.Glob = true
	}
	if unknown && looksLikeAssignment(out.Value) {
		// bash expands "~" after "=" and ":" in NAME=value arguments.
		return Word{}
	}
	out.Static = true
	return out
}

// unquoteSimple is unquote for a word of one part whose value is its text
// as written: a literal without backslashes, a plain single-quoted string,
// or a double-quoted literal without backslashes. It needs no copy of the
// text. ok is false for every other word, which unquote handles in full.
func unquoteSimple(part syntax.WordPart) (out Word, ok bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		val := p.Value
		if plain(val) {
			return Word{Value: val, Static: true}, true // what the lines below make of it
		}
		if strings.IndexByte(val, '\\') >= 0 || strings.IndexByte(val, '{') >= 0 {
			return Word{}, false
		}
		if strings.HasPrefix(val, "~") {
			switch prefix, _, _ := strings.Cut(val, "/"); prefix {
			case "~":
				out.Tilde = true
			case "~+":
				return Word{}, false // its value is not its text
			default:
				return Word{}, true // ~user, ~-: not a plain $HOME
			}
		}
		glob, tilde := unescape(nil, val, !out.Tilde)
		bracket := -1
		if glob == globBracket {
			bracket = strings.IndexByte(val, '[')
		} else if glob == globYes {
			out.Glob = true
		}
		return finish(out, val, bracket, tilde), true
	case *syntax.SglQuoted:
		if p.Dollar {
			return Word{}, false
		}
		return Word{Value: p.Value, Static: true}, true
	case *syntax.DblQuoted:
		switch len(p.Parts) {
		case 0:
			return Word{Static: true}, true
		case 1:
			if lit, isLit := p.Parts[0].(*syntax.Lit); isLit && strings.IndexByte(lit.Value, '\\') < 0 {
				return Word{Value: lit.Value, Static: true}, true
			}
		}
	}
	return Word{}, false
}

// plain reports a literal with none of the characters unquote looks at:
// no backslash, brace, tilde or pattern character.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if special[s[i]] {
			return false
		}
	}
	return true
}

var special = [256]bool{'\\': true, '{': true, '~': true, '*': true, '?': true, '[': true}

// globKind is what unescape found: no pattern character, only a "["
// (a pattern only if a "]" follows), or "*" or "?".
type globKind int

const (
	globNo globKind = iota
	globBracket
	globYes
)

// unescape writes the unquoted literal s to b with backslash escapes
// resolved (nothing if b is nil: s has no backslash). It reports unquoted glob characters and whether an unquoted "~"
// follows "=" or ":". A leading "~" is only reported when checkFirst is set.
func unescape(b *strings.Builder, s string, checkFirst bool) (glob globKind, tilde bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if b != nil && s[i] != '\n' { // a backslash-newline is a line continuation: nothing
				b.WriteByte(s[i])
			}
			continue
		case c == '*' || c == '?':
			glob = globYes
		case c == '[' && glob == globNo:
			glob = globBracket
		case c == '~' && i > 0 && (s[i-1] == '=' || s[i-1] == ':'):
			tilde = true
		case c == '~' && i == 0 && checkFirst:
			tilde = true
		}
		if b != nil {
			b.WriteByte(c)
		}
	}
	return glob, tilde
}

// unescapeDouble resolves the backslash escapes that are special inside
// double quotes; every other backslash is literal there.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasBraceExpansion reports whether the shell would brace-expand w. It works
// on a copy: syntax.SplitBraces rewrites the word it is given, and reports
// any "{" it saw, even one that stays literal ("{a}").
func hasBraceExpansion(w *syntax.Word) bool {
	// An expansion needs a "{" and a "," or a ".." in the literal parts;
	// without them (the common case, and find's "{}") there is no need
	// for the copy.
	open, sep := litBraces(w)
	switch {
	case open == 0 || !sep:
		return false
	case open > maxBraceOpens:
		// Too many to split (braceWords makes none of them): taken for
		// an expansion, the word is not static.
		return true
	}
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(cp) {
		return false
	}
	return slices.ContainsFunc(cp.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.BraceExp)
		return ok
	})
}

// litBraces counts the "{" in w's literal parts, and reports whether they
// hold a "," or a "." (an expansion needs one of them too).
func litBraces(w *syntax.Word) (opens int, sep bool) {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			opens += strings.Count(lit.Value, "{")
			sep = sep || strings.IndexByte(lit.Value, ',') >= 0 || strings.IndexByte(lit.Value, '.') >= 0
		}
	}
	return opens, sep
}

// looksLikeAssignment reports whether s has the form NAME=... or NAME+=...
func looksLikeAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	name = strings.TrimSuffix(name, "+")
	return ok && validName(name)
}

// validName reports whether s is a valid shell variable name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !isASCIILetter(r) && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// decodeANSIC decodes the body of a $'...' string as bash does. A NUL ends
// the string, as it does in bash.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		c := s[i]
		if r, ok := simpleEscapes.Get()[c]; ok {
			b.WriteByte(r)
			continue
		}
		var (
			val    uint64
			n      int
			isRune bool
		)
		switch c {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			val, n = digits(s[i:], 8, 3)
			i += n - 1
		case 'x':
			if i+1 < len(s) && s[i+1] == '{' {
				// \x{H...}: every hex digit up to an optional "}",
				// of whose value bash keeps the low byte (a ksh93
				// form, bash 5.2: $'\x{2e}env' is .env). With no
				// digit the value is 0, which ends the string.
				j := i + 2
				for ; j < len(s) && isDigit(s[j], 16); j++ {
					d, _ := digits(s[j:j+1], 16, 1)
					val = val<<4 | d
				}
				if j < len(s) && s[j] == '}' {
					j++
				}
				val, n = val&0xff, j-i
				i = j - 1
				break
			}
			val, n = digits(s[i+1:], 16, 2)
			i += n
		case 'u':
			val, n = digits(s[i+1:], 16, 4)
			i += n
			isRune = true
		case 'U':
			val, n = digits(s[i+1:], 16, 8)
			i += n
			isRune = true
		case 'c':
			// \cX is control-X, \c? is DEL, and \c\\ (an escaped
			// backslash) is control-backslash, both backslashes used.
			if i+1 < len(s) {
				i++
				ch := s[i]
				if ch == '\\' && i+1 < len(s) && s[i+1] == '\\' {
					i++
				}
				val, n = uint64(ch&0x1f), 1
				if ch == '?' {
					val = 0x7f
				}
			}
		}
		switch {
		case n == 0:
			b.WriteByte('\\') // unknown escape or no digits: kept as written
			b.WriteByte(c)
			continue
		case val == 0:
			return b.String()
		case isRune:
			if val > utf8.MaxRune {
				val = utf8.RuneError
			}
			b.WriteRune(rune(val))
		default:
			b.WriteByte(byte(val))
		}
	}
	return b.String()
}

var simpleEscapes = lazy.Value[map[byte]byte]{New: func() map[byte]byte {
	return map[byte]byte{
		'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'n': '\n',
		'r': '\r', 't': '\t', 'v': '\v', '\\': '\\', '\'': '\'', '"': '"', '?': '?',
	}
}}

// digits parses up to max leading digits of s in base and returns the value
// and how many bytes it used.
func digits(s string, base, max int) (uint64, int) {
	n := 0
	for n < len(s) && n < max && isDigit(s[n], base) {
		n++
	}
	if n == 0 {
		return 0, 0
	}
	v, _ := strconv.ParseUint(s[:n], base, 64)
	return v, n
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base >= 10
	case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}

// quote renders a static value for a permission form: as is when the shell
// would read it back unchanged, else in single quotes. A Tilde word keeps
// its "~" outside the quotes so that it still means $HOME.
func quote(w *Word) string {
	if w.Tilde {
		return "~" + quoteString(strings.TrimPrefix(w.Value, "~"))
	}
	return quoteString(w.Value)
}

// quoteString single-quotes s if it is empty or holds white space, a quote,
// a shell metacharacter or a non-printable character.
func quoteString(s string) string {
	if s != "" && !quoted(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoted reports whether s holds a rune needsQuote reports, looking ASCII
// bytes up in quoteByte.
func quoted(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf {
			return strings.ContainsFunc(s[i:], needsQuote)
		}
		if quoteByte[b] {
			return true
		}
	}
	return false
}

func needsQuote(r rune) bool {
	return r < 0x20 || r == 0x7f || r == utf8.RuneError ||
		strings.ContainsRune(quoteChars, r)
}

// quoteChars are the printable characters quoteString quotes.
const quoteChars = " \t\n|&;<>()$`\\\"'*?[]{}!#~"

// quoteByte is needsQuote for the ASCII bytes: the control characters,
// DEL and quoteChars (TestQuoteByte).
var quoteByte = [utf8.RuneSelf]bool{
	0x00: true, 0x01: true, 0x02: true, 0x03: true, 0x04: true, 0x05: true, 0x06: true, 0x07: true,
	0x08: true, 0x09: true, 0x0a: true, 0x0b: true, 0x0c: true, 0x0d: true, 0x0e: true, 0x0f: true,
	0x10: true, 0x11: true, 0x12: true, 0x13: true, 0x14: true, 0x15: true, 0x16: true, 0x17: true,
	0x18: true, 0x19: true, 0x1a: true, 0x1b: true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
	0x7f: true,
	' ':  true, '|': true, '&': true, ';': true, '<': true, '>': true, '(': true, ')': true, '$': true,
	'`': true, '\\': true, '"': true, '\'': true, '*': true, '?': true, '[': true, ']': true,
	'{': true, '}': true, '!': true, '#': true, '~': true,
}
