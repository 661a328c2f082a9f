package cli

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestStringsVarIsStringArray checks that stringsVar parses, reads back
// and shows in help exactly as pflag's StringArrayVar does.
func TestStringsVarIsStringArray(t *testing.T) {
	for _, tt := range []struct {
		args []string
		def  []string
	}{
		{nil, nil},
		{[]string{"--x=a,b", "--x", "c d", "--x=\"q\""}, nil},
		{[]string{"--x=a"}, []string{"d1", "d,2"}},
		{nil, []string{"d1", "d,2"}},
	} {
		var got, want []string
		ours, theirs := pflag.NewFlagSet("t", pflag.ContinueOnError), pflag.NewFlagSet("t", pflag.ContinueOnError)
		stringsVar(ours, &got, "x", slices.Clone(tt.def), "the x `list`")
		theirs.StringArrayVar(&want, "x", slices.Clone(tt.def), "the x `list`")
		if err := ours.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if err := theirs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: parsed %q, pflag %q", tt.args, got, want)
		}
		if a, b := ours.FlagUsages(), theirs.FlagUsages(); a != b {
			t.Errorf("%q: help %q, pflag %q", tt.args, a, b)
		}
		a, errA := ours.GetStringArray("x")
		b, errB := theirs.GetStringArray("x")
		if !slices.Equal(a, b) || (errA == nil) != (errB == nil) {
			t.Errorf("%q: GetStringArray %q %v, pflag %q %v", tt.args, a, errA, b, errB)
		}
		ov, tv := ours.Lookup("x").Value.(pflag.SliceValue), theirs.Lookup("x").Value.(pflag.SliceValue)
		_ = ov.Append("z")
		_ = tv.Append("z")
		if !slices.Equal(ov.GetSlice(), tv.GetSlice()) {
			t.Errorf("%q: after Append %q, pflag %q", tt.args, ov.GetSlice(), tv.GetSlice())
		}
		_ = ov.Replace([]string{"r"})
		_ = tv.Replace([]string{"r"})
		if !slices.Equal(got, want) || ours.Lookup("x").Value.String() != theirs.Lookup("x").Value.String() {
			t.Errorf("%q: after Replace %q, pflag %q", tt.args, got, want)
		}
	}
}
