package perm

import (
	"os"
	"testing"
)

// TestRedTeamWriterOptions: a writer an allow rule (or a session grant)
// covers writes outside the workspace only with a person's say-so; the
// files it writes are read from its options as the program reads them.
// Each row was Allow (the written file was not among the command's
// write targets).
func TestRedTeamWriterOptions(t *testing.T) {
	f := newFixture(t)
	out := f.outside + "/data"
	var cases []redCase
	for _, m := range []Mode{ModeDefault, ModeAcceptEdits} {
		pol := func(rule string) func(*Policy) { return all(allow(rule), mode(m)) }
		chmod, chown, chgrp := pol("Bash(chmod:*)"), pol("Bash(chown:*)"), pol("Bash(chgrp:*)")
		sed := pol("Bash(sed:*)")
		curl, wget := pol("Bash(curl:*)"), pol("Bash(wget:*)")
		cases = append(cases,
			// chmod takes a mode in an option word for the mode, and
			// every operand is then a file.
			redCase{string(m) + ": chmod -w", chmod, bashReq("chmod -w " + out), Ask, 7},
			// gofmt -w and goimports -w rewrite their operands, go
			// build -o and go test -c -o write their binary, go env
			// -w the user's go env file.
			redCase{string(m) + ": gofmt -w", pol("Bash(gofmt:*)"), bashReq("gofmt -w " + out), Ask, 7},
			// mktemp makes a file where its template or TMPDIR says.
			redCase{string(m) + ": mktemp outside", pol("Bash(mktemp:*)"), bashReq("mktemp " + f.outside + "/aXXXXXX"), Ask, 7},
			redCase{string(m) + ": mktemp -p outside", pol("Bash(mktemp:*)"), bashReq("mktemp -d -p " + f.outside), Ask, 7},
			redCase{string(m) + ": mktemp in TMPDIR", pol("Bash(mktemp:*)"), bashReq("mktemp"), Ask, 2},
			redCase{string(m) + ": mktemp in the workspace", pol("Bash(mktemp:*)"), bashReq("mktemp -p src aXXXXXX"), Allow, 0},
			redCase{string(m) + ": goimports -w", pol("Bash(goimports:*)"), bashReq("goimports -w " + out), Ask, 7},
			redCase{string(m) + ": go build -o", pol("Bash(go:*)"), bashReq("go build -o " + out + " ."), Ask, 7},
			redCase{string(m) + ": go test -c -o", pol("Bash(go:*)"), bashReq("go test -c -o=" + out + " ."), Ask, 7},
			redCase{string(m) + ": go env -w", pol("Bash(go:*)"), bashReq("go env -w GOFLAGS=-toolexec=" + out), Ask, 7},
			redCase{string(m) + ": gofmt -w in the workspace", pol("Bash(gofmt:*)"), bashReq("gofmt -l -w src"), Allow, 0},
			redCase{string(m) + ": go build -o in the workspace", pol("Bash(go:*)"), bashReq("go build -o bin/x ./src"), Allow, 0},
			redCase{string(m) + ": chmod -w,u+x", chmod, bashReq("chmod -w,u+x " + out), Ask, 7},
			redCase{string(m) + ": chmod -R -w", chmod, bashReq("chmod -R -w " + f.outside), Ask, 7},
			// --reference gives the mode or owner: no operand is one.
			redCase{string(m) + ": chmod --reference", chmod, bashReq("chmod --reference=src/a.go " + out), Ask, 7},
			redCase{string(m) + ": chmod --ref", chmod, bashReq("chmod --ref src/a.go " + out), Ask, 7},
			redCase{string(m) + ": chown --reference", chown, bashReq("chown --reference=src/a.go " + out), Ask, 7},
			redCase{string(m) + ": chgrp --reference", chgrp, bashReq("chgrp --reference=src/a.go " + out), Ask, 7},
			// Still the mode: the operands after it are the files.
			redCase{string(m) + ": chmod MODE in the workspace", chmod, bashReq("chmod u+x src/a.go"), Allow, 0},
			redCase{string(m) + ": chmod -R MODE in the workspace", chmod, bashReq("chmod -R go-w src"), Allow, 0},
			redCase{string(m) + ": chmod -- -w in the workspace", chmod, bashReq("chmod -- -w src/a.go"), Allow, 0},
			redCase{string(m) + ": chown OWNER in the workspace", chown, bashReq("chown me src/a.go"), Allow, 0},
			// sed -i renames the file to its backup's name, where the
			// suffix says (each "*" the file's name).
			redCase{string(m) + ": sed -i backup elsewhere", sed, bashReq("sed -i'" + f.outside + "/*' s/x/y/ src/a.go"), Ask, 7},
			redCase{string(m) + ": sed -i backup names a dotfile", sed, bashReq("sed -irc s/x/y/ .bash"), Ask, 2},
			redCase{string(m) + ": sed --in-place= backup names a dotfile", sed, bashReq("sed --in-place=nv s/x/y/ .e"), Ask, 2},
			redCase{string(m) + ": sed -i --follow-symlinks backup", sed, bashReq("sed -i.b --follow-symlinks s/x/y/ src/a.go"), Ask, 2},
			// -E is a flag: the script is the operand after it.
			redCase{string(m) + ": sed -i -E", sed, bashReq("sed -i -E s/x/y/ " + out), Ask, 7},
			redCase{string(m) + ": sed -iE", sed, bashReq("sed -iE s/x/y/ " + out), Ask, 7},
			// --in abbreviates --in-place.
			redCase{string(m) + ": sed --in", sed, bashReq("sed --in s/x/y/ " + out), Ask, 7},
			// A script's w file and e command.
			redCase{string(m) + ": sed w", sed, bashReq("sed -n 'w " + out + "' src/a.go"), Ask, 2},
			redCase{string(m) + ": sed -i s///w", sed, bashReq("sed -i 's/x/y/w " + out + "' src/a.go"), Ask, 2},
			redCase{string(m) + ": sed e", sed, bashReq("sed '1e touch " + out + "' src/a.go"), Ask, 2},
			redCase{string(m) + ": sed -f", sed, bashReq("sed -i -f s.sed src/a.go"), Ask, 2},
			redCase{string(m) + ": sed --sandbox -f", sed, bashReq("sed --sandbox -i -f s.sed src/a.go"), Allow, 0},
			redCase{string(m) + ": sed -i.bak in the workspace", sed, bashReq("sed -i.bak s/x/y/ src/a.go"), Allow, 0},
			redCase{string(m) + ": sed -E -i in the workspace", sed, bashReq("sed -E -i s/x/y/ src/a.go"), Allow, 0},
			// curl and wget write more files than -o's and -O's, and
			// some whose names the URL or the server gives.
			redCase{string(m) + ": curl -c", curl, bashReq("curl -c " + out + " https://h"), Ask, 7},
			redCase{string(m) + ": curl -D", curl, bashReq("curl -D " + out + " https://h"), Ask, 7},
			redCase{string(m) + ": curl --trace", curl, bashReq("curl --trace " + out + " https://h"), Ask, 7},
			redCase{string(m) + ": curl --stderr", curl, bashReq("curl --stderr " + out + " https://h"), Ask, 7},
			redCase{string(m) + ": curl --output-dir", curl, bashReq("curl --output-dir " + f.outside + " -o d https://h"), Ask, 2},
			redCase{string(m) + ": curl -OJ", curl, bashReq("curl -OJ https://h/x"), Ask, 2},
			redCase{string(m) + ": curl -o URL glob", curl, bashReq("curl -o '#1rc' 'https://h/{.bash}'"), Ask, 2},
			redCase{string(m) + ": curl --out", curl, bashReq("curl --out " + out + " https://h"), Ask, 2},
			redCase{string(m) + ": curl -K", curl, bashReq("curl -K cfg https://h"), Ask, 2},
			redCase{string(m) + ": wget -o", wget, bashReq("wget -o " + out + " -O o https://h"), Ask, 7},
			redCase{string(m) + ": wget -P", wget, bashReq("wget -P " + f.outside + " https://h"), Ask, 2},
			redCase{string(m) + ": wget -e", wget, bashReq("wget -e output_document=" + out + " https://h"), Ask, 2},
			redCase{string(m) + ": wget --content-disposition", wget, bashReq("wget --content-disposition https://h/x"), Ask, 2},
			redCase{string(m) + ": curl -o in the workspace", curl, bashReq("curl -fsSL -o src/b.go https://h"), Allow, 0},
			redCase{string(m) + ": curl to stdout", curl, bashReq("curl -sS https://h"), Allow, 0},
			redCase{string(m) + ": wget -O in the workspace", wget, bashReq("wget -q -O src/b.go https://h"), Allow, 0},
		)
	}
	// git maintenance writes the user's git configuration (and a
	// scheduler's jobs that run git there), git credential the stored
	// credentials. Were Allow.
	git := allow("Bash(git:*)")
	cases = append(cases,
		redCase{"git maintenance register", git, bashReq("git maintenance register"), Ask, 2},
		redCase{"git maintenance start", all(git, mode(ModeAcceptEdits)), bashReq("git -C src maintenance start"), Ask, 2},
		redCase{"git credential approve", git, bashReq("git credential approve"), Ask, 2},
		redCase{"git lfs install", git, bashReq("git lfs install"), Ask, 2},
		redCase{"git lfs update", all(git, mode(ModeAcceptEdits)), bashReq("git lfs update"), Ask, 2},
		redCase{"git credential-store store", git, bashReq("git credential-store --file=c store"), Ask, 2},
		// git's other output files and directories.
		redCase{"git fast-export --export-marks", git, bashReq("git fast-export --export-marks=" + out + " HEAD"), Ask, 7},
		redCase{"git pack-objects", all(git, mode(ModeAcceptEdits)), bashReq("git pack-objects " + f.outside + "/p"), Ask, 7},
		redCase{"git bugreport -o", all(git, mode(ModeAcceptEdits)), bashReq("git bugreport -o " + f.outside), Ask, 7},
		redCase{"git daemon --pid-file", git, bashReq("git daemon --pid-file=" + out), Ask, 7},
		redCase{"git init-db", all(git, mode(ModeAcceptEdits)), bashReq("git init-db " + f.outside + "/r"), Ask, 7},
		redCase{"git init-db --template", all(git, mode(ModeAcceptEdits)), bashReq("git init-db --template=t"), Ask, 2},
		// submodule add writes .gitmodules (protected) and the clone.
		redCase{"git submodule add", all(git, mode(ModeAcceptEdits)), bashReq("git submodule add https://h/r sub"), Ask, 2},
		redCase{"git submodule add, default", git, bashReq("git submodule add https://h/r sub"), Ask, 2},
		redCase{"git maintenance run", git, bashReq("git maintenance run"), Allow, 6},
		redCase{"git credential fill", git, bashReq("git credential fill"), Allow, 6},
	)
	// tar writes the archive it makes or changes. Were Allow.
	tar := allow("Bash(tar:*)")
	cases = append(cases,
		redCase{"tar -czf outside", tar, bashReq("tar -czf " + f.outside + "/z.tgz src"), Ask, 7},
		redCase{"tar czf outside", all(tar, mode(ModeAcceptEdits)), bashReq("tar czf " + f.outside + "/z.tgz src"), Ask, 7},
		redCase{"tar -rf outside", tar, bashReq("tar -rf " + f.outside + "/z.tar src/a.go"), Ask, 7},
		redCase{"tar -cf host:file", tar, bashReq("tar -cf h:/z src"), Ask, 2},
		redCase{"tar -czf in the workspace", tar, bashReq("tar -czf z.tgz src"), Allow, 6},
		redCase{"tar -czf in the workspace, acceptEdits", all(tar, mode(ModeAcceptEdits)), bashReq("tar -czf z.tgz src"), Allow, 7},
	)
	// find replaces {} with each path it finds, and runs -execdir's
	// command in that path's directory. Were Allow: {} and x were read
	// as files in the current directory.
	find := allow("Bash(find:*)")
	cases = append(cases,
		redCase{"find -exec rm {}", all(find, mode(ModeAcceptEdits)), bashReq("find " + f.outside + " -exec rm {} +"), Ask, 2},
		redCase{"find -exec rm {}, default", find, bashReq("find " + f.outside + " -exec rm {} +"), Ask, 2},
		redCase{"find -execdir touch x", all(find, mode(ModeAcceptEdits)), bashReq("find " + f.outside + " -execdir touch x ';'"), Ask, 2},
		redCase{"find -exec touch {}/x", all(find, mode(ModeAcceptEdits)), bashReq("find " + f.outside + " -exec touch {}/x ';'"), Ask, 2},
		redCase{"find -exec grep {}", all(find, mode(ModeAcceptEdits)), bashReq("find . -exec grep -l x {} +"), Allow, 6},
		// find's -fprint, -fprint0, -fls and -fprintf write a file.
		redCase{"find -fprint", find, bashReq("find . -fprint " + out), Ask, 7},
		redCase{"find -fls", all(find, mode(ModeAcceptEdits)), bashReq("find . -fls " + out), Ask, 7},
		redCase{"find -fprintf", all(find, mode(ModeAcceptEdits)), bashReq("find . -fprintf " + out + " %p"), Ask, 7},
		redCase{"find -fprint in the workspace", all(find, mode(ModeAcceptEdits)), bashReq("find src -fprint list.txt"), Allow, 7},
	)
	// cp --parents puts ../x at DEST/../x, where the kernel follows the
	// link DEST is before the "..": with src/up a link to "..", that is
	// beside the workspace. Was Allow (DEST/../x cleaned to src/x).
	if err := os.Symlink("..", f.root+"/src/up"); err != nil {
		t.Fatal(err)
	}
	cpRule := allow("Bash(cp:*)")
	cases = append(cases,
		redCase{"cp --parents through a link", all(cpRule, mode(ModeAcceptEdits)), bashReq("cd src && cp --parents ../x.pem up/"), Ask, 7},
		redCase{"cp --parents through a link, default", cpRule, bashReq("cd src && cp --parents ../x.pem up/"), Ask, 7},
		redCase{"cp --parents in the workspace", all(cpRule, mode(ModeAcceptEdits)), bashReq("cp --parents src/a.go secrets/"), Allow, 7},
	)
	// jar, 7z and ar write the archive they make or change. Were Allow.
	cases = append(cases,
		redCase{"jar cf outside", allow("Bash(jar:*)"), bashReq("jar cf " + f.outside + "/z.jar src"), Ask, 7},
		redCase{"7z a outside", all(allow("Bash(7z:*)"), mode(ModeAcceptEdits)), bashReq("7z a " + f.outside + "/z.7z src"), Ask, 7},
		redCase{"ar rcs outside", allow("Bash(ar:*)"), bashReq("ar rcs " + f.outside + "/z.a src/a.go"), Ask, 7},
		redCase{"jar cf in the workspace", all(allow("Bash(jar:*)"), mode(ModeAcceptEdits)), bashReq("jar cf z.jar src"), Allow, 7},
	)
	// rsync copies what the source tree holds then. Was Allow.
	cases = append(cases,
		redCase{"rsync a tree", all(allow("Bash(rsync:*)"), mode(ModeAcceptEdits)), bashReq("rsync -a " + f.outside + "/ src/"), Ask, 2},
		redCase{"rsync outside", allow("Bash(rsync:*)"), bashReq("rsync src/a.go " + f.outside + "/"), Ask, 2},
		redCase{"rsync lists", allow("Bash(rsync:*)"), bashReq("rsync -r src/"), Allow, 6},
	)
	// wget names the file from the URL, decoded: %2ebashrc is .bashrc,
	// which no word names. Was Allow even in bypassPermissions mode.
	cases = append(cases,
		redCase{"wget: URL names a dotfile", allow("Bash(wget:*)"), bashReq("wget http://h/%2ebashrc"), Ask, 2},
		redCase{"wget: URL names a dotfile, bypass", mode(ModeBypass), bashReq("wget http://h/%2ebashrc"), Ask, 2},
	)
	runRed(t, f, cases)
}

