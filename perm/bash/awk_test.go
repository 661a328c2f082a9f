package bash

import (
	"strings"
	"testing"
)

// TestAwkProgram holds the reader to its subset: programs that only
// compute and print to stdout are verified; each way out of the program
// (commands, files, the environment, ARGV's files, code loaded or read
// elsewhere) and each token awks may read two ways is not.
func TestAwkProgram(t *testing.T) {
	safe := []string{
		`{print $1}`, `NR>1 {s+=$2} END{print s}`, `/re/ {n++}`, `$3 > 5 {print}`,
		`{a[$1]++} END {for (k in a) print k, a[k]}`, `BEGIN{FS=","}`, `BEGIN { OFS = "\t" } { $1 = $1; print }`,
		`{ print length($0) }`, `length > 72`, `NF { print $NF }`, `{ sub(/a/, "b"); gsub(/[0-9]+/, "#"); print }`,
		`{ if ($1 ~ /^#/) next; else print toupper($1) }`, `{ x = $2 / 2; y = x / 3; print x, y }`,
		`function f(a, b) { return a + b } { print f($1, $2) }`, `{ printf "%s %d\n", $1, $2 }`,
		`{ printf("%s\n", substr($0, 2, 3)) }`, "{ print $1\n  if (x > 3) n++ }", "# comment\n{ print } # trailing",
		`$1 !~ /x/ && $2 >= 3 || !NF`, `{ n = split($0, parts, /:/); print parts[n] }`, `BEGIN { srand(1); print int(rand() * 10) }`,
		`{ s = s sprintf("%c", 65) } END { print s }`, `/a\/b/ {print}`, `/[[:alpha:]]+/ { print }`,
		`{ delete a[$1]; delete a }`, `{ i = 0; while (i++ < 3) print i; do { i-- } while (i > 0) }`,
		"{ print \\\n $1 }", `{ x = (1 > 2) ? "a" : "b"; print x }`,
		`END { exit NR > 0 }`, `{ print $1, $2 } $1 > 2 { print "big" }`, `_ = 1`, `{ Max = $1 }`, "{ x = \"\u00e9\" }",
	}
	for _, p := range safe {
		if why := awkProgram(p); why != "" {
			t.Errorf("awkProgram(%q) = %q, want it verified", p, why)
		}
	}
	unsafe := []string{
		`BEGIN{ARGV[1]="." "env"; ARGC=2}{print}`, `BEGIN{ARGC=3}`, `{print ENVIRON["HOME"]}`, `{print PROCINFO["pid"]}`,
		`{print SYMTAB["x"]}`, `{ for (k in ARGV) print k }`, `BEGIN{while ((getline l < ".env") > 0) print l}`,
		`BEGIN{getline; print}`, `BEGIN{"cat .env" | getline x; print x}`, `BEGIN { getline line<".env" }`,
		`BEGIN{system("rm -rf x")}`, `BEGIN{ system ("id") }`, `{print > "out"}`, `{print >> "out"}`, `{print $1 > $2}`,
		`{printf "%s", $0 > "/dev/stderr"}`, `{printf("%s", $0) > "f"}`, `{ print (1 > 2) }`, `{print | "sh"}`,
		`{print |& "sh"}`, `{ "date" |& getline d }`, `@include "x.awk"`, `@load "filefuncs"`, `@namespace "x"`,
		`BEGIN{ @f() }`, `{ close("x") }`, `{ fflush() }`, `{ foo(1) }`, `{ strftime() }`, `{ x = systime() }`,
		"{ print $1,\n $2 > \"f\" }", "{ print $1 &&\n $2 > \"f\" }", `func f() {} { f() }`, `function system() {}`,
		`function ARGV() {}`, `BEGINFILE { print }`, `{ nextfile }`, `{ switch ($1) { case /x/: print } }`,
		`{ x = length /"/; system("id") }`, `{ x = $/"/; system("id") }`, `{ i++ /"/; system("id") }`,
		"/a\\\nb/", "\"a\\\nb\"", `/[/]/`, `/[\/]/`, `/[[:a/:]]/`, `/=/`, `/x`, `"x`, "{ print `id` }",
		"{ x = 'a' }", `{ x = a . b }`, `{ x = a & b }`, "{ print \\ }", "{ \u00e9 = 1 }",
		"\r{ print }", `BEGIN { CONVFMT = "%s" }`, `{ IGNORECASE = 1 }`, `{ print RT }`, `{ n = MAXN }`,
	}
	for _, p := range unsafe {
		if why := awkProgram(p); why == "" {
			t.Errorf("awkProgram(%q) verified, want it refused", p)
		}
	}
}

