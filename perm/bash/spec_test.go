package bash

import (
	"fmt"
	"slices"
	"testing"
)

// TestSpecExamples loads every spec (compile panics on a malformed one)
// and checks the examples each carries.
func TestSpecExamples(t *testing.T) {
	all := map[string]*progSpec{}
	for n, s := range specs.Get() {
		all[n] = s()
	}
	for n, s := range gitSpecs.Get() {
		all["git "+n] = s()
	}
	for name, s := range all {
		if len(s.defs) == 0 && s.opts != "" {
			t.Errorf("spec %s: no options compiled", name)
		}
		for _, src := range s.yes {
			if r, ok := mustParse(t, src).Commands[0].Reads(); !ok {
				t.Errorf("spec %s: %q is not read-only (%s); its spec says it is", name, src, r.Reason)
			}
		}
		for _, src := range s.no {
			if _, ok := mustParse(t, src).Commands[0].Reads(); ok {
				t.Errorf("spec %s: %q is read-only; its spec says it is not", name, src)
			}
		}
	}
}

// TestReadsIssueRows are the read-only rows of the gate-soundness issue,
// each with what decides it.
func TestReadsIssueRows(t *testing.T) {
	tests := []struct {
		src       string
		ok        bool
		paths     []string
		recursive bool
	}{
		{`git blame -S revs.txt f.go`, true, []string{"revs.txt", "f.go"}, false}, // -S reads a revisions file: checked as a path
		{`git blame --ignore-revs-file=r f`, true, []string{"r", "f"}, false},
		{`git diff --no-index a b`, true, []string{"a", "b"}, true}, // reads whole trees
		{`diff -r a b`, true, []string{"a", "b"}, true},
		{`diff a b`, true, []string{"a", "b"}, false},
		{`grep -r x src`, true, []string{"src"}, true},
		{`du -sh src`, true, []string{"src"}, true},
		{`tree src`, true, []string{"src"}, true},
		{`find src -name x`, true, []string{"src"}, true},
		{`ls -R src`, true, []string{"src"}, true},
		{`tree -R -L 2`, false, nil, false},         // -R writes 00Tree.html files
		{`tree -o out`, false, nil, false},          // writes
		{`tree -l`, false, nil, false},              // follows links out of the tree
		{`find -L .`, false, nil, false},            // follows links
		{`ls -L link`, false, nil, false},           // follows links
		{`du -L .`, false, nil, false},              // follows links
		{`sort --files0-from=l`, false, nil, false}, // reads a list of files
		{`du --files0-from=l`, false, nil, false},
		{`find . -files0-from l`, false, nil, false},
		{`less -k keys f`, false, nil, false}, // lesskey files can set LESSOPEN
		{`less --lesskey-src=k f`, false, nil, false},
		{`less --lesskey-file=k f`, false, nil, false},
		{`jq -L /tmp . f`, false, nil, false},
		{`jq 'import "a" as a {search: "/"}; .' f`, false, nil, false},
		{`env`, false, nil, false}, // prints secrets
		{`printenv HOME`, false, nil, false},
		{`set`, false, nil, false},
		{`export -p`, false, nil, false},
		{`git branch -a --contains HEAD`, true, nil, false},
		{`git branch --contains`, true, nil, false},            // git: the last word takes no value (HEAD)
		{`git branch --contains newb`, true, nil, false},       // git takes newb as the commit
		{`git branch --contains=HEAD newb`, false, nil, false}, // git lists (a pattern); listing wants -l with one
		{`ls -FL x`, false, nil, false},                        // ls -F takes no value: -L follows links
		{`ls -FLR`, false, nil, false},
		{`od -S 4 f`, true, []string{"f"}, false},
		{`sort -cs f`, true, []string{"f"}, false},
		{`test -f X`, true, []string{"X"}, false},
		{`[ -d src ]`, true, []string{"src"}, false},
		{`[ -d src`, false, nil, false},
		{`test a -nt b`, true, []string{"a", "b"}, false},
		{`test -v 'a[$(id)]'`, false, nil, false}, // -v evaluates the subscript
		{`test -v x`, false, nil, false},
		{`cd src`, true, []string{"src"}, false},
		{`cd`, true, []string{"~"}, false},
		{`cd -`, false, nil, false},
		{`wc -l src/a.go`, true, []string{"src/a.go"}, false},
		{`ls src/*.go`, true, []string{"src/*.go"}, false},
		{`command -v go`, true, nil, false},
		{`command ls`, false, nil, false},
		{`printf -v x y`, false, nil, false},
		{`type -a ls`, true, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			r, ok := mustParse(t, tt.src).Commands[0].Reads()
			var paths []string
			for _, p := range r.Paths {
				paths = append(paths, p.Path)
			}
			if ok != tt.ok || ok && (!slices.Equal(paths, tt.paths) || r.Recursive != tt.recursive) {
				t.Errorf("Reads(%q) = %q recursive=%v, %v (%s); want %q recursive=%v, %v", tt.src, paths, r.Recursive, ok, r.Reason, tt.paths, tt.recursive, tt.ok)
			}
			if !ok && r.Reason.String() == "" {
				t.Errorf("Reads(%q): not read-only without a reason", tt.src)
			}
		})
	}
}

