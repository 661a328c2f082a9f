package bash

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// written renders a command as written: assignments and words by Raw
// text, prefixed with "nested: " when the command is Nested.
func written(c *Command) string {
	var parts []string
	for _, a := range c.Assigns {
		parts = append(parts, a.Raw)
	}
	for _, w := range c.Words {
		parts = append(parts, w.Raw)
	}
	s := strings.Join(parts, " ")
	if c.Nested {
		s = "nested: " + s
	}
	return s
}

func mustParse(t testing.TB, src string) *Script {
	t.Helper()
	s, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return s
}

func TestParseCollectsEveryCommand(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"single command", `ls -la`, []string{"ls -la"}},
		{"and or list", `a && b || c`, []string{"a", "b", "c"}},
		{"semicolon and background", `a; b & c`, []string{"a", "b", "c"}},
		{"pipes", `a | b |& c`, []string{"a", "b", "c"}},
		{"newlines", "a\nb\n\nc", []string{"a", "b", "c"}},
		{"negation", `! a`, []string{"a"}},
		{"subshell", `(a; b) && c`, []string{"a", "b", "c"}},
		{"group", `{ a; b; } || c`, []string{"a", "b", "c"}},
		{"if condition and branches", `if a; then b; elif c; then d; else e; fi`, []string{"a", "b", "c", "d", "e"}},
		{"for items and body", `for i in x $(a); do b "$i"; done`, []string{"nested: a", `b "$i"`}},
		{"c-style for with substitution", `for ((i=0; i<$(a); i++)); do b; done`, []string{"nested: a", "b"}},
		{"while condition and body", `while a; do b; done`, []string{"a", "b"}},
		{"until condition and body", `until a; do b; done`, []string{"a", "b"}},
		{"case word patterns and bodies", `case $(a) in x) b;; $(c)) d;; esac`, []string{"nested: a", "b", "nested: c", "d"}},
		{"select", `select x in p q; do a; done`, []string{"a"}},
		{"function bodies", `f() { a; }; function g { b; }; f`, []string{"a", "b", "f"}},
		{"command substitution", `echo $(a x)`, []string{"echo $(a x)", "nested: a x"}},
		{"backticks", "echo `a`", []string{"echo `a`", "nested: a"}},
		{"process substitution in and out", `diff <(a) >(b)`, []string{"diff <(a) >(b)", "nested: a", "nested: b"}},
		{"substitution in double quotes", `echo "x $(a) y"`, []string{`echo "x $(a) y"`, "nested: a"}},
		{"assignment only", `X=$(rm -rf /)`, []string{"X=$(rm -rf /)", "nested: rm -rf /"}},
		{"assignment before command", `X=$(a) b`, []string{"X=$(a) b", "nested: a"}},
		{"redirect target", `echo > "$(a)"`, []string{"echo", "nested: a"}},
		{"test clause", `[[ $(a) == x ]] && b`, []string{"nested: a", "b"}},
		{"arithmetic command", `(( $(a) > 1 ))`, []string{"nested: a"}},
		{"arithmetic expansion", `echo $(( $(a) + 1 ))`, []string{"echo $(( $(a) + 1 ))", "nested: a"}},
		{"parameter default", `echo ${x:-$(a)}`, []string{"echo ${x:-$(a)}", "nested: a"}},
		{"array assignment", `arr=( $(a) ); b`, []string{"arr=( $(a) )", "nested: a", "b"}},
		{"time clause", `time a`, []string{"a"}},
		{"time clause posix", `time -p a b`, []string{"a b"}},
		{"coproc", `coproc a`, []string{"a"}},
		{"named coproc", `coproc n { a; }`, []string{"a"}},
		{"export with substitution", `export X=$(a) Y`, []string{"export X=$(a) Y", "nested: a"}},
		{"local and declare", `f() { local x=$(a); declare -r y=1; }`, []string{"local x=$(a)", "nested: a", "declare -r y=1"}},
		{"unquoted heredoc body", "cat <<EOF\n$(a)\nEOF", []string{"cat", "nested: a"}},
		{"quoted heredoc body is data", "cat <<'EOF'\n$(a)\nEOF", []string{"cat"}},
		{"bash -c string", `bash -c 'a; b'`, []string{"bash -c 'a; b'", "nested: a", "nested: b"}},
		{"sh -c string", `sh -c "a | b"`, []string{`sh -c "a | b"`, "nested: a", "nested: b"}},
		{"zsh dash ksh -c", `zsh -c a; dash -c b; ksh -c c`, []string{"zsh -c a", "nested: a", "dash -c b", "nested: b", "ksh -c c", "nested: c"}},
		{"bash -lc cluster", `bash -lc 'a'`, []string{"bash -lc 'a'", "nested: a"}},
		{"bash options before -c", `bash -e -o pipefail -c 'a'`, []string{"bash -e -o pipefail -c 'a'", "nested: a"}},
		{"bash by path", `/bin/bash -c 'a'`, []string{"/bin/bash -c 'a'", "nested: a"}},
		{"bash script file is not a string", `bash script.sh -c x`, []string{"bash script.sh -c x"}},
		{"eval joins its arguments", `eval "a b" c`, []string{`eval "a b" c`, "nested: a b c"}},
		{"sudo bash -c", `sudo -u root bash -c 'a'`, []string{"sudo -u root bash -c 'a'", "nested: a"}},
		{"env sh -c", `env X=1 sh -c 'a'`, []string{"env X=1 sh -c 'a'", "nested: a"}},
		{"xargs sh -c", `xargs -0 sh -c 'a "$@"' _`, []string{`xargs -0 sh -c 'a "$@"' _`, `nested: a "$@"`}},
		{"find -exec sh -c", `find . -exec sh -c 'a' \;`, []string{`find . -exec sh -c 'a' \;`, "nested: a"}},
		{"nested shell in shell", `bash -c "bash -c 'a'"`, []string{`bash -c "bash -c 'a'"`, "nested: bash -c 'a'", "nested: a"}},
		{"trap action", `trap 'rm -rf x' EXIT`, []string{"trap 'rm -rf x' EXIT", "nested: rm -rf x"}},
		{"trap reset is not code", `trap - EXIT`, []string{"trap - EXIT"}},
		{"alias value", `alias ls='rm -rf /'`, []string{"alias ls='rm -rf /'", "nested: rm -rf /"}},
		{"watch command line", `watch -n 1 'a; b'`, []string{"watch -n 1 'a; b'", "nested: a", "nested: b"}},
		{"su -c", `su -c 'a' root`, []string{"su -c 'a' root", "nested: a"}},
		{"su -lc cluster", `su -lc a root`, []string{"su -lc a root", "nested: a"}},
		{"su -c attached", `su -c'a b' root`, []string{"su -c'a b' root", "nested: a b"}},
		{"runuser --command=", `runuser --command='a' -u x`, []string{"runuser --command='a' -u x", "nested: a"}},
		{"flock -c", `flock /tmp/l -c 'a'`, []string{"flock /tmp/l -c 'a'", "nested: a"}},
		{"substitution inside bash -c string", `bash -c 'echo $(a)'`, []string{"bash -c 'echo $(a)'", "nested: echo $(a)", "nested: a"}},
		{"command in nested subshell", `$(a; (b))`, []string{"$(a; (b))", "nested: a", "nested: b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.src)
			var got []string
			for _, c := range s.Commands {
				got = append(got, written(c))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) commands\n got: %q\nwant: %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestParseRedirects(t *testing.T) {
	type redir struct {
		op     string
		output bool
		target string // Raw
	}
	tests := []struct {
		name string
		src  string
		want []redir
	}{
		{"output", `echo x > out`, []redir{{">", true, "out"}}},
		{"append", `echo x >> out`, []redir{{">>", true, "out"}}},
		{"all output", `a &> out`, []redir{{"&>", true, "out"}}},
		{"all append", `a &>> out`, []redir{{"&>>", true, "out"}}},
		{"clobber", `a >| out`, []redir{{">|", true, "out"}}},
		{"input", `a < in`, []redir{{"<", false, "in"}}},
		{"read write", `a <> f`, []redir{{"<>", true, "f"}}},
		{"with fd", `a 2> err`, []redir{{">", true, "err"}}},
		{"dup to file writes", `a >& out`, []redir{{">&", true, "out"}}},
		{"dev null skipped", `a > /dev/null 2>/dev/null`, nil},
		{"quoted dev null skipped", `a > "/dev/null"`, nil},
		{"fd duplication skipped", `a 2>&1 >&2 <&0`, nil},
		{"fd close and move skipped", `a >&- 3>&2-`, nil},
		{"heredoc and herestring skipped", "a <<EOF\nx\nEOF\nb <<< x", nil},
		{"group redirect", `{ a; b; } > out`, []redir{{">", true, "out"}}},
		{"loop redirect", `while read l; do a; done < in`, []redir{{"<", false, "in"}}},
		{"nested in substitution", `echo $(a > inner)`, []redir{{">", true, "inner"}}},
		{"nested in bash -c", `bash -c 'a > inner'`, []redir{{">", true, "inner"}}},
		{"dynamic target kept", `a > "$f"`, []redir{{">", true, `"$f"`}}},
		{"dynamic dup target kept", `a >& $f`, []redir{{">&", true, "$f"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.src)
			var got []redir
			for _, r := range s.Redirects {
				got = append(got, redir{r.Op, r.Output, r.Target.Raw})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) redirects\n got: %+v\nwant: %+v", tt.src, got, tt.want)
			}
		})
	}
}

func TestParseWords(t *testing.T) {
	tests := []struct {
		name  string
		word  string
		value string
		flags string // S static, G glob, T tilde
	}{
		{"plain", `abc`, "abc", "S"},
		{"single quotes", `'a b'`, "a b", "S"},
		{"double quotes", `"a b"`, "a b", "S"},
		{"mixed quotes", `r'm'`, "rm", "S"},
		{"backslash", `\rm`, "rm", "S"},
		{"backslash space", `a\ b`, "a b", "S"},
		{"double quote escapes", `"a\"b\$c\q\\"`, `a"b$c\q\`, "S"},
		{"ansi c", `$'a\x41\n\t\101\u00e9'`, "aA\n\tAé", "S"},
		{"ansi c control", `$'\cA\e'`, "\x01\x1b", "S"},
		{"ansi c nul ends", `$'ab\0cd'`, "ab", "S"},
		{"ansi c unknown escape", `$'\q'`, `\q`, "S"},
		// bash 5.2 reads \x{...} as ksh93 does: every hex digit, the
		// value's low byte, an optional "}".
		{"ansi c hex in braces", `$'\x{2e}env'`, ".env", "S"},
		{"ansi c hex in braces, many digits", `$'\x{12345}'`, "E", "S"},
		{"ansi c hex in braces, unclosed", `$'a\x{2e'`, "a.", "S"},
		{"ansi c hex in braces, no digit", `$'a\x{}b'`, "a", "S"},
		{"locale string", `$"hi"`, "hi", "S"},
		{"line continuation", "a\\\nb", "ab", "S"},
		{"glob", `*.go`, "*.go", "SG"},
		{"quoted glob is literal", `'*.go'`, "*.go", "S"},
		{"escaped glob is literal", `\*.go`, "*.go", "S"},
		{"tilde", `~`, "~", "ST"},
		{"tilde slash", `~/x`, "~/x", "ST"},
		{"quoted tilde", `'~'/x`, "~/x", "S"},
		{"tilde user", `~root/x`, "", ""},
		{"tilde plus is the cwd", `~+`, ".", "S"},
		{"tilde plus slash", `~+/x`, "./x", "S"},
		{"tilde plus glob", `~+/*.go`, "./*.go", "SG"},
		{"quoted tilde plus", `'~+'/x`, "~+/x", "S"},
		{"tilde plus then quote", `~+"/x"`, "", ""},
		{"tilde plus name", `~+x`, "", ""},
		{"tilde minus is unknown", `~-/x`, "", ""},
		{"tilde then quote", `~"x"`, "", ""},
		{"tilde in assignment-like word", `PREFIX=~/x`, "", ""},
		{"tilde after colon in assignment-like word", `P=a:~/x`, "", ""},
		{"tilde in option value stays", `--dir=~/x`, "--dir=~/x", "S"},
		{"parameter", `$x`, "", ""},
		{"braced parameter", `${x}`, "", ""},
		{"parameter in quotes", `"$HOME"/x`, "", ""},
		{"command substitution", `$(a)`, "", ""},
		{"arithmetic", `$((1+2))`, "", ""},
		{"brace expansion", `{a,b}`, "", ""},
		{"brace sequence", `x{1..3}`, "", ""},
		{"single brace is literal", `{a}`, "{a}", "S"},
		{"extglob", `@(a|b)`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "x "+tt.word)
			w := s.Commands[0].Words[1]
			var flags string
			for _, f := range []struct {
				on bool
				c  string
			}{{w.Static, "S"}, {w.Glob, "G"}, {w.Tilde, "T"}} {
				if f.on {
					flags += f.c
				}
			}
			if w.Value != tt.value || flags != tt.flags || w.Raw != tt.word {
				t.Errorf("word %q = {Raw %q Value %q flags %q}, want {Value %q flags %q}", tt.word, w.Raw, w.Value, flags, tt.value, tt.flags)
			}
		})
	}
}

// TestBraceTilde checks the words a brace expansion makes: an unquoted
// "~" or "~+" that starts one is expanded as bash expands it after the
// braces, a quoted or escaped one is a literal name.
func TestBraceTilde(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{`{~,x}/a`, "~/a T, x/a"},
		{`{x,~}/a`, "x/a, ~/a T"},
		{`{~+,x}/a`, "./a, x/a"},
		{`{'~',x}/a`, "~/a, x/a"},
		{`{\~,x}/a`, "~/a, x/a"},
		{`x{~,y}/a`, "x~/a, xy/a"},
		{`{~-,x}/a`, ""}, // $OLDPWD: not followed
	} {
		w := mustParse(t, "x "+tc.word).Commands[0].Words[1]
		var got []string
		for _, b := range w.Braces {
			s := b.Value
			if b.Tilde {
				s += " T"
			}
			got = append(got, s)
		}
		if g := strings.Join(got, ", "); g != tc.want {
			t.Errorf("braces of %q = %q, want %q", tc.word, g, tc.want)
		}
	}
}

func TestParseAssigns(t *testing.T) {
	tests := []struct {
		src    string
		name   string
		raw    string
		value  string
		static bool
	}{
		{`X=1 a`, "X", "X=1", "1", true},
		{`X="a b" a`, "X", `X="a b"`, "a b", true},
		{`X= a`, "X", "X=", "", true},
		{`X=$y a`, "X", "X=$y", "", false},
		{`X=~/bin a`, "X", "X=~/bin", "", false},
		{`X=a:~/bin a`, "X", "X=a:~/bin", "", false},
		{`X+=1 a`, "X", "X+=1", "", false},
		{`X[1]=1`, "X", "X[1]=1", "", false},
		{`X=(1 2)`, "X", "X=(1 2)", "", false},
		{`X=* a`, "X", "X=*", "*", true},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a := mustParse(t, tt.src).Commands[0].Assigns[0]
			want := Assign{Name: tt.name, Raw: tt.raw, Value: tt.value, Static: tt.static}
			if a != want {
				t.Errorf("assign = %+v, want %+v", a, want)
			}
		})
	}
}

func TestParseSyntaxError(t *testing.T) {
	tests := []struct {
		src       string
		want      string
		line, col uint
	}{
		{`echo "unterminated`, "1:6: reached EOF without closing quote `\"`", 1, 6},
		{`if true; then`, "1:10: `then` must be followed by a statement list", 1, 10},
		{"a\n(b", "2:1: reached EOF without matching `(` with `)`", 2, 1},
		{`a |`, "1:3: `|` must be followed by a statement", 1, 3},
		{"echo \xff", "1:6: invalid UTF-8 encoding", 1, 6},
		{`bash -c 'ok' && (`, "1:17: `(` must be followed by a statement list", 1, 17},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			s, err := Parse(tt.src)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.src, s)
			}
			if s != nil {
				t.Errorf("Parse(%q) returned a script with its error", tt.src)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			var pe syntax.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %v does not wrap syntax.ParseError", err)
			}
			if err.Error() != tt.want || se.Line != tt.line || se.Col != tt.col {
				t.Errorf("error = %q at %d:%d, want %q at %d:%d", err, se.Line, se.Col, tt.want, tt.line, tt.col)
			}
		})
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		src  string
		name string
		ok   bool
	}{
		{`ls -l`, "ls", true},
		{`"rm" x`, "rm", true},
		{`/usr/bin/env x`, "/usr/bin/env", true},
		{`$CMD x`, "", false},
		{`$(echo rm) x`, "", false},
		{`"$x"`, "", false},
		{`/bin/r? x`, "", false},
		{`X=1`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			name, ok := mustParse(t, tt.src).Commands[0].Name()
			if name != tt.name || ok != tt.ok {
				t.Errorf("Name() = %q, %v; want %q, %v", name, ok, tt.name, tt.ok)
			}
		})
	}
}

// TestConcurrentUse runs every method of the same commands from several
// goroutines; with -race it proves the methods only read.
func TestConcurrentUse(t *testing.T) {
	s := mustParse(t, `sudo git -C /r push -f && find . -exec sh -c 'rm -rf x' \; | xargs cat`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, c := range s.Commands {
				c.Name()
				c.AllowForm()
				c.DenyForms()
				c.Destructive()
				c.ReadOnly()
			}
		})
	}
	wg.Wait()
}

// TestParserReuse parses from many goroutines at once, alternating
// syntax errors, nested shell code (a second parser taken while the first
// tree is walked) and plain commands, and checks that every result is
// what a first parse gives: a pooled parser keeps nothing from its last
// use, an error included, and a returned script shares nothing with later
// parses.
func TestParserReuse(t *testing.T) {
	srcs := []string{
		`echo "unterminated`,
		`bash -c 'sh -c "rm -rf x"' && ls -l`,
		`if true; then`,
		`a=$(b 'c d') e "f"`,
		"cat <<EOF\nbody $(id)\nEOF",
	}
	render := func(src string) string {
		s, err := Parse(src)
		if err != nil {
			return "error: " + err.Error()
		}
		var out []string
		for _, c := range s.Commands {
			out = append(out, written(c))
		}
		return strings.Join(out, "\n")
	}
	want := make([]string, len(srcs))
	for i, src := range srcs {
		want[i] = render(src)
	}
	first := mustParse(t, srcs[1])
	firstText := written(first.Commands[0])
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(srcs)
				if got := render(srcs[k]); got != want[k] {
					t.Errorf("parse %d of %q = %q, want %q", i, srcs[k], got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
	if got := written(first.Commands[0]); got != firstText {
		t.Errorf("an earlier script changed after later parses: %q, was %q", got, firstText)
	}
}

// TestShellInput checks where a shell takes its commands from, for the
// -c string (nested code) and for standard input (a here-document given
// to it is code too).
func TestShellInput(t *testing.T) {
	for _, tc := range []struct {
		args  string
		code  string // the -c string, "" if none
		stdin bool
	}{
		{"", "", true},
		{"-c x", "x", false},
		{"-ec x", "x", false},
		{"-o posix -c x", "x", false},
		{"-c -- x", "x", false},
		{"-s", "", true},
		{"-s a b", "", true},
		{"-", "", true},
		{"--", "", true},
		{"-- script", "", false},
		{"script a", "", false},
		{"--rcfile f", "", true},
		{"-o pipefail script", "", false},
		{"-s -c x", "x", true},         // both read: the strict side
		{"+c script", "script", false}, // +c is -c to bash and dash
		{"+x", "", true},
		{"-o posix", "", true},
		{"+O extglob", "", true},
		{"--norc --posix", "", true},
		{"--norc -x script", "", false},
		{"+s a b", "", true},
		{"-T x", "", false},    // -T is bash's functrace: x is the script
		{"-Z x", "", true},     // not known: x may be its value
		{"--frob x", "", true}, // not known: x may be its value
		// An option not known in a cluster that takes a value, the last
		// word: the cluster itself is where the reading stops.
		{"+c +O0", "", true},
		{"-c -oZ", "", true},
		{"+c -o", "", false},
	} {
		var args []Word
		for _, f := range strings.Fields(tc.args) {
			args = append(args, Word{Raw: f, Value: f, Static: true})
		}
		code, stdin := shellInput("bash", args)
		got := ""
		if code != nil {
			got = code.Value
		}
		if got != tc.code || stdin != tc.stdin {
			t.Errorf("bash %s: code %q, stdin %v; want %q, %v", tc.args, got, stdin, tc.code, tc.stdin)
		}
	}
	if code, stdin := shellInput("bash", []Word{{Raw: "$x"}}); code == nil || code.Static || !stdin {
		t.Errorf("bash $x: code %+v, stdin %v; want code not static and stdin", code, stdin)
	}
}

// TestBracketGlobName checks that a command word the parser would take for
// the start of an array assignment (`c[u]rl x`) is read as bash reads it:
// a glob command word with its value unchanged.
func TestBracketGlobName(t *testing.T) {
	tests := []struct {
		src   string
		value string // the glob command word's value
		words int
	}{
		{`c[u]rl x`, "c[u]rl", 2},
		{`ls; c[u]rl x`, "c[u]rl", 2},
		{`c[u] x`, "c[u]", 2},
		{`c[u]+x y`, "c[u]+x", 2},
		{`c[u]rl=x y`, "c[u]rl=x", 2},
		{`echo "$(c[u]rl x)"`, "c[u]rl", 2},
		{`a[1]x; b[2]y z`, "b[2]y", 2},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			s := mustParse(t, tt.src)
			var found *Command
			for _, c := range s.Commands {
				if len(c.Words) > 0 && c.Words[0].Value == tt.value {
					found = c
				}
			}
			if found == nil {
				t.Fatalf("Parse(%q): no command named %q in %v", tt.src, tt.value, commandTexts(s))
			}
			w := found.Words[0]
			if !w.Static || !w.Glob || len(found.Words) != tt.words || len(found.Assigns) != 0 {
				t.Errorf("command %q: word %+v, %d words, %d assigns; want a static glob word, %d words, no assigns",
					written(found), w, len(found.Words), len(found.Assigns), tt.words)
			}
			if _, ok := found.Name(); ok {
				t.Errorf("command %q has a static name; a glob names no program for certain", written(found))
			}
		})
	}
	// Real array assignments still parse as assignments, and the error of
	// a source that stays wrong is the first one, at its place in src.
	if a := mustParse(t, `a[1]=x`).Commands[0].Assigns; len(a) != 1 || a[0].Name != "a" {
		t.Errorf("a[1]=x: assigns %+v, want one to a", a)
	}
	_, err := Parse("c[u]rl x; (")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.Col != 1 {
		t.Errorf(`Parse("c[u]rl x; ("): error %v, want the first error, at 1:1`, err)
	}
}

func commandTexts(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, written(c))
	}
	return out
}

// TestRelease: a Script released and its memory reused by later parses
// leaves every later parse as a fresh one would be, and the strings taken
// from the released one intact.
func TestRelease(t *testing.T) {
	srcs := []string{
		`a=1 b=2 cmd -x "y z" 'w' | other --opt=v; third a b c d e f g h; bash -c 'nested one; two'`,
		`ls`,
		`X=1`,
		`git status && git diff -- a b c; echo $(date) > out`,
		`f() { :; }; f`,
	}
	fresh := make([][][]Word, len(srcs))
	for i, src := range srcs {
		s, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Commands {
			fresh[i] = append(fresh[i], slices.Clone(c.Words))
		}
	}
	for round := range 20 {
		for i, src := range srcs {
			s, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]Word
			for _, c := range s.Commands {
				got = append(got, slices.Clone(c.Words))
			}
			if !reflect.DeepEqual(got, fresh[i]) {
				t.Fatalf("round %d, %q after releases:\n got %+v\nwant %+v", round, src, got, fresh[i])
			}
			var name, want string
			if ws := fresh[i][0]; len(ws) > 0 {
				name, want = s.Commands[0].Words[0].Value, ws[0].Value
			}
			s.Release()
			if name != want {
				t.Fatalf("a name taken before Release: %q, want %q", name, want)
			}
		}
	}
}

// TestBraceGroupsBounded: a word of more brace groups than maxBraces is
// not expanded, even when each group makes one word ({1..1}), since
// expanding them costs the square of their number: it is not static, and
// has no brace words. Nor is one of more than maxBraceOpens unbalanced
// "{" split, which would take gigabytes ({a,{a,{a,...).
func TestBraceGroupsBounded(t *testing.T) {
	for _, w := range []string{strings.Repeat("{1..1}", maxBraces+1), strings.Repeat("{a,b}", 2000), "x" + strings.Repeat("{a,{b", maxBraces) + strings.Repeat("}}", maxBraces),
		strings.Repeat("{a,", 10_000)} {
		s, err := Parse("cat " + w)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Commands[0].Words[1]; got.Static || got.Braces != nil {
			t.Errorf("cat %.40q...: word static %v with %d brace words, want neither", w, got.Static, len(got.Braces))
		}
	}
	s, err := Parse("cat " + strings.Repeat("{1..1}", maxBraces))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Commands[0].Words[1].Braces; len(got) != 1 || got[0].Value != strings.Repeat("1", maxBraces) {
		t.Errorf("%d groups of {1..1}: brace words %+v, want one of %d 1s", maxBraces, got, maxBraces)
	}
}

// TestTooComplex: a source past the bounds is a syntax error, not a stack
// overflow (a fatal error, at about a hundred thousand levels): too long,
// too many brackets, or nested too deep by whatever construct (a [[ ! ]]
// chain, an && chain, an arithmetic chain); a 20,001-part && chain
// parses; nested code past them, with the code around it, is suspicious.
func TestTooComplex(t *testing.T) {
	for name, src := range map[string]string{
		"long":        strings.Repeat("$(", 400_000) + "x" + strings.Repeat(")", 400_000),
		"brackets":    "echo '" + strings.Repeat(")", 30_000) + "'; " + strings.Repeat("$(", 30_000) + "x" + strings.Repeat(")", 30_000),
		"negations":   "[[ " + strings.Repeat("! ", 100_000) + "a ]]",
		"and chain":   strings.Repeat("a&&", 80_000) + "x",
		"arithmetic":  "echo $((" + strings.Repeat("1+", 100_000) + "1))",
		"time prefix": strings.Repeat("time ", 50_000) + "a",
	} {
		s, err := Parse(src)
		var se *SyntaxError
		if !errors.As(err, &se) || s != nil || !strings.Contains(err.Error(), "too complex") {
			t.Errorf("%s: %v, want a too-complex syntax error", name, err)
		}
	}
	if _, err := Parse(strings.Repeat("a && ", 20_000) + "x"); err != nil {
		t.Errorf("a 20,001-part && chain: %v", err)
	}
	// 15,000 brackets in the outer source, 15,000 more in the code
	// bash -c runs: together past maxOpeners.
	nest := strings.Repeat("(", 15_000) + "x" + strings.Repeat(")", 15_000)
	s, err := Parse("bash -c '" + nest + "'")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Suspicious, labelDepth) {
		t.Errorf("bash -c of code nested 15,000 deep: suspicious %q, want %q", s.Suspicious, labelDepth)
	}
}
