//go:build linux

package bash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The read-only specs are narrow only if every option's argument mode is
// the real program's. A short option given an optional value it does not
// take swallows the rest of its cluster: with "-F[=WHEN]" for ls, "ls
// -FLR" read as -F with the value "LR" while ls follows links out of the
// tree and recurses. A value the program does not take hides an operand it
// reads; a value the spec does not know makes the program read the next
// word as one while the spec checks it as a path.
//
// TestSpecArgModes asks the programs themselves. Each option is given a
// value that is no option letter ("-x%", "--name=%") and given nothing
// ("-x", "--name" as the last word), and the program's option parser says
// which it took: "invalid option -- '%'" after a short option that takes
// no value, "requires an argument" after one that needs one, "doesn't
// allow an argument" after a long one that takes none. It runs where the
// programs are the versions the specs were checked against (spec.go) and
// skips the others.

// parserMessages are an option parser's error messages, each a list of
// texts in which "{}" stands for the option's letter or long name without
// dashes. A message is said when the output holds one of its texts.
type parserMessages struct {
	// unknown* are said of an option given alone that the parser does
	// not know; noValue* of one given "%" as a value it does not take
	// (after a short option that takes none, getopt reads "%" as the next
	// option); needs* of one given alone that needs a value.
	unknownShort, noValueShort, needsShort []string
	unknownLong, noValueLong, needsLong    []string
	// equalsOnly: the parser takes a long option's value only after "="
	// and calls "--name" alone unknown, so that "--name X" is refused,
	// not read with X as the value.
	equalsOnly bool
}

var (
	getoptMessages = parserMessages{
		unknownShort: []string{"invalid option -- '{}'"},
		noValueShort: []string{"invalid option -- '%'"},
		needsShort:   []string{"option requires an argument -- '{}'"},
		unknownLong:  []string{"unrecognized option '--{}'"},
		noValueLong:  []string{"option '--{}' doesn't allow an argument"},
		needsLong:    []string{"option '--{}' requires an argument"},
	}
	// gitMessages are git's parse-options. The negation of a "no-"
	// option is named "no-no-".
	gitMessages = parserMessages{
		unknownShort: []string{"unknown switch `{}'"},
		noValueShort: []string{"unknown switch `%'"},
		needsShort:   []string{"switch `{}' requires a value"},
		unknownLong:  []string{"unknown option `{}'"},
		noValueLong:  []string{"option `{}' takes no value", "option `no-no-{}' takes no value"},
		needsLong:    []string{"option `{}' requires a value"},
	}
	// revisionMessages are those of git log, show, diff and blame, which
	// hand what parse-options does not know to the revision and diff
	// option parsers.
	revisionMessages = parserMessages{
		unknownShort: append([]string{"unrecognized argument: -{}\n", "invalid option: -{}\n", "unknown option `-{}'"}, gitMessages.unknownShort...),
		noValueShort: append([]string{"unrecognized argument: -{}%\n", "invalid option: -{}%\n", "unknown option `-%'"}, gitMessages.noValueShort...),
		needsShort:   append([]string{"-{} requires an argument"}, gitMessages.needsShort...),
		unknownLong:  append([]string{"unrecognized argument: --{}\n", "invalid option: --{}\n", "unknown option `--{}'"}, gitMessages.unknownLong...),
		noValueLong:  append([]string{"unrecognized argument: --{}=%\n", "invalid option: --{}=%\n", "unknown option `--{}=%'"}, gitMessages.noValueLong...),
		needsLong:    append([]string{"Option '--{}' requires a value"}, gitMessages.needsLong...),
		equalsOnly:   true,
	}
	// gitGlobalMessages are git's own, for the options before the
	// subcommand, which do not cluster.
	gitGlobalMessages = parserMessages{
		unknownShort: []string{"unknown option: -{}\n"},
		noValueShort: []string{"unknown option: -{}%"},
		needsShort:   []string{"no directory given for '-{}' option"},
		unknownLong:  []string{"unknown option: --{}\n"},
		noValueLong:  []string{"unknown option: --{}=%"},
		needsLong:    []string{"no directory given for '--{}' option"},
	}
	lessMessages = parserMessages{
		unknownShort: []string{"There is no -{} option"},
		noValueShort: []string{"There is no -% option"},
		needsShort:   []string{"Value is required after -{}"},
		unknownLong:  []string{"There is no {} option"},
		noValueLong:  []string{"The {}=% option should not be followed by ="},
		needsLong:    []string{"Value is required after --{}"},
	}
	treeMessages = parserMessages{
		unknownShort: []string{"Invalid argument -`{}'"},
		noValueShort: []string{"Invalid argument -`%'"},
		needsShort:   []string{"Missing argument to -{} option"},
		unknownLong:  []string{"Invalid argument `--{}'"},
		noValueLong:  []string{"Invalid argument `--{}=%'"},
		needsLong:    []string{"Missing argument to --{}"},
	}
)

