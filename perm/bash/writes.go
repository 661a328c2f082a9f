package bash

import (
	"path"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// writers are programs that write, delete or link the files their operands
// name, with the options of theirs that take an argument.
var writers = lazy.Value[map[string]optSpec]{New: func() map[string]optSpec {
	return map[string]optSpec{
		// cp, mv, install and ln name every long option (coreutils 9), so
		// that an abbreviation resolves as the program resolves it; an
		// option with an optional value (--backup[=CONTROL], --context[=CTX])
		// takes none from the next word.
		"cp": {args: "St", permute: true, longArgs: []string{"target-directory", "suffix", "no-preserve", "sparse"},
			long: []string{"archive", "attributes-only", "backup", "context", "copy-contents", "debug", "dereference", "force",
				"help", "interactive", "keep-directory-symlink", "link", "no-clobber", "no-dereference", "no-target-directory",
				"one-file-system", "parents", "preserve", "recursive", "reflink", "remove-destination", "strip-trailing-slashes",
				"symbolic-link", "update", "verbose", "version"}},
		"mv": {args: "St", permute: true, longArgs: []string{"target-directory", "suffix"},
			long: []string{"backup", "context", "debug", "exchange", "force", "help", "interactive", "no-clobber", "no-copy",
				"no-target-directory", "strip-trailing-slashes", "update", "verbose", "version"}},
		"install": {flags: "bcCdDpsTvZ", args: "gmoSt", permute: true, longArgs: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"},
			long: []string{"backup", "compare", "context", "debug", "directory", "help", "no-target-directory", "preserve-context",
				"preserve-timestamps", "strip", "verbose", "version"}},
		"ln": {args: "St", permute: true, longArgs: []string{"suffix", "target-directory"},
			long: []string{"backup", "directory", "force", "help", "interactive", "logical", "no-dereference", "no-target-directory",
				"physical", "relative", "symbolic", "verbose", "version"}},
		"tee":    {permute: true},
		"rm":     {permute: true},
		"rmdir":  {permute: true},
		"unlink": {permute: true},
		// shred's -u is a flag, and --remove[=HOW] takes its value
		// only after "=" (coreutils 9.1).
		"shred": {args: "ns", longArgs: []string{"iterations", "size", "random-source"},
			long: []string{"exact", "force", "help", "remove", "verbose", "version", "zero"}, permute: true},
		"touch":    {args: "dtr", longArgs: []string{"date", "reference"}, permute: true},
		"truncate": {args: "sr", longArgs: []string{"size", "reference"}, permute: true},
		"mkdir":    {args: "m", longArgs: []string{"mode"}, long: []string{"context", "parents", "verbose", "help", "version"}, permute: true},
		"chmod":    {longArgs: []string{"reference"}, permute: true},
		"chown":    {longArgs: []string{"reference", "from"}, permute: true},
		"chgrp":    {longArgs: []string{"reference"}, permute: true},
		// GNU sed 4.9 (SHORTOPTS "bsnrzuEe:f:l:i::V:"), every long
		// option named so that an abbreviation resolves as sed resolves
		// it (sed --in f); -i takes its suffix only attached, and -E is
		// a flag. -V (its value not documented) is read as a flag: the
		// word after it is then taken for one more operand.
		"sed": {args: "efl", attached: "i", permute: true, longArgs: []string{"expression", "file", "line-length"},
			long: []string{"binary", "debug", "follow-symlinks", "help", "in-place", "null-data", "posix", "quiet",
				"regexp-extended", "sandbox", "separate", "silent", "unbuffered", "version", "zero-terminated"}},
		// sort writes -o's file; uniq its second operand. Every long
		// option is named (coreutils 9.1), so that an abbreviation
		// resolves as the program resolves it (sort --out=f).
		"sort": {flags: "bcCdfghimMnrRsuVz", args: "kSotT", permute: true, longArgs: []string{"random-source", "sort", "batch-size", "compress-program",
			"files0-from", "key", "output", "buffer-size", "field-separator", "temporary-directory", "parallel"},
			long: []string{"ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
				"ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort", "reverse",
				"version-sort", "check", "debug", "merge", "stable", "unique", "zero-terminated", "help", "version"}},
		"uniq": {args: "fsw", permute: true, longArgs: []string{"skip-fields", "skip-chars", "check-chars"},
			long: []string{"count", "repeated", "all-repeated", "group", "ignore-case", "unique", "zero-terminated", "help", "version"}},
		"dd":  {permute: true},
		"git": {permute: true},
	}
}}

// downloader returns the function that reads a downloader's writes from
// its words (DataWrites reports the files the URL names), if prog is one.
func downloader(prog string) (func([]Word) ([]Word, bool, string), bool) {
	switch prog {
	case "curl":
		return curlWrites, true
	case "wget":
		return wgetWrites, true
	}
	return nil, false
}

// Writes returns the files the command writes, deletes or links, in any of
// its broad readings (so sudo cp and xargs rm count): cp/mv/install/ln
// destinations and ln's link targets, tee, rm, touch and similar operands,
// sed -i files and their backups, the archive tar, jar, 7z
// or ar makes or changes, dd of=, what curl's and wget's
// options name (curlWrites, wgetWrites), sort -o, uniq's second operand
// and git --output. dynamic is set
// when such a target is not static. The engine checks each as an Edit.
func (c *Command) Writes() (targets []Word, dynamic bool) {
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static {
			continue
		}
		prog := path.Base(v[0].Value)
		if ts, dyn, ok := ownWrites(prog, v[1:]); ok {
			targets = append(targets, ts...)
			dynamic = dynamic || dyn
			continue
		}
		spec, ok := writers.Get()[prog]
		if !ok {
			continue
		}
		args, err := writerArgs(&spec, v)
		if err != nil {
			dynamic = true // an option or operand that is not static
		}
		ts, dyn := writeTargets(prog, args)
		targets = append(targets, ts...)
		dynamic = dynamic || dyn
		if prog == "git" {
			ts, dyn := gitConfigTargets(v)
			targets = append(targets, ts...)
			dynamic = dynamic || dyn
			ts, dyn = gitOutputTargets(v)
			targets = append(targets, ts...)
			dynamic = dynamic || dyn
			ts, dyn = gitHomeTargets(v)
			targets = append(targets, ts...)
			dynamic = dynamic || dyn
		}
	}
	// find runs an -exec command with each {} the path it finds, and an
	// -execdir one in that path's directory: what such a command (or an
	// xargs -I command) writes is not what its words name.
	if len(targets) > 0 && !dynamic {
		dynamic = slices.ContainsFunc(targets, func(w Word) bool { return strings.Contains(w.Value, "{}") }) ||
			slices.ContainsFunc(c.variants(), findInDirs)
	}
	return targets, dynamic
}

