package bash

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// installedAwks returns the awks on this machine, each file once
// (awk is often a link to mawk or gawk), or skips the test.
func installedAwks(t testing.TB) []string {
	t.Helper()
	var out, seen []string
	for _, name := range []string{"awk", "gawk", "mawk", "nawk", "original-awk"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || slices.Contains(seen, real) {
			continue
		}
		seen = append(seen, real)
		out = append(out, p)
	}
	if len(out) == 0 {
		t.Skip("no awk installed")
	}
	return out
}

// The oracle's directory holds the input, and a sentinel file and an
// environment variable that only a program reaching outside itself
// could print.
const (
	awkInput    = "a 1\nb 2\nc 30\n"
	awkSentinel = "SENTINEL-7f3a"
	awkEnvMark  = "ENVMARK-19c2"
)

// awkEscapes runs awk with args in a fresh directory and reports what it
// did that a verified program may not: files made or changed (a command
// run, a redirection), the sentinel's or the environment's text printed.
func awkEscapes(t *testing.T, awk string, args []string) string {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("in", awkInput)
	write("sentinel", awkSentinel+"\n")
	cmd := exec.Command(awk, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "MARK=" + awkEnvMark}
	cmd.Stdin = strings.NewReader(awkInput)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // most generated programs are syntax errors
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "in" && e.Name() != "sentinel" {
			return "made " + e.Name()
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "in")); string(b) != awkInput {
		return "changed its input"
	}
	if strings.Contains(out.String(), awkSentinel) {
		return "printed the sentinel file"
	}
	if strings.Contains(out.String(), awkEnvMark) {
		return "printed the environment"
	}
	return ""
}

// awkOracleCorpus holds programs that try every way out the reader knows
// of, and lines that may be split into tokens two ways.
var awkOracleCorpus = []string{
	`{print $1}`, `NR>1 {s+=$2} END{print s}`, `$2 > 5 {print}`, `BEGIN{ARGV[1]="sentinel"; ARGC=2}{print}`,
	`BEGIN{ARGV[1]="sen" "tinel"; ARGC=2} {print}`, `BEGIN{while ((getline l < "sentinel") > 0) print l}`,
	`BEGIN{getline l < "sentinel"; print l}`, `BEGIN{"cat sentinel" | getline x; print x}`, `BEGIN{system("touch ran")}`,
	`{print > "out"}`, `{print >> "out"}`, `{print | "cat > out"}`, `{printf "%s", $0 > "out"}`,
	`BEGIN{print ENVIRON["MARK"]}`, `BEGIN{for (k in ENVIRON) print ENVIRON[k]}`, `{ x = length /"/; system("touch ran") }`,
	`{ x = $1 /"/; system("touch ran"); y = "/ }`, `{ x = 1 / 2; system("touch ran"); y = 2 / 1 }`,
	`{ x = (4) / 2; system("touch ran"); y = 1 / 2 }`, `{ a[1] = 4; x = a[1] / 2; system("touch ran"); y = 1 / 2 }`,
	`{ x = n / 2; system("touch ran"); y = 1 / 2 }`, `{ x = "4" / 2; system("touch ran"); y = 1 / 2 }`,
	"{ print $1,\n $2 > \"out\" }", "{ print $1\n $2 > 1 }", "{ print (1)\n > \"out\" }", "# x \\\n{ system(\"touch ran\") }",
	"/a\\/\"/ { system(\"touch ran\") }", `/["]/ { system("touch ran") } /"/`, `/[/"]/ { system("touch ran") } /"/`,
	`/\// { print } "/" { system("touch ran") }`, `$1 ~ "/" { print } /x/ { print }`, `{ a["x"]++ } END { for (k in a) print k }`,
	`BEGIN { printf "%s\n", "x" > "/dev/stdout" }`, `{ print $1 > "/dev/stderr" }`, `function f(x) { return x * 2 } { print f($2) }`,
	`BEGIN { close("sentinel") }`, `BEGIN { fflush() }`, `{ print } END { print NR }`, `BEGIN { FS = "" } { print $1 }`,
}

