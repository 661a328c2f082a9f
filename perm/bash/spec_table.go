package bash

import (
	"strings"
	"sync"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
)

// gnuStd are the options every GNU program takes.
const gnuStd = " --help --version"

var (
	headNumRe = lazyre.MustCompile(`^-[0-9]+[bkmcl]?$`)
	tailNumRe = lazyre.MustCompile(`^[-+][0-9]+[bcl]?$`)
	// tailObsoleteRe is the shape of every word coreutils 9.1's tail
	// (parse_obsolete_option) may take for an obsolete option: a sign,
	// digits, a unit and "f", which follows the file as -f does ("+f",
	// "-cf" and "+5f" all follow).
	tailObsoleteRe = lazyre.MustCompile(`^[-+][0-9]*[bcl]?(f?)$`)
)

// headObsolete takes head's first argument -NUM[bkmcl] for the obsolete
// -n NUM.
func headObsolete(args []Word) (bool, Why) {
	return headNumRe.Get().MatchString(args[0].Value), Why{}
}

// tailObsolete reads tail's first argument as coreutils 9.1 does. tail
// takes it for an obsolete option only with at most one file after it
// ("tail +5 f", "tail -5 -- f"); otherwise a "+5" is a file and a "-5"
// an option tail refuses ("used in invalid context"). An obsolete option
// ending in "f" follows its file, waiting for ever. A glob first word
// may expand to such an option (a file named "+f") when it may begin
// with "+" and end with "f" ("tail *.log" cannot).
func tailObsolete(args []Word) (bool, Why) {
	w := args[0]
	if v := w.Value; w.Glob && v != "" && strings.ContainsRune("+*?[", rune(v[0])) && strings.ContainsRune("f*?]", rune(v[len(v)-1])) {
		return false, Because("tail: %s may expand to an obsolete option", w.Raw)
	}
	m := tailObsoleteRe.Get().FindStringSubmatch(w.Value)
	if m == nil {
		return false, Why{}
	}
	// The words tail is given, as its argc and argv count them: a
	// glob second word may expand to one word or several.
	n := len(args) + 1
	second := func(cond func(Word) bool) bool { return n >= 3 && (args[1].Glob || cond(args[1])) }
	obsolete := n == 2 ||
		n == 3 && second(func(a Word) bool { return !(strings.HasPrefix(a.Value, "-") && len(a.Value) > 1) }) ||
		n <= 4 && second(func(a Word) bool { return a.Value == "--" })
	switch {
	case obsolete && m[1] == "f":
		return false, Because("tail: %s follows its file", w.Raw)
	case w.Value[0] == '+' && !obsolete:
		return false, Why{} // a file
	}
	return tailNumRe.Get().MatchString(w.Value), Why{}
}