// ownWrites returns what prog writes for the programs whose writes a
// function of their own reads from their words args (their options,
// their archive, their output), and ok; ok is false for the others,
// which the writers table describes.
func ownWrites(prog string, args []Word) (ts []Word, dynamic, ok bool) {
	for _, f := range [...]func(string, []Word) ([]Word, bool, bool){compressWrites, archiveMakerWrites, tarArchiveWrites, goToolWrites} {
		if ts, dynamic, ok := f(prog, args); ok {
			return ts, dynamic, true
		}
	}
	switch prog {
	case "mktemp":
		ts, dynamic = mktempWrites(args)
		return ts, dynamic, true
	case "find":
		ts, dynamic = findFileWrites(args)
		return ts, dynamic, true
	}
	if f, ok := downloader(prog); ok {
		ts, dynamic, _ = f(args)
		return ts, dynamic, true
	}
	return nil, false, false
}

// findFileWrites returns the files find's own actions write: -fprint,
// -fprint0, -fls and -fprintf name the file next (-fprintf's format
// after it). The words of an -exec command line are its own reading's.
func findFileWrites(args []Word) (ts []Word, dynamic bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case !w.Static:
			// It may be any action, and the word after it its file;
			// unquoted, it may be split into both.
			if i+1 < len(args) || !quotedWhole(w.Raw) {
				dynamic = true
			}
		case findActions.Get()[w.Value]:
			for i++; i < len(args) && !(args[i].Static && (args[i].Value == ";" || args[i].Value == "+")); i++ {
			}
		case w.Value == "-fprint" || w.Value == "-fprint0" || w.Value == "-fls" || w.Value == "-fprintf":
			if i+1 >= len(args) {
				break
			}
			i++
			if !args[i].Static {
				dynamic = true
				continue
			}
			ts = append(ts, args[i])
		}
	}
	return ts, dynamic
}

