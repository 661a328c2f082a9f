package bash

import (
	"slices"
	"strings"
)

// gitReadOnly accepts the git subcommands that only read, with -C,
// --git-dir and --work-tree returned as paths. Global options that change
// which programs git runs or its configuration (-c, --config-env,
// --exec-path, -p/--paginate) disqualify the command.
func gitReadOnly(words []Word) ([]string, bool) {
	spec := gitGlobals
	spec.strict = true
	args, rest, err := spec.parse(words)
	if err != nil || rest >= len(words) {
		return nil, false
	}
	var paths []string
	for _, a := range args {
		switch a.opt {
		case "-c", "--config-env", "--exec-path", "-p", "--paginate", "--super-prefix", "--list-cmds":
			return nil, false
		case "-C", "--git-dir", "--work-tree":
			paths = append(paths, pathOf(a))
		}
	}
	sub, subArgs := words[rest].Value, words[rest+1:]
	var (
		more []string
		ok   bool
	)
	if fn, found := gitReadOnlyFuncs[sub]; found {
		more, ok = fn(subArgs)
	} else if r, found := gitReadOnlyRules[sub]; found {
		more, ok = r.eval(subArgs)
	}
	if !ok {
		return nil, false
	}
	for _, m := range more {
		// REV:PATH (git show HEAD:.env) reads PATH as it was at REV.
		if _, file, found := strings.Cut(m, ":"); found && file != "" {
			paths = append(paths, file)
		}
	}
	return append(paths, more...), true
}

// gitHistoryRule is shared by log, show, diff and blame. The operands mix
// revisions and paths; all are returned, since a revision taken for a
// path only makes the engine check more. Options that write a file or run
// a configured program are rejected.
var gitHistoryRule = &roRule{
	opts: optSpec{
		args:     "nSGOLo",
		longArgs: []string{"max-count", "output", "contents", "ignore-revs-file", "skip", "author", "committer", "grep", "since", "until"},
	},
	reject:   []string{"-o", "--output", "--ext-diff", "--textconv", "--output-directory"},
	fileOpts: []string{"-O", "--contents", "--ignore-revs-file"},
}

var gitReadOnlyRules = map[string]*roRule{
	"status":    {opts: optSpec{longArgs: []string{"ignore-submodules"}}},
	"log":       gitHistoryRule,
	"show":      gitHistoryRule,
	"diff":      gitHistoryRule,
	"blame":     gitHistoryRule,
	"rev-parse": {noPaths: true},
	"ls-files":  {opts: optSpec{args: "xX", longArgs: []string{"exclude", "exclude-from", "with-tree", "format"}}, fileOpts: []string{"-X", "--exclude-from"}},
	// branch and tag list only: a name operand creates, and every
	// option is known (strict). Options with a value must use "=";
	// a separate value is an operand and is only allowed when listing.
	"branch": {
		opts: optSpec{
			flags: "arvlqi",
			long: []string{"all", "remotes", "verbose", "list", "quiet", "show-current", "ignore-case",
				"color", "no-color", "column", "no-column", "abbrev", "no-abbrev", "sort", "format",
				"contains", "no-contains", "merged", "no-merged", "points-at", "omit-empty"},
			strict: true,
		},
		noPaths: true,
		check:   operandsOnlyWhenListing,
	},
	"tag": {
		opts: optSpec{
			flags: "lin0123456789",
			long: []string{"list", "ignore-case", "sort", "format", "contains", "no-contains", "merged",
				"no-merged", "points-at", "column", "no-column", "color", "omit-empty"},
			strict: true,
		},
		noPaths: true,
		check:   operandsOnlyWhenListing,
	},
}

// operandsOnlyWhenListing allows operands (patterns) only with -l/--list.
func operandsOnlyWhenListing(args []arg) bool {
	listing := slices.ContainsFunc(args, func(a arg) bool { return a.opt == "-l" || a.opt == "--list" })
	return listing || !slices.ContainsFunc(args, func(a arg) bool { return a.opt == "" })
}

var gitReadOnlyFuncs = map[string]func([]Word) ([]string, bool){
	"remote": gitRemoteReadOnly,
	"config": gitConfigReadOnly,
}

// gitRemoteReadOnly: only `git remote` and `git remote -v` list; the
// subcommands change remotes or contact them.
func gitRemoteReadOnly(args []Word) ([]string, bool) {
	for _, a := range args {
		if a.Value != "-v" && a.Value != "--verbose" {
			return nil, false
		}
	}
	return nil, true
}

// gitConfigOpts are the options of git config that only select where to
// read and how to print.
var gitConfigOpts = optSpec{
	flags: "lz",
	args:  "f",
	long: []string{"get", "get-all", "get-regexp", "get-urlmatch", "list", "global", "system", "local",
		"worktree", "show-origin", "show-scope", "name-only", "null", "bool", "int", "bool-or-int",
		"path", "expiry-date", "includes", "no-includes", "all"},
	longArgs: []string{"file", "type", "default", "blob"},
	permute:  true,
	strict:   true,
}

// gitConfigReadOnly accepts git config only in a reading mode: --get*,
// --list/-l, or the get and list subcommands.
func gitConfigReadOnly(words []Word) ([]string, bool) {
	reading := false
	if len(words) > 0 && (words[0].Value == "get" || words[0].Value == "list") {
		reading, words = true, words[1:]
	}
	args, _, err := gitConfigOpts.parse(words)
	if err != nil {
		return nil, false
	}
	var paths []string
	for _, a := range args {
		switch {
		case a.opt == "-l" || a.opt == "--list" || strings.HasPrefix(a.opt, "--get"):
			reading = true
		case a.opt == "-f" || a.opt == "--file":
			paths = append(paths, pathOf(a))
		}
	}
	if !reading {
		return nil, false
	}
	return paths, true
}
