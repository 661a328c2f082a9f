package perm

import "testing"

// TestRedTeamProgramSpellings: other names a denied command line goes by.
// Each was Allow in bypassPermissions mode.
func TestRedTeamProgramSpellings(t *testing.T) {
	f := newFixture(t)
	push := all(deny("Bash(git push:*)"), mode(ModeBypass))
	publish := all(deny("Bash(npm publish:*)"), mode(ModeBypass))
	install := all(deny("Bash(npm install:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		// git runs git-SUB from its exec-path; the dashed program is
		// the subcommand (/usr/libexec/git-core on Fedora and macOS).
		{"git dashed: bare", push, bashReq("git-push origin main"), Deny, 1},
		{"git dashed: exec-path", push, bashReq("/usr/libexec/git-core/git-push origin"), Deny, 1},
		{"git dashed: other subcommand", push, bashReq("git-status"), Allow, 3},
		// npm takes a unique prefix of a command or an alias for it,
		// and its options before the command.
		{"npm: abbreviated", publish, bashReq("npm pub"), Deny, 1},
		{"npm: abbreviated further", publish, bashReq("npm pu --tag x"), Deny, 1},
		{"npm: option before the command", publish, bashReq("npm --workspace x publish"), Deny, 1},
		{"npm: option with a value before an abbreviation", publish, bashReq("npm -w x publ"), Deny, 1},
		{"npm: flag before the command", publish, bashReq("npm --dry-run publish"), Deny, 1},
		{"npm: by path", publish, bashReq("/usr/bin/npm pub"), Deny, 1},
		{"npm: alias", install, bashReq("npm i left-pad"), Deny, 1},
		{"npm: alias abbreviated", install, bashReq("npm isnt left-pad"), Deny, 1},
		{"npm: camelCase", all(deny("Bash(npm install-test:*)"), mode(ModeBypass)), bashReq("npm installTest"), Deny, 1},
		{"npm: another command", publish, bashReq("npm run publish"), Allow, 3},
		{"npm: another abbreviation", install, bashReq("npm installTest"), Allow, 3},
	})
}

// TestRedTeamGlobalOptions: a rule naming a subcommand matches it after
// the program's global options, whichever program it is. Each was Allow
// in bypassPermissions mode.
func TestRedTeamGlobalOptions(t *testing.T) {
	f := newFixture(t)
	rules := all(deny("Bash(docker run:*)", "Bash(kubectl delete:*)", "Bash(cargo publish:*)", "Bash(terraform apply:*)", "Bash(helm uninstall:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"global options: option with a value", rules, bashReq("docker --context x run img"), Deny, 1},
		{"global options: short option with a value", rules, bashReq("kubectl -n x delete pod p"), Deny, 1},
		{"global options: option=value", rules, bashReq("kubectl --namespace=x delete pod p"), Deny, 1},
		{"global options: flag", rules, bashReq("cargo --locked publish"), Deny, 1},
		{"global options: toolchain", rules, bashReq("cargo +nightly publish"), Deny, 1},
		{"global options: -chdir=", rules, bashReq("terraform -chdir=x apply"), Deny, 1},
		{"global options: several", rules, bashReq("helm --debug -n x uninstall r"), Deny, 1},
		{"global options: a word not static", rules, bashReq(`docker "$opt" run img`), Deny, 1},
		{"global options: another subcommand", rules, bashReq("kubectl -n x get pods"), Allow, 3},
		{"global options: a path after them", rules, bashReq("kubectl -n x ./delete"), Allow, 3},
	})
}