// quotedWhole reports a word written as one double-quoted string
// ("$x"), which the shell does not split.
func quotedWhole(raw string) bool {
	return len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && !strings.Contains(raw[1:len(raw)-1], `"`)
}

// findInDirs reports a find command line (v) that may run a command in
// the directory of each path it finds: an -execdir or -okdir action, or
// a word that is not static, which may be one.
func findInDirs(v []Word) bool {
	if len(v) == 0 || !v[0].Static || path.Base(v[0].Value) != "find" {
		return false
	}
	return slices.ContainsFunc(v[1:], func(w Word) bool { return !w.Static || w.Value == "-execdir" || w.Value == "-okdir" })
}

// writerArgs parses the words after a writer's name in the reading v with
// spec: its options and operands, the words from where parsing stopped
// taken as operands. err is the parse's: a word that is not static.
func writerArgs(spec *optSpec, v []Word) ([]arg, error) {
	args, rest, err := spec.parse(v[1:])
	for _, w := range v[1+rest:] {
		args = append(args, arg{val: w.Value, word: &w})
	}
	return args, err
}

// LinkTargets returns where the links an ln command makes lead, in any of
// its readings, for each static target that is relative: a symbolic
// link's target is read from the link's directory, not the command's, so
// ln -s ../secrets d/x makes d/x lead to ./secrets. Each is given from
// the destination's directory and, in case the destination is a directory
// the link is made in, from the destination itself (or -t's directory),
// joined as written ("d/../secrets"): the caller resolves them.
func (c *Command) LinkTargets() []string {
	var out []string
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static || path.Base(v[0].Value) != "ln" {
			continue
		}
		spec := writers.Get()["ln"]
		args, err := writerArgs(&spec, v)
		if err != nil {
			continue // a word that is not static: unsure, and asked as such
		}
		var targets, dirs []string
		for _, a := range args {
			switch a.opt {
			case "":
				targets = append(targets, a.val)
			case "-t", "--target-directory":
				dirs = append(dirs, a.val)
			}
		}
		if len(dirs) == 0 {
			if len(targets) < 2 {
				continue // the link is made here: its target reads as written
			}
			dest := targets[len(targets)-1]
			targets = targets[:len(targets)-1]
			dirs = append(dirs, path.Dir(dest), dest)
		}
		for _, t := range targets {
			if t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
				continue
			}
			for _, d := range dirs {
				if d != "" && d != "." {
					out = append(out, d+"/"+t)
				}
			}
		}
	}
	return out
}

