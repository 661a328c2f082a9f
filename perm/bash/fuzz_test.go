package bash

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzParse checks that no input makes the analysis panic, and that the
// invariants the engine relies on hold for whatever parses.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`ls -la`,
		`git -C /x -c a=b --no-pager push --force origin +main`,
		`sudo -u root env A=1 command nice -n 5 timeout 5s rm -rf /`,
		`find . -name '*.tmp' -exec rm -f {} \; -o -execdir sh -c 'x' +`,
		`ls | xargs -0 -I{} rm {}`,
		`bash -lc "eval 'rm -rf /'" && sh -c "$x"`,
		`X=$(rm -rf /) Y=~/a:~/b cmd "a b" 'c' $'\x41\u00e9' $"d" \e`,
		"cat <<EOF > out\n$(id)\nEOF\n",
		`:(){ :|:& };:`,
		`for i in {1..3}; do echo ${i:-$(date)}; done 2>&1 >/dev/null`,
		`case $x in a) b;; esac; [[ $(c) ]] && (( $(d) ))`,
		`export IFS=x; unset 'a[$(id)]'; cat /proc/self/environ`,
		`sed -n 's/a/b/w out' f; jq -rf p.jq d.json; git branch -D x`,
		`trap 'rm -rf x' EXIT; alias ls='rm -rf /'; watch -n1 'a;b'`,
		"r\u200bm -\\r\\f x\r",
		`coproc n { a; }; time -p b; select x in a; do c; done`,
		`env -S 'rm -rf' x; su -lc 'id' root; chmod a+rwx,o=u x`,
		"a=cu; x=\"${a}rl\"; x=$x`printf y`; ${x:-$(echo c)} ${y:+\"$a\"} ${z:=q}; wait -p v; builtin export w=$x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse(%q) returned a script with error %v", src, err)
			}
			return
		}
		for _, c := range s.Commands {
			form, ok := c.AllowForm()
			if !ok && form != "" {
				t.Fatalf("AllowForm of %q: text %q with ok=false", src, form)
			}
			for _, v := range c.variants() {
				if got, want := c.joinRaw(v), join(v, rawText); got != want {
					t.Fatalf("joinRaw of %q: %q, want %q", src, got, want)
				}
			}
			forms := c.DenyForms()
			if len(c.Words) > 0 && len(forms) == 0 {
				t.Fatalf("DenyForms of %q: none for a command with words", src)
			}
			_ = c.Destructive()
			paths, ro := c.ReadOnly()
			if !ro && paths != nil {
				t.Fatalf("ReadOnly of %q: paths %q with ok=false", src, paths)
			}
			for _, w := range c.Words {
				if !w.Static && (w.Value != "" || w.Glob || w.Tilde) {
					t.Fatalf("word %+v of %q: non-static word with a value or flags", w, src)
				}
			}
			if ok && strings.HasPrefix(form, "sudo ") {
				t.Fatalf("AllowForm of %q allows sudo: %q", src, form)
			}
		}
	})
}

// FuzzUnquote checks that the copy-free unquoteSimple gives unquoteFull's
// answer for every word of one part it accepts.
func FuzzUnquote(f *testing.F) {
	for _, seed := range []string{
		`ls -la 'a b' "c" "" '' ~ ~/x ~user x=~/a a:~ [ a[b] a[ b* ? "\$x" 'it''s' $'x'`,
		`X=~/a cmd ~- ~+/x "~" '~' a\ b \~ x{a,b} {a} "a\"b" -rf`,
		`A=b B='c d' C=x:~/y D=*.go E={a,b} F=a[1] G=$'x' H="y" I=`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if a, ok := n.(*syntax.Assign); ok && a.Name != nil && a.Value != nil {
				if got, ok := assignValueSimple(a.Value); ok {
					want, static := assignValueFull(a.Name.Value, a.Value)
					if !static || got != want {
						t.Fatalf("assignment %q of %q: assignValueSimple = %q, assignValueFull = %q, %v", sourceText(src, a), src, got, want, static)
					}
				}
			}
			w, ok := n.(*syntax.Word)
			if !ok || len(w.Parts) != 1 {
				return true
			}
			if got, ok := unquoteSimple(w.Parts[0]); ok {
				if want := unquoteFull(w); !reflect.DeepEqual(got, want) {
					t.Fatalf("word %q of %q: unquoteSimple = %+v, unquoteFull = %+v", sourceText(src, w), src, got, want)
				}
			}
			return true
		})
	})
}

// TestQuoteByte: the table quoted looks ASCII bytes up in is needsQuote.
func TestQuoteByte(t *testing.T) {
	for b := range quoteByte {
		if quoteByte[b] != needsQuote(rune(b)) {
			t.Errorf("quoteByte[%#x] = %v, needsQuote says %v", b, quoteByte[b], needsQuote(rune(b)))
		}
	}
}

// FuzzQuoted checks that quoted, which looks ASCII bytes up in a table,
// answers as scanning every rune with needsQuote does.
func FuzzQuoted(f *testing.F) {
	for _, seed := range []string{"", "a", "a b", "é", "aé b", "\xff", "a\xffb", "x\u00a0", "~", "a'b", "\x7f", "\uFFFD", "abc\u00e9$"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := quoted(s), strings.ContainsFunc(s, needsQuote); got != want {
			t.Fatalf("quoted(%q) = %v, want %v", s, got, want)
		}
	})
}
