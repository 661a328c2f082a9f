package perm

import (
	"testing"

	"github.com/gen-run/gen/perm/bash"
)

// argsOfForm is opaque's reader of a form's words for a form read as a
// command line of its own: the words are the shell's words of the form.
func argsOfForm(form string) func(tail string) [][]bash.Word {
	s, err := bash.Parse(form)
	if err != nil || len(s.Commands) == 0 {
		return func(string) [][]bash.Word { return nil }
	}
	return s.Commands[0].FormArgs
}

// TestOpaqueReason holds opaque to the code it names for forms whose
// decision another check may also reach (ed under xargs reads its
// commands from /dev/null, and asks for its operands).
func TestOpaqueReason(t *testing.T) {
	for _, tc := range []struct{ form, want string }{
		{"xargs -0 awk", "xargs feeding awk"},
		{"xargs -0 ed", "xargs feeding ed"},
		{"parallel gawk", "parallel feeding gawk"},
		{"xargs -0 sh -c x", "xargs feeding sh"},
		{"xargs -0 python3", "xargs feeding python3"},
		{"xargs -0 grep x", ""},
		{"python3 -W ignore", "python3 reading code from stdin"},
		{"python3 -W ignore x.py", ""},
		{"python3 -W 'ignore x'", "python3 reading code from stdin"},
		{"python3 'my script.py'", ""},
		{"perl -Mstrict x.pl", "perl option -Mstrict the gate cannot read"},
		{"node --eval=x", "node --eval code"},
		{"tclsh /dev/stdin", "tclsh reading code from /dev/stdin"},
		{"awk {print} /dev/stdin", ""},
		{"python3.11 -W ignore", "python3 reading code from stdin"},
		{"luajit-2.1 -", "luajit reading code from stdin"},
		{"xargs -0 nawk", "xargs feeding nawk"},
		{"mawk -f prog", "mawk option -f outside the verified set"},
		{"awk '{print $1}' f", ""},
		{"gawk -v 'x=ARGV' -F: 'BEGIN{ARGV[1]=\".env\"; ARGC=2} {print}'", "gawk program uses the special variable ARGV"},
		{"awk 'BEGIN{print ENVIRON[\"HOME\"]}'", "awk program uses the special variable ENVIRON"},
		{"python3x -c x", ""},
	} {
		if got := opaque([]string{tc.form}, specialPath, argsOfForm(tc.form)); got != tc.want {
			t.Errorf("opaque(%q) = %q, want %q", tc.form, got, tc.want)
		}
	}
}