func writeTargets(prog string, args []arg) (ts []Word, dynamic bool) {
	var operands []arg
	add := func(a arg) {
		switch {
		case a.word == nil:
			ts = append(ts, Word{Raw: a.val, Value: a.val, Static: true})
		case !a.word.Static:
			dynamic = true
		default:
			ts = append(ts, *a.word)
		}
	}
	target := false
	for _, a := range args {
		switch {
		case a.opt == "":
			operands = append(operands, a)
		case (a.opt == "-t" || a.opt == "--target-directory") && prog != "sort": // sort -t SEP
			target = true
			add(a)
		case prog == "git" && (a.opt == "--output" || a.opt == "-o"),
			prog == "sort" && (a.opt == "-o" || a.opt == "--output"),
			// sort's temporary files go in -T's directory.
			prog == "sort" && (a.opt == "-T" || a.opt == "--temporary-directory"):
			add(a)
		}
	}
	switch prog {
	case "install":
		if hasOpt(args, "-d", "--directory") {
			for _, o := range operands {
				add(o) // install -d makes every directory it names
			}
			break
		}
		fallthrough
	case "cp", "mv":
		if !target && len(operands) >= 2 {
			add(operands[len(operands)-1])
		}
	case "ln":
		// The link, and what it points to: a link to ~/.bashrc makes a
		// later write to the link a write to ~/.bashrc.
		for _, o := range operands {
			add(o)
		}
	case "tee", "rm", "rmdir", "unlink", "shred", "touch", "truncate", "mkdir":
		for _, o := range operands {
			add(o)
		}
	case "uniq":
		if len(operands) >= 2 {
			add(operands[1]) // uniq [INPUT [OUTPUT]]
		}
	case "chmod", "chown", "chgrp":
		// The first operand is the mode or the owner, unless
		// --reference gives it, or, for chmod, an option word does
		// (chmod -w f, chmod -w,u+x f): then every operand is a file.
		first := 1
		if hasOpt(args, "--reference") || prog == "chmod" && chmodModeOption(args) {
			first = 0
		}
		for i, o := range operands {
			if i >= first {
				add(o)
			}
		}
	case "sed":
		if !sedInPlace(args) {
			break
		}
		script := !hasOpt(args, "-e", "--expression", "-f", "--file")
		suffixes := sedSuffixes(args)
		for i, o := range operands {
			if i == 0 && script {
				continue
			}
			add(o)
			if len(suffixes) == 0 || o.word == nil || !o.word.Static {
				continue
			}
			// The file as it was is renamed to its backup's name.
			for _, sfx := range suffixes {
				b, ok := sedBackup(*o.word, sfx)
				if !ok || hasOpt(args, "--follow-symlinks") {
					dynamic = true // named from where a link leads
					continue
				}
				ts = append(ts, b)
			}
		}
	case "dd":
		for _, o := range operands {
			if v, ok := strings.CutPrefix(o.val, "of="); ok {
				w := Word{Raw: v, Value: v, Static: o.word == nil || o.word.Static}
				if w.Static {
					ts = append(ts, w)
				} else {
					dynamic = true
				}
			}
		}
	}
	return ts, dynamic
}

// chmodModeOption reports whether a word chmod reads as an option holds
// a mode: coreutils' chmod takes a short option of a mode's letters,
// digits or operators ("-w", "-w,u+x", "-x,a+s") for the whole word as
// the mode, and every operand is then a file.
func chmodModeOption(args []arg) bool {
	for _, a := range args {
		if len(a.opt) == 2 && a.opt[0] == '-' && strings.IndexByte("rwxXstugoa,+=01234567", a.opt[1]) >= 0 {
			return true
		}
	}
	return false
}

func sedInPlace(args []arg) bool { return hasOpt(args, "-i", "--in-place") }

// sedScriptWrites: a sed script's w and W commands, and s's w flag,
// write the file they name; its e command, and s's e flag, run a shell
// command. Only a script of the verified subset (sedPrintOnly), or one
// --sandbox refuses those in, writes no more than -i's files.
func sedScriptWrites(words []Word) string {
	spec := writers.Get()["sed"]
	args, rest, err := spec.parse(words)
	if err != nil {
		return "script"
	}
	for i := rest; i < len(words); i++ {
		args = append(args, arg{val: words[i].Value, word: &words[i]})
	}
	var operands []arg
	for _, a := range args {
		if a.opt == "" {
			operands = append(operands, a)
		}
	}
	if !sedScriptKnown(args, operands) {
		return "script"
	}
	return ""
}

