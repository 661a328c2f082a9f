package bash

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRedirectTargetsAgainstBash holds Parse's redirect targets to bash:
// where Parse finds one output redirect with a static target (and nothing
// suspicious), bash, run in an empty directory, must create exactly the
// file that target names, or the gate would judge a write to one path
// while bash writes another. (It found that bash expands a >&WORD
// target twice.)
// The targets are words of TestStaticWordsAgainstBash's grammar, after
// each of the output operators.
func TestRedirectTargetsAgainstBash(t *testing.T) {
	requireBash(t)
	r := rand.New(rand.NewPCG(21, 2026))
	ops := []string{">", ">>", ">|", "&>", "&>>", "2>", "1>>", "<>", ">&", "1>&", "2>&", "3>", " >", ">\\\n"}
	var lines []string
	for range 3000 {
		lines = append(lines, ": "+ops[r.IntN(len(ops))]+oracleWord(r))
	}
	// Each line runs in a directory of its own, then prints the names
	// it holds, each as "x" and its bytes in hex, and "." (or "!" where
	// bash refused the line).
	var script strings.Builder
	script.WriteString("base=$PWD; n=0\n")
	for _, l := range lines {
		script.WriteString(`n=$((n+1)); mkdir "$base/$n" && cd "$base/$n" && { (eval ` + quoteString(l) + `) 2>/dev/null || echo '!'; for f in * .[!.]* ..?*; do [ -e "$f" ] || [ -L "$f" ] || continue; printf x; printf %s "$f" | od -An -tx1 | tr -d ' \n'; echo; done; echo .; }` + "\n")
	}
	out := runBash(t, script.String())
	var made [][]string
	var cur []string
	failed := false
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		switch {
		case line == ".":
			if failed {
				cur = nil
			} else if cur == nil {
				cur = []string{}
			}
			made = append(made, cur)
			cur, failed = nil, false
		case line == "!":
			failed = true
		case strings.HasPrefix(line, "x"):
			b, err := hex.DecodeString(line[1:])
			if err != nil {
				t.Fatalf("bash printed %q", line)
			}
			cur = append(cur, string(b))
		default:
			t.Fatalf("bash printed %q", line)
		}
	}
	if len(made) != len(lines) {
		t.Fatalf("bash answered %d lines, want %d", len(made), len(lines))
	}
	checked := 0
	for i, l := range lines {
		s, err := Parse(l)
		if err != nil || made[i] == nil || len(s.Redirects) != 1 || len(s.Suspicious) > 0 {
			continue // the gate asks for a script it cannot read, or a suspicious one
		}
		rd := s.Redirects[0]
		if !rd.Output || !rd.Target.Static || rd.Target.Glob || rd.Target.Tilde || strings.Contains(rd.Target.Value, "/") {
			continue
		}
		checked++
		if len(made[i]) != 1 || made[i][0] != rd.Target.Value {
			t.Errorf("%q: Parse's target is %q, bash made %q", l, rd.Target.Value, made[i])
		}
	}
	if checked < len(lines)/4 {
		t.Fatalf("only %d of %d lines compared", checked, len(lines))
	}
}
