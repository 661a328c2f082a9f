package bash

import (
	"bytes"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
)

// gnuSed returns the path of GNU sed, or skips the test.
func gnuSed(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("no sed")
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil || !bytes.Contains(out, []byte("GNU sed")) {
		t.Skip("sed is not GNU sed")
	}
	return p
}

// sandboxRejects reports whether GNU sed --sandbox refuses the script for
// an e, r or w command (it compiles the script; the input is empty).
func sandboxRejects(t testing.TB, sed, script string) bool {
	cmd := exec.Command(sed, "--sandbox", "-n", "-e", script)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return strings.Contains(stderr.String(), "sandbox")
}

// TestSedSandboxOracle checks the scanner against GNU sed itself: a script
// sedPrintOnly accepts must never hold a command that sed --sandbox
// refuses (e, r, R, w, W, s///e, s///w).
func TestSedSandboxOracle(t *testing.T) {
	sed := gnuSed(t)
	scripts := []string{
		":x e id", ":x w out", ":x;p", "bx e id\n:x", "b x;p", ":a}w;p", "b a}w y", "p;v 4.2;w x",
		"s/[/]/X/", "s/[/]/X/w out", "s/[]/]/X/e", "/[/]/p", `\%[%]%p`, "s/[[:alpha:]/]/X/w o",
		"1{a foo}\nw y", "a foo;w x", "i\\\nfoo\\\nw x", "s/a/b/ w x", "y/a/b/;w x", "#n\np",
		"s/a/b/gpw x", "s/a\\/b/c/e", "1~2{p;p}", "$!N;P;D", "0,/re/p", "/x/I,+3p", "l 5;q 3",
		"s/a/\\\n/", "y/\\//x/", "s/[\\/]/x/w o", "s/[[.-.]/]/x/", "s/[[=a=]/]/x/e", "s|a|b|w o",
		":1;b1", "t;T;b", "s/x/y/;:a;s/a/b/;ta", "F;z;=", "{p};p", "1!{p}", "$a end", "c\\\nx",
	}
	atoms := []string{"p", ";", "\n", ":x", " ", "bx", "w o", "e", "s/a/b/", "s/[/]/", "/", "[", "]", "\\", "{", "}", "a ", "#", "y/a/b/", "1", "$", "!", "e id", "r f", "W f", "x", "t", "I", "g"}
	scripts = append(scripts, atomRuns(3000, 6, atoms)...)
	accepted := 0
	for _, s := range scripts {
		if !sedPrintOnly(s) {
			continue
		}
		accepted++
		if sandboxRejects(t, sed, s) {
			t.Errorf("sedPrintOnly(%q) = true, but GNU sed --sandbox finds an e/r/w command in it", s)
		}
	}
	if accepted < 100 {
		t.Errorf("only %d scripts accepted: the generator no longer exercises the scanner", accepted)
	}
}

// FuzzSedSandbox is TestSedSandboxOracle on fuzzed scripts.
func FuzzSedSandbox(f *testing.F) {
	for _, s := range []string{"p", ":x;p", "s/[/]/X/", "1{a foo}\nw y", "s/a/b/gw o", "$!N;P;D"} {
		f.Add(s)
	}
	sed := gnuSed(f)
	f.Fuzz(func(t *testing.T, s string) {
		if sedPrintOnly(s) && sandboxRejects(t, sed, s) {
			t.Fatalf("sedPrintOnly(%q) = true, but GNU sed --sandbox finds an e/r/w command in it", s)
		}
	})
}

// atomRuns returns n strings, each a run of one to most atoms drawn at
// random (seeded, so every run of a test draws the same): programs for
// an oracle that tries what a reader accepts.
func atomRuns(n, most int, atoms []string) []string {
	r := rand.New(rand.NewSource(1))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := r.Intn(most) + 1; k > 0; k-- {
			b.WriteString(atoms[r.Intn(len(atoms))])
		}
		out[i] = b.String()
	}
	return out
}
