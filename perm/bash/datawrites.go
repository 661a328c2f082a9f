package bash

import (
	"path"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// dataWriters are programs that write the files their input names: a
// patch's files, an archive's members. Each function is given the words
// after the program and returns what the program reads those names from
// ("patch", "archive") when the words may make it write them, "" when
// they certainly do not (a listing, a check, output to stdout only). A
// word that is not static may be any option: the program may write.
var dataWriters = lazy.Value[map[string]func(args []Word) string]{New: func() map[string]func(args []Word) string {
	return map[string]func(args []Word) string{
		"tar":      tarWrites,
		"gtar":     tarWrites,
		"bsdtar":   tarWrites,
		"unzip":    unzipWrites,
		"cpio":     cpioWrites,
		"bsdcpio":  cpioWrites,
		"patch":    patchWrites,
		"gpatch":   patchWrites,
		"git":      gitDataWrites,
		"7z":       commandLetter("archive", "xe"),
		"7za":      commandLetter("archive", "xe"),
		"7zr":      commandLetter("archive", "xe"),
		"7zz":      commandLetter("archive", "xe"),
		"unrar":    commandLetter("archive", "xe"),
		"lha":      commandLetter("archive", "xe"),
		"lhasa":    commandLetter("archive", "xe"),
		"ar":       arWrites,
		"jar":      jarWrites,
		"pax":      paxWrites,
		"dpkg-deb": dpkgWrites,
		"dpkg":     dpkgWrites,
		"unar":     always("archive"),
		// The files split and csplit write are named by a prefix and a
		// suffix made of letters or digits: split -a1 -b1 x .en writes
		// .env as its 22nd piece.
		"split": always("output prefix"),
		// rename's new names are its expression (perl's rename) or its
		// substitution (util-linux's) applied to each file's name:
		// rename s/b/a/ b writes a.
		"rename":      always("expression"),
		"prename":     always("expression"),
		"file-rename": always("expression"),
		"perl-rename": always("expression"),
		"gsplit":      always("output prefix"),
		"csplit":      always("output prefix"),
		"uudecode":    always("encoded file"),
		"cabextract":  cabWrites,
		"gzip":        gzipWrites(&gzipSpec, false),
		"pigz":        gzipWrites(&pigzSpec, false),
		"gunzip":      gzipWrites(&gzipSpec, true),
		"unpigz":      gzipWrites(&pigzSpec, true),
		// sed's w command writes the file its script names.
		"sed": sedScriptWrites,
		// rsync copies trees as cp -r does, with what is in them then
		// (a .git/hooks/pre-commit in the source lands in the
		// destination), and runs -e's remote shell: what it writes is
		// not listed here.
		"rsync": rsyncWrites,
		// scp copies as rsync does (scp -r host:d . brings what d holds
		// then), and runs -S's program and -o ProxyCommand's command.
		"scp": rsyncWrites,
		// curl -O and wget without -O write a file the URL names.
		"curl": downloadNames(curlWrites),
		"wget": downloadNames(wgetWrites),
		// sort compresses its temporary files with the program
		// --compress-program names, and install -s strips with
		// --strip-program's: code no rule has seen.
		"sort":    programOption("sort", "--compress-program"),
		"install": programOption("install", "--strip-program"),
	}
}}

// DataWrites reports, for a command that writes files whose paths are
// named in data it reads (git apply, patch, tar x, unzip, cpio -i, git
// am), why the gate cannot know what it writes; "" if no reading of the
// command is such a writer.
func (c *Command) DataWrites() string {
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static {
			continue
		}
		prog := path.Base(v[0].Value)
		f, ok := dataWriters.Get()[prog]
		if !ok && isPython(prog) {
			f, ok = pythonWrites, true
		}
		if !ok {
			continue
		}
		what := f(v[1:])
		if what == "" {
			continue
		}
		if sub := 1 + gitRest(v[1:]); prog == "git" && sub < len(v) {
			prog += " " + v[sub].Value
		}
		if strings.HasPrefix(what, "runs ") {
			return prog + " " + what + ", code deny and ask rules cannot see"
		}
		return prog + " writes the paths the " + what + " names, which the gate cannot see"
	}
	return ""
}

// dynamicWord reports a word that is not static: it may be any option.
func dynamicWord(args []Word) bool {
	for _, w := range args {
		if !w.Static {
			return true
		}
	}
	return false
}

