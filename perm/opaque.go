package perm

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/workspace"
)

var (
	// shells are the programs bash.Shell names (busybox and toybox are
	// wrappers: their forms hold the applet's own command line).
	shells = bash.Shell
	// interpreters and the options that pass them code inline (those
	// whose options bash.InterpreterArgs reads: as it lists them).
	interpreters = lazy.Value[map[string][]string]{New: func() map[string][]string {
		return map[string][]string{
			"python": bash.CodeOptions("python"), "python2": bash.CodeOptions("python2"), "python3": bash.CodeOptions("python3"),
			"pypy": bash.CodeOptions("pypy"), "pypy3": bash.CodeOptions("pypy3"), "perl": bash.CodeOptions("perl"),
			"ruby": bash.CodeOptions("ruby"), "node": bash.CodeOptions("node"), "nodejs": bash.CodeOptions("nodejs"),
			"deno": {"eval"}, "bun": {"-e", "--eval"}, "php": {"-r"}, "lua": {"-e"}, "luajit": {"-e"}, "Rscript": {"-e"},
			"osascript": {"-e"}, "awk": nil, "gawk": nil, "mawk": nil, "nawk": nil, "original-awk": nil, "tclsh": nil, "jshell": nil,
			"pwsh": {"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}, "powershell": {"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"},
			"julia": {"-e", "--eval", "-E", "--print"}, "R": {"-e"}, "emacs": {"--eval", "-eval"},
			"gdb": {"-ex", "--eval-command", "-iex", "--init-eval-command"}, "vim": {"-c", "--cmd"}, "nvim": {"-c", "--cmd"},
			// SQL and dot-commands (.shell and .system run commands, .output
			// and .once a pipe): -cmd's string, -init's file, the operands
			// after the database (codeOperands) and stdin are code.
			"sqlite3": {"-cmd", "--cmd", "-init", "--init"}, "sqlite": {"-cmd", "--cmd", "-init", "--init"},
			"ed": nil, "ex": {"-c", "--cmd"}, "vi": {"-c", "--cmd"}, "view": {"-c", "--cmd"},
		}
	}}
	// stdinCommands are the interpreters (editors) that read commands
	// from stdin whatever files their operands name: ed's and ex's !
	// runs a shell command.
	stdinCommands = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"ed": true, "ex": true, "vi": true, "view": true, "vim": true, "nvim": true}
	}}
	// codeOperands are the interpreters whose operands are code, not a
	// script file's name, after the first n (sqlite3's database): one
	// there is code given inline, none is code read from stdin.
	codeOperands = lazy.Value[map[string]int]{New: func() map[string]int {
		return map[string]int{"sqlite3": 1, "sqlite": 1}
	}}
	// awks are the interpreters whose first operand is their program
	// unless -f names a file: operands after it are data.
	awks = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true, "original-awk": true}
	}}
)

// opaque reports whether a command, in any of its normalised forms, runs
// code the gate cannot read: a shell reading its commands from stdin (a
// pipe or a heredoc), or an interpreter given code inline (python -c,
// perl -e, node -e) or on stdin. Deny rules cannot see inside such code,
// so while Bash deny or ask rules, or deny rules that name paths, exist it
// is at least Ask. Running a
// script file (bash x.sh, python3 x.py) is not opaque: it is the
// project's code, like make or npm run; a file special says a path
// argument names (a device or a process's file: /dev/stdin, spelled any
// way) is not such a file.
//
// An awk's and an interpreter's arguments are read from the words the
// form was made of (args gives them for the form's tail, after its
// program word: bash.Command.FormArgs), not only from the form's text,
// which loses where one word ends: awk's program is checked against a
// verified subset (bash.AwkCodeOf), and `python3 -W 'ignore x'` gives -W
// one word, after which python reads its program from stdin.
func opaque(forms []string, special func(arg string) bool, args func(tail string) [][]bash.Word) string {
	for _, f := range forms {
		if !opaqueProg(progName(filepath.Base(firstField(f)))) {
			continue // opaqueOne would find nothing
		}
		if s := opaqueOne(f, special, args); s != "" {
			return s
		}
	}
	return ""
}

// opaqueOne is opaque for one form.
func opaqueOne(f string, special func(arg string) bool, args func(tail string) [][]bash.Word) string {
	prog, tail, _ := strings.Cut(f, " ")
	name := progName(filepath.Base(prog))
	if awks.Get()[name] {
		readings := args(tail)
		if readings == nil {
			return name + " arguments the gate cannot read"
		}
		for _, words := range readings {
			if s := bash.AwkCodeOf(words); s != "" {
				return name + " " + s
			}
		}
		return ""
	}
	if s := opaqueForm(strings.Fields(f), special); s != "" || !isInterpreter(name) {
		return s
	}
	// The form's fields may split a quoted word: read the words too.
	for _, words := range args(tail) {
		src, w := bash.InterpreterWords(name, words)
		if s := interpreterCode(name, src, w); s != "" {
			return s
		}
	}
	return ""
}

