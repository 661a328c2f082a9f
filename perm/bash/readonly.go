package bash

import (
	"slices"
	"strings"
)

// ReadOnly reports whether the command is known to only read, by a
// conservative built-in list, and if so the paths it reads (option values
// known to name files, and operands that are paths) with quotes removed.
// A "~" that the shell expands to $HOME is kept as "~"; a literal
// (quoted) "~" at the start of a path is returned as "./~" so the two
// cannot be confused. A command that reads the current directory or
// standard input without naming it (ls, grep -r x, cat) returns no paths.
//
// ok is false for a program not on the list, a risky option (one that
// writes, runs a program or blocks), a word that is not static or is a
// glob pattern (its expansion is unknown), and anything AllowForm would
// not strip (assignments other than harmless ones, wrappers other than
// timeout, time, nice, nohup and stdbuf). It judges the words only:
// output redirects are listed in Script.Redirects.
func (c *Command) ReadOnly() (paths []string, ok bool) {
	words, ok := c.narrow()
	if !ok {
		return nil, false
	}
	for _, w := range words {
		if !w.Static || w.Glob {
			return nil, false
		}
	}
	prog, args := words[0].Value, words[1:]
	if fn, found := readOnlyFuncs[prog]; found {
		return fn(args)
	}
	if r, found := readOnlyRules[prog]; found {
		return r.eval(args)
	}
	return nil, false
}

// roRule is the read-only rule of a program with getopt-style options.
type roRule struct {
	opts     optSpec
	reject   []string // options that disqualify: "-o" exactly, "--output" or any abbreviation
	fileOpts []string // options whose argument is a file read
	// script lists options that give the pattern or script, after which
	// the first operand is a path like the rest.
	script []string
	// firstNotPath: the first operand is a pattern or script (grep's).
	firstNotPath bool
	noPaths      bool // operands are not paths (echo's words, tr's sets)
	noOperands   bool // any operand disqualifies (hostname NAME sets it)
	maxOperands  int  // more operands disqualify (uniq's second is its output); 0: no limit
	// check is a further condition on the parsed arguments, if any.
	check func(args []arg) bool
}

func (r *roRule) eval(words []Word) ([]string, bool) {
	spec := r.opts
	spec.permute = true
	args, _, err := spec.parse(words)
	if err != nil || r.check != nil && !r.check(args) {
		return nil, false
	}
	var (
		paths    []string
		operands []arg
		scripted bool
	)
	for _, a := range args {
		switch {
		case a.opt == "":
			operands = append(operands, a)
		case r.rejects(a.opt):
			return nil, false
		case slices.Contains(r.fileOpts, a.opt) && a.hasVal:
			paths = append(paths, pathOf(a))
		}
		scripted = scripted || slices.Contains(r.script, a.opt)
	}
	if r.firstNotPath && !scripted && len(operands) > 0 {
		operands = operands[1:]
	}
	if r.noOperands && len(operands) > 0 || r.maxOperands > 0 && len(operands) > r.maxOperands {
		return nil, false
	}
	if !r.noPaths {
		for _, a := range operands {
			paths = append(paths, pathOf(a))
		}
	}
	return paths, true
}

// rejects reports whether opt is a rejected option. Long options are
// compared as abbreviations too, so `--out=f` is caught as `--output`.
func (r *roRule) rejects(opt string) bool {
	for _, rej := range r.reject {
		if opt == rej || strings.HasPrefix(rej, "--") && abbrev(opt, rej, 3) {
			return true
		}
	}
	return false
}

// pathOf returns the path an argument names; see ReadOnly for "~".
func pathOf(a arg) string {
	if strings.HasPrefix(a.val, "~") && (a.word == nil || !a.word.Tilde) {
		return "./" + a.val
	}
	return a.val
}

// grepRule is shared by grep, egrep and fgrep.
var grepRule = &roRule{
	opts: optSpec{
		args: "efmABCdD",
		longArgs: []string{"regexp", "file", "max-count", "after-context", "before-context", "context",
			"devices", "directories", "exclude", "exclude-dir", "exclude-from", "include", "label",
			"binary-files", "group-separator"},
	},
	fileOpts:     []string{"-f", "--file", "--exclude-from"},
	script:       []string{"-e", "-f", "--regexp", "--file"},
	firstNotPath: true,
}

// sumRule is shared by the checksum programs: -c reads the files listed
// in its operand, which are paths this analysis cannot see.
var sumRule = &roRule{reject: []string{"-c", "--check"}, opts: optSpec{long: []string{"check"}}}

