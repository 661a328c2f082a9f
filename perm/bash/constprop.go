package bash

import (
	"path"
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
// typeset, env or sudo, or as a for loop's item) may be the one a use
// sees. A value
// that is not static is not followed, and past the bounds below a word is
// left as written, which is today's reading: unsure, never allowed.

// The bounds of constant propagation.
const (
	// maxValueLen bounds a value put in a word; a longer one is not
	// followed.
	maxValueLen = 1024
	// maxValues bounds the distinct static values of one name; a name
	// with more is not followed.
	maxValues = 16
	// maxSubstitutions bounds the readings one command gets with values
	// put in (every combination of its names' values); a command that
	// would get more gets none.
	maxSubstitutions = 16
	// maxPropagated bounds the commands of one script given readings
	// with values put in; the rest keep the words as written.
	maxPropagated = 256
)

// constAssign is a static value a for loop's name takes.
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

// noteFor records a static value a for loop's name takes.
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

// expandable reports whether w holds a simple parameter expansion or a
// command substitution, and otherwise only literal text.
func expandable(w *syntax.Word) bool {
	found := false
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.ParamExp:
			if _, _, ok := paramKey(p); !ok {
				return false
			}
			found = true
		case *syntax.CmdSubst:
			found = true
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
				case *syntax.ParamExp:
					if _, _, ok := paramKey(q); !ok {
						return false
					}
					found = true
				case *syntax.CmdSubst:
					found = true
				default:
					return false
				}
			}
		default:
			return false
		}
	}
	return found
}

// paramKey returns the key expandWords knows the values of p by, for $name
// or ${name} (simpleParam) and for ${name} with a static word for unset
// or empty (${x:-curl}, ${x-curl}, ${x:=curl}, ${x=curl}) or for set
// (${x:+curl}, ${x+curl}): the name, or the name, a NUL and the word.
// alt is set for the last two, whose value is the word or nothing.
func paramKey(p *syntax.ParamExp) (key string, alt, ok bool) {
	if simpleParam(p) {
		return p.Param.Value, false, true
	}
	if p.Exp == nil || p.Param == nil || !validName(p.Param.Value) || p.Flags != nil || p.NestedParam != nil ||
		p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil || len(p.Modifiers) > 0 || p.Slice != nil || p.Repl != nil || p.Names != 0 {
		return "", false, false
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		alt = true
	default:
		return "", false, false
	}
	word := ""
	if p.Exp.Word != nil {
		w := unquoteFull(p.Exp.Word)
		if !w.Static || w.Glob || w.Braces != nil || len(w.Value) > maxValueLen {
			return "", false, false
		}
		word = w.Value
	}
	return p.Param.Value + "\x00" + word, alt, true
}

// keyValues returns the values of the parameter with key (paramKey):
// a name's own (valuesOf), or for one with a word, the name's values and
// the word (it applies when the name is unset), or, for ${x:+word}, the
// word and nothing.
func keyValues(key string, alt bool, valuesOf func(string) []string) []string {
	name, word, hasWord := strings.Cut(key, "\x00")
	switch {
	case !hasWord:
		return valuesOf(name)
	case alt:
		return []string{word, ""}
	}
	vs := valuesOf(name)
	if hasString(vs, word) {
		return vs
	}
	return append(vs[:len(vs):len(vs)], word)
}

// simpleParam reports $name or ${name}: no operator, index or slice.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && validName(p.Param.Value) && p.Flags == nil && p.NestedParam == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet && p.Index == nil && len(p.Modifiers) == 0 &&
		p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// propagate gives each pending command its readings with values put in,
// and parses the shell code those readings run. Code parsed here may hold
// more assignments and pending commands; they are seen too.
func (c *collector) propagate() {
	if c.props == nil {
		return
	}
	t := consts{c: c}
	for i := 0; i < len(c.props.pending) && i < maxPropagated; i++ {
		p := c.props.pending[i]
		alts := expandWords(p.args, p.cmd.Words, t.values)
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
		c.command(cmd)
		st := c.walkState("")
		st.depth, st.subst, st.outerScope = p.depth, p.subst, p.outerScope
		var done stringSet
		c.shellsIn(cmd, cmd.cached[before:], &done, st)
		st.release()
	}
}

// consts answers which static values a script assigns to a name: in a
// command's leading assignments, as NAME=value arguments of export,
// declare, local, readonly and typeset, and as a for loop's items. A
// script of a few commands is looked through on each question; a longer
// one is indexed once, and again as commands are added.
type consts struct {
	c      *collector
	byName map[string][]string // nil until the script is long
	exprs  map[string][]string // the same, for assignments of expressions (assignsOf)
	cmds   int                 // the commands byName holds
	fors   int                 // the for loop values byName holds
	// depth is how many expressions deep values is asked (x=$y, y=$z):
	// past maxExprDepth an expression is not followed, so x=${x}a ends.
	depth int
	// exprsSeen counts the expressions followed for the script; past
	// maxExprs no more are.
	exprsSeen int
}