// sedScriptKnown reports whether what a sed command line's script does
// besides printing and editing in place is known: --sandbox, or every
// script it is given (-e's, or the first operand) static and in the
// subset sedPrintOnly verifies. A script file (-f) is not known.
func sedScriptKnown(args, operands []arg) bool {
	if hasOpt(args, "--sandbox") {
		return true
	}
	if hasOpt(args, "-f", "--file") {
		return false
	}
	var scripts []string
	for _, a := range args {
		if a.opt == "-e" || a.opt == "--expression" {
			if a.word != nil && !a.word.Static {
				return false
			}
			scripts = append(scripts, a.val)
		}
	}
	if scripts == nil {
		if len(operands) == 0 {
			return true // no script: sed refuses to run
		}
		if operands[0].word != nil && !operands[0].word.Static {
			return false
		}
		scripts = []string{operands[0].val}
	}
	return sedPrintOnly(strings.Join(scripts, "\n"))
}

// sedSuffixes returns the backup suffixes sed -i and --in-place give
// (each of them: sed keeps the last).
func sedSuffixes(args []arg) []string {
	var out []string
	for _, a := range args {
		if (a.opt == "-i" || a.opt == "--in-place") && a.val != "" {
			out = append(out, a.val)
		}
	}
	return out
}

// sedBackup is the name GNU sed renames the file w names to before it
// edits it in place with the backup suffix sfx: sfx with each "*" the
// file's name as given, or the name and sfx after it where sfx has none
// (sed -i'bak/*' f backs up to bak/f, -i'/tmp/*' to /tmp/f, -irc .bash
// to .bashrc). ok is false where the name is not known as text: a glob,
// or a "~" the shell expands that the suffix moves from the start.
func sedBackup(w Word, sfx string) (Word, bool) {
	if !strings.Contains(sfx, "*") {
		sfx = "*" + sfx
	}
	if w.Glob || w.Tilde && (!strings.HasPrefix(sfx, "*") || strings.Count(sfx, "*") > 1) {
		return Word{}, false
	}
	v := strings.ReplaceAll(sfx, "*", w.Value)
	return Word{Raw: v, Value: v, Static: true, Tilde: w.Tilde}, true
}

func hasOpt(args []arg, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a.opt == o {
				return true
			}
		}
	}
	return false
}

// LinkKind says what a placement puts at its destination.
type LinkKind uint8

const (
	Copies    LinkKind = iota // the files themselves: a copy or a move
	SymLinks                  // symbolic links to the sources (ln -s, cp -s)
	HardLinks                 // hard links to the sources (ln, cp -l)
)

// Placement is how one reading of a cp, mv, install or ln command puts
// its sources in place. Each source lands at Dest itself, or, where Dest
// is a directory, at Dest/basename(source); a source whose basename is
// "." or ".." (stage/.) puts what is in it there. Unless the command says
// which (Into, Onto), the caller decides it from the file system.
type Placement struct {
	Prog    string
	Sources []Word
	Dest    Word
	// Into: Dest is a directory the sources land in (-t, several
	// sources, ln with one operand, which links into the current
	// directory). Onto: -T, Dest is the path itself.
	Into, Onto bool
	// Tree: a directory source lands with everything in it (cp -r, -R,
	// -a; mv).
	Tree bool
	// Parents: cp --parents, a source lands at Dest/source as written.
	Parents bool
	// Link says whether the command makes links instead (ln, cp -s, cp
	// -l); Relative is ln -r, whose symbolic links lead where their
	// source names from the current directory, not from the link's.
	Link     LinkKind
	Relative bool
	// Deref: cp -L (or -H, for the sources named), links in a source
	// are followed, not copied.
	Deref bool
	// Backup: an existing destination is first renamed to its name with
	// a suffix: Suffix where SuffixSet (-S), else SIMPLE_BACKUP_SUFFIX or
	// "~".
	Backup    bool
	Suffix    string
	SuffixSet bool
	// Unsure says why the paths the command writes are not known: a
	// source or destination holds find's "{}", which find replaces.
	Unsure string
}

