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
		// Was no write: shred's -u and --remove take no value from the
		// next word (shred is destructive too, asked at step 2 anyway).
		{"shred -u f", []string{"f"}},
		{"shred --remove f", []string{"f"}},
		{"shred --remove=unlink -n 3 f", []string{"f"}},
		{"shred -n 3 -s 1K f", []string{"f"}},
		// Were only the operands after the first: chmod's mode in an
		// option word, and --reference's, leave every operand a file.
		{"chmod u+x a", []string{"a"}},
		{"chmod -w a", []string{"a"}},
		{"chmod -w,u+x a b", []string{"a", "b"}},
		{"chmod -R -x a", []string{"a"}},
		{"chmod -- -w a", []string{"a"}},
		{"chmod --reference=r a", []string{"a"}},
		{"chmod --ref r a", []string{"a"}},
		{"chown --reference=r a", []string{"a"}},
		{"chown me a", []string{"a"}},
		{"chgrp --reference r a", []string{"a"}},
		// sed -i: -E is a flag (it took the script, and the file for
		// it), --in abbreviates --in-place, and a backup suffix names
		// one more file, anywhere (each "*" the file's name).
		{"sed -i s/a/b/ f", []string{"f"}},
		{"sed -i -E s/a/b/ f", []string{"f"}},
		{"sed -iE s/a/b/ f", []string{"f", "fE"}},
		{"sed -Ei s/a/b/ f", []string{"f"}},
		{"sed --in s/a/b/ f", []string{"f"}},
		{"sed --in-pl=.bak s/a/b/ f", []string{"f", "f.bak"}},
		{"sed -irc s/a/b/ .bash", []string{".bash", ".bashrc"}},
		{"sed -in s/a/b/ f", []string{"f", "fn"}},
		{"sed -ni s/a/b/ f", []string{"f"}},
		{"sed -i'/tmp/*' s/a/b/ f", []string{"/tmp/f", "f"}},
		{"sed -i'bak/*.old' -e s/a/b/ d/f g", []string{"bak/d/f.old", "bak/g.old", "d/f", "g"}},
		{"sed --in-place=x -i s/a/b/ f", []string{"f", "fx"}},
		{"sed -i.b s/a/b/ ~/f", []string{"~/f", "~/f.b"}},
		{"sed -n s/a/b/ f", nil},
		{"sed -e s/a/b/ -i f", []string{"f"}},
		{"cp --context a b", []string{"b"}},
		{"cp --backup a b", []string{"b"}},
		{"mv --backup -Z a b", []string{"b"}},
		{"install -Z -m 644 a b", []string{"b"}},
		{"install -d a b", []string{"a", "b"}},
		{"install --directory a b", []string{"a", "b"}},
		{"mkdir -Z a b", []string{"a", "b"}},
		{"ln -s --backup a b", []string{"a", "b"}},
		// git config writes its file; only its reading forms do not.
		{"git config --global include.path x", []string{"~/.config/git/config", "~/.gitconfig"}},
		{"git config --global core.hooksPath x", []string{"~/.config/git/config", "~/.gitconfig"}},
		{"git config core.hooksPath x", []string{".git/config"}},
		{"git config --worktree core.fsmonitor x", []string{".git/config", ".git/config.worktree"}},
		{"git config include.path x", []string{".git/config"}},
		{"git config --system a.b c", []string{"/etc/gitconfig"}},
		{"git config -f cfg a.b c", []string{"cfg"}},
		{"git config --file=cfg --add a.b c", []string{"cfg"}},
		// The reading without git's global options is judged too.
		{"git -C sub config a.b c", []string{".git/config", "sub", "sub/.git/config"}},
		{"git --git-dir=g config a.b c", []string{".git/config", "g", "g/config"}},
		{"git config --unset a.b", []string{".git/config"}},
		{"git config --replace-all a.b c", []string{".git/config"}},
		{"git config --rename-section a b", []string{".git/config"}},
		{"git config --remove-section a", []string{".git/config"}},
		{"git config -e", []string{".git/config"}},
		{"git config --global --edit", []string{"~/.config/git/config", "~/.gitconfig"}},
		{"git config set --global a.b c", []string{"~/.config/git/config", "~/.gitconfig"}},
		{"git config unset a.b", []string{".git/config"}},
		{"git config --get --add a.b c", []string{".git/config"}},
		{"git config --frob a.b", []string{".git/config", "/etc/gitconfig", "~/.config/git/config", "~/.gitconfig"}},
		{"git config --global --get-al a.b", []string{".git/config", "/etc/gitconfig", "~/.config/git/config", "~/.gitconfig"}},
		{"git config --get a.b", nil},
		{"git config --global --get-all a.b", nil},
		{"git config --get-regexp a", nil},
		{"git config -l", nil},
		{"git config --list --show-origin", nil},
		{"git config get a.b", nil},
		{"git config list --global", nil},
		{"git config a.b", nil},
		{"git config --global a.b", nil},
		{"git config --blob HEAD:x a.b", nil},
		{"git status", nil},
		// Was only the "=" form: --output takes its value as the next
		// word too, git archive takes abbreviations of it, and archive
		// and format-patch write to -o's file or directory. ("" is the
		// current directory, which the writers' table reads for a -o
		// or --output without "=": stricter than git.)
		{"git diff --output=o", []string{"o"}},
		{"git diff --output o", []string{"", "o"}},
		{"git log -p --output ../o", []string{"", "../o"}},
		{"git -C sub diff --output o", []string{"", "o", "sub", "sub/o"}},
		{"git -C /abs diff --output=o", []string{"/abs", "/abs/o", "o"}},
		{"git archive --out o HEAD", []string{"o"}},
		{"git archive -o o HEAD", []string{"", "o"}},
		{"git archive -vo o HEAD", []string{"", "o"}},
		{"git archive -oo HEAD", []string{"", "o"}},
		{"git format-patch -o d HEAD~1", []string{"", "d"}},
		{"git format-patch --output-directory d HEAD~1", []string{"d"}},
		{"git format-patch --output-dir=d HEAD~1", []string{"d"}},
		{"git diff -- --output o", nil},
		// Were no writes: sort -o and uniq's output operand.
		{"sort -o o f", []string{"o"}},
		{"sort f -oo", []string{"o"}},
		{"sort --out=o f", []string{"o"}},
		{"sort --output o -k 2 f", []string{"o"}},
		{"sort -k o f", nil},
		{"sort -t o f", nil},
		// sort's temporary files go in -T's directory. Were no writes.
		{"sort -T d f", []string{"d"}},
		{"sort --temporary-directory=d -n f", []string{"d"}},
		{"sort --temp d f", []string{"d"}},
		{"uniq i o", []string{"o"}},
		{"uniq -f 1 i o", []string{"o"}},
		{"uniq -c i", nil},
		{"git log --output-indicator-new=+ -p", nil},
		// Were no writes: what git makes where its operands say.
		{"git worktree add ../wt", []string{"../wt"}},
		{"git worktree add -b x ../wt", []string{"../wt", "x"}},
		{"git worktree list", nil},
		{"git clone https://h/r ../c", []string{"../c"}},
		{"git clone ../r", []string{"."}},
		// submodule add clones and records it in .gitmodules. Were no
		// writes.
		{"git submodule add https://h/r sub", []string{".gitmodules", "sub"}},
		{"git submodule add ../r", []string{".", ".gitmodules"}},
		{"git -C d submodule add -f https://h/r /o", []string{".gitmodules", "/o", "d", "d/.gitmodules"}},
		{"git submodule update --init", nil},
		{"git init ../i", []string{"../i"}},
		{"git init", []string{"."}},
		{"git -C ../o init", []string{".", "../o", "../o/."}},
		{"git init --separate-git-dir=../g", []string{".", "../g"}},
		{"git bundle create ../b HEAD", []string{"../b", "HEAD"}},
		{"git bundle verify ../b", nil},
		{"git checkout-index -a --prefix=../o/", []string{"../o/"}},
		{"git merge-file ../cur base other", []string{"../cur"}},
		// Were no writes: a git command that writes, pointed at another
		// repository or work tree, writes there.
		{"git -C ../o commit -am x", []string{"../o"}},
		{"git -C ../o branch b", []string{"../o"}},
		{"git --git-dir=../o/.git --work-tree ../o add -A", []string{"../o", "../o/.git"}},
		{"git -C ../o --git-dir=.git reset", []string{"../o", "../o/.git"}},
		{"git -C ../o status", nil},
		// Were no writes: the archive tar makes or changes.
		{"tar -czf o.tgz src", []string{"o.tgz"}},
		{"tar czf o.tgz src", []string{"o.tgz"}},
		{"tar cfz o.tgz src", []string{"o.tgz"}},
		{"tar -cz -fo.tgz src", []string{"o.tgz"}},
		{"tar --create --file=o.tar src", []string{"o.tar"}},
		{"tar -rf o.tar f", []string{"o.tar"}},
		{"tar -czvf o.tgz --exclude x -C d .", []string{"o.tgz"}},
		{"tar -cf - src", nil},
		{"tar -c src", nil}, // this tar's default archive is stdout
		{"tar -tzf o.tgz", nil},
		{"tar -xOf o.tgz", nil},
		// Were no writes: git's other output files and directories.
		{"git fast-export --export-marks=m HEAD", []string{"m"}},
		{"git fast-import --export-marks m", []string{"m"}},
		{"git daemon --pid-file=p", []string{"p"}},
		{"git bugreport -o d", []string{"", "d"}},
		{"git diagnose -od", []string{"", "d"}},
		{"git index-pack -o i p.pack", []string{"", "i"}},
		{"git commit-graph write --object-dir d", []string{"d"}},
		{"git pack-objects d/p", []string{"d/p"}},
		{"git pack-objects --stdout", nil},
		{"git init-db ../i", []string{"../i"}},
		{"git init-db", []string{"."}},
		// Were no writes: the user's configuration and credentials.
		{"git maintenance register", []string{"~/.config/git/config", "~/.gitconfig"}},
		{"git maintenance start", []string{"~/.config/git/config", "~/.gitconfig"}},
		{"git -C ../o maintenance stop", []string{"../o", "~/.config/git/config", "~/.gitconfig"}},
		{"git maintenance register --config-file c", []string{"c", "~/.config/git/config", "~/.gitconfig"}},
		{"git maintenance run --task=gc", nil},
		{"git credential approve", []string{"~/.config/git/credentials", "~/.git-credentials"}},
		{"git credential fill", nil},
		{"git credential-store --file f store", []string{"f", "~/.config/git/credentials", "~/.git-credentials"}},
		{"git credential-store --file=f get", nil},
		{"git -C ../o log -p", nil},
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

