package bash

import (
	"path"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
)

// ReadOnly reports whether the command is verified to only read, and if so
// the paths it reads (see Reads). It is Reads without the detail.
func (c *Command) ReadOnly() (paths []string, ok bool) {
	r, ok := c.Reads()
	if !ok {
		return nil, false
	}
	for _, p := range r.Paths {
		paths = append(paths, p.Path)
	}
	return paths, true
}

// Reads reports whether the command is verified to only read: its program
// has a read-only spec (spec_table.go, or a function here for builtins,
// find, sed, jq and git) and every argument is one the spec accepts. A
// command that reads the current directory without naming it (ls, du,
// find, grep -r x) reads "."; one that reads standard input names nothing.
//
// ok is false, with Reads.Reason saying why, for a program without a
// spec, an option or value outside it, a word that is not static, a glob
// pattern anywhere but in a path operand, and anything the narrow
// normalisation keeps (an assignment that is not harmless, a wrapper other
// than timeout, time, nice, nohup and stdbuf). It judges the words only:
// redirects are listed in Script.Redirects, and a glob operand's matches
// are for the caller to check (none may start with "-").
func (c *Command) Reads() (Reads, bool) {
	words, ok := c.narrow()
	if !ok {
		for _, a := range c.Assigns {
			if !harmless(a) {
				return Reads{Reason: Because("assignment %s changes what the command does", a.Raw)}, false
			}
		}
		return Reads{Reason: Because("no command")}, false
	}
	for _, w := range words {
		if !w.Static {
			return Reads{Reason: Because("word %s is not static", w.Raw)}, false
		}
	}
	prog, args := words[0].Value, words[1:]
	if words[0].Glob {
		return Reads{Reason: Because("program name %s is a glob pattern", words[0].Raw)}, false
	}
	if fn, found := readOnlyFuncs.Get()[prog]; found {
		return fn(args)
	}
	if s, found := specs.Get()[prog]; found {
		return s().eval(args)
	}
	if prog == "xargs" {
		// XargsSafe decides the one case a caller may allow.
		return Reads{Reason: Because("xargs gives its program operands that cannot be checked")}, false
	}
	return Reads{Reason: Because("program %s has no read-only spec", quoteString(prog))}, false
}

// XargsSafe reports whether the command is xargs with only options that
// change how it reads and groups its input, running a program whose spec
// says that no option it has, documented or not, writes or runs anything,
// and that it prints only counts of what it reads (countsOnly: wc), with
// static arguments it verifies, the last of them "--". What xargs adds
// from standard input is unknown and may name any file, outside the
// workspace too: the caller must not allow it while Read deny or Bash
// rules could be evaded by it, and a program that prints what it reads
// (xargs cat) is not safe. Without the "--" an input word is an option
// when it starts with "-": wc --files0-from=/etc/passwd prints each line
// of the file as the name of a file it cannot find.
func (c *Command) XargsSafe() bool {
	words, ok := c.narrow()
	if !ok || len(words) < 2 || !words[0].Static || words[0].Value != "xargs" {
		return false
	}
	p, _ := xargsSpec.Get().parseUntilOperand(words[1:])
	if p == nil || len(p.operands) == 0 {
		return false
	}
	for _, o := range p.opts {
		if o.name == "-I" || o.name == "-i" || o.name == "--replace" {
			return false // input lands anywhere in the command line
		}
	}
	inner := &Command{Words: words[len(words)-len(p.operands):]}
	if inner.Words[len(inner.Words)-1].Value != "--" {
		return false // the input may hold options
	}
	prog := inner.Words[0].Value
	s, found := specs.Get()[prog]
	if !found || !s().anyArgs || !s().countsOnly || !inner.Words[0].Static {
		return false
	}
	_, ok = inner.Reads()
	return ok
}

// xargsSpec stops at the first operand: the command xargs runs. -a reads
// the arguments from a file, -I and -i put them anywhere, -p asks on the
// terminal and -P runs in parallel; only the ones below are accepted.
var xargsSpec = lazy.Value[*progSpec]{New: func() *progSpec {
	return compiledSpec(&progSpec{
		name: "xargs",
		opts: "-0,--null -d,--delimiter=DELIM -E=EOF -e,--eof[=EOF] -L=N --max-lines[=N] -l[=N] -n,--max-args=N -r,--no-run-if-empty -s,--max-chars=N -x,--exit -t,--verbose -I=R -i,--replace[=R]",
	})
}}

