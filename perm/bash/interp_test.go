package bash

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestInterpreterArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want CodeSource
		word string
	}{
		// An option that takes the next word: that word is no script.
		{"python3", []string{"-W", "ignore"}, CodeStdin, ""},
		{"python3", []string{"-Wignore"}, CodeStdin, ""},
		{"python3", []string{"-X", "dev"}, CodeStdin, ""},
		{"python3", []string{"-W", "ignore", "-"}, CodeStdin, ""},
		{"python3", []string{"-uW", "ignore"}, CodeStdin, ""},
		{"python3", []string{"--check-hash-based-pycs", "always"}, CodeStdin, ""},
		{"perl", []string{"-I", "lib"}, CodeStdin, ""},
		{"ruby", []string{"-I", "lib"}, CodeStdin, ""},
		{"ruby", []string{"-C", "dir"}, CodeStdin, ""},
		{"ruby", []string{"--disable", "gems"}, CodeStdin, ""},
		{"node", []string{"-r", "x"}, CodeStdin, ""},
		{"node", []string{"--require=x"}, CodeStdin, ""},
		{"node", []string{"--input-type", "module"}, CodeStdin, ""},
		// A value only in its own word, then the script.
		{"perl", []string{"-i", "x.pl"}, CodeFile, "x.pl"},
		{"perl", []string{"-ilib"}, CodeStdin, ""},
		{"ruby", []string{"-x", "x.rb"}, CodeFile, "x.rb"},
		// perl -l and -0 take octal digits; the word goes on.
		{"perl", []string{"-lI", "lib"}, CodeStdin, ""},
		{"perl", []string{"-l0I", "lib"}, CodeStdin, ""},
		{"perl", []string{"-0777w", "x.pl"}, CodeFile, "x.pl"},
		// Scripts after options.
		{"python3", []string{"-u", "-W", "ignore", "x.py", "-W"}, CodeFile, "x.py"},
		{"python3", []string{"--", "-x.py"}, CodeFile, "-x.py"},
		{"perl", []string{"-w", "-I", "lib", "x.pl"}, CodeFile, "x.pl"},
		{"node", []string{"--no-warnings", "-r", "./m.js", "x.js"}, CodeFile, "x.js"},
		{"deno", []string{"run", "x.ts"}, CodeFile, "run"},
		// A module ends python's options; -i reads stdin after it.
		{"python3", []string{"-m", "pytest", "-k", "x"}, CodeFile, "-m"},
		{"python3", []string{"-i", "-m", "mod"}, CodeStdin, "-m"},
		{"python3", []string{"-i", "x.py"}, CodeStdin, "x.py"},
		// Code given inline.
		{"python3", []string{"-uc", "import os"}, CodeInline, "-c"},
		{"perl", []string{"-lne", "print"}, CodeInline, "-e"},
		{"node", []string{"--eval=1"}, CodeInline, "--eval"},
		// Stdin: no script, "-", or an empty one (perl and node read
		// stdin for "").
		{"python3", nil, CodeStdin, ""},
		{"perl", []string{"--"}, CodeStdin, ""},
		{"perl", []string{"''", "x.pl"}, CodeStdin, ""},
		{"node", []string{`""`}, CodeStdin, ""},
		// What the gate cannot read.
		{"python3", []string{"--check-hash", "always"}, CodeUnknown, "--check-hash"},
		{"python3", []string{"-J", "x.py"}, CodeUnknown, "-J"},
		{"python2", []string{"-Q", "new"}, CodeUnknown, "-Q"},
		{"perl", []string{"-Mstrict", "x.pl"}, CodeUnknown, "-Mstrict"},
		{"perl", []string{"-F:", "x.pl"}, CodeUnknown, "-F:"},
		{"perl", []string{"$a", "x.pl"}, CodeUnknown, "$a"},
		{"perl", []string{"--", `"$f"`}, CodeUnknown, `"$f"`},
		{"python3", []string{"*.py"}, CodeUnknown, "*.py"},
		{"ruby", []string{"-W:deprecated", "x.rb"}, CodeUnknown, "-W:deprecated"},
		{"node", []string{"--import", "x", "x.js"}, CodeUnknown, "--import"},
		{"node", []string{"--no-warn", "x.js"}, CodeUnknown, "--no-warn"},
		{"php", []string{"-d", "x=1"}, CodeUnknown, "-d"},
		{"osascript", []string{"-l", "JavaScript"}, CodeUnknown, "-l"},
	} {
		src, word := InterpreterArgs(tc.name, tc.args)
		if src != tc.want || word != tc.word {
			t.Errorf("InterpreterArgs(%q, %q) = %v, %q; want %v, %q", tc.name, tc.args, src, word, tc.want, tc.word)
		}
	}
}

