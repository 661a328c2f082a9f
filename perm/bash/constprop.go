package bash

import (
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Constant propagation, for the broad side only. A word built from
// variables the script assigns static values to (x=curl; $x y), or from
// the output of echo or printf with static arguments ($(echo curl) x),
// may stand for those values: each command holding such a word gets more
// readings with the values put in, which its deny forms, its nested shell
// code and the checks that look at every reading then see. The words as
// written stay the first reading, so a command whose name comes from a
// variable is still not static: it is never allowed, and it is at least
// Ask. Nothing here is ever used for allow rules or read-only checks.
//
// Reaching uses are not worked out: every static value assigned to a name
// anywhere in the script (plainly, by export, declare, local, readonly,
// typeset, env or sudo, in any reading of the command: Command.assignments;
// or as a for loop's item or by ${x:=v}) may be the one a use sees. A
// value built from static output and names with known values
// (x=$(echo curl), x=${a}rl) is worked out too, as are ${x:-v} and its
// kin, whose readings are both the name's values and the word's. Any
// other value is not followed, and past the bounds below a word is left
// as written, which is today's reading: unsure, never allowed.

// The bounds of constant propagation.
const (
	// maxValueLen bounds a value put in a word; a longer one is not
	// followed.
	maxValueLen = 1024
	// maxValues bounds the distinct values of one name or expansion
	// (and the assignments with values built from others one name
	// keeps); one with more is not followed.
	maxValues = 16
	// maxSubstitutions bounds the readings one command gets with values
	// put in (every combination of its expansions' values); a command that
	// would get more gets none.
	maxSubstitutions = 16
	// maxPropagated bounds the commands of one script given readings
	// with values put in; the rest keep the words as written.
	maxPropagated = 256
)

// constAssign is a static value a name takes outside a command: a for
// loop's item, or the word of ${x=v} or ${x:=v}.
type constAssign struct{ name, value string }

// pendingCommand is a command with a word constant propagation may make
// static, kept until the whole script is walked (a later assignment may
// reach it, in a loop or a function), with what propagate needs of the
// walk it was found in.
type pendingCommand struct {
	cmd        *Command
	args       []*syntax.Word
	depth      int
	subst      int
	outerScope bool
}

// propagation is what constant propagation keeps of a walk: the pending
// commands, the values for loops give names, and the arguments that are a
// process substitution printing static text, by command. A collector
// takes one from propagations on first need and hands it back once the
// script is parsed: most scripts with a variable in a word have no value
// for it, and should cost nothing for it.
type propagation struct {
	pending []pendingCommand
	fors    []constAssign
	procs   map[*Command][]procOutput
}

var propagations = sync.Pool{New: func() any { return new(propagation) }}

// prop returns c's propagation, taking one from the pool on first use.
func (c *collector) prop() *propagation {
	if c.props == nil {
		c.props = propagations.Get().(*propagation)
	}
	return c.props
}

// releaseProp hands c's propagation back to the pool, cleared; a large
// one is left to the collector.
func (c *collector) releaseProp() {
	p := c.props
	if p == nil {
		return
	}
	c.props = nil
	if cap(p.pending) > 64 || cap(p.fors) > 64 || len(p.procs) > 64 {
		return
	}
	clear(p.pending[:cap(p.pending)])
	clear(p.fors[:cap(p.fors)])
	clear(p.procs)
	p.pending, p.fors = p.pending[:0], p.fors[:0]
	propagations.Put(p)
}

// noteFor records a static value a name takes outside a command
// (constAssign).
func (c *collector) noteFor(name, value string) {
	p := c.prop()
	p.fors = append(p.fors, constAssign{name, value})
}

// notePending records cmd, whose words are args, if one of its words that
// is not static is made only of literal text, simple parameter expansions
// ($x, ${x}) and command substitutions. It also records the arguments of
// cmd that are a process substitution printing static text.
func (c *collector) notePending(cmd *Command, args []*syntax.Word, st *walkState) {
	pending := false
	for i, w := range cmd.Words {
		if w.Static || w.Braces != nil {
			continue
		}
		if !pending && expandable(args[i]) {
			pending = true
			p := c.prop()
			p.pending = append(p.pending, pendingCommand{
				cmd: cmd, args: args, depth: st.depth, subst: st.subst,
				outerScope: st.outerScope || len(st.scopes) > 0,
			})
		}
		if ps, ok := procSubst(args[i]); ok {
			if text, ok := staticOutput(ps.Stmts); ok {
				p := c.prop()
				if p.procs == nil {
					p.procs = map[*Command][]procOutput{}
				}
				p.procs[cmd] = append(p.procs[cmd], procOutput{raw: w.Raw, text: text})
			}
		}
	}
}

// procsOf returns the arguments of cmd that are a process substitution
// printing static text, with that text.
func (c *collector) procsOf(cmd *Command) []procOutput {
	if c.props == nil {
		return nil
	}
	return c.props.procs[cmd]
}

// expandable reports whether w holds an expansion constant propagation
// follows (followed), and otherwise only literal text.
func expandable(w *syntax.Word) bool {
	found, ok := false, true
	eachPart(w, func(p syntax.WordPart) {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.CmdSubst:
			found = true
		case *syntax.ParamExp:
			found = true
			ok = ok && followed(p)
		default:
			ok = false
		}
	})
	return found && ok
}