// rsyncWrites: rsync with one operand (or none) lists it and writes
// nothing; with more it copies to the last. A word not static may be
// one more operand, and a value of an option counts as one here.
//
// With one operand on another host (host:path, host::module,
// rsync://host/) it lists that and runs the remote shell -e or --rsh
// (-e'sh -c CMD' is one word) and --rsync-path name: code no rule has
// seen.
func rsyncWrites(args []Word) string {
	operands, remote := 0, false
	for _, w := range args {
		switch {
		case !w.Static:
			return "source tree"
		case !strings.HasPrefix(w.Value, "-"):
			operands++
			remote = remote || remotePath(w.Value)
		}
	}
	switch {
	case operands >= 2:
		return "source tree"
	case remote:
		return "runs the remote shell an option may name"
	}
	return ""
}

// remotePath reports an operand rsync or scp reads as on another host:
// a ":" before any "/", or an rsync:// URL.
func remotePath(v string) bool {
	i := strings.IndexByte(v, ':')
	return i >= 0 && !strings.Contains(v[:i], "/") || strings.HasPrefix(v, "rsync://")
}

// downloadNames is what names the files a downloader writes beyond
// those its options name (curlWrites, wgetWrites).
func downloadNames(f func([]Word) ([]Word, bool, string)) func([]Word) string {
	return func(args []Word) string {
		_, _, named := f(args)
		return named
	}
}

// programOption is a writer's (its spec in writers) reading of options
// that name a program it runs: granted none only on a parse sure of
// every word.
func programOption(prog string, opts ...string) func([]Word) string {
	return func(args []Word) string {
		parsed, ok := sureArgs(writers.Get()[prog], args)
		switch {
		case !ok:
			return "runs the program an option it may be given names"
		case hasOpt(parsed, opts...):
			return "runs the program " + strings.Join(opts, " or ") + " names"
		}
		return ""
	}
}

func always(what string) func([]Word) string {
	return func([]Word) string { return what }
}

// sureArgs parses words with spec strictly, permuting: ok only when it
// is sure what every word is (all static, every option known, a long one
// written in full where spec.exact). A program's "writes nothing" reading
// is granted only on such a parse: a word taken for a flag may be the
// value of an option before it (tar -xf a --exclude -O).
func sureArgs(spec optSpec, words []Word) ([]arg, bool) {
	if dynamicWord(words) {
		return nil, false
	}
	spec.strict, spec.permute = true, true
	args, rest, err := spec.parse(words)
	return args, err == nil && rest == len(words)
}

// oldStyleWords rewrites a first word in the old style (tar xvf a, jar
// cf a.jar src: each letter an option, each that takes a value taking
// the next word in turn) as the options it stands for; ok is false for a
// first word that is neither an option nor letters.
func oldStyleWords(args []Word, valued string) ([]Word, bool) {
	if len(args) == 0 || strings.HasPrefix(args[0].Value, "-") {
		return args, true
	}
	if !oldStyle(args[0].Value) {
		return nil, false
	}
	out := make([]Word, 0, len(args)+len(args[0].Value))
	rest := args[1:]
	for _, b := range []byte(args[0].Value) {
		o := dash(b)
		out = append(out, Word{Raw: o, Value: o, Static: true})
		if strings.IndexByte(valued, b) >= 0 && len(rest) > 0 {
			out = append(out, rest[0])
			rest = rest[1:]
		}
	}
	return append(out, rest...), true
}