// Options deliberately left out of the specs below, by program (each makes
// the command not read-only): tail -f/-F/--follow/--retry/--pid/-s (block),
// wc/sort/du --files0-from and file -f (read lists of further files),
// ls -L/-H, du -L/-D/-H, tree -l, grep -R (follow links out of the tree),
// sort -o/-T/--compress-program, tree -o/-R, file -C/-m/-z/-Z/-S/-p,
// diff -l (runs pr), df --sync, date -s, md5sum -c (reads listed files),
// tree --info/--infofile/--gitignore/--gitfile (read files in the parents
// of the directories listed).
var gnuSpecs = []*progSpec{
	{
		name:    "cat",
		anyArgs: true,
		opts:    "-A,--show-all -b,--number-nonblank -e -E,--show-ends -n,--number -s,--squeeze-blank -t -T,--show-tabs -u -v,--show-nonprinting" + gnuStd,
		yes:     []string{"cat a b", "cat -n -- -x", "cat --number f", "cat --number-n f", "cat -"},
		no:      []string{"cat --nope f", "cat -z f", "cat --show f", "cat --num f"},
	},
	{
		name:    "head",
		anyArgs: true,
		opts:    "-c,--bytes=NUM -n,--lines=NUM -q,--quiet,--silent -v,--verbose -z,--zero-terminated" + gnuStd,
		yes:     []string{"head -n 5 f", "head -n5 f", "head -5 f", "head --lines=3 f", "head -c 1K f"},
		no:      []string{"head -x f", "head --lines=3 --follow f"},
	},
	{
		name:    "tail",
		anyArgs: true,
		opts:    "-c,--bytes=NUM -n,--lines=NUM -q,--quiet,--silent -v,--verbose -z,--zero-terminated --max-unchanged-stats=N" + gnuStd,
		yes:     []string{"tail -n 20 f", "tail -20 f", "tail +5 f", "tail -n +5 f", "tail *.log", "tail +5 a b"},
		no: []string{"tail -f log", "tail -F log", "tail --follow=name log", "tail --foll log", "tail -20f log", "tail --retry f", "tail --pid=1 f", "tail -s 1 f",
			"tail +f log", "tail +5f log", "tail -cf log", "tail +cf", "tail +lf -- log", "tail +f *.log", "tail +* log", "tail * log", "tail *f"},
	},
	{
		name:       "wc",
		opts:       "-c,--bytes -m,--chars -l,--lines -L,--max-line-length -w,--words" + gnuStd,
		anyArgs:    true,
		countsOnly: true,
		yes:        []string{"wc -l a b", "wc", "wc --lines f"},
		no:         []string{"wc --files0-from=list", "wc --files0-from list", "wc --fi=x"},
	},
	{
		name:    "ls",
		anyArgs: true,
		opts: "-a,--all -A,--almost-all --author -b,--escape --block-size=SIZE -B,--ignore-backups -c -C --color[=WHEN] " +
			"-d,--directory -D,--dired -f -F --classify[=WHEN] --file-type --format=WORD --full-time -g " +
			"--group-directories-first -G,--no-group -h,--human-readable --si --hide=PATTERN --hyperlink[=WHEN] " +
			"--indicator-style=WORD -i,--inode -I,--ignore=PATTERN -k,--kibibytes -l -m -n,--numeric-uid-gid " +
			"-N,--literal -o -p -q,--hide-control-chars --show-control-chars -Q,--quote-name --quoting-style=WORD " +
			"-r,--reverse -R,--recursive@r -s,--size -S --sort=WORD --time=WORD --time-style=STYLE -t -T,--tabsize=COLS " +
			"-u -U -v -w,--width=COLS -x -X -Z,--context --zero -1" + gnuStd,
		dot: true,
		yes: []string{"ls", "ls -la src docs", "ls -I '*.o' src", "ls --color=auto", "ls -1 --sort=size", "ls src/*.go"},
		no:  []string{"ls -L x", "ls --dereference x", "ls -H x", "ls --deref x", "ls --dereference-command-line x", "ls -FL x", "ls -FLR"},
	},
	{
		name: "grep",
		opts: "-E,--extended-regexp -F,--fixed-strings,--fixed-regexp -G,--basic-regexp -P,--perl-regexp -e,--regexp=PATTERNS " +
			"-f,--file=FILE -i,-y,--ignore-case --no-ignore-case -w,--word-regexp -x,--line-regexp -z,--null-data " +
			"-s,--no-messages -v,--invert-match -V,--version --help -m,--max-count=NUM -b,--byte-offset " +
			"-n,--line-number --line-buffered -H,--with-filename -h,--no-filename --label=LABEL -o,--only-matching " +
			"-q,--quiet,--silent --binary-files=(binary|text|without-match) -a,--text -I " +
			"-d,--directories=(read|skip) -D,--devices=(read|skip) -r,--recursive@r --include=GLOB --exclude=GLOB " +
			"--exclude-from=FILE --exclude-dir=GLOB -L,--files-without-match -l,--files-with-matches -c,--count " +
			"-T,--initial-tab -Z,--null -B,--before-context=NUM -A,--after-context=NUM -C,--context=NUM " +
			"--group-separator=SEP --no-group-separator --color,--colour[=WHEN] -U,--binary " +
			"-0 -1 -2 -3 -4 -5 -6 -7 -8 -9",
		operands:    operandPattern,
		patternOpts: []string{"-e", "-f"},
		anyArgs:     true,
		yes:         []string{"grep -rn foo src", "grep -e foo -e bar src", "grep --regexp=foo src", "grep -f pats.txt src", "grep -A 3 foo f", "grep -3 x f", "grep -r x"},
		no:          []string{"grep -R x .", "grep --dereference-recursive x .", "grep -d recurse x", "grep --directories=recurse x", "grep --devices=x x f", "grep -e *.go f"},
	},
	{
		name: "sort",
		opts: "-b,--ignore-leading-blanks -d,--dictionary-order -f,--ignore-case -g,--general-numeric-sort " +
			"-i,--ignore-nonprinting -M,--month-sort -h,--human-numeric-sort -n,--numeric-sort -R,--random-sort " +
			"--random-source=FILE -r,--reverse --sort=WORD -V,--version-sort --batch-size=NMERGE " +
			"-c --check[=(diagnose-first|quiet|silent)] -C --debug -k,--key=KEYDEF -m,--merge -s,--stable " +
			"-S,--buffer-size=SIZE -t,--field-separator=SEP --parallel=N -u,--unique -z,--zero-terminated" + gnuStd,
		yes: []string{"sort -k 2 f", "sort -u -t, -k1,1 a b", "sort --random-source=seed f", "sort -cu f", "sort --check=quiet f"},
		no:  []string{"sort -o out f", "sort --output=out f", "sort --out=out f", "sort --compress-program=sh f", "sort -T /tmp f", "sort --files0-from=list", "sort --temporary-directory=x f"},
	},
	{
		name:        "uniq",
		opts:        "-c,--count -d,--repeated -D --all-repeated[=(none|prepend|separate)] -f,--skip-fields=N --group[=(separate|prepend|append|both)] -i,--ignore-case -s,--skip-chars=N -u,--unique -z,--zero-terminated -w,--check-chars=N" + gnuStd,
		maxOperands: 1,
		yes:         []string{"uniq f", "uniq -c", "uniq -c f"},
		no:          []string{"uniq in out"},
	},
	{
		name:    "cut",
		anyArgs: true,
		opts:    "-b,--bytes=LIST -c,--characters=LIST -d,--delimiter=DELIM -f,--fields=LIST -n --complement -s,--only-delimited --output-delimiter=STRING -z,--zero-terminated" + gnuStd,
		yes:     []string{"cut -d, -f1 f", "cut -c1-5"},
		no:      []string{"cut -x f"},
	},
	{
		name:        "tr",
		opts:        "-c,-C,--complement -d,--delete -s,--squeeze-repeats -t,--truncate-set1" + gnuStd,
		operands:    operandText,
		maxOperands: 0,
		yes:         []string{"tr a-z A-Z", "tr -d '\\r'"},
		no:          []string{"tr -x a b"},
	},
	{
		name:    "nl",
		anyArgs: true,
		opts:    "-b,--body-numbering=STYLE -d,--section-delimiter=CC -f,--footer-numbering=STYLE -h,--header-numbering=STYLE -i,--line-increment=N -l,--join-blank-lines=N -n,--number-format=FORMAT -p,--no-renumber -s,--number-separator=STRING -v,--starting-line-number=N -w,--number-width=N" + gnuStd,
		yes:     []string{"nl f", "nl -ba f"},
	},
	{
		name: "od",
		opts: "-A,--address-radix=RADIX --endian=(big|little) -j,--skip-bytes=BYTES -N,--read-bytes=BYTES -S=BYTES --strings[=BYTES] -t,--format=TYPE -v,--output-duplicates -w,--width[=BYTES] --traditional -a -b -c -d -f -i -l -o -s -x" + gnuStd,
		yes:  []string{"od -c f", "od -An -tx1 f", "od -S 4 f", "od -S4 f", "od -w f", "od -w8 f"},
		no:   []string{"od -S"},
	},
	{
		name: "cmp",
		opts: "-b,--print-bytes -i,--ignore-initial=SKIP -l,--verbose -n,--bytes=LIMIT -s,--quiet,--silent --help -v,--version",
		yes:  []string{"cmp a b", "cmp -s a b"},
	},
	{
		name: "comm",
		opts: "-1 -2 -3 --check-order --nocheck-order --output-delimiter=STR --total -z,--zero-terminated" + gnuStd,
		yes:  []string{"comm -12 a b"},
	},
	{
		name: "diff",
		opts: "--normal -q,--brief -s,--report-identical-files -c -C=NUM --context[=NUM] -u -U=NUM --unified[=NUM] " +
			"-e,--ed -n,--rcs -y,--side-by-side -W,--width=NUM --left-column --suppress-common-lines " +
			"-p,--show-c-function -F,--show-function-line=RE --label=LABEL -t,--expand-tabs -T,--initial-tab " +
			"--tabsize=NUM --suppress-blank-empty -r,--recursive@r --no-dereference -N,--new-file " +
			"--unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case -x,--exclude=PAT " +
			"-X,--exclude-from=FILE -S,--starting-file=FILE_NAME --from-file=FILE --to-file=FILE -i,--ignore-case " +
			"-E,--ignore-tab-expansion -Z,--ignore-trailing-space -b,--ignore-space-change -w,--ignore-all-space " +
			"-B,--ignore-blank-lines -I,--ignore-matching-lines=RE -a,--text --strip-trailing-cr -D,--ifdef=NAME " +
			"--old-group-format=GFMT --new-group-format=GFMT --changed-group-format=GFMT --unchanged-group-format=GFMT " +
			"--line-format=LFMT --old-line-format=LFMT --new-line-format=LFMT --unchanged-line-format=LFMT " +
			"-d,--minimal --horizon-lines=NUM --speed-large-files --color[=(never|always|auto)] --palette=PALETTE --help -v,--version",
		// diff compares the files in directory operands, following
		// symlinks among them unless --no-dereference.
		dirFiles: "--no-dereference",
		yes:      []string{"diff -u a b", "diff --unified=5 a b", "diff -U3 a b", "diff -r a b"},
		no:       []string{"diff -l a b", "diff --paginate a b", "diff --pag a b"},
	},
	{
		name:    "stat",
		anyArgs: true,
		opts:    "-L,--dereference -f,--file-system --cached=(always|never|default) -c,--format=FORMAT --printf=FORMAT -t,--terse" + gnuStd,
		yes:     []string{"stat -c %s f", "stat f"},
	},
	{
		name: "file",
		opts: "--help -v,--version -b,--brief -c,--checking-printout -e,--exclude=TEST --exclude-quiet=TEST -F,--separator=STRING " +
			"-i,--mime --apple --extension --mime-type --mime-encoding -k,--keep-going -l,--list -L,--dereference " +
			"-h,--no-dereference -n,--no-buffer -N,--no-pad -0,--print0 -P,--parameter=NAME -r,--raw -s,--special-files -d,--debug",
		yes: []string{"file f", "file -b --mime-type f"},
		no:  []string{"file -C -m magic", "file -f list", "file -z f", "file -S f", "file -p f"},
	},
	{
		name:    "du",
		anyArgs: true,
		opts: "-0,--null -a,--all --apparent-size -B,--block-size=SIZE -b,--bytes -c,--total -d,--max-depth=N " +
			"-h,--human-readable --inodes -k -l,--count-links -m -P,--no-dereference -S,--separate-dirs --si " +
			"-s,--summarize -t,--threshold=SIZE --time[=WORD] --time-style=STYLE -X,--exclude-from=FILE " +
			"--exclude=PATTERN -x,--one-file-system" + gnuStd,
		dot:       true,
		recursive: true,
		yes:       []string{"du -sh dir", "du", "du -d 1 ."},
		no:        []string{"du -L dir", "du --dereference dir", "du --files0-from=list", "du -D x", "du -H x"},
	},
	{
		name: "df",
		opts: "-a,--all -B,--block-size=SIZE -h,--human-readable -H,--si -i,--inodes -k -l,--local --no-sync --output[=FIELD_LIST] -P,--portability --total -t,--type=TYPE -T,--print-type -x,--exclude-type=TYPE -v" + gnuStd,
		yes:  []string{"df -h /", "df"},
		no:   []string{"df --sync"},
	},
	{
		name:     "basename",
		anyArgs:  true,
		opts:     "-a,--multiple -s,--suffix=SUFFIX -z,--zero" + gnuStd,
		operands: operandText,
		yes:      []string{"basename /a/b.go .go"},
	},
	{
		name:     "dirname",
		anyArgs:  true,
		opts:     "-z,--zero" + gnuStd,
		operands: operandText,
		yes:      []string{"dirname /a/b"},
	},
	{
		name:    "realpath",
		anyArgs: true,
		opts:    "-e,--canonicalize-existing -m,--canonicalize-missing -L,--logical -P,--physical -q,--quiet --relative-to=FILE --relative-base=FILE -s,--strip,--no-symlinks -z,--zero" + gnuStd,
		yes:     []string{"realpath ../x", "realpath --relative-to=. x"},
	},
	{
		name:    "readlink",
		anyArgs: true,
		opts:    "-f,--canonicalize -e,--canonicalize-existing -m,--canonicalize-missing -n,--no-newline -q,--quiet -s,--silent -v,--verbose -z,--zero" + gnuStd,
		yes:     []string{"readlink -f link"},
	},
	{
		name: "date",
		// -f/--file is left out: each line of the file is a date string,
		// which may name a time zone file (plainDateString).
		opts: "-d,--date=STRING --debug -I[=(date|hours|minutes|seconds|ns)] --iso-8601[=(date|hours|minutes|seconds|ns)] " +
			"--resolution -R,--rfc-email --rfc-3339=(date|seconds|ns) -r,--reference=FILE -u,--utc,--universal,--uct" + gnuStd,
		operands: operandText,
		// An operand other than +FORMAT sets the clock.
		check: func(p *parsedCmd) bool {
			for _, w := range p.operands {
				if !strings.HasPrefix(w.Value, "+") {
					return false
				}
			}
			for _, o := range p.opts {
				if o.name == "-d" || o.name == "--date" {
					if !plainDateString(o.val) {
						return false
					}
				}
			}
			return true
		},
		yes: []string{"date", "date +%Y-%m-%d", "date -u -Iseconds", "date -r f", "date -d '2020-01-01 12:00 UTC'", "date --date=yesterday +%F"},
		no: []string{"date -s 2020-01-01", "date --set=2020-01-01", "date 010100002020", "date -f dates", "date --file=dates", "date --fi=dates",
			`date -d 'TZ="../../../etc/x" now'`, `date --date='  TZ="/etc/x"'`, `date -dTZ=\"x\"`},
	},
	{name: "whoami", opts: gnuStd, operands: operandNone, yes: []string{"whoami"}},
	{name: "id", opts: "-a -Z,--context -g,--group -G,--groups -n,--name -r,--real -u,--user -z,--zero" + gnuStd, operands: operandText, yes: []string{"id -u", "id -un root"}},
	{
		name:     "uname",
		opts:     "-a,--all -s,--kernel-name -n,--nodename -r,--kernel-release -v,--kernel-version -m,--machine -p,--processor -i,--hardware-platform -o,--operating-system" + gnuStd,
		operands: operandNone,
		yes:      []string{"uname -a"},
	},
	{
		// tree 2.1 parses its own options: no abbreviations, and an option
		// with a value takes the next word (long ones also "=value").
		name: "tree",
		// --gitignore and --info (and --gitfile and --infofile, which
		// imply them) are left out: from tree 2.1.1 on, a directory
		// listed without a .gitignore or .info has its parents searched
		// for one up to "/", outside the workspace, and the .info
		// file's comments are printed.
		opts: "-a -d -f -x -L=LEVEL -P=PATTERN -I=PATTERN --ignore-case --matchdirs --metafirst " +
			"--prune --noreport --charset=X --filelimit=N -q -N -Q -p -u -g -s -h --si --du -D " +
			"--timefmt=FORMAT -F --inodes --device -v -t -c -U -r --dirsfirst --filesfirst --sort=(name|version|size|mtime|ctime|none) " +
			"-i -A -S -n -C -X -J -H=BASEHREF -T=TITLE --nolinks --hintro=FILE --houtro=FILE --version --help",
		dot:       true,
		recursive: true,
		yes:       []string{"tree -L 2 src", "tree", "tree -a -I node_modules", "tree --sort=name"},
		no: []string{"tree -o out src", "tree -R -L 2", "tree -l", "tree --fromfile list", "tree --fro list", "tree -L2",
			"tree --info", "tree --infofile=x", "tree --infofile x", "tree --gitignore", "tree --gitfile=.gitignore"},
	},
	{
		// less 590 takes abbreviations of its own long options, which
		// this spec does not list in full: only exact names are read-only.
		// less runs the input preprocessor LESSOPEN names (set in most
		// users' environments: lesspipe, which runs further programs
		// on the file), even when its output is no terminal; LESSOPEN
		// may come from a lesskey file's #env section too. Only -L
		// (--no-lessopen) turns it off, so less is read-only only with it.
		name:  "less",
		opts:  "-L,--no-lessopen -N,--LINE-NUMBERS -n,--line-numbers -S,--chop-long-lines -R,--RAW-CONTROL-CHARS -r,--raw-control-chars -i,--ignore-case -I,--IGNORE-CASE -F,--quit-if-one-screen -X,--no-init -s,--squeeze-blank-lines",
		check: lessChecked,
		yes:   []string{"less -L f", "less -LN f", "less --no-lessopen -RS f"},
		no:    []string{"less f", "less -N f", "less -o log f", "less -L -O log f", "less -L +!sh f", "less -k keys f", "less --lesskey-src=k f", "less --lesskey-file=k f", "less -L --LINE f", "less -L '+Gg' f", "less --no-lessop f"},
	},
}

