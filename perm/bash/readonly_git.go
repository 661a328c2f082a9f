package bash

import (
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
)

// gitGlobalSpec are git 2.39's global options that neither change its
// configuration (-c, --config-env), the programs it runs (--exec-path),
// nor page (-p); --git-dir and --work-tree name directories it reads, and
// -C the directory it starts in. --bare is left out: it makes the current
// directory the repository, so that a file named config there (a tracked
// file of the repository git would otherwise find) configures the
// programs git runs (diff.*.textconv for git log -p), and GitStart would
// not look at it. git takes no abbreviations here.
var gitGlobalSpec = lazy.Value[*progSpec]{New: func() *progSpec {
	return compiledSpec(&progSpec{
		name: "git",
		opts: "-C=FILE --git-dir=FILE --work-tree=FILE -P,--no-pager --no-replace-objects --no-optional-locks " +
			"--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-advice --version --help",
	})
}}

// gitDiffOpts are the diff options of log, show and diff in git 2.39 that
// only select and format: --output, --ext-diff and --textconv are left out
// (they write a file or run a configured program).
const gitDiffOpts = " -p,-u,--patch -s,--no-patch -U,--unified[=N] --output-indicator-new=C --output-indicator-old=C " +
	"--output-indicator-context=C --raw --patch-with-raw -t --indent-heuristic --no-indent-heuristic --minimal " +
	"--patience --histogram --anchored=TEXT --diff-algorithm=(default|myers|minimal|patience|histogram) " +
	"--stat[=N] --stat-width=N --stat-name-width=N --stat-graph-width=N --stat-count=N --compact-summary --numstat " +
	"--shortstat -X,--dirstat[=P] --cumulative --dirstat-by-file[=P] --summary --patch-with-stat -z --name-only " +
	"--name-status --submodule[=F] --color[=WHEN] --no-color --color-moved[=MODE] --no-color-moved " +
	"--color-moved-ws=MODES --no-color-moved-ws --word-diff[=MODE] --word-diff-regex=RE --color-words[=RE] " +
	"--no-renames --rename-empty --no-rename-empty --check --ws-error-highlight=KIND --full-index --binary " +
	"--abbrev[=N] -B,--break-rewrites[=N] -M,--find-renames[=N] -C,--find-copies[=N] --find-copies-harder " +
	"-D,--irreversible-delete -l=N --diff-filter=F -S=STRING -G=RE --find-object=ID --pickaxe-all --pickaxe-regex " +
	"-O=FILE --skip-to=FILE_NAME --rotate-to=FILE_NAME -R --relative[=PATH] --no-relative -a,--text " +
	"--ignore-cr-at-eol --ignore-space-at-eol -b,--ignore-space-change -w,--ignore-all-space --ignore-blank-lines " +
	"-I,--ignore-matching-lines=RE --inter-hunk-context=N -W,--function-context --exit-code --quiet --no-ext-diff " +
	"--no-textconv --ignore-submodules[=WHEN] --src-prefix=P --dst-prefix=P --no-prefix --default-prefix " +
	"--line-prefix=P --ita-invisible-in-index --ita-visible-in-index"

