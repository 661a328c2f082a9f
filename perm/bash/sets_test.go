package bash

import (
	"slices"
	"testing"
)

func TestSets(t *testing.T) {
	tests := []struct {
		src     string
		name    string // the variable Sets reports ("" for none, "*" for any)
		outside bool   // SetsOutside is not ""
		code    bool   // SetsCode is not ""
	}{
		{"ls; cat $PWD/x", "", false, false},
		{"PWD=x; cat", "PWD", false, false},
		{"export PATH=$PATH:/x", "PATH", false, true},
		{`declare "PATH=$x"`, "PATH", false, true},
		{"local -- PWD=x", "PWD", false, false},
		{"read -r PWD", "PWD", false, false},
		{"read -aPWD", "PWD", false, false},
		{"mapfile -t PWD < f", "PWD", false, false},
		{"printf -v PWD %s x", "PWD", false, false},
		{"printf -vHOME %s x", "HOME", false, false},
		{"getopts ab HOME", "HOME", false, false},
		{"unset -v CDPATH", "CDPATH", false, false},
		{"builtin read PWD", "PWD", false, false},
		{"env HOME=/x bash -c 'cat ~/k'", "HOME", false, false},
		{"for PWD in x; do :; done", "PWD", true, false},
		{"select PWD in x; do :; done", "PWD", true, false},
		{"let PATH=1", "PATH", true, true},
		{"((PATH++))", "PATH", true, true},
		{"for ((PATH=0; PATH<1; PATH+=1)); do :; done", "PATH", true, true},
		{"echo $((a[1] <<= 2))", "a", true, false},
		{": ${PWD:=x}", "PWD", true, false},
		{"true {PWD}<f", "PWD", true, false},
		{"bash -c 'for HOME in x; do :; done'", "HOME", true, false},
		// Names set only to numbers are set all the same.
		{"wait -p PWD", "PWD", false, false},
		{"wait -n -pPWD %1", "PWD", false, false},
		{"wait -fp PATH $!", "PATH", false, true},
		{"coproc PWD { cat; }", "PWD", true, false},
		{"coproc HOME cat", "", false, false}, // sets COPROC: a simple command takes no name
		{"exec {PWD}>f", "PWD", true, false},
		{"exec {HOME}>f ls", "HOME", true, false},
		// Every reading of a command assigns: a wrapped declarer, env behind exec.
		{"builtin export PWD=x", "PWD", false, false},
		{"exec env HOME=/x ls", "HOME", false, false},
		{"command declare -x CDPATH=x", "CDPATH", false, false},
		// A name that is not known may be any variable.
		{"declare -n r=PWD; r=x", "*", false, true},
		{`read "$n"`, "*", false, true},
		{`printf "$f" x`, "*", false, true},
		{`wait "$o" PWD`, "*", false, true},
		{"[[ 1 -eq PWD=2 ]]", "*", true, true},
		{"(( a[$i] = 1 ))", "a", true, false},
		// Not assignments.
		{"[[ 1 -eq 2 ]] && [[ a == b ]] && (( x == 1 || x <= 2 ))", "", false, false},
		{"printf '%s\\n' PWD \"$x\"", "", false, false},
		{"grep PWD f; echo read HOME", "", false, false},
		{"sleep 1 & wait $! PWD", "", false, false},
		{"wait PWD; wait -n", "", false, false},
	}
	for _, tt := range tests {
		s, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		for _, n := range []string{"PWD", "HOME", "CDPATH", "PATH", "a"} {
			if got, want := s.Sets(n), n == tt.name || tt.name == "*"; got != want {
				t.Errorf("Parse(%q).Sets(%q) = %v, want %v", tt.src, n, got, want)
			}
		}
		if got := s.SetsOutside() != ""; got != tt.outside {
			t.Errorf("Parse(%q).SetsOutside() = %q, want set %v", tt.src, s.SetsOutside(), tt.outside)
		}
		if got := s.SetsCode() != ""; got != tt.code {
			t.Errorf("Parse(%q).SetsCode() = %q, want set %v", tt.src, s.SetsCode(), tt.code)
		}
	}
}

func TestDirChange(t *testing.T) {
	tests := []struct {
		src  string
		prog string   // DirChange's program ("" for none)
		alts []string // the first argument of each of DirAlternatives
	}{
		{"cd src", "cd", nil},
		{"builtin cd src", "cd", nil},
		{"command -p cd src", "cd", nil},
		{"builtin command -- pushd src", "pushd", nil},
		{"command -v cd src", "", nil},
		{"nice cd src", "", nil}, // a child process moves nothing
		{"xargs cd", "", nil},
		{"builtin", "", nil},
		{"d=secrets; cd $d", "cd", []string{"secrets"}},
		{`cd "$(echo sec)rets"`, "cd", []string{"secrets"}},
		{"a=sec; builtin cd ${a}rets", "cd", []string{"secrets"}},
		{"d=a; d=b; pushd $d", "pushd", []string{"a", "b"}},
		{"cd $d", "cd", nil},
	}
	for _, tc := range tests {
		var cmd *Command // the first with a program other than echo
		for _, c := range mustParse(t, tc.src).Commands {
			if cmd == nil && len(c.Words) > 0 && c.Words[0].Value != "echo" {
				cmd = c
			}
		}
		prog, _, ok := cmd.DirChange()
		if prog != tc.prog || ok != (tc.prog != "") {
			t.Errorf("%q: DirChange = %q, %v; want %q", tc.src, prog, ok, tc.prog)
		}
		var alts []string
		for _, args := range cmd.DirAlternatives() {
			alts = append(alts, args[0].Value)
		}
		if !slices.Equal(alts, tc.alts) {
			t.Errorf("%q: DirAlternatives = %q; want %q", tc.src, alts, tc.alts)
		}
	}
}