// auditExceptions are options whose probe misleads, with the reason.
var auditExceptions = map[string]string{
	// Later versions than the one checked add these read-only options;
	// git 2.39 refuses them, which is safe.
	"git log --dd": "git 2.40", "git show --dd": "git 2.40",
	"git diff --default-prefix": "git 2.41", "git log --default-prefix": "git 2.41", "git show --default-prefix": "git 2.41",
	// git takes -C's directory only as a word of its own: it refuses
	// -Cdir, which the spec reads as -C dir (safe). --no-advice is git
	// 2.46's.
	"git -C": "a word of its own", "git --no-advice": "git 2.46",
	// git diff --merge-base needs a commit after it; alone, git calls
	// the option invalid.
	"git diff --merge-base": "needs a commit",
	// Deny rules' synonyms may name more than the version checked takes:
	// a name only makes those rules match more. Later coreutils give cp
	// and mv --debug (9.2?), --update=WHEN and mv --no-copy (9.3) and mv
	// --exchange (9.5).
	"cp --debug": "coreutils 9.2", "mv --debug": "coreutils 9.2", "cp --update": "coreutils 9.3",
	"mv --update": "coreutils 9.3", "mv --no-copy": "coreutils 9.3", "mv --exchange": "coreutils 9.5",
	// A short and a long name of one option stay one token, so that a
	// rule naming either matches both; only the long name takes a value,
	// and an optional value is only ever attached, so the short name's
	// is never a word of its own.
	"cp -b": "one option", "cp -u": "one option", "cp -Z": "one option", "mv -b": "one option", "mv -u": "one option",
	// git push's forcing options are one option to deny rules; only
	// --force-with-lease takes a value, and optional values are only
	// ever attached, so the others' "value" is never a word of its own.
	"git push -f": "one option", "git push --force": "one option", "git push --force-if-includes": "one option",
}

// auditedProgram is a program whose option table TestSpecArgModes checks.
type auditedProgram struct {
	spec    func() *progSpec
	argv    []string // the program, and git's subcommand
	version []string // its --version output holds one of these
	msgs    parserMessages
	// synonyms: the table is the deny rules' synonyms, not a spec.
	synonyms bool
}

// auditVersions are the versions the specs were checked against (spec.go,
// synonyms), by program.
var auditVersions = map[string]string{
	"grep": "(GNU grep) 3.8", "diff": "(GNU diffutils) 3.8", "cmp": "(GNU diffutils) 3.8", "file": "file-5.44",
	"tree": "tree v2.1.", "less": "less 590", "sed": "(GNU sed) 4.9", "xargs": "(GNU findutils) 4.9", "git": "git version 2.39.",
}