func TestXargsSafe(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{`xargs wc -l --`, true},
		{`xargs -0 -r wc --`, true},
		// Without "--" wc takes an input word that starts with "-" for
		// an option: --files0-from=/etc/passwd prints that file's lines
		// as names of files it cannot find.
		{`xargs wc -l`, false},
		{`xargs -0 -r wc`, false},
		{`xargs wc -- -l`, false},
		{`xargs wc "--"`, true},
		// A program that prints what it reads may be fed any file: a
		// cloned repository's file named "a /etc/passwd" is two words to
		// xargs, and a tracked symbolic link leads anywhere.
		{`xargs -0 grep -l foo`, false},
		{`xargs -r cat`, false},
		{`xargs -0 head`, false},
		{`xargs ls -la`, false},
		{`xargs sort`, false}, // sort has -o and --compress-program
		{`xargs rm`, false},   // not read-only
		{`xargs -I{} cat {}`, false},
		{`xargs -a list cat`, false},
		{`xargs sh -c 'x'`, false},
		{`xargs`, false},
		{`xargs wc --files0-from=x`, false},
		{`xargs -P4 cat`, false},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.src).Commands[0].XargsSafe(); got != tt.want {
			t.Errorf("XargsSafe(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestDash checks dash against the copy it saves for every byte.
func TestDash(t *testing.T) {
	for c := range 256 {
		if got, want := dash(byte(c)), "-"+string([]byte{byte(c)}); got != want {
			t.Fatalf("dash(%d) = %q, want %q", c, got, want)
		}
	}
}

// TestWhy checks that a Why reads as fmt.Sprintf formats it.
func TestWhy(t *testing.T) {
	for _, tt := range []struct {
		format string
		args   []string
	}{
		{"no command", nil},
		{"100% sure, no verbs", nil},
		{"program %s has no read-only spec", []string{"'a b'"}},
		{"%s: value %q of %s is not a plain file name", []string{"tail", "a\"b\n", "--pid"}},
		{"%s: more than %s file operands, 100%%", []string{"diff", "2"}},
		{"%s", []string{""}},
	} {
		args := make([]any, len(tt.args))
		for i, a := range tt.args {
			args[i] = a
		}
		want := tt.format
		if len(args) > 0 {
			want = fmt.Sprintf(tt.format, args...)
		}
		if got := Because(tt.format, tt.args...).String(); got != want {
			t.Errorf("Because(%q, %q) = %q, want %q", tt.format, tt.args, got, want)
		}
	}
	if got := (Why{}).String(); got != "" {
		t.Errorf("the zero Why reads %q, want \"\"", got)
	}
}