// TestRedTeamSubcommandGroups: a rule naming a subcommand matches it in a
// group of subcommands, the word after the first operand. Each was Allow
// in bypassPermissions mode.
func TestRedTeamSubcommandGroups(t *testing.T) {
	f := newFixture(t)
	rules := all(deny("Bash(docker run:*)", "Bash(docker push:*)", "Bash(podman rm:*)"), mode(ModeBypass))
	askDelete := all(ask("Bash(kubectl delete:*)"), allow("Bash(kubectl:*)"))
	push := all(deny("Bash(git push:*)", "Bash(npm publish:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"group: docker container run", rules, bashReq("docker container run img"), Deny, 1},
		{"group: docker image push", rules, bashReq("docker image push img"), Deny, 1},
		{"group: after global options", rules, bashReq("docker -H x container run img"), Deny, 1},
		{"group: options between", rules, bashReq("podman container --log-level debug rm c"), Deny, 1},
		{"group: ask rule", askDelete, bashReq("kubectl x delete pod p"), Ask, 5},
		{"group: ask rule, another subcommand", askDelete, bashReq("kubectl x get pod p"), Allow, 6},
		// The word after the first operand may be a subcommand of a
		// group whichever the first operand is: docker ps takes none.
		{"group: after any first operand", rules, bashReq("docker --context x ps run"), Deny, 1},
		{"group: a third operand is no subcommand", rules, bashReq("docker container ls run"), Allow, 3},
		// git and npm are read by their own grammar: a word after
		// their subcommand is not one.
		{"group: git stash push", push, bashReq("git stash push"), Allow, 3},
		{"group: npm run publish", push, bashReq("npm run publish"), Allow, 3},
		{"group: git by path", push, bashReq("/usr/bin/git stash push"), Allow, 3},
	})
}

// TestRedTeamSplitWrites: split and csplit write files named by a prefix
// and a suffix the gate does not work out. Was Allow in bypassPermissions
// mode under Edit(./.env): split -a1 -b1 x .en writes .env as its 22nd
// piece.
func TestRedTeamSplitWrites(t *testing.T) {
	f := newFixture(t)
	env := all(deny("Edit(./.env)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"split: prefix and suffix", env, bashReq("split -a1 -b1 src/a.go .en"), Ask, 2},
		{"split: sensitive file", mode(ModeBypass), bashReq("split -a1 -b1 src/a.go .bashr"), Ask, 2},
		{"csplit: prefix", env, bashReq("csplit -f .en src/a.go 1"), Ask, 2},
	})
}

// TestRedTeamCompressorWrites: a compression program writes the name it
// compresses or decompresses to and removes its input. Was Allow in
// bypassPermissions mode under Edit(./src/a.go): gunzip src/a.go.gz wrote
// src/a.go, a name the command never spells.
func TestRedTeamCompressorWrites(t *testing.T) {
	f := newFixture(t)
	edit := all(deny("Edit(./src/a.go)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"gunzip: output", edit, bashReq("gunzip src/a.go.gz"), Deny, 1},
		{"gzip -d: output", edit, bashReq("gzip -d src/a.go.gz"), Deny, 1},
		{"xz -d: output", edit, bashReq("xz -dk src/a.go.xz"), Deny, 1},
		{"unzstd: output", edit, bashReq("unzstd src/a.go.zst"), Deny, 1},
		{"zstd -o: output", edit, bashReq("zstd -d x.zst -o src/a.go"), Deny, 1},
		{"bunzip2: output", edit, bashReq("bunzip2 -- src/a.go.bz2"), Deny, 1},
		{"brotli: output", edit, bashReq("brotli --decompress src/a.go.br"), Deny, 1},
		{"gzip: input removed", edit, bashReq("gzip src/a.go"), Deny, 1},
		{"gunzip: to stdout", edit, bashReq("gunzip -c src/a.go.gz"), Allow, 3},
		{"gunzip: another file", edit, bashReq("gunzip src/b.go.gz"), Allow, 3},
		{"gunzip: recursive", edit, bashReq("gunzip -r src"), Ask, 2},
	})
}

// TestRedTeamRenameWrites: rename makes new names from an expression or
// a substitution. Was Allow in bypassPermissions mode under
// Edit(./src/a.go): rename s/b/a/ src/b.go writes src/a.go.
func TestRedTeamRenameWrites(t *testing.T) {
	f := newFixture(t)
	edit := all(deny("Edit(./src/a.go)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"rename: perl expression", edit, bashReq("rename s/b/a/ src/b.go"), Ask, 2},
		{"rename: util-linux substitution", edit, bashReq("rename b.go a.go src/b.go"), Ask, 2},
		{"prename: perl expression", edit, bashReq("prename 's/b\\.go/a.go/' src/b.go"), Ask, 2},
	})
}