func (s *progSpec) parseUntilOperand(words []Word) (*parsedCmd, Why) {
	for i, w := range words {
		if w.Value == "--" {
			p, r := s.parse(words[:i])
			if p != nil {
				p.operands = ptrs(words[i+1:])
			}
			return p, r
		}
		if !strings.HasPrefix(w.Value, "-") || w.Value == "-" {
			p, r := s.parse(words[:i])
			if p != nil {
				p.operands = ptrs(words[i:])
			}
			return p, r
		}
	}
	return s.parse(words)
}

func ptrs(ws []Word) []*Word {
	out := make([]*Word, len(ws))
	for i := range ws {
		out[i] = &ws[i]
	}
	return out
}

// readOnlyFuncs are the programs whose arguments need more than a spec.
var readOnlyFuncs = lazy.Value[map[string]func([]Word) (Reads, bool)]{New: func() map[string]func([]Word) (Reads, bool) {
	return map[string]func([]Word) (Reads, bool){
		"find":    findReadOnly,
		"sed":     sedReadOnly,
		"jq":      jqReadOnly,
		"git":     gitReadOnly,
		"echo":    textOnly,
		"true":    textOnly,
		"false":   textOnly,
		":":       textOnly,
		"printf":  printfReadOnly,
		"pwd":     flagsOnly("pwd", "LP"),
		"type":    namesOnly("type", "afptP"),
		"which":   namesOnly("which", "as"),
		"command": commandReadOnly,
		"cd":      cdReadOnly,
		"test":    testReadOnly,
		"[":       bracketReadOnly,
	}
}}

// textOnly: echo, true, false and ":" print or ignore their words.
func textOnly(words []Word) (Reads, bool) {
	for _, w := range words {
		if w.Glob {
			return Reads{Reason: Because("word %s is a glob pattern", w.Raw)}, false
		}
	}
	return Reads{}, true
}

// printfReadOnly: bash's printf; -v assigns a variable (whose name may
// hold a subscript that runs code).
func printfReadOnly(words []Word) (Reads, bool) {
	if len(words) > 0 && strings.HasPrefix(words[0].Value, "-") && words[0].Value != "--" {
		return Reads{Reason: Because("printf: option %s", words[0].Raw)}, false
	}
	return textOnly(words)
}

// flagsOnly: a builtin with the given flags and no operands.
func flagsOnly(name, flags string) func([]Word) (Reads, bool) {
	return func(words []Word) (Reads, bool) {
		for _, w := range words {
			if !isFlagCluster(w.Value, flags) {
				return Reads{Reason: Because("%s: argument %s", name, w.Raw)}, false
			}
		}
		return Reads{}, true
	}
}

// namesOnly: flags, then names that are looked up, not read. A name
// with a "/" is not looked up in PATH: the program looks at that path
// (type ../x says whether ../x is an executable file), as test -x would,
// so it is a path the command reads.
func namesOnly(name, flags string) func([]Word) (Reads, bool) {
	return func(words []Word) (Reads, bool) {
		var r Reads
		for i := range words {
			w := &words[i]
			if strings.HasPrefix(w.Value, "-") && !isFlagCluster(w.Value, flags) || w.Glob {
				return Reads{Reason: Because("%s: argument %s", name, w.Raw)}, false
			}
			if strings.Contains(w.Value, "/") {
				r.Paths = append(r.Paths, readPath(w.Value, w))
			}
		}
		return r, true
	}
}

func isFlagCluster(v, flags string) bool {
	if len(v) < 2 || v[0] != '-' {
		return false
	}
	for _, c := range v[1:] {
		if !strings.ContainsRune(flags, c) {
			return false
		}
	}
	return true
}

// commandReadOnly: only `command -v NAME` and `command -V NAME`, which
// print what NAME is; otherwise command runs NAME.
func commandReadOnly(words []Word) (Reads, bool) {
	if len(words) < 2 || !isFlagCluster(words[0].Value, "pvV") || !strings.ContainsAny(words[0].Value, "vV") {
		return Reads{Reason: Because("command runs its operand")}, false
	}
	return namesOnly("command", "pvV")(words)
}

// cdReadOnly: cd reads (enters) one directory; with none it enters $HOME.
// `cd -` and CDPATH make the directory unknown here.
func cdReadOnly(words []Word) (Reads, bool) {
	var dirs []*Word
	for i := 0; i < len(words); i++ {
		w := &words[i]
		switch {
		case w.Value == "--":
			dirs = append(dirs, ptrs(words[i+1:])...)
			i = len(words)
		case isFlagCluster(w.Value, "LPe@"):
		default:
			dirs = append(dirs, w)
		}
	}
	switch {
	case len(dirs) == 0:
		return Reads{Paths: []ReadPath{{Path: "~"}}}, true
	case len(dirs) > 1 || dirs[0].Value == "-" || dirs[0].Glob || dirs[0].Value == "":
		return Reads{Reason: Because("cd: directory %s is not known", dirs[0].Raw)}, false
	}
	return Reads{Paths: []ReadPath{readPath(dirs[0].Value, dirs[0])}}, true
}

