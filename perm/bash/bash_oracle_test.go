package bash

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStaticWordsAgainstBash holds Parse's static words to bash itself:
// every word Parse calls Static (no glob, brace or tilde expansion) must
// be the argument bash passes, byte for byte, or the gate would check one
// command while bash runs another. The words come from a small grammar of
// the shell's quoting: single, double and ANSI-C quotes side by side,
// backslash escapes in and out of double quotes, line continuations, and
// characters that are special only in some places. Bash runs each line
// with the program replaced by a function that prints its arguments.
func TestStaticWordsAgainstBash(t *testing.T) {
	requireBash(t)
	r := rand.New(rand.NewPCG(14, 2026))
	var lines []string
	for range 4000 {
		n := 1 + r.IntN(3)
		words := make([]string, n)
		for i := range words {
			words[i] = oracleWord(r)
		}
		lines = append(lines, "p "+strings.Join(words, " "))
	}
	calls := runOracle(t, lines)
	checked := 0
	for i, l := range lines {
		if calls[i] == nil {
			continue // bash refused the line
		}
		if len(calls[i]) != 1 {
			t.Fatalf("%q: bash ran p %d times", l, len(calls[i]))
		}
		args := calls[i][0]
		s, err := Parse(l)
		if err != nil || len(s.Commands) != 1 {
			continue // the gate refuses it (Ask): nothing to compare
		}
		sameArgs(t, l, s.Commands[0].Words, args)
		checked++
	}
	if checked < len(lines)/2 {
		t.Fatalf("only %d of %d lines compared", checked, len(lines))
	}
}

// sameArgs reports, for line, each static word of a command (after its
// program) that is not the argument bash passed, and a count that differs
// where every word is static.
func sameArgs(t *testing.T, line string, words []Word, args []string) {
	t.Helper()
	static := func(w Word) bool { return w.Static && !w.Glob && !w.Tilde }
	if len(words) != len(args)+1 {
		if !slices.ContainsFunc(words, func(w Word) bool { return !static(w) }) {
			t.Errorf("%q: Parse makes %d static arguments, bash %d: %q", line, len(words)-1, len(args), args)
		}
		return
	}
	for j, w := range words[1:] {
		if static(w) && w.Value != args[j] {
			t.Errorf("%q: word %q is %q to Parse, %q to bash", line, w.Raw, w.Value, args[j])
		}
	}
}

// sameStatic reports whether a command's words could be p with args:
// each static word (after the program) the argument, up to the first
// word that is not static (a glob, say, may make any number of
// arguments), and as many where all are.
//
// A word holding \x01 matches any argument: inside an unquoted command
// substitution in an array assignment, a( $(p $'\cA\c?') ), bash reads
// its own quoting byte (\x01) in the source as an escape and drops it. The
// argument bash passes then still holds the \x7f after it, so that no
// name or path the gate would have to see can come of it.
func sameStatic(words []Word, args []string) bool {
	for j, w := range words[1:] {
		if !w.Static || w.Glob || w.Tilde {
			return true
		}
		if j >= len(args) {
			return false
		}
		if w.Value != args[j] && !strings.Contains(w.Value, "\x01") {
			return false
		}
	}
	return len(words) == len(args)+1
}

// oracleWord makes one shell word of one to four parts.
func oracleWord(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(oraclePart(r))
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}

// oracleChars are the characters the grammar draws from: letters, space
// and tab, and everything special to the shell somewhere.
const oracleChars = "ab -=:~#%^!,.@/\\'\"$`\t\n*?[]{}()<>|&;x"

func oracleText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(oracleChars[r.IntN(len(oracleChars))])
	}
	return b.String()
}