// tarSpec holds the options GNU tar and bsdtar (tar is either) both read
// the same way, each only as far as it is harmless where nothing is
// extracted or it goes to stdout. The letters only one of them reads a
// value for (GNU's -H, -L, -N, -g, -K, -V, -F, -I, bsdtar's -s) are left
// out, as are options that run a program or write a file of their own
// (--use-compress-program, --info-script, --index-file,
// --listed-incremental, --remove-files): with them tar is not known to
// write nothing.
var tarSpec = optSpec{
	flags: "AcdrtuxOvzjJZaBhikmpPSUwWGlMnoqy",
	args:  "bCfTX",
	long: []string{"extract", "get", "list", "create", "append", "update", "catenate", "concatenate", "diff", "compare",
		"to-stdout", "verbose", "gzip", "gunzip", "ungzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "compress",
		"uncompress", "auto-compress", "keep-old-files", "keep-newer-files", "skip-old-files", "overwrite",
		"overwrite-dir", "no-overwrite-dir", "unlink-first", "recursive-unlink", "preserve-permissions",
		"same-permissions", "no-same-permissions", "preserve-order", "same-order", "same-owner", "no-same-owner",
		"numeric-owner", "touch", "absolute-names", "dereference", "hard-dereference", "ignore-zeros", "ignore-case",
		"no-ignore-case", "anchored", "no-anchored", "wildcards", "no-wildcards", "wildcards-match-slash",
		"no-wildcards-match-slash", "null", "no-null", "recursion", "no-recursion", "one-file-system", "sparse",
		"verify", "totals", "show-transformed-names", "show-stored-names", "interactive", "confirmation",
		"read-full-records", "full-time", "utc", "unquote", "no-unquote", "verbatim-files-from",
		"no-verbatim-files-from", "ignore-failed-read", "exclude-vcs", "exclude-backups", "exclude-caches",
		"exclude-caches-all", "exclude-caches-under", "exclude-vcs-ignores", "check-device", "no-check-device",
		"delay-directory-restore", "no-delay-directory-restore", "occurrence"},
	longArgs: []string{"file", "directory", "exclude", "exclude-from", "files-from", "strip-components", "transform",
		"xform", "blocking-factor", "record-size", "format", "owner", "group", "mode", "mtime", "exclude-tag",
		"exclude-tag-all", "exclude-tag-under", "warning", "quoting-style", "quote-chars", "no-quote-chars",
		"to-command", "sort"},
	exact: true,
}

// tarWrites: tar writes the members it extracts (x, -x, --extract,
// --get), except where they go to stdout only (-O, --to-stdout, without
// --to-command, which runs a program for each). That exception holds
// only where every word is understood; a command not understood writes
// if any word may ask for an extract.
func tarWrites(args []Word) string {
	if !dynamicWord(args) && len(args) > 0 && !strings.HasPrefix(args[0].Value, "-") && !oldStyle(args[0].Value) {
		return "" // tar refuses a first word of other bytes than letters and digits
	}
	words, ok := oldStyleWords(args, tarSpec.args)
	var parsed []arg
	if ok {
		parsed, ok = sureArgs(tarSpec, words)
	}
	if !ok {
		if mayExtract(args) {
			return "archive"
		}
		// An option tarSpec leaves out may run a program: -I and
		// --use-compress-program, -F and --info-script,
		// --checkpoint-action=exec, --rsh-command.
		return "runs the program an option it may be given names"
	}
	extract, stdout, command := false, false, false
	for _, a := range parsed {
		switch a.opt {
		case "-x", "--extract", "--get":
			extract = true
		case "-O", "--to-stdout":
			stdout = true
		case "--to-command":
			command = true
		}
	}
	if extract && (!stdout || command) {
		return "archive"
	}
	return ""
}

// mayExtract reports a tar command some word of which may ask for an
// extract: not static, an old-style first word or a short option cluster
// holding x, or a long option --extract or --get may abbreviate.
func mayExtract(args []Word) bool { return mayAsk(args, "x", true, "--extract", "--get") }

// mayAsk reports whether some word of args may ask for an option: a word
// not static, a short option cluster holding letter (or, with first, an
// old-style first word holding it), or a long option one of longs may
// abbreviate.
func mayAsk(args []Word, letter string, first bool, longs ...string) bool {
	for i, w := range args {
		v := w.Value
		switch {
		case !w.Static:
			return true
		case strings.HasPrefix(v, "--"):
			name := longName(v)
			for _, l := range longs {
				if len(name) > 2 && strings.HasPrefix(l, name) {
					return true
				}
			}
		case strings.HasPrefix(v, "-") || first && i == 0:
			if strings.Contains(v, letter) {
				return true
			}
		}
	}
	return false
}

// oldStyle reports a first word tar reads as options in the old style:
// letters and digits only (with any other byte tar refuses to run).
func oldStyle(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return v != ""
}

