package bash

import (
	"fmt"
	"strings"
	"testing"
)

// scriptDestructive returns the first destructive label among src's
// commands, as the engine sees the script.
func scriptDestructive(t *testing.T, src string) string {
	for _, c := range mustParse(t, src).Commands {
		if l := c.Destructive(); l != "" {
			return l
		}
	}
	return ""
}

func TestDestructive(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		// rm
		{`rm x`, ""},
		{`rm -f x`, ""},
		{`rm -v -i x`, ""},
		{`rm -rf /`, "rm -r"},
		{`rm -fr x`, "rm -r"},
		{`rm -r x`, "rm -r"},
		{`rm -R x`, "rm -r"},
		{`rm -v -R x`, "rm -r"},
		{`rm x -r`, "rm -r"},
		{`rm --recursive x`, "rm -r"},
		{`rm --rec x`, "rm -r"},
		{`rm -- -r`, ""},
		{`rm -\r\f x`, "rm -r"},
		{`rm "-rf" x`, "rm -r"},
		{`r'm' -rf x`, "rm -r"},
		{`/bin/rm -rf x`, "rm -r"},
		{`sudo rm -rf x`, "rm -r"},
		{`sudo -u root env A=1 command nice rm -rf x`, "rm -r"},
		{`find . -exec rm -rf {} +`, "rm -r"},
		{`sudo -u $user rm -rf x`, "rm -r"},
		{`sudo $opts rm -rf x`, "rm -r"},
		{`env -u "$v" rm -rf x`, "rm -r"},
		{`timeout $t rm -rf x`, "rm -r"},
		{`ls | xargs rm -rf`, "rm -r"},
		{`ls | xargs rm --recursive --force`, "rm -r"},
		{`ls | xargs -0 rm -r -f`, "rm -r"},
		{`rm --r x`, "rm -r"},
		{`rm --interactive=never -R x`, "rm -r"},
		{`ls | xargs rm`, "rm (dynamic arguments)"},
		{`rm $flags x`, "rm (dynamic arguments)"},
		{`rm -$x y`, "rm (dynamic arguments)"},
		{`rm "$file"`, ""},
		{`rm ./"$file"`, ""},
		{`bash -c 'rm -rf /'`, "rm -r"},
		{`eval rm -rf x`, "rm -r"},
		{`echo $(rm -rf x)`, "rm -r"},
		// git push
		{`git push origin main`, ""},
		{`git push -u origin main`, ""},
		{`git push --force`, "git push --force"},
		{`git push -f origin main`, "git push --force"},
		{`git push -uf origin main`, "git push --force"},
		{`git push --force-with-lease`, "git push --force"},
		{`git push --force-with-lease=main:abc`, "git push --force"},
		{`git push --force-if-includes`, "git push --force"},
		{`git push --forc`, "git push --force"},
		{`git push origin +main`, "git push --force"},
		{`git push origin +refs/heads/a:refs/heads/b`, "git push --force"},
		{`git push -o f origin main`, ""},
		// An option's value is no option: -o and --push-option take one,
		// so these -f are push options (each was "git push --force").
		{`git push -o -f origin main`, ""},
		{`git push --push-option -f origin`, ""},
		{`git push --push -f origin`, ""},
		{`git push -of origin`, ""},
		{`git push -o -f -f origin`, "git push --force"},
		{`git push --fo`, "git push --force"}, // --force or --follow-tags: either counts
		{`git push --d origin x`, "git push --delete"},
		{`git push -- origin +main`, "git push --force"},
		{`git push -o :x origin`, ""},
		{`git push --no-force origin`, ""},
		{`git push origin :old`, "git push --delete"},
		{`git push --delete origin old`, "git push --delete"},
		{`git push --mirror`, "git push --mirror"},
		{`git -C /repo -c a=b --no-pager push --force`, "git push --force"},
		{`sudo /usr/bin/git -C x push -f`, "git push --force"},
		// git reset, clean, checkout, switch, restore, branch, stash
		{`git reset --hard`, "git reset --hard"},
		{`git reset --hard HEAD~1`, "git reset --hard"},
		{`git reset --soft HEAD~1`, ""},
		{`git reset`, ""},
		{`git clean -n`, ""},
		{`git clean --dry-run -d`, ""},
		{`git clean -f`, "git clean -f"},
		{`git clean -fd`, "git clean -f"},
		{`git clean -xdf`, "git clean -f"},
		{`git clean -xf`, "git clean -f"},
		{`git clean --force`, "git clean -f"},
		{`git clean -d`, "git clean"},
		{`git clean -e f -n`, ""},
		{`git clean --exclude -f -n`, ""}, // -f is the pattern
		{`git clean -e -n`, "git clean"},
		{`git checkout -b -f`, ""},
		{`git switch --disc main`, "git switch --discard-changes"},
		{`git switch -c -f`, ""},
		{`git branch --set-upstream-to -D`, ""},
		{`git rm --cached -r x`, "git rm -r"},
		{`git reset --ha`, "git reset --hard"},
		{`git checkout main`, ""},
		{`git checkout -b feature`, ""},
		{`git checkout -bfoo`, ""},
		{`git checkout -- file.go`, "git checkout --"},
		{`git checkout .`, "git checkout ."},
		{`git checkout -f main`, "git checkout --force"},
		{`git switch main`, ""},
		{`git switch -c new`, ""},
		{`git switch --discard-changes main`, "git switch --discard-changes"},
		{`git restore file`, "git restore"},
		{`git restore --staged file`, ""},
		{`git restore -S file`, ""},
		{`git restore --staged --worktree file`, "git restore"},
		{`git branch -d old`, ""},
		{`git branch -D old`, "git branch -D"},
		{`git branch --delete --force old`, "git branch -D"},
		{`git branch -df old`, "git branch -D"},
		{`git branch -M new`, "git branch -M"},
		{`git branch -u origin/main`, ""},
		{`git stash`, ""},
		{`git stash drop`, "git stash drop"},
		{`git stash clear`, "git stash clear"},
		{`git status`, ""},
		// chmod
		{`chmod 777 x`, "chmod 777"},
		{`chmod 0777 x`, "chmod 777"},
		{`chmod -R 777 x`, "chmod 777"},
		{`chmod 1777 /tmp/x`, "chmod 777"},
		{`chmod 666 x`, "chmod 777"},
		{`chmod a+rwx x`, "chmod 777"},
		{`chmod o+w x`, "chmod 777"},
		{`chmod u+x,o+w x`, "chmod 777"},
		{`chmod a=u x`, "chmod 777"},
		{`chmod 755 x`, ""},
		{`chmod 644 x`, ""},
		{`chmod +x x`, ""},
		{`chmod u+w x`, ""},
		{`chmod a-w x`, ""},
		{`chmod -w x`, ""},
		{`chmod --reference=a b`, ""},
		// disks and friends
		{`dd if=/dev/zero of=/dev/sda`, "dd"},
		{`dd of=/dev/sda`, "dd"},
		{`dd --help`, ""},
		{`mkfs /dev/sda1`, "mkfs"},
		{`mkfs.ext4 /dev/sda1`, "mkfs"},
		{`sudo mkfs.vfat /dev/sdb`, "mkfs"},
		{`fdisk /dev/sda`, "fdisk"},
		{`sfdisk /dev/sda`, "sfdisk"},
		{`parted /dev/sda rm 1`, "parted"},
		{`wipefs -a /dev/sda`, "wipefs"},
		{`shred -u secret`, "shred"},
		{`find . -name '*.o' -delete`, "find -delete"},
		{`find . -name '*.o'`, ""},
		// fork bombs
		{`:(){ :|:& };:`, "fork bomb"},
		{`bomb() { bomb | bomb & }; bomb`, "fork bomb"},
		{`f() { g | h; f; }`, ""},
		{`f() { ls; }; f & f`, ""},
		// harmless
		{`ls -rf`, ""},
		{`echo rm -rf /`, ""},
		{`grep -r rm .`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			if got := scriptDestructive(t, tt.src); got != tt.want {
				t.Errorf("Destructive(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestDestructiveIssueRows(t *testing.T) {
	tests := []struct{ src, want string }{
		{`mkdir -m 777 d`, "mkdir -m 777"},
		{`mkdir -m777 d`, "mkdir -m 777"},
		{`mkdir --mode=a+w d`, "mkdir -m 777"},
		{`mkdir -pm 0777 d`, "mkdir -m 777"},
		{`mkdir -m 755 d`, ""},
		{`install -m 777 x /usr/local/bin/x`, "install -m 777"},
		{`install -m 0755 x y`, ""},
		{`git reflog expire --expire=now --all`, "git reflog expire"},
		{`git reflog delete HEAD@{1}`, "git reflog delete"},
		{`git reflog show`, ""},
		{`git gc --prune=now`, "git gc --prune"},
		{`systemctl enable evil.service`, "systemctl enable"},
		{`systemctl --user enable x`, "systemctl enable"},
		{`systemctl status x`, ""},
		{`f() { f & }; f`, "fork bomb"},
		{`f() { eval 'f & f'; }; f`, "fork bomb"},
		{`f() { eval f & }; f`, "fork bomb"},
		{`f() { bash -c 'f | f'; }; f`, "fork bomb"}, // strict: an exported f is known there
		{`while true; do bash & done`, "fork bomb"},
		{`while :; do sleep 1 & done`, "fork bomb"},
		{`until false; do x & done`, "fork bomb"},
		{`for ((;;)); do x & done`, "fork bomb"},
		{`while read f; do gzip "$f" & done`, ""},
		// cycles through several functions, coprocesses, subshells,
		// substitutions and code in strings
		{`f() { g & }; g() { f; }; f`, "fork bomb"},
		{`a() { b; }; b() { c; }; c() { a | x; }; a`, "fork bomb"},
		{`f() { coproc f; }; f`, "fork bomb"},
		{`f() { (f); }; f`, "fork bomb"},
		{`f() { echo $(f); }; f`, "fork bomb"},
		{`f() { cat <(f); }; f`, "fork bomb"},
		{`f() { eval 'g &'; }; g() { f; }; f`, "fork bomb"},
		{`for ((;;)); do eval 'x &'; done`, "fork bomb"},
		{`while true; do bash -c 'x &'; done`, "fork bomb"},
		{`g() { x & }; while :; do g; done`, "fork bomb"},
		{`f() { x & f; }; f`, "fork bomb"},
		{`f() { while :; do f | x; done; }; f`, "fork bomb"},
		{`f() { "$@" & }; f f`, "fork bomb"},     // a name not known may be f
		{`f() { g() { f & }; }; f`, "fork bomb"}, // strict: g may be called
		// cycles that stay in one process and start nothing in the
		// background, and background commands off any cycle
		{`f() { f; }`, ""},
		{`f() { g | h; f; }`, ""},
		{`while :; do x | y; done`, ""},
		{`while :; do echo $(date); sleep 1; done`, ""},
		{`g() { x & }; g; g`, ""},
		{`f() { ls | wc -l; }; g() { f; f; }; g | g`, ""},
		{`x & y & wait`, ""},
		{`git -c alias.r='reset --hard' r`, "git reset --hard"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got := ""
			for _, c := range mustParse(t, tt.src).Commands {
				if d := c.Destructive(); d != "" {
					got = d
				}
			}
			if got != tt.want {
				t.Errorf("Destructive(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

// TestForkBombRing checks cycles through thousands of functions, each
// defined apart: only the whole ring is a cycle, and it is a fork bomb
// when a call on it starts a process or it starts one each time round.
func TestForkBombRing(t *testing.T) {
	ring := func(n int, last string) string {
		var b strings.Builder
		for i := range n - 1 {
			fmt.Fprintf(&b, "f%d() { echo %d; f%d; }\n", i, i, i+1)
		}
		fmt.Fprintf(&b, "f%d() {\n%s\n}\nf0", n-1, last)
		return b.String()
	}
	for _, tt := range []struct{ last, want string }{
		{"f0 &", "fork bomb"},
		{"f0 | cat", "fork bomb"},
		{"echo $(f0)", "fork bomb"},
		{"cat | f1", "fork bomb"},  // f1 is on the ring too
		{"true & f0", "fork bomb"}, // a background command each time round
		{"f0", ""},                 // recursion in one process
		{"echo done | cat", ""},    // no cycle
	} {
		if got := scriptDestructive(t, ring(3000, tt.last)); got != tt.want {
			t.Errorf("ring of 3000 ending in %q: Destructive = %q, want %q", tt.last, got, tt.want)
		}
	}
}
