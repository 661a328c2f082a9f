package bash

import (
	"fmt"
	"strconv"
	"strings"
)

// A read-only program is described by a spec: data, checked against the
// program's manual and its behaviour on a Debian 12 system (GNU coreutils
// 9.1, grep 3.8, diffutils 3.8, findutils 4.9, GNU sed 4.9, git 2.39, jq
// 1.6, less 590, tree 2.1). Every option the spec lists only reads, prints
// or selects; an option it does not list, an ambiguous or unknown
// abbreviation, or an option given a value it does not take makes the
// command not read-only. Each spec carries examples that must and must not
// be read-only; TestSpecExamples checks them. Where the installed programs
// are those versions, TestSpecArgModes asks each program's own option
// parser whether every listed option takes no value, a required or an
// optional one, and TestSpecAbbreviations which option getopt_long takes
// an abbreviation for (spec_audit_test.go).

// argMode says whether an option takes an argument.
type argMode int

const (
	argNone     argMode = iota
	argRequired         // "--opt=V", "--opt V", "-oV", "-o V"
	argOptional         // only "--opt=V" or "-oV"
	// argLastDefault is git's "last argument default": a value is
	// required as with argRequired, except that an option that is the
	// last word takes none (git branch --contains, which then means
	// HEAD).
	argLastDefault
)

// optDef is one option of a spec, with all its names.
type optDef struct {
	names     []string // "-n", "--lines"
	arg       argMode
	file      bool     // the value is a file the program reads
	enum      []string // the only values accepted, if set
	basename  bool     // the value is a file name looked up in every directory read
	recursive bool     // the program reads whole trees with it
}

// operandMode says what a program's operands are.
type operandMode int

const (
	operandPaths   operandMode = iota // files read
	operandText                       // text (echo's words, tr's sets, names)
	operandPattern                    // a pattern, then files, unless -e/-f gave the pattern
	operandNone                       // none allowed
)

// progSpec is the read-only specification of one program.
type progSpec struct {
	name string
	// opts lists the options, whitespace separated. Each is its names
	// joined by ",", then "=KIND" for a required argument, "[=KIND]" for
	// an optional one or "=[KIND]" for one required unless the option is
	// the last word (argLastDefault), then "@r" if it makes the reading
	// recursive. A short and a long name share one token only if they
	// take a value alike: GNU ls's -F takes none, its --classify an
	// optional one, so they are "-F --classify[=WHEN]".
	// KIND is FILE (a file read), BASENAME (a name the program reads in
	// each directory it reads: one with "/", "." or ".." would reach
	// elsewhere), (a|b|c) (only these values) or any other word (text: a
	// number, pattern or format).
	opts     string
	operands operandMode
	// maxOperands limits the operands (uniq's second one is its output);
	// 0 for no limit.
	maxOperands int
	// dot: with no path operand the program reads the current directory.
	dot bool
	// recursive: the program always reads whole trees (du, tree).
	recursive bool
	// obsolete reads head's and tail's obsolete first argument (-NUM,
	// tail's +NUM): skip reports one taken as an option, a non-zero why
	// one that makes the command not read-only.
	obsolete func(args []Word) (skip bool, why Why)
	// patternOpts name the options that give the pattern (grep -e, -f):
	// with one of them every operand is a path.
	patternOpts []string
	// anyArgs marks a program every one of whose real options, documented
	// or not, only reads or prints: arguments it gets from elsewhere
	// (xargs) cannot make it write or run anything.
	anyArgs bool
	// countsOnly marks a program that prints only counts of what it reads
	// (and the names it was given), never the contents: wc. Only such a
	// program may take operands it cannot see (xargs), because they may
	// name anything: a cloned repository's file named "a /root/.ssh/x"
	// is two words to xargs, and a tracked symbolic link leads anywhere.
	countsOnly bool
	// check is a further condition on the parsed command, if any.
	check func(*parsedCmd) bool
	// dirFiles names the option that stops the program from following
	// symlinks among the files of a directory operand, which it reads
	// (diff a b with directories compares the files in them); "" for a
	// program that does not read into directory operands.
	dirFiles string

	yes, no []string // examples: must be read-only, must not be

	defs []*optDef // opts, parsed
}

