package bash

import (
	"path"
	"strings"
)

// nestedShells parses the shell code cmd runs from strings (in any of its
// broad readings, so `sudo bash -c ...` and `xargs sh -c ...` count) and
// collects its commands as Nested. Code that is not static, does not parse
// or is nested too deeply is reported as suspicious instead.
func (c *collector) nestedShells(cmd *Command, st *walkState) {
	done := map[string]bool{}
	for _, v := range cmd.variants() {
		codes, ok := shellCode(v)
		if !ok {
			c.suspect(labelUnparseable)
		}
		for _, code := range codes {
			if !done[code] {
				done[code] = true
				c.shell(code, st)
			}
		}
	}
}

func (c *collector) shell(code string, st *walkState) {
	if st.depth+1 > maxDepth {
		c.suspect(labelDepth)
		return
	}
	f, err := parseFile(code)
	if err != nil {
		c.suspect(labelUnparseable)
		return
	}
	c.text(code)
	c.walk(f, &walkState{src: code, nested: true, depth: st.depth + 1, subst: st.subst})
}

// shells are the programs whose -c option runs a string as shell code.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"mksh": true, "ash": true, "yash": true, "posh": true, "rbash": true,
}

// shellCode returns the shell code words hand to a shell as a string: the
// string of sh -c (and bash, zsh, ...), eval's joined arguments, trap's
// action, alias values, su/runuser/script/flock -c commands, and watch's
// joined command line. ok is false if such code is there but is not static.
func shellCode(words []Word) (code []string, ok bool) {
	if len(words) == 0 || !words[0].Static {
		return nil, true
	}
	args := words[1:]
	switch name := path.Base(words[0].Value); {
	case shells[name]:
		return single(dashC(args))
	case name == "eval":
		if len(args) > 0 && args[0].Static && args[0].Value == "--" {
			args = args[1:]
		}
		return single(joined(args))
	case name == "trap":
		return single(trapAction(args))
	case name == "alias":
		return aliasValues(args)
	case name == "su" || name == "runuser" || name == "script" || name == "flock":
		return single(commandOption(args))
	case name == "watch":
		wr := broadWrappers["watch"]
		parsed, rest, _ := wr.opts.parse(args)
		for _, a := range parsed {
			if a.opt == "-x" || a.opt == "--exec" {
				return nil, true // runs its arguments directly
			}
		}
		return single(joined(args[rest:]))
	}
	return nil, true
}

// single turns a one-string result into shellCode's shape: w is nil if
// there is no code, and not static if the code is not.
func single(w *Word) ([]string, bool) {
	switch {
	case w == nil:
		return nil, true
	case !w.Static:
		return nil, false
	}
	return []string{w.Value}, true
}

// dashC finds the command string of `sh [options] -c string [name args]`:
// the first operand once a cluster holding "c" has been seen.
func dashC(args []Word) *Word {
	hasC := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			return &Word{Raw: w.Raw} // may be "-c" or the string itself
		}
		v := w.Value
		switch {
		case v == "--" || v == "-":
			if hasC && i+1 < len(args) {
				return &args[i+1]
			}
			return nil
		case v == "--rcfile" || v == "--init-file":
			i++
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for _, ch := range v[1:] {
				hasC = hasC || ch == 'c' && v[0] == '-'
				if ch == 'o' || ch == 'O' {
					i++ // -o option, -O shopt: the name is the next word
				}
			}
		case hasC:
			return &args[i]
		default:
			return nil // a script file: not code in a string
		}
	}
	return nil
}

// joined returns the words joined by spaces as the shell code they form,
// or nil if there are none.
func joined(args []Word) *Word {
	if len(args) == 0 {
		return nil
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if !a.Static {
			return &Word{Raw: a.Raw}
		}
		parts[i] = a.Value
	}
	s := strings.Join(parts, " ")
	return &Word{Raw: s, Value: s, Static: true}
}

// trapAction returns the action of `trap [-lpP] [--] action signal...`.
// With one operand, or "-" as the action, trap resets signals instead.
func trapAction(args []Word) *Word {
	for len(args) > 0 && args[0].Static && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-" {
		if args[0].Value == "--" {
			args = args[1:]
			break
		}
		args = args[1:]
	}
	if len(args) < 2 || args[0].Static && args[0].Value == "-" {
		return nil
	}
	return &args[0]
}

// aliasValues returns the values of alias NAME=VALUE arguments: with
// expand_aliases on, each is code that replaces NAME.
func aliasValues(args []Word) ([]string, bool) {
	var out []string
	for _, a := range args {
		if !a.Static {
			return out, false
		}
		if _, v, ok := strings.Cut(a.Value, "="); ok {
			out = append(out, v)
		}
	}
	return out, true
}

// commandOption returns the string given to -c, --command or --command=
// (su, runuser, script, flock), including a -c ending a cluster
// (`su -lc cmd`) and an attached one (`su -c'cmd'`). A "c" anywhere in a
// cluster counts: reading too much as code only costs a parse.
func commandOption(args []Word) *Word {
	for i, a := range args {
		if !a.Static {
			continue
		}
		v := a.Value
		var code string
		switch {
		case v == "--command" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.HasSuffix(v, "c"):
			if i+1 < len(args) {
				return &args[i+1]
			}
			return nil
		case strings.HasPrefix(v, "--command="):
			code = strings.TrimPrefix(v, "--command=")
		case len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.Contains(v, "c"):
			_, code, _ = strings.Cut(v, "c")
		default:
			continue
		}
		return &Word{Raw: code, Value: code, Static: true}
	}
	return nil
}