// TestRedTeamProgramOptions: an option that names a program for the
// allowed program to run runs code no rule has seen. Each row was Allow.
func TestRedTeamProgramOptions(t *testing.T) {
	f := newFixture(t)
	evil := f.outside + "/evil"
	var cases []redCase
	for _, m := range []Mode{ModeDefault, ModeAcceptEdits} {
		pol := func(rule string) func(*Policy) { return all(allow(rule), mode(m)) }
		sort, install, tar := pol("Bash(sort:*)"), pol("Bash(install:*)"), pol("Bash(tar:*)")
		cases = append(cases,
			redCase{string(m) + ": tar -I listing", tar, bashReq("tar -I " + evil + " -tf a.tar"), Ask, 2},
			redCase{string(m) + ": tar --use-compress-program listing", tar, bashReq("tar --use-compress-program=" + evil + " -tf a.tar"), Ask, 2},
			redCase{string(m) + ": tar --checkpoint-action listing", tar, bashReq("tar --checkpoint-action=exec=" + evil + " -tf a.tar"), Ask, 2},
			redCase{string(m) + ": tar listing", tar, bashReq("tar -tzf a.tar"), Allow, 0},
			// rsync with one operand on another host runs -e's shell;
			// scp copies as rsync does, and runs -S's program.
			redCase{string(m) + ": rsync --rsh listing", pol("Bash(rsync:*)"), bashReq("rsync --rsh=" + evil + " host:"), Ask, 2},
			redCase{string(m) + ": rsync -e listing", pol("Bash(rsync:*)"), bashReq("rsync -e" + evil + " host:d"), Ask, 2},
			redCase{string(m) + ": scp to outside", pol("Bash(scp:*)"), bashReq("scp host:f " + f.outside + "/o"), Ask, 2},
			redCase{string(m) + ": scp -S", pol("Bash(scp:*)"), bashReq("scp -S " + evil + " src/a.go host:"), Ask, 2},
			// zip's archive is a write target; -TT runs a command.
			redCase{string(m) + ": zip outside", pol("Bash(zip:*)"), bashReq("zip -r " + f.outside + "/o.zip src"), Ask, 7},
			redCase{string(m) + ": zip -TT", pol("Bash(zip:*)"), bashReq("zip -T -TT " + evil + " o.zip src/a.go"), Ask, 2},
			redCase{string(m) + ": zip --unzip-command", pol("Bash(zip:*)"), bashReq("zip o.zip src/a.go --unzip-command " + evil), Ask, 2},
			redCase{string(m) + ": zip in the workspace", pol("Bash(zip:*)"), bashReq("zip -qr o.zip src -x '*.o'"), Allow, 0},
			redCase{string(m) + ": git --exec-path", pol("Bash(git:*)"), bashReq("git --exec-path=" + f.outside + " status"), Ask, 2},
			redCase{string(m) + ": git status", pol("Bash(git:*)"), bashReq("git -C src status"), Allow, 0},
			redCase{string(m) + ": sort --compress-program", sort, bashReq("sort --compress-program=" + evil + " src/a.go"), Ask, 2},
			redCase{string(m) + ": sort --compress", sort, bashReq("sort -S 1 --compress " + evil + " src/a.go"), Ask, 2},
			redCase{string(m) + ": install --strip-program", install, bashReq("install -s --strip-program=" + evil + " src/a.go src/b"), Ask, 2},
			redCase{string(m) + ": sort in the workspace", sort, bashReq("sort -rn -k2 -t, src/a.go"), Allow, 0},
			redCase{string(m) + ": install in the workspace", install, bashReq("install -m 644 src/a.go src/b"), Allow, 0},
		)
	}
	runRed(t, f, cases)
}