// unzipWrites: unzip extracts unless an option before the archive lists
// (-l, -v, -Z), tests (-t), prints (-p, -c) or shows the comment (-z).
// Info-ZIP reads a "-" inside a cluster, or a doubled one (--l), as
// negating what follows, and knows no long options: such a word, a
// letter not known here, or an option after the archive other than -x's
// list of names, and unzip may extract.
func unzipWrites(args []Word) string {
	if dynamicWord(args) {
		return "archive"
	}
	if len(args) > 0 && strings.HasPrefix(args[0].Value, "-Z") {
		return "" // zipinfo: it only lists
	}
	quiet, i := false, 0
	for ; i < len(args); i++ {
		v := args[i].Value
		if !strings.HasPrefix(v, "-") {
			break // the archive
		}
		if v == "-" || strings.HasPrefix(v, "--") {
			return "archive"
		}
		for j := 1; j < len(v); j++ {
			switch c := v[j]; {
			case strings.IndexByte("lvtzpc", c) >= 0:
				quiet = true
			case c == 'd':
				if j == len(v)-1 {
					i++ // -d EXDIR
				}
				j = len(v)
			case strings.IndexByte("qabjnosCLKDUVWX", c) < 0:
				return "archive"
			}
		}
	}
	if i >= len(args) {
		return "archive"
	}
	for k, w := range args[i+1:] {
		if strings.HasPrefix(w.Value, "-") && (w.Value != "-x" || slices.ContainsFunc(args[i+2+k:], func(w Word) bool { return strings.HasPrefix(w.Value, "-") })) {
			return "archive"
		}
	}
	if quiet {
		return ""
	}
	return "archive"
}

// cpioWrites: cpio writes what it extracts (-i, --extract) unless it
// only lists (-t, --list), and what it copies (-p, --pass-through).
func cpioWrites(args []Word) string {
	if dynamicWord(args) {
		return "archive"
	}
	extract, pass, list := false, false, false
	for _, w := range args {
		v := w.Value
		switch {
		case v == "--":
		case strings.HasPrefix(v, "--"):
			name := longName(v)
			extract = extract || abbrev(name, "--extract", 4)
			pass = pass || abbrev(name, "--pass-through", 5)
			list = list || name == "--list"
		case strings.HasPrefix(v, "-"):
			letters := v[1:]
			if k := strings.IndexAny(letters, "CEFHIMOR"); k >= 0 {
				letters = letters[:k]
			}
			extract = extract || strings.Contains(letters, "i")
			pass = pass || strings.Contains(letters, "p")
			list = list || strings.Contains(v[1:], "t") && strings.Trim(v[1:], "itvdmun") == ""
		}
	}
	if pass || extract && !list {
		return "archive"
	}
	return ""
}

// patchSpec holds GNU patch's options but -e (--ed), which runs ed on
// the patch's script.
var patchSpec = optSpec{
	flags: "bcEflnNRstTuvZ",
	args:  "BDdFgioprVxYz",
	long: []string{"dry-run", "backup", "backup-if-mismatch", "no-backup-if-mismatch", "batch", "binary", "context",
		"force", "forward", "ignore-whitespace", "normal", "posix", "quiet", "silent", "remove-empty-files", "reverse",
		"set-time", "set-utc", "unified", "verbose", "version", "help", "follow-symlinks", "merge"},
	longArgs: []string{"prefix", "basename-prefix", "ifdef", "directory", "fuzz", "get", "input", "output", "strip",
		"reject-file", "reject-format", "version-control", "suffix", "quoting-style", "read-only", "debug"},
}

// patchWrites: patch writes the files the patch names unless --dry-run,
// on a parse that is sure (-i --dry-run names a patch file), without an
// output or reject file of its own (-o, -r).
func patchWrites(args []Word) string {
	parsed, ok := sureArgs(patchSpec, args)
	if !ok || hasOpt(parsed, "-o", "--output", "-r", "--reject-file") || !hasOpt(parsed, "--dry-run") {
		return "patch"
	}
	return ""
}

// gitApplySpec holds the options of git apply that write nothing of
// their own, written in full (git reads abbreviations too: they are not
// known here).
var gitApplySpec = optSpec{
	flags: "zRvq3N",
	args:  "pC",
	long: []string{"check", "stat", "numstat", "summary", "apply", "index", "cached", "intent-to-add", "3way", "reject",
		"unidiff-zero", "recount", "allow-empty", "inaccurate-eof", "no-add", "binary", "allow-binary-replacement",
		"reverse", "verbose", "quiet", "unsafe-paths", "ignore-space-change", "ignore-whitespace"},
	longArgs: []string{"exclude", "include", "directory", "whitespace"},
	exact:    true,
}

