package bash

import (
	"path"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// nestedShells parses the shell code cmd runs from strings (in any of its
// broad readings, so `sudo bash -c ...` and `xargs sh -c ...` count) and
// collects its commands as Nested. Code that is not static, does not parse
// or is nested too deeply is reported as suspicious instead.
func (c *collector) nestedShells(cmd *Command, st *walkState) {
	var done stringSet // code already parsed: readings often share it
	for _, a := range cmd.Assigns {
		if !codeVars.Get()[a.Name] {
			continue
		}
		if !a.Static {
			c.suspect(labelUnparseable)
		} else if done.add(a.Value) {
			c.shell(a.Value, st)
		}
	}
	c.shellsIn(cmd, cmd.variants(), &done, st)
}

// shellsIn parses the shell code the readings vs of cmd run, but for the
// code in done, which it adds to.
func (c *collector) shellsIn(cmd *Command, vs [][]Word, done *stringSet, st *walkState) {
	c.codesOf(cmd, vs, func(code string) {
		if done.add(code) {
			c.shell(code, st)
		}
	}, func() { c.suspect(labelUnparseable) })
}

// codesOf calls run with the shell code each reading in vs of cmd runs
// from a string, its standard input or a process substitution it reads,
// and unsure, before a reading's code, if some of that code is not
// static.
func (c *collector) codesOf(cmd *Command, vs [][]Word, run func(code string), unsure func()) {
	procs := c.procsOf(cmd)
	for _, v := range vs {
		codes, ok := shellCode(v)
		if !ok {
			unsure()
		}
		for _, code := range codes {
			run(code)
		}
		if cmd.stdinStatic && stdinShell(v) {
			run(cmd.Stdin) // bash <<< 'code', source /dev/stdin <<EOF, echo code | bash
		}
		if procs != nil && sourcesFile(v) {
			// source <(echo code), bash <(printf code): the file it
			// reads is the text the substitution prints.
			for _, w := range v[1:] {
				for _, p := range procs {
					if !w.Static && w.Raw == p.raw {
						run(p.text)
					}
				}
			}
		}
	}
}

// sourcesFile reports whether words run a shell, source or "." that may
// read commands from a file its arguments name.
func sourcesFile(words []Word) bool {
	_, ok := codeReader(words)
	return ok
}

// stdinShell reports whether words run a shell that reads its commands
// from standard input: a shell with no -c string and no script operand
// (or with -s or "-"), or source and . of /dev/stdin or fd 0.
func stdinShell(words []Word) bool {
	name, ok := codeReader(words)
	if !ok {
		return false
	}
	args := words[1:]
	if !shells.Get()[name] { // source or .
		if len(args) > 0 && args[0].Static && args[0].Value == "--" {
			args = args[1:]
		}
		if len(args) == 0 || !args[0].Static {
			return false
		}
		switch args[0].Value {
		case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
			return true
		}
		return false
	}
	_, stdin := shellInput(name, args)
	return stdin
}

// codeReader returns the basename of the program words run and true if it
// reads shell code from a file or standard input: a shell, source or ".".
func codeReader(words []Word) (string, bool) {
	if len(words) == 0 || !words[0].Static {
		return "", false
	}
	name := path.Base(words[0].Value)
	return name, name == "source" || name == "." || shells.Get()[name]
}

func (c *collector) shell(code string, st *walkState) {
	if st.depth+1 > maxDepth {
		c.suspect(labelDepth)
		return
	}
	shape := c.shape.add(shapeOf(code))
	if shape.check() != nil {
		c.suspect(labelDepth) // with the code around it, too deep to walk
		return
	}
	c.shape = shape
	f, code, err := parseFile(code)
	if err != nil {
		c.suspect(labelUnparseable)
		return
	}
	c.text(code)
	inner := c.walkState(code)
	inner.nested, inner.depth, inner.subst, inner.parent = true, st.depth+1, st.subst, st
	inner.outerScope = st.outerScope || len(st.scopes) > 0
	c.walk(f, inner)
	inner.release()
}

// shells are the programs whose -c option runs a string as shell code.
var shells = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
		"mksh": true, "ash": true, "yash": true, "posh": true, "rbash": true,
		// Not bash syntax, but a string that does not parse as bash is
		// reported as unparseable, which is the safe reading.
		"fish": true, "csh": true, "tcsh": true,
	}
}}

