package bash

import (
	"path"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// Unmodelled returns the first program, in any broad reading of the
// command c of the script, that may run its arguments or its standard
// input as code the gate does not read, and the first of those that may
// be code: a program modelled does not report as one whose code the gate
// reads or knows it runs none, and that is not verified read-only in that
// reading, given a word or an input that is not plain (plainWord). ("",
// "") if there is none.
//
// A name is taken for the program it names only when PATH finds it or
// it is a file in a system directory: a function the script defines
// (cp() { irb; }) runs its body with the caller's input, and ./cp may
// be a link to any interpreter, so both are judged by their words.
//
// This is the gate's answer to interpreters nobody listed: irb, dc, m4,
// expect or an in-house tool may build a denied program's name from
// pieces ("r"+"m"), which no deny rule can see. A plain word cannot: see
// plainWord.
func (s *Script) Unmodelled(c *Command, modelled func(name string) bool) (prog, word string) {
	if a, ok := s.unplainExport(c); ok {
		// Any program may run a variable's value (TAR_OPTIONS,
		// MAKEFLAGS, FZF_DEFAULT_COMMAND): a list of the ones known
		// to would let every other one through.
		prog = "every later program"
		if v := c.variants(); len(v) > 0 && len(v[0]) > 0 && v[0][0].Static {
			prog = path.Base(v[0][0].Value)
		}
		return prog, a.Raw
	}
	xargsSafe := c.XargsSafe()
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static || v[0].Glob {
			continue // a name no rule can check is asked about elsewhere
		}
		name := path.Base(v[0].Value)
		var words []Word
		switch {
		case s.funcs[v[0].Value] || strings.Contains(v[0].Value, "/") && !systemProgram(v[0].Value):
			words = v
		case isWrapper(name):
			words = wrapperOwn(v) // the command it runs is a reading too
		case xargsSafe && len(v) > 1 && v[len(v)-1].Raw == inputWords.Raw:
			continue // what xargs adds: XargsSafe verified the program
		case modelled(name) || verifiedReadOnly(v) || dataUnless.Get()[name] != nil && !dataUnless.Get()[name](v[1:]):
			continue
		default:
			// The name too: one no plain word spells (env -S 'r""m',
			// whose quotes env itself takes out) is not what rules see.
			words = v
		}
		for _, w := range words {
			if w.Braces != nil {
				continue // the words it makes are another reading
			}
			if !w.Static || !w.Glob && !plainWord(w.Value) {
				return name, w.Raw
			}
		}
		if !isWrapper(name) && (c.stdinUnseen || c.Stdin != "" && !plainWord(strings.TrimRight(c.Stdin, "\n"))) {
			return name, "its standard input"
		}
	}
	return "", ""
}

// unplainExport returns the first assignment c puts in the environment
// of a program whose value is not a plain word: a leading one of a
// command that runs a program, one env, sudo, export or declare -x (and
// typeset, local, readonly -x) takes, and any one at all in a script that
// sets allexport (set -a).
func (s *Script) unplainExport(c *Command) (Assign, bool) {
	var bad Assign
	found := false
	check := func(a Assign) {
		if !found && (!a.Static || !plainWord(a.Value)) {
			bad, found = a, true
		}
	}
	if len(c.Words) > 0 || s.allExport() {
		for _, a := range c.Assigns {
			check(a)
		}
	}
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static {
			continue
		}
		prog := path.Base(v[0].Value)
		if prog == "export" || broadWrappers.Get()[prog].assigns || declarers.Get()[prog] && (s.allExport() || exportsFlag(v[1:])) {
			assignsIn([][]Word{v}, check)
		}
	}
	return bad, found
}

// exportsFlag reports whether the arguments of declare, typeset, local or
// readonly may hold -x, which exports what they set (declare -rx X=...):
// in a cluster of flags, or in a word not static that is no NAME=value
// (declare $opt X=1; not local x="$1").
func exportsFlag(args []Word) bool {
	for _, w := range args {
		if !w.Static {
			if !looksLikeAssignment(w.Raw) {
				return true
			}
			continue
		}
		if ClusterHas(w.Value, 'x') {
			return true
		}
	}
	return false
}