// opaque is opaque for a command part of c, looked at only while unseen
// code could evade a rule (Bash deny or ask rules, or deny rules that
// name paths, exist): resolving its arguments costs lookups.
func (c *call) opaque(pt *part, unseen bool) string {
	if !unseen {
		return ""
	}
	if s := opaque(pt.denyForms, c.specialFile, pt.cmd.FormArgs); s != "" || !c.writesFiles() {
		return s
	}
	// A file the script writes holds code the command makes, which no
	// rule has read: run as a program, sourced, or given to a shell, an
	// interpreter or make as its script (printf '\x63url x' > s.sh;
	// . s.sh), it is code read from a pipe. A script file the project
	// has is not (see opaque).
	for _, f := range pt.denyForms {
		if s := c.writtenCode(strings.Fields(f)); s != "" {
			return s
		}
	}
	return ""
}

// writtenCode reports the word of a form, split into fields, that names
// the code the program runs, when it is a file the script writes
// (writtenFile): the program itself, the file source reads, a shell's or
// an interpreter's script operand (a shell's other operands and option
// values too: --rcfile), an awk's -f and a makefile.
func (c *call) writtenCode(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	if c.writtenFile(fields[0]) {
		return "running " + fields[0] + ", which the command writes"
	}
	prog := progName(filepath.Base(fields[0]))
	args := fields[1:]
	var script string
	switch {
	case prog == "source" || prog == ".":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) > 0 {
			script = args[0]
		}
	case shells(prog):
		if code, _, _ := bash.ShellArgs(prog, args); code >= 0 {
			return "" // the -c string, read as code already
		}
		for _, a := range args {
			if c.writtenFile(a) {
				script = a
				break
			}
		}
	case awks.Get()[prog]:
		for i, a := range args {
			switch {
			case a == "-f" || a == "--file":
				if i+1 < len(args) && c.writtenFile(args[i+1]) {
					script = args[i+1]
				}
			case strings.HasPrefix(a, "-f") && !strings.HasPrefix(a, "--") && c.writtenFile(a[2:]):
				script = a[2:]
			case strings.HasPrefix(a, "--file=") && c.writtenFile(a):
				script = a
			}
		}
	case prog == "make" || prog == "gmake":
		return makeCode(args, c.writtenFile)
	case isInterpreter(prog):
		if src, w := bash.InterpreterArgs(prog, args); src == bash.CodeFile && !strings.HasPrefix(w, "-") {
			script = w
		}
	}
	if script != "" && c.writtenFile(script) {
		return prog + " reading code from " + script + ", which the command writes"
	}
	return ""
}

// writesFiles reports whether the call writes a file it can name.
func (c *call) writesFiles() bool {
	for i := range c.parts {
		if c.parts[i].kind == kindWrite && !c.parts[i].dynamic {
			return true
		}
	}
	return false
}

// writtenFile reports whether the argument a (an option's value too)
// names, from a directory the script may be in, a file the script
// writes (a redirect's or a command's write target), as written or
// with its links resolved.
func (c *call) writtenFile(a string) bool {
	if v, ok := optionValue(a); ok {
		a = v
	} else if strings.HasPrefix(a, "-") && a != "-" {
		return false
	}
	if a == "" || a == "-" || strings.HasPrefix(a, "<(") {
		return false
	}
	ts, _ := c.shellTargets(a)
	for _, t := range ts {
		for i := range c.parts {
			w := &c.parts[i]
			if w.kind != kindWrite || w.dynamic {
				continue
			}
			if w.path.abs == t.abs || w.path.abs == t.real || w.path.real != "" && (w.path.real == t.abs || w.path.real == t.real) {
				return true
			}
		}
	}
	return false
}

// stepUnmodelled is step 3's check in bypassPermissions mode, the one
// mode where no allow rule or approval has vouched for a command: while
// deny rules hold that code could evade, a command part that runs a
// program the gate has no model of (bash.Script.Unmodelled) with a word
// or input that may be code asks, unless an allow rule or a session grant
// covers the part. Any program may be an interpreter (irb, dc, m4, an
// in-house tool) that builds a denied name from pieces; a list of the
// known ones would let every other one through. In the other modes such
// a command asks already unless a rule allows it.
func stepUnmodelled(c *call, rs *ruleSet) (Result, bool) {
	if !rs.deny.hasBash && !rs.deny.namesPaths {
		return Result{}, false
	}
	for i := range c.parts {
		pt := &c.parts[i]
		if pt.kind != kindCommand {
			continue
		}
		prog, w := c.script.Unmodelled(pt.cmd, modelled)
		if prog == "" || rs.session.first(c, pt, matchAllow) != nil || rs.allow.first(c, pt, matchAllow) != nil {
			continue
		}
		return Result{Decision: Ask, Step: 3, Source: SourceBuiltin, Rule: prog + " " + w,
			Reason: "bypassPermissions mode: the gate has no model of what " + prog + " does with " + w + ", which may be code that runs what deny rules forbid (an allow rule naming the command lets it run)"}, true
	}
	return Result{}, false
}