// exactLong lists the programs that take no abbreviations of long
// options, or whose full option list the spec does not hold: tree, less,
// git's global options and every git subcommand of gitSpecs and
// gitQuietSpecs.
var exactLong = lazy.Value[map[string]bool]{New: func() map[string]bool {
	m := map[string]bool{"tree": true, "less": true, "git": true}
	for sub := range gitSpecs.Get() {
		m["git "+sub] = true
	}
	for sub := range gitQuietSpecs.Get() {
		m["git "+sub] = true
	}
	return m
}}

// separateValue lists the programs whose short options with a value take
// it from the next word only (tree: "-L2" is not "-L 2").
var separateValue = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"tree": true}
}}

// plainDateString reports whether a date string (date -d, find
// -newermt) has no '"': gnulib's parse_datetime takes a leading TZ="NAME"
// for the time zone and loads the file NAME names, a path or a name under
// /usr/share/zoneinfo that ".." climbs out of (date -d
// 'TZ="../../../etc/x" now' reads /etc/x), a read the gate would not
// check. Without a '"' there is no TZ="NAME".
func plainDateString(s string) bool { return !strings.Contains(s, `"`) }

// lessChecked accepts less with -L (--no-lessopen), which keeps it from
// running the LESSOPEN preprocessor, and no "+cmd" operand
// (noPlusOperand).
func lessChecked(p *parsedCmd) bool { return p.has("-L") && noPlusOperand(p) }