// parsedCmd is a command line parsed against a spec.
type parsedCmd struct {
	opts     []parsedOpt
	operands []*Word
}

type parsedOpt struct {
	def    *optDef
	name   string // as resolved: "-n" or "--lines"
	val    string
	hasVal bool
	word   *Word // the word val is, when it is a whole word
}

func (p *parsedCmd) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range o.def.names {
			for _, want := range names {
				if n == want {
					return true
				}
			}
		}
	}
	return false
}

// Reads is what a read-only command reads.
type Reads struct {
	// Paths are the files and directories it reads, quotes removed. A
	// "~" the shell expands is kept as "~"; a quoted one becomes "./~".
	Paths []ReadPath
	// Recursive reports that it reads whole trees under its directories.
	Recursive bool
	// Cwd reports that it reads the current directory without naming it
	// (ls -R, du, tree, find and grep -r with no directory): its "." is
	// in Paths, but no word of the command names it.
	Cwd bool
	// DirFiles reports that it reads the files inside a directory it is
	// given even without Recursive, and FollowsLinks that it follows the
	// symlinks among them (diff): the caller checks which paths are
	// directories.
	DirFiles, FollowsLinks bool
	// Reason names why the command is not read-only, with the word that
	// decided it, when ReadOnly is false.
	Reason Why
}

// Why is why a command is not read-only: a format and the words that
// decided it, formatted only by String. A command's reason is read only
// when its part is the one a decision reports, so most are never read,
// and making each a string cost an allocation per command.
type Why struct {
	format string
	args   [3]string
	n      int
}

// Because returns the Why of format with args, at most three: format's
// verbs are %s and %q, which mean what they mean to fmt, and %%.
func Because(format string, args ...string) Why {
	w := Why{format: format}
	w.n = copy(w.args[:], args)
	return w
}

// String formats w as fmt.Sprintf would (without putting each argument
// in an interface, an allocation each): the format as it is when it has
// no arguments, and "" for the zero Why.
func (w Why) String() string {
	if w.n == 0 {
		return w.format
	}
	args := w.args[:w.n]
	var b strings.Builder
	size := len(w.format)
	for _, a := range args {
		size += len(a)
	}
	b.Grow(size)
	for f := w.format; f != ""; {
		i := strings.IndexByte(f, '%')
		if i < 0 || i == len(f)-1 {
			b.WriteString(f)
			break
		}
		b.WriteString(f[:i])
		switch verb := f[i+1]; {
		case verb == '%':
			b.WriteByte('%')
		case len(args) == 0:
			b.WriteString(f[i : i+2]) // cannot happen: Because's formats are written with their arguments
		case verb == 'q':
			b.WriteString(strconv.Quote(args[0]))
			args = args[1:]
		default:
			b.WriteString(args[0])
			args = args[1:]
		}
		f = f[i+2:]
	}
	return b.String()
}

// ReadPath is one path a read-only command reads.
type ReadPath struct {
	Path string
	// Glob reports an unquoted pattern in its last element: the shell
	// replaces it with the names that match.
	Glob bool
}