// maxExprDepth bounds how deep values follows names through assignments
// of expressions, and maxExprs how many it follows for one script.
const (
	maxExprDepth = 4
	maxExprs     = 256
)

// linearConsts is how many commands consts looks through without an index.
const linearConsts = 32

// values returns the distinct static values assigned to name, or nil if
// there are none, more than maxValues or one longer than maxValueLen.
func (t *consts) values(name string) []string {
	var out []string
	ok := true
	add := func(n, v string) {
		switch {
		case n != name || !ok || hasString(out, v):
		case len(v) > maxValueLen || len(out) == maxValues:
			ok = false
		default:
			out = append(out, v)
		}
	}
	// expr adds the values of an assignment of an expression to name.
	expr := func(n, raw string) {
		if n != name || !ok {
			return
		}
		if t.depth >= maxExprDepth || t.exprsSeen >= maxExprs {
			// Not followed: its values are missing from the readings,
			// which only ever add to the words as written.
			return
		}
		t.depth++
		t.exprsSeen++
		vs, found := exprValues(raw, t.values)
		t.depth--
		for _, v := range vs {
			add(n, v)
		}
		ok = ok && found
	}
	cmds := t.c.script.Commands
	if len(cmds)+len(t.c.props.fors) <= linearConsts && t.byName == nil {
		for _, cmd := range cmds {
			assignsOf(cmd, add, expr)
		}
		for _, a := range t.c.props.fors {
			add(a.name, a.value)
		}
	} else {
		if t.byName == nil {
			t.byName = map[string][]string{}
		}
		// A name keeps at most maxValues+1 distinct values (one more
		// says too many), so that a question costs little however many
		// assignments the script has.
		index := func(n, v string) {
			if vs := t.byName[n]; len(vs) <= maxValues && !hasString(vs, v) {
				t.byName[n] = append(vs, v)
			}
		}
		indexExpr := func(n, raw string) {
			if t.exprs == nil {
				t.exprs = map[string][]string{}
			}
			if rs := t.exprs[n]; len(rs) <= maxValues && !hasString(rs, raw) {
				t.exprs[n] = append(rs, raw)
			}
		}
		for _, cmd := range cmds[t.cmds:] {
			assignsOf(cmd, index, indexExpr)
		}
		fors := t.c.props.fors
		for _, a := range fors[t.fors:] {
			index(a.name, a.value)
		}
		t.cmds, t.fors = len(cmds), len(fors)
		for _, v := range t.byName[name] {
			add(name, v)
		}
		if rs := t.exprs[name]; len(rs) > maxValues {
			ok = false
		} else {
			for _, raw := range rs {
				expr(name, raw)
			}
		}
	}
	if !ok {
		return nil
	}
	return out
}

// assignsOf calls fn with each static assignment cmd makes: its leading
// NAME=value words, and NAME=value arguments of a declaring builtin or of
// a wrapper that sets the environment of the command it runs (env, sudo),
// in every reading of cmd (builtin export x=1, exec env x=1 cmd). It calls
// expr with each leading plain assignment that is not static, as written
// (x=$(echo curl), x=${a}rl): exprValues may know its values.
func assignsOf(cmd *Command, fn func(name, value string), expr func(name, raw string)) {
	for _, a := range cmd.Assigns {
		switch {
		case a.Static:
			fn(a.Name, a.Value)
		case strings.HasPrefix(a.Raw, a.Name+"="):
			expr(a.Name, a.Raw)
		}
	}
	if len(cmd.Words) < 2 {
		return
	}
	for _, words := range cmd.variants() {
		if len(words) < 2 || !words[0].Static {
			continue
		}
		if prog := path.Base(words[0].Value); !declarers[prog] && !broadWrappers[prog].assigns {
			continue
		}
		for _, w := range words[1:] {
			if w.Static && looksLikeAssignment(w.Value) {
				if n, v, _ := strings.Cut(w.Value, "="); !strings.HasSuffix(n, "+") {
					fn(n, v)
				}
			}
		}
	}
}

// expandWords returns the command lines words (whose syntax is args) may
// be with the values of vals and the output of static command
// substitutions put in: one per combination of the values of the names
// used, each name taking one value throughout. A word that cannot be
// expanded so is kept as it is. It returns nil if no word can be expanded,
// or there are more than maxSubstitutions combinations.
func expandWords(args []*syntax.Word, words []Word, valuesOf func(string) []string) [][]Word {
	var (
		names  []string   // the names used by the words that can be expanded
		vals   [][]string // their values
		expand []bool     // which words can, made on finding the first
	)
	for i, w := range words {
		if w.Static || w.Braces != nil || !expandable(args[i]) {
			continue
		}
		n, v, ok := wordNames(args[i], valuesOf, names, vals)
		if !ok {
			continue
		}
		if expand == nil {
			expand = make([]bool, len(words))
		}
		names, vals, expand[i] = n, v, true
	}
	if expand == nil {
		return nil
	}
	combos := 1
	for _, v := range vals {
		combos *= len(v)
		if combos > maxSubstitutions {
			return nil
		}
	}
	out := make([][]Word, 0, combos)
	pick := make([]int, len(names)) // the value each name takes
	env := func(name string) string {
		for j, n := range names {
			if n == name {
				return vals[j][pick[j]]
			}
		}
		return "" // not reached: wordNames found every name's values
	}
	for range combos {
		var line []Word
		for i, w := range words {
			fields, ok := []Word(nil), false
			if expand[i] {
				fields, ok = expandWord(args[i], env)
			}
			if !ok {
				fields = []Word{w}
			}
			line = append(line, fields...)
		}
		if len(line) > 0 {
			out = append(out, line)
		}
		for j := range pick { // the next combination
			pick[j]++
			if pick[j] < len(vals[j]) {
				break
			}
			pick[j] = 0
		}
	}
	return out
}

