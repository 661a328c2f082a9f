package bash

import (
	"path"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
)

// wrapper describes a program that runs the command line that follows its
// own options and operands.
type wrapper struct {
	opts optSpec
	// operand checks the operand the wrapper takes before the command
	// (timeout's duration); nil if it takes none.
	operand func(Word) bool
	// assigns skips NAME=value operands before the command (env, sudo).
	assigns bool
	// notWrapper lists options with which the program runs no command
	// (command -v only prints where the command is).
	notWrapper []string
	// flagsAfter skips options after the operand (setarch ARCH -R cmd).
	flagsAfter bool
	// appends: the wrapper adds arguments of its own to the command, read
	// from its input (xargs, parallel), so the command may have operands
	// and options it does not show (inputWords).
	appends bool
	// with lists the options without one of which the program runs no
	// command (jobs runs one only with -x); nil if it always runs one.
	with []string
}

// inputWords stands, in a reading of the command an appending wrapper
// runs (wrapper.appends), for the arguments the wrapper adds: not static,
// and an unquoted expansion, so that it may be options and operands alike
// (xargs rm -f is rm -f with operands, which Bash(rm -rf *) covers).
var inputWords = Word{Raw: "$INPUT"}

var durationRe = lazyre.MustCompile(`^[0-9]+(\.[0-9]+)?[smhd]?$`)

func isDuration(w Word) bool { return w.Static && durationRe.Get().MatchString(w.Value) }

func anyOperand(Word) bool { return true }

// narrowWrappers are stripped for AllowForm and ReadOnly: process wrappers
// that change how, not what, the command runs. Their options are strict
// (an unknown option keeps the wrapper in place) and exclude any that
// writes a file (time -o).
var narrowWrappers = lazy.Value[map[string]wrapper]{New: func() map[string]wrapper {
	return map[string]wrapper{
		"timeout": {
			opts:    optSpec{flags: "v", args: "sk", long: []string{"foreground", "preserve-status", "verbose"}, longArgs: []string{"kill-after", "signal"}, strict: true},
			operand: isDuration,
		},
		"time":   {opts: optSpec{flags: "pvq", args: "f", long: []string{"portability", "verbose", "quiet"}, longArgs: []string{"format"}, strict: true}},
		"nice":   {opts: optSpec{flags: "0123456789", args: "n", longArgs: []string{"adjustment"}, strict: true}},
		"nohup":  {opts: optSpec{strict: true}},
		"stdbuf": {opts: optSpec{args: "ioe", longArgs: []string{"input", "output", "error"}, strict: true}},
	}
}}

