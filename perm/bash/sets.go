package bash

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/internal/lazy"
)

// Which variables a script may set. Bash reads some of the shell's own
// variables where the gate sees only text: ~+ is $PWD, ~ is $HOME, cd
// follows $CDPATH, a command is looked up in $PATH, and programs read
// the exported ones. Every way a script can give a variable a value
// counts, not only NAME=value: NAME=value arguments of declare and its
// kin and of env and sudo, read, mapfile, readarray, printf -v, getopts
// and unset (commands, each judged as one), and, outside any command, a
// for or select loop's name, arithmetic (let PATH=1, ((x++)), a
// subscript, [[ 1 -eq x=1 ]]), ${x=v} and ${x:=v}, a {x}< redirect (on
// any command, exec included), wait -p NAME, and coproc NAME (NAME and
// NAME_PID; COPROC without a name).
// A nameref, or a name that is not static, may be any variable.

// maxSetNames bounds the distinct names Script.Sets keeps; a script that
// sets more may set any.
const maxSetNames = 64

// anyName stands for a variable whose name is not known.
const anyName = "a variable whose name is not static"

// Sets reports whether the script may give the variable name a value, or
// unset it, other than by cd: see the list above.
func (s *Script) Sets(name string) bool {
	return s.setsAny || slices.Contains(s.sets, name)
}

// ReadsPWD reports whether the script, or shell code it runs, may read
// PWD through ~+ (it holds "~+" anywhere): setting PWD changes no other
// path, since bash checks $PWD against the directory it is in.
func (s *Script) ReadsPWD() bool { return s.tildePlus }

// Defines reports whether the script defines a function called name,
// anywhere in it: a command of that name may run the function, not the
// program.
func (s *Script) Defines(name string) bool { return s.funcs[name] }

// DirChange returns the program (cd, pushd or popd) and arguments of the
// command if it changes the shell's directory, as written or behind
// builtin or command (which run the builtin itself), and true; false if
// it does not. A cd another program runs (nice cd, xargs cd) is a child
// process: it moves nothing.
func (c *Command) DirChange() (prog string, args []Word, ok bool) {
	return dirChange(c.Words)
}

// DirAlternatives returns the arguments, each list once and none the one
// DirChange returns, of the command's other readings (variants) that
// change the directory with the same program: the words
// constant propagation puts in (d=secrets; cd $d, cd "$(echo secrets)")
// or a brace expansion makes. Each may be the directory bash changes
// into; nil if the command changes no directory.
func (c *Command) DirAlternatives() [][]Word {
	prog, written, ok := c.DirChange()
	if !ok {
		return nil
	}
	out := [][]Word{written}
	for _, v := range c.variants() {
		p, args, ok := dirChange(v)
		if ok && p == prog && !slices.ContainsFunc(out, func(o []Word) bool { return sameWords(o, args) }) {
			out = append(out, args)
		}
	}
	return out[1:]
}

// dirRunners are the builtins that run a builtin themselves.
var dirRunners = lazy.Value[map[string]wrapper]{New: func() map[string]wrapper {
	return map[string]wrapper{"builtin": broadWrappers.Get()["builtin"], "command": broadWrappers.Get()["command"]}
}}

// dirChange is DirChange of the command line words.
func dirChange(words []Word) (prog string, args []Word, ok bool) {
	for {
		inner, ok := unwrap(words, dirRunners.Get(), false)
		if !ok {
			break
		}
		words = inner
	}
	if len(words) == 0 || !words[0].Static {
		return "", nil, false
	}
	if p := words[0].Value; p == "cd" || p == "pushd" || p == "popd" {
		return p, words[1:], true
	}
	return "", nil, false
}

// SetsOutside returns the first variable the script may set outside a
// command (a for loop, arithmetic, ${x:=v}, a {x}< redirect), or "".
// No command of such a script counts as read-only or is covered by an
// allow rule, as a command with an assignment before it is not: the
// value changes what commands do (for PATH in /tmp/x; do ls; done).
func (s *Script) SetsOutside() string { return s.outside }

// SetsCode returns the first variable that carries code (CodeVar) the
// script may set in any way, or "".
func (s *Script) SetsCode() string { return s.code }

// noteSet records that the script may set name, to text it may not know;
// outside says it is not set by a command.
func (c *collector) noteSet(name string, outside bool) {
	c.noteNumber(name, outside)
	addName(&c.script.data, &c.script.dataAny, name)
}