// oracleInterpreters are the interpreters TestInterpreterArgsAgainstPrograms
// runs, each with a script printing SCRIPT and stdin code printing
// STDIN-RAN. Each prints what it computes, so that a program reading the
// code as data (perl -p prints its input) does not print the marker, and
// starts with a "#!" line, which perl -x looks for and python -x skips.
var oracleInterpreters = []struct{ name, script, stdin string }{
	{"python3", "#!python\nprint('SC' + 'RIPT')\n", "#!python\nprint('ST' + 'DIN-RAN')\n"},
	{"perl", "#!perl\nprint 'SC' . \"RIPT\\n\";\n", "#!perl\nprint 'ST' . \"DIN-RAN\\n\";\n"},
	{"node", "#!node\nconsole.log('SC' + 'RIPT')\n", "#!node\nconsole.log('ST' + 'DIN-RAN')\n"},
}

// TestInterpreterArgsAgainstPrograms holds InterpreterArgs to the
// installed interpreters: wherever it says the program is a script file
// (or a module), the interpreter given code on stdin must not run it.
// Each option is given the script's name as its next word, so that an
// option the grammar calls a flag but that takes a value leaves the
// interpreter without a script, reading stdin; and each value-taking
// option is put after every option that may start a run of them, so that
// one that swallows the rest of its word, or does not, is caught too.
func TestInterpreterArgsAgainstPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("runs interpreters")
	}
	for _, o := range oracleInterpreters {
		t.Run(o.name, func(t *testing.T) {
			prog, err := exec.LookPath(o.name)
			if err != nil {
				t.Skipf("%s is not installed", o.name)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s"), []byte(o.script), 0o644); err != nil {
				t.Fatal(err)
			}
			// The oracle works: the script runs, and so does stdin code.
			if out := runInterpreter(t, dir, prog, []string{"./s"}, o.stdin); !strings.Contains(out, "SCRIPT") {
				t.Fatalf("%s ./s did not run the script: %.200q", o.name, out)
			}
			if out := runInterpreter(t, dir, prog, nil, o.stdin); !strings.Contains(out, "STDIN-RAN") {
				t.Fatalf("%s did not run code from stdin: %.200q", o.name, out)
			}
			checked := 0
			for _, args := range interpreterProbes(interpreters.Get()[o.name]) {
				src, _ := InterpreterArgs(o.name, args)
				if src != CodeFile {
					continue // stdin, inline or unknown: the gate asks
				}
				checked++
				if out := runInterpreter(t, dir, prog, args, o.stdin); strings.Contains(out, "STDIN-RAN") {
					t.Errorf("%s %q: InterpreterArgs says it runs a script file, but it ran stdin: %.200q", o.name, args, out)
				}
			}
			if checked == 0 {
				t.Fatal("no probe was read as running a script")
			}
		})
	}
}

// interpreterProbes are the argument lists TestInterpreterArgsAgainstPrograms
// runs for an interpreter's grammar.
func interpreterProbes(in *interpreter) [][]string {
	const script = "./s"
	s := in.opts
	var out [][]string
	for _, c := range s.flags + s.args + s.attached + s.octal {
		out = append(out, []string{"-" + string(c), script})
	}
	for _, l := range append(s.long, s.longArgs...) {
		out = append(out, []string{"--" + l, script}, []string{"--" + l + "=x", script})
	}
	// Runs: each option that may start one, then each that takes a
	// value (an octal one with digits, too).
	for _, first := range s.flags + s.attached + s.octal {
		for _, c := range s.args {
			out = append(out, []string{"-" + string(first) + string(c), script})
			if strings.ContainsRune(s.octal, first) {
				out = append(out, []string{"-" + string(first) + "07" + string(c), script})
			}
		}
	}
	return append(out, []string{script}, []string{"--", script}, []string{"-w", "--", script})
}

// runInterpreter runs prog with args in dir, stdin on its standard input,
// and returns what it printed.
func runInterpreter(t *testing.T, dir, prog string, args []string, stdin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TERM=dumb")
	cmd.Stdin = strings.NewReader(stdin)
	out, _ := cmd.CombinedOutput() // many probes fail: what they ran is what counts
	return string(out)
}