// modelled reports whether the gate reads the code the program name (a
// base name) runs or knows it runs none: bash.Models, and the programs
// opaque judges (shells, interpreters, sed, make, xargs, source).
func modelled(name string) bool { return bash.Models(name) || opaqueProg(progName(name)) }

// specialPath reports whether the argument a, read as an absolute path
// with its "//", "." and ".." taken out, may name the program's own input
// (underSpecial). It is what the argument's text says; the call resolves
// relative paths and links too (call.specialFile).
func specialPath(a string) bool {
	if v, ok := optionValue(a); ok {
		a = v
	}
	return strings.HasPrefix(a, "/") && underSpecial(path.Clean(a))
}

// optionValue returns the value of an option written --name=value.
func optionValue(a string) (string, bool) {
	if !strings.HasPrefix(a, "-") {
		return "", false
	}
	_, v, ok := strings.Cut(a, "=")
	return v, ok
}

// underSpecial reports whether the clean absolute path p may be a
// program's own descriptor: /dev/stdin, one under /dev/fd, or anything
// under /proc, whose links (self, fd, root, cwd) lead to the files of
// the process that opens them.
func underSpecial(p string) bool {
	return p == "/dev/stdin" || within(p, "/dev/fd") || within(p, "/proc")
}

// specialFile is specialPath with the argument resolved as the command
// will resolve it: from every directory the script may be in, and through
// the links on its way but those under /proc, which lead to the gate's
// own files (/proc/self is the gate), not the command's. A directory the
// script may be in that is not known is not judged.
func (c *call) specialFile(a string) bool {
	if specialPath(a) {
		return true
	}
	if v, ok := optionValue(a); ok {
		a = v
	} else if strings.HasPrefix(a, "-") {
		return false
	}
	if a == "" || strings.HasPrefix(a, "<(") {
		return false
	}
	ts, _ := c.shellTargets(a)
	for _, t := range ts {
		if underSpecial(t.abs) || underSpecial(workspace.FollowLinksWith(t.abs, c.linkOutsideProc)) {
			return true
		}
	}
	return false
}

// linkOutsideProc is the call's link answer for paths outside /proc:
// under it a link is taken for a file.
func (c *call) linkOutsideProc(p string) (string, bool) {
	if p == "/proc" || strings.HasPrefix(p, "/proc/") {
		return "", false
	}
	return c.link(p)
}

// opaqueForm is opaque for one form, split into fields.
func opaqueForm(fields []string, special func(arg string) bool) string {
	if len(fields) == 0 {
		return ""
	}
	prog := progName(filepath.Base(fields[0]))
	args := fields[1:]
	if prog == "xargs" || prog == "parallel" {
		// Its input becomes the arguments, or with -I the code, of
		// whatever it runs: a shell or interpreter there is opaque,
		// awk and ed too, whose first operand may be their program
		// (awk's text, ed's "!command").
		for _, a := range args {
			if b := progName(filepath.Base(a)); shells(b) || isInterpreter(b) {
				return prog + " feeding " + b
			}
		}
		return ""
	}
	if prog == "source" || prog == "." || shells(prog) || isInterpreter(prog) && !awks.Get()[prog] {
		// A program read from a pipe or a process substitution (awk's
		// operands are its data; its -f is read below).
		for _, a := range args {
			if strings.HasPrefix(a, "<(") || special(a) {
				return prog + " reading code from " + a
			}
		}
	}
	if prog == "sed" {
		return sedCode(args)
	}
	if prog == "make" || prog == "gmake" {
		return makeCode(args, special)
	}
	if shells(prog) {
		// Its options read as the shell reads them: after them, no
		// script operand (or -s) is code from stdin, and an option not
		// known may take the next word, which leaves that open.
		_, stdin, unsure := bash.ShellArgs(prog, args)
		if unsure != "" {
			return prog + " option " + unsure + " the gate cannot read"
		}
		if stdin {
			return prog + " reading commands from stdin"
		}
		return ""
	}
	inline, ok := interpreters.Get()[prog]
	if !ok || awks.Get()[prog] {
		return "" // an awk's words are read by opaqueOne
	}
	for _, a := range args {
		for _, o := range inline {
			if inlineOption(a, o) {
				return prog + " " + o + " code"
			}
		}
	}
	if n, ok := codeOperands.Get()[prog]; ok {
		operands := 0
		for _, a := range args {
			if a == "-" || !strings.HasPrefix(a, "-") {
				operands++ // an option's value too: the strict side
			}
		}
		if operands > n {
			return prog + " code operand"
		}
		return prog + " reading code from stdin"
	}
	if stdinCommands.Get()[prog] {
		return prog + " reading commands from stdin"
	}
	src, w := bash.InterpreterArgs(prog, args)
	return interpreterCode(prog, src, w)
}