// broadWrappers are stripped for DenyForms, Destructive and shell-string
// detection: everything that runs a command line, with every option known
// to take an argument (unknown options are taken to be flags).
var broadWrappers = lazy.Value[map[string]wrapper]{New: func() map[string]wrapper {
	return map[string]wrapper{
		"timeout": {
			opts:    optSpec{args: "sk", longArgs: []string{"kill-after", "signal"}},
			operand: anyOperand,
		},
		"time":   {opts: optSpec{args: "fo", longArgs: []string{"format", "output"}}},
		"nice":   {opts: optSpec{args: "n", longArgs: []string{"adjustment"}}},
		"nohup":  {},
		"stdbuf": {opts: optSpec{args: "ioe", longArgs: []string{"input", "output", "error"}}},
		"sudo": {
			opts:    optSpec{args: "CDgpRrTUtu", longArgs: []string{"chdir", "chroot", "close-from", "command-timeout", "group", "host", "other-user", "prompt", "role", "type", "user"}},
			assigns: true,
		},
		"doas":    {opts: optSpec{args: "uC"}},
		"env":     {opts: optSpec{args: "uCS", longArgs: []string{"unset", "chdir", "split-string"}}, assigns: true},
		"command": {opts: optSpec{}, notWrapper: []string{"-v", "-V"}},
		"jobs":    {with: []string{"-x"}}, // jobs -x CMD ARGS runs CMD
		"builtin": {},
		"exec":    {opts: optSpec{args: "a"}},
		"ionice":  {opts: optSpec{args: "cnpPu", longArgs: []string{"class", "classdata", "pid", "pgid", "uid"}}},
		"setsid":  {},
		"busybox": {},
		"toybox":  {},
		"xargs": {opts: optSpec{
			args:     "adEILnPs",
			longArgs: []string{"arg-file", "delimiter", "max-args", "max-chars", "max-procs", "process-slot-var"},
		}, appends: true},
		"watch": {opts: optSpec{args: "nq", longArgs: []string{"interval", "equexit"}}},
		// Privilege, scheduling, namespace and tracing wrappers: each runs the
		// command line after its options (and, for some, one operand).
		"pkexec":           {opts: optSpec{longArgs: []string{"user"}}},
		"runuser":          {opts: optSpec{args: "ugG", longArgs: []string{"user", "group", "supp-group"}}},
		"chrt":             {opts: optSpec{args: "T", longArgs: []string{"sched-runtime", "sched-deadline", "sched-period"}}, operand: anyOperand},
		"taskset":          {opts: optSpec{}, operand: anyOperand},
		"flock":            {opts: optSpec{args: "wEc", longArgs: []string{"timeout", "conflict-exit-code", "command"}}, operand: anyOperand},
		"chroot":           {opts: optSpec{longArgs: []string{"userspec", "groups"}}, operand: anyOperand},
		"nsenter":          {opts: optSpec{args: "tSGrw", longArgs: []string{"target", "setuid", "setgid", "root", "wd"}}},
		"unshare":          {opts: optSpec{args: "S", longArgs: []string{"setuid", "setgid", "propagation", "map-user", "map-group"}}},
		"strace":           {opts: optSpec{args: "abeEIoOpPsSuUX", longArgs: []string{"output", "attach", "user", "trace", "signal"}}},
		"ltrace":           {opts: optSpec{args: "aAeEnopsuDlL", longArgs: []string{"output", "library"}}},
		"unbuffer":         {},
		"chronic":          {},
		"ifne":             {},
		"caffeinate":       {opts: optSpec{args: "tw"}},
		"catchsegv":        {},
		"systemd-run":      {opts: optSpec{args: "pEMu", longArgs: []string{"property", "setenv", "machine", "unit", "uid", "gid", "working-directory", "description", "slice"}}},
		"parallel":         {opts: optSpec{args: "jSaI", longArgs: []string{"jobs", "sshlogin", "arg-file", "delimiter"}}, appends: true},
		"setarch":          {operand: anyOperand, flagsAfter: true},
		"linux32":          {flagsAfter: true},
		"linux64":          {flagsAfter: true},
		"prlimit":          {opts: optSpec{args: "p", longArgs: []string{"pid", "output"}}},
		"fakeroot":         {opts: optSpec{args: "lsi", longArgs: []string{"lib", "faked"}}},
		"fakechroot":       {opts: optSpec{args: "lcedsb", longArgs: []string{"lib", "config-dir", "environment", "use-system-libs", "bindir"}}},
		"sg":               {operand: anyOperand},
		"setpriv":          {opts: optSpec{longArgs: []string{"groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "selinux-label", "apparmor-profile", "reuid", "regid", "ruid", "rgid", "euid", "egid", "pdeathsig"}}},
		"numactl":          {opts: optSpec{args: "iNmCpP", longArgs: []string{"interleave", "cpunodebind", "membind", "physcpubind", "preferred"}}},
		"firejail":         {},
		"torsocks":         {opts: optSpec{args: "uPpa", longArgs: []string{"user", "pass", "port", "address"}}},
		"proxychains":      {opts: optSpec{args: "f"}},
		"proxychains4":     {opts: optSpec{args: "f"}},
		"chpst":            {opts: optSpec{args: "ugUeo/nlLmdvpfcr"}},
		"cgexec":           {opts: optSpec{args: "g"}},
		"eatmydata":        {},
		"nocache":          {},
		"faketime":         {opts: optSpec{args: "m"}, operand: anyOperand},
		"valgrind":         {},
		"rlwrap":           {},
		"xvfb-run":         {opts: optSpec{args: "nslfepw", longArgs: []string{"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"}}},
		"dbus-run-session": {},
		"ssh-agent":        {opts: optSpec{args: "aEPt"}},
		"ld.so":            {opts: optSpec{longArgs: []string{"library-path", "preload", "argv0", "audit", "inhibit-rpath", "glibc-hwcaps-prepend", "glibc-hwcaps-mask"}}},
	}
}}

// wrapperFor returns the broad wrapper a program name (a basename) is:
// its entry, or the dynamic loader's for ld-linux*.so* and ld*.so*.
func wrapperFor(set map[string]wrapper, name string) (wrapper, bool) {
	if wr, ok := set[name]; ok {
		return wr, true
	}
	if set["ld.so"].opts.longArgs != nil && (strings.HasPrefix(name, "ld-linux") || strings.HasPrefix(name, "ld-") && strings.Contains(name, ".so") || strings.HasPrefix(name, "ld64.so")) {
		return set["ld.so"], true
	}
	return wrapper{}, false
}

// unwrap strips one wrapper from words if words[0] names one in set (by
// basename if byBase). It returns the wrapped command line and true, or
// nil and false if words do not start with a wrapper, or, for a strict
// wrapper, if its options or operands are not exactly as known.
func unwrap(words []Word, set map[string]wrapper, byBase bool) ([]Word, bool) {
	if len(words) == 0 || !words[0].Static || words[0].Glob {
		return nil, false
	}
	name := words[0].Value
	if byBase {
		name = path.Base(name)
	}
	wr, ok := set[name]
	if !ok && byBase {
		wr, ok = wrapperFor(set, name)
	}
	if !ok {
		return nil, false
	}
	args, rest, err := wr.opts.parse(words[1:])
	if err != nil && wr.opts.strict {
		return nil, false
	}
	var split []Word
	for _, a := range args {
		if slices.Contains(wr.notWrapper, a.opt) {
			return nil, false
		}
		if wr.opts.strict && a.word != nil && !a.word.Static {
			return nil, false // narrow stripping needs every stripped word known
		}
		if a.opt == "-S" || a.opt == "--split-string" {
			split = splitWords(a.val) // env -S "cmd args": one string, many words
		}
	}
	if wr.with != nil && !slices.ContainsFunc(args, func(a arg) bool { return slices.Contains(wr.with, a.opt) }) {
		return nil, false
	}
	inner := words[1+rest:]
	if wr.operand != nil {
		if len(inner) == 0 || !wr.operand(inner[0]) {
			return nil, false
		}
		inner = inner[1:]
	}
	for wr.flagsAfter && len(inner) > 0 && inner[0].Static && strings.HasPrefix(inner[0].Value, "-") {
		done := inner[0].Value == "--"
		inner = inner[1:]
		if done {
			break
		}
	}
	if name == "env" && len(inner) > 0 && inner[0].Static && inner[0].Value == "-" {
		inner = inner[1:] // env - CMD: a lone "-" means -i
	}
	for wr.assigns && len(inner) > 0 && inner[0].Static && looksLikeAssignment(inner[0].Value) {
		inner = inner[1:]
	}
	if split != nil {
		inner = append(split, inner...)
	}
	return inner, true
}

// splitWords splits s on white space into static words, the way env -S
// does for the common case. Quotes in s are kept as they are: the result
// only feeds the broad forms, where an extra reading is harmless.
func splitWords(s string) []Word {
	var out []Word
	for _, f := range strings.Fields(s) {
		out = append(out, Word{Raw: f, Value: f, Static: true})
	}
	return out
}

// maxVariants bounds how many readings of one command the broad
// normalisation produces. Real commands need a handful; reaching the
// bound is reported as suspicious, since readings past it are not made.
const maxVariants = 128

// variants returns every broad reading of the command's words: as written,
// and with wrappers stripped, inner commands of xargs, find -exec and watch
// taken out, git global options removed and the program named by its
// basename, in every combination. The first reading is the words as
// written; readings with no words are dropped.
func (c *Command) variants() [][]Word {
	if c.cached != nil || len(c.Words) == 0 {
		return c.cached
	}
	return c.allReadings(nil)
}

// allReadings appends the readings variants returns to out, which Parse
// points at storage in the Command (one reading is the common case).
// The command has words.
func (c *Command) allReadings(out [][]Word) [][]Word {
	return c.addReadings(out, c.Words)
}

// addReadings appends words and every reading made from it to out, which
// holds readings already, leaving out any out has; at most maxVariants in
// all.
func (c *Command) addReadings(out [][]Word, words []Word) [][]Word {
	if len(out) == maxVariants || slices.ContainsFunc(out, func(v []Word) bool { return sameWords(v, words) }) {
		return out
	}
	start := len(out)
	out = append(out, words)
	for i := start; i < len(out); i++ {
		for _, next := range readings(out[i]) {
			if len(out) == maxVariants {
				return out
			}
			if len(next) > 0 && !slices.ContainsFunc(out, func(v []Word) bool { return sameWords(v, next) }) {
				out = append(out, next)
			}
		}
	}
	return out
}

// readings returns the readings one normalisation step makes of words.
func readings(words []Word) [][]Word {
	if !mayHaveReadings(words) {
		return nil
	}
	var out [][]Word
	if inner, ok := unwrap(words, broadWrappers.Get(), true); ok {
		out = append(out, inner)
		if words[0].Static && broadWrappers.Get()[path.Base(words[0].Value)].appends {
			out = append(out, append(slices.Clip(inner), inputWords))
		}
		if len(inner) > 1 && !inner[0].Static {
			// `sudo $opt rm`: the dynamic word may be an option of the
			// wrapper, so the command may start after it.
			out = append(out, inner[1:])
		}
	}
	out = append(out, findExec(words)...)
	if l, ok := listReading(words); ok {
		out = append(out, l)
	}
	if b, ok := braceExpanded(words); ok {
		out = append(out, b)
	}
	if g, ok := withoutGitGlobals(words); ok {
		out = append(out, g)
	}
	if a, ok := gitAliased(words, nil); ok {
		out = append(out, a)
	}
	if b, ok := baseNamed(words); ok {
		out = append(out, b)
	}
	if d, ok := gitDashed(words); ok {
		out = append(out, d)
	}
	out = append(out, npmReadings(words)...)
	return out
}

// maxOptionReadings bounds the readings subcommandReadings makes.
const maxOptionReadings = 4

// subcommandReadings returns the command lines a rule naming a
// subcommand may see in words: the program followed by each word that may
// be its subcommand and what comes after it. That is a word after the
// program's global options (docker --context x run, kubectl -n x delete,
// cargo +nightly publish, terraform -chdir=x apply), and the word after a
// first operand, which may name a group of subcommands (docker container
// run, podman image push, docker compose run). An option without "=", or
// a word not static, may take the next word as its value, which leaves
// the word after that to be an operand too.
//
// git and npm are left out: their own readings (withoutGitGlobals,
// npmReadings) read their command lines as they do, and a word after
// their subcommand is not one (git stash push does not push).
func subcommandReadings(words []Word) [][]Word {
	if len(words) < 3 || !words[0].Static || path.Base(words[0].Value) == "git" || path.Base(words[0].Value) == "npm" {
		return nil
	}
	var out [][]Word
	operands := 0
	for i := 1; i < len(words) && len(out) < maxOptionReadings; i++ {
		w := words[i]
		if w.Static && w.Value == "--" {
			break
		}
		if optionLike(w) {
			continue
		}
		if !subcommandLike(w.Value) {
			break // a path, a number, a pattern: no subcommand a rule names
		}
		if i > 1 {
			r := make([]Word, 0, 1+len(words)-i)
			out = append(out, append(append(r, words[0]), words[i:]...))
		}
		if prev := words[i-1]; i == 1 || prev.Static && (!optionLike(prev) || strings.Contains(prev.Value, "=")) {
			// w is surely an operand: no option before it takes it.
			// The second is the last that may be a subcommand.
			if operands++; operands == 2 {
				break
			}
		}
	}
	return out
}

// subcommandLike reports whether s may be a program's subcommand: a
// lower-case letter, then lower-case letters, digits, "-" and "_".
func subcommandLike(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// optionLike reports whether w may be an option: it starts with "-" or
// "+" (cargo +nightly), or is not static.
func optionLike(w Word) bool {
	return !w.Static || len(w.Value) > 1 && (w.Value[0] == '-' || w.Value[0] == '+')
}

// gitDashed returns the command line git-SUB ARGS (a program named
// git-push, as git's exec-path holds them: /usr/libexec/git-core/git-push)
// as git SUB ARGS, which it runs.
func gitDashed(words []Word) ([]Word, bool) {
	w := words[0]
	if !w.Static || w.Glob || strings.Contains(w.Value, "/") {
		return nil, false // a path is a reading by its base name first
	}
	sub, ok := strings.CutPrefix(w.Value, "git-")
	if !ok || sub == "" {
		return nil, false
	}
	out := make([]Word, 0, len(words)+1)
	out = append(out, Word{Raw: "git", Value: "git", Static: true}, Word{Raw: sub, Value: sub, Static: true})
	return append(out, words[1:]...), true
}

// mayHaveReadings is false if readings has none for words: the program
// is not static, or is named by a plain name that is not a broad wrapper,
// find, git or a dynamic loader. It spares the common command every look
// readings takes.
func mayHaveReadings(words []Word) bool {
	if len(words) == 0 {
		return false
	}
	if hasBraces(words) {
		return true
	}
	if !words[0].Static {
		return false
	}
	v := words[0].Value
	if strings.Contains(v, "/") || v == "find" || v == "git" || strings.HasPrefix(v, "git-") || v == "npm" || strings.HasPrefix(v, "ld") || listReader(v) {
		return true
	}
	_, ok := broadWrappers.Get()[v]
	return ok
}

// listReader reports whether name is a program listReading knows.
func listReader(name string) bool {
	switch name {
	case "sort", "wc", "du", "tar":
		return true
	}
	return false
}

// listReading returns the reading of words, a command of a listReader,
// that has the operands the program reads from a file of names after its
// words (inputWords): sort, wc and du --files0-from FILE, tar -T FILE and
// --files-from FILE (any prefix of the long options, as getopt_long
// reads them). Like what xargs adds, they are known only as the command
// runs and may name any file: sort --files0-from=l prints a Read-denied
// .env that l names.
func listReading(words []Word) ([]Word, bool) {
	list := false
	switch path.Base(words[0].Value) {
	case "sort", "wc", "du":
		list = slices.ContainsFunc(words[1:], func(w Word) bool { return LongAbbrev(w.Value, "--files0-from") })
	case "tar":
		list = slices.ContainsFunc(words[1:], func(w Word) bool {
			return LongAbbrev(w.Value, "--files-from") || ClusterHas(w.Value, 'T')
		}) || len(words) > 1 && !strings.HasPrefix(words[1].Value, "-") && strings.Contains(words[1].Value, "T")
	}
	if !list || words[len(words)-1].Raw == inputWords.Raw {
		return nil, false // no reading, or this is it
	}
	return append(slices.Clip(words), inputWords), true
}

// braceExpanded returns words with every brace expansion the bash package
// could follow replaced by the words it makes: the command line the shell
// runs ({curl,x} is curl x, c{u,x}rl is curl cxrl).
func braceExpanded(words []Word) ([]Word, bool) {
	if !hasBraces(words) {
		return nil, false
	}
	n := 0
	for _, w := range words {
		n += max(1, len(w.Braces))
	}
	out := make([]Word, 0, n)
	for _, w := range words {
		if w.Braces != nil {
			out = append(out, w.Braces...)
		} else {
			out = append(out, w)
		}
	}
	return out, true
}

// hasBraces reports a word whose brace expansion was followed (Braces).
func hasBraces(words []Word) bool {
	return slices.ContainsFunc(words, func(w Word) bool { return w.Braces != nil })
}

// sameWords reports whether two readings are the same: the same words
// with the same text as written and the same values. Readings of
// different lengths, the usual case, differ at once.
func sameWords(a, b []Word) bool {
	return slices.EqualFunc(a, b, func(x, y Word) bool { return x.Raw == y.Raw && x.Value == y.Value })
}

// findExec returns the command lines of find's -exec, -execdir, -ok and
// -okdir actions, each running to its ";" or "+" (or to the end). A word
// that is not static may be such an action too.
func findExec(words []Word) [][]Word {
	if len(words) == 0 || !words[0].Static || path.Base(words[0].Value) != "find" {
		return nil
	}
	var out [][]Word
	for i := 1; i < len(words); i++ {
		if words[i].Static && !findActions.Get()[words[i].Value] {
			continue
		}
		j := i + 1
		for j < len(words) && !(words[j].Static && (words[j].Value == ";" || words[j].Value == "+")) {
			j++
		}
		out = append(out, words[i+1:j])
		i = j
	}
	return out
}

var findActions = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}
}}

// gitGlobals are git's options that come before the subcommand.
var gitGlobals = optSpec{
	flags: "pPhv",
	args:  "Cc",
	long: []string{"bare", "glob-pathspecs", "help", "html-path", "icase-pathspecs", "info-path",
		"literal-pathspecs", "man-path", "no-advice", "no-lazy-fetch", "no-optional-locks",
		"no-pager", "no-replace-objects", "noglob-pathspecs", "paginate", "version", "exec-path"},
	longArgs: []string{"config-env", "git-dir", "namespace", "super-prefix", "work-tree", "list-cmds", "attr-source"},
}

// withoutGitGlobals returns a git command line with the global options
// before the subcommand removed.
func withoutGitGlobals(words []Word) ([]Word, bool) {
	if len(words) < 2 || !words[0].Static || path.Base(words[0].Value) != "git" {
		return nil, false
	}
	_, rest, _ := gitGlobals.parse(words[1:])
	if rest == 0 {
		return nil, false
	}
	return append([]Word{words[0]}, words[1+rest:]...), true
}

// baseNamed returns words with a path-named program replaced by its
// basename.
func baseNamed(words []Word) ([]Word, bool) {
	w := words[0]
	if !w.Static || w.Glob || !strings.Contains(w.Value, "/") {
		return nil, false
	}
	base := path.Base(w.Value)
	if base == "/" || base == "." || base == ".." {
		return nil, false
	}
	return append([]Word{{Raw: base, Value: base, Static: true}}, words[1:]...), true
}

// DenyForms returns every normalised form of the command for deny and ask
// rules, deduplicated, each the words joined by single spaces: as written
// (with and without the leading assignments), with quotes removed, and
// with quoted values re-quoted, for every reading variants produces, and
// for the command an xargs reading runs with its input after it
// (xargsRuns). Words that are not static keep their Raw text.
func (c *Command) DenyForms() []string {
	return c.AppendDenyForms(make([]string, 0, 2+len(c.variants())))
}

// AppendDenyForms appends the forms DenyForms returns to dst, which must
// be empty, and returns the extended slice: a caller may lend it spare
// room to fill.
func (c *Command) AppendDenyForms(dst []string) []string {
	vs := c.variants()
	var out formSet
	out.list = dst[:0]
	if len(c.Assigns) > 0 {
		raws := make([]string, len(c.Assigns))
		for i, a := range c.Assigns {
			raws[i] = a.Raw
		}
		prefix := strings.Join(raws, " ")
		out.add(strings.TrimSpace(prefix + " " + join(c.Words, rawText)))
		out.add(strings.TrimSpace(prefix + " " + join(c.Words, valueText)))
	}
	for _, v := range vs {
		raw := c.joinRaw(v)
		out.add(raw)
		value := joinLike(v, valueText, raw)
		out.add(value)
		// The quoted form is most often the value form (quotes only
		// re-added where the shell needs them): then it is value.
		out.add(joinAs(v, quotedText, value, valueText, len(raw)+2*len(v)))
	}
	// A rule naming a subcommand matches it after global options and
	// in a group (docker --context x run, docker container run): forms
	// only, not readings, whose writes and placements would read an
	// option's value or a group's name as an operand.
	for _, v := range vs {
		for _, w := range subcommandReadings(v) {
			out.add(join(w, rawText))
			out.add(join(w, valueText))
			out.add(join(w, quotedText))
		}
	}
	return out.list
}

// formSet collects deny forms: distinct, non-empty, in the order added.
type formSet struct{ stringSet }

func (s *formSet) add(f string) {
	if f != "" {
		s.stringSet.add(f)
	}
}

// stringSet is a list of distinct strings in the order added. It looks a
// string up in the list while the list is short and builds a map only once
// it is long, so a small set costs no map and a large one stays linear.
type stringSet struct {
	list []string
	seen map[string]bool
}

// add appends x unless it is there already, and reports whether it did.
func (s *stringSet) add(x string) bool {
	switch {
	case s.seen != nil:
		if s.seen[x] {
			return false
		}
		s.seen[x] = true
	case slices.Contains(s.list, x):
		return false
	case len(s.list) == 16:
		s.seen = make(map[string]bool, 2*len(s.list))
		for _, y := range s.list {
			s.seen[y] = true
		}
		s.seen[x] = true
	}
	s.list = append(s.list, x)
	return true
}

func rawText(w *Word) string { return w.Raw }

// valueText is the unquoted value of a static word, else its Raw text.
func valueText(w *Word) string {
	if w.Static {
		return w.Value
	}
	return w.Raw
}

// quotedText is a static value quoted for the shell, else the Raw text.
func quotedText(w *Word) string {
	if w.Static {
		return quote(w)
	}
	return w.Raw
}

// join joins the text of each word, separated by spaces. The words are
// passed to text by pointer: a Word is eight words long, and a form is
// made of every word of every command, twice or more.
func join(words []Word, text func(*Word) string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return text(&words[0])
	}
	var b strings.Builder
	n := len(words) - 1
	for _, w := range words {
		n += len(w.Raw)
	}
	b.Grow(n)
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(text(&words[i]))
	}
	return b.String()
}

