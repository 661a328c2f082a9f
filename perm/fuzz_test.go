package perm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/perm/bash"
)

// FuzzAllowIsNarrow checks the allow side's invariant on arbitrary shell
// text: under the allow rule Bash(echo *), a command is allowed only if it
// parses and every simple command in it is a statically known echo or a
// read-only command, with no output redirect (default mode asks for edits).
// A deny rule must fire on anything whose normalised form starts with rm.
func FuzzAllowIsNarrow(f *testing.F) {
	for _, s := range []string{
		"echo hi", "echo hi && ls", "echo $(rm x)", "e'c'ho x", "sudo echo", "echo x > f",
		"bash -c 'rm -rf /'", "eval echo hi", "echo `id`", "x=1 echo", "echo hi | xargs rm",
		"find . -exec rm {} +", "/bin/echo hi", "$E hi", "echo hi; rm x", "(echo a) && { ls; }",
	} {
		f.Add(s)
	}
	fx := newFixture(f)
	p := &Policy{Mode: ModeDefault, Workspace: fx.ws(), Allow: entries(SourceLocal, "Bash(echo *)")}
	dp := &Policy{Mode: ModeBypass, Workspace: fx.ws(), Deny: entries(SourceProject, "Bash(rm:*)")}
	f.Fuzz(func(t *testing.T, cmd string) {
		r := evalNoFailure(t, bashReq(cmd), p)
		s, err := bash.Parse(cmd)
		if r.Decision == Allow {
			if err != nil {
				t.Fatalf("%q allowed although it does not parse: %v", cmd, err)
			}
			for _, c := range s.Commands {
				form, ok := c.AllowForm()
				_, ro := c.ReadOnly()
				ro = ro || c.XargsSafe()
				if !ro && (!ok || !strings.HasPrefix(form, "echo ")) {
					t.Fatalf("%q allowed, but %q is neither a static echo nor read-only", cmd, form)
				}
			}
			for _, rd := range s.Redirects {
				if rd.Output && rd.Target.Value != "/dev/null" {
					t.Fatalf("%q allowed with an output redirect to %q", cmd, rd.Target.Raw)
				}
			}
		}
		if err != nil {
			return
		}
		d := evalNoFailure(t, bashReq(cmd), dp)
		for _, c := range s.Commands {
			for _, form := range c.DenyForms() {
				if (form == "rm" || strings.HasPrefix(form, "rm ")) && d.Decision != Deny {
					t.Fatalf("%q has form %q but the deny rule Bash(rm:*) gave %v (%s)", cmd, form, d.Decision, d.Reason)
				}
			}
		}
	})
}

// readDenyForms are the ways a word can name a path: the forms
// (operand, --opt=VALUE, -oVALUE, -o VALUE, VAR=value, @file, a path inside
// a code string). %s is the path.
var readDenyForms = []string{
	"%s", "--opt=%s", "-o%s", "-o %s", "V=%s", "@%s", "-d@%s", "--data=@%s",
	`"open('%s')"`, "'1r %s'", "if=%s", "'x %s y'", "HEAD:%s",
}

// FuzzReadDenyNeverAllowed checks the central invariant of issue 8
// section 2: a command whose words name a Read-denied path, in any of the
// forms above and under any program, prefix or suffix, is never allowed,
// in any mode, with any allow rule.
func FuzzReadDenyNeverAllowed(f *testing.F) {
	for i := range readDenyForms {
		f.Add("cat", uint8(i), uint8(0), "", uint8(0))
		f.Add("python3 -c", uint8(i), uint8(1), "x", uint8(3))
		f.Add("curl", uint8(i), uint8(2), "&& ls", uint8(2))
	}
	fx := newFixture(f)
	paths := []string{".env", "secrets/k", "./secrets/k", "src/../.env", fx.root + "/.env", "secrets"}
	modes := []Mode{ModeDefault, ModeAcceptEdits, ModeDontAsk, ModeBypass, ModeAuto}
	f.Fuzz(func(t *testing.T, prog string, form, path uint8, suffix string, m uint8) {
		if strings.ContainsAny(prog+suffix, "#\n'\"\\`$<>") {
			return // a comment, quote, substitution or redirect would change what the form is
		}
		word := fmt.Sprintf(readDenyForms[int(form)%len(readDenyForms)], paths[int(path)%len(paths)])
		cmd := prog + " " + word + " " + suffix
		if _, err := bash.Parse(cmd); err != nil {
			return
		}
		if namesFunction(cmd, word) {
			return // `secrets () …` declares a function; it reads nothing
		}
		p := &Policy{
			Mode:      modes[int(m)%len(modes)],
			Workspace: fx.ws(),
			Deny:      entries(SourceProject, "Read(./.env)", "Read(./secrets/**)"),
			Allow:     entries(SourceLocal, "Bash", "Bash(*)"),
		}
		if r := evalNoFailure(t, bashReq(cmd), p); r.Decision == Allow {
			t.Fatalf("%q allowed in %s mode (%s, step %d): it names a Read-denied path", cmd, p.Mode, r.Reason, r.Step)
		}
	})
}

