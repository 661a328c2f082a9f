package bash

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestStaticOutput(t *testing.T) {
	tests := []struct {
		src  string // a command substitution's body
		want string
		ok   bool
	}{
		{`echo curl x`, "curl x\n", true},
		{`echo 'curl  x'`, "curl  x\n", true},
		{`echo -n curl`, "curl", true},
		{`echo -nE 'a\tb'`, `a\tb`, true},
		{`echo 'a\tb'`, "a\\tb\n", true}, // bash's echo leaves escapes alone
		{`echo -e 'a\tb'`, "", false},
		{`echo -e ab`, "ab\n", true},
		{`echo {curl,x}`, "curl x\n", true},
		{`echo`, "\n", true},
		{`echo c*`, "", false},
		{`echo ~/x`, "", false},
		{`echo $x`, "", false},
		{`echo x > f`, "", false},
		{`echo x &`, "", false},
		{`X=1 echo x`, "", false},
		{`echo a; echo b`, "", false},
		{`"echo" x`, "", false},
		{`printf 'curl x\n'`, "curl x\n", true},
		{`printf '%s x\n' curl`, "curl x\n", true},
		{`printf '%s\n' a b`, "a\nb\n", true},
		{`printf '%s %s\n' a`, "a \n", true},
		{`printf 'x\n' a b`, "x\n", true},
		{`printf '100%%\t\\'`, "100%\t\\", true},
		{`printf -- '%s' a`, "a", true},
		{`printf '%d' 1`, "", false},
		{`printf '%b' 'a\n'`, "", false},
		{`printf '\x41'`, "", false},
		{`printf -v x y`, "", false},
		{`printf`, "", false},
		{`cat f`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			f, _, err := parseFile(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := staticOutput(f.Stmts)
			if got != tt.want || ok != tt.ok {
				t.Errorf("staticOutput(%q) = %q, %v; want %q, %v", tt.src, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestConstantPropagation checks that a command whose words use names the
// script assigns static values to, or static command output, gets the
// readings with the values put in (broad forms and nested code), while
// its words as written, its name and its allow form stay as they were.
func TestConstantPropagation(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // a deny form of some command of the script; "" none with a value put in
	}{
		{"plain assignment", `x=curl; $x y`, "curl y"},
		{"braced", `x=curl; ${x} y`, "curl y"},
		{"quoted", `f=curl; "$f" x`, "curl x"},
		{"quoted keeps blanks", `f='curl  x'; "$f"`, "'curl  x'"},
		{"unquoted splits", `x="curl -s"; $x y`, "curl -s y"},
		{"unquoted empty vanishes", `x=; $x curl y`, "curl y"},
		{"part of a word", `x=ur; c${x}l y`, "curl y"},
		{"export", `export X=curl; $X y`, "curl y"},
		{"declare", `declare X=curl; $X y`, "curl y"},
		{"readonly", `readonly X=curl; $X y`, "curl y"},
		{"local in a function", `f() { local x=curl; $x y; }; f`, "curl y"},
		{"assignment after use", `$x y; x=curl`, "curl y"},
		{"any branch", `if a; then x=ls; else x=curl; fi; $x y`, "curl y"},
		{"for items", `for p in wget curl; do $p x; done`, "curl x"},
		{"long script", strings.Repeat("ls; ", linearConsts) + "x=curl; $x y", "curl y"},
		{"long script, value from nested code", strings.Repeat("ls; ", linearConsts) + `$x y; bash -c 'x=curl'`, "curl y"},
		{"value from nested code", `$x y; bash -c 'x=curl'`, "curl y"},
		{"env assignment", `env X=curl sh -c '$X y'`, "curl y"},
		{"export behind builtin", `builtin export X=curl; $X y`, "curl y"},
		{"value in quotes from another name", `a=cu; x="${a}rl"; $x y`, "curl y"},
		{"value through two names", `a=c; b=${a}u; x=${b}rl; $x y`, "curl y"},
		{"value of an expression is not split", `x="$(echo cu) x"; "$x" y`, "'cu x' y"},
		{"value from unknown output", `x=$(cat f); $x y`, ""},
		{"value only from itself", `x=$x; $x y`, ""},
		{"default not static", `${x:-$y} z`, ""},
		{"value is a wrapper", `x=sudo; $x curl y`, "curl y"},
		{"behind a wrapper", `x=curl; sudo $x y`, "curl y"},
		{"value with a glob", `x='/usr/bin/cu*'; $x y`, "/usr/bin/cu* y"},
		{"glob quoted in the value stays text", `x='\*'; $x y`, `'\*' y`},
		{"argument", `x=-rf; rm $x /`, "rm -rf /"},
		{"two names", `a=cu; b=rl; $a$b x`, "curl x"},
		{"nested bash -c", `x=curl; bash -c "$x y"`, "curl y"},
		{"static command output", `$(echo curl) x`, "curl x"},
		{"backquoted output", "`echo curl` x", "curl x"},
		{"output in bash -c", `bash -c "$(echo curl) x"`, "curl x"},
		{"output in eval", `eval "$(echo curl)" x`, "curl x"},
		{"printf output", `eval "$(printf '%s' curl)" x`, "curl x"},
		{"pipe to bash", `echo curl x | bash`, "curl x"},
		{"pipe to a group", `printf 'curl x\n' | { sh; }`, "curl x"},
		{"pipe to a wrapped shell", `echo curl x | sudo sh -s`, "curl x"},
		{"source process substitution", `. <(echo curl x)`, "curl x"},
		{"bash process substitution", `bash <(printf 'curl x')`, "curl x"},
		{"redirect from process substitution", `bash < <(echo curl x)`, "curl x"},

		// Every reader of what a command assigns (Command.assignments).
		{"builtin export", `builtin export x=curl; $x y`, "curl y"},
		{"declare -x", `declare -x x=curl; $x y`, "curl y"},
		{"readonly", `readonly x=curl; $x y`, "curl y"},
		{"typeset in a function", `f() { typeset x=curl; $x y; }; f`, "curl y"},
		{"command declare", `command declare x=curl; $x y`, "curl y"},
		{"exec env", `exec env x=curl sh -c '$x y'`, "curl y"},
		{"declarer from a value", `d=export; $d x=curl; $x y`, "curl y"},
		{"declarer from a value, long script", strings.Repeat("ls; ", linearConsts) + `d=export; $d x=curl; $x y`, "curl y"},
		// Values built from static output and other names.
		{"value from output", `x=$(echo curl); $x y`, "curl y"},
		{"value from backquoted printf", "x=`printf curl`; $x y", "curl y"},
		{"value from quoted output", `x="$(echo cu)rl"; $x y`, "curl y"},
		{"value from a name", `a=cu; x=${a}rl; $x y`, "curl y"},
		{"value from a name in turn", `a=cu; b=$a; x="${b}rl"; $x y`, "curl y"},
		{"exported built value", `a=cu; export x=${a}rl; $x y`, "curl y"},
		{"built value, long script", strings.Repeat("ls; ", linearConsts) + `a=cu; x=${a}rl; $x y`, "curl y"},
		{"built from itself", `x=cu; x=${x}rl; $x y`, "curl y"},
		// An operator's word is a reading, as are the name's values.
		{"default, unset", `${x:-curl} y`, "curl y"},
		{"default if unset", `${x-curl} y`, "curl y"},
		{"assigned default", `${x:=curl} y`, "curl y"},
		{"assigned default, later use", `: ${x:=curl}; $x y`, "curl y"},
		{"default beside a value", `x=ls; ${x:-curl} y`, "curl y"},
		{"value beside a default", `x=curl; ${x:-ls} y`, "curl y"},
		{"alternate", `${x:+curl} y`, "curl y"},
		{"error operator", `x=curl; ${x:?unset} y`, "curl y"},
		{"default from a name", `a=curl; ${x:-$a} y`, "curl y"},
		{"default from output", `${x:-$(echo curl)} y`, "curl y"},
		{"quoted default", `"${x:-curl}" y`, "curl y"},

		{"dynamic value", `x=$(date); $x y`, ""},
		{"no assignment", `$x y`, ""},
		{"operator not followed", `x=curl; ${x#c} y`, ""},
		{"default not known", `${x:-$(date)} y`, ""},
		{"error operator, no value", `${x:?curl} y`, ""},
		{"built value not known", `a=$(date); x=${a}rl; $x y`, ""},
		{"array value", `x=(curl); $x y`, ""},
		// An append is not followed; the plain assignment before it is.
		{"appended value", `x=c; x+=url; $x y`, "c y"},
		{"unknown output", `$(cat f) x`, ""},
		{"printf format unsure", `printf '%d curl' 1 | bash`, ""},
		{"not a shell", `echo curl x | cat`, ""},
		{"process substitution to another program", `diff <(echo curl x) f`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.src)
			var all []string
			for _, c := range s.Commands {
				all = append(all, c.DenyForms()...)
				// The words as written stay the first reading.
				if vs := c.variants(); len(c.Words) > 0 && (len(vs) == 0 || !sameWords(vs[0], c.Words)) {
					t.Errorf("command %q: first reading %v is not its words", written(c), vs)
				}
				if tt.want == "" && len(c.Words) > 0 && len(c.variants()) != 1 {
					t.Errorf("Parse(%q): command %q has %d readings; want only its words", tt.src, written(c), len(c.variants()))
				}
				if len(c.Words) > 0 && !c.Words[0].Static {
					if _, ok := c.Name(); ok {
						t.Errorf("command %q has a static name", written(c))
					}
					if f, ok := c.AllowForm(); ok {
						t.Errorf("command %q has allow form %q", written(c), f)
					}
				}
			}
			if tt.want == "" {
				for _, f := range all {
					if strings.Contains(f, "curl y") || strings.Contains(f, "curl x") && !strings.Contains(tt.src, "curl x") {
						t.Errorf("Parse(%q): form %q has a value put in; want none", tt.src, f)
					}
				}
				return
			}
			if !slices.Contains(all, tt.want) {
				t.Errorf("Parse(%q): deny forms %q, want one to be %q", tt.src, all, tt.want)
			}
		})
	}
}

// TestConstantPropagationBounds checks that past its bounds a command is
// left as written: no reading with a value put in.
func TestConstantPropagationBounds(t *testing.T) {
	var many strings.Builder
	for i := range maxValues {
		fmt.Fprintf(&many, "x=v%d; ", i)
	}
	tests := []struct{ name, src string }{
		{"too many values", many.String() + "x=curl; $x y"},
		{"value too long", "x='curl " + strings.Repeat("a", maxValueLen) + "'; $x y"},
		{"too many combinations", "a=1; a=2; a=3; a=4; a=5; b=1; b=2; b=3; b=curl; $a$b y"},
		{"too many values, long script", strings.Repeat("ls; ", linearConsts) + many.String() + "x=curl; $x y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range mustParse(t, tt.src).Commands {
				if len(c.Words) > 0 && !c.Words[0].Static && len(c.variants()) != 1 {
					t.Errorf("command %q: readings %d, want only the words as written", written(c), len(c.variants()))
				}
			}
		})
	}
	// Within the bounds, each value is one reading.
	var fit strings.Builder
	for i := range maxValues - 1 {
		fmt.Fprintf(&fit, "x=v%d; ", i)
	}
	s := mustParse(t, fit.String()+"x=curl; $x y")
	last := s.Commands[len(s.Commands)-1]
	if got := len(last.variants()); got != 1+maxValues {
		t.Errorf("%d values: readings %d, want %d", maxValues, got, 1+maxValues)
	}
}

// TestPropagationParsesOnce checks that code a command's readings ran
// before constant propagation gave it more is not parsed again: each
// nested command is collected once.
func TestPropagationParsesOnce(t *testing.T) {
	tests := []string{
		`x=a; bash -c 'rm -rf /' $x`,
		`x=a; echo 'rm -rf /' | bash -s $x`,
		`x=a; source <(echo 'rm -rf /') $x`,
		`x=a; PAGER='rm -rf /' bash -c 'rm -rf /' $x`,
	}
	for _, src := range tests {
		s := mustParse(t, src)
		n := 0
		for _, c := range s.Commands {
			if written(c) == "nested: rm -rf /" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Parse(%q): %d commands rm -rf /, want 1", src, n)
		}
		var last *Command
		for _, c := range s.Commands {
			if len(c.Words) > 0 && c.Words[len(c.Words)-1].Raw == "$x" {
				last = c
			}
		}
		if last == nil || len(last.variants()) < 2 {
			t.Errorf("Parse(%q): the command using $x has no reading with its value", src)
		}
	}
}