// joinRaw is join(words, rawText). For a tail of the command's own Words
// (the words as written, or with wrappers stripped) whose source has them
// separated by single spaces it is a slice of that source, not a copy.
func (c *Command) joinRaw(words []Word) string {
	n := len(words)
	if c.spaced == "" || n == 0 || n > len(c.Words) || &words[n-1] != &c.Words[len(c.Words)-1] {
		return join(words, rawText)
	}
	size := n - 1
	for _, w := range words {
		size += len(w.Raw)
	}
	if size > len(c.spaced) {
		return join(words, rawText) // cannot happen: spaced holds them all
	}
	return c.spaced[len(c.spaced)-size:]
}

// joinLike is join(words, text) for raw, which is join(words, rawText):
// while text gives each word's Raw text, it is raw itself, not a copy.
func joinLike(words []Word, text func(*Word) string, raw string) string {
	return joinAs(words, text, raw, rawText, len(raw))
}

// joinAs is join(words, text) for base, which is join(words, baseText):
// while text gives each word what baseText does, it is base itself, not
// a copy. size is about the length of the result, to size a copy.
func joinAs(words []Word, text func(*Word) string, base string, baseText func(*Word) string, size int) string {
	pos := 0 // the length of base's text for words[:i] and a space
	for i := range words {
		t, bt := text(&words[i]), baseText(&words[i])
		if t == bt {
			pos += len(bt) + 1
			continue
		}
		var b strings.Builder
		b.Grow(max(size, len(base)) + len(t))
		b.WriteString(base[:pos])
		b.WriteString(t)
		for j := i + 1; j < len(words); j++ {
			b.WriteByte(' ')
			b.WriteString(text(&words[j]))
		}
		return b.String()
	}
	return base
}

