package bash

import (
	"path"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// gitDirs reads the global options of the git command line words (words[0]
// is git): the directory -C makes git start in ("" for the current one,
// joined as git joins them), --git-dir's value, and where the subcommand
// is; ok is false when they cannot be read (a word that is not static),
// or there is no subcommand.
func gitDirs(words []Word) (dir, gitDir string, sub int, ok bool) {
	args, rest, err := gitGlobals.parse(words[1:])
	if err != nil || 1+rest >= len(words) {
		return "", "", 0, false
	}
	for _, a := range args {
		if a.word != nil && !a.word.Static {
			return "", "", 0, false
		}
		switch a.opt {
		case "-C":
			if a.val != "" {
				dir = path.Join(dir, a.val)
				if strings.HasPrefix(a.val, "/") || strings.HasPrefix(a.val, "~") {
					dir = a.val
				}
			}
		case "--git-dir":
			gitDir = a.val
		}
	}
	return dir, gitDir, 1 + rest, true
}

// under joins p to the directory git -C starts in.
func under(dir, p string) string {
	if dir == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return p
	}
	return dir + "/" + p
}

// gitConfigSpec holds git config's options (git 2.46, the old form; the
// subcommands of the new one take the same), written in full.
var gitConfigSpec = optSpec{
	flags: "lez",
	args:  "f",
	long: []string{"global", "system", "local", "worktree", "get", "get-all", "get-regexp", "get-urlmatch", "get-color",
		"get-colorbool", "list", "show-origin", "show-scope", "name-only", "null", "includes", "no-includes", "bool",
		"int", "bool-or-int", "path", "expiry-date", "fixed-value", "add", "unset", "unset-all", "replace-all",
		"rename-section", "remove-section", "edit", "all", "regexp", "append", "no-type"},
	longArgs: []string{"file", "blob", "type", "default", "comment", "value", "url"},
	exact:    true,
}

// gitConfigReads are the modes of git config that only read.
var gitConfigReads = []string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
	"-l", "--list"}

// gitConfigWrites are the modes of git config that write.
var gitConfigWrites = []string{"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
	"--remove-section", "-e", "--edit"}

// gitConfigTargets returns the files a git config command line (words,
// words[0] git) writes: --global's (~/.gitconfig, ~/.config/git/config),
// --system's (/etc/gitconfig), -f's, else the repository's (.git/config,
// and .git/config.worktree for --worktree; --git-dir's config). Only its
// reading forms write nothing (get, list, --get..., --list, one name):
// anything else writes. dynamic: a word that is not static, so the
// command may write any of them.
func gitConfigTargets(words []Word) (ts []Word, dynamic bool) {
	dir, gitDir, sub, ok := gitDirs(words)
	if !ok || words[sub].Value != "config" {
		return nil, false
	}
	repo := []string{".git/config"}
	if gitDir != "" {
		repo = []string{path.Join(gitDir, "config")}
	}
	word := func(p string) Word {
		p = under(dir, p)
		return Word{Raw: p, Value: p, Static: true, Tilde: strings.HasPrefix(p, "~")}
	}
	global := []string{"~/.gitconfig", "~/.config/git/config"}
	args := words[sub+1:]
	all := func() []Word {
		var out []Word
		for _, p := range append(append(append([]string{}, global...), "/etc/gitconfig"), repo...) {
			out = append(out, word(p))
		}
		return out
	}
	if dynamicWord(args) {
		return all(), true
	}
	form := ""
	if len(args) > 0 && !strings.HasPrefix(args[0].Value, "-") {
		switch args[0].Value {
		case "get", "list":
			return nil, false
		case "set", "unset", "rename-section", "remove-section", "edit":
			form, args = args[0].Value, args[1:]
		}
	}
	parsed, sure := sureArgs(gitConfigSpec, args)
	operands := 0
	for _, a := range parsed {
		if a.opt == "" {
			operands++
		}
	}
	switch {
	case !sure:
	case hasOpt(parsed, "--blob"):
		return nil, false // git refuses to write a blob
	case form != "" || hasOpt(parsed, gitConfigWrites...):
	case hasOpt(parsed, gitConfigReads...), operands == 1:
		return nil, false
	}
	files := repo
	switch {
	case !sure:
		return all(), false
	case hasOpt(parsed, "-f", "--file"):
		files = nil
		for _, a := range parsed {
			if a.opt == "-f" || a.opt == "--file" {
				files = append(files, a.val)
			}
		}
	case hasOpt(parsed, "--global"):
		files = global
	case hasOpt(parsed, "--system"):
		files = []string{"/etc/gitconfig"}
	case hasOpt(parsed, "--worktree"):
		files = append(files, path.Join(path.Dir(repo[0]), "config.worktree"))
	}
	for _, f := range files {
		ts = append(ts, word(f))
	}
	return ts, false
}

