package bash

import (
	"regexp"
	"slices"
	"testing"
)

func TestSuspicious(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // exactly these labels, in order
	}{
		{"clean command", `git status && ls -la | grep x`, nil},
		{"single substitution is fine", `echo $(date)`, nil},
		{"nested substitution", `echo $(echo $(id))`, []string{labelNestedSubst}},
		{"nested backticks in substitution", "echo $(echo `id`)", []string{labelNestedSubst}},
		{"process substitution in substitution", `echo $(cat <(id))`, []string{labelNestedSubst}},
		{"substitution in bash -c inside substitution", `echo $(bash -c 'echo $(id)')`, []string{labelNestedSubst}},
		{"sibling substitutions are fine", `echo $(a) $(b)`, nil},
		{"carriage return", "ls\r", []string{labelControl}},
		{"escape character", "echo \x1b[31m", []string{labelControl}},
		{"C1 control", "echo \u0085", []string{labelControl}},
		{"tab and newline are fine", "ls\t-l\nls", nil},
		{"zero-width space", "r\u200bm -rf /", []string{labelZeroWidth}},
		{"word joiner", "ls\u2060", []string{labelZeroWidth}},
		{"byte order mark", "\ufeffls", []string{labelZeroWidth}},
		{"bidi override", "echo \u202e", []string{labelBidi}},
		{"control character in decoded bash -c string", `bash -c $'ls\x01'`, []string{labelControl}},
		{"IFS assignment", `IFS=, read a b`, []string{labelIFS}},
		{"IFS use", `echo${IFS}hi`, []string{labelDynamicName, labelIFS}},
		{"IFS short use", `cat$IFS/etc/passwd`, []string{labelDynamicName, labelIFS}},
		{"IFS in argument", `cat a${IFS}b`, []string{labelIFS}},
		{"IFS export", `export IFS=x`, []string{labelIFS}},
		{"IFS unset", `unset IFS`, []string{labelIFS}},
		{"IFS read target", `read -r IFS`, []string{labelIFS}},
		{"IFS as plain argument is fine", `grep IFS f`, nil},
		{"backslash-escaped flag letters", `rm -\r\f x`, []string{labelBackslash}},
		{"backslash before dash", `rm \-rf x`, []string{labelBackslash}},
		{"backslash in name is fine", `\rm x`, nil},
		{"zmodload", `zmodload zsh/system`, []string{labelZshPrivilege + "zmodload"}},
		{"zf_rm behind sudo", `sudo zf_rm x`, []string{labelZshPrivilege + "zf_rm"}},
		{"syswrite", `syswrite x`, []string{labelZshPrivilege + "syswrite"}},
		{"proc self environ", `cat /proc/self/environ`, []string{labelProcEnviron}},
		{"proc pid environ", `strings /proc/1/environ`, []string{labelProcEnviron}},
		{"proc environ dynamic pid", `cat /proc/$$/environ`, []string{labelProcEnviron}},
		{"proc environ glob", `cat /proc/*/env*`, []string{labelProcEnviron}},
		{"proc environ in redirect", `cat < /proc/self/environ`, []string{labelProcEnviron}},
		{"relative environ", `cd /proc/self && cat environ`, []string{labelProcEnviron}},
		{"proc cpuinfo is fine", `cat /proc/cpuinfo`, nil},
		{"dynamic bash -c string", `bash -c "$cmd"`, []string{labelUnparseable}},
		{"dynamic word among shell options", `sh $opts`, []string{labelUnparseable}},
		{"unparseable bash -c string", `bash -c 'if'`, []string{labelUnparseable}},
		{"dynamic eval", `eval "$x"`, []string{labelUnparseable}},
		{"dynamic trap action", `trap "$x" EXIT`, []string{labelUnparseable}},
		{"too deep", deepShell(maxDepth + 1), []string{labelDepth}},
		{"deep but within bound", deepShell(maxDepth - 1), nil},
		{"quoted subscript substitution", `unset 'a[$(id)]'`, []string{labelSubscript}},
		{"quoted subscript backticks", "read 'a[`id`]'", []string{labelSubscript}},
		{"plain subscript is fine", `unset 'a[1]'`, nil},
		{"dynamic command name", `$CMD x`, []string{labelDynamicName}},
		{"substituted command name", `$(echo rm) -rf /`, []string{labelDynamicName}},
		{"glob command name", `/bin/r? -rf /`, []string{labelGlobName}},
		{"several findings once each", "echo $(echo $(id)) $(echo $(id))\r", []string{labelControl, labelNestedSubst}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.src).Suspicious
			if !slices.Equal(got, tt.want) {
				t.Errorf("Suspicious(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

// deepShell returns n levels of eval around ls, each a nested shell string.
func deepShell(n int) string {
	s := "ls"
	for range n {
		s = "eval " + shellQuoteForTest(s)
	}
	return s
}

func shellQuoteForTest(s string) string { return quoteString(s) }

// TestSubstInSubscript checks the scan against the regular expression it
// replaced, \[[^]]*(\$\(|`), on every split of a set of tricky strings.
func TestSubstInSubscript(t *testing.T) {
	re := regexp.MustCompile("\\[[^]]*(\\$\\(|`)")
	for _, s := range []string{
		"", "a", "a[1]", "a[$(id)]", "a[`id`]", "a[1]$(id)", "[]$(", "[$]( ", "[x]y[$(z",
		"a[[]]`", "]]][$(", "[$", "[`]", "x[a]b[c$(d)]", "[[$(", "$(a[1])", "[]`", "a[b]c]`d[e`",
	} {
		for i := 0; i <= len(s); i++ {
			for j := i; j <= len(s); j++ {
				sub := s[i:j]
				if got, want := substInSubscript(sub), re.MatchString(sub); got != want {
					t.Errorf("substInSubscript(%q) = %v, want %v", sub, got, want)
				}
			}
		}
	}
}