var readOnlyRules = map[string]*roRule{
	"ls":   {opts: optSpec{args: "ITw", longArgs: []string{"block-size", "color", "format", "hide", "ignore", "indicator-style", "quoting-style", "sort", "tabsize", "time", "time-style", "width"}}},
	"cat":  {},
	"head": {opts: optSpec{args: "nc", longArgs: []string{"bytes", "lines"}}},
	"tail": {
		opts:   optSpec{args: "ncs", long: []string{"follow", "retry"}, longArgs: []string{"bytes", "lines", "pid", "sleep-interval", "max-unchanged-stats"}},
		reject: []string{"-f", "-F", "--follow"},
	},
	"wc":       {opts: optSpec{longArgs: []string{"files0-from"}}, fileOpts: []string{"--files0-from"}},
	"grep":     grepRule,
	"egrep":    grepRule,
	"fgrep":    grepRule,
	"echo":     {noPaths: true},
	"printf":   {noPaths: true, reject: []string{"-v"}, opts: optSpec{args: "v"}},
	"pwd":      {noPaths: true},
	"true":     {noPaths: true},
	"false":    {noPaths: true},
	"stat":     {opts: optSpec{args: "c", longArgs: []string{"format", "printf"}}},
	"file":     {opts: optSpec{args: "emfFP", long: []string{"compile"}, longArgs: []string{"magic-file", "files-from", "separator", "parameter", "exclude"}}, reject: []string{"-C", "--compile"}, fileOpts: []string{"-m", "-f", "--magic-file", "--files-from"}},
	"which":    {noPaths: true},
	"type":     {noPaths: true},
	"basename": {noPaths: true, opts: optSpec{args: "s", longArgs: []string{"suffix"}}},
	"dirname":  {noPaths: true},
	"realpath": {opts: optSpec{longArgs: []string{"relative-to", "relative-base"}}, fileOpts: []string{"--relative-to", "--relative-base"}},
	"readlink": {},
	"du":       {opts: optSpec{args: "BdtX", longArgs: []string{"block-size", "exclude", "exclude-from", "files0-from", "max-depth", "threshold", "time-style"}}, fileOpts: []string{"-X", "--exclude-from", "--files0-from"}},
	"df":       {opts: optSpec{args: "Btx", longArgs: []string{"block-size", "output", "type", "exclude-type"}}},
	"tree": {
		opts:   optSpec{args: "LPIoH", longArgs: []string{"filelimit", "timefmt", "sort", "charset", "fromfile"}},
		reject: []string{"-o"},
	},
	"sort": {
		opts:     optSpec{args: "kotST", longArgs: []string{"key", "output", "field-separator", "buffer-size", "temporary-directory", "batch-size", "compress-program", "files0-from", "parallel", "random-source", "sort"}},
		reject:   []string{"-o", "--output", "--compress-program", "-T", "--temporary-directory"},
		fileOpts: []string{"--files0-from", "--random-source"},
	},
	"uniq": {opts: optSpec{args: "fsw", longArgs: []string{"skip-fields", "skip-chars", "check-chars", "all-repeated", "group"}}, maxOperands: 1},
	"cut":  {opts: optSpec{args: "bcdf", longArgs: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}},
	"tr":   {noPaths: true},
	"diff": {
		opts:     optSpec{args: "CUIFLxX", longArgs: []string{"context", "unified", "ignore-matching-lines", "show-function-line", "label", "exclude", "exclude-from", "from-file", "to-file", "line-format", "width", "tabsize", "color", "palette"}},
		fileOpts: []string{"-X", "--exclude-from", "--from-file", "--to-file"},
	},
	"cmp":     {opts: optSpec{args: "in", longArgs: []string{"ignore-initial", "bytes"}}},
	"comm":    {opts: optSpec{longArgs: []string{"output-delimiter"}}},
	"nl":      {opts: optSpec{args: "bdfhilnsvw"}},
	"od":      {opts: optSpec{args: "AjNtwS", longArgs: []string{"address-radix", "skip-bytes", "read-bytes", "format", "width", "strings"}}},
	"xxd":     {opts: optSpec{args: "cgloOsn", long: []string{"revert"}}, reject: []string{"-r", "--revert"}, maxOperands: 1},
	"hexdump": {opts: optSpec{args: "efns"}, fileOpts: []string{"-f"}},
	"md5sum":  sumRule, "sha1sum": sumRule, "sha224sum": sumRule, "sha256sum": sumRule,
	"sha384sum": sumRule, "sha512sum": sumRule, "b2sum": sumRule, "cksum": sumRule,
	"date": {
		opts:     optSpec{args: "dfrsI", longArgs: []string{"date", "file", "reference", "set", "iso-8601", "rfc-3339", "resolution"}},
		reject:   []string{"-s", "--set"},
		fileOpts: []string{"-f", "--file", "-r", "--reference"},
		noPaths:  true,
		// An operand other than +FORMAT sets the clock.
		check: func(args []arg) bool {
			return !slices.ContainsFunc(args, func(a arg) bool { return a.opt == "" && !strings.HasPrefix(a.val, "+") })
		},
	},
	"whoami":   {noOperands: true},
	"id":       {noPaths: true},
	"uname":    {noOperands: true},
	"hostname": {noOperands: true, opts: optSpec{args: "F", long: []string{"file"}}, reject: []string{"-F", "--file", "-b", "--boot"}},
	"env":      {noOperands: true, reject: []string{"-u", "-S", "-C", "-i", "--unset", "--split-string", "--chdir", "--ignore-environment"}, opts: optSpec{args: "uSC"}},
	"printenv": {noPaths: true},
	"less": {
		opts:   optSpec{args: "bhjkoOpPtTxyz#", longArgs: []string{"log-file", "LOG-FILE", "lesskey-file", "pattern", "prompt", "tag", "tag-file"}},
		reject: []string{"-o", "-O", "--log-file", "--LOG-FILE"},
		check:  noPlusCommands,
	},
	"more": {check: noPlusCommands, opts: optSpec{args: "n"}},
	"rg": {
		opts: optSpec{
			args: "efgtTmABCMjrEd",
			long: []string{"files", "type-list", "search-zip", "pre"},
			longArgs: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "type-add", "max-count",
				"after-context", "before-context", "context", "max-columns", "threads", "replace", "encoding",
				"max-depth", "max-filesize", "engine", "sort", "sortr", "colors", "color", "context-separator",
				"field-match-separator", "field-context-separator", "path-separator", "ignore-file", "pre", "pre-glob",
				"hostname-bin", "dfa-size-limit", "regex-size-limit", "hyperlink-format"},
		},
		reject:       []string{"--pre", "--pre-glob", "--hostname-bin", "-z", "--search-zip"},
		fileOpts:     []string{"-f", "--file", "--ignore-file"},
		script:       []string{"-e", "-f", "--regexp", "--file", "--files", "--type-list"},
		firstNotPath: true,
	},
}