// gitMv reads a git mv command line (words[0] git) as mv: its arguments
// with the paths joined to the directory git -C starts in, or not ok.
func gitMv(words []Word) (args []arg, unsure string, ok bool) {
	dir, gitDir, sub, ok := gitDirs(words)
	if !ok || words[sub].Value != "mv" {
		return nil, "", false
	}
	spec := optSpec{flags: "fknv", long: []string{"force", "dry-run", "verbose", "sparse"}, permute: true}
	args, _, err := spec.parse(words[sub+1:])
	if err != nil {
		return nil, "", false
	}
	for i := range args {
		if args[i].opt == "" && dir != "" {
			w := *args[i].word
			w.Value, w.Raw = under(dir, w.Value), under(dir, w.Raw)
			args[i] = arg{val: w.Value, hasVal: true, word: &w}
		}
	}
	if gitDir != "" || hasGlobal(words[1:sub], "--work-tree") {
		unsure = "git mv with --git-dir or --work-tree moves paths of a work tree the gate does not resolve"
	}
	return args, unsure, true
}

// hasGlobal reports a global option (or its =value form) among words.
func hasGlobal(words []Word, name string) bool {
	for _, w := range words {
		if w.Value == name || strings.HasPrefix(w.Value, name+"=") {
			return true
		}
	}
	return false
}

// gitOutputTargets returns the files a git command line (words, words[0]
// git) writes through an output option, joined to -C's directory: the
// diff option --output (log, show, diff, format-patch, ...) and archive's
// --output, each with its value after "=" or as the next word, and -o
// FILE of archive and format-patch (format-patch's --output-directory
// too: it writes its patches in that directory). Every prefix of
// --output and --output-directory counts, as git archive's parse-options
// takes abbreviations. Words after "--" are paths. dynamic: the command
// line cannot be read (a word that is not static).
func gitOutputTargets(words []Word) (ts []Word, dynamic bool) {
	dir, _, sub, ok := gitDirs(words)
	if !ok {
		return nil, dynamicWord(words)
	}
	name := words[sub].Value
	// -o FILE or DIR: archive, format-patch, bugreport, diagnose and
	// index-pack write there.
	short := name == "archive" || name == "format-patch" || name == "bugreport" || name == "diagnose" || name == "index-pack"
	// The options of one subcommand that name a file or directory it
	// writes: fast-export's and fast-import's marks, the daemon's pid
	// file, and the objects directory commit-graph and multi-pack-index
	// write in.
	own := map[string]string{"fast-export": "--export-marks", "fast-import": "--export-marks", "daemon": "--pid-file",
		"commit-graph": "--object-dir", "multi-pack-index": "--object-dir"}[name]
	args := words[sub+1:]
	// A git command that is not read-only writes in the repository and
	// work tree it is pointed at: git -C ../other commit, --git-dir,
	// --work-tree.
	if _, ro := gitReadOnly(words[1:]); !ro {
		for _, d := range gitElsewhere(words[1:sub], dir) {
			ts = append(ts, Word{Raw: d, Value: d, Static: true, Tilde: strings.HasPrefix(d, "~")})
		}
	}
	if more, dyn, made := gitMadeTargets(dir, words[sub].Value, args); made {
		return append(ts, more...), dyn
	}
	add := func(w Word) {
		if !w.Static {
			dynamic = true
			return
		}
		p := under(dir, w.Value)
		ts = append(ts, Word{Raw: p, Value: p, Static: true, Tilde: w.Tilde && p == w.Value})
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			dynamic = true
			continue
		}
		v := w.Value
		switch {
		case v == "--":
			return ts, dynamic
		case LongAbbrev(v, "--output") || LongAbbrev(v, "--output-directory") || own != "" && LongAbbrev(v, own):
			_, val, eq := strings.Cut(v, "=")
			if out, last, ok := optValue(args, i, val, eq); ok {
				i = last
				add(out)
			}
		case short && optCluster(v) && strings.IndexByte(v, 'o') > 0:
			val := v[strings.IndexByte(v, 'o')+1:]
			if out, last, ok := optValue(args, i, val, val != ""); ok {
				i = last
				add(out)
			}
		}
	}
	return ts, dynamic
}