// compile parses s.opts. It panics on a malformed table: specs are
// package data, and TestSpecExamples loads them all.
func (s *progSpec) compile() {
	for _, tok := range strings.Fields(s.opts) {
		d := &optDef{}
		names := tok
		if i := strings.IndexByte(tok, '@'); i >= 0 {
			if tok[i+1:] != "r" {
				panic(fmt.Sprintf("spec %s: bad marker in %q", s.name, tok))
			}
			d.recursive = true
			names = tok[:i]
		}
		var kind string
		switch {
		case strings.Contains(names, "[="):
			d.arg = argOptional
			names, kind, _ = strings.Cut(names, "[=")
			kind = strings.TrimSuffix(kind, "]")
		case strings.Contains(names, "=["):
			d.arg = argLastDefault
			names, kind, _ = strings.Cut(names, "=[")
			kind = strings.TrimSuffix(kind, "]")
		case strings.Contains(names, "="):
			d.arg = argRequired
			names, kind, _ = strings.Cut(names, "=")
		}
		switch {
		case kind == "FILE":
			d.file = true
		case kind == "BASENAME":
			d.basename = true
		case strings.HasPrefix(kind, "("):
			d.enum = strings.Split(strings.Trim(kind, "()"), "|")
		}
		for _, n := range strings.Split(names, ",") {
			if !strings.HasPrefix(n, "-") || n == "-" || n == "--" || len(n) > 2 && n[1] != '-' {
				panic(fmt.Sprintf("spec %s: bad option name %q", s.name, n))
			}
			if s.lookupExact(n) != nil {
				panic(fmt.Sprintf("spec %s: option %q listed twice", s.name, n))
			}
			d.names = append(d.names, n)
		}
		s.defs = append(s.defs, d)
	}
}

func (s *progSpec) lookupExact(name string) *optDef {
	for _, d := range s.defs {
		for _, n := range d.names {
			if n == name {
				return d
			}
		}
	}
	return nil
}

// lookupLong resolves a long option name as getopt_long does
// (getoptLong), unless the program takes no abbreviations (exactLong).
// An ambiguous or unknown name is nil.
func (s *progSpec) lookupLong(name string) (*optDef, string) {
	if d := s.lookupExact(name); d != nil || exactLong.Get()[s.name] {
		return d, name
	}
	full, d, _ := getoptLong(name, func(yield func(string, *optDef) bool) {
		for _, d := range s.defs {
			for _, n := range d.names {
				if strings.HasPrefix(n, "--") && !yield(n, d) {
					return
				}
			}
		}
	})
	return d, full
}

// parse parses words (all static) as GNU getopt_long does with argument
// permutation: options may follow operands, "--" ends them, and a lone "-"
// is an operand. It returns a reason on the first word the spec does not
// accept.
func (s *progSpec) parse(words []Word) (*parsedCmd, Why) {
	p := &parsedCmd{}
	start := 0
	if s.obsolete != nil && len(words) > 0 {
		skip, why := s.obsolete(words)
		if why.format != "" {
			return nil, why
		}
		if skip {
			start = 1
		}
	}
	for i := start; i < len(words); i++ {
		w := &words[i]
		v := w.Value
		switch {
		case v == "--":
			for j := i + 1; j < len(words); j++ {
				p.operands = append(p.operands, &words[j])
			}
			return p, Why{}
		case len(v) < 2 || v[0] != '-':
			p.operands = append(p.operands, w)
			continue
		}
		if w.Glob {
			return nil, Because("%s: option %s is a glob pattern", s.name, v)
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v, "=")
			d, full := s.lookupLong(name)
			if d == nil {
				return nil, Because("%s: option %s is not in its read-only spec", s.name, name)
			}
			o := parsedOpt{def: d, name: full, val: val, hasVal: hasVal}
			switch {
			case d.arg == argNone && hasVal:
				return nil, Because("%s: option %s takes no value", s.name, full)
			case d.arg == argLastDefault && !hasVal && i+1 < len(words), d.arg == argRequired && !hasVal:
				if i+1 == len(words) {
					return nil, Because("%s: option %s lacks its value", s.name, full)
				}
				i++
				o.val, o.hasVal, o.word = words[i].Value, true, &words[i]
			}
			if r, bad := s.checkVal(o); bad {
				return nil, r
			}
			p.opts = append(p.opts, o)
			continue
		}
		for j := 1; j < len(v); j++ {
			name := dash(v[j])
			d := s.lookupExact(name)
			if d == nil {
				return nil, Because("%s: option %s is not in its read-only spec", s.name, name)
			}
			o := parsedOpt{def: d, name: name}
			if d.arg != argNone {
				switch {
				case j+1 < len(v) && separateValue.Get()[s.name]:
					return nil, Because("%s: option %s must be the last in %s", s.name, name, v)
				case j+1 < len(v):
					o.val, o.hasVal = v[j+1:], true
				case d.arg == argLastDefault && i+1 < len(words), d.arg == argRequired:
					if i+1 == len(words) {
						return nil, Because("%s: option %s lacks its value", s.name, name)
					}
					i++
					o.val, o.hasVal, o.word = words[i].Value, true, &words[i]
				}
				j = len(v)
			}
			if r, bad := s.checkVal(o); bad {
				return nil, r
			}
			p.opts = append(p.opts, o)
		}
	}
	return p, Why{}
}