// auditedPrograms are the read-only specs and the deny rules' synonyms
// (optnames.go), each with the program that checks it.
func auditedPrograms() []auditedProgram {
	program := func(spec func() *progSpec, argv ...string) auditedProgram {
		v, ok := auditVersions[argv[0]]
		if !ok {
			v = "(GNU coreutils) 9.1"
		}
		msgs := getoptMessages
		switch {
		case argv[0] == "tree":
			msgs = treeMessages
		case argv[0] == "less":
			msgs = lessMessages
		case len(argv) == 1 && argv[0] == "git":
			msgs = gitGlobalMessages
		case argv[0] == "git" && slices.Contains([]string{"log", "show", "diff", "blame"}, argv[1]):
			msgs = revisionMessages
		case argv[0] == "git":
			msgs = gitMessages
		}
		return auditedProgram{spec: spec, argv: argv, version: []string{v}, msgs: msgs}
	}
	var out []auditedProgram
	for name, spec := range specs.Get() {
		if name == "egrep" || name == "fgrep" {
			continue // grep's spec; they refuse grep's -E, -F, -G and -P as conflicting
		}
		out = append(out, program(spec, name))
	}
	out = append(out, program(sedSpec.Get, "sed"), program(xargsSpec.Get, "xargs"), program(gitGlobalSpec.Get, "git"))
	for sub, spec := range gitSpecs.Get() {
		if sub != "rev-parse" { // it reads its options in order, with its own rules
			out = append(out, program(spec, "git", sub))
		}
	}
	for key, opts := range synonyms.Get() {
		if opts == "" {
			continue
		}
		p := program(func() *progSpec {
			s := &progSpec{name: key, opts: opts}
			s.compile()
			return s
		}, strings.Fields(key)...)
		p.synonyms = true
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b auditedProgram) int {
		return strings.Compare(strings.Join(a.argv, " "), strings.Join(b.argv, " "))
	})
	return out
}

func TestSpecArgModes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every read-only program's option parser")
	}
	for _, p := range auditedPrograms() {
		t.Run(p.name(), func(t *testing.T) {
			dir := p.dir(t)
			for _, d := range p.spec().defs {
				if slices.Contains(d.names, "--help") || slices.Contains(d.names, "--version") {
					continue // they end the parse
				}
				for _, name := range d.names {
					if len(name) == 2 && '0' <= name[1] && name[1] <= '9' {
						continue // grep -NUM and git -NUM: digits that make one number
					}
					if _, ok := auditExceptions[strings.Join(p.argv, " ")+" "+name]; ok {
						continue
					}
					if problem := auditOption(t, dir, p, name, d); problem != "" {
						t.Errorf("%s %s: %s", strings.Join(p.argv, " "), name, problem)
					}
				}
			}
		})
	}
}

// name is p's subtest name: "git_log", "rm_synonyms".
func (p auditedProgram) name() string {
	name := strings.Join(p.argv, "_")
	if p.synonyms {
		name += "_synonyms"
	}
	return name
}