// gitDataWrites: git apply writes the files its patch names unless it
// only checks or summarises it (--check, --stat, --numstat, --summary
// without --apply), on a parse that is sure; git am writes those of its
// mailbox's patches, unless it only shows the current one (git am
// --show-current-patch and nothing else).
func gitDataWrites(args []Word) string {
	sub := gitRest(args)
	// git runs its subcommands' helpers (git-status is a builtin, but
	// git-remote-https, git-sh-setup and the rest are programs) from
	// --exec-path's directory: code no rule has seen.
	if slices.ContainsFunc(args[:max(0, min(sub, len(args)))], func(w Word) bool {
		return !w.Static || strings.HasPrefix(w.Value, "--exec-path=")
	}) {
		return "runs the programs --exec-path's directory holds"
	}
	if sub < 0 || sub >= len(args) || !args[sub].Static {
		return ""
	}
	rest := args[sub+1:]
	switch args[sub].Value {
	case "init", "init-db", "clone":
		// git copies a template's files into the git directory it makes
		// or initialises again (the hooks it runs: git init
		// --template=tpl in a repository installs tpl/hooks/pre-commit),
		// and clone writes what -c sets into the new repository's
		// configuration (core.hooksPath, core.fsmonitor).
		if gitTemplateGlobal(args[:sub]) || slices.ContainsFunc(rest, func(w Word) bool {
			return !w.Static || LongAbbrev(w.Value, "--template") ||
				args[sub].Value == "clone" && (LongAbbrev(w.Value, "--config") || ClusterHas(w.Value, 'c'))
		}) {
			return "template (or -c setting)"
		}
		return ""
	case "apply":
		parsed, ok := sureArgs(gitApplySpec, rest)
		if ok && hasOpt(parsed, "--check", "--stat", "--numstat", "--summary") && !hasOpt(parsed, "--apply") {
			return ""
		}
		return "patch"
	case "am":
		if len(rest) == 1 && rest[0].Static && (rest[0].Value == "--show-current-patch" || strings.HasPrefix(rest[0].Value, "--show-current-patch=")) {
			return ""
		}
		return "patch"
	}
	return ""
}

// gitTemplateGlobal reports whether git's global options may set
// init.templateDir (-c, --config-env), the template git init and clone
// copy into the git directory.
func gitTemplateGlobal(globals []Word) bool {
	for i, w := range globals {
		v := w.Value
		switch {
		case !w.Static:
			return true
		case v == "-c" || v == "--config-env":
			if i+1 < len(globals) && (!globals[i+1].Static || templateKey(globals[i+1].Value)) {
				return true
			}
		case strings.HasPrefix(v, "--config-env="):
			if templateKey(strings.TrimPrefix(v, "--config-env=")) {
				return true
			}
		}
	}
	return false
}

// templateKey reports whether a -c or --config-env setting names
// init.templateDir (git's keys are case-insensitive).
func templateKey(setting string) bool {
	key, _, _ := strings.Cut(setting, "=")
	return strings.EqualFold(key, "init.templatedir")
}

// commandLetter is a program whose first operand is a command (7z x,
// unrar e): those holding a letter of extract extract, and so may a
// command after a long option (which may take the next word) or a
// response file (@file).
func commandLetter(what, extract string) func([]Word) string {
	return func(args []Word) string {
		for _, w := range args {
			if !w.Static {
				return what
			}
			v := w.Value
			if strings.HasPrefix(v, "--") || strings.HasPrefix(v, "@") {
				return what
			}
			if strings.ContainsAny(strings.TrimPrefix(v, "-"), extract) {
				return what
			}
			if !strings.HasPrefix(v, "-") {
				return "" // the command: it does not extract
			}
		}
		return ""
	}
}

// arWrites: ar extracts with x. GNU ar reads options anywhere (getopt
// permutes, --output and --plugin take the next word) and @file as more
// arguments: only a first word that is the key, of letters known here
// without x, and no other option or response file, writes nothing.
func arWrites(args []Word) string {
	if len(args) == 0 {
		return ""
	}
	if dynamicWord(args) || strings.HasPrefix(args[0].Value, "--") {
		return "archive"
	}
	for _, w := range args {
		if strings.HasPrefix(w.Value, "@") {
			return "archive"
		}
	}
	for _, w := range args[1:] {
		if strings.HasPrefix(w.Value, "-") {
			return "archive"
		}
	}
	key := strings.TrimPrefix(args[0].Value, "-")
	if key == "" || strings.Trim(key, "dmpqrstabcDfilNoOPSTuUvV") != "" || !strings.ContainsAny(key, "dmpqrst") {
		return "archive"
	}
	return ""
}