// eachPart calls fn with each part of w, and with each part of a double
// quoted string in w in place of the string.
func eachPart(w *syntax.Word, fn func(syntax.WordPart)) {
	for _, p := range w.Parts {
		if dq, isDQ := p.(*syntax.DblQuoted); isDQ {
			for _, q := range dq.Parts {
				fn(q)
			}
		} else {
			fn(p)
		}
	}
}

// followed reports a parameter expansion constant propagation follows:
// $name or ${name} (simpleParam), or ${name} with one of the operators
// -, :-, =, :=, +, :+, ?, :? and a word of literal text and such
// expansions.
func followed(p *syntax.ParamExp) bool {
	if p.Exp == nil {
		return simpleParam(p)
	}
	e := p.Exp
	if e.Op < syntax.AlternateUnset || e.Op > syntax.AssignUnsetOrNull {
		return false
	}
	rest := *p
	rest.Exp = nil // the rest must be as simpleParam wants it
	return simpleParam(&rest) && (e.Word == nil || literal(e.Word) || expandable(e.Word))
}

// literal reports a word of literal text only, quoted or not.
func literal(w *syntax.Word) bool {
	ok := true
	eachPart(w, func(p syntax.WordPart) {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			ok = false
		}
	})
	return ok
}

// simpleParam reports $name or ${name}: no operator, index or slice.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && validName(p.Param.Value) && p.Flags == nil && p.NestedParam == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet && p.Index == nil && len(p.Modifiers) == 0 &&
		p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// propagate gives each pending command its readings with values put in,
// and parses the shell code those readings run. Code parsed here may hold
// more assignments and pending commands; they are seen too. Only the
// readings a command gets here are checked, and code its earlier readings
// ran is not parsed again: each reading is checked once, and a nested
// command is collected once.
func (c *collector) propagate() {
	if c.props == nil {
		return
	}
	t := consts{c: c}
	for i := 0; i < len(c.props.pending) && i < maxPropagated; i++ {
		p := c.props.pending[i]
		alts := t.expandWords(p.args, p.cmd.Words)
		if len(alts) == 0 {
			continue
		}
		cmd := p.cmd
		before := len(cmd.cached)
		for _, words := range alts {
			cmd.cached = cmd.addReadings(cmd.cached, words)
		}
		if len(cmd.cached) >= maxVariants {
			c.suspect(labelTooWrapped)
		}
		if len(cmd.cached) == before {
			continue
		}
		added := cmd.cached[before:]
		t.grew(added)
		c.checkReadings(added)
		st := c.walkState("")
		st.depth, st.subst, st.outerScope = p.depth, p.subst, p.outerScope
		var done stringSet // what nestedShells parsed for cmd
		for _, a := range cmd.Assigns {
			if codeVars.Get()[a.Name] && a.Static {
				done.add(a.Value)
			}
		}
		c.codesOf(cmd, cmd.cached[:before], func(code string) { done.add(code) }, func() {})
		c.shellsIn(cmd, added, &done, st)
		st.release()
	}
}

// consts answers which values a name may take: the static values the
// script assigns to it (Command.assignments) or a for loop or ${x:=v}
// gives it, and the values of assignments built from literal text,
// static command output and names with such values (x=$(echo curl),
// x=${a}rl), worked out in turn. A script of a few commands is looked
// through on each question; a longer one is indexed once, and again as
// commands are added.
type consts struct {
	c      *collector
	byName map[string][]string // static values, nil until the script is long
	built  map[string][]string // assignments with values not static, as written; as byName
	cmds   int                 // the commands byName and built hold
	fors   int                 // the for loop values byName holds
	// worked holds the values of names with built values, worked out
	// while the script had workedAt commands and for loop values.
	worked   map[string][]string
	workedAt [2]int
	// busy lists the names being worked out, innermost last: no more
	// than maxIndirection names are worked out in turn.
	busy []string
}