// gitRevOpts are the revision and formatting options of log and show that
// only select and format. --show-signature (runs gpg) is left out, and so
// are --remerge-diff and --diff-merges=remerge (r), which write the
// objects of the merges they redo in a directory they make in
// .git/objects (tmp_objdir-remerge-diff-*).
const gitRevOpts = " -n,--max-count=N --skip=N --since=DATE --after=DATE --until=DATE --before=DATE " +
	"--author=P --committer=P --grep-reflog=P --grep=P --all-match --invert-grep -i,--regexp-ignore-case " +
	"--basic-regexp -E,--extended-regexp -F,--fixed-strings -P,--perl-regexp --remove-empty --merges --no-merges " +
	"--min-parents=N --max-parents=N --no-min-parents --no-max-parents --first-parent --exclude-first-parent-only " +
	"--not --all --branches[=P] --tags[=P] --remotes[=P] --glob=P --exclude=P --reflog --alternate-refs " +
	"--single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick --left-only --right-only " +
	"--cherry --walk-reflogs,-g --merge --boundary --simplify-by-decoration --full-history --dense --sparse " +
	"--simplify-merges --ancestry-path[=COMMIT] --show-pulls --date-order --author-date-order --topo-order --reverse " +
	"--no-walk[=(sorted|unsorted)] --do-walk --pretty[=FMT] --format=FMT --abbrev-commit --no-abbrev-commit --oneline " +
	"--encoding=E --expand-tabs[=N] --no-expand-tabs --notes[=REF] --no-notes --show-notes[=REF] " +
	"--standard-notes --no-standard-notes --relative-date --date=FMT --parents --children --left-right " +
	"--graph --show-linear-break[=B] --decorate[=S] --no-decorate --decorate-refs=P --decorate-refs-exclude=P " +
	"--clear-decorations --source --mailmap,--use-mailmap --no-mailmap,--no-use-mailmap --log-size " +
	"--follow --no-follow -L=RANGE -m -c --cc --dd --diff-merges=(off|none|on|first-parent|1|separate|m|combined|c|dense-combined|cc) --no-diff-merges " +
	"--combined-all-paths --full-diff -0 -1 -2 -3 -4 -5 -6 -7 -8 -9"

// gitSpecs are the git subcommands that only read, each with the options
// verified against git 2.39 (TestGitSpecsKnown runs each option). Each is
// compiled on its first use (lazySpec).
var gitSpecs = lazy.Value[map[string]func() *progSpec]{New: func() map[string]func() *progSpec {
	list := []*progSpec{
		{name: "status", opts: "-s,--short -b,--branch --show-stash --porcelain[=VERSION] --long -v,--verbose " +
			"-u,--untracked-files[=(no|normal|all)] --ignored[=(traditional|no|matching)] --ignore-submodules[=WHEN] -z " +
			"--column[=OPTS] --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames[=N]"},
		{name: "log", opts: gitRevOpts + gitDiffOpts, check: noSignatureFormat},
		{name: "show", opts: gitRevOpts + gitDiffOpts, check: noSignatureFormat},
		// diff --no-index compares any two paths: a recursive reader.
		{name: "diff", opts: gitDiffOpts + " --cached --staged --merge-base --no-index@r -1,--base -2,--ours -3,--theirs -0"},
		{name: "blame", opts: "-b --root --show-stats --progress --no-progress --score-debug -f,--show-name -n,--show-number " +
			"-p,--porcelain --line-porcelain -c -t -l -s -e,--show-email -w --incremental --minimal -L=RANGE " +
			"-S=FILE --reverse --first-parent --contents=FILE --date=FMT -M[=N] -C[=N] --ignore-rev=REV " +
			"--ignore-revs-file=FILE --color-lines --color-by-age --abbrev[=N] --encoding=E --since=DATE"},
		{name: "rev-parse", operands: operandText, opts: "--verify -q,--quiet --sq --short[=N] --abbrev-ref[=MODE] " +
			"--symbolic --symbolic-full-name --all --branches[=P] --tags[=P] --remotes[=P] --glob=P --exclude=P " +
			"--show-toplevel --show-prefix --show-cdup --show-superproject-working-tree --show-ref-format " +
			"--git-dir --git-common-dir --absolute-git-dir --is-inside-git-dir --is-inside-work-tree " +
			"--is-bare-repository --is-shallow-repository --shared-index-path --show-object-format[=W] " +
			"--default=ARG --revs-only --no-revs --flags --no-flags --not --since=DATE --after=DATE --until=DATE --before=DATE"},
		{name: "ls-files", opts: "-c,--cached -d,--deleted -m,--modified -o,--others -i,--ignored -s,--stage " +
			"-u,--unmerged -k,--killed -z --directory --no-empty-directory --eol --deduplicate -x,--exclude=P " +
			"-X,--exclude-from=FILE --exclude-per-directory=BASENAME --exclude-standard --error-unmatch --with-tree=TREE " +
			"-t -v -f --full-name --recurse-submodules --abbrev[=N] --debug --sparse --format=FMT"},
		{name: "ls-tree", opts: "-d -r -t -l,--long -z --name-only,--name-status --object-only --full-name " +
			"--full-tree --abbrev[=N] --format=FMT"},
		{name: "describe", operands: operandText, opts: "--dirty[=MARK] --broken[=MARK] --all --tags --contains " +
			"--abbrev[=N] --candidates=N --exact-match --debug --long --match=P --exclude=P --always --first-parent"},
		{name: "merge-base", operands: operandText, opts: "-a,--all --octopus --independent --is-ancestor --fork-point"},
		{name: "show-ref", operands: operandText, opts: "--head --heads --tags -d,--dereference -s,--hash[=N] " +
			"--verify --abbrev[=N] -q,--quiet"},
		// branch and tag only list: a name operand creates, so operands
		// (patterns) are read-only only with -l/--list.
		{name: "branch", operands: operandText, check: listing, opts: "-a,--all -r,--remotes -v,--verbose -l,--list " +
			"-q,--quiet --show-current -i,--ignore-case --color[=WHEN] --no-color --column[=OPTS] --no-column " +
			"--abbrev[=N] --no-abbrev --sort=KEY --format=FMT --contains=[COMMIT] --no-contains=[COMMIT] --merged=[COMMIT] " +
			"--no-merged=[COMMIT] --points-at=OBJECT"},
		{name: "tag", operands: operandText, check: listing, opts: "-l,--list -n[=N] --sort=KEY --format=FMT " +
			"--contains=[COMMIT] --no-contains=[COMMIT] --merged=[COMMIT] --no-merged=[COMMIT] --points-at=[OBJECT] " +
			"--column[=OPTS] --no-column --color[=WHEN] -i,--ignore-case"},
		{name: "remote", operands: operandNone, opts: "-v,--verbose"},
		{name: "config", operands: operandText, check: configReading, opts: "--get --get-all --get-regexp " +
			"--get-urlmatch -l,--list --global --system --local --worktree -f,--file=FILE --blob=BLOB --show-origin " +
			"--show-scope --name-only -z,--null --bool --int --bool-or-int --path --expiry-date --type=TYPE " +
			"--no-includes --default=VALUE"},
	}
	return gitSubSpecs(list)
}}