// harmlessVars are environment variables that only change presentation.
// An assignment to one of them is stripped for AllowForm when its value
// is a plain token (no path: a locale or terminal name with a "/" loads
// files from that path). Every other assignment keeps a command from being
// read-only: the list is an allowlist.
var harmlessVars = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"LANG": true, "LANGUAGE": true, "TZ": true, "NO_COLOR": true, "TERM": true,
		"COLUMNS": true, "LINES": true, "FORCE_COLOR": true, "CLICOLOR": true,
	}
}}

var plainValueRe = lazyre.MustCompile(`^[A-Za-z0-9_.,:@+-]*$`)

func harmless(a Assign) bool {
	if !a.Static {
		return false
	}
	switch {
	case harmlessVars.Get()[a.Name] || strings.HasPrefix(a.Name, "LC_") && validName(a.Name):
		return plainValueRe.Get().MatchString(a.Value)
	}
	return false
}

// privileged are programs that run their arguments as another user; no
// allow rule may cover them.
var privileged = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"sudo": true, "doas": true, "su": true, "sudoedit": true, "pkexec": true, "run0": true, "runuser": true}
}}

// narrow returns the command's words with harmless leading assignments and
// the narrow wrappers stripped, for AllowForm and ReadOnly. It returns
// false if an assignment is kept: any assignment that is not harmless
// keeps them all, and a kept assignment changes what the command does.
func (c *Command) narrow() ([]Word, bool) {
	if c.narrowed.done {
		return c.narrowed.words, c.narrowed.ok
	}
	return c.narrowWords()
}

