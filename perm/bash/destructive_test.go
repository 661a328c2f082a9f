package bash

import "testing"

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
