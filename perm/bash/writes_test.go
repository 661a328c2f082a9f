package bash

import (
	"slices"
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