// gitSubSpecs returns specs of git subcommands by subcommand, each named
// "git SUB" and compiled on its first use.
func gitSubSpecs(list []*progSpec) map[string]func() *progSpec {
	m := map[string]func() *progSpec{}
	for _, s := range list {
		sub := s.name
		s.name = "git " + sub
		m[sub] = lazySpec(s)
	}
	return m
}

// gitSignatureRe matches the placeholders of a git pretty format that
// verify a commit's signature (%G?, %GG, %GS, %GK, %GF, %GP, %GT, with
// the modifiers +, - and space): git runs gpg.program (gpg, gpgsm or
// ssh-keygen) for them, as for --show-signature, which writes a
// temporary file, and gpg its home directory. A literal "%%G" matches
// too, which only makes the check stricter.
var gitSignatureRe = lazyre.MustCompile(`%[-+ ]?G`)

// noSignatureFormat rejects a --format or --pretty of git log and show
// whose format verifies signatures (gitSignatureRe).
func noSignatureFormat(p *parsedCmd) bool {
	for _, o := range p.opts {
		if (o.name == "--format" || o.name == "--pretty") && o.hasVal && gitSignatureRe.Get().MatchString(o.val) {
			return false
		}
	}
	return true
}

// listing allows operands only with -l/--list.
func listing(p *parsedCmd) bool { return len(p.operands) == 0 || p.has("-l", "--list") }

// configReading accepts git config only in a reading mode, and only of
// the repository's own files or a file named: without --local,
// --worktree, --file or --blob git config prints ~/.gitconfig and
// /etc/gitconfig too, files outside the workspace that may hold tokens
// (http.extraHeader, url.*.insteadOf); --global and --system are those.
// --includes is left out of the spec: -f FILE --includes would print the
// files FILE's include.path names.
func configReading(p *parsedCmd) bool {
	return p.has(gitConfigReads...) &&
		p.has("--local", "--worktree", "-f", "--file", "--blob") && !p.has("--global", "--system")
}

