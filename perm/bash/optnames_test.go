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
	for key := range synonyms {
		keys = append(keys, key)
	}
	for key := range specs() {
		keys = append(keys, key)
	}
	for sub := range gitSpecs() {
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