// narrowWords is narrow, worked out. Parse keeps its answer (narrowed),
// since a parsed Command is read from many goroutines.
func (c *Command) narrowWords() ([]Word, bool) {
	for _, a := range c.Assigns {
		if !harmless(a) {
			return nil, false
		}
	}
	words := c.Words
	for {
		inner, ok := unwrap(words, narrowWrappers.Get(), false)
		if !ok {
			return words, len(words) > 0
		}
		words = inner
	}
}

// AllowForm returns the text allow rules are matched against: the static
// values joined by single spaces, a value quoted when it holds white space,
// a quote or a shell metacharacter. Harmless assignments and the process
// wrappers timeout, time, nice, nohup and stdbuf (with their options) are
// stripped first. ok is false, and no allow rule may ever cover the
// command, when a word is not static, the program is privileged (sudo,
// doas, su, ...), it sets a variable that carries code (CodeAssigns), or
// nothing is left. A program named by a path keeps its path, so only a
// rule naming that path matches it.
func (c *Command) AllowForm() (string, bool) {
	words, ok := c.narrow()
	if !ok {
		return "", false
	}
	for _, w := range words {
		if !w.Static {
			return "", false
		}
	}
	if name := words[0].Value; privileged.Get()[path.Base(name)] || words[0].Glob || name == "" || len(c.CodeAssigns()) > 0 {
		return "", false
	}
	return joinLike(words, quote, c.joinRaw(words)), true
}