// maxIndirection bounds the names worked out in turn for one value
// (x=$a where a=$b ...); deeper values are not followed.
const maxIndirection = 4

// linearConsts is how many commands consts looks through without an index.
const linearConsts = 32

// values returns the distinct values name may take, or nil if there are
// none, more than maxValues or one longer than maxValueLen.
func (t *consts) values(name string) []string {
	if len(t.busy) >= maxIndirection {
		return nil
	}
	// A name built from itself (x=${x}rl) takes its other values there.
	self := hasString(t.busy, name)
	cmds, fors := t.c.script.Commands, t.c.props.fors
	if at := [2]int{len(cmds), len(fors)}; t.workedAt != at {
		clear(t.worked)
		t.workedAt = at
	}
	if vs, ok := t.worked[name]; ok && !self {
		return vs
	}
	var out, built []string
	ok := true
	add := func(v string) {
		switch {
		case !ok || hasString(out, v):
		case len(v) > maxValueLen || len(out) == maxValues:
			ok = false
		default:
			out = append(out, v)
		}
	}
	if len(cmds)+len(fors) <= linearConsts && t.byName == nil {
		note := func(a Assign) {
			switch {
			case a.Name != name:
			case a.Static:
				add(a.Value)
			case len(built) < maxValues && !hasString(built, a.Raw):
				built = append(built, a.Raw)
			}
		}
		for _, cmd := range cmds {
			cmd.assignments(note)
		}
		for _, a := range fors {
			if a.name == name {
				add(a.value)
			}
		}
	} else {
		t.index(cmds, fors)
		for _, v := range t.byName[name] {
			add(v)
		}
		built = t.built[name]
	}
	if self {
		built = nil
	}
	for _, raw := range built {
		w, found := valueWord(raw, name)
		if !found {
			continue
		}
		t.busy = append(t.busy, name)
		vs, found := t.wordStrings(w)
		t.busy = t.busy[:len(t.busy)-1]
		for _, v := range vs {
			if found {
				add(v)
			}
		}
	}
	if !ok {
		out = nil
	}
	if built != nil {
		if t.worked == nil {
			t.worked = map[string][]string{}
		}
		t.worked[name] = out
	}
	return out
}

// index adds to byName and built the assignments of commands and the for
// loop values it does not hold yet.
func (t *consts) index(cmds []*Command, fors []constAssign) {
	if t.byName == nil {
		t.byName, t.built = map[string][]string{}, map[string][]string{}
	}
	for _, cmd := range cmds[t.cmds:] {
		cmd.assignments(t.note)
	}
	for _, a := range fors[t.fors:] {
		t.note(Assign{Name: a.name, Value: a.value, Static: true})
	}
	t.cmds, t.fors = len(cmds), len(fors)
}

// note adds an assignment to byName or built. A name keeps at most
// maxValues+1 distinct static values (one more says too many), so that a
// question costs little however many assignments the script has, and at
// most maxValues built ones.
func (t *consts) note(a Assign) {
	if a.Static {
		if vs := t.byName[a.Name]; len(vs) <= maxValues && !hasString(vs, a.Value) {
			t.byName[a.Name] = append(vs, a.Value)
		}
	} else if vs := t.built[a.Name]; len(vs) < maxValues && !hasString(vs, a.Raw) {
		t.built[a.Name] = append(vs, a.Raw)
	}
}

// grew tells t that a command it may have looked at has the readings vs
// besides: what they assign counts from now on.
func (t *consts) grew(vs [][]Word) {
	clear(t.worked)
	if t.byName != nil {
		assignsIn(vs, t.note)
	}
}

