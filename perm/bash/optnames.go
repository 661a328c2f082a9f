package bash

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// OptionNames maps every spelling of a program's options to one: a short
// and a long name of the same option, two short names of it (rm -R and
// -r), and a long name's unambiguous abbreviations (rm --rec). Deny and
// ask rules match a command with both put in these spellings, so that a
// rule naming an option matches every way of writing it. It only ever
// makes those rules match more; allow rules do not use it.
type OptionNames struct {
	canon map[string]string // every listed name to its option's first short name, else its first name
	longs []string          // the listed long names, for abbreviations
	// valued are the listed short names that require a value: in a run of
	// short options, what follows one is its value (git push -ofoo is
	// -o=foo, not -o -f -o), as getopt and git's option parser read it.
	valued map[string]bool
	// singleDash: "-name" is one option, not a run of short ones (find).
	singleDash bool
	// plus is the option a "+" operand stands for (git push +ref forces
	// that update, as -f does).
	plus string
}

// synonyms lists, in the spec grammar of progSpec.opts (names only;
// KIND markers are accepted and ignored), option names of programs and
// git subcommands the read-only specs leave out: those that write,
// delete or force, which deny rules name. It is a normalisation only:
// a listed name may only make deny and ask rules match more commands.
//
// git push's --force-with-lease and --force-if-includes are listed as -f:
// each forces an update as -f does (only with a safety check), so a rule
// denying forced pushes denies them too; a rule naming either also
// matches -f. A "+ref" operand counts as -f (OptionNames.plus).
var synonyms = map[string]string{
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
	"chgrp": chownNames,
	"grep":  "-r,-R,--recursive,--dereference-recursive",
	"sed":   "-i,--in-place[=SUFFIX] -f,--file=FILE --follow-symlinks",
	"find":  "",
	"xargs": "-a,--arg-file=FILE -P,--max-procs=N -p,--interactive -o,--open-tty --process-slot-var=NAME --show-limits",

	"git push": "-f,--force,--force-if-includes,--force-with-lease[=REF] -d,--delete -n,--dry-run --mirror --all " +
		"--tags --prune --follow-tags --atomic -o,--push-option=OPT --no-verify -u,--set-upstream -q,--quiet " +
		"-v,--verbose --receive-pack=PACK --repo=REPO",
	"git clean":    "-f,--force -d -x -X -n,--dry-run -q,--quiet -i,--interactive -e,--exclude=PATTERN",
	"git reset":    "--hard --soft --mixed --merge --keep -q,--quiet -p,--patch -N,--intent-to-add --recurse-submodules",
	"git checkout": "-f,--force -b -B -q,--quiet -m,--merge -p,--patch --ours --theirs -t,--track[=MODE] --detach --orphan=BRANCH --overwrite-ignore",
	"git switch":   "-f,--force,--discard-changes -c,--create=BRANCH -C,--force-create=BRANCH -d,--detach -m,--merge -t,--track[=MODE] -q,--quiet",
	"git branch":   "-d,--delete -D -f,--force -m,--move -M -c,--copy -C",
	"git rm":       "-r -f,--force -n,--dry-run -q,--quiet --cached",
	"git add":      "-f,--force -A,--all,--no-ignore-removal -u,--update -n,--dry-run -v,--verbose -p,--patch -N,--intent-to-add",
}

const chownNames = "-R,--recursive -c,--changes -f,--silent,--quiet -v,--verbose --dereference -h,--no-dereference " +
	"--from=OWNER --no-preserve-root --preserve-root --reference=RFILE -H -L -P"

// optionNames caches the OptionNames by program ("rm", "git push"), each
// built on its first use from synonyms and the program's read-only spec
// (buildOptionNames): a policy pays only for the programs its rules name.
// Only programs with names are kept, so the cache is bounded.
var optionNames sync.Map