// gitAliased returns a git command line with its subcommand replaced by
// the alias that defines it: one given with -c alias.NAME=VALUE, or one
// in aliases (from the repository's configuration). Shell aliases ("!")
// are parsed as shell code instead (gitCode).
func gitAliased(words []Word, aliases map[string]string) ([]Word, bool) {
	w, expanded, _ := gitExpand(words, aliases)
	return w, expanded
}

// gitExpand is gitAliased, and also returns "NAME = VALUE" where the
// expansion ends at a shell alias of aliases (not one given with -c,
// whose code the command shows): code from the configuration that git
// runs.
func gitExpand(words []Word, aliases map[string]string) (_ []Word, expanded bool, shell string) {
	if len(words) < 2 || !words[0].Static || path.Base(words[0].Value) != "git" {
		return nil, false, ""
	}
	// git expands an alias whose value names another alias too (a1 =
	// a2, a2 = push is git push), up to a loop, which it refuses.
	for seen := map[string]bool{}; ; {
		parsed, rest, _ := gitGlobals.parse(words[1:])
		sub := 1 + rest
		if sub >= len(words) || !words[sub].Static {
			return words, expanded, ""
		}
		name := words[sub].Value
		value, found := aliases[strings.ToLower(name)] // keys ignore case
		given := false
		for _, a := range parsed {
			if a.opt != "-c" || a.word == nil || !a.word.Static {
				continue
			}
			k, v, _ := strings.Cut(a.val, "=")
			if strings.EqualFold(k, "alias."+name) || strings.EqualFold(k, "alias."+name+".command") {
				value, found, given = v, true, true
			}
		}
		switch {
		case found && strings.HasPrefix(value, "!") && !given && !seen[name]:
			return words, expanded, name + " = " + value
		case !found || strings.HasPrefix(value, "!") || seen[name]:
			return words, expanded, ""
		}
		seen[name] = true
		vw, ok := gitAliasWords(value)
		if !ok {
			return words, expanded, "" // git refuses it: nothing runs
		}
		out := append([]Word{}, words[:sub]...)
		for _, w := range vw {
			out = append(out, Word{Raw: w, Value: w, Static: true})
		}
		words, expanded = append(out, words[sub+1:]...), true
	}
}