// Shell reports whether the program name (a base name) is a shell, one
// whose -c option runs a string as shell code.
func Shell(name string) bool { return shells.Get()[name] }

// codeVars are environment variables whose value a program runs as a
// shell command.
var codeVars = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true, "MANPAGER": true,
		"GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "EDITOR": true, "VISUAL": true,
		"GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_PROXY_COMMAND": true, "PROMPT_COMMAND": true,
	}
}}

// gitCodeKeys are git configuration keys whose value git runs as a shell
// command (alias.NAME runs one when its value starts with "!").
var gitCodeKeys = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"core.pager": true, "core.editor": true, "core.sshcommand": true, "core.fsmonitor": true,
		"core.askpass": true, "core.hookspath": true, "sequence.editor": true, "diff.external": true,
		"credential.helper": true, "gpg.program": true, "pager.log": true, "pager.diff": true, "pager.show": true,
	}
}}

// gitCodeOptions are, by subcommand, the options whose value git runs as
// a shell command (clone's -u is its --upload-pack; fetch's is not, and
// grep's -O takes its pager only joined to it).
var gitCodeOptions = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"rebase":        {"-x", "--exec"},
		"difftool":      {"-x", "--extcmd", "--tool-cmd"},
		"mergetool":     {"--tool-cmd"},
		"clone":         {"-u", "--upload-pack"},
		"fetch":         {"--upload-pack"},
		"pull":          {"--upload-pack"},
		"ls-remote":     {"--upload-pack"},
		"push":          {"--receive-pack", "--exec"},
		"archive":       {"--exec"},
		"send-email":    {"--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd"},
		"filter-branch": {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"},
		"grep":          {"-O", "--open-files-in-pager"},
	}
}}