// interpreterCode says what opaque reports for an interpreter prog that
// takes its program from src (bash.InterpreterWords, with the word that
// decided it): "" for a script file.
func interpreterCode(prog string, src bash.CodeSource, w string) string {
	switch src {
	case bash.CodeInline:
		return prog + " " + w + " code"
	case bash.CodeStdin:
		return prog + " reading code from stdin"
	case bash.CodeUnknown:
		// An option it may read otherwise, or a word that may be any,
		// leaves open which word, if any, is its script.
		return prog + " option " + w + " the gate cannot read"
	}
	return ""
}

// inlineOption reports whether the argument a may be the option o, which
// passes code inline, wherever it stands: o itself, a long o with
// "=code", or a run of short options holding o's letter. Broad on
// purpose: a run's letter may be another option's value, which only makes
// the command ask.
func inlineOption(a, o string) bool {
	switch {
	case a == o:
		return true
	case strings.HasPrefix(o, "--"):
		return strings.HasPrefix(a, o+"=")
	}
	return len(o) == 2 && o[0] == '-' && bash.ClusterHas(a, o[1])
}

// opaqueProg reports whether opaque looks at a form run by prog.
func opaqueProg(prog string) bool {
	switch prog {
	case "xargs", "parallel", "source", ".", "sed", "make", "gmake":
		return true
	}
	return isInterpreter(prog) || shells(prog)
}

// progName is the name opaque knows the program base names by: base,
// or the shell or interpreter a versioned name is (python3.11 is
// python3, perl5.36.0 perl, luajit-2.1 luajit), as Debian names them.
func progName(base string) string {
	if shells(base) || isInterpreter(base) {
		return base
	}
	for k := len(base) - 1; k >= 1; k-- {
		if ch := base[k]; (ch < '0' || ch > '9') && ch != '.' && ch != '-' {
			break
		}
		if stem := base[:k]; isVersion(base[k:]) && (shells(stem) || isInterpreter(stem)) {
			return stem
		}
	}
	return base
}

// isInterpreter reports whether prog runs code it is given: one of
// interpreters, with or without an inline option (awk has none).
func isInterpreter(prog string) bool {
	_, ok := interpreters.Get()[prog]
	return ok
}

// sedCode reports a sed command line whose script may write or read files
// or run programs (the e command, s///e, w, r), or cannot be read (-f).
func sedCode(args []string) string {
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return "sed script file"
		case a == "-e" || a == "--expression":
			explicit = true
			if i+1 < len(args) && !bash.SedPrintOnly(args[i+1]) {
				return "sed script that runs or writes"
			}
			i++
		case strings.HasPrefix(a, "--expression="):
			explicit = true
			if !bash.SedPrintOnly(strings.TrimPrefix(a, "--expression=")) {
				return "sed script that runs or writes"
			}
		case a == "-l" || a == "--line-length":
			i++
		case strings.HasPrefix(a, "-"):
		case !explicit:
			if !bash.SedPrintOnly(a) {
				return "sed script that runs or writes"
			}
			return ""
		}
	}
	return ""
}

// makeCode reports a make command line whose makefile, code, the gate
// cannot read: --eval's (-E's) string, or a file -f (--file, --makefile,
// any abbreviation) names that is the program's own input ("-", or one
// special says is) or a process substitution. A makefile in the project
// is its code, like a script file.
func makeCode(args []string, special func(arg string) bool) string {
	file := func(v string) string {
		if v == "-" || strings.HasPrefix(v, "<(") || special(v) {
			return "make reading a makefile from " + v
		}
		return ""
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break // targets and assignments follow
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, v, hasV := strings.Cut(name, "=")
			switch {
			case strings.HasPrefix("eval", name):
				return "make --eval code"
			case strings.HasPrefix("file", name) || strings.HasPrefix("makefile", name):
				if !hasV && i+1 < len(args) {
					i++
					v = args[i]
				}
				if s := file(v); s != "" {
					return s
				}
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
	cluster:
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'E':
				return "make -E code"
			case 'f', 'C', 'I', 'o', 'W':
				// The rest of the word, or the next one, is the value.
				v := a[j+1:]
				if v == "" && i+1 < len(args) {
					i++
					v = args[i]
				}
				if a[j] == 'f' {
					if s := file(v); s != "" {
						return s
					}
				}
				break cluster
			}
		}
	}
	return ""
}