// GitShellAlias returns "NAME = VALUE" for a shell alias of aliases (a
// repository's configuration) that the command, in any reading, runs:
// named as its subcommand, or reached through aliases, its own
// (-c alias.NAME=...) or the configuration's.
func (c *Command) GitShellAlias(aliases map[string]string) (string, bool) {
	for _, v := range c.variants() {
		if _, _, shell := gitExpand(v, aliases); shell != "" {
			return shell, true
		}
	}
	return "", false
}

// gitAliasWords splits the value of an alias into the words git runs
// (its split_cmdline): at blanks outside quotes, with single quotes
// keeping what they hold and a backslash elsewhere escaping the next
// character. ok is false for a value git refuses (an unclosed quote, a
// backslash at the end). The empty words a leading or trailing blank
// makes are left out.
func gitAliasWords(s string) (words []string, ok bool) {
	var w strings.Builder
	var quote byte
	end := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			end()
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == quote:
			quote = 0
		case c == '\\' && quote != '\'':
			if i++; i == len(s) {
				return nil, false
			}
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
	}
	end()
	return words, quote == 0
}

// GitAliasShell returns the "!" value an alias of aliases that name
// stands for leads to, through the aliases its value names (a1 = a2,
// a2 = !rm x), and whether there is one.
func GitAliasShell(aliases map[string]string, name string) (string, bool) {
	name = strings.ToLower(name) // git's keys ignore case
	for seen := map[string]bool{}; !seen[name]; {
		seen[name] = true
		v, ok := aliases[name]
		if !ok {
			return "", false
		}
		if strings.HasPrefix(v, "!") {
			return v, true
		}
		vw, ok := gitAliasWords(v)
		if !ok || len(vw) == 0 {
			return "", false // git refuses it: nothing runs
		}
		name = strings.ToLower(vw[0])
	}
	return "", false
}

