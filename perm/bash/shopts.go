package bash

import (
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// Shell options. The analysis reads a script as bash reads it with its
// options as a non-interactive bash starts (CommandEnv unsets BASHOPTS
// and SHELLOPTS). An option it reads scripts the same way with, on or
// off, is quiet: it changes what bash prints, when it stops, or what it
// refuses, or the analysis models it (allexport, globstar, dotglob,
// physical), never which program runs, which words a command gets, which
// file a path or a glob names or what reaches a program's environment.
// Any other option, and an option name that is not static, makes set,
// shopt or a shell's invocation unsure: keyword makes every NAME=value
// word an assignment to the environment (set -k; bash BASH_ENV=x -c :),
// nocaseglob makes .E* match .env, cdable_vars makes cd x go to $x,
// history expansion and compatibility levels change how bash reads the
// rest.

// quietFlags are set's one-letter options that are quiet, and
// invocationFlags the letters only a shell's invocation takes (-c, -s,
// -i, -l, -r and their kin), which readShellArgs reads itself.
const (
	quietFlags      = "abefhmnptuvxBCEPT"
	invocationFlags = "cilrsqDIV"
)

// quietSetOptions are the names of set -o that are quiet.
var quietSetOptions = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"allexport": true, "braceexpand": true, "emacs": true, "errexit": true, "errtrace": true,
		"functrace": true, "hashall": true, "ignoreeof": true, "interactive-comments": true,
		"monitor": true, "noclobber": true, "noexec": true, "noglob": true, "nolog": true, "notify": true,
		"nounset": true, "onecmd": true, "physical": true, "pipefail": true, "privileged": true,
		"verbose": true, "vi": true, "xtrace": true,
		// POSIX mode expands aliases, as sh does, but an alias's value
		// is read as code where it is defined (aliasValues); its other
		// changes make bash expand and search less.
		"posix": true,
	}
}}

// quietShopts are the names of shopt that are quiet.
var quietShopts = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"checkhash": true, "checkjobs": true, "checkwinsize": true, "cmdhist": true,
		"complete_fullquote": true, "direxpand": true, "dotglob": true, "execfail": true, "extglob": true,
		"extquote": true, "failglob": true, "force_fignore": true, "globskipdots": true, "globstar": true,
		"gnu_errfmt": true, "histappend": true, "histreedit": true, "histverify": true, "hostcomplete": true,
		"huponexit": true, "inherit_errexit": true, "interactive_comments": true, "lastpipe": true,
		"lithist": true, "mailwarn": true, "no_empty_cmd_completion": true, "nocasematch": true,
		"noexpand_translation": true, "nullglob": true, "progcomp": true, "progcomp_alias": true,
		"promptvars": true, "shift_verbose": true, "sourcepath": true, "xpg_echo": true,
	}
}}

// quietOption reports whether the option name (set -o's when long, else
// shopt's) is quiet.
func quietOption(name string, long bool) bool {
	if long {
		return quietSetOptions.Get()[name]
	}
	return quietShopts.Get()[name]
}

// unquietOptions returns the first word of set's or shopt's arguments
// (prog names which) that may turn an option that is not quiet on or off,
// or "" if none does. A shopt without -s or -u only prints or queries.
func unquietOptions(prog string, args []Word) string {
	if prog == "shopt" {
		long, changes := false, false
		names := args
	flags:
		for i, w := range args {
			switch {
			case !w.Static:
				return w.Raw
			case w.Value == "--":
				names = args[i+1:]
				break flags
			case len(w.Value) > 1 && w.Value[0] == '-':
				long = long || strings.IndexByte(w.Value, 'o') >= 0
				changes = changes || strings.ContainsAny(w.Value, "su")
			default:
				names = args[i:]
				break flags
			}
			names = nil
		}
		if !changes {
			return ""
		}
		for _, w := range names {
			if !w.Static || !quietOption(w.Value, long) {
				return w.Raw
			}
		}
		return ""
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case !w.Static:
			return w.Raw
		case w.Value == "-" || w.Value == "--" || len(w.Value) < 2 || w.Value[0] != '-' && w.Value[0] != '+':
			return "" // the positional parameters follow
		}
		for _, ch := range w.Value[1:] {
			if ch != 'o' {
				if !strings.ContainsRune(quietFlags, ch) {
					return w.Raw
				}
				continue
			}
			if i+1 == len(args) {
				return "" // set -o alone prints the options
			}
			i++
			if n := args[i]; !n.Static || !quietOption(n.Value, true) {
				return n.Raw
			}
		}
	}
	return ""
}

// invocationUnquiet reports whether the letter ch of a shell's invocation
// options (one of flags) is an option that is not quiet.
func invocationUnquiet(ch rune) bool {
	return !strings.ContainsRune(quietFlags, ch) && !strings.ContainsRune(invocationFlags, ch)
}