func oraclePart(r *rand.Rand) string {
	switch r.IntN(7) {
	case 0: // single quotes: anything but '
		return "'" + strings.ReplaceAll(oracleText(r, r.IntN(5)), "'", "") + "'"
	case 1: // double quotes: escape what must be, and leave some backslashes alone
		var b strings.Builder
		b.WriteByte('"')
		for _, c := range []byte(oracleText(r, r.IntN(5))) {
			switch c {
			case '"', '$', '`', '\\':
				b.WriteByte('\\')
			case 'a', 'b', '-', ' ':
				if r.IntN(3) == 0 {
					b.WriteByte('\\') // not special here: the backslash stays
				}
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
		return b.String()
	case 2: // ANSI-C quotes with escapes
		escapes := []string{`\n`, `\t`, `\\`, `\'`, `\"`, `\x41`, `\x4`, `\101`, `\0`, `\u00e9`, `\U0001F600`, `\e`, `\a`, `\cA`, `\c?`, `\c\\`, `\cz`, `\q`, `a`, ` `, `$`, `\x`, `\c`, `\u`, `\U1`, `\777`, `\xfF`, `\x{2e}`, `\x{}`, `\x{4`, `\x{12345}`, `\x{zz}`}
		var b strings.Builder
		b.WriteString("$'")
		for range r.IntN(4) {
			b.WriteString(escapes[r.IntN(len(escapes))])
		}
		b.WriteByte('\'')
		return b.String()
	case 3: // a backslash escape outside quotes, often an escaped
		// backslash or a line continuation
		switch r.IntN(4) {
		case 0:
			return `\\`
		case 1:
			return "\\\n"
		}
		c := oracleChars[r.IntN(len(oracleChars))]
		if c == '\n' {
			return "\\\n" // a line continuation: nothing
		}
		return "\\" + string(c)
	case 4: // plain letters and punctuation that is literal unquoted
		lits := []string{"a", "b", "-", "--x", "=", ":", ",", ".", "@", "/", "%", "^", "+", "x=y", "a:b"}
		return lits[r.IntN(len(lits))]
	case 5: // a tilde or a hash in the middle, a locale string
		return []string{"a~", "a#b", "x~/y", "=~", "a=~", `$"ab"`, `$"a\"b"`, `$""`}[r.IntN(8)]
	default:
		return `""`
	}
}

// TestCommandsAgainstBash holds Parse's commands to bash: bash must run
// no command of a line joined by ;, &&, newlines, line continuations,
// groups, subshells, here-documents and comments that Parse does not
// find, and where both find the same number, they must be the same, in
// order, with the same static arguments.
func TestCommandsAgainstBash(t *testing.T) {
	requireBash(t)
	lines := commandLines(rand.New(rand.NewPCG(6, 2026)), 4000)
	compareCommands(t, lines, runOracle(t, lines), true)
}

// compareCommands checks that bash, whose calls of p per line are calls,
// runs no p command of a line that Parse does not find. With inOrder,
// where both find the same number they must be the same, in order, with
// the same static arguments; without (a function may run twice, or
// another than the one defined last), each call bash made must be one of
// Parse's commands.
func compareCommands(t *testing.T, lines []string, calls [][][]string, inOrder bool) {
	t.Helper()
	checked := 0
	for i, l := range lines {
		if calls[i] == nil {
			continue // bash refused the line
		}
		s, err := Parse(l)
		if err != nil {
			continue
		}
		var cmds [][]Word
		for _, c := range s.Commands {
			if len(c.Words) > 0 && c.Words[0].Value == "p" {
				cmds = append(cmds, c.Words)
			}
		}
		if !inOrder {
			for _, args := range calls[i] {
				if !slices.ContainsFunc(cmds, func(words []Word) bool { return sameStatic(words, args) }) {
					t.Errorf("%q: bash runs p with %q, which is none of Parse's commands", l, args)
				}
			}
			checked++
			continue
		}
		switch {
		case len(cmds) < len(calls[i]):
			t.Errorf("%q: Parse finds %d commands, bash runs %d", l, len(cmds), len(calls[i]))
			continue
		case len(cmds) > len(calls[i]):
			// Bash runs fewer: a here-document whose delimiter line a
			// backslash-newline joined to the line above runs on, and
			// the parser ends it there; a branch not taken. The gate
			// then checks more than runs, never less.
			continue
		}
		for k, words := range cmds {
			sameArgs(t, l, words, calls[i][k])
		}
		checked++
	}
	if checked < len(lines)/2 {
		t.Fatalf("only %d of %d lines compared", checked, len(lines))
	}
}

// requireBash skips an oracle test in -short mode and where bash is not
// installed.
func requireBash(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs bash")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
}

// confineEnv, set, has the test binary run bash confined (confineBash)
// instead of its tests; confineFailed is its exit code when it cannot.
const (
	confineEnv    = "GEN_TEST_CONFINE_BASH"
	confineFailed = 125
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(confineEnv); dir != "" {
		os.Exit(confineBash(dir, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runBash runs script with bash, in a directory of the test's own, and
// returns what it printed. A line may write a file of any name, so the
// kernel keeps bash's writes in that directory (confineBash); where it
// cannot, the test is skipped.
func runBash(t *testing.T, script string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, os.Args[0], "--norc", "--noprofile", "-s")
	cmd.Dir = dir
	// TMPDIR: bash may keep a here-document in a file.
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=/nonexistent", "TMPDIR=" + dir, confineEnv + "=" + dir}
	cmd.Stdin = strings.NewReader(script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == confineFailed && strings.HasPrefix(stderr.String(), "landlock: ") {
		t.Skipf("bash cannot be kept from writing outside its directory: %s", stderr.String())
	}
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, stderr.String())
	}
	return out
}

// TestOracleBashIsConfined: the bash of the oracles writes in its own
// directory and nowhere else.
func TestOracleBashIsConfined(t *testing.T) {
	requireBash(t)
	outside := filepath.Join(t.TempDir(), "x")
	out := runBash(t, "echo x > "+quoteString(outside)+" || echo refused; echo x > here && cat here")
	if _, err := os.Lstat(outside); err == nil || string(out) != "refused\nx\n" {
		t.Errorf("bash wrote outside its directory (%v), or not inside it: %q", err, out)
	}
}

// runOracle runs each line in one bash, with p a function that prints its
// arguments, and returns, per line, the arguments of each call of p in
// order; nil for a line bash cannot parse.
func runOracle(t *testing.T, lines []string) [][][]string {
	t.Helper()
	return runOracleWith(t, lines, "")
}

// runOracleWith is runOracle with header run first, after p is defined.
func runOracleWith(t *testing.T, lines []string, header string) [][][]string {
	t.Helper()
	// p prints a line per call, each argument as "x" and its bytes in
	// hex; the end of a line's calls is "." and a line bash cannot parse
	// prints "!" (bash reads each line as its own script through eval, in a
	// subshell).
	var script strings.Builder
	script.WriteString("exec 3>&1\n")
	script.WriteString(`p() { local LC_ALL=C a i; for a in "$@"; do printf x; for ((i = 0; i < ${#a}; i++)); do printf %02x "'${a:i:1}"; done; printf ' '; done; echo; }` + "\n")
	script.WriteString(header)
	for _, l := range lines {
		// Each line runs in a subshell, afresh, as each Bash call does:
		// no function or variable of an earlier line, and a syntax error
		// bash finds only as it runs (in a process substitution inside
		// eval, say), which ends the shell, ends only the line. The
		// subshell waits for what the line started in the background
		// (where bash read a & the parser did not), so that its output
		// is the line's.
		script.WriteString("(eval " + quoteString(l) + "; s=$?; wait; exit $s) 2>/dev/null || echo '!'; echo .\n")
	}
	out := runBash(t, script.String())
	var all [][][]string
	var cur [][]string
	failed := false
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		switch line {
		case ".":
			if failed {
				cur = nil
			} else if cur == nil {
				cur = [][]string{}
			}
			all = append(all, cur)
			cur, failed = nil, false
			continue
		case "!":
			failed = true
			continue
		}
		var args []string
		for _, f := range strings.Fields(line) {
			b, err := hex.DecodeString(strings.TrimPrefix(f, "x"))
			if err != nil {
				t.Fatalf("bash printed %q", line)
			}
			args = append(args, string(b))
		}
		cur = append(cur, args)
	}
	if len(all) != len(lines) {
		t.Fatalf("bash answered %d lines, want %d", len(all), len(lines))
	}
	return all
}

// commandLines makes n lines of p commands for TestCommandsAgainstBash.
func commandLines(r *rand.Rand, n int) []string {
	var lines []string
	for range n {
		var b strings.Builder
		for i := range 1 + r.IntN(4) {
			if i > 0 {
				b.WriteString([]string{"; ", " && ", "\n", " ;\n", " &&\\\n ", "\\\n; "}[r.IntN(6)])
			}
			seg := "p"
			for range r.IntN(3) {
				seg += " " + oracleWord(r)
			}
			switch r.IntN(14) {
			case 0:
				seg = "{ " + seg + "; }"
			case 1:
				seg = "(" + seg + ")"
			case 3:
				seg = ": $(" + seg + " >&3)" // fd 3 is the script's stdout
			case 4:
				seg = "if :; then " + seg + "; fi"
			case 5:
				seg = "case a in a) " + seg + " ;; esac"
			case 6:
				seg = "for _ in 1; do " + seg + "; done"
			case 7:
				seg = "f() { " + seg + "; }; f"
			case 8:
				seg = ": <(" + seg + " >&3); wait" // a process substitution
			case 9:
				seg = ": $(" + seg + " >&3 # c\\\n)" // a comment ending in a backslash, nested
			case 10:
				seg = ": `" + seg + " >&3`"
			case 11:
				seg = []string{"[[ a == a ]] && ", "(( 1 )) && ", "[[ -n x\\\n ]] && ", "(( 1 +\\\n 1 )) && ", "! false && ", "time ", "{ :; } &&\n"}[r.IntN(7)] + seg
			case 12:
				seg += []string{" <<< x", " <<< \"a\\\nb\"", " <<< 'a\\\nb'", " <<<a\\\nb", " < /dev/null", " 2>/dev/null"}[r.IntN(6)]
			case 2:
				// A here-document, whose body is text (p lines in it do
				// not run) and whose end bash finds by its own rules.
				delims := []struct{ op, end string }{
					{"<<E", "E"}, {"<<'E'", "E"}, {`<<"E"`, "E"}, {`<<\E`, "E"}, {"<<-E", "\tE"},
					{`<<E\F`, "EF"}, {`<<"E"F`, "EF"}, {"<< E", "E"}, {"<<E", "E "}, {"<<E", " E"},
				}
				d := delims[r.IntN(len(delims))]
				body := []string{"p in body", "E x", "$(p sub)", `\`, `#p c\`, "EE", "\tE"}[r.IntN(7)]
				seg += " " + d.op + "\n" + body + "\n" + d.end + "\n"
				if d.end != "E" && d.end != "\tE" && d.end != "EF" {
					seg += "E\n" // the end bash finds when the line above is not one
				}
			}
			b.WriteString(seg)
		}
		if r.IntN(3) == 0 {
			b.WriteString([]string{" # p x", " #p x\\\np y", "\n#p x"}[r.IntN(3)])
		}
		lines = append(lines, b.String())
	}
	return lines
}
