package bash

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/gen-run/gen/internal/lazy"
)

// OptionNames maps every spelling of a program's options to one: a short
// and a long name of the same option, two short names of it (rm -R and
// -r), and a long name's unambiguous abbreviations (rm --rec). Deny and
// ask rules match a command with both put in these spellings, so that a
// rule naming an option matches every way of writing it. It only ever
// makes those rules match more; allow rules do not use it.
type OptionNames struct {
	canon map[string]string // every listed name to its option's first short name, else its first name
	// arg says, for every listed name, whether its option takes a value.
	arg   map[string]argMode
	longs []string // the listed long names, for abbreviations
	// singleDash: "-name" is one option, not a run of short ones (find).
	singleDash bool
	// plus is the option a "+" operand stands for (git push +ref forces
	// that update, as -f does).
	plus string
}

// synonyms lists, in the spec grammar of progSpec.opts (names, and
// "=KIND" or "[=KIND]" for an option that takes a value; KIND itself is
// ignored), option names of programs and git subcommands the read-only
// specs leave out: those that write, delete or force, which deny rules
// name, and those that take a value. It is the one record of what these
// options mean: deny and ask rules match by it (OptionNames) and so does
// the destructive check (Destructive). A name listed as another's may
// only make those match more; an option listed as taking a value makes
// the word that is its value no option, so each such entry is checked
// against the program's own help (GNU coreutils 9.1, git 2.39).
//
// git push's --force-with-lease and --force-if-includes are listed as -f:
// each forces an update as -f does (only with a safety check), so a rule
// denying forced pushes denies them too; a rule naming either also
// matches -f. A "+ref" operand counts as -f (OptionNames.plus).
var synonyms = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"rm": "-f,--force -i -I --interactive[=WHEN] -r,-R,--recursive -d,--dir -v,--verbose --one-file-system " +
			"--no-preserve-root --preserve-root[=all]",
		"cp": "-a,--archive -b,--backup[=CONTROL] -d -f,--force -i,--interactive -H -l,--link -L,--dereference " +
			"-n,--no-clobber -P,--no-dereference -p --preserve[=LIST] --no-preserve=LIST --parents -r,-R,--recursive " +
			"--reflink[=WHEN] --remove-destination --sparse=WHEN --strip-trailing-slashes -s,--symbolic-link " +
			"-S,--suffix=SUFFIX -t,--target-directory=DIR -T,--no-target-directory -u,--update[=WHEN] -v,--verbose " +
			"-x,--one-file-system -Z,--context[=CTX] --attributes-only --debug",
		"mv": "-b,--backup[=CONTROL] -f,--force -i,--interactive -n,--no-clobber -S,--suffix=SUFFIX " +
			"-t,--target-directory=DIR -T,--no-target-directory -u,--update[=WHEN] -v,--verbose -Z,--context " +
			"--strip-trailing-slashes --exchange --no-copy --debug",
		"chmod": "-R,--recursive -c,--changes -f,--silent,--quiet -v,--verbose --no-preserve-root --preserve-root " +
			"--reference=RFILE",
		"chown": chownNames,
		"chgrp": chgrpNames,
		"grep":  "-r,-R,--recursive,--dereference-recursive",
		"sed":   "-i,--in-place[=SUFFIX] -f,--file=FILE --follow-symlinks",
		"find":  "",
		"xargs": "-a,--arg-file=FILE -P,--max-procs=N -p,--interactive -o,--open-tty --process-slot-var=NAME --show-limits",

		"git push": "-f,--force,--force-if-includes,--force-with-lease[=REF] -d,--delete -n,--dry-run --mirror --all " +
			"--tags --prune --follow-tags --atomic -o,--push-option=OPT --no-verify -u,--set-upstream -q,--quiet " +
			"-v,--verbose --receive-pack=PACK --exec=PACK --repo=REPO --recurse-submodules=MODE --signed[=WHEN] " +
			"--porcelain --thin --progress -4,--ipv4 -6,--ipv6",
		"git clean": "-f,--force -d -x -X -n,--dry-run -q,--quiet -i,--interactive -e,--exclude=PATTERN",
		"git reset": "--hard --soft --mixed --merge --keep -q,--quiet -p,--patch -N,--intent-to-add --recurse-submodules[=MODE] " +
			"--no-refresh --pathspec-from-file=FILE --pathspec-file-nul",
		"git checkout": "-f,--force -b=BRANCH -B=BRANCH -l -q,--quiet -m,--merge -p,--patch -2,--ours -3,--theirs " +
			"-t,--track[=MODE] -d,--detach --orphan=BRANCH --overwrite-ignore --conflict=STYLE --recurse-submodules[=MODE] " +
			"--progress --guess --overlay --ignore-other-worktrees --ignore-skip-worktree-bits --pathspec-from-file=FILE " +
			"--pathspec-file-nul",
		"git switch": "-f,--force,--discard-changes -c,--create=BRANCH -C,--force-create=BRANCH -d,--detach -m,--merge " +
			"-t,--track[=MODE] -q,--quiet --conflict=STYLE --orphan=BRANCH --recurse-submodules[=MODE] --progress --guess " +
			"--overwrite-ignore --ignore-other-worktrees",
		"git branch": "-d,--delete -D -f,--force -m,--move -M -c,--copy -C -u,--set-upstream-to=UPSTREAM -t,--track[=MODE] " +
			"--unset-upstream --create-reflog --edit-description --recurse-submodules",
		"git rm": "-r -f,--force -n,--dry-run -q,--quiet --cached --ignore-unmatch --sparse --pathspec-from-file=FILE " +
			"--pathspec-file-nul",
		"git add": "-f,--force -A,--all,--no-ignore-removal -u,--update -n,--dry-run -v,--verbose -p,--patch -N,--intent-to-add " +
			"-i,--interactive -e,--edit --renormalize --ignore-removal --refresh --ignore-errors --ignore-missing --sparse " +
			"--chmod=MODE --pathspec-from-file=FILE --pathspec-file-nul",
		"git commit": "-q,--quiet -v,--verbose -F,--file=FILE --author=AUTHOR --date=DATE -m,--message=MSG " +
			"-c,--reedit-message=COMMIT -C,--reuse-message=COMMIT --fixup=COMMIT --squash=COMMIT --reset-author " +
			"--trailer=TRAILER -s,--signoff -t,--template=FILE -e,--edit --cleanup=MODE --status -S,--gpg-sign[=KEYID] " +
			"-a,--all -i,--include --interactive -p,--patch -o,--only -n,--no-verify --dry-run --short --branch " +
			"--ahead-behind --porcelain --long -z,--null --amend --no-post-rewrite -u,--untracked-files[=MODE] " +
			"--pathspec-from-file=FILE --pathspec-file-nul",
	}
}}