// noPlusOperand rejects less's "+cmd" operands: they run pager commands,
// which can include shell escapes.
func noPlusOperand(p *parsedCmd) bool {
	for _, w := range p.operands {
		if strings.HasPrefix(w.Value, "+") {
			return false
		}
	}
	return true
}

var sumSpec = func(name string) *progSpec {
	return &progSpec{
		name:    name,
		anyArgs: true,
		opts:    "-b,--binary --tag -t,--text -z,--zero --ignore-missing --quiet --status --strict -w,--warn" + gnuStd,
		yes:     []string{name + " f", name + " a b"},
		no:      []string{name + " -c sums", name + " --check sums"},
	}
}

// specs are the read-only programs with a spec, by name. The table is
// built on first use, and each spec compiled on its own first use
// (lazySpec): a command pays only for the programs it names.
var specs = lazy.Value[map[string]func() *progSpec]{New: func() map[string]func() *progSpec {
	m := map[string]func() *progSpec{}
	for _, s := range gnuSpecs {
		m[s.name] = lazySpec(s)
	}
	for _, n := range []string{"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum"} {
		m[n] = lazySpec(sumSpec(n))
	}
	// egrep and fgrep are scripts that run grep -E and grep -F.
	grep := m["grep"]
	for _, n := range []string{"egrep", "fgrep"} {
		m[n] = sync.OnceValue(func() *progSpec {
			g := *grep()
			g.name, g.yes, g.no = n, []string{n + " 'a|b' f"}, nil
			return &g
		})
	}
	return m
}}

// lazySpec returns a function that compiles s on its first call and
// returns it; it is safe for concurrent use.
func lazySpec(s *progSpec) func() *progSpec {
	return sync.OnceValue(func() *progSpec { return compiledSpec(s) })
}

// compiledSpec compiles s and returns it, with head's and tail's readers
// of their obsolete first argument.
func compiledSpec(s *progSpec) *progSpec {
	switch s.name {
	case "head":
		s.obsolete = headObsolete
	case "tail":
		s.obsolete = tailObsolete
	}
	s.compile()
	return s
}