// gitReadOnly accepts the git subcommands that only read. -C, --git-dir
// and --work-tree are returned as paths. Whether the repository's own
// configuration makes git run a program is for the caller to check
// (GitInvocation).
func gitReadOnly(words []Word) (Reads, bool) {
	rest := gitRest(words)
	if rest < 0 || rest >= len(words) {
		return Reads{Reason: Because("git: global options outside its read-only spec")}, false
	}
	g, reason := gitGlobalSpec.Get().parse(words[:rest])
	if g == nil {
		return Reads{Reason: reason}, false
	}
	var r Reads
	for _, o := range g.opts {
		if o.def.file {
			r.Paths = append(r.Paths, readPath(o.val, o.word))
		}
	}
	sub, args := words[rest].Value, words[rest+1:]
	if sub == "config" && len(args) > 0 && (args[0].Value == "get" || args[0].Value == "list") {
		args = append([]Word{{Raw: "--" + args[0].Value, Value: "--" + args[0].Value, Static: true}}, args[1:]...)
		if args[0].Value == "--get" && len(args) == 1 {
			return Reads{Reason: Because("git config get: no name")}, false
		}
	}
	s, found := gitSpecs.Get()[sub]
	if !found {
		return Reads{Reason: Because("git %s has no read-only spec", quoteString(sub))}, false
	}
	more, ok := s().eval(args)
	if !ok {
		return more, false
	}
	r.Recursive = more.Recursive
	for _, m := range more.Paths {
		// REV:PATH (git show HEAD:.env) reads PATH as it was at REV.
		if _, file, found := strings.Cut(m.Path, ":"); found && file != "" {
			r.Paths = append(r.Paths, ReadPath{Path: file})
		}
	}
	r.Paths = append(r.Paths, more.Paths...)
	return r, true
}

// gitRest returns the index of the subcommand in git's arguments: the
// first word after the global options, or -1 if they do not parse.
func gitRest(words []Word) int {
	for i := 0; i < len(words); i++ {
		v := words[i].Value
		switch {
		case !strings.HasPrefix(v, "-"):
			return i
		case v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" ||
			v == "--config-env" || v == "--super-prefix" || v == "--list-cmds" || v == "--attr-source":
			i++
		}
	}
	return len(words)
}

// GitStart returns where a git command (after the narrow wrappers) looks
// for its repository: the -C directories in order (each relative to the
// one before) and the --git-dir value. isGit is false for anything else.
func (c *Command) GitStart() (chdirs []string, gitDir string, isGit bool) {
	words, ok := c.narrow()
	if !ok || len(words) == 0 || !words[0].Static || words[0].Value != "git" {
		return nil, "", false
	}
	args := words[1:]
	rest := gitRest(args)
	for i := 0; i < rest && i < len(args); i++ {
		v := args[i].Value
		switch {
		case (v == "-C" || v == "--git-dir") && i+1 < rest:
			if v == "-C" {
				chdirs = append(chdirs, args[i+1].Value)
			} else {
				gitDir = args[i+1].Value
			}
			i++
		case strings.HasPrefix(v, "--git-dir="):
			gitDir = strings.TrimPrefix(v, "--git-dir=")
		}
	}
	return chdirs, gitDir, true
}

// GitOverrides are configuration values the Bash tool sets for every
// command (through GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n), so that a repository's own configuration cannot
// make a read-only git command run a program where turning the key off
// changes nothing else a user relies on: core.fsmonitor runs on every
// git status. The gate checks the rest of a repository's configuration
// (perm: a key outside a verified list makes git not read-only).
var GitOverrides = [][2]string{
	{"core.fsmonitor", "false"},
}