// chgrpNames are chgrp's options; chown has them and --from.
const (
	chgrpNames = "-R,--recursive -c,--changes -f,--silent,--quiet -v,--verbose --dereference -h,--no-dereference " +
		"--no-preserve-root --preserve-root --reference=RFILE -H -L -P"
	chownNames = chgrpNames + " --from=OWNER"
)

// optionNames caches the OptionNames by program ("rm", "git push"), each
// built on its first use from synonyms and the program's read-only spec
// (buildOptionNames): a policy pays only for the programs its rules name.
// Only programs with names are kept, so the cache is bounded.
var optionNames sync.Map

// buildOptionNames returns the OptionNames of key, a program or "git
// SUB", or nil if neither synonyms nor a spec lists its options.
func buildOptionNames(key string) *OptionNames {
	o := &OptionNames{canon: map[string]string{}, arg: map[string]argMode{}, singleDash: key == "find"}
	opts, listed := synonyms.Get()[key]
	if listed {
		s := &progSpec{name: key, opts: opts}
		s.compile()
		o.addDefs(s.defs)
	}
	var spec func() *progSpec
	switch sub, git := strings.CutPrefix(key, "git "); {
	case key == "sed":
		spec = sedSpec.Get
	case key == "xargs":
		spec = xargsSpec.Get
	case git:
		spec = gitSpecs.Get()[sub]
	default:
		spec = specs.Get()[key]
	}
	if spec != nil {
		o.addDefs(spec().defs)
	} else if !listed {
		return nil
	}
	if key == "git push" {
		o.plus = "-f"
	}
	return o
}