// dir skips the test unless p's program is installed in the version
// checked, and returns a directory of its own for the program's probes,
// which may change it (git checkout --orphan=%, git add -A): a file f,
// and for git a repository of two commits around it, so that git log and
// diff look at their options rather than stop at an empty history.
func (p auditedProgram) dir(t *testing.T) string {
	if _, err := exec.LookPath(p.argv[0]); err != nil {
		t.Skipf("%s is not installed", p.argv[0])
	}
	dir := t.TempDir()
	out, _ := runAudit(t, dir, []string{p.argv[0], "--version"})
	if !slices.ContainsFunc(p.version, func(v string) bool { return strings.Contains(out, v) }) {
		t.Skipf("%s is not the version its spec was checked against: %.60q", p.argv[0], out)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p.argv[0] != "git" {
		return dir
	}
	for _, argv := range [][]string{
		{"git", "init", "-q"},
		{"git", "add", "f"},
		{"git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "one"},
		{"git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "two"},
	} {
		if out, err := runAudit(t, dir, argv); err != nil {
			t.Skipf("%v: %v: %s", argv, err, out)
		}
	}
	return dir
}

// auditOption returns what the program says of name that its spec's mode
// gets wrong, or "".
func auditOption(t *testing.T, dir string, p auditedProgram, name string, d *optDef) string {
	key, mode := strings.TrimLeft(name, "-"), d.arg
	m := p.msgs
	// The value given is "%", or the first the spec accepts, for a
	// parser that checks it before anything else.
	val := "%"
	if d.enum != nil {
		val = d.enum[0]
	}
	unknown, noValue, needs, withValue := m.unknownLong, m.noValueLong, m.needsLong, name+"="+val
	short := !strings.HasPrefix(name, "--")
	if short {
		unknown, noValue, needs, withValue = m.unknownShort, m.noValueShort, m.needsShort, name+val
	}
	says := func(out string, texts []string) bool {
		return slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(out, strings.ReplaceAll(s, "{}", key)) })
	}
	given, _ := runAudit(t, dir, append(slices.Clip(p.argv), withValue))
	alone, _ := runAudit(t, dir, append(slices.Clip(p.argv), name))
	if strings.Contains(given+alone, "SELinux") {
		return "" // id -Z: this kernel cannot say
	}
	unknownAlone, noValueGiven, needsAlone := says(alone, unknown), says(given, noValue), says(alone, needs)
	equalsOnly := m.equalsOnly && !short && mode == argRequired && unknownAlone && !noValueGiven
	switch {
	case unknownAlone && !equalsOnly:
		return fmt.Sprintf("the program has no such option (%s: %.80q)", name, alone)
	case mode == argNone && !noValueGiven:
		return fmt.Sprintf("takes a value, the spec says none (%s: %.80q)", withValue, given)
	case mode != argNone && noValueGiven:
		return fmt.Sprintf("takes no value, the spec says it does (%s: %.80q)", withValue, given)
	case mode == argRequired && !needsAlone && !equalsOnly:
		return fmt.Sprintf("the value is optional, the spec says required (%s: %.80q)", name, alone)
	case (mode == argOptional || mode == argLastDefault) && needsAlone:
		return fmt.Sprintf("the value is required, the spec says optional (%s: %.80q)", name, alone)
	}
	return ""
}

// runAudit runs argv in dir with nothing on standard input and returns
// its output, standard error first.
func runAudit(t *testing.T, dir string, argv []string) (string, error) {
	t.Helper()
	// A bound on a read-only program given one bad option: it errs at
	// once; the bound only keeps a wrong spec from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, auditEnv(dir)
	// No controlling terminal: a probe that asks (xargs -p, git add -i)
	// fails to open /dev/tty rather than wait on it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stderr.String() + stdout.String(), err
}

func auditEnv(dir string) []string {
	return []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat",
		"PAGER=cat", "TERM=dumb", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "EDITOR=true", "VISUAL=true",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
}

// TestFindArity holds findSafe's argument counts to GNU find 4.9, which
// says "missing argument" of a test or action given alone that needs one
// (or, for a numeric test, that it was given an invalid one).
func TestFindArity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs find")
	}
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("find is not installed")
	}
	dir := t.TempDir()
	if out, _ := runAudit(t, dir, []string{"find", "--version"}); !strings.Contains(out, "(GNU findutils) 4.9") {
		t.Skipf("find is not the version findSafe was checked against: %.60q", out)
	}
	for name, a := range findSafe.Get() {
		switch name {
		case "(", ")", "!", "-not", "-a", "-and", "-o", "-or", ",", "--help", "--version":
			continue // operators, and the options that end the parse
		}
		out, _ := runAudit(t, dir, []string{"find", ".", name})
		missing := strings.Contains(out, "missing argument to `"+name+"'") || strings.Contains(out, "' to `"+name+"'")
		switch {
		case strings.Contains(out, "unknown predicate `"+name+"'"):
			t.Errorf("find %s: find has no such test (%.80q)", name, out)
		case a.n == 0 && missing:
			t.Errorf("find %s takes an argument, findSafe says none", name)
		case a.n > 0 && !missing:
			t.Errorf("find %s takes no argument, findSafe says %d (%.80q)", name, a.n, out)
		}
	}
}

