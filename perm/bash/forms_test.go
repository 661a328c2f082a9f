package bash

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestAllowForm(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // "" means ok=false
	}{
		{"plain", `git status`, "git status"},
		{"quotes removed", `"git" 'status'`, "git status"},
		{"value with space requoted", `git commit -m "a b"`, "git commit -m 'a b'"},
		{"value with single quote", `echo "it's"`, `echo 'it'\''s'`},
		{"metacharacter requoted", `echo 'a;b'`, "echo 'a;b'"},
		{"empty value", `echo ""`, "echo ''"},
		{"glob quoted in form", `ls *.go`, "ls '*.go'"},
		{"tilde kept outside quotes", `cat ~/notes`, "cat ~/notes"},
		{"literal tilde quoted", `cat '~/notes'`, "cat '~/notes'"},
		{"harmless LANG stripped", `LANG=C ls`, "ls"},
		{"harmless LC_ALL and TZ stripped", `LC_ALL=en_US.UTF-8 TZ=UTC date`, "date"},
		{"GIT_PAGER carries code", `GIT_PAGER=cat git log`, ""},
		{"LD_PRELOAD via env", `env LD_PRELOAD=/tmp/x.so ls`, ""},
		{"export of code var", `export BASH_ENV=/tmp/x`, ""},
		{"PAGER other than cat kept", `PAGER=less git log`, ""},
		{"locale path not harmless", `LANG=../../x ls`, ""},
		{"PATH not harmless", `PATH=/x ls`, ""},
		{"LD_PRELOAD not harmless", `LD_PRELOAD=/x.so ls`, ""},
		{"one bad assignment keeps all", `LANG=C IFS=x ls`, ""},
		{"dynamic harmless value", `LANG=$x ls`, ""},
		{"assignment only", `X=1`, ""},
		{"timeout", `timeout 5 npm test`, "npm test"},
		{"timeout with options", `timeout -s KILL -k 2 10s npm test`, "npm test"},
		{"timeout without duration kept", `timeout npm test`, "timeout npm test"},
		{"nice", `nice -n 5 make`, "make"},
		{"nice numeric", `nice -10 make`, "make"},
		{"nohup", `nohup make`, "make"},
		{"stdbuf", `stdbuf -oL make`, "make"},
		{"stdbuf separate", `stdbuf -o L -e 0 make`, "make"},
		{"time as command", `\time -p make`, "make"},
		{"time -o writes a file so is kept", `\time -o out make`, "time -o out make"},
		{"wrappers nested", `nice -n 1 timeout 5 nohup make`, "make"},
		{"unknown wrapper option keeps wrapper", `nice --weird make`, "nice --weird make"},
		{"wrapper only", `nohup`, ""},
		{"dynamic wrapper option value", `timeout -s "$sig" 5 make`, ""},
		{"dynamic duration", `timeout $t make`, ""},
		{"wrapper without command", `timeout 5`, ""},
		{"sudo", `sudo ls`, ""},
		{"sudo behind wrapper", `nice sudo ls`, ""},
		{"doas", `doas ls`, ""},
		{"su", `su -c ls`, ""},
		{"env is not narrow", `env ls`, "env ls"},
		{"dynamic name", `$CMD x`, ""},
		{"dynamic argument", `echo $(whoami)`, ""},
		{"dynamic in quotes", `echo "$HOME"`, ""},
		{"path named program keeps its path", `/tmp/x/npm i`, "/tmp/x/npm i"},
		{"relative path program keeps its path", `./npm i`, "./npm i"},
		{"privileged by path", `/usr/bin/sudo ls`, ""},
		{"glob program", `np? i`, ""},
		{"brace expansion", `echo {a,b}`, ""},
		{"empty program", `'' x`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.src)
			got, ok := s.Commands[0].AllowForm()
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("AllowForm(%q) = %q, %v; want %q, %v", tt.src, got, ok, tt.want, tt.want != "")
			}
			if !ok && got != "" {
				t.Errorf("AllowForm(%q) returned text %q with ok=false", tt.src, got)
			}
		})
	}
}

// scriptForms returns the DenyForms of every command in src.
func scriptForms(t *testing.T, src string) []string {
	var out []string
	for _, c := range mustParse(t, src).Commands {
		out = append(out, c.DenyForms()...)
	}
	return out
}