// testUnaryFile are test's unary operators whose operand is a file.
var testUnaryFile = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"-a": true, "-b": true, "-c": true, "-d": true, "-e": true, "-f": true, "-g": true, "-h": true,
		"-k": true, "-p": true, "-r": true, "-s": true, "-u": true, "-w": true, "-x": true, "-G": true,
		"-L": true, "-N": true, "-O": true, "-S": true,
	}
}}

// testOther are test's other operators: -t FD, -z/-n STRING, -o OPTNAME,
// binary and logical operators. -v is left out: it evaluates a subscript.
var testOther = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"-t": true, "-z": true, "-n": true, "-o": true, "=": true, "==": true, "!=": true, "<": true, ">": true,
		"-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true, "-nt": true, "-ot": true,
		"-ef": true, "!": true, "(": true, ")": true,
	}
}}

// testReadOnly: the test builtin only inspects; a word after a unary file
// operator is a path, and -nt, -ot and -ef compare two files.
func testReadOnly(words []Word) (Reads, bool) {
	var r Reads
	for i := 0; i < len(words); i++ {
		v := words[i].Value
		if words[i].Glob {
			return Reads{Reason: Because("test: word %s is a glob pattern", words[i].Raw)}, false
		}
		if v == "-v" || v == "-R" {
			return Reads{Reason: Because("test: %s evaluates a variable name", v)}, false
		}
		if strings.ContainsAny(v, "$`") && strings.Contains(v, "[") {
			return Reads{Reason: Because("test: word %s holds a subscript", words[i].Raw)}, false
		}
		switch {
		case testUnaryFile.Get()[v] && i+1 < len(words):
			i++
			r.Paths = append(r.Paths, readPath(words[i].Value, &words[i]))
		case (v == "-nt" || v == "-ot" || v == "-ef") && i > 0 && i+1 < len(words):
			r.Paths = append(r.Paths, readPath(words[i-1].Value, &words[i-1]), readPath(words[i+1].Value, &words[i+1]))
			i++
		}
	}
	return r, true
}

// bracketReadOnly: `[ EXPR ]` is test with a closing "]".
func bracketReadOnly(words []Word) (Reads, bool) {
	if len(words) == 0 || words[len(words)-1].Value != "]" {
		return Reads{Reason: Because("[: missing ]")}, false
	}
	return testReadOnly(words[:len(words)-1])
}

// findSafe are GNU find 4.9's tests, options and actions that only read
// and print, with how many arguments each takes and whether the first is
// a file. Left out: -L and -follow (follow links out of the tree),
// -files0-from (a list of further paths), -exec, -execdir, -ok, -okdir,
// -delete, -fprint, -fprint0, -fprintf and -fls.
var findSafe = lazy.Value[map[string]findArgs]{New: func() map[string]findArgs {
	return map[string]findArgs{
		"-daystart": {}, "-nowarn": {}, "-warn": {}, "-regextype": {n: 1},
		"-depth": {}, "-d": {}, "-maxdepth": {n: 1}, "-mindepth": {n: 1}, "-mount": {}, "-noleaf": {}, "-xdev": {},
		"-ignore_readdir_race": {}, "-noignore_readdir_race": {},
		"-amin": {n: 1}, "-anewer": {n: 1, file: true}, "-atime": {n: 1}, "-cmin": {n: 1}, "-cnewer": {n: 1, file: true},
		"-context": {n: 1}, "-ctime": {n: 1}, "-empty": {}, "-false": {}, "-fstype": {n: 1}, "-gid": {n: 1},
		"-group": {n: 1}, "-ilname": {n: 1}, "-iname": {n: 1}, "-inum": {n: 1}, "-ipath": {n: 1},
		"-iwholename": {n: 1}, "-iregex": {n: 1}, "-links": {n: 1}, "-lname": {n: 1}, "-mmin": {n: 1},
		"-mtime": {n: 1}, "-name": {n: 1}, "-newer": {n: 1, file: true}, "-nouser": {}, "-nogroup": {},
		"-path": {n: 1}, "-perm": {n: 1}, "-regex": {n: 1}, "-readable": {}, "-writable": {}, "-executable": {},
		"-wholename": {n: 1}, "-size": {n: 1}, "-true": {}, "-type": {n: 1}, "-uid": {n: 1}, "-used": {n: 1},
		"-user": {n: 1}, "-xtype": {n: 1}, "-samefile": {n: 1, file: true},
		"-print": {}, "-print0": {}, "-printf": {n: 1}, "-ls": {}, "-prune": {}, "-quit": {},
		"(": {}, ")": {}, "!": {}, "-not": {}, "-a": {}, "-and": {}, "-o": {}, "-or": {}, ",": {},
		"--help": {}, "--version": {},
	}
}}