// wordNames appends to names the names w uses that are not there yet, and
// their values (valuesOf) to vals. ok is false if one has no static value,
// or a command substitution in w is not static output.
func wordNames(w *syntax.Word, valuesOf func(string) []string, names []string, vals [][]string) (_ []string, _ [][]string, ok bool) {
	check := func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.ParamExp:
			key, alt, _ := paramKey(p)
			if hasString(names, key) {
				return true
			}
			v := keyValues(key, alt, valuesOf)
			if len(v) == 0 {
				return false
			}
			names, vals = append(names, key), append(vals, v)
		case *syntax.CmdSubst:
			if _, ok := staticOutput(p.Stmts); !ok {
				return false
			}
		}
		return true
	}
	for _, p := range w.Parts {
		if dq, isDQ := p.(*syntax.DblQuoted); isDQ {
			for _, q := range dq.Parts {
				if !check(q) {
					return nil, nil, false
				}
			}
		} else if !check(p) {
			return nil, nil, false
		}
	}
	return names, vals, true
}

// expandWord returns the fields the expandable word w makes with env's
// values put in, as bash makes them: a value in double quotes is literal
// text; one outside is split on blanks, and its "*", "?", "[" and "]"
// are pattern characters. A command substitution's value is its static
// output without trailing newlines. ok is false if a field is not static
// (a tilde or brace form the values make unclear).
func expandWord(w *syntax.Word, env func(string) string) (_ []Word, ok bool) {
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
					f.Raw = quote(f)
				}
				fields = append(fields, f)
			}
		}
		cur, open = nil, false
		return true
	}
	value := func(p syntax.WordPart) string {
		if cs, isCS := p.(*syntax.CmdSubst); isCS {
			out, _ := staticOutput(cs.Stmts)
			return strings.TrimRight(out, "\n")
		}
		key, _, _ := paramKey(p.(*syntax.ParamExp))
		return env(key)
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

// exprValues returns the values the assignment raw (NAME=value as
// written) may give its name when the value is made only of literal text, simple
// parameter expansions whose values valuesOf knows and static command
// substitutions: one per combination of the names' values, as one string
// (an assignment's value is not split). found is false when raw is not
// such an expression or has too many values.
func exprValues(raw string, valuesOf func(string) []string) (vals []string, found bool) {
	if len(raw) > maxValueLen {
		return nil, false
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(raw), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	call, isCall := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !isCall || len(call.Args) > 0 || len(call.Assigns) != 1 || call.Assigns[0].Value == nil {
		return nil, false
	}
	w := call.Assigns[0].Value
	if !expandable(w) {
		return nil, false
	}
	names, vs, ok := wordNames(w, valuesOf, nil, nil)
	if !ok {
		return nil, false
	}
	combos := 1
	for _, v := range vs {
		if combos *= len(v); combos > maxValues {
			return nil, false
		}
	}
	pick := make([]int, len(names))
	env := func(name string) string {
		for j, n := range names {
			if n == name {
				return vs[j][pick[j]]
			}
		}
		return ""
	}
	for range combos {
		var b strings.Builder
		if !joinParts(&b, w.Parts, env) {
			return nil, false
		}
		if !hasString(vals, b.String()) {
			vals = append(vals, b.String())
		}
		for j := range pick {
			pick[j]++
			if pick[j] < len(vs[j]) {
				break
			}
			pick[j] = 0
		}
	}
	return vals, true
}

// joinParts writes the text the parts of an expandable word make with
// env's values put in, unsplit; false for a part it cannot know.
func joinParts(b *strings.Builder, parts []syntax.WordPart, env func(string) string) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			w := unquoteFull(&syntax.Word{Parts: []syntax.WordPart{p}})
			if !w.Static || w.Glob || w.Tilde {
				return false
			}
			b.WriteString(w.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if !joinParts(b, p.Parts, env) {
				return false
			}
		case *syntax.ParamExp:
			key, _, _ := paramKey(p)
			b.WriteString(env(key))
		case *syntax.CmdSubst:
			out, _ := staticOutput(p.Stmts)
			b.WriteString(strings.TrimRight(out, "\n"))
		default:
			return false
		}
	}
	return true
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