// checkVal reports why the spec does not accept o's value, if it does not.
func (s *progSpec) checkVal(o parsedOpt) (_ Why, bad bool) {
	if !o.hasVal {
		return Why{}, false
	}
	if o.word != nil && o.word.Glob {
		return Because("%s: value of %s is a glob pattern", s.name, o.name), true
	}
	if o.def.basename && (o.val == "" || o.val == "." || o.val == ".." || strings.Contains(o.val, "/")) {
		return Because("%s: value %q of %s is not a plain file name", s.name, o.val, o.name), true
	}
	if o.def.enum == nil {
		return Why{}, false
	}
	for _, e := range o.def.enum {
		if o.val == e {
			return Why{}, false
		}
	}
	return Because("%s: value %q of %s is not in its read-only spec", s.name, o.val, o.name), true
}

// eval decides words (the arguments, all static) against the spec.
func (s *progSpec) eval(words []Word) (Reads, bool) {
	p, reason := s.parse(words)
	if p == nil {
		return Reads{Reason: reason}, false
	}
	if s.check != nil && !s.check(p) {
		return Reads{Reason: Because("%s: arguments outside its read-only spec", s.name)}, false
	}
	var r Reads
	r.Recursive = s.recursive
	if s.dirFiles != "" {
		r.DirFiles, r.FollowsLinks = true, !p.has(s.dirFiles)
	}
	for _, o := range p.opts {
		r.Recursive = r.Recursive || o.def.recursive
		if o.def.file && o.hasVal {
			r.Paths = append(r.Paths, readPath(o.val, o.word))
		}
	}
	ops := p.operands
	switch s.operands {
	case operandNone:
		if len(ops) > 0 {
			return Reads{Reason: Because("%s: operand %s", s.name, ops[0].Value)}, false
		}
	case operandPattern:
		if !p.has(s.patternOpts...) && len(ops) > 0 {
			if ops[0].Glob {
				return Reads{Reason: Because("%s: pattern %s is a glob pattern", s.name, ops[0].Raw)}, false
			}
			ops = ops[1:]
		}
	case operandText:
		for _, w := range ops {
			if w.Glob {
				return Reads{Reason: Because("%s: operand %s is a glob pattern", s.name, w.Raw)}, false
			}
		}
		ops = nil
	}
	if s.maxOperands > 0 && len(ops) > s.maxOperands {
		return Reads{Reason: Because("%s: more than %s file operands", s.name, strconv.Itoa(s.maxOperands))}, false
	}
	files := 0
	for _, w := range ops {
		if w.Value == "-" {
			continue // standard input
		}
		files++
		r.Paths = append(r.Paths, readPath(w.Value, w))
	}
	if files == 0 && (s.dot || r.Recursive && s.operands == operandPattern) {
		r.Paths = append(r.Paths, ReadPath{Path: "."})
		r.Cwd = true
	}
	return r, true
}

// readPath is the path a value names; see Reads for "~".
func readPath(val string, w *Word) ReadPath {
	rp := ReadPath{Path: val, Glob: w != nil && w.Glob}
	if strings.HasPrefix(val, "~") && (w == nil || !w.Tilde) {
		rp.Path = "./" + val
	}
	return rp
}
