package bash

import (
	"strings"
	"testing"
)

// TestOptionNames checks that every program's names have one spelling
// each — the spelling of a name spells itself, so a synonyms entry that
// clashes with a spec's names fails — and the one spelling of some names
// from the table and from the read-only specs.
func TestOptionNames(t *testing.T) {
	keys := []string{"sed", "xargs"}
	for key := range synonyms.Get() {
		keys = append(keys, key)
	}
	for key := range specs.Get() {
		keys = append(keys, key)
	}
	for sub := range gitSpecs.Get() {
		keys = append(keys, "git "+sub)
	}
	for _, key := range keys {
		prog, sub, _ := strings.Cut(key, " ")
		o := Options(prog, sub)
		if o == nil {
			t.Errorf("Options(%q, %q) = nil", prog, sub)
			continue
		}
		for name, c := range o.canon {
			if cc := o.Canon(c); cc != c {
				t.Errorf("%s: %s is spelt %s, which is spelt %s", key, name, c, cc)
			}
		}
	}
	for _, tc := range []struct{ prog, sub, name, want string }{
		{"rm", "", "-R", "-r"},
		{"/bin/rm", "", "--recursive", "-r"},
		{"rm", "", "--re", "-r"},
		{"rm", "", "--i", "--interactive"},
		{"rm", "", "--interactive", "--interactive"},
		{"rm", "", "--nope", "--nope"},
		{"chmod", "", "-r", "-r"}, // a mode, not an option
		{"chmod", "", "--rec", "-R"},
		{"git", "push", "--force-with-lease", "-f"},
		{"git", "push", "--fo", "--fo"}, // --force or --follow-tags
		{"git", "clean", "--force", "-f"},
		{"git", "reset", "--ha", "--hard"},
		{"git", "status", "--short", "-s"}, // from the read-only spec
		{"grep", "", "-y", "-i"},           // likewise
		{"sed", "", "--regexp-extended", "-E"},
		{"frob", "", "--all", "--all"},
	} {
		if got := Options(tc.prog, tc.sub).Canon(tc.name); got != tc.want {
			t.Errorf("Options(%q, %q).Canon(%q) = %q, want %q", tc.prog, tc.sub, tc.name, got, tc.want)
		}
	}
	if Options("frob", "") != nil || Options("git", "frob") != nil {
		t.Error("a program without names has OptionNames")
	}
}

// TestSplitValues checks that Split reads an option that requires a value
// as getopt does: it ends a run of short options, and with no value
// attached the next word is its value, whatever it starts with, kept
// among the other words. Options whose value is optional, and programs
// with no names, keep the broad reading.
func TestSplitValues(t *testing.T) {
	for _, tc := range []struct{ in, opts, rest string }{
		{"git push -ofoo", "-o=foo", "git push"},
		{"git push -o f origin", "-o", "git push f origin"},
		{"git push -o -f origin", "-o", "git push -f origin"},
		{"git push --push-option -f", "-o", "git push -f"},
		{"git push --push -f", "-o", "git push -f"}, // an abbreviation
		{"git push --push-option=-f", "-o=-f", "git push"},
		{"git push -uof x", "-o=f -u", "git push x"},
		{"git push -o -f -f", "-f -o", "git push -f"},
		{"git push -o +x", "-o", "git push +x"}, // a value, not a refspec
		{"git push --no-force", "--no-force", "git push"},
		{"git push --no-f", "--no-f", "git push"},
		{"git commit -mfix", "-m=fix", "git commit"},
		{"git commit -am fix", "-a -m", "git commit fix"},
		{"git commit -m -- -n", "-m -n", "git commit --"}, // "--" is the message
		{"git clean -e -f -n", "-e -n", "git clean -f"},
		{"grep -e -r x", "-e", "grep -r x"}, // from the read-only spec
		{"cp -Zr a b", "-Z -r", "cp a b"},   // -Z's value is optional
		{"cp -ur a b", "-r -u", "cp a b"},
		{"sed -iE x", "-E -i", "sed x"},
		{"sed -i.bak x", "-i=.bak", "sed x"},
		{"xargs -a -r rm", "-a", "xargs -r rm"},
		{"frob -o -f", "-f -o", "frob"}, // no names: every -x is an option
		{"ssh host ls -A", "-A", "ssh host ls"},
	} {
		prog, tail, _ := strings.Cut(tc.in, " ")
		sub, _, _ := strings.Cut(tail, " ")
		opts, rest, ok := Options(prog, sub).Split(tc.in)
		if !ok {
			rest = ""
		}
		if got := strings.Join(opts, " "); got != tc.opts || rest != tc.rest {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tc.in, got, rest, tc.opts, tc.rest)
		}
	}
	for _, tc := range []struct {
		prog, sub, name string
		want            bool
	}{
		{"git", "push", "-o", true},
		{"git", "push", "--push", true},
		{"git", "push", "--force-with-lease", false}, // optional
		{"git", "push", "-f", false},
		{"git", "commit", "-m", true},
		{"rm", "", "--interactive", false},
		{"cp", "", "-t", true},
		{"frob", "", "-o", false},
	} {
		if got := Options(tc.prog, tc.sub).Value(tc.name); got != tc.want {
			t.Errorf("Options(%q, %q).Value(%q) = %v, want %v", tc.prog, tc.sub, tc.name, got, tc.want)
		}
	}
}

// TestGetoptLong checks the one abbreviation rule the read-only specs,
// the wrappers' options and OptionNames share.
func TestGetoptLong(t *testing.T) {
	// cands yields names, each "name/K" a name of option K.
	cands := func(names ...string) func(func(string, string) bool) {
		return func(yield func(string, string) bool) {
			for _, n := range names {
				name, opt, _ := strings.Cut(n, "/")
				if !yield(name, opt) {
					return
				}
			}
		}
	}
	for _, tc := range []struct {
		name  string
		cands []string
		full  string
		found bool
	}{
		{"--rec", []string{"--recursive/1", "--force/2"}, "--recursive", true},
		{"--f", []string{"--force/1", "--force-with-lease/1"}, "--force", true},     // one option
		{"--fo", []string{"--force/1", "--follow-tags/2"}, "", false},               // ambiguous
		{"--force", []string{"--force-with-lease/1", "--force/2"}, "--force", true}, // exact wins
		{"--x", []string{"--force/1"}, "", false},
	} {
		full, _, found := getoptLong(tc.name, cands(tc.cands...))
		if full != tc.full || found != tc.found {
			t.Errorf("getoptLong(%q, %q) = %q, %v; want %q, %v", tc.name, tc.cands, full, found, tc.full, tc.found)
		}
	}
	// Both parsers use it: an abbreviation of one option, and an
	// ambiguous one.
	ws := optSpec{long: []string{"verbose", "version"}, longArgs: []string{"kill-after"}}
	if full, arg, ok := ws.lookupLong("k"); full != "kill-after" || !arg || !ok {
		t.Errorf("optSpec.lookupLong(k) = %q, %v, %v", full, arg, ok)
	}
	if _, _, ok := ws.lookupLong("ver"); ok {
		t.Error("optSpec.lookupLong(ver) resolved an ambiguous name")
	}
	if d, full := specs.Get()["ls"]().lookupLong("--reco"); d != nil || full != "" {
		t.Errorf("ls: --reco resolved to %q", full)
	}
	if d, full := specs.Get()["ls"]().lookupLong("--almost"); d == nil || full != "--almost-all" {
		t.Errorf("ls: --almost resolved to %q", full)
	}
}