// jarSpec holds the JDK jar tool's options (both styles).
var jarSpec = optSpec{
	flags: "ctxuvn0PMdi",
	args:  "fmeCp",
	long: []string{"create", "list", "extract", "update", "describe-module", "validate", "verbose", "no-manifest",
		"no-compress", "help", "help-extra", "version"},
	longArgs: []string{"file", "manifest", "main-class", "module-version", "hash-modules", "module-path", "release",
		"date", "generate-index", "dir"},
	exact: true,
}

// jarWrites: jar extracts with x (--extract) and updates with u and i:
// only a sure parse that lists, creates or describes writes nothing of
// what the archive names.
func jarWrites(args []Word) string {
	for _, w := range args {
		if strings.HasPrefix(w.Value, "@") {
			return "archive" // an argument file
		}
	}
	words, ok := oldStyleWords(args, "fme")
	var parsed []arg
	if ok {
		parsed, ok = sureArgs(jarSpec, words)
	}
	if !ok || hasOpt(parsed, "-x", "--extract", "-u", "--update", "-i", "--generate-index") ||
		!hasOpt(parsed, "-t", "--list", "-c", "--create", "-d", "--describe-module", "--validate") {
		return "archive"
	}
	return ""
}

// isPython reports a name of the Python interpreter: python, python3,
// python3.12.
func isPython(prog string) bool {
	v, ok := strings.CutPrefix(prog, "python")
	return ok && strings.Trim(v, "0123456789.") == ""
}

// pythonWrites: python -m tarfile and -m zipfile extract with -e
// (--extract). The module's arguments write nothing only when each is
// understood and one lists or tests (-l, -t); a word before the module
// that is not static may be -m.
func pythonWrites(args []Word) string {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			return "archive"
		}
		v := w.Value
		switch {
		case v == "-" || !strings.HasPrefix(v, "-") || v == "--":
			return "" // the script, or stdin
		case strings.HasPrefix(v, "--"):
			if v == "--check-hash-based-pycs" {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c':
				return "" // a program text: no module
			case 'm':
				mod, rest := v[j+1:], args[i+1:]
				if mod == "" {
					if len(rest) == 0 {
						return ""
					}
					if !rest[0].Static {
						return "archive"
					}
					mod, rest = rest[0].Value, rest[1:]
				}
				if mod != "tarfile" && mod != "zipfile" {
					return ""
				}
				return archiveModule(rest)
			case 'W', 'X':
				if j == len(v)-1 {
					i++
				}
				j = len(v)
			}
		}
	}
	return ""
}

// archiveModule: the arguments of python -m tarfile or zipfile write
// nothing when each is -l, -t, -v (or their long names) or an operand,
// and one lists or tests.
func archiveModule(args []Word) string {
	quiet := false
	for _, w := range args {
		switch {
		case !w.Static:
			return "archive"
		case w.Value == "-l" || w.Value == "--list" || w.Value == "-t" || w.Value == "--test":
			quiet = true
		case w.Value == "-v" || w.Value == "--verbose":
		case strings.HasPrefix(w.Value, "-"):
			return "archive"
		}
	}
	if quiet {
		return ""
	}
	return "archive"
}

// paxWrites: pax reads an archive into files with -r (and copies with
// -rw).
func paxWrites(args []Word) string {
	for _, w := range args {
		if !w.Static || strings.HasPrefix(w.Value, "-") && !strings.HasPrefix(w.Value, "--") && strings.Contains(w.Value, "r") {
			return "archive"
		}
	}
	return ""
}

// dpkgWrites: dpkg-deb (and dpkg) extract a package's files with -x, -X,
// -R, -e and their long names; dpkg installs them with -i and --unpack.
func dpkgWrites(args []Word) string {
	for _, w := range args {
		if !w.Static {
			return "package"
		}
		switch longName(w.Value) {
		case "-x", "-X", "-R", "-e", "-i", "--extract", "--vextract", "--raw-extract", "--control", "--install", "--unpack":
			return "package"
		}
	}
	return ""
}

// cabWrites: cabextract extracts unless it lists (-l), tests (-t) or
// pipes (-p).
func cabWrites(args []Word) string {
	for _, w := range args {
		switch {
		case !w.Static:
			return "archive"
		case w.Value == "-l", w.Value == "-t", w.Value == "-p", w.Value == "--list", w.Value == "--test", w.Value == "--pipe":
			return ""
		}
	}
	return "archive"
}