// gitMakers are git subcommands that make a repository, a work tree or a
// file where their operands say (with the sub-subcommand that does, if
// any): every operand they are given counts as written (a value of an
// option given as the next word too, which only makes the check
// stricter) but clone's first (the repository cloned) and merge-file's
// second and third (read), and the current directory when none does:
// git init (init-db, its old name) and git clone make their repository
// there. pack-objects writes BASE-NAME-<hash>.pack beside its operand.
// submodule add clones as clone does, and records the submodule in
// .gitmodules.
var gitMakers = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"init": "", "init-db": "", "clone": "", "worktree": "add", "bundle": "create", "merge-file": "",
		"checkout-index": "", "pack-objects": "", "submodule": "add"}
}}

// gitMadeTargets returns what a git subcommand of gitMakers (sub, with
// its arguments args) writes, joined to -C's directory dir; made is false
// for another subcommand. --separate-git-dir and checkout-index's
// --prefix name a directory written too.
func gitMadeTargets(dir, sub string, args []Word) (ts []Word, dynamic, made bool) {
	want, ok := gitMakers.Get()[sub]
	if !ok {
		return nil, false, false
	}
	if want != "" {
		if len(args) == 0 || !args[0].Static || args[0].Value != want {
			return nil, dynamicWord(args), true
		}
		args = args[1:]
	}
	add := func(v string) {
		p := under(dir, v)
		ts = append(ts, Word{Raw: p, Value: p, Static: true, Tilde: strings.HasPrefix(p, "~")})
	}
	operands := 0
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			dynamic = true
			continue
		}
		v := w.Value
		switch {
		case LongAbbrev(v, "--separate-git-dir") || sub == "checkout-index" && LongAbbrev(v, "--prefix"):
			_, val, eq := strings.Cut(v, "=")
			if out, last, ok := optValue(args, i, val, eq); ok {
				i = last
				add(out.Value)
			}
		case strings.HasPrefix(v, "-") && v != "-":
		case sub == "checkout-index":
			// Its operands are paths in the work tree it checks out.
		default:
			operands++
			switch {
			case (sub == "clone" || sub == "submodule") && operands == 1:
				// The repository cloned: read, not written.
			case sub == "merge-file" && operands > 1:
				// The base and the other version: read.
			default:
				add(v)
			}
		}
	}
	if (sub == "init" || sub == "init-db") && operands == 0 || (sub == "clone" || sub == "submodule") && operands < 2 {
		add(".") // the repository is made here (clone: in a directory of it)
	}
	if sub == "submodule" {
		add(".gitmodules") // where submodule add records it
	}
	return ts, dynamic, true
}