// noPlusCommands rejects less and more "+cmd" operands: they run pager
// commands, which can include shell escapes.
func noPlusCommands(args []arg) bool {
	return !slices.ContainsFunc(args, func(a arg) bool { return a.opt == "" && strings.HasPrefix(a.val, "+") })
}

// readOnlyFuncs are the programs whose arguments need more than roRule.
var readOnlyFuncs = map[string]func([]Word) ([]string, bool){
	"find": findReadOnly,
	"sed":  sedReadOnly,
	"jq":   jqReadOnly,
	"git":  gitReadOnly,
}

// findRisky are find's actions that write files, delete or run programs.
var findRisky = map[string]bool{
	"-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true,
	"-fprint": true, "-fprint0": true, "-fprintf": true, "-fls": true,
}

// findReadOnly: `find [-H|-L|-P] [-D opts] [-Olevel] [path...] [expression]`.
// The paths are the words before the expression starts.
func findReadOnly(words []Word) ([]string, bool) {
	i := 0
	for ; i < len(words); i++ {
		v := words[i].Value
		if v == "-D" {
			i++
		} else if v != "-H" && v != "-L" && v != "-P" && !strings.HasPrefix(v, "-O") {
			break
		}
	}
	var paths []string
	for ; i < len(words); i++ {
		v := words[i].Value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == "," {
			break
		}
		paths = append(paths, pathOf(arg{val: v, word: &words[i]}))
	}
	for ; i < len(words); i++ {
		v := words[i].Value
		if findRisky[v] {
			return nil, false
		}
		if v == "-files0-from" && i+1 < len(words) {
			paths = append(paths, pathOf(arg{val: words[i+1].Value, word: &words[i+1]}))
		}
	}
	return paths, true
}

// jqReadOnly: the first operand is the filter, unless -f (alone or in a
// cluster) makes it a filter file; --slurpfile and --rawfile read files;
// operands after --args or --jsonargs are values, not files.
func jqReadOnly(words []Word) ([]string, bool) {
	var (
		paths    []string
		operands []*Word
		fromFile bool
		values   int = -1 // operands from this index on are values
	)
	path := func(w *Word) { paths = append(paths, pathOf(arg{val: w.Value, word: w})) }
	for i := 0; i < len(words); i++ {
		v := words[i].Value
		switch {
		case v == "--arg" || v == "--argjson":
			i += 2
		case v == "--slurpfile" || v == "--rawfile":
			if i+2 < len(words) {
				path(&words[i+2])
			}
			i += 2
		case v == "--from-file":
			fromFile = true
		case v == "-L" || v == "--indent":
			i++
		case v == "--args" || v == "--jsonargs":
			if values < 0 {
				values = len(operands)
			}
		case v == "--":
			for j := i + 1; j < len(words); j++ {
				operands = append(operands, &words[j])
			}
			i = len(words)
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			fromFile = fromFile || strings.Contains(v, "f")
		default:
			operands = append(operands, &words[i])
		}
	}
	for i, w := range operands {
		if i == 0 && !fromFile || values >= 0 && i >= values && i > 0 {
			continue
		}
		path(w)
	}
	return paths, true
}
