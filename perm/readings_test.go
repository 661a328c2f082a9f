package perm

import (
	"slices"
	"strings"
	"testing"
)

// allReadingsRef is allReadings as first written: every option text
// taken apart each time it is reached, exponential in the length of a
// clustered chain (-a-a-a...). The reference for short words.
func allReadingsRef(out []reading, v string) (_ []reading, unsure bool) {
	seen := map[string]bool{}
	var add func(s string, weak, split bool)
	add = func(s string, weak, split bool) {
		if s == "" || s == "-" || s == "--" {
			return
		}
		if split && strings.ContainsAny(s, codeSeparators) {
			// The whole word may be a file name with spaces; its tokens
			// may be paths inside code.
			if prev, ok := seen[s]; !ok || (prev && !weak) {
				seen[s] = weak
				out = append(out, reading{text: s, weak: weak})
			}
			for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(codeSeparators, r) }) {
				add(tok, weak, false)
			}
			return
		}
		switch {
		case strings.HasPrefix(s, "--"):
			if _, val, ok := strings.Cut(s, "="); ok {
				add(val, weak, false)
			}
			return
		case strings.HasPrefix(s, "-"):
			// -oVALUE: the value follows the option letter; in a
			// cluster (-xvfFILE) it may follow any of them.
			if len(s) > 2 {
				add(s[2:], weak, false)
				if len(s) > maxCluster {
					unsure = true
					return
				}
				for i := 3; i < len(s); i++ {
					add(s[i:], true, false)
				}
			}
			return
		}
		if prev, ok := seen[s]; ok && (!prev || weak) {
			return // already read at least as strongly
		}
		seen[s] = weak
		out = append(out, reading{text: s, weak: weak})
		if rest, ok := strings.CutPrefix(s, "@"); ok {
			add(rest, weak, false) // curl -d @file
		}
		if _, val, ok := strings.Cut(s, "="); ok {
			add(val, weak, false) // of=FILE, VAR=FILE
		}
		if i := strings.IndexByte(s, ':'); i > 0 && !strings.HasPrefix(s, "/") {
			add(s[i+1:], true, false) // git show REV:PATH
		}
	}
	add(v, false, true)
	return out, unsure
}

// FuzzReadings checks allReadings, which takes each text apart once,
// against the reference on words short enough for the reference to
// finish: the same readings, in the same order.
func FuzzReadings(f *testing.F) {
	for _, s := range []string{"-a-a-a-a-a-a", "-o-x=.env", "--x=-a-b", "-xvf@a:b=c", "a b -c/d", "-a-b-c-d-e-f-g-h-i-j", "x=-y-z", "-@-@-@", "--=", "-a:b-c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 36 {
			return // the reference is exponential
		}
		got, gotUnsure := allReadings(nil, s)
		want, wantUnsure := allReadingsRef(nil, s)
		if !slices.Equal(got, want) || gotUnsure != wantUnsure {
			t.Fatalf("allReadings(%q) = %v, %v; the reference gives %v, %v", s, got, gotUnsure, want, wantUnsure)
		}
	})
}

// TestReadingsOfChains: a chain of clustered options at the cluster bound,
// and one of two megabytes, are read (the reference reads the first in
// 4^60 steps, and never finishes the second); the long one is unsure and
// still yields the value it ends in.
func TestReadingsOfChains(t *testing.T) {
	at := strings.Repeat("-a", maxCluster/2)
	rs, unsure := allReadings(nil, at)
	if unsure || len(rs) > maxCluster {
		t.Errorf("%d bytes of -a: %d readings, unsure %v; want at most %d, sure", len(at), len(rs), unsure, maxCluster)
	}
	long := strings.Repeat("-a", 1<<20) + "/p/.env"
	rs, unsure = allReadings(nil, long)
	if !unsure || !slices.ContainsFunc(rs, func(r reading) bool { return r.text == "a/p/.env" }) {
		t.Errorf("2 MB of -a then /p/.env: unsure %v, readings %v; want unsure, with a/p/.env", unsure, rs)
	}
}

// TestReadingsBounded: a word that reads as every suffix after a ":",
// "=" or "@" stops at maxMentions readings or maxReadingBytes of text,
// unsure, instead of reading the square of its length; a command of such
// words is then never allowed past a Read deny rule.
func TestReadingsBounded(t *testing.T) {
	for _, unit := range []string{"a:", "x=", "@", "ab:"} {
		w := strings.Repeat(unit, 200_000) + ".env"
		rs, unsure := allReadings(nil, w)
		size := 0
		for _, r := range rs {
			size += len(r.text)
		}
		if !unsure || len(rs) > maxMentions || size > maxReadingBytes {
			t.Errorf("%q × 200,000: %d readings, %d bytes, unsure %v; want at most %d and %d, unsure", unit, len(rs), size, unsure, maxMentions, maxReadingBytes)
		}
	}
	f := newFixture(t)
	p := &Policy{Mode: ModeBypass, Workspace: f.ws(), Deny: []Entry{{Rule: Rule{Tool: "Read", Pattern: "./.env", HasPattern: true}, Source: SourceProject}}}
	for _, unit := range []string{"a:", "x=", "@"} {
		cmd := "cat " + strings.Repeat(unit, 100_000) + ".env"
		for name, r := range map[string]Result{"Evaluate": Evaluate(bashReq(cmd), p), "Resolver": NewResolver(0).Evaluate(bashReq(cmd), p)} {
			if r.Decision == Allow {
				t.Errorf("%s: cat of %q × 100,000 then .env under Read(./.env): %v (%s)", name, unit, r.Decision, r.Reason)
			}
		}
	}
}