// allExport reports, once per script, whether it may turn on allexport, after
// which every variable it sets is in the environment of the programs it
// runs: set -a (in a cluster too), set -o allexport, or a set whose
// arguments are not static.
func (s *Script) allExport() bool {
	if s.exportsAll == 0 {
		s.exportsAll = 1
		if slices.ContainsFunc(s.Commands, setsAllExport) {
			s.exportsAll = 2
		}
	}
	return s.exportsAll == 2
}

// setsAllExport reports whether a reading of c is a set that may turn on
// allexport (builtin set -a and command set -a too).
func setsAllExport(c *Command) bool {
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static || path.Base(v[0].Value) != "set" {
			continue
		}
		for _, w := range v[1:] {
			if !w.Static || w.Value == "allexport" || ClusterHas(w.Value, 'a') {
				return true
			}
		}
	}
	return false
}

// systemDirs are the directories of programs only the system writes,
// where a program's file name is its own.
var systemDirs = [...]string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// SystemDirs returns the directories of programs only the system writes
// (/usr/bin, /bin, ...), where a program's file name is its own.
func SystemDirs() []string { return slices.Clone(systemDirs[:]) }

// systemProgram reports whether p, a program word with a "/", names a
// file in one of systemDirs: /usr/bin/git is git, ./git may be anything.
func systemProgram(p string) bool {
	return slices.Contains(systemDirs[:], path.Dir(p)) && !strings.Contains(p, "/../")
}

// isWrapper reports whether the program name is a broad wrapper.
func isWrapper(name string) bool {
	_, ok := wrapperFor(broadWrappers.Get(), name)
	return ok
}

// wrapperOwn returns the words of the reading v, a broad wrapper's
// command line, that are the wrapper's own (its options, their values
// and its operand): those before the command it runs, which is a reading
// of its own. All of them when it runs none, or one its own words make
// (env -S 'cmd args').
func wrapperOwn(v []Word) []Word {
	inner, ok := unwrap(v, broadWrappers.Get(), true)
	if !ok || len(inner) == 0 || len(inner) >= len(v) || !sameWords(inner, v[len(v)-len(inner):]) {
		return v[1:]
	}
	return v[1 : len(v)-len(inner)]
}

// verifiedReadOnly reports whether the reading v, static words with a
// static program first, is verified to only read by its program's spec.
func verifiedReadOnly(v []Word) bool {
	for _, w := range v {
		if !w.Static {
			return false
		}
	}
	prog, args := v[0].Value, v[1:]
	if fn, ok := readOnlyFuncs.Get()[prog]; ok {
		_, ok := fn(args)
		return ok
	}
	if s, ok := specs.Get()[prog]; ok {
		_, ok := s().eval(args)
		return ok
	}
	return false
}

// plainWord reports whether s, a word's value, is one token of letters,
// digits and the punctuation of names, paths, options, versions, lists
// and globs (-_./:=@%+^~*?,), with no white space, quote, escape,
// bracket, brace, parenthesis or shell operator: the characters any
// language needs to join pieces of a name into one or to call a
// function on them. A comma and a plus together are not plain either:
// Perl joins a list with them alone (system+join+q,,,r,m). Code made of
// a plain word alone spells every name it runs in full, where deny rules
// see it.
func plainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9':
		case strings.IndexByte("-_./:=@%+^~*?,", ch) >= 0:
		default:
			return false
		}
	}
	return !strings.Contains(s, ",") || !strings.Contains(s, "+")
}

// Models reports whether the gate models what the program name (a base
// name) runs: a shell, a builtin (builtins), find, whose -exec is a
// reading of its own, or a program in audited: none of their options
// runs a program, and git's that do (-c core.sshCommand, aliases,
// rebase --exec) are read as commands. A broad wrapper's own words are
// judged, and the command it runs as a reading of its own. The
// interpreters are the caller's to add: it reads their code (perm's
// opaque check).
func Models(name string) bool {
	return shells.Get()[name] || builtins.Get()[name] || audited.Get()[name] || name == "find"
}