// gitQuiet lists, for each read-only git subcommand of gitSpecs, the
// options of its spec verified (against git 2.39) to print no file's
// contents. It is an allowlist: an option left out, a subcommand left out
// (show prints a blob it is given whatever its options, blame prints the
// file it annotates) or a word the spec does not parse makes GitQuiet
// false. Left out on purpose: status -v (prints the staged diff), config
// --blob (prints a blob named by its hash), branch and tag --format
// (%(raw) prints the object a ref names), and every option of log and
// diff that prints a patch or lines of one (-U, --word-diff, --cc, -m,
// --check, -L, --submodule) or searches contents (-S, -G).
var gitQuiet = lazy.Value[map[string]map[string]bool]{New: func() map[string]map[string]bool {
	set := func(names string) map[string]bool {
		m := map[string]bool{}
		for _, n := range strings.Fields(names) {
			m[n] = true
		}
		return m
	}
	// Options of log and diff that print names, modes, hashes and counts,
	// or only choose which changes and how they are named.
	const diffSummary = "-s --raw --stat --stat-width --stat-name-width --stat-graph-width --stat-count " +
		"--compact-summary --numstat --shortstat -X --cumulative --dirstat-by-file --summary -z --name-only " +
		"--name-status --quiet "
	const diffSelect = "--color --no-color --no-renames --rename-empty --no-rename-empty --abbrev -B -M -C " +
		"--find-copies-harder -D -l --diff-filter -O --skip-to --rotate-to -R --relative --no-relative " +
		"--exit-code --no-ext-diff --no-textconv --ignore-submodules -b -w --ignore-blank-lines " +
		"--ignore-cr-at-eol --ignore-space-at-eol "
	const revs = "-n --skip --since --after --until --before --author --committer --grep-reflog --grep " +
		"--all-match --invert-grep -i --basic-regexp -E -F -P --remove-empty --merges --no-merges " +
		"--min-parents --max-parents --no-min-parents --no-max-parents --first-parent " +
		"--exclude-first-parent-only --not --all --branches --tags --remotes --glob --exclude --reflog " +
		"--alternate-refs --single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick " +
		"--left-only --right-only --cherry --walk-reflogs --merge --boundary --simplify-by-decoration " +
		"--full-history --dense --sparse --simplify-merges --ancestry-path --show-pulls --date-order " +
		"--author-date-order --topo-order --reverse --no-walk --do-walk --pretty --format --abbrev-commit " +
		"--no-abbrev-commit --oneline --encoding --expand-tabs --no-expand-tabs --notes --no-notes " +
		"--show-notes --standard-notes --no-standard-notes --relative-date --date --parents --children " +
		"--left-right --graph --show-linear-break --decorate --no-decorate --decorate-refs " +
		"--decorate-refs-exclude --clear-decorations --source --mailmap --no-mailmap --log-size --follow " +
		"--no-follow -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 "
	m := map[string]map[string]bool{
		"status": set("-s -b --show-stash --porcelain --long -u --ignored --ignore-submodules -z --column " +
			"--no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames"),
		"log":  set(revs + diffSummary + diffSelect),
		"diff": set(diffSummary + diffSelect + "--cached --staged --merge-base --no-index -1 -2 -3 -0"),
		"config": set("--get --get-all --get-regexp --get-urlmatch -l --global --system --local --worktree " +
			"-f --show-origin --show-scope --name-only -z --bool --int --bool-or-int --path --expiry-date " +
			"--type --no-includes --default"),
		"branch": set("-a -r -v -l -q --show-current -i --color --no-color --column --no-column --abbrev " +
			"--no-abbrev --sort --contains --no-contains --merged --no-merged --points-at"),
		"tag": set("-l -n --sort --contains --no-contains --merged --no-merged --points-at --column " +
			"--no-column --color -i"),
	}
	// These print names, hashes and modes whatever their options; so do
	// the subcommands of gitQuietSpecs with the options they list.
	for _, sub := range []string{"ls-files", "ls-tree", "rev-parse", "describe", "merge-base", "show-ref", "remote"} {
		m[sub] = nil
	}
	for sub := range gitQuietSpecs.Get() {
		m[sub] = nil
	}
	return m
}}