// findArgs is how many arguments a find primary takes and whether the
// first is a file.
type findArgs struct {
	n    int
	file bool
}

var findOptRe = lazyre.MustCompile(`^-O[0-3]$`)

// findNewerRe matches -newerXY; with Y = t the argument is a time, not a
// file.
var findNewerRe = lazyre.MustCompile(`^-newer[aBcm][aBcmt]$`)

// findReadOnly: `find [-H|-P] [-Olevel] [path...] [expression]`.
func findReadOnly(words []Word) (Reads, bool) {
	r := Reads{Recursive: true}
	i := 0
	for ; i < len(words); i++ {
		v := words[i].Value
		if v != "-P" && !findOptRe.Get().MatchString(v) {
			break
		}
	}
	paths := 0
	for ; i < len(words); i++ {
		w := &words[i]
		if strings.HasPrefix(w.Value, "-") || w.Value == "(" || w.Value == "!" || w.Value == "," {
			break
		}
		paths++
		r.Paths = append(r.Paths, readPath(w.Value, w))
	}
	if paths == 0 {
		r.Paths = append(r.Paths, ReadPath{Path: "."})
		r.Cwd = true
	}
	for ; i < len(words); i++ {
		w := &words[i]
		v := w.Value
		e, ok := findSafe.Get()[v]
		if findNewerRe.Get().MatchString(v) {
			e, ok = findSafe.Get()["-newer"]
			e.file = v[len(v)-1] != 't'
		}
		if !ok {
			return Reads{Reason: Because("find: %s is not in its read-only spec", w.Raw)}, false
		}
		if i+e.n >= len(words) {
			return Reads{Reason: Because("find: %s lacks its argument", v)}, false
		}
		if e.file {
			r.Paths = append(r.Paths, readPath(words[i+1].Value, &words[i+1]))
		} else if findNewerRe.Get().MatchString(v) && !plainDateString(words[i+1].Value) {
			return Reads{Reason: Because("find: the date of %s may name a time zone file", v)}, false
		}
		for k := 1; k <= e.n; k++ {
			if words[i+k].Glob && !e.file {
				// An unquoted -name *.go is expanded by the shell first.
				return Reads{Reason: Because("find: argument %s is an unquoted glob pattern", words[i+k].Raw)}, false
			}
		}
		i += e.n
	}
	return r, true
}

// jqSpec are jq 1.6's options that neither read modules (-L), read the
// filter from a file (-f, --from-file) nor run tests (--run-tests).
// jq parses its options itself: short ones cluster, long ones are exact.
var jqFlags = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"--slurp": true, "--raw-output": true, "--join-output": true, "--ascii-output": true,
		"--compact-output": true, "--null-input": true, "--exit-status": true, "--color-output": true,
		"--monochrome-output": true, "--sort-keys": true, "--raw-input": true, "--tab": true, "--seq": true,
		"--stream": true, "--unbuffered": true, "--help": true, "--version": true,
	}
}}

// jqUnsafeFilter matches filters that read files (import, include,
// modulemeta) or print the environment (env, $ENV). jq's lexer lets white
// space and comments separate "$" from its name ("$ ENV", "$#\nENV"), so
// a "$" not followed at once by a name matches too. It may match inside a
// string literal; that only makes the check stricter.
var jqUnsafeFilter = lazyre.MustCompile(`\b(import|include|modulemeta|get_search_list|input_filename|\$__)|\$ENV\b|(^|[^.\w$])env\b|\$__loc__|\$([^\w]|$)`)