// audited are the programs whose every option was checked for one that
// runs a program: writers (install's --strip-program and wget's
// --use-askpass do: they are left out, as are the dataWriters, whose
// archivers take compressors and commands: tar -I, cpio --rsh-command).
var audited = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"cp": true, "mv": true, "ln": true, "tee": true, "rm": true, "rmdir": true, "unlink": true, "shred": true,
		"touch": true, "truncate": true, "mkdir": true, "chmod": true, "chown": true, "chgrp": true, "dd": true,
		"curl": true, "git": true,
		// Programs that run nothing, whatever their arguments: no option of
		// theirs, documented or not, names a program or code (sort's
		// --compress-program, less's +!, diff3's --diff-program keep sort,
		// less and diff3 out), so that the words xargs gives them
		// (find ... | xargs grep -l x) are data.
		"seq": true, "sleep": true, "basename": true, "dirname": true, "expr": true,
		"grep": true, "egrep": true, "fgrep": true, "cat": true, "head": true, "tail": true, "wc": true, "ls": true,
		"cut": true, "uniq": true, "nl": true, "tr": true, "tac": true, "rev": true, "paste": true, "join": true,
		"comm": true, "cmp": true, "diff": true, "fold": true, "expand": true, "od": true, "base64": true,
		"md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true, "realpath": true, "readlink": true,
		"stat": true, "du": true, "date": true, "jq": true, "pwd": true, "whoami": true, "id": true, "uname": true,
		"file": true, "tree": true, "gofmt": true,
	}
}}

// dataUnless are programs that run nothing but through the options their
// function finds in a reading's words: their words are data otherwise.
// A word not static may be any option.
var dataUnless = lazy.Value[map[string]func(args []Word) bool]{New: func() map[string]func(args []Word) bool {
	return map[string]func(args []Word) bool{
		// ripgrep runs --pre's program on each file (its parser takes no
		// abbreviation; --pre-glob only narrows --pre); -z runs the
		// decompressors PATH finds.
		"rg": anyWord(func(v string) bool { return longName(v) == "--pre" }),
		// GNU sort runs --compress-program's, which getopt takes abbreviated
		// down to --co (--c is ambiguous with --check). Under an allow rule
		// the same option is a DataWrites reason (step 2), unless a strict
		// parse of sort's options is sure no word names it.
		"sort": anyWord(func(v string) bool { return abbrev(longName(v), "--compress-program", len("--co")) }),
	}
}}

// anyWord returns a dataUnless function: true if a word is not static or
// its value is one code says runs code.
func anyWord(code func(v string) bool) func(args []Word) bool {
	return func(args []Word) bool {
		for _, w := range args {
			if !w.Static || code(w.Value) {
				return true
			}
		}
		return false
	}
}

// builtins are the bash builtins whose effects the gate models: the ones that run code (eval, trap, alias, source, exec,
// command, builtin) have their code read as commands of the script, the
// ones that set variables are followed (declare, export, read), and the
// rest run nothing. mapfile (-C), let, fc, bind and complete are left
// out: each may evaluate a string as code.
var builtins = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		":": true, ".": true, "[": true, "[[": true, "alias": true, "bg": true, "break": true, "builtin": true, "caller": true,
		"cd": true, "command": true, "continue": true, "declare": true, "dirs": true, "disown": true, "echo": true,
		"eval": true, "exec": true, "exit": true, "export": true, "false": true, "fg": true, "getopts": true, "hash": true,
		"help": true, "history": true, "jobs": true, "kill": true, "local": true, "logout": true, "popd": true,
		"printf": true, "pushd": true, "pwd": true, "read": true, "readonly": true, "return": true, "set": true,
		"shift": true, "shopt": true, "source": true, "suspend": true, "test": true, "times": true, "trap": true,
		"true": true, "type": true, "typeset": true, "ulimit": true, "umask": true, "unalias": true, "unset": true,
		"wait": true,
	}
}}
