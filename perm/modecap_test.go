package perm

import "testing"

func TestCapMode(t *testing.T) {
	cases := []struct{ m, limit, want Mode }{
		{ModeAcceptEdits, "", ModeAcceptEdits},
		{ModeAcceptEdits, ModeDefault, ModeDefault},
		{ModeDefault, ModeBypass, ModeDefault}, // never widens
		{ModeDefault, ModeAcceptEdits, ModeDefault},
		{ModeExplore, ModeDefault, ModeExplore},
		{ModeDefault, ModeExplore, ModeExplore},
		{ModeBypass, ModeAuto, ModeAuto},
		{ModeAcceptEdits, ModeAuto, ModeAcceptEdits}, // same rank: kept
		{ModeDefault, ModeDontAsk, ModeDontAsk},      // same rank, but default asks
		{"", ModeDontAsk, ModeDontAsk},
		{ModeAcceptEdits, ModeDontAsk, ModeDontAsk},
		{ModeDontAsk, ModeDefault, ModeDontAsk},
		{ModeExplore, ModeDontAsk, ModeExplore},
	}
	for _, c := range cases {
		if got := CapMode(c.m, c.limit); got != c.want {
			t.Errorf("CapMode(%s, %s) = %s, want %s", c.m, c.limit, got, c.want)
		}
	}
}
