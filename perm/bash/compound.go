package bash

import (
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// Compound assignments through a declaration. declare, typeset and local
// read a value that starts with "(" and ends with ")" once expanded as a
// compound array assignment, whose elements bash expands, $(...)
// included, when the name is an array already: y=(); declare y="$x" runs
// the code in x. With -a or -A the declaration is one whatever the name
// (compoundValues). Without them, a value not static given to a name the
// script may make an array, or to one of bash's own arrays, is code not
// known (labelCompound).

// bashArrays are the arrays bash itself sets.
var bashArrays = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"BASH_ALIASES": true, "BASH_ARGC": true, "BASH_ARGV": true, "BASH_CMDS": true, "BASH_LINENO": true,
		"BASH_REMATCH": true, "BASH_SOURCE": true, "BASH_VERSINFO": true, "COMP_WORDS": true, "COPROC": true,
		"DIRSTACK": true, "FUNCNAME": true, "GROUPS": true, "MAPFILE": true, "PIPESTATUS": true,
	}
}}

// compounds is what the collector keeps for labelCompound: the names the
// script may make arrays (arraysAny: any name), and those a declaration
// without -a or -A gives a value not static (declaredAny: a name not
// known).
type compounds struct {
	arrays, declared       []string
	arraysAny, declaredAny bool
}

// noteArray records that the script may make name an array.
func (c *collector) noteArray(name string) {
	addName(&c.compound.arrays, &c.compound.arraysAny, name)
}

// noteDeclaration records the names a declaration (prog, its arguments
// args) gives values not static without -a or -A, and the arrays one with
// them makes.
func (c *collector) noteDeclaration(prog string, args []Word) {
	arrays := false
	for _, w := range args {
		if !w.Static && !looksLikeAssignment(w.Raw) || w.Static && len(w.Value) > 1 && (w.Value[0] == '-' || w.Value[0] == '+') && strings.ContainsAny(w.Value[1:], "aAn") {
			arrays = true // -n: a reference may name an array
		}
	}
	for _, w := range args {
		name, raw, isAssign := strings.Cut(w.Raw, "=")
		name = strings.TrimSuffix(name, "+")
		switch {
		case !isAssign || !validName(name):
			if !w.Static {
				c.compound.declaredAny = true // may be NAME=VALUE
				if arrays {
					c.compound.arraysAny = true
				}
			} else if arrays && validName(w.Value) {
				c.noteArray(w.Value) // declare -a y
			}
		case arrays:
			c.noteArray(name)
		case strings.HasPrefix(raw, "("):
			c.noteArray(name) // a literal array
		case !w.Static && prog != "readonly" && prog != "export":
			addName(&c.compound.declared, &c.compound.declaredAny, name)
		}
	}
}

// compoundCode reports whether a declaration may assign a value not
// static to a name that may be an array.
func (c *collector) compoundCode() bool {
	k := &c.compound
	if len(k.declared) == 0 && !k.declaredAny {
		return false
	}
	if k.arraysAny || k.declaredAny {
		return true
	}
	for _, n := range k.declared {
		if bashArrays.Get()[n] {
			return true
		}
		for _, a := range k.arrays {
			if a == n {
				return true
			}
		}
	}
	return false
}