func jqReadOnly(words []Word) (Reads, bool) {
	var (
		r        Reads
		operands []*Word
		values   = -1 // operands from this index on are values
	)
	for i := 0; i < len(words); i++ {
		w := &words[i]
		v := w.Value
		switch {
		case v == "--arg" || v == "--argjson":
			if i+2 >= len(words) {
				return Reads{Reason: Because("jq: %s lacks its arguments", v)}, false
			}
			i += 2
		case v == "--slurpfile" || v == "--rawfile" || v == "--argfile":
			if i+2 >= len(words) {
				return Reads{Reason: Because("jq: %s lacks its arguments", v)}, false
			}
			r.Paths = append(r.Paths, readPath(words[i+2].Value, &words[i+2]))
			i += 2
		case v == "--indent":
			i++
		case v == "--args" || v == "--jsonargs":
			if values < 0 {
				values = len(operands)
			}
		case v == "--":
			operands = append(operands, ptrs(words[i+1:])...)
			i = len(words)
		case jqFlags.Get()[v]:
		case strings.HasPrefix(v, "--"):
			return Reads{Reason: Because("jq: option %s is not in its read-only spec", v)}, false
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if !isFlagCluster(v, "srjacneCMSRh") {
				return Reads{Reason: Because("jq: option %s is not in its read-only spec", v)}, false
			}
		default:
			operands = append(operands, w)
		}
	}
	if len(operands) == 0 {
		return Reads{Reason: Because("jq: no filter")}, false
	}
	if f := operands[0]; jqUnsafeFilter.Get().MatchString(f.Value) || f.Glob {
		return Reads{Reason: Because("jq: filter %s reads modules or the environment", quoteString(f.Value))}, false
	}
	for i, w := range operands[1:] {
		if values >= 0 && i+1 >= values {
			break
		}
		if w.Value != "-" {
			r.Paths = append(r.Paths, readPath(w.Value, w))
		}
	}
	return r, true
}

// nonReaders are the programs and builtins verified to open no file an
// argument names (test and cd only look one up).
var nonReaders = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"echo": true, "printf": true, "true": true, "false": true, ":": true, "test": true, "[": true, "[[": true,
		"cd": true, "pushd": true, "popd": true, "exit": true, "return": true, "shift": true, "break": true,
		"continue": true, "sleep": true, "wait": true, "seq": true, "expr": true, "basename": true, "dirname": true,
		"export": true, "declare": true, "typeset": true, "local": true, "readonly": true, "unset": true, "set": true,
		"read": true, "let": true, "kill": true,
	}
}}

// UncheckedOperand reports whether, in any reading of the command, a word
// after the program is known only as the script runs and the program is
// not verified to open no file its arguments name (nonReaders): cat "$f",
// rev $(ls -a), grep -f"$f", ./tool "$x", and ls -a | xargs cat, whose
// xargs reading runs cat with its input (inputWords). Such a word may
// name any file. A brace expansion whose words are all static is not
// such a word.
func (c *Command) UncheckedOperand() bool {
	for _, v := range c.variants() {
		prog := ""
		if len(v) > 0 && v[0].Static && !v[0].Glob {
			prog = path.Base(v[0].Value)
		}
		if nonReaders.Get()[prog] {
			continue
		}
		for _, w := range v[min(1, len(v)):] {
			if !w.Static && w.Braces == nil {
				return true
			}
		}
	}
	return false
}

// formWords makes the fields of a deny form words a spec can parse, or
// reports false when one holds a value known only as the script runs
// ($ or `).
func formWords(args []string) ([]Word, bool) {
	words := make([]Word, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "$`") {
			return nil, false
		}
		words[i] = Word{Raw: a, Value: a, Static: true}
	}
	return words, true
}

// ReadsTrees reports whether a command line of prog, a program with a
// read-only spec (grep, diff), given as the words after the program
// (a deny form's fields), may read whole directory trees, and whether
// that is sure: only a command line the spec parses whole, with no
// option that recurses (@r, however abbreviated), is known not to.
// Anything else (grep -R, --dereference-recursive, -d recurse, an option
// outside the spec, an expansion) may, following links too.
func ReadsTrees(prog string, args []string) (trees, sure bool) {
	s, found := specs.Get()[prog]
	if !found {
		return true, false
	}
	words, ok := formWords(args)
	if !ok {
		return true, false
	}
	p, _ := s().parse(words)
	if p == nil {
		return true, false
	}
	trees = s().recursive
	for _, o := range p.opts {
		trees = trees || o.def.recursive
	}
	return trees, true
}

// ReadsCwd reports whether a command line of prog, a program with a
// read-only spec, given as the words after the program (a deny form's
// fields), may read the current directory without naming it (ls -R, du,
// tree with no operand): true unless the spec reads it whole and finds an
// operand.
func ReadsCwd(prog string, args []string) bool {
	s, found := specs.Get()[prog]
	if !found {
		return true
	}
	words, ok := formWords(args)
	if !ok {
		return true
	}
	r, ok := s().eval(words)
	return !ok || r.Cwd
}