// addName adds name to names, or, past maxSetNames names, sets any.
func addName(names *[]string, any *bool, name string) {
	switch {
	case *any || slices.Contains(*names, name):
	case len(*names) == maxSetNames:
		*any = true
	default:
		*names = append(*names, name)
	}
}

// noteAssign records an assignment NAME=value: to a number when the
// value is a static integer.
func (c *collector) noteAssign(a Assign) {
	if a.Static && isInteger(a.Value) {
		c.noteNumber(a.Name, false)
	} else {
		c.noteSet(a.Name, false)
	}
}

// noteArith records that bash evaluates the value of the variable name as
// arithmetic, where a[$(cmd)] runs cmd.
func (c *collector) noteArith(name string) {
	addName(&c.script.arith, &c.script.arithAny, name)
}

// ArithData returns a variable whose value bash evaluates as arithmetic
// and the script may set to text it does not know ("" if none): read x <
// f; (( x )) runs the command substitution in an a[$(...)] that f holds,
// code no rule can see. A variable set only by arithmetic or to a static
// integer does not count, nor one the script does not set (the user's own
// environment).
func (s *Script) ArithData() string {
	for _, a := range s.arith {
		if s.dataAny || slices.Contains(s.data, a) {
			return a
		}
	}
	if s.arithAny && (s.dataAny || len(s.data) > 0) {
		return anyName
	}
	return ""
}

// isInteger reports whether v is a decimal integer, which arithmetic
// reads as a number and nothing else.
func isInteger(v string) bool {
	v = strings.TrimPrefix(v, "-")
	if v == "" || len(v) > 18 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// noteNumber records that the script may set name to a number (by
// arithmetic, or to a static integer); outside says it is not set by a
// command.
func (c *collector) noteNumber(name string, outside bool) {
	if name == "IFS" {
		c.suspect(labelIFS)
	}
	s := &c.script
	if s.code == "" && CodeVar(name) {
		s.code = name
	}
	if s.outside == "" && outside {
		s.outside = name
	}
	switch {
	case s.setsAny || slices.Contains(s.sets, name):
	case len(s.sets) == maxSetNames:
		s.setsAny = true
	case s.sets == nil:
		s.sets = append(make([]string, 0, 8), name) // one allocation for most scripts
	default:
		s.sets = append(s.sets, name)
	}
}

// noteSetAny records that the script may set a variable it does not name.
func (c *collector) noteSetAny(outside bool) {
	s := &c.script
	s.setsAny, s.dataAny = true, true
	if s.code == "" {
		s.code = anyName
	}
	if s.outside == "" && outside {
		s.outside = anyName
	}
}

// setters are builtins that set the variables their arguments name.
var setters = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"unset": true, "read": true, "export": true, "declare": true,
		"local": true, "typeset": true, "readonly": true, "printf": true,
		"mapfile": true, "readarray": true, "getopts": true, "wait": true,
	}
}}

// noteSetArgs records the variables the command line v may set: v is a
// reading of a command (Command.variants), its program prog (a basename)
// a setter or a wrapper that sets the environment of the command it runs
// (env, sudo). Its NAME=value words are read by assignsIn, as for every
// other question about what a command assigns; the rest here.
func (c *collector) noteSetArgs(prog string, v []Word) {
	args := v[1:]
	assigns := declarers.Get()[prog] || broadWrappers.Get()[prog].assigns
	if assigns {
		assignsIn([][]Word{v}, c.noteAssign)
	}
	switch {
	case prog == "printf":
		c.noteOptionVar(args, 'v')
	case prog == "wait":
		c.noteOptionVar(args, 'p')
	case prog == "getopts":
		if len(args) > 1 {
			c.noteSetWord(args[1])
		}
	case setters.Get()[prog]:
		nameref := prog == "declare" || prog == "typeset" || prog == "local"
		for _, a := range args {
			if a.Static && (strings.HasPrefix(a.Value, "-") || strings.HasPrefix(a.Value, "+")) {
				if nameref && strings.IndexByte(a.Value, 'n') > 0 {
					c.noteSetAny(false) // declare -n r=PWD: r may be any variable
				}
				// An option's value may follow it in the word: read -aPWD.
				for i := 2; i < len(a.Value); i++ {
					if validName(a.Value[i:]) {
						c.noteSet(a.Value[i:], false)
					}
				}
				continue
			}
			if assigns {
				if _, ok := wordAssign(a); ok {
					continue // noted above
				}
			}
			c.noteSetWord(a)
		}
	}
}