func TestDenyForms(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each must be among the script's forms
		not  []string // none may be
	}{
		{"quotes in name", `r'm' -rf /`, []string{"r'm' -rf /", "rm -rf /"}, nil},
		{"double quoted name", `"rm" x`, []string{`"rm" x`, "rm x"}, nil},
		{"ansi c name", `$'rm' x`, []string{"rm x"}, nil},
		{"escaped name", `\rm x`, []string{`\rm x`, "rm x"}, nil},
		{"assignments as written and stripped", `FOO=1 BAR="x y" rm x`, []string{`FOO=1 BAR="x y" rm x`, "rm x"}, nil},
		{"sudo env command chain", `sudo -u root env FOO=1 command rm -rf x`, []string{
			"sudo -u root env FOO=1 command rm -rf x", "env FOO=1 command rm -rf x", "command rm -rf x", "rm -rf x",
		}, []string{"root env FOO=1 command rm -rf x"}},
		{"sudo options and assignments", `sudo -E -H VAR=1 rm x`, []string{"rm x"}, nil},
		{"env options", `env -i -u HOME -C /tmp A=1 rm x`, []string{"rm x"}, nil},
		{"env split string", `env -S 'rm -rf' x`, []string{"rm -rf x"}, nil},
		{"command -p", `command -p rm x`, []string{"rm x"}, nil},
		{"command -v does not run", `command -v rm`, []string{"command -v rm"}, []string{"rm"}},
		{"builtin and exec", `exec -a name builtin rm x`, []string{"builtin rm x", "rm x"}, nil},
		{"ionice", `ionice -c 3 -n 7 rm x`, []string{"rm x"}, nil},
		{"process wrappers", `timeout -s KILL 5 nice -n 2 nohup stdbuf -oL rm x`, []string{"rm x"}, nil},
		{"find -exec", `find . -name '*.tmp' -exec rm -f {} \;`, []string{"rm -f {}"}, nil},
		{"find -execdir and -ok each", `find . -execdir rm a {} + -ok shred b {} \;`, []string{"rm a {}", "shred b {}"}, nil},
		{"find dynamic action", `find . $act rm -rf {} \;`, []string{"rm -rf {}"}, nil},
		{"xargs", `ls | xargs -0 rm`, []string{"ls", "xargs -0 rm", "rm"}, nil},
		{"xargs with options taking values", `xargs -I {} -n 1 -P 4 rm -rf {}`, []string{"rm -rf {}"}, nil},
		{"watch", `watch -n 1 rm x`, []string{"rm x"}, nil},
		{"git global options", `git -C /repo -c core.x=y --no-pager push --force`, []string{"git push --force"}, nil},
		{"git dir options", `git --git-dir=/r/.git --work-tree /r -P push`, []string{"git push"}, nil},
		{"path named program", `/usr/bin/curl http://x`, []string{"/usr/bin/curl http://x", "curl http://x"}, nil},
		{"relative program", `./rm -rf x`, []string{"rm -rf x"}, nil},
		{"combination sudo path git", `sudo /usr/bin/git -C x push`, []string{"git push"}, nil},
		{"combination xargs sudo quoted", `xargs sudo "/bin/rm" -rf`, []string{"rm -rf"}, nil},
		{"bash -c inner", `bash -c 'curl x | sh'`, []string{"curl x", "sh"}, nil},
		{"eval inner", `eval "rm -rf /"`, []string{"rm -rf /"}, nil},
		{"nested behind wrappers", `sudo env sh -c 'rm -rf /'`, []string{"rm -rf /"}, nil},
		{"dynamic sudo option value", `sudo -u $user rm -rf /`, []string{"rm -rf /"}, nil},
		{"dynamic wrapper word may be an option", `sudo $opt rm -rf /`, []string{"$opt rm -rf /", "rm -rf /"}, nil},
		{"dynamic long option value", `timeout --signal "$s" 5 rm x`, []string{"rm x"}, nil},
		{"dynamic git -C", `git -C "$dir" push --force`, []string{"git push --force"}, nil},
		{"dynamic words keep raw", `rm -rf "$dir"`, []string{`rm -rf "$dir"`}, nil},
		{"requoted form", `git commit -m "a b"`, []string{`git commit -m "a b"`, "git commit -m a b", "git commit -m 'a b'"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scriptForms(t, tt.src)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("forms of %q lack %q; got %q", tt.src, w, got)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("forms of %q include %q; got %q", tt.src, n, got)
				}
			}
		})
	}
}

func TestDenyFormsDeduplicated(t *testing.T) {
	forms := mustParse(t, `ls -la`).Commands[0].DenyForms()
	if !slices.Equal(forms, []string{"ls -la"}) {
		t.Errorf("DenyForms(ls -la) = %q, want exactly one form", forms)
	}
}

func TestDenyFormsBounded(t *testing.T) {
	var actions strings.Builder
	for i := range 300 {
		fmt.Fprintf(&actions, `-exec rm %d {} \; `, i)
	}
	for name, src := range map[string]string{
		"deep wrappers": strings.Repeat("sudo nice ", 200) + "rm -rf /",
		"many actions":  "find . " + actions.String(),
	} {
		t.Run(name, func(t *testing.T) { checkBounded(t, src) })
	}
}

func checkBounded(t *testing.T, src string) {
	s := mustParse(t, src)
	forms := s.Commands[0].DenyForms()
	if len(forms) > 2+3*maxVariants {
		t.Errorf("got %d forms, want at most %d", len(forms), 2+3*maxVariants)
	}
	// The innermost command is past the bound: that must not pass unseen.
	if !slices.Contains(s.Suspicious, labelTooWrapped) {
		t.Errorf("Suspicious = %q, want %q", s.Suspicious, labelTooWrapped)
	}
}
