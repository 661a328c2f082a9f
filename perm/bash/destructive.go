package bash

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
)

// Destructive returns a short label naming the destructive operation the
// command performs ("rm -r", "git push --force", "git reset --hard",
// "git clean -f", "git checkout --", "git branch -D", "chmod 777", "dd",
// "mkfs", "fdisk", "shred", "fork bomb", ...), or "" if none. It looks at
// every reading DenyForms does, so wrappers, sudo, env, xargs, find -exec,
// quoting, paths and git global options do not hide an operation.
func (c *Command) Destructive() string {
	if c.forkBomb {
		return "fork bomb"
	}
	maybe := ""
	for _, v := range c.variants() {
		switch label := destructive(v); label {
		case "":
		case labelRmDynamic:
			maybe = label // a definite label from another reading is better
		default:
			return label
		}
	}
	return maybe
}

// destructive classifies one reading of a command.
func destructive(words []Word) string {
	if !words[0].Static {
		return ""
	}
	prog, args := path.Base(words[0].Value), words[1:]
	switch {
	case prog == "rm":
		return rmLabel(args)
	case prog == "git":
		return gitLabel(words)
	case prog == "chmod":
		return chmodLabel(args)
	case prog == "mkdir" || prog == "install":
		if m, ok := modeOption(args); ok && worldWritable(m) {
			return prog + " -m 777"
		}
	case prog == "systemctl":
		for _, a := range args {
			if a.Static && systemctlPersist.Get()[a.Value] {
				return "systemctl " + a.Value
			}
		}
	case prog == "dd":
		for _, a := range args {
			if a.Static && (strings.HasPrefix(a.Value, "if=") || strings.HasPrefix(a.Value, "of=")) {
				return "dd"
			}
		}
	case prog == "mkfs" || strings.HasPrefix(prog, "mkfs.") || prog == "mke2fs":
		return "mkfs"
	case diskTools.Get()[prog]:
		return prog
	case prog == "find":
		if hasWord(args, "-delete") {
			return "find -delete"
		}
	case prog == "rsync":
		if hasLong(args, "--delete", 8) || hasLong(args, "--remove-source-files", 8) {
			return "rsync --delete"
		}
	case prog == "xargs":
		// The arguments come from standard input, so they may hold
		// options: an rm behind xargs may be recursive.
		if inner, ok := unwrap(words, broadWrappers.Get(), true); ok && len(inner) > 0 &&
			inner[0].Static && path.Base(inner[0].Value) == "rm" {
			return labelRmDynamic
		}
	}
	return ""
}

const labelRmDynamic = "rm (dynamic arguments)"

var diskTools = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"fdisk": true, "sfdisk": true, "cfdisk": true, "gdisk": true, "sgdisk": true,
		"parted": true, "wipefs": true, "shred": true,
	}
}}

func hasWord(words []Word, v string) bool {
	for _, w := range words {
		if w.Static && w.Value == v {
			return true
		}
	}
	return false
}

// rmLabel classifies rm's arguments: recursive (-r in any spelling,
// anywhere before "--"), or possibly so when an argument that is not
// static may expand to an option.
func rmLabel(args []Word) string {
	if opts, _ := readOptions("rm", args); hasOption(opts, "-r") {
		return "rm -r"
	}
	dynamic := false
	for _, w := range args {
		if w.Static && w.Value == "--" {
			break
		}
		dynamic = dynamic || !w.Static && mayBeOption(w)
	}
	return dynamicLabel(dynamic)
}

// readOptions reads args, the words after a command's program (and after
// git's subcommand), with the option names of key ("rm", "git push"), as
// OptionNames.Split reads a command: opts are the options in their one
// spelling, with "=value" when one is attached, and operands the words
// that are neither an option nor an option's value. A long option that
// abbreviates more than one option counts as each: a version of the
// program with fewer options may take it as one of them. A word that is
// not static is an operand or a value.
func readOptions(key string, args []Word) (opts []string, operands []Word) {
	prog, sub, _ := strings.Cut(key, " ")
	o := Options(prog, sub)
	r := optReader{names: o}
	for _, a := range args {
		v := a.Value
		if !a.Static {
			v = "$" // an operand where one may stand, else a value
		}
		n, value := len(opts), r.value
		var isOpt bool
		if opts, isOpt = r.next(opts, v); !isOpt && !value {
			operands = append(operands, a)
		}
		for _, x := range opts[n:] {
			if name := longName(x); o != nil && strings.HasPrefix(name, "--") && o.canon[name] == "" {
				for _, l := range o.longs {
					if strings.HasPrefix(l, name) {
						opts = append(opts, o.canon[l])
					}
				}
			}
		}
	}
	return opts, operands
}

