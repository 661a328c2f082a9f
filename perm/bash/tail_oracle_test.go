//go:build linux

package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTailObsoleteOracle holds tail's spec to coreutils 9.1's reading of
// an obsolete first argument (parse_obsolete_option). Each first word of
// the obsolete shape (a sign, digits, a unit, "f") and a few others is
// given before missing files, in the argument shapes tail looks at. tail
// says "no files remaining" only when it follows, and names a word it
// opens as a file: a command that follows must not be read-only, and one
// that is must list every word tail opens among its paths. The files are
// missing, so that tail ends at once even where it follows.
func TestTailObsoleteOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tail")
	}
	if _, err := exec.LookPath("tail"); err != nil {
		t.Skip("tail is not installed")
	}
	dir := t.TempDir()
	if out, _ := runAudit(t, dir, []string{"tail", "--version"}); !strings.Contains(out, "(GNU coreutils) 9.1") {
		t.Skipf("tail is not the version its spec was checked against: %.60q", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var firsts []string
	for _, sign := range []string{"-", "+"} {
		for _, num := range []string{"", "5"} {
			for _, unit := range []string{"", "b", "c", "l", "k", "n"} {
				for _, f := range []string{"", "f", "F"} {
					firsts = append(firsts, sign+num+unit+f)
				}
			}
		}
	}
	shapes := [][]string{{"no1"}, {"--", "no1"}, {"no1", "no2"}, {"--", "no1", "no2"}, {"-n", "1", "no1"}, {"-q", "no1"}}
	for _, first := range firsts {
		if first == "-F" {
			continue // --follow=name --retry: tail waits for the missing files to appear
		}
		for _, shape := range shapes {
			args := append([]string{first}, shape...)
			src := "tail " + strings.Join(args, " ")
			r, ok := mustParse(t, src).Commands[0].Reads()
			out, _ := runAudit(t, dir, append([]string{"tail"}, args...))
			follows := strings.Contains(out, "no files remaining")
			if follows && ok {
				t.Errorf("%s: tail follows; the spec says it is read-only", src)
			}
			if !ok {
				continue
			}
			for _, name := range append([]string{first}, shape...) {
				opened := strings.Contains(out, "cannot open '"+name+"'")
				listed := slices.ContainsFunc(r.Paths, func(p ReadPath) bool { return p.Path == name })
				if opened && !listed {
					t.Errorf("%s: tail opens %s; the spec's paths are %v", src, name, r.Paths)
				}
			}
		}
	}
}
