package bash

import (
	"path"
	"strings"
)

// What a command assigns. One reader serves every question about it:
// which code-carrying variables a command sets (CodeAssigns), which names
// a script may set (sets.go), and which values a name may take (constant
// propagation, constprop.go).

// assignments calls fn with each assignment the command makes: its
// leading NAME=value assignments, then those assignsIn finds in its
// readings. A name may come more than once.
func (c *Command) assignments(fn func(Assign)) {
	for _, a := range c.Assigns {
		fn(a)
	}
	assignsIn(c.variants(), fn)
}

// assignsIn calls fn with each NAME=value argument of a reading in vs
// whose program is a declaring builtin (export, declare, local, readonly,
// typeset) or a wrapper that sets the environment of the command it runs
// (env, sudo). Since every reading counts, so do `builtin export X=1`,
// `exec env X=1 cmd` and `command declare X=1`.
func assignsIn(vs [][]Word, fn func(Assign)) {
	for _, v := range vs {
		if len(v) < 2 || !v[0].Static {
			continue
		}
		if prog := path.Base(v[0].Value); !declarers.Get()[prog] && !broadWrappers.Get()[prog].assigns {
			continue
		}
		for _, w := range v[1:] {
			if a, ok := wordAssign(w); ok {
				fn(a)
			}
		}
	}
}

// wordAssign reads w, an argument of a declaring builtin or of a wrapper
// that takes NAME=value, as an assignment: NAME=value, NAME+=value or
// NAME[i]=value, quoted or not. The name must be a valid one, or one that
// carries code (env 'BASH_FUNC_f%%=() { ...; }'). The Assign is Static,
// with its Value, only for a plain NAME=value whose value is static.
func wordAssign(w Word) (Assign, bool) {
	text := w.Value
	if !w.Static {
		text = strings.TrimLeft(w.Raw, `"'\`)
	}
	name, value, ok := strings.Cut(text, "=")
	if !ok {
		return Assign{}, false
	}
	plain := true
	if n, appended := strings.CutSuffix(name, "+"); appended {
		name, plain = n, false
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		name, plain = name[:i], false
	}
	valid := validName(name)
	if !valid && !CodeVar(name) {
		return Assign{}, false
	}
	a := Assign{Name: name, Raw: w.Raw}
	if w.Static && plain && valid {
		a.Value, a.Static = value, true
	}
	return a, true
}