// TestAwkCode holds the command line to the options and operands every
// awk reads alike as data.
func TestAwkCode(t *testing.T) {
	words := func(s string) []Word {
		var ws []Word
		for _, f := range strings.Split(s, "|") {
			ws = append(ws, Word{Raw: f, Value: f, Static: true})
		}
		return ws
	}
	for _, tc := range []struct {
		args string // words separated by "|"
		ok   bool
	}{
		{"{print $1}", true},
		{"-F:|{print $1}|/etc/passwd", true},
		{"-F|:|{print $1}", true},
		{"-v|x=1|-vy=2|--|{print x, y}|f|g", true},
		{"{print}|FS=:|f|-", true},
		{"-v|OFS=,|{print}", true},
		{"", false},
		{"-F:", false},
		{"-f|prog.awk", false},
		{"--file=prog.awk", false},
		{"-e|BEGIN{}", false},
		{"--source=BEGIN{}", false},
		{"-i|inplace|{print}", false},
		{"--include|x|{print}", false},
		{"-l|lib|{print}", false},
		{"--load=lib|{print}", false},
		{"-E|prog", false},
		{"--exec=prog", false},
		{"-W|exec|prog", false},
		{"-d|{print}", false},
		{"-b|{print}", false},
		{"-v|ARGC=3|{print}", false},
		{"-v|ENVIRON=1|{print}", false},
		{"-v|x|{print}", false},
		{"-v", false},
		{"{print}|ARGC=3|f", false},
		{"{print}|-f|x", false},
		{"{print}|--|f", false},
		{"{print}|--source=x", false},
	} {
		args := words(tc.args)
		if tc.args == "" {
			args = nil
		}
		if why := awkCode(args); (why == "") != tc.ok {
			t.Errorf("awkCode(%q) = %q, want verified %v", tc.args, why, tc.ok)
		}
	}
	glob := []Word{{Raw: "{print}", Value: "{print}", Static: true}, {Raw: "*.log", Value: "*.log", Static: true, Glob: true}}
	if why := awkCode(glob); why == "" {
		t.Errorf("awkCode with operand *.log verified: a file it matches may be -f... or ARGC=...")
	}
	glob[1] = Word{Raw: "logs/*.log", Value: "logs/*.log", Static: true, Glob: true}
	if why := awkCode(glob); why != "" {
		t.Errorf("awkCode with operand logs/*.log = %q, want verified", why)
	}
	dyn := []Word{{Raw: "{print}", Value: "{print}", Static: true}, {Raw: `"$f"`}}
	if why := awkCode(dyn); why == "" {
		t.Errorf("awkCode with operand \"$f\" verified: it may be an option")
	}
}

// TestAwkCodeOfCommand holds Command.AwkCode to the words the forms
// were made of: a program with spaces is one word, whichever form.
func TestAwkCodeOfCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{`awk '{ print $1 }' f`, true},
		{`nice -n 5 awk -F ' ' '{ print $1 }' f`, true},
		{`awk -v 'x=1 {system("id")}' '{print}'`, true}, // x's value is data
		{`awk -v 'x=1 {print}' '{system("id")}'`, false},
		{`awk "BEGIN{ARGV[1]=\".\" \"env\"; ARGC=2}{print}"`, false},
		{`awk "$prog" f`, false},
		{`awk '{print}' $files`, false},
	} {
		s, err := Parse(tc.line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.line, err)
		}
		c := s.Commands[0]
		verified := true
		for _, f := range c.DenyForms() {
			prog, tail, _ := strings.Cut(f, " ")
			if prog == "awk" && c.AwkCode(tail) != "" {
				verified = false
			}
		}
		if verified != tc.ok {
			t.Errorf("%s: verified %v, want %v", tc.line, verified, tc.ok)
		}
	}
}