// valueWord returns the value of raw, an assignment as written
// (NAME=value, quoted or not), as syntax, and true if raw is a plain
// assignment to name whose value is literal text and expansions constant
// propagation follows; false otherwise (an append, an index, an array, a
// "~" the assignment may expand, text that does not parse).
func valueWord(raw, name string) (*syntax.Word, bool) {
	f, err := parseOnce(": " + raw)
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 || len(call.Assigns) > 0 || len(call.Args[1].Parts) == 0 {
		return nil, false
	}
	parts := slices.Clone(call.Args[1].Parts)
	cut := func(p syntax.WordPart) (*syntax.Lit, bool) {
		lit, isLit := p.(*syntax.Lit)
		if !isLit || !strings.HasPrefix(lit.Value, name+"=") {
			return nil, false
		}
		return &syntax.Lit{Value: lit.Value[len(name)+1:]}, true
	}
	if lit, ok := cut(parts[0]); ok {
		parts[0] = lit
	} else if dq, isDQ := parts[0].(*syntax.DblQuoted); isDQ && len(dq.Parts) > 0 {
		lit, ok := cut(dq.Parts[0])
		if !ok {
			return nil, false
		}
		parts[0] = &syntax.DblQuoted{Parts: append([]syntax.WordPart{lit}, dq.Parts[1:]...)}
	} else {
		return nil, false
	}
	for _, p := range parts {
		if lit, isLit := p.(*syntax.Lit); isLit && strings.ContainsRune(lit.Value, '~') {
			return nil, false
		}
	}
	w := &syntax.Word{Parts: parts}
	return w, literal(w) || expandable(w)
}

// partValues returns the values an expansion constant propagation follows
// may take, and false if they are not known: a command substitution's
// static output without trailing newlines; $x's values; for ${x-w},
// ${x:-w}, ${x=w} and ${x:=w}, x's values and w's; for ${x+w} and
// ${x:+w}, w's values and the empty string; for ${x?w} and ${x:?w}, x's.
func (t *consts) partValues(p syntax.WordPart) ([]string, bool) {
	switch p := p.(type) {
	case *syntax.CmdSubst:
		out, ok := staticOutput(p.Stmts)
		if !ok {
			return nil, false
		}
		return []string{strings.TrimRight(out, "\n")}, true
	case *syntax.ParamExp:
		e := p.Exp
		alternate := e != nil && (e.Op == syntax.AlternateUnset || e.Op == syntax.AlternateUnsetOrNull)
		var vals []string
		if !alternate {
			vals = t.values(p.Param.Value)
		}
		if e == nil || e.Op == syntax.ErrorUnset || e.Op == syntax.ErrorUnsetOrNull {
			return vals, len(vals) > 0
		}
		if alternate {
			vals = []string{""} // ${x+w}: w if x is set, else nothing
		}
		word := []string{""}
		if e.Word != nil && len(e.Word.Parts) > 0 {
			var ok bool
			if word, ok = t.wordStrings(e.Word); !ok {
				return nil, false
			}
		}
		out := slices.Clone(vals)
		for _, v := range word {
			if !hasString(out, v) {
				out = append(out, v)
			}
		}
		return out, len(out) <= maxValues
	}
	return nil, false
}

// wordStrings returns the distinct strings w may be as one value (an
// assignment's, or an operator's word): with the values of its expansions
// put in, not split and not globbed. false if an expansion's values are
// not known, or w may be more than maxValues strings or one longer than
// maxValueLen.
func (t *consts) wordStrings(w *syntax.Word) ([]string, bool) {
	var s slots
	if !s.add(w, t) || s.combos() > maxValues {
		return nil, false
	}
	var out []string
	ok := true
	s.each(func(value func(syntax.WordPart) string) bool {
		var parts []syntax.WordPart
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
				parts = append(parts, p)
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					if lit, isLit := q.(*syntax.Lit); isLit {
						parts = append(parts, &syntax.DblQuoted{Parts: []syntax.WordPart{lit}})
					} else {
						parts = append(parts, &syntax.SglQuoted{Value: value(q)})
					}
				}
			default:
				parts = append(parts, &syntax.SglQuoted{Value: value(p)})
			}
		}
		f := unquoteFull(&syntax.Word{Parts: parts})
		if ok = f.Static && !f.Tilde && len(f.Value) <= maxValueLen; ok && !hasString(out, f.Value) {
			out = append(out, f.Value)
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// slotKey names an expansion in slots: a name used plainly ($x, ${x})
// takes one value throughout a command line; any other expansion is its
// own (part).
type slotKey struct {
	name string
	part syntax.WordPart
}

func keyOf(p syntax.WordPart) slotKey {
	if pe, ok := p.(*syntax.ParamExp); ok && pe.Exp == nil {
		return slotKey{name: pe.Param.Value}
	}
	return slotKey{part: p}
}

// slots are the expansions some words hold, each with the values it may
// take.
type slots struct {
	keys []slotKey
	vals [][]string
}

// add adds the expansions of w that s does not hold yet, with their
// values (consts.partValues), and reports whether each has values; if one
// has none, s is left as it was.
func (s *slots) add(w *syntax.Word, t *consts) bool {
	mark, ok := len(s.keys), true
	eachPart(w, func(p syntax.WordPart) {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
		default:
			return
		}
		k := keyOf(p)
		if !ok || slices.Contains(s.keys, k) {
			return
		}
		vs, found := t.partValues(p)
		if !found {
			ok = false
			return
		}
		s.keys, s.vals = append(s.keys, k), append(s.vals, vs)
	})
	if !ok {
		s.keys, s.vals = s.keys[:mark], s.vals[:mark]
	}
	return ok
}