// gzipSpec holds GNU gzip's options, pigzSpec pigz's.
var (
	gzipSpec = optSpec{
		flags: "acdfhklLnNqrtvV123456789",
		args:  "S",
		long: []string{"ascii", "stdout", "to-stdout", "decompress", "uncompress", "force", "help", "keep", "list", "license",
			"no-name", "name", "quiet", "recursive", "test", "verbose", "version", "fast", "best", "rsyncable", "synchronous"},
		longArgs: []string{"suffix"},
	}
	pigzSpec = optSpec{
		flags: "0123456789cdfhikKlLmMnNqrRtTvVzYHFOU",
		args:  "bpSCAIJ",
		long: []string{"fast", "best", "stdout", "to-stdout", "decompress", "uncompress", "force", "help", "independent",
			"keep", "license", "list", "no-time", "time", "no-name", "name", "quiet", "silent", "recursive", "rsyncable",
			"synchronous", "test", "verbose", "version", "zlib", "zip", "huffman", "rle", "first", "oneblock"},
		longArgs: []string{"blocksize", "processes", "suffix", "comment", "alias", "iterations", "maxsplits"},
		exact:    true,
	}
)

// gzipWrites: decompressing with -N (--name) writes the file under the
// name the compressed file stores, unless to stdout (-c) or only testing
// or listing (-t, -l). Where a word may ask for the name, that exception
// holds only on a parse that is sure (-S -c: -c is the suffix).
func gzipWrites(spec *optSpec, gunzip bool) func([]Word) string {
	return func(args []Word) string {
		if !mayName(args) {
			return ""
		}
		parsed, ok := sureArgs(*spec, args)
		if !ok {
			return "compressed file"
		}
		decompress, name, quiet := gunzip, false, false
		for _, a := range parsed {
			switch a.opt {
			case "-d", "--decompress", "--uncompress":
				decompress = true
			case "-N", "--name":
				name = true
			case "-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list":
				quiet = true
			}
		}
		if decompress && name && !quiet {
			return "compressed file"
		}
		return ""
	}
}

// mayName reports a gzip command some word of which may ask for the name
// the compressed file stores: not static, a short option cluster holding
// N, or a long option --name may abbreviate.
func mayName(args []Word) bool { return mayAsk(args, "N", false, "--name") }

// tarArchiveWrites returns the archive a tar command (prog, its words
// args) writes: -f's file where it creates, appends to, updates,
// catenates to or deletes from one ("-" is stdout). ok is false for
// another program. dynamic is set where that is not known: a parse that
// is not sure (an option not in tarSpec) of a command some word of which
// may ask for such a mode, or an archive on another host ("host:file",
// which tar reaches through rsh).
func tarArchiveWrites(prog string, args []Word) (ts []Word, dynamic, ok bool) {
	switch prog {
	case "tar", "gtar", "bsdtar":
	default:
		return nil, false, false
	}
	if !dynamicWord(args[:min(1, len(args))]) && len(args) > 0 && !strings.HasPrefix(args[0].Value, "-") && !oldStyle(args[0].Value) {
		return nil, false, true // tar refuses a first word of other bytes than letters and digits
	}
	modes := []string{"-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete"}
	words, sure := oldStyleWords(args, tarSpec.args)
	var parsed []arg
	if sure {
		parsed, sure = sureArgs(tarSpec, words)
	}
	if !sure {
		for _, l := range "cruA" {
			if mayAsk(args, string(l), true, "--create", "--append", "--update", "--catenate", "--concatenate", "--delete") {
				return nil, true, true
			}
		}
		return nil, false, true
	}
	if !hasOpt(parsed, modes...) {
		return nil, false, true
	}
	for _, a := range parsed {
		if a.opt != "-f" && a.opt != "--file" || a.val == "-" {
			continue
		}
		switch {
		case a.word != nil && !a.word.Static, strings.Contains(a.val, ":"):
			return nil, true, true
		case a.word == nil:
			ts = append(ts, staticWord(a.val))
		default:
			ts = append(ts, *a.word)
		}
	}
	return ts, false, true
}