// TestDataWrites: the programs that write the paths their input names,
// and the readings of them that write nothing.
func TestDataWrites(t *testing.T) {
	writes := []string{
		"git apply x.patch", "git apply --index x.patch", "git apply --check --apply x.patch", "git apply --check --ap x.patch",
		"git -C sub apply x.patch", "git am x.mbox", "git am --continue", "git apply \"$p\"",
		"patch -p1 < x.patch", "patch -i x.patch", "gpatch x y",
		"tar xf a.tar", "tar -xf a.tar", "tar -xzf a.tgz -C d", "tar --extract -f a.tar", "tar --ext -f a.tar", "tar --get -f a",
		"tar -C d -xf a.tar", "bsdtar -xf a.tar", "gtar xvf a.tar", "sudo tar xf a.tar", "tar -xOf a.tar --to-command=sh",
		"tar -xsOf a.tar", "tar \"$m\" a.tar", "tar -f a -x", "tar fx a", "bsdtar -H -x -f a", "tar -sx -f a", "busybox tar xf a.tar",
		"unzip a.zip", "unzip -o a.zip", "unzip -d out a.zip", "unzip -dl a.zip", "unzip a.zip -l",
		"cpio -i < a", "cpio -idv < a", "cpio --extract < a", "cpio -p d < l", "cpio -pdm d < l", "cpio -iFt",
		"7z x a.7z", "7z e a.7z", "unrar x a.rar", "ar x lib.a", "ar -x lib.a", "jar xf a.jar",
		"pax -r < a.pax", "pax -rw src dst", "dpkg-deb -x a.deb d", "dpkg -i a.deb", "unar a.zip", "uudecode x.uu",
		"cabextract a.cab", "gunzip -N a.gz", "gzip -dN a.gz", "gzip -d --name a.gz",
		// An option's value is not the flag it spells; a parse that is
		// not sure (an unknown option, an abbreviation) writes.
		"tar -xf evil.tar --exclude -O", "tar xf evil.tar --exclude -O", "tar -x --exclude -O -f evil.tar",
		"tar -xf a.tar --exclude=x -T -O", "tar -xOf a.tar -I sh", "tar -xf a.tar --to-stdo", "tar -x -O -g snap -f a",
		"unzip -l --l evil.zip", "unzip -t --t evil.zip", "unzip -l-l a.zip", "unzip -lM a.zip", "unzip -l a.zip -d d",
		"unzip -T -l a.zip", "unzip -x -l a.zip", "unzip -l",
		"patch -p1 --input=evil.patch -B --dry-run", "patch -p1 -i --dry-run", "patch --dry-run -o out < p",
		"patch --dry-run -e < p", "patch --dry-run --frob < p", "patch --dry-run -p1 \"$x\"",
		"git apply --exclude --check evil.patch", "git apply --check --build-fake-ancestor=x p", "git apply --che p",
		"git am --exclude --show-current-patch 0001.patch", "git am --show-current-patch x.mbox",
		"ar --output . x evil.a", "ar --plugin /dev/null x evil.a", "ar t lib.a -x", "ar @opts", "ar tx lib.a", "ar -X32 t a",
		"jar --extract --file evil.jar", "jar --extract -f evil.jar", "jar -xf a.jar", "jar tf a.jar -x", "jar @args",
		"jar --list --frob -f a.jar", "jar uf a.jar x",
		"7z --frob x a.7z",
		"gzip -d -N -S -c innocent.gz", "gunzip -N -S -t x.gz", "gunzip -N --suffix -l x.gz", "gunzip -N --frob x.gz",
		"pigz -dN -b -c x.gz",
		"python3 -m tarfile -e evil.tar .", "python3 -m zipfile -e evil.zip .", "python -mtarfile --extract a.tar",
		"python3.12 -I -m zipfile -e a.zip d", "python3 -m tarfile -l -e a.tar", "python3 -m tarfile --list --ext a.tar",
		// A program an option names runs. Were quiet.
		"rsync --rsh=p host:", "rsync -ep host:d", "rsync rsync://h/m", "scp host:f o", "scp -S p a host:",
		"git --exec-path=d status", "git -C src --exec-path=d log", "git -C \"$d\" status",
		"tar -I p -tf a.tar", "tar --use-compress-program=p -tf a.tar", "tar -tf a.tar --checkpoint-action=exec=p",
		"tar -cf a.tar --frob src",
		"sort --compress-program=p f", "sort --comp p f", "sort -n --frob f", "install -s --strip-program=p a b",
		"python3 -m \"$m\" -e a.tar", "python3 -W ignore -m tarfile -e a.tar", "python3 -m tarfile -c out.tar src",
	}
	quiet := []string{
		"git apply --check x.patch", "git apply --stat x.patch", "git apply --numstat x.patch", "git apply --summary x",
		"git am --show-current-patch", "git status", "git diff",
		"patch --dry-run -p1 < x.patch", "patch -p1 --dry x",
		"tar tf a.tar", "tar -tvf a.tar", "tar czf out.tgz src", "tar -cf - src", "tar -xOf a.tar f", "tar xOf a.tar",
		"tar -xf a.tar -O", "tar --extract --to-stdout -f a.tar", "tar -C x -tf a.tar", "tar -f x.tar -t", "tar -f -xa -t", "tar tf -x",
		"unzip -l a.zip", "unzip -lq a.zip", "unzip -t a.zip", "unzip -p a.zip f", "unzip -Z a.zip", "unzip -v a.zip",
		"cpio -it < a", "cpio -i -t < a", "cpio -o > a < l", "cpio --extract --list < a",
		"7z l a.7z", "7z a a.7z src", "unrar l a.rar", "ar t lib.a", "ar rcs lib.a x.o", "jar cf a.jar src", "jar tf a.jar",
		"pax -w src", "dpkg-deb -c a.deb", "dpkg -l", "cabextract -l a.cab", "gunzip a.gz", "gzip -d a.gz", "gzip -N a",
		"gunzip -Nc a.gz", "gzip -dN -c a.gz",
		"sort -rn -k2 f", "sort -o o -T d f", "install -m 644 -s a b",
		"git --exec-path", "git -C src status", "git -c core.pager=cat log",
		"rsync -r src/", "rsync -ep src/", "scp", "scp -Sp a",
		// The genuine readings that write nothing, parsed in full.
		"tar -xOf a.tar", "tar --list -f a.tar", "tar -tf a.tar --exclude -x", "tar -czf out.tgz --exclude=.git src",
		"unzip -lq a.zip", "unzip -t a.zip -x b", "unzip -Z1 a.zip", "unzip -ld d a.zip",
		"git apply --check p", "git apply --check -p1 --exclude=x p", "git apply --stat -C1 p",
		"git am --show-current-patch=diff", "patch --dry-run -p1 -i p", "patch -p1 --dry < p",
		"gzip -dc a.gz", "gzip -dNc a.gz", "gunzip -N --stdout a.gz", "gzip -S .z -d a.z",
		"ar p lib.a x.o", "ar -t lib.a", "jar --list --file a.jar", "jar -tf a.jar", "jar cfm a.jar m.txt -C d .",
		"python3 -m tarfile -l a.tar", "python3 -m zipfile -t a.zip", "python3 -m json.tool x", "python3 x.py -m tarfile -e a",
		"python3 -c 'import tarfile' -m tarfile -e a",
	}
	for _, tc := range []struct {
		srcs  []string
		wants bool
	}{{writes, true}, {quiet, false}} {
		for _, src := range tc.srcs {
			s, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, c := range s.Commands {
				if got = c.DataWrites(); got != "" {
					break
				}
			}
			if (got != "") != tc.wants {
				t.Errorf("%s: DataWrites = %q, want a reason: %v", src, got, tc.wants)
			}
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
		{"git mv stage/.github .", []pl{{srcs: "stage/.github", dest: ".", tree: true}}},
		{"git mv -f -k -n -v --sparse a b c", []pl{{srcs: "a b", dest: "c", into: true, tree: true}}},
		{"git -C sub mv a ../b", []pl{{srcs: "sub/a", dest: "sub/../b", tree: true}}},
		{"git --work-tree=w mv a b", []pl{{srcs: "a", dest: "b", tree: true, unsure: "git mv with --git-dir or --work-tree moves paths of a work tree the gate does not resolve"}}},
		{"git mv a", nil},
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

// TestDownloaderWrites: the files curl and wget (and tar, whose archive
// is its -f file) write, read from every
// option that names one; a file the URL or the server names, or one an
// option not known may name, is not known (dynamic, or a DataWrites
// reason). Each row marked
// "was" was read as writing nothing, or only -o's or -O's file.
func TestDownloaderWrites(t *testing.T) {
	for _, tc := range []struct {
		src     string
		want    []string
		dynamic bool
	}{
		{"curl -s https://h", nil, false},
		{"curl -sSL -o o https://h", []string{"o"}, false},
		{"curl -so o https://h", []string{"o"}, false},
		{"curl --output=o https://h", []string{"o"}, false},
		{"curl -o - https://h", nil, false},
		{"curl -w '%{http_code}' -o /dev/null -s https://h", []string{"/dev/null"}, false},
		{"curl -c jar https://h", []string{"jar"}, false},                       // was
		{"curl -D h.txt https://h", []string{"h.txt"}, false},                   // was
		{"curl -sD - https://h", nil, false},                                    // stdout
		{"curl --trace t --stderr e https://h", []string{"e", "t"}, false},      // was
		{"curl --etag-save e --libcurl l https://h", []string{"e", "l"}, false}, // was
		{"curl --hsts s --alt-svc a https://h", []string{"a", "s"}, false},      // was
		{"curl -O https://h/x", nil, true},                                      // was: the URL names it
		{"curl -OJ https://h/x", nil, true},                                     // was: the server names it
		{"curl --remote-name-all https://h/x", nil, true},                       // was
		{"curl --output-dir d -o o https://h", nil, true},                       // was: o in d
		{"curl -K cfg https://h", nil, true},                                    // was: any option
		{"curl --out o https://h", nil, true},                                   // was: an abbreviation
		{"curl -o '#1' 'https://h/{a,b}'", nil, true},                           // was: the URL glob names it
		{"curl -w '%output{f}x' https://h", nil, true},                          // was
		{"curl -w @fmt https://h", nil, true},                                   // was
		{"curl --frobnicate https://h", nil, true},
		{"wget -O o https://h", []string{"o"}, false},
		{"wget -qO- https://h", nil, false},
		{"wget -nv -O o https://h", []string{"o"}, false},
		{"wget --spider https://h", nil, false},
		{"wget -o log -O o https://h", []string{"log", "o"}, false},         // was
		{"wget --save-cookies=c -O o https://h", []string{"c", "o"}, false}, // was
		{"wget https://h/x", nil, true},                                     // was: the URL names it
		{"wget -a log https://h/x", []string{"log"}, true},                  // was
		{"wget -P d https://h/x", nil, true},                                // was
		{"wget -e output_document=o https://h", nil, true},                  // was
		{"wget --content-disposition -O o https://h", nil, true},            // was
		{"wget -r -O o https://h", nil, true},
		{"wget -nx -O o https://h", nil, true},
		{"tar -cf host:/o src", nil, true},        // through rsh
		{"tar --frob -czf o src", nil, true},      // an option not known
		{"tar --delete -f o.tar f", nil, true},    // not in tarSpec
		{"tar --list --frob -f o.tar", nil, true}, // --frob may run a program (-I)
		// The archive jar, 7z and ar make or change. Were no writes.
		{"jar cf o.jar a", []string{"o.jar"}, false},
		{"jar --create --file=o.jar a", []string{"o.jar"}, false},
		{"jar tf o.jar", nil, false},
		{"7z a -mx=9 o.7z a", []string{"o.7z"}, false},
		{"7z l o.7z", nil, false},
		{"7z a -sdel o.7z a", nil, true},
		{"ar rcs o.a a.o", []string{"o.a"}, false},
		{"ar rb m.o o.a a.o", []string{"o.a"}, false},
		{"ar t o.a", nil, false},
		{"ar rcs --plugin p o.a a.o", nil, true},
		// zip's archive (".zip" added where the name has no suffix); an
		// option not known may run a command (-TT) or name another
		// file. Were no writes.
		{"zip -r o.zip src", []string{"o.zip"}, false},
		{"zip -qr o src", []string{"o", "o.zip"}, false},
		{"zip -r o.zip src -x '*.git*' -T", []string{"o.zip"}, false},
		{"zip -x '*.o' -r o.zip src", []string{"o.zip"}, false},
		{"zip -TT cmd o.zip f", nil, true},
		{"zip o.zip f -TT cmd", nil, true},
		{"zip --unzip-command=cmd -T o.zip f", nil, true},
		{"zip -m o.zip f", nil, true},
		{"zip -lf log o.zip f", nil, true},
		{"zip -O p.zip o.zip f", nil, true},
		// find runs -exec's command with {} each path it finds, and
		// -execdir's in each one's directory. Were {} and x, here.
		{"find /o -exec rm {} +", []string{"{}"}, true},
		{"find /o -exec touch {}/x ;", []string{"{}/x"}, true},
		{"find /o -execdir touch x ;", []string{"x"}, true},
		{"find /o -okdir touch x ;", []string{"x"}, true},
		{"find . -exec touch x ;", []string{"x"}, false},
		{"find . -exec grep -l y {} +", nil, false},
		// A sed script's w, W and e commands and s's w and e flags
		// write or run what the gate does not follow. Were no writes
		// (or only -i's file).
		{"sed -n 'w o' f", nil, true},
		{"sed -n wo f", nil, true},
		{"sed -i 's/a/b/w o' f", []string{"f"}, true},
		{"sed -i '1e touch o' f", []string{"f"}, true},
		{"sed 's/a/b/e' f", nil, true},
		{"sed -e p -e 'W o' f", nil, true},
		{"sed -f s.sed f", nil, true},
		{"sed --sandbox -f s.sed f", nil, false},
		{"sed -i 's/a/b/g; /x/d' f", []string{"f"}, false},
		{"sed -n 1,5p f", nil, false},
		// find's own actions that write a file. Were no writes.
		{"find . -fprint o", []string{"o"}, false},
		{"find . -name x -fprint0 o", []string{"o"}, false},
		{"find . -fls o -o -fprintf p %p", []string{"o", "p"}, false},
		{"find . -exec echo -fprint o ';'", nil, false}, // echo's words
		{"find . $a o", nil, true},                      // $a may be -fprint
		{`find . -name "$n" -fprint o`, []string{"o"}, true},
		{`find . -name "$n"`, nil, false},
		{"find . -name $n", nil, true}, // split, it may be -fprint o
		// git lfs install, uninstall and update write the global
		// configuration and the repository's hooks. Were no writes.
		{"git lfs install", []string{"~/.config/git/config", "~/.gitconfig"}, true},
		{"git lfs install --local", []string{"~/.config/git/config", "~/.gitconfig"}, true},
		{"git lfs update", []string{"~/.config/git/config", "~/.gitconfig"}, true},
		{"git lfs ls-files", nil, false},
		// mktemp makes the file its template names, where -p or
		// --tmpdir= say, else where TMPDIR does. Were no writes.
		{"mktemp", nil, true},
		{"mktemp /o/aXXX", []string{"/o/aXXX"}, false},
		{"mktemp -d b/tmp.XXXX", []string{"b/tmp.XXXX"}, false},
		{"mktemp -p /o", []string{"/o/tmp.XXXXXXXXXX"}, false},
		{"mktemp -p/o aXXX --suffix=.go", []string{"/o/aXXX.go"}, false},
		{"mktemp --tmpd=/o aXXX", []string{"/o/aXXX"}, false},
		{"mktemp --tmpdir aXXX", nil, true},
		{"mktemp -t aXXX", nil, true},
		{"mktemp -p d -t aXXX", nil, true},
		{"mktemp -u /o/aXXX", nil, false},
		{"mktemp --d /o/aXXX", nil, true}, // ambiguous
		{"mktemp -x", nil, true},
		// gofmt -w and goimports -w rewrite their operands; go's -o and
		// test profiles, and go env -w's file. Were no writes.
		{"gofmt -w a.go d", []string{"a.go", "d"}, false},
		{"gofmt -l --w=true -s a.go", []string{"a.go"}, false},
		{"gofmt -w=false a.go", nil, false},
		{"gofmt -l a.go -w", nil, false}, // flags end at the first operand
		{"gofmt -cpuprofile p a.go", []string{"p"}, false},
		{"gofmt -frob -w a.go", nil, true},
		{"gofmt -w \"$f\"", nil, true},
		{"goimports -w -local x a.go", []string{"a.go"}, false},
		{"go build -o o .", []string{"o"}, false},
		{"go test -c --o=o .", []string{"o"}, false},
		{"go test ./... -coverprofile c -run X", []string{"c"}, false},
		{"go test . -args -test.cpuprofile=p", []string{"p"}, false},
		{"go env -w GOFLAGS=-x", []string{"~/.config/go/env"}, false},
		{"go env GOPATH", nil, false},
		{"go test -run X ./...", nil, false},
	} {
		s, err := Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		dynamic := false
		for _, c := range s.Commands {
			ts, dyn := c.Writes()
			dynamic = dynamic || dyn || c.DataWrites() != ""
			for _, w := range ts {
				got = append(got, w.Value)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || dynamic != tc.dynamic {
			t.Errorf("%s: Writes = %q, dynamic %v; want %q, %v", tc.src, got, dynamic, tc.want, tc.dynamic)
		}
	}
}