// gitElsewhere returns the directories git's global options (globals)
// point it at, joined as git joins them: the -C directory dir when there
// is one, and --git-dir's and --work-tree's values under it.
func gitElsewhere(globals []Word, dir string) []string {
	var out []string
	if dir != "" {
		out = append(out, dir)
	}
	for i := 0; i < len(globals); i++ {
		v := globals[i].Value
		for _, o := range []string{"--git-dir", "--work-tree"} {
			switch {
			case strings.HasPrefix(v, o+"="):
				out = append(out, under(dir, v[len(o)+1:]))
			case v == o && i+1 < len(globals):
				i++
				out = append(out, under(dir, globals[i].Value))
			}
		}
	}
	return out
}

// gitHomeWriters are git subcommands that write files in the user's home
// directory, by the action (the word after the subcommand) that does:
// git maintenance register, unregister, start and stop add the
// repository to (or take it from) the global configuration's
// maintenance.repo, and start and stop install (or remove) the
// scheduler's jobs that run git maintenance in it; git credential
// approve and reject, and git credential-store store and erase, change
// the credentials the store helper keeps.
var gitHomeWriters = lazy.Value[map[string]gitHomeWriter]{New: func() map[string]gitHomeWriter {
	config := []string{"~/.gitconfig", "~/.config/git/config"}
	creds := []string{"~/.git-credentials", "~/.config/git/credentials"}
	return map[string]gitHomeWriter{
		"maintenance":      {[]string{"register", "unregister", "start", "stop"}, config, "--config-file", false},
		"credential":       {[]string{"approve", "reject"}, creds, "", false},
		"credential-store": {[]string{"store", "erase"}, creds, "--file", false},
		// git lfs install and uninstall set (or unset) the lfs filters
		// in the global configuration (--local, --worktree, --system:
		// another one), and with update install the
		// repository's hooks (in its git directory, which may be
		// elsewhere): not all known.
		"lfs": {[]string{"install", "uninstall", "update"}, config, "", true},
	}
}}

// gitHomeWriter is one of gitHomeWriters: the actions that write, the
// files they write, and the option naming another file they write.
type gitHomeWriter struct {
	actions, files []string
	fileOpt        string
	// more: the action writes other files too, not known here.
	more bool
}

// gitHomeTargets returns the files a git command line (words, words[0]
// git) of gitHomeWriters writes in the user's home, and the file its
// option names. An action or option that is not static may be one that
// writes.
func gitHomeTargets(words []Word) (ts []Word, dynamic bool) {
	dir, _, sub, ok := gitDirs(words)
	if !ok {
		return nil, false
	}
	hw, ok := gitHomeWriters.Get()[words[sub].Value]
	if !ok {
		return nil, false
	}
	args := words[sub+1:]
	// The action is the first word that is not an option or the file
	// option's value.
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case !w.Static:
		case hw.fileOpt != "" && LongAbbrev(w.Value, hw.fileOpt) && !strings.Contains(w.Value, "="):
			i++
			continue
		case strings.HasPrefix(w.Value, "-"):
			continue
		case !slices.Contains(hw.actions, w.Value):
			return nil, false
		}
		break
	}
	for _, f := range hw.files {
		ts = append(ts, Word{Raw: f, Value: f, Static: true, Tilde: true})
	}
	dynamic = hw.more
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			dynamic = true
			continue
		}
		if hw.fileOpt == "" || !LongAbbrev(w.Value, hw.fileOpt) {
			continue
		}
		_, val, eq := strings.Cut(w.Value, "=")
		if out, last, ok := optValue(args, i, val, eq); ok {
			i = last
			if !out.Static {
				dynamic = true
				continue
			}
			p := under(dir, out.Value)
			ts = append(ts, Word{Raw: p, Value: p, Static: true, Tilde: out.Tilde && p == out.Value})
		}
	}
	return ts, dynamic
}
