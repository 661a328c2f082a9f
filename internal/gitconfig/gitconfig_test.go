package gitconfig

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// parseCases are configuration texts whose reading gen's decisions rest
// on: aliases written after their header, quotes and escapes in values,
// continued lines, comments, subsections of every form and the lines git
// refuses.
var parseCases = []string{
	"[alias] co = !echo hi\n",
	"[alias]\n\tzz = !ec\\\\ho x\n",
	"[alias]\n\tyy = !ec\\\n\tho x\n",
	"[alias]\n\tq = !r\"m\" -rf \"a b\" # comment\n",
	"[alias]\n\tq = \"!rm ; x\" ; comment\n",
	"[alias]\n\tq = \\\"quoted\\\" \\t tab \\n nl \\b\n",
	"[ALIAS]\n\tCo = Status\n",
	"[alias \"x\"]\n\tco = st\n",
	"[alias.X]\n\tco = st\n",
	"[a.b \"C\"]\nk=v\n",
	"[ \"b\"]\nk=v\n",
	"foo = bar\n[a]\nk\n",
	"[a] [b] k=v\n",
	"[a]k=v\n",
	"[a]\nk = v\\",
	"[a]\nk = \n",
	"[a]\nk\t=\tv  \t\n",
	"[a]\nk=v\r\nj=w\r\n",
	"\xef\xbb\xbf[a]\nk=v\n",
	"# c\n; c\n\n[a] ; c\n  k = v\n",
	"[includeIf \"gitdir:~/src/\"]\n\tpath = ~/.gitconfig-work\n[include]\npath = \"x y.inc\"\n",
	"[core]\n\thooksPath = \".husky\" \n",
	"[a \"c\\\"d\\\\e\\f\"]\nk=v\n",
	"[a]\nk-1=v\n",
	// Refused by git.
	"[a]\nk = a\\qb\n",
	"[a] k = \"x\n",
	"[ a]\nk=v\n",
	"[a ]\nk=v\n",
	"[a \"b\" ]\nk=v\n",
	"[]\nk=v\n",
	"[a_b]\nk=v\n",
	"[a]\nk_x=v\n",
	"[a]\n1k=v\n",
	"[a]\nk ; x\n",
	"[a]\nk x\n",
	"[a\nk=v\n",
	"[a \"b\nk=v\n",
	"[a]\nok=1\nbad line\n",
	"[a.]\nk=v\n",
}

// TestParse checks what gen's decisions rest on without git at hand.
func TestParse(t *testing.T) {
	es, err := Parse([]byte("[alias] co = !echo hi\n[alias]\n\tq = !r\"m\" -rf \"a b\" # c\n\tyy = !ec\\\nho x\n[a \"Sub\"]\nFlag\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Section: "alias", Key: "co", Value: "!echo hi", Line: 1},
		{Section: "alias", Key: "q", Value: "!rm -rf a b", Line: 3},
		{Section: "alias", Key: "yy", Value: "!echo x", Line: 4},
		{Section: "a", Subsection: "Sub", Key: "flag", NoValue: true, Line: 7},
	}
	if !slices.Equal(es, want) {
		t.Errorf("Parse = %+v, want %+v", es, want)
	}
	es, err = Parse([]byte("[a]\nk = 1\n\tj = a\\qb\n"))
	if err == nil || err.Error() != "bad config line 3" || len(es) != 1 {
		t.Errorf("Parse of a bad escape = %+v, %v; want the entry before it and bad config line 3", es, err)
	}
}

// TestParseLikeGit sets Parse beside git config --list on parseCases:
// the same names and values in the same order, or git's refusal at the
// same line.
func TestParseLikeGit(t *testing.T) {
	for _, c := range parseCases {
		likeGit(t, []byte(c))
	}
}

// FuzzParseLikeGit is TestParseLikeGit on any text:
//
//	go test ./internal/gitconfig -fuzz FuzzParseLikeGit -fuzztime 30s
func FuzzParseLikeGit(f *testing.F) {
	for _, c := range parseCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if bytes.IndexByte(b, 0) >= 0 {
			t.Skip("git ends a value at a NUL; Parse refuses one")
		}
		likeGit(t, b)
	})
}

var (
	badLine     = regexp.MustCompile(`bad config line (\d+) in file`)
	refusedHere = regexp.MustCompile(`\[(\.|\s|[^\]"]*\.\]|[^\]"]*\s+""\])`)
)

func likeGit(t *testing.T, data []byte) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "config")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(git, "config", "-f", f, "--list", "--null")
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, gitErr := cmd.Output()
	es, err := Parse(data)
	if err != nil && refusedHere.Match(data) {
		return // [a.], [.b], [ "b"] and [a ""] (git's a..key, .b.key, .b.key, a..key) are refused here
	}
	if gitErr != nil {
		m := badLine.FindSubmatch(stderr.Bytes())
		if m == nil {
			t.Fatalf("%q: git: %v: %s", data, gitErr, stderr.Bytes())
		}
		if want := "bad config line " + string(m[1]); err == nil || err.Error() != want {
			t.Errorf("%q: Parse error %v, git says %s", data, err, want)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: Parse: %v; git reads it", data, err)
	}
	var got []string
	for _, e := range es {
		if e.NoValue {
			got = append(got, e.Name())
		} else {
			got = append(got, e.Name()+"\n"+e.Value)
		}
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(out) == 0 {
		want = nil
	}
	if !slices.Equal(got, want) {
		t.Errorf("%q:\nParse %s\ngit   %s", data, quoteAll(got), quoteAll(want))
	}
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return fmt.Sprint(q)
}