// TestSpecAbbreviations holds the specs' reading of abbreviated long
// options to the programs' getopt_long. A spec resolves an abbreviation
// among the options it lists; the program among all it has. Where the
// program has an unlisted option that the abbreviation names exactly, the
// two part: the spec would check one option while the program runs
// another. (Where an unlisted option makes it ambiguous, the program
// refuses it, which is safe.) For each listed long option the test gives
// the program the abbreviations the spec resolves to it, shortest first,
// up to the first the program does not refuse (every longer one names
// what it names), in the form whose error names the option getopt_long
// chose: "--abbr=%" for one that takes no value, "--abbr" alone for one
// that needs one. Options with an optional value are not checked.
func TestSpecAbbreviations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every read-only program's option parser")
	}
	chosen := regexp.MustCompile(`option '(--[^']+)' (doesn't allow|requires) an argument`)
	for _, p := range auditedPrograms() {
		key := strings.Join(p.argv, " ")
		if p.argv[0] == "git" || p.argv[0] == "tree" || exactLong.Get()[key] {
			continue // they take no abbreviations
		}
		t.Run(p.name(), func(t *testing.T) {
			dir := p.dir(t)
			s := p.spec()
			for _, d := range s.defs {
				if d.arg != argNone && d.arg != argRequired || slices.Contains(d.names, "--help") || slices.Contains(d.names, "--version") {
					continue
				}
				for _, full := range d.names {
					if _, ok := auditExceptions[key+" "+full]; ok || !strings.HasPrefix(full, "--") {
						continue
					}
					for _, abbr := range abbreviations(s, full) {
						probe := abbr
						if d.arg == argNone {
							probe += "=%"
						}
						out, _ := runAudit(t, dir, append(slices.Clip(p.argv), probe))
						if strings.Contains(out, "is ambiguous") || strings.Contains(out, "unrecognized option") {
							continue // the program refuses it; a longer one may name an unlisted option
						}
						m := chosen.FindStringSubmatch(out)
						switch {
						case m == nil:
							t.Errorf("%s %s: the spec reads it as %s; the program says %.100q", key, probe, full, out)
						case !slices.Contains(d.names, m[1]):
							t.Errorf("%s %s: the spec reads it as %s, the program as %s", key, probe, full, m[1])
						}
						break // every longer one names what this one does
					}
				}
			}
		})
	}
}

// abbreviations returns the prefixes of the long option full, shortest
// first, that s resolves to full's option.
func abbreviations(s *progSpec, full string) []string {
	want := s.lookupExact(full)
	var out []string
	for n := 3; n < len(full); n++ {
		if d, _ := s.lookupLong(full[:n]); d == want {
			out = append(out, full[:n])
		}
	}
	return out
}

// TestSpecFileValues holds the specs' FILE kinds to the programs: an
// option value the spec takes for text (a pattern, a format, a number)
// must not be a file the program reads, or the gate would not check that
// read. Each value-taking option is given the name of a directory, and a
// program that opens it as a file says so ("zzdir: Is a directory"); the
// spec must then call the value FILE (or BASENAME). Not every program
// names what it failed to read (a third of the FILE values here do), so
// this catches a wrong kind only where the program says it; a probe with a
// missing file instead, read by hand, found no other.
func TestSpecFileValues(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every read-only program")
	}
	for _, p := range auditedPrograms() {
		if p.synonyms {
			continue // deny rules read every word anyway
		}
		t.Run(p.name(), func(t *testing.T) {
			dir := p.dir(t)
			if err := os.Mkdir(filepath.Join(dir, "zzdir"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, d := range p.spec().defs {
				if d.arg == argNone || d.file || d.basename || d.enum != nil {
					continue
				}
				for _, name := range d.names {
					var argv []string
					switch {
					case strings.HasPrefix(name, "--"):
						argv = append(slices.Clip(p.argv), name+"=zzdir", "f")
					case d.arg == argOptional:
						argv = append(slices.Clip(p.argv), name+"zzdir", "f")
					default:
						argv = append(slices.Clip(p.argv), name, "zzdir", "f")
					}
					out, _ := runAudit(t, dir, argv)
					if strings.Contains(out, "zzdir: Is a directory") || strings.Contains(out, "zzdir': Is a directory") {
						t.Errorf("%s: reads its value as a file, the spec takes it for text (%.100q)", strings.Join(argv, " "), out)
					}
				}
			}
		})
	}
}