// gitQuietSpecs are git subcommands that change the repository or the
// work tree, each with the options verified (against git 2.39's -h and
// manual) to print no file's contents: they print names, counts and
// hashes. They are not read-only; GitQuiet alone reads them, so that a
// Read deny rule does not make every commit ask. Left out: add and
// checkout -p/-i/-e and commit -p/--interactive (print hunks), commit
// -v/--dry-run/--status (put or print the diff), options that run a
// program (fetch --upload-pack, commit -S) or read a list of paths
// (--pathspec-from-file), and git push (sends the contents elsewhere).
var gitQuietSpecs = lazy.Value[map[string]func() *progSpec]{New: func() map[string]func() *progSpec {
	list := []*progSpec{
		{name: "add", opts: "-n,--dry-run -v,--verbose -f,--force -u,--update -N,--intent-to-add -A,--all " +
			"--no-all --ignore-removal --ignore-errors --sparse"},
		{name: "commit", opts: "-q,--quiet -m,--message=MSG -a,--all --amend --no-edit -s,--signoff " +
			"-n,--no-verify --allow-empty --allow-empty-message --author=AUTHOR --date=DATE -C,--reuse-message=COMMIT " +
			"--fixup=COMMIT --squash=COMMIT --reset-author --trailer=TRAILER --cleanup=MODE -o,--only -i,--include " +
			"-F,--file=FILE"},
		{name: "fetch", operands: operandText, opts: "-v,--verbose -q,--quiet --all -p,--prune -t,--tags " +
			"--no-tags --depth=N --unshallow"},
		{name: "pull", operands: operandText, opts: "-v,--verbose -q,--quiet -r,--rebase --no-rebase --ff " +
			"--no-ff --ff-only --stat --no-stat --autostash --no-autostash"},
		{name: "checkout", opts: "-b=BRANCH -B=BRANCH -q,--quiet -f,--force -d,--detach -t,--track --no-track"},
		{name: "switch", operands: operandText, opts: "-c,--create=BRANCH -C,--force-create=BRANCH -q,--quiet " +
			"-f,--force,--discard-changes -d,--detach -t,--track --no-track"},
	}
	return gitSubSpecs(list)
}}

// gitDiffSummary are the options that keep git diff from printing its
// patch (it prints one by default).
var gitDiffSummary = []string{"-s", "--no-patch", "--raw", "--stat", "--compact-summary", "--numstat",
	"--shortstat", "-X", "--dirstat", "--cumulative", "--dirstat-by-file", "--summary", "--name-only",
	"--name-status", "--quiet"}

// GitQuiet reports whether a git command line, the words after git, is
// verified to print no file's contents: its global options are in the
// read-only spec (gitGlobalSpec: no -c), its subcommand has a spec that
// parses every word after it and each option it is given is one gitQuiet
// lists (git diff also needs one that keeps it from printing its patch).
// Anything else (another subcommand, an alias, a word a spec does not
// parse, an expansion) may print the contents of tracked files, which
// Read deny rules must then keep from being printed. A caller gives
// every form of the command (quotes kept, and removed with the values
// split at white space): one that is not quiet is enough.
func GitQuiet(args []string) bool {
	words, ok := formWords(args)
	if !ok {
		return false
	}
	rest := gitRest(words)
	switch {
	case rest == 0 && len(words) == 0:
		return true // git alone prints its usage
	case rest < 0 || rest >= len(words):
		return false
	}
	if g, _ := gitGlobalSpec.Get().parse(words[:rest]); g == nil {
		return false
	}
	sub, words := args[rest], words[rest+1:]
	quiet, listed := gitQuiet.Get()[sub]
	spec, found := gitSpecs.Get()[sub]
	if !found {
		spec, found = gitQuietSpecs.Get()[sub]
	}
	if !listed || !found {
		return false
	}
	p, _ := spec().parse(words)
	if p == nil {
		return false
	}
	for _, o := range p.opts {
		if quiet == nil {
			continue // every option of the spec
		}
		if !slices.ContainsFunc(o.def.names, func(n string) bool { return quiet[n] }) {
			return false
		}
	}
	return sub != "diff" || p.has(gitDiffSummary...)
}