// tooMany is what combos returns for more combinations than any bound.
const tooMany = maxSubstitutions + maxValues + 1

// combos returns how many combinations of values s has, or tooMany.
func (s *slots) combos() int {
	n := 1
	for _, v := range s.vals {
		n *= len(v)
		if n >= tooMany {
			return tooMany
		}
	}
	return n
}

// each calls fn with each combination of values, given as the value each
// expansion takes in it, until fn returns false.
func (s *slots) each(fn func(value func(syntax.WordPart) string) bool) {
	pick := make([]int, len(s.keys)) // the value each expansion takes
	value := func(p syntax.WordPart) string {
		k := keyOf(p)
		for j, key := range s.keys {
			if key == k {
				return s.vals[j][pick[j]]
			}
		}
		return "" // not reached: add found every expansion's values
	}
	for range s.combos() {
		if !fn(value) {
			return
		}
		for j := range pick { // the next combination
			pick[j]++
			if pick[j] < len(s.vals[j]) {
				break
			}
			pick[j] = 0
		}
	}
}

// expandWords returns the command lines words (whose syntax is args) may
// be with the values of their expansions put in: one per combination of
// values, each name used plainly taking one value throughout. A word that
// cannot be expanded so is kept as it is. It returns nil if no word can
// be expanded, or there are more than maxSubstitutions combinations.
func (t *consts) expandWords(args []*syntax.Word, words []Word) [][]Word {
	var (
		s      slots
		expand []bool // which words can, made on finding the first
	)
	for i, w := range words {
		if w.Static || w.Braces != nil || !expandable(args[i]) || !s.add(args[i], t) {
			continue
		}
		if expand == nil {
			expand = make([]bool, len(words))
		}
		expand[i] = true
	}
	combos := s.combos()
	if expand == nil || combos > maxSubstitutions {
		return nil
	}
	out := make([][]Word, 0, combos)
	found := s // each moves what it is called on to the heap: only here
	found.each(func(value func(syntax.WordPart) string) bool {
		var line []Word
		for i, w := range words {
			fields, ok := []Word(nil), false
			if expand[i] {
				fields, ok = expandWord(args[i], value)
			}
			if !ok {
				fields = []Word{w}
			}
			line = append(line, fields...)
		}
		if len(line) > 0 {
			out = append(out, line)
		}
		return true
	})
	return out
}

// expandWord returns the fields the expandable word w makes with the
// values value gives its expansions put in, as bash makes them: a value
// in double quotes is literal text; one outside is split on blanks, and
// its "*", "?", "[" and "]" are pattern characters. ok is false if a
// field is not static (a tilde or brace form the values make unclear).
func expandWord(w *syntax.Word, value func(syntax.WordPart) string) (_ []Word, ok bool) {
	var (
		fields []Word
		cur    []syntax.WordPart
		open   bool // cur makes a field, even an empty one ("")
	)
	end := func() bool {
		if open {
			f := unquoteFull(&syntax.Word{Parts: cur})
			switch {
			case f.Braces != nil:
				fields = append(fields, f.Braces...)
			case !f.Static:
				return false
			default:
				f.Raw = f.Value // a glob or "~" stays unquoted: it still expands
				if !f.Glob {
					f.Raw = quote(&f)
				}
				fields = append(fields, f)
			}
		}
		cur, open = nil, false
		return true
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
			cur, open = append(cur, p), true
		case *syntax.DblQuoted:
			open = true
			for _, q := range p.Parts {
				if lit, isLit := q.(*syntax.Lit); isLit {
					cur = append(cur, &syntax.DblQuoted{Parts: []syntax.WordPart{lit}})
				} else {
					cur = append(cur, &syntax.SglQuoted{Value: value(q)})
				}
			}
		default: // unquoted: split, and pattern characters stay patterns
			v := value(p)
			for v != "" {
				if i := strings.IndexAny(v, " \t\n"); i != 0 {
					if i < 0 {
						i = len(v)
					}
					cur, open = appendUnquoted(cur, v[:i]), true
					v = v[i:]
					continue
				}
				if !end() {
					return nil, false
				}
				v = strings.TrimLeft(v, " \t\n")
			}
		}
	}
	if !end() {
		return nil, false
	}
	return fields, true
}

