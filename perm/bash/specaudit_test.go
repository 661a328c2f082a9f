//go:build linux

package bash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
		unknownShort: []string{"unrecognized argument: -{}\n", "invalid option: -{}\n", "unknown switch `{}'", "unknown option `-{}'"},
		noValueShort: []string{"unrecognized argument: -{}%\n", "invalid option: -{}%\n", "unknown switch `%'", "unknown option `-%'"},
		needsShort:   []string{"switch `{}' requires a value", "-{} requires an argument"},
		unknownLong:  []string{"unrecognized argument: --{}\n", "invalid option: --{}\n", "unknown option `{}'", "unknown option `--{}'"},
		noValueLong: []string{"option `{}' takes no value", "option `no-no-{}' takes no value",
			"unrecognized argument: --{}=%\n", "invalid option: --{}=%\n", "unknown option `--{}=%'"},
		needsLong:  []string{"option `{}' requires a value", "Option '--{}' requires a value"},
		equalsOnly: true,
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
	// git diff --merge-base needs a commit after it; alone, git calls
	// the option invalid.
	"git diff --merge-base": "needs a commit",
}

// auditedProgram is a program whose spec TestSpecArgModes checks.
type auditedProgram struct {
	spec    func() *progSpec
	argv    []string // the program, and git's subcommand
	version []string // its --version output holds one of these
	msgs    parserMessages
}

func auditedPrograms() []auditedProgram {
	coreutils := []string{"(GNU coreutils) 9.1"}
	var out []auditedProgram
	for name, spec := range specs() {
		var version []string
		msgs := getoptMessages
		switch name {
		case "grep":
			version = []string{"(GNU grep) 3.8"}
		case "diff", "cmp":
			version = []string{"(GNU diffutils) 3.8"}
		case "file":
			version = []string{"file-5.44"}
		case "tree":
			version, msgs = []string{"tree v2.1."}, treeMessages
		case "less":
			continue // less reads its options with its own rules (-x%: a tab stop list)
		case "egrep", "fgrep":
			continue // grep's spec; they refuse grep's -E, -F, -G and -P as conflicting
		default:
			version = coreutils
		}
		out = append(out, auditedProgram{spec, []string{name}, version, msgs})
	}
	out = append(out,
		auditedProgram{sedSpec, []string{"sed"}, []string{"(GNU sed) 4.9"}, getoptMessages},
		auditedProgram{xargsSpec, []string{"xargs"}, []string{"(GNU findutils) 4.9"}, getoptMessages})
	for sub, spec := range gitSpecs() {
		switch sub {
		case "rev-parse":
			continue // it reads its options in order, with its own rules
		}
		msgs := gitMessages
		switch sub {
		case "log", "show", "diff", "blame":
			msgs = revisionMessages
		}
		out = append(out, auditedProgram{spec, []string{"git", sub}, []string{"git version 2.39."}, msgs})
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
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A repository with two commits, so that git log and diff look at
	// their options rather than stop at an empty history.
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
	for _, p := range auditedPrograms() {
		t.Run(strings.Join(p.argv, "_"), func(t *testing.T) {
			if _, err := exec.LookPath(p.argv[0]); err != nil {
				t.Skipf("%s is not installed", p.argv[0])
			}
			out, _ := runAudit(t, dir, append(slices.Clip(p.argv[:1]), "--version"))
			if !slices.ContainsFunc(p.version, func(v string) bool { return strings.Contains(out, v) }) {
				t.Skipf("%s is not the version its spec was checked against: %.60q", p.argv[0], out)
			}
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
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stderr.String() + stdout.String(), err
}

func auditEnv(dir string) []string {
	return []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat", "TERM=dumb"}
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
	for name, a := range findSafe {
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