// hasOption reports whether opts (readOptions) hold the option name, with a
// value or without.
func hasOption(opts []string, name string) bool {
	return slices.ContainsFunc(opts, func(o string) bool {
		return o == name || len(o) > len(name) && o[len(name)] == '=' && strings.HasPrefix(o, name)
	})
}

func dynamicLabel(dynamic bool) string {
	if dynamic {
		return labelRmDynamic
	}
	return ""
}

// mayBeOption reports whether a word that is not static may expand to an
// option: it starts with "-" (possibly quoted or escaped), or with an
// unquoted expansion whose splitting may produce any words at all. A word
// starting with a quoted expansion ("$f") or literal text is taken to be
// an operand.
func mayBeOption(w Word) bool {
	raw := strings.TrimLeft(w.Raw, `"'\`)
	return strings.HasPrefix(raw, "-") || strings.HasPrefix(w.Raw, "$") || strings.HasPrefix(w.Raw, "`")
}

// shortCluster calls fn for each letter of a short option cluster up to
// (and including) the first letter in stopAt, whose argument is the rest.
func shortCluster(v, stopAt string, fn func(c byte)) {
	for i := 1; i < len(v); i++ {
		fn(v[i])
		if strings.IndexByte(stopAt, v[i]) >= 0 {
			return
		}
	}
}

// gitLabel classifies a git command line.
func gitLabel(words []Word) string {
	if g, ok := withoutGitGlobals(words); ok {
		words = g
	}
	if len(words) < 2 || !words[1].Static {
		return ""
	}
	args := words[2:]
	switch words[1].Value {
	case "push":
		return gitPushLabel(args)
	case "reset":
		if opts, _ := readOptions("git reset", args); hasOption(opts, "--hard") {
			return "git reset --hard"
		}
	case "clean":
		return gitCleanLabel(args)
	case "checkout":
		return gitCheckoutLabel(args)
	case "switch":
		if opts, _ := readOptions("git switch", args); hasOption(opts, "-f") { // --force, --discard-changes
			return "git switch --discard-changes"
		}
	case "restore":
		staged := hasLong(args, "--staged", 4) || hasShort(args, 'S', "s")
		worktree := hasLong(args, "--worktree", 3) || hasShort(args, 'W', "s")
		if !staged || worktree {
			return "git restore"
		}
	case "branch":
		return gitBranchLabel(args)
	case "stash":
		if len(args) > 0 && args[0].Static && (args[0].Value == "drop" || args[0].Value == "clear") {
			return "git stash " + args[0].Value
		}
	case "rm":
		if opts, _ := readOptions("git rm", args); hasOption(opts, "-r") {
			return "git rm -r"
		}
	case "reflog":
		if len(args) > 0 && args[0].Static && (args[0].Value == "expire" || args[0].Value == "delete") {
			return "git reflog " + args[0].Value // drops the history that undoes a reset
		}
	case "gc", "prune":
		if hasLong(args, "--prune", 4) || words[1].Value == "prune" {
			return "git " + words[1].Value + " --prune"
		}
	case "update-ref":
		if hasShort(args, 'd', "m") || hasLong(args, "--delete", 3) {
			return "git update-ref -d"
		}
	}
	return ""
}

// hasLong reports a long option that is, or may abbreviate, full.
func hasLong(args []Word, full string, min int) bool {
	for _, a := range args {
		if a.Static && strings.HasPrefix(a.Value, "--") && abbrev(longName(a.Value), full, min) {
			return true
		}
	}
	return false
}

// hasShort reports the short option c in any cluster; stopAt lists the
// options whose argument ends a cluster.
func hasShort(args []Word, c byte, stopAt string) bool {
	found := false
	for _, a := range args {
		if a.Static && optCluster(a.Value) {
			shortCluster(a.Value, stopAt, func(x byte) { found = found || x == c })
		}
	}
	return found
}

// gitPushLabel: a forced update (-f in any spelling, a +refspec), a
// mirror, or a deleted remote ref (-d, --prune, a :ref refspec).
func gitPushLabel(args []Word) string {
	opts, operands := readOptions("git push", args)
	switch {
	case hasOption(opts, "-f"):
		return "git push --force"
	case hasOption(opts, "--mirror"):
		return "git push --mirror"
	case hasOption(opts, "-d") || hasOption(opts, "--prune"):
		return "git push --delete"
	}
	for _, a := range operands {
		if a.Static && len(a.Value) > 1 && a.Value[0] == ':' {
			return "git push --delete" // :branch deletes the remote branch
		}
	}
	return ""
}

// gitCleanLabel: git clean deletes untracked files unless it is a dry run.
// Without -f git refuses by default, but clean.requireForce may be off in
// a configuration this analysis cannot see, so only -n/--dry-run is safe.
func gitCleanLabel(args []Word) string {
	opts, _ := readOptions("git clean", args)
	switch {
	case hasOption(opts, "-f"):
		return "git clean -f"
	case hasOption(opts, "-n"):
		return ""
	}
	return "git clean"
}

func gitCheckoutLabel(args []Word) string {
	for _, a := range args {
		if a.Static && (a.Value == "--") {
			return "git checkout --"
		}
		if a.Static && (a.Value == "." || a.Value == "./") {
			return "git checkout ."
		}
	}
	if opts, _ := readOptions("git checkout", args); hasOption(opts, "-f") {
		return "git checkout --force"
	}
	return ""
}

func gitBranchLabel(args []Word) string {
	opts, _ := readOptions("git branch", args)
	switch {
	case hasOption(opts, "-D") || hasOption(opts, "-d") && hasOption(opts, "-f"):
		return "git branch -D"
	case hasOption(opts, "-M"):
		return "git branch -M"
	}
	return ""
}

var (
	symbolicModeRe = lazyre.MustCompile(`^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$`)
	modeOpRe       = lazyre.MustCompile(`[-+=][^-+=]*`)
)

// chmodLabel reports a mode that makes files world-writable: octal with
// the others' write bit (777, 0777, 666, 1777) or a symbolic clause giving
// a or o write permission (a+rwx, o+w, a=u).
func chmodLabel(args []Word) string {
	for _, a := range args {
		if !a.Static {
			continue
		}
		v := a.Value
		if strings.HasPrefix(v, "--") || strings.HasPrefix(v, "-") && !symbolicModeRe.Get().MatchString(v) {
			continue // an option such as -R or --reference=f
		}
		if worldWritable(v) {
			return "chmod 777"
		}
		return "" // only the first operand is the mode
	}
	return ""
}

func worldWritable(mode string) bool {
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil {
		return len(strings.TrimLeft(mode, "0")) <= 4 && n&0o002 != 0 // 00777 is 777
	}
	for _, clause := range strings.Split(mode, ",") {
		m := symbolicModeRe.Get().FindStringSubmatch(clause)
		if m == nil || !strings.ContainsAny(m[1], "ao") {
			continue
		}
		for _, op := range modeOpRe.Get().FindAllString(m[2], -1) {
			if op[0] != '-' && strings.ContainsAny(op[1:], "wug") {
				return true
			}
		}
	}
	return false
}

// systemctlPersist are systemctl verbs that make a unit start on its own
// later (or stop one ever starting).
var systemctlPersist = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"enable": true, "reenable": true, "link": true, "preset": true, "preset-all": true,
		"mask": true, "add-wants": true, "add-requires": true, "set-default": true, "edit": true,
	}
}}

// modeOption returns the value of mkdir's or install's -m/--mode option
// ("-m 777", "-m777", "--mode=777", "--mode 777"; the last one counts).
func modeOption(args []Word) (string, bool) {
	mode, found := "", false
	for i, a := range args {
		if !a.Static {
			continue
		}
		v := a.Value
		switch {
		case v == "--":
			return mode, found
		case v == "-m" || abbrev(v, "--mode", 3) && !strings.Contains(v, "="):
			if i+1 < len(args) && args[i+1].Static {
				mode, found = args[i+1].Value, true
			}
		case strings.HasPrefix(v, "--") && abbrev(longName(v), "--mode", 3):
			_, mode, _ = strings.Cut(v, "=")
			found = true
		case optCluster(v):
			if j := strings.IndexByte(v, 'm'); j > 0 && j+1 < len(v) {
				mode, found = v[j+1:], true
			} else if j == len(v)-1 && i+1 < len(args) && args[i+1].Static {
				mode, found = args[i+1].Value, true
			}
		}
	}
	return mode, found
}