// gitCodeOption reads the argument a against names, options whose value
// is code: the value joined to it (-xCMD, -ixCMD, --exec=CMD), or next if
// the next word is the value. A long option may be abbreviated, as git's
// option parser allows: any prefix of two letters or more counts, which
// may take a word for code that another option owns, only ever adding
// forms deny rules judge.
func gitCodeOption(a string, names []string) (val string, attached, next bool) {
	for _, o := range names {
		if !strings.HasPrefix(o, "--") {
			// A short option may close a run of flags (-ix CMD) or
			// take the rest of it (-ixCMD), as git's parser reads it.
			k := -1
			if optCluster(a) {
				k = strings.IndexByte(a[1:], o[1]) + 1
			}
			switch {
			case k <= 0:
			case k == len(a)-1:
				return "", false, o != "-O"
			default:
				return a[k+1:], true, false
			}
			continue
		}
		name, v, hasV := strings.Cut(a, "=")
		if !abbrev(name, o, len("--xx")) {
			continue
		}
		if hasV {
			return v, true, false
		}
		return "", false, o != "--open-files-in-pager"
	}
	return "", false, false
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
	case shells.Get()[name]:
		return single(dashC(name, args))
	case name == "eval":
		if len(args) > 0 && args[0].Static && args[0].Value == "--" {
			args = args[1:]
		}
		return single(joined(args))
	case name == "trap":
		return single(trapAction(args))
	case declarers.Get()[name]:
		return compoundValues(args)
	case name == "alias":
		return aliasValues(args)
	case name == "su" || name == "runuser" || name == "script" || name == "flock" || name == "sg":
		return single(commandOption(args))
	case name == "capsh":
		// Arguments after "--" go to bash: capsh -- -c 'cmd'.
		for i, a := range args {
			if !a.Static {
				return nil, false
			}
			if a.Value == "--" || a.Value == "==" {
				return single(dashC("bash", args[i+1:]))
			}
		}
		return nil, true
	case name == "git":
		return gitCode(args)
	case name == "watch":
		wr := broadWrappers.Get()["watch"]
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

// compoundValues returns the code a declaration (declare, typeset, local,
// readonly, export) runs from the values it assigns. Bash reads a value
// that is not a literal array, but starts with "(" and ends with ")" once
// expanded, as a compound array assignment, whose elements it expands,
// $(...) included, when the declaration has -a or -A (or the name is an
// array already): declare -a y='($(id))' runs id, and so does
// x='($(id))'; declare -a y=$x. A static value in that shape is read as
// the assignment y=VALUE (a reading too many, if it is a plain string);
// with -a or -A, a value not static, or a word not static that may be
// one, is code not known.
func compoundValues(args []Word) (code []string, ok bool) {
	arrays, unknown := false, false
	options := true
	for _, w := range args {
		switch {
		case !w.Static && !looksLikeAssignment(w.Raw):
			arrays, unknown = true, true // may be -a, or y=($(id)) itself
		case options && w.Static && w.Value == "--":
			options = false
		case options && w.Static && len(w.Value) > 1 && (w.Value[0] == '-' || w.Value[0] == '+'):
			arrays = arrays || strings.ContainsAny(w.Value[1:], "aA")
		case looksLikeAssignment(w.Raw):
			options = false
			_, raw, _ := strings.Cut(w.Raw, "=")
			if strings.HasPrefix(raw, "(") {
				continue // a literal array, whose elements the walk visits
			}
			if !w.Static {
				unknown = true
				continue
			}
			_, v, _ := strings.Cut(w.Value, "=")
			if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
				code = append(code, "x="+v)
			}
		}
	}
	return code, !(arrays && unknown)
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
func dashC(name string, args []Word) *Word {
	code, _ := shellInput(name, args)
	return code
}

// shellInput reads a shell's arguments for where it takes its commands
// from: code is the -c string (a Word not static when it cannot be known),
// and stdin reports standard input — with -s, with "-", or with neither a
// -c string nor a script operand. Neither: a script file. An argument not
// static may be any of these, and is taken for both; so is what follows
// an option the shell's reading does not know (ShellArgs).
func shellInput(name string, args []Word) (code *Word, stdin bool) {
	r := readShellArgs(name, len(args), func(i int) (string, bool) { return args[i].Value, args[i].Static })
	switch {
	case r.dynamic >= 0:
		return &Word{Raw: args[r.dynamic].Raw}, true // may be -c, -s or the string itself
	case r.unsure != "" && r.hasC:
		// The -c string may be any word after the option.
		return &Word{Raw: args[r.unsureAt].Raw}, true
	case r.code >= 0:
		return &args[r.code], r.stdin
	}
	return nil, r.stdin || r.unsure != ""
}

// ShellArgs reads the arguments of the shell name (a base name Shell
// reports) as the shell reads them, and says where it takes its commands
// from: code is the index in args of the -c string (-1 if none); stdin
// reports standard input (-s, "-", or neither -c nor a script operand);
// unsure is the first option the reading does not know, after which the
// rest cannot be told apart (it may take the next word as its value), so
// the shell may read stdin or any word as code.
//
// Options are read as bash, dash and the other Bourne shells read them:
// letters clustered after "-" or "+" (+c and +s are -c and -s to bash and
// dash), -o NAME, +o NAME, -O NAME and +O NAME, bash's long options
// (--rcfile and --init-file with a value), and "--" or "-" ending them.
func ShellArgs(name string, args []string) (code int, stdin bool, unsure string) {
	r := readShellArgs(name, len(args), func(i int) (string, bool) { return args[i], true })
	return r.code, r.stdin, r.unsure
}

type shellArgs struct {
	code, dynamic, unsureAt int
	hasC, stdin             bool
	unsure                  string
}

// Option letters that take no value in any Bourne shell that knows them
// (a shell that does not know one stops with an error): set's flags and
// the invocation's -i, -l, -r and -s. -T is bash's functrace, but mksh's
// -T takes a tty; -R is ksh93's cross-reference file.
const (
	shellFlags     = "abefhiklmnpqrsuvxBCDEHIPV"
	bashShellFlags = shellFlags + "T"
)

// bashLongFlags are bash's long options that take no value.
var bashLongFlags = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"--debug": true, "--debugger": true, "--dump-po-strings": true, "--dump-strings": true,
		"--help": true, "--login": true, "--noediting": true, "--noprofile": true, "--norc": true,
		"--posix": true, "--pretty-print": true, "--protected": true, "--restricted": true,
		"--verbose": true, "--version": true, "--wordexp": true,
	}
}}