// namesFunction reports whether cmd declares a function called word with
// an ordinary name. A name like a path (./secrets/k, .env) is still
// checked: the gate must not allow it (it is suspicious, step 2).
func namesFunction(cmd, word string) bool {
	if strings.Contains(word, "/") || strings.HasPrefix(word, ".") {
		return false
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil && fd.Name.Value == word {
			found = true
		}
		return true
	})
	return found
}

// FuzzDynamicNameNeverAllowed checks the central invariant of issue 8 for
// program names: a script holding a command whose program name is not a
// static literal (`$r -rf /`, `$(echo rm)`, `{rm,-rf,/}`, `/bin/r?`) is
// never allowed, in any mode, even under a bare Bash allow rule.
func FuzzDynamicNameNeverAllowed(f *testing.F) {
	for _, s := range []string{
		"r=rm; $r -rf /", "$(echo rm) -rf /", "{rm,-rf,/}", "/bin/r? -rf x", "sudo $x", "`echo ls`",
		"ls; \"$c\" x", "x=$(${a[0]} b)", "env $cmd", "find . -exec $x {} +", "echo hi", "ls | xargs $f",
		"a=ls; eval \"$a\"", "${CMD:-ls} .", "$'\\x72m' x",
		"x=ls; $x .", "export X=ls; \"$X\"", "for p in ls cat; do $p x; done", "$(echo ls) .", "l[s] .", "x=ls; sudo $x",
	} {
		f.Add(s)
	}
	fx := newFixture(f)
	modes := []Mode{ModeDefault, ModeAcceptEdits, ModeDontAsk, ModeBypass, ModeExplore, ModeAuto}
	f.Fuzz(func(t *testing.T, cmd string) {
		s, err := bash.Parse(cmd)
		if err != nil {
			return
		}
		dynamic := ""
		for _, c := range s.Commands {
			if _, ok := c.Name(); !ok && len(c.Words) > 0 {
				dynamic = c.Words[0].Raw
				break
			}
		}
		if dynamic == "" {
			return
		}
		for _, m := range modes {
			p := &Policy{Mode: m, Workspace: fx.ws(), Allow: entries(SourceLocal, "Bash")}
			if r := evalNoFailure(t, bashReq(cmd), p); r.Decision == Allow {
				t.Fatalf("%q (program %q) allowed in %s mode: %s", cmd, dynamic, m, r.Reason)
			}
		}
	})
}

// FuzzOptionRule checks that a rule naming options matches the command
// text it was written as, and the same text with its options in reverse
// order: rule and command are split by one function, so every spelling a
// rule is written in is one it matches.
func FuzzOptionRule(f *testing.F) {
	for _, s := range []string{"rm -rf /", "git push --force-with-lease=main origin", "sed -i.bak -E s/a/b/ f",
		"rm -f -- -r", "find . -name x -delete", "git push origin +main", "rm --rec=x", "cp -t d --", "x -é -+",
		"git push -o -f x", "git commit -mfix -a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "*\uFFFD") || !utf8.ValidString(s) || strings.HasSuffix(s, ":*") {
			return // a wildcard means more than itself in a rule
		}
		or, ok := compileOptionRule(s)
		if !ok {
			return
		}
		opts, rest, ok := or.names.Split(s)
		if !ok || !or.match(opts, rest) {
			t.Fatalf("rule %q does not match its own text (%q, %q)", s, opts, rest)
		}
		words := strings.Split(s, " ")
		if takesNext(or.names, words) {
			return // reordering would part an option from its value
		}
		var ow, other []string
		for i, w := range words {
			if i > 0 && strings.HasPrefix(w, "-") && w != "--" && len(w) > 1 && !slices.Contains(words[1:i], "--") {
				ow = append([]string{w}, ow...)
			} else {
				other = append(other, w)
			}
		}
		r := strings.Join(append(other[:1:1], append(ow, other[1:]...)...), " ")
		opts, rest, ok = or.names.Split(r)
		if !ok || !or.match(opts, rest) {
			t.Fatalf("rule %q does not match %q (%q, %q)", s, r, opts, rest)
		}
	})
}

// takesNext reports whether an option word among words (a command's,
// the first its program) takes the next word as its value
// (bash.OptionNames.Value).
func takesNext(names *bash.OptionNames, words []string) bool {
	for _, w := range words[1:] {
		switch {
		case w == "--":
			return false
		case len(w) < 2 || w[0] != '-':
		case w[1] == '-':
			if !strings.Contains(w, "=") && names.Value(w) {
				return true
			}
		default:
			for j := 1; j < len(w); j++ {
				if names.Value("-" + w[j:j+1]) {
					if j == len(w)-1 {
						return true
					}
					break
				}
			}
		}
	}
	return false
}

// evalNoFailure is Evaluate for the fuzz targets: a call whose analysis
// failed (denied, as Evaluate recovers) fails the target, so that the
// fuzzer still finds the crash.
func evalNoFailure(t *testing.T, req Request, p *Policy) Result {
	t.Helper()
	r := Evaluate(req, p)
	if strings.HasPrefix(r.Reason, analysisFailed) {
		t.Fatalf("%q: %s", req.Input["command"], r.Reason)
	}
	return r
}