// addDefs adds the names of defs that are not listed yet: synonyms are
// added first, so they win over a spec's names.
func (o *OptionNames) addDefs(defs []*optDef) {
	for _, d := range defs {
		canon := d.names[0]
		for _, n := range d.names {
			if len(n) == 2 {
				canon = n
				break
			}
		}
		for _, n := range d.names {
			if _, ok := o.canon[n]; ok {
				continue
			}
			o.canon[n] = canon
			o.arg[n] = d.arg
			if strings.HasPrefix(n, "--") {
				o.longs = append(o.longs, n)
			}
		}
	}
}

// Options returns the option names of the program a command line runs:
// prog is its first word (a path counts by its base name), sub its second
// (git's subcommand). It returns nil for a program it knows nothing of,
// whose every spelling is its own.
func Options(prog, sub string) *OptionNames {
	key := path.Base(prog)
	if key == "git" {
		key += " " + sub
	}
	if o, ok := optionNames.Load(key); ok {
		return o.(*OptionNames)
	}
	o := buildOptionNames(key)
	if o == nil {
		return nil
	}
	stored, _ := optionNames.LoadOrStore(key, o)
	return stored.(*OptionNames)
}

// Canon returns the one spelling of the option name ("-R", "--recursive"
// or "--rec", without any "=value"): its option's short name if it has
// one, else its full long name. An unknown name, or an abbreviation of
// more than one listed option (getoptLong), is returned as it is. o may
// be nil.
func (o *OptionNames) Canon(name string) string {
	c, _ := o.lookup(name)
	return c
}

// Value reports whether the option name takes a value of its own (an
// "=value" or, for a short option, the rest of its run) and, when none is
// attached, the next word: getopt's required argument (git push -o, git
// commit -m). An unknown name takes none. o may be nil.
func (o *OptionNames) Value(name string) bool {
	_, a := o.lookup(name)
	return a == argRequired
}

// lookup returns the one spelling of name (Canon) and whether its option
// takes a value. An abbreviation takes its value from the next word only
// if every listed name it abbreviates does.
func (o *OptionNames) lookup(name string) (string, argMode) {
	if o == nil {
		return name, argNone
	}
	if c, ok := o.canon[name]; ok {
		return c, o.arg[name]
	}
	if !strings.HasPrefix(name, "--") || len(name) < 3 {
		return name, argNone
	}
	_, c, found := getoptLong(name, func(yield func(string, string) bool) {
		for _, l := range o.longs {
			if !yield(l, o.canon[l]) {
				return
			}
		}
	})
	if !found {
		return name, argNone
	}
	a := argRequired
	for _, l := range o.longs {
		if strings.HasPrefix(l, name) && o.arg[l] != argRequired {
			a = argNone // a value, if any, is attached
		}
	}
	return c, a
}

// SingleDash reports a program whose "-name" words are each one option
// (find's -delete), not runs of short options. o may be nil.
func (o *OptionNames) SingleDash() bool { return o != nil && o.singleDash }

// Plus returns the option a "+" operand stands for ("" if none): git
// push +ref forces the update as -f does. o may be nil.
func (o *OptionNames) Plus() string {
	if o == nil {
		return ""
	}
	return o.plus
}