// Placements returns how the command places files, in each of its
// readings whose words are static (a reading with a word that is not is
// dynamic to Writes, which the caller asks as such): cp, mv, install
// (without -d), ln and git mv.
func (c *Command) Placements() []Placement {
	var out []Placement
	// git -C d mv a b moves d/a: its reading without the global options
	// names other paths, and is left out.
	globals := slices.ContainsFunc(c.variants(), func(v []Word) bool {
		_, _, sub, ok := gitDirs(v)
		return len(v) > 0 && v[0].Static && path.Base(v[0].Value) == "git" && ok && sub > 1
	})
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static {
			continue
		}
		prog := path.Base(v[0].Value)
		if prog == "git" {
			// git mv moves as mv does.
			if _, _, sub, ok := gitDirs(v); globals && ok && sub == 1 {
				continue
			}
			if args, unsure, ok := gitMv(v); ok {
				if p, ok := placement("mv", args); ok {
					p.Prog = "git mv"
					if unsure != "" {
						p.Unsure = unsure
					}
					out = append(out, p)
				}
			}
			continue
		}
		switch prog {
		case "cp", "mv", "install", "ln":
		default:
			continue
		}
		spec := writers.Get()[prog]
		args, err := writerArgs(&spec, v)
		if err != nil {
			continue
		}
		if p, ok := placement(prog, args); ok {
			out = append(out, p)
		}
	}
	return out
}

// placement reads one reading's parsed arguments; false for install -d,
// which places nothing (Writes has its directories), for a word that is
// not static, and for a command missing its operands.
func placement(prog string, args []arg) (Placement, bool) {
	p := Placement{Prog: prog, Tree: prog == "mv"}
	if prog == "ln" {
		p.Link = HardLinks
	}
	word := func(a arg) (Word, bool) {
		if a.word == nil {
			return Word{Raw: a.val, Value: a.val, Static: true}, true
		}
		return *a.word, a.word.Static
	}
	var ops []Word
	dest, into := Word{}, false
	for _, a := range args {
		switch a.opt {
		case "":
			w, ok := word(a)
			if !ok {
				return Placement{}, false
			}
			ops = append(ops, w)
		case "-t", "--target-directory":
			w, ok := word(a)
			if !ok {
				return Placement{}, false
			}
			dest, into = w, true
		case "-T", "--no-target-directory":
			p.Onto = true
		case "-b":
			p.Backup = true
		case "--backup":
			p.Backup = !a.hasVal || (a.val != "none" && a.val != "off")
		case "-S", "--suffix":
			p.Suffix, p.SuffixSet = a.val, true
			if a.word != nil && !a.word.Static {
				p.Unsure = "the backup suffix is not static"
			}
		case "-d", "--directory":
			if prog == "install" {
				return Placement{}, false
			}
		}
		switch prog {
		case "cp":
			switch a.opt {
			case "-r", "-R", "-a", "--recursive", "--archive":
				p.Tree = true
			case "-s", "--symbolic-link":
				p.Link = SymLinks
			case "-l", "--link":
				p.Link = HardLinks
			case "-L", "--dereference", "-H":
				p.Deref = true
			case "--parents":
				p.Parents = true
			}
		case "ln":
			switch a.opt {
			case "-s", "--symbolic":
				p.Link = SymLinks
			case "-r", "--relative":
				p.Relative = true
			}
		}
	}
	switch {
	case into:
		p.Sources, p.Dest, p.Into = ops, dest, true
	case prog == "ln" && len(ops) == 1:
		p.Sources, p.Dest, p.Into = ops, Word{Raw: ".", Value: ".", Static: true}, true
	case len(ops) < 2:
		return Placement{}, false
	default:
		p.Sources, p.Dest = ops[:len(ops)-1], ops[len(ops)-1]
		p.Into = len(ops) > 2
	}
	if p.Into && p.Onto {
		return Placement{}, false // the program refuses -t with -T
	}
	for _, w := range append(slices.Clip(p.Sources), p.Dest) {
		if strings.Contains(w.Value, "{}") {
			p.Unsure = "find replaces {} in " + w.Value + " with the names it finds"
		}
	}
	return p, true
}