// buildOptionNames returns the OptionNames of key, a program or "git
// SUB", or nil if neither synonyms nor a spec lists its options.
func buildOptionNames(key string) *OptionNames {
	o := &OptionNames{canon: map[string]string{}, singleDash: key == "find"}
	opts, listed := synonyms[key]
	if listed {
		s := &progSpec{name: key, opts: opts}
		s.compile()
		o.addDefs(s.defs)
	}
	var spec func() *progSpec
	switch sub, git := strings.CutPrefix(key, "git "); {
	case key == "sed":
		spec = sedSpec
	case key == "xargs":
		spec = xargsSpec
	case git:
		spec = gitSpecs()[sub]
	default:
		spec = specs()[key]
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
			// Only a required value: an optional one belongs to a
			// long name the synonyms group with short ones
			// (--force-with-lease[=REF] with -f).
			if len(n) == 2 && d.arg == argRequired {
				if o.valued == nil {
					o.valued = map[string]bool{}
				}
				o.valued[n] = true
			}
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
// more than one listed name, is returned as it is. o may be nil.
func (o *OptionNames) Canon(name string) string {
	if o == nil {
		return name
	}
	if c, ok := o.canon[name]; ok {
		return c
	}
	if !strings.HasPrefix(name, "--") || len(name) < 3 {
		return name
	}
	found := ""
	for _, l := range o.longs {
		if strings.HasPrefix(l, name) {
			c := o.canon[l]
			if found != "" && found != c {
				return name // ambiguous: the program refuses it
			}
			found = c
		}
	}
	if found == "" {
		return name
	}
	return found
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
// -f, -r and "rm x". Every word after the program that starts with "-"
// is an option, wherever it stands, until a "--" (kept in rest), as
// GNU getopt reads them; a deny rule thus also matches an option given
// after an operand. A "+" operand (Plus) counts wherever it stands,
// after "--" too. A run of short options is split into its letters up
// to the first byte other than an ASCII letter or digit, which starts
// the last letter's value (-i.bak is -i=.bak), or to the end of a letter
// whose option takes a value, after which the rest of the run is that
// value (git push -ofoo is -o=foo). A value is kept after
// "=" (--in-place=.bak is -i=.bak). A word holding "*" (a rule's
// wildcard) is no option. ok is false if s has no option. o may be nil.
func (o *OptionNames) Split(s string) (opts []string, rest string, ok bool) {
	plus := o.Plus()
	if !strings.Contains(s, " -") && (plus == "" || !strings.Contains(s, " +")) {
		return nil, "", false
	}
	var (
		b     strings.Builder
		ended bool
		first = true
	)
	b.Grow(len(s))
	for w := range strings.SplitSeq(s, " ") {
		switch {
		case first || ended || len(w) < 2 || w[0] != '-' || strings.IndexByte(w, '*') >= 0:
			// "+ref" is an operand, so it counts after "--" too:
			// git push -- origin +main forces the update.
			if !first && plus != "" && len(w) > 1 && w[0] == '+' {
				opts = append(opts, plus)
			}
			if !first {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			first = false
			continue
		case w == "--":
			ended = true
			b.WriteString(" --")
		case w[1] == '-' || o.SingleDash():
			name, val, hasVal := strings.Cut(w, "=")
			if o.SingleDash() {
				name, hasVal = w, false
			}
			c := o.Canon(name)
			if hasVal {
				c += "=" + val
			}
			opts = append(opts, c)
		default:
			opts = o.splitShort(opts, w)
		}
	}
	if len(opts) == 0 {
		return nil, "", false
	}
	slices.Sort(opts)
	return slices.Compact(opts), b.String(), true
}

// splitShort appends the options of the run of short options w.
func (o *OptionNames) splitShort(opts []string, w string) []string {
	for j := 1; j < len(w); j++ {
		c := w[j]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			if j == 1 {
				return append(opts, w) // no letter: the word is one name
			}
			opts[len(opts)-1] += "=" + w[j:]
			return opts
		}
		name := dash(c)
		opts = append(opts, o.Canon(name))
		if o != nil && o.valued[name] && j+1 < len(w) {
			opts[len(opts)-1] += "=" + w[j+1:]
			return opts
		}
	}
	return opts
}