// appendUnquoted appends the parts of s, an unquoted expansion's text with
// no blank: its pattern characters as literals (still patterns), the rest
// quoted (a backslash, quote, "~" or "{" from a value is plain text).
func appendUnquoted(parts []syntax.WordPart, s string) []syntax.WordPart {
	for s != "" {
		i := strings.IndexAny(s, "*?[]")
		switch {
		case i < 0:
			return append(parts, &syntax.SglQuoted{Value: s})
		case i > 0:
			parts = append(parts, &syntax.SglQuoted{Value: s[:i]})
		}
		parts = append(parts, &syntax.Lit{Value: s[i : i+1]})
		s = s[i+1:]
	}
	return parts
}

// staticOutput returns what stmts print when they are one echo or printf
// command with static arguments and no redirect, and true; false for
// anything else, or output the gate does not work out (echo -e with a
// backslash, a printf format other than plain text, %s, %% and the
// escapes \n, \t and \\).
func staticOutput(stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) != 1 {
		return "", false
	}
	s := stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || len(s.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return "", false
	}
	// Most commands are neither: look at the name before the words.
	if len(call.Args[0].Parts) != 1 {
		return "", false
	}
	name, ok := call.Args[0].Parts[0].(*syntax.Lit)
	if !ok || name.Value != "echo" && name.Value != "printf" {
		return "", false
	}
	var args []Word
	for _, a := range call.Args[1:] {
		w := unquote(a)
		switch {
		case w.Braces != nil:
			args = append(args, w.Braces...)
		case !w.Static:
			return "", false
		default:
			args = append(args, w)
		}
	}
	for _, a := range args {
		if a.Glob || a.Tilde {
			return "", false // file names or $HOME: not known here
		}
	}
	if name.Value == "echo" {
		return echoText(args)
	}
	return printfText(args)
}

// echoText returns what bash's echo prints for args.
func echoText(args []Word) (string, bool) {
	newline, escapes := true, false
	for len(args) > 0 && isFlagCluster(args[0].Value, "neE") {
		for _, ch := range args[0].Value[1:] {
			switch ch {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	vals := make([]string, len(args))
	for i, a := range args {
		if escapes && strings.IndexByte(a.Value, '\\') >= 0 {
			return "", false
		}
		vals[i] = a.Value
	}
	out := strings.Join(vals, " ")
	if newline {
		out += "\n"
	}
	return out, len(out) <= maxValueLen
}

// printfEscapes are the escapes printfText reads in a format.
var printfEscapes = [256]byte{'n': '\n', 't': '\t', '\\': '\\'}

// printfText returns what printf prints for args when its format is
// plain text with %s, %% and the escapes \n, \t and \\ only. The format
// is used again while arguments are left, as printf does.
func printfText(args []Word) (string, bool) {
	if len(args) > 0 && args[0].Value == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0].Value, "-") {
		return "", false // no format, or an option (-v sets a variable)
	}
	format, rest := args[0].Value, args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			ch := format[i]
			switch {
			case ch == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case ch == '%' && i+1 < len(format) && format[i+1] == 's':
				if used < len(rest) {
					b.WriteString(rest[used].Value)
				}
				used++
				i++
			case ch == '\\' && i+1 < len(format) && printfEscapes[format[i+1]] != 0:
				b.WriteByte(printfEscapes[format[i+1]])
				i++
			case ch == '%' || ch == '\\':
				return "", false
			default:
				b.WriteByte(ch)
			}
			if b.Len() > maxValueLen {
				return "", false
			}
		}
		if used == 0 || used >= len(rest) {
			return b.String(), true
		}
		rest = rest[used:]
	}
}

// procOutput is an argument of a command that is a process substitution
// printing static text.
type procOutput struct {
	raw  string // the argument as written
	text string // what it prints
}

// procSubst returns w's process substitution if w is one <(...) alone.
func procSubst(w *syntax.Word) (*syntax.ProcSubst, bool) {
	if w == nil || len(w.Parts) != 1 {
		return nil, false
	}
	ps, ok := w.Parts[0].(*syntax.ProcSubst)
	return ps, ok && ps.Op == syntax.CmdIn
}