// GitConfigUnseen returns a global option of a git command, in any
// reading, that sets configuration the gate cannot read: an include
// (-c include.path=FILE, -c includeIf.COND.path=FILE), whose file may
// define aliases (zz = push) and the programs git runs, or --config-env,
// whose value is an environment variable's; "" if none. The command's
// aliases are then not known.
func (c *Command) GitConfigUnseen() string {
	for _, v := range c.variants() {
		if len(v) < 2 || !v[0].Static || path.Base(v[0].Value) != "git" {
			continue
		}
		parsed, _, _ := gitGlobals.parse(v[1:])
		for _, a := range parsed {
			switch {
			case a.opt == "--config-env":
				return "--config-env " + a.val
			case a.opt != "-c":
			case a.word != nil && !a.word.Static:
				return "-c " + a.word.Raw
			default:
				key, _, _ := strings.Cut(strings.ToLower(a.val), "=")
				if key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path") {
					return "-c " + a.val
				}
			}
		}
	}
	return ""
}

// GitAliasedCommands returns the command with its git alias expanded,
// for each reading of it that names one: an alias of aliases (a
// repository's configuration, name → value) or one it sets itself with
// -c alias.NAME=VALUE. What git runs for git lg, where lg = log
// --output=FILE, writes FILE: the caller checks each one's writes too.
func (c *Command) GitAliasedCommands(aliases map[string]string) []*Command {
	var out []*Command
	for _, v := range c.variants() {
		if a, ok := gitAliased(v, aliases); ok {
			out = append(out, &Command{Words: a})
		}
	}
	return out
}

// WithGitAliases returns the command's deny forms with git aliases from
// a repository's configuration expanded (alias name → value), for the
// caller that has read that configuration.
func (c *Command) WithGitAliases(aliases map[string]string) []string {
	var out []string
	for _, v := range c.variants() {
		if a, ok := gitAliased(v, aliases); ok {
			cmd := &Command{Words: a}
			out = append(out, cmd.DenyForms()...)
		}
	}
	return out
}