func readShellArgs(name string, n int, arg func(int) (string, bool)) shellArgs {
	r := shellArgs{code: -1, dynamic: -1, unsureAt: -1}
	flags := shellFlags
	switch name {
	case "bash", "rbash", "sh":
		flags = bashShellFlags
		if name == "sh" {
			flags = shellFlags // dash, or mksh, where -T takes a value
		}
	case "fish", "csh", "tcsh":
		flags = "" // options of their own: -c alone is read
	}
	hasS := false
	unsure := func(i int, v string) {
		if r.unsure == "" {
			r.unsure, r.unsureAt = v, i
		}
	}
	for i := 0; i < n; i++ {
		v, static := arg(i)
		if !static {
			r.dynamic = i
			return r
		}
		switch {
		case v == "--" || v == "-":
			if r.hasC && i+1 < n {
				r.code, r.stdin = i+1, hasS
				if _, static := arg(i + 1); !static {
					r.dynamic = i + 1
				}
				return r
			}
			r.stdin = hasS || !r.hasC && (v == "-" || i+1 == n)
			return r
		case v == "--rcfile" || v == "--init-file":
			i++
		case strings.HasPrefix(v, "--"):
			if !bashLongFlags.Get()[v] || flags == "" {
				unsure(i, v)
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			at := i // the cluster's own word: -o moves i on to its name
			for _, ch := range v[1:] {
				switch {
				case ch == 'c':
					r.hasC = true
				case ch == 's':
					hasS = true
				case ch == 'o' || ch == 'O':
					i++ // -o option, -O shopt: the name is the next word
					if flags == "" {
						unsure(at, v)
					} else if i < n {
						// bash -O nocaseglob, -o keyword: options the
						// script is read with (shopts.go).
						if o, static := arg(i); !static || !quietOption(o, ch == 'o') {
							unsure(at, v)
						}
					}
				case !strings.ContainsRune(flags, ch) || invocationUnquiet(ch):
					unsure(at, v)
				}
			}
		case r.hasC:
			r.code, r.stdin = i, hasS
			return r
		default:
			r.stdin = hasS // a script file, unless -s makes its words arguments
			return r
		}
	}
	r.stdin = hasS || !r.hasC
	return r
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
		case v == "--command" || optCluster(v) && strings.HasSuffix(v, "c"):
			if i+1 < len(args) {
				return &args[i+1]
			}
			return nil
		case strings.HasPrefix(v, "--command="):
			code = strings.TrimPrefix(v, "--command=")
		case len(v) > 2 && ClusterHas(v, 'c'):
			_, code, _ = strings.Cut(v, "c")
		default:
			continue
		}
		return &Word{Raw: code, Value: code, Static: true}
	}
	return nil
}

// gitCode returns the shell code a git command line runs from its own
// arguments: -c values of keys git runs as commands (and "!" aliases),
// the values of gitCodeOptions, bisect run and submodule foreach. ok is
// false if such code is not static.
func gitCode(args []Word) (code []string, ok bool) {
	ok = true
	add := func(w *Word) {
		switch {
		case w == nil:
		case !w.Static:
			ok = false
		default:
			code = append(code, w.Value)
		}
	}
	parsed, rest, _ := gitGlobals.parse(args)
	for _, a := range parsed {
		if a.opt != "-c" && a.opt != "--config-env" || a.word == nil {
			continue
		}
		if !a.word.Static {
			ok = false
			continue
		}
		key, val, _ := strings.Cut(a.val, "=")
		key = strings.ToLower(key)
		switch {
		case strings.HasPrefix(key, "alias.") && strings.HasPrefix(val, "!"):
			code = append(code, val[1:])
		case gitCodeKeys.Get()[key] || strings.HasPrefix(key, "pager.") || strings.HasSuffix(key, ".textconv") ||
			strings.HasSuffix(key, ".cmd") || strings.HasSuffix(key, ".command") || strings.HasPrefix(key, "filter."):
			code = append(code, val)
		}
	}
	sub := args[rest:]
	if len(sub) == 0 || !sub[0].Static {
		return code, ok
	}
	opts := sub[1:]
	if names := gitCodeOptions.Get()[sub[0].Value]; names != nil {
		for i := 0; i < len(opts); i++ {
			w := opts[i]
			if !w.Static {
				continue
			}
			if w.Value == "--" {
				break
			}
			val, attached, next := gitCodeOption(w.Value, names)
			switch {
			case attached:
				code = append(code, val)
			case next && i+1 < len(opts):
				add(&opts[i+1])
				i++
			}
		}
	}
	switch sub[0].Value {
	case "bisect":
		if len(opts) > 0 && opts[0].Static && opts[0].Value == "run" {
			add(joined(opts[1:]))
		}
	case "submodule":
		for i, w := range opts {
			if w.Static && w.Value == "foreach" {
				add(joined(opts[i+1:]))
				break
			}
		}
	}
	return code, ok
}