// noteSetWord records the variable the argument w of a setter names:
// "x", "x=1", "x+=1", "x[1]=1", or any for a word that is not static and
// does not start with a name (read "$n").
func (c *collector) noteSetWord(w Word) {
	if w.Static {
		name, _, _ := strings.Cut(w.Value, "=")
		name, _, _ = strings.Cut(name, "[")
		if name = strings.TrimSuffix(name, "+"); validName(name) {
			c.noteSet(name, false)
		}
		return
	}
	if name, ok := assignedName(w.Raw); ok {
		c.noteSet(name, false) // export PATH="$PATH:x"
		return
	}
	c.noteSetAny(false)
}

// noteOptionVar records the variable the option opt of a builtin names
// (printf -v NAME, wait -p NAME, also in a cluster: -vNAME, -np NAME).
// Options end at "--" or at the first word not an option (printf's
// format, wait's first id). A word that is not static before that may be
// the option itself (printf "$o" x), unless it is one of the special
// parameters that are always numbers ($!, $$, $?, $#).
func (c *collector) noteOptionVar(args []Word, opt byte) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.Static:
			if !numericParam(a.Raw) {
				c.noteSetAny(false)
				return
			}
		case a.Value == "--" || len(a.Value) < 2 || a.Value[0] != '-':
			return
		default:
			j := strings.IndexByte(a.Value[1:], opt)
			switch {
			case j < 0:
			case j+2 < len(a.Value):
				c.noteSetWord(Word{Value: a.Value[j+2:], Static: true})
			case i+1 < len(args):
				c.noteSetWord(args[i+1])
				i++
			}
		}
	}
}

// numericParam reports a word that is one of the special parameters
// whose value is always a number, quoted or not.
func numericParam(raw string) bool {
	switch strings.Trim(raw, `"`) {
	case "$!", "${!}", "$$", "${$}", "$?", "${?}", "$#", "${#}":
		return true
	}
	return false
}

// assignedName returns the name a word written as an assignment sets
// (NAME=, NAME+= or NAME[, quoted or not), and true; false for any other
// word.
func assignedName(raw string) (string, bool) {
	raw = strings.TrimLeft(raw, `"'\`)
	i := strings.IndexAny(raw, "=+[")
	if i <= 0 || !validName(raw[:i]) {
		return "", false
	}
	return raw[:i], raw[i] != '+' || strings.HasPrefix(raw[i:], "+=")
}

// noteArithSet records the variable an arithmetic assignment, increment
// or decrement sets: x in x=1, x+=1, x++ and a[1]=1. A target that is
// not a plain name ($x=1) may be any variable.
func (c *collector) noteArithSet(x syntax.ArithmExpr) {
	w, ok := x.(*syntax.Word)
	if ok && len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			name, _, _ := strings.Cut(p.Value, "[")
			if validName(name) {
				c.noteNumber(name, true)
				return
			}
		case *syntax.ParamExp:
			if !p.Dollar.IsValid() && p.Param != nil && validName(p.Param.Value) {
				c.noteNumber(p.Param.Value, true)
				return
			}
		}
	}
	c.noteSetAny(true)
}

// arithAssigns reports an arithmetic operator that assigns its left side.
func arithAssigns(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
		syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// mayAssignArith reports text bash evaluates as arithmetic that may
// assign (an "=" that is no comparison, "++" or "--"): the static
// operand of [[ x -eq y ]] is not parsed, so its names are not known.
func mayAssignArith(text string) bool {
	if strings.Contains(text, "++") || strings.Contains(text, "--") {
		return true
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '=' {
			continue
		}
		prev := byte(0)
		if i > 0 {
			prev = text[i-1]
		}
		next := byte(0)
		if i+1 < len(text) {
			next = text[i+1]
		}
		if next == '=' {
			i++ // "=="
			continue
		}
		switch {
		case prev == '<' || prev == '>':
			if i > 1 && text[i-2] == prev {
				return true // "<<=", ">>="
			}
		case prev != '!' && prev != '=':
			return true
		}
	}
	return false
}