// Split returns the options of the command text s (words joined by
// single spaces, the first its program) in their one spelling (Canon),
// sorted and without repeats, and its other words in order: rm x -Rf is
// -f, -r and "rm x". Words are read as GNU getopt reads them
// (optReader): every word after the program that starts with "-" is an
// option, wherever it stands, until a "--" (kept in rest), so a deny rule
// also matches an option given after an operand; but an option that
// requires a value (Value) ends a run of short options, the rest of the
// run being its value (git push -ofoo is -o=foo), and, with none
// attached, the next word is its value, kept in rest whatever it starts
// with (git commit -m -f is -m and "git commit -f"). A short option whose
// value is optional is read as taking none, the broad reading. A "+" operand (Plus) counts wherever it
// stands, after "--" too. A run of short options of a program that does
// not list them is split into its letters up to the first byte other
// than an ASCII letter or digit, which starts the last letter's value
// (-i.bak is -i=.bak). A value is kept after "=" (--in-place=.bak is
// -i=.bak). A word holding "*" (a rule's wildcard) is no option. ok is
// false if s has no option. o may be nil: every letter is then an option
// of its own.
func (o *OptionNames) Split(s string) (opts []string, rest string, ok bool) {
	if !strings.Contains(s, " -") && (o.Plus() == "" || !strings.Contains(s, " +")) {
		return nil, "", false
	}
	prog, args, _ := strings.Cut(s, " ")
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(prog)
	r := optReader{names: o}
	for w := range strings.SplitSeq(args, " ") {
		var isOpt bool
		if opts, isOpt = r.next(opts, w); !isOpt {
			b.WriteByte(' ')
			b.WriteString(w)
		}
	}
	if len(opts) == 0 {
		return nil, "", false
	}
	slices.Sort(opts)
	return slices.Compact(opts), b.String(), true
}

// optReader reads the words after a command's program one at a time, as
// GNU getopt reads them with OptionNames names (Split).
type optReader struct {
	names *OptionNames
	ended bool // a "--" ended the options
	value bool // the next word is the value of the option before it
}

// next appends the options the word w holds to opts, each in its one
// spelling with "=value" when a value is attached, and reports whether w
// is an option word. Any other word (an operand, "--", the value of the
// option before it) is the caller's; a "+" operand also appends the
// option it stands for (Plus).
func (r *optReader) next(opts []string, w string) ([]string, bool) {
	o := r.names
	switch {
	case r.value:
		r.value = false
		return opts, false
	case r.ended || len(w) < 2 || w[0] != '-' || strings.IndexByte(w, '*') >= 0:
		// "+ref" is an operand, so it counts after "--" too:
		// git push -- origin +main forces the update.
		if plus := o.Plus(); plus != "" && len(w) > 1 && w[0] == '+' {
			opts = append(opts, plus)
		}
		return opts, false
	case w == "--":
		r.ended = true
		return opts, false
	case o.SingleDash():
		return append(opts, o.Canon(w)), true
	case w[1] == '-':
		name, val, hasVal := strings.Cut(w, "=")
		c, a := o.lookup(name)
		if hasVal {
			c += "=" + val
		}
		r.value = !hasVal && a == argRequired
		return append(opts, c), true
	}
	for j := 1; j < len(w); j++ {
		c := w[j]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			if j == 1 {
				return append(opts, w), true // no letter: the word is one name
			}
			opts[len(opts)-1] += "=" + w[j:]
			return opts, true
		}
		// Only a required value ends the run: the tables give a short
		// and a long name one argument mode, and GNU programs' short
		// names rarely take an optional one (cp -Zr is -Z -r, though
		// --context takes one), so the run goes on after such a name.
		name, a := o.lookup(dash(c))
		opts = append(opts, name)
		if a == argRequired {
			if j+1 < len(w) {
				opts[len(opts)-1] += "=" + w[j+1:]
			}
			r.value = j+1 == len(w)
			return opts, true
		}
	}
	return opts, true
}
