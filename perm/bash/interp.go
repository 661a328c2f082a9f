package bash

import (
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// CodeSource says where an interpreter takes its program from.
type CodeSource int

const (
	// CodeFile is a script file its first operand names, or a module it
	// finds as it finds one (python -m): the project's code.
	CodeFile CodeSource = iota
	// CodeStdin is its standard input: no script operand, "-" or an
	// empty one, or an option that reads it too (python -i).
	CodeStdin
	// CodeInline is an option's argument (python -c, perl -e).
	CodeInline
	// CodeUnknown is what the gate cannot tell: an option the
	// interpreter's grammar does not list, which may take the next word
	// as its value, or a word the shell expands, which may be any
	// option or operand.
	CodeUnknown
)

// interpreter is how one interpreter reads the options before its
// program. opts lists every option the gate knows, with how it takes a
// value, and is strict and exact: any other option, or an abbreviation,
// leaves the program's source unknown.
type interpreter struct {
	opts optSpec
	// code are the options whose argument is the program.
	code []string
	// module are the options whose argument names a module, the
	// program, after which its options end (python -m).
	module []string
	// stdin are the options with which it also reads code from its
	// standard input, after running its script (python -i).
	stdin []string
}

// pythonArgs are CPython's options (3.11, Python/getopt.c): short ones
// cluster, -c, -m, -W and -X take the rest of their word or else the next
// word, -c and -m end the options; long ones are written in full, and
// --check-hash-based-pycs takes the next word. -J (Jython's) is refused.
// PyPy reads them alike; python2's -Q and -3, and PyPy's --jit, are not
// listed.
var pythonArgs = interpreter{
	opts: optSpec{
		flags: "bBdEhiIOPqRsStuvVx", args: "cmWX",
		long:     []string{"help", "version", "help-env", "help-xoptions", "help-all"},
		longArgs: []string{"check-hash-based-pycs"},
		strict:   true, exact: true,
	},
	code: []string{"-c"}, module: []string{"-m"}, stdin: []string{"-i"},
}

// perlArgs are perl's switches (5.36, perl.c): they cluster; -e, -E and -I
// take the rest of their word or else the next word; -i, -C, -x and -V
// only the rest of their word; -l and -0 the octal digits after them, and
// the word goes on. Left out, so unknown: -M and -m, whose text after the
// module name is code (perl '-Mstrict;system(...)'), -F, whose pattern
// is spliced into code, -d and -D (a debugger and its module), and -u,
// which dumps core.
var perlArgs = interpreter{
	opts: optSpec{
		flags: "acfghnpsStTUvwWX", args: "eEI", attached: "iCxV", octal: "l0",
		long:   []string{"help", "version"},
		strict: true, exact: true,
	},
	code: []string{"-e", "-E"},
}

// rubyArgs are ruby's switches (ruby.c, proc_options), read from its
// source, not checked against a ruby binary: none is installed here. They
// cluster; -e, -C, -E, -I and -r take the rest of their word or else the
// next word; -i, -F and -x only the rest of their word; -0 and -W the
// digits after them. Long options are written in full, --enable,
// --disable and the encodings taking "=value" or else the next word.
var rubyArgs = interpreter{
	opts: optSpec{
		flags: "acdhlnpsSUvwy", args: "eCEIr", attached: "iFx", octal: "0W",
		long:     []string{"copyright", "debug", "help", "verbose", "version", "yydebug"},
		longArgs: []string{"enable", "disable", "encoding", "external-encoding", "internal-encoding"},
		strict:   true, exact: true,
	},
	code: []string{"-e"},
}

// nodeArgs are node's options (v20): each short one is a word of its own
// (node refuses a cluster, so reading one as getopt does reads nothing it
// runs), and -r, -C, -e and -p, and the long ones that take a value,
// take "=value" or else the next word. -i with a script runs only the
// script. Only options checked are listed; --import and --loader are
// not: their module may be a data: URL, code.
var nodeArgs = interpreter{
	opts: optSpec{
		flags: "chiv", args: "Cepr",
		long: []string{"check", "help", "interactive", "version", "no-warnings", "no-deprecation",
			"trace-warnings", "trace-deprecation", "throw-deprecation", "pending-deprecation",
			"enable-source-maps", "preserve-symlinks", "preserve-symlinks-main", "trace-uncaught",
			"expose-gc", "experimental-vm-modules"},
		longArgs: []string{"conditions", "eval", "input-type", "print", "require", "title"},
		strict:   true, exact: true,
	},
	code: []string{"-e", "-p", "--eval", "--print"},
}

// interpreters are the interpreters whose options the gate reads, by
// name; any other has noOptions.
var interpreters = lazy.Value[map[string]*interpreter]{New: func() map[string]*interpreter {
	return map[string]*interpreter{
		"python": &pythonArgs, "python2": &pythonArgs, "python3": &pythonArgs, "pypy": &pythonArgs, "pypy3": &pythonArgs,
		"perl": &perlArgs, "ruby": &rubyArgs, "node": &nodeArgs, "nodejs": &nodeArgs,
	}
}}

// noOptions is the grammar of an interpreter whose options the gate does
// not know: every option is unknown.
var noOptions = interpreter{opts: optSpec{strict: true, exact: true}}

// CodeOptions returns the options of the interpreter name (a base name)
// whose argument is its program, if the gate knows its options.
func CodeOptions(name string) []string {
	if in := interpreters.Get()[name]; in != nil {
		return in.code
	}
	return nil
}

// InterpreterArgs is InterpreterWords for the fields of a deny form
// (DenyForms), where a word the shell expands keeps its text: one holding
// "$", "`" or a glob character may be any word, and one of quotes alone
// is empty.
func InterpreterArgs(name string, args []string) (CodeSource, string) {
	words := make([]Word, len(args))
	for i, a := range args {
		words[i] = formWord(a)
	}
	return InterpreterWords(name, words)
}

// InterpreterWords reads the arguments of the interpreter name (a base
// name) as the interpreter reads the options before its program, and
// says where it takes the program from, with the word that decided it:
// the code option (CodeInline) or the word it cannot read (CodeUnknown).
// An interpreter it knows no options of (deno, php) has only its
// operands read: any option may take the next word.
func InterpreterWords(name string, words []Word) (CodeSource, string) {
	in := interpreters.Get()[name]
	if in == nil {
		in = &noOptions
	}
	parsed, rest, err := in.opts.parse(words)
	stdin := false
	for _, a := range parsed {
		switch {
		case slices.Contains(in.code, a.opt):
			return CodeInline, a.opt
		case slices.Contains(in.module, a.opt):
			return fileOrStdin(stdin), a.opt
		case slices.Contains(in.stdin, a.opt):
			stdin = true
		}
	}
	switch {
	case err != nil || rest < len(words) && !words[rest].Static:
		return CodeUnknown, words[rest].Raw
	case rest == len(words) || words[rest].Value == "-" || words[rest].Value == "":
		return CodeStdin, ""
	}
	return fileOrStdin(stdin), words[rest].Raw
}

// fileOrStdin is CodeStdin if an option makes the interpreter read code
// from stdin as well as its script, else CodeFile.
func fileOrStdin(stdin bool) CodeSource {
	if stdin {
		return CodeStdin
	}
	return CodeFile
}

// formWord is the word a deny form's field stands for (InterpreterArgs).
func formWord(f string) Word {
	if strings.Trim(f, `'"`) == "" {
		return Word{Raw: f, Static: true}
	}
	return Word{Raw: f, Value: f, Static: !strings.ContainsAny(f, "$`*?[")}
}
