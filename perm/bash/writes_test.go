package bash

import (
	"slices"
	"strings"
	"testing"
)

// TestLinkTargets: where the links an ln command makes lead, read from
// the link's directory, in every reading of the command.
func TestLinkTargets(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"ln -s ../secrets d/x", []string{"d/../secrets", "d/x/../secrets"}},
		{"ln -sf a b ../dir", []string{"../a", "../b", "../dir/a", "../dir/b"}},
		{"ln -s -t d ../x ../y", []string{"d/../x", "d/../y"}},
		{"ln --target-directory=d ../x", []string{"d/../x"}},
		{"sudo ln -s ../.env sub/e", []string{"sub/../.env", "sub/e/../.env"}},
		{"ln -s /etc/passwd d/p", nil}, // absolute: read as written
		{"ln -s ~/x d/p", nil},
		{"ln -s x", nil},               // the link is made here
		{"ln -s x y", []string{"y/x"}}, // y may be a directory the link is made in
		{"ln -s \"$t\" d", nil},        // not static: unsure, asked as such
		{"cp ../x d/", nil},
	} {
		s, err := Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range s.Commands {
			got = append(got, s.Commands[i].LinkTargets()...)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: LinkTargets = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestWrites: the files writers' operands name, read with their options
// as coreutils reads them (-Z and --backup take no value from the next
// word; install -d makes every directory it names).
func TestWrites(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"cp -Z a b", []string{"b"}},
		{"cp --context a b", []string{"b"}},
		{"cp --backup a b", []string{"b"}},
		{"mv --backup -Z a b", []string{"b"}},
		{"install -Z -m 644 a b", []string{"b"}},
		{"install -d a b", []string{"a", "b"}},
		{"install --directory a b", []string{"a", "b"}},
		{"mkdir -Z a b", []string{"a", "b"}},
		{"ln -s --backup a b", []string{"a", "b"}},
	} {
		s, err := Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range s.Commands {
			ts, _ := c.Writes()
			for _, w := range ts {
				got = append(got, w.Value)
			}
		}
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Writes = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestPlacements: how cp, mv, install and ln put their sources in place.
func TestPlacements(t *testing.T) {
	type pl struct {
		srcs, dest     string
		into, onto     bool
		tree, parents  bool
		link           LinkKind
		rel, deref     bool
		backup         bool
		suffix, unsure string
	}
	for _, tc := range []struct {
		src  string
		want []pl
	}{
		{"cp a b", []pl{{srcs: "a", dest: "b"}}},
		{"cp -r a b", []pl{{srcs: "a", dest: "b", tree: true}}},
		{"cp -a a b c", []pl{{srcs: "a b", dest: "c", into: true, tree: true}}},
		{"cp --rec a b", []pl{{srcs: "a", dest: "b", tree: true}}},
		{"cp -t d -R a b", []pl{{srcs: "a b", dest: "d", into: true, tree: true}}},
		{"cp --target-directory=d a", []pl{{srcs: "a", dest: "d", into: true}}},
		{"cp -T a b", []pl{{srcs: "a", dest: "b", onto: true}}},
		{"cp --parents a/b d", []pl{{srcs: "a/b", dest: "d", parents: true}}},
		{"cp -s /x y", []pl{{srcs: "/x", dest: "y", link: SymLinks}}},
		{"cp -lr a b", []pl{{srcs: "a", dest: "b", link: HardLinks, tree: true}}},
		{"cp -rL a b", []pl{{srcs: "a", dest: "b", tree: true, deref: true}}},
		{"cp -Z a b", []pl{{srcs: "a", dest: "b"}}},
		{"cp --backup a b", []pl{{srcs: "a", dest: "b", backup: true}}},
		{"cp --backup=none a b", []pl{{srcs: "a", dest: "b"}}},
		{"cp -b -S rc a b", []pl{{srcs: "a", dest: "b", backup: true, suffix: "rc"}}},
		{"mv a b", []pl{{srcs: "a", dest: "b", tree: true}}},
		{"mv -t d a", []pl{{srcs: "a", dest: "d", into: true, tree: true}}},
		{"ln a b", []pl{{srcs: "a", dest: "b", link: HardLinks}}},
		{"ln -s a", []pl{{srcs: "a", dest: ".", into: true, link: SymLinks}}},
		{"ln -sr a b", []pl{{srcs: "a", dest: "b", link: SymLinks, rel: true}}},
		{"install -m 644 a b", []pl{{srcs: "a", dest: "b"}}},
		{"install -d a b", nil},
		{"sudo mv a b", []pl{{srcs: "a", dest: "b", tree: true}}},
		{"cp a", nil},
		{"cp \"$a\" b", nil},
		{"cp -T -t d a", nil},
		{"find . -exec cp {} d ;", []pl{{srcs: "{}", dest: "d", unsure: "find replaces {} in {} with the names it finds"}}},
	} {
		s, err := Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var got []pl
		for _, c := range s.Commands {
			for _, p := range c.Placements() {
				var srcs []string
				for _, w := range p.Sources {
					srcs = append(srcs, w.Value)
				}
				got = append(got, pl{strings.Join(srcs, " "), p.Dest.Value, p.Into, p.Onto, p.Tree, p.Parents, p.Link, p.Relative, p.Deref, p.Backup, p.Suffix, p.Unsure})
			}
		}
		if len(got) > 1 {
			got = got[:1] // the readings of a wrapped command agree
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Placements = %+v, want %+v", tc.src, got, tc.want)
		}
	}
}