// archiveMakerWrites returns the archive a jar, 7z or ar command (prog,
// its words args) makes or changes: jar c, u and i's -f file; the
// archive after 7z's a, u, d and rn commands; the archive after ar's key
// where it holds r, q, d, m or s (and the member name and count its a,
// b, i and N modifiers take first). ok is false for another program.
// dynamic is set where that is not known: a word not static, a parse
// that is not sure, a response file, 7z's -sdel (it deletes the files
// it adds).
func archiveMakerWrites(prog string, args []Word) (ts []Word, dynamic, ok bool) {
	archive := func(w Word) {
		if !w.Static {
			dynamic = true
			return
		}
		ts = append(ts, w)
	}
	switch prog {
	case "jar":
		words, sure := oldStyleWords(args, "fme")
		var parsed []arg
		if sure {
			parsed, sure = sureArgs(jarSpec, words)
		}
		if !sure {
			for _, l := range "cui" {
				if mayAsk(args, string(l), true, "--create", "--update", "--generate-index") {
					return nil, true, true
				}
			}
			return nil, false, true
		}
		if !hasOpt(parsed, "-c", "--create", "-u", "--update", "-i", "--generate-index") {
			return nil, false, true
		}
		for _, a := range parsed {
			if (a.opt == "-f" || a.opt == "--file") && a.val != "-" {
				if a.word == nil {
					archive(staticWord(a.val))
				} else {
					archive(*a.word)
				}
			}
		}
		return ts, dynamic, true
	case "zip":
		ts, dynamic = zipWrites(args)
		return ts, dynamic, true
	case "7z", "7za", "7zr", "7zz":
		command := ""
		for _, w := range args {
			switch {
			case !w.Static || strings.HasPrefix(w.Value, "@"):
				return nil, true, true
			case strings.HasPrefix(w.Value, "-"):
				if strings.HasPrefix(w.Value, "-sdel") {
					return nil, true, true
				}
			case command == "":
				command = w.Value
				if command != "a" && command != "u" && command != "d" && command != "rn" {
					return nil, false, true
				}
			default:
				archive(w)
				return ts, dynamic, true
			}
		}
		return nil, false, true
	case "ar":
		if len(args) == 0 {
			return nil, false, true
		}
		if dynamicWord(args) {
			return nil, true, true
		}
		key := strings.TrimPrefix(args[0].Value, "-")
		if !strings.ContainsAny(key, "rqdms") || strings.HasPrefix(args[0].Value, "--") {
			return nil, false, true
		}
		skip := strings.Count(key, "a") + strings.Count(key, "b") + strings.Count(key, "i") + strings.Count(key, "N")
		for _, w := range args[1:] {
			if strings.HasPrefix(w.Value, "-") || strings.HasPrefix(w.Value, "@") {
				return nil, true, true // an option GNU ar reads anywhere, or a response file
			}
			if skip > 0 {
				skip--
				continue
			}
			archive(w)
			return ts, dynamic, true
		}
		return nil, false, true
	}
	return nil, false, false
}

// zipFlags are the letters of zip's options that take no value, write,
// run or delete nothing beyond the archive and begin none of its
// options of two letters (-TT, -tt, -la, -lf, -sf, -db, ...), which zip
// reads before a cluster: they may be given together (-qr). -m is left
// out: it deletes what it adds.
const zipFlags = "0123456789qrjyDu"

// zipAlone are zip's other options that take no value and write, run or
// delete nothing beyond the archive, as words of their own: -T tests it
// with unzip.
func zipAlone(v string) bool {
	switch v {
	case "-T", "-v", "-X", "-o", "-g", "-l", "-ll", "--test", "--quiet", "--recurse-paths", "--junk-paths", "--symlinks":
		return true
	}
	return false
}

// zipWrites returns the archive zip (its words args) makes or changes:
// its first operand, and that name with ".zip" added where it has no
// suffix (zip adds one). dynamic is set where that is not known: a word
// not static, an option other than zipFlags clusters and -x's and -i's
// pattern lists, zipAlone (-TT and --unzip-command run a command, -O, -b and -la
// name other files, -m deletes the files it adds).
func zipWrites(args []Word) (ts []Word, dynamic bool) {
	patterns, operands, archive := false, false, false
	for _, w := range args {
		v := w.Value
		switch {
		case !w.Static:
			return nil, true
		case operands || !strings.HasPrefix(v, "-") || v == "-":
			// zip reads options after its operands too: every word is
			// looked at.
			if archive || patterns && !operands {
				continue
			}
			archive = true
			if v != "-" {
				ts = append(ts, w)
				if !strings.Contains(path.Base(v), ".") {
					ts = append(ts, staticWord(v+".zip"))
				}
			}
		case v == "--":
			operands = true
		case v == "-x" || v == "-i" || v == "--exclude" || v == "--include":
			patterns = true
		case zipAlone(v) || !strings.HasPrefix(v, "--") && strings.Trim(v[1:], zipFlags) == "":
			patterns = false
		default:
			return nil, true
		}
	}
	return ts, false
}
