package bash

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestGitAliasWordsAgainstGit splits alias values as git does: each value
// v is run as the alias "rev-parse --sq-quote v", whose output is the
// words git made of it, shell-quoted.
func TestGitAliasWordsAgainstGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	for _, v := range []string{
		`push`, `'pu'sh`, `"pu"sh`, `pu\sh`, `pu\ sh x`, `'a b' "c d" e\"f`, `a'b c'd`,
		`'\'`, `"a\"b" 'c"d'`, "a\tb\nc", `x ""y`, `'' x`, `a\\b`,
		`'unclosed`, `"unclosed`, `ends\`,
	} {
		value := "rev-parse --sq-quote " + v
		cmd := exec.Command(git, "-c", "alias.x="+value, "x")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+cmd.Dir, "GIT_DIR=/nonexistent")
		out, gitErr := cmd.Output()
		got, ok := gitAliasWords(value)
		if gitErr != nil {
			if ok {
				t.Errorf("%q: gitAliasWords = %q; git refuses it: %v", v, got, gitErr)
			}
			continue
		}
		if !ok {
			t.Errorf("%q: gitAliasWords refuses it; git says %s", v, out)
			continue
		}
		var want []string
		for _, w := range sqWords(string(out)) {
			if w != "" { // the empty words git keeps are left out
				want = append(want, w)
			}
		}
		if len(got) < 2 {
			t.Fatalf("%q: gitAliasWords = %q", v, got)
		}
		if got = got[2:]; !slices.Equal(got, want) {
			t.Errorf("%q: gitAliasWords = %q, git %q", v, got, want)
		}
	}
}

// sqWords are the words of git rev-parse --sq-quote's output: each quoted
// whole, a quote in one as '\”.
func sqWords(s string) []string {
	var out []string
	var w strings.Builder
	in, started := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case in && c == '\'':
			in = false
		case in:
			w.WriteByte(c)
		case c == '\'':
			in, started = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			started = true
		case (c == ' ' || c == '\n') && started:
			out = append(out, w.String())
			w.Reset()
			started = false
		}
	}
	if started {
		out = append(out, w.String())
	}
	return out
}