// awkAtoms build generated programs: the pieces of ways out, and the
// characters that end or open strings, regular expressions, comments and
// statements.
var awkAtoms = []string{
	"{", "}", "print", "printf", " ", "\n", ";", ">", `"out"`, "/", `"`, "x", "$1", "(", ")", "getline", `system("touch ran")`,
	"<", `ARGV[1]="sentinel"`, "ARGC=2", `"cat sentinel"`, "|", "#", "\\\n", "[", "]", "=", ",", "length", "++", "1",
	"/x/", "NR", "close", "-", "*", "i", "a[", "in", "BEGIN", "END", `"sentinel"`, "ENVIRON", `"MARK"`, "\\", "!", "~", "?", ":",
}

// TestAwkOracle runs every program awkProgram verifies, from the corpus
// and generated, through each installed awk: none may make or change a
// file, or print the sentinel file's text (named only in the program)
// or the environment's.
func TestAwkOracle(t *testing.T) {
	awks := installedAwks(t)
	progs := append(slices.Clone(awkOracleCorpus), atomRuns(1500, 7, awkAtoms)...)
	accepted := 0
	for _, p := range progs {
		if awkProgram(p) != "" {
			continue
		}
		accepted++
		for _, awk := range awks {
			for _, args := range [][]string{{p, "in"}, {p}} {
				if got := awkEscapes(t, awk, args); got != "" {
					t.Errorf("awkProgram(%q) verified, but %s %q %s", p, awk, args, got)
				}
			}
		}
	}
	t.Logf("accepted %d of %d", accepted, len(progs))
	if accepted < 150 {
		t.Errorf("only %d programs verified: the generator no longer exercises the reader", accepted)
	}
}

// TestAwkOracleRefuses checks the oracle can fail: the programs of the
// corpus that do reach outside are seen to, by some installed awk.
func TestAwkOracleRefuses(t *testing.T) {
	awks := installedAwks(t)
	for _, p := range []string{`BEGIN{ARGV[1]="sentinel"; ARGC=2}{print}`, `BEGIN{system("touch ran")}`, `{print > "out"}`, `BEGIN{print ENVIRON["MARK"]}`} {
		escaped := false
		for _, awk := range awks {
			escaped = escaped || awkEscapes(t, awk, []string{p, "in"}) != ""
		}
		if !escaped {
			t.Errorf("%q reached nothing outside: the oracle sees nothing", p)
		}
	}
}

// TestAwkCodeOracle runs command lines awkCode verifies, options and
// operands included, through each installed awk.
func TestAwkCodeOracle(t *testing.T) {
	awks := installedAwks(t)
	lines := [][]string{
		{"-F", " ", "{print $1}", "in"}, {"-v", "x=1", "{print x}", "in"}, {"{print}", "FS=:", "in"},
		{"{print}", "ARGC=3", "in", "sentinel"}, {"-v", "ARGC=1", "{print}", "sentinel"}, {"-f", "sentinel"},
		{"{print}", "-f", "sentinel"}, {"-vFS=x", "--", "{print}", "in"}, {"-e", `BEGIN{system("touch ran")}`},
		{"-W", "exec", "sentinel"}, {"--source", `BEGIN{system("touch ran")}`}, {"{print}", "in", "--", "-"},
	}
	verified := 0
	for _, l := range lines {
		ws := make([]Word, len(l))
		for i, a := range l {
			ws[i] = Word{Raw: quoteString(a), Value: a, Static: true}
		}
		if awkCode(ws) != "" {
			continue
		}
		verified++
		for _, awk := range awks {
			if got := awkEscapes(t, awk, l); got != "" {
				t.Errorf("awkCode(%q) verified, but %s %s", l, awk, got)
			}
		}
	}
	// The plain lines (-F, -v, FS=:, --) are verified: had awkCode come
	// to refuse them all, this test would check nothing.
	if verified < 4 {
		t.Errorf("only %d command lines verified: the oracle checks too little", verified)
	}
}
