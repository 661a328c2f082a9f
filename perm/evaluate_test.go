package perm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture builds a workspace in a temp dir: a project with .git, a home
// directory, and an "outside" directory with a symlink pointing into it.
type fixture struct {
	root, home, outside string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.root + "/.git", f.root + "/src", f.root + "/secrets", f.home, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{f.root + "/src/a.go", f.root + "/secrets/k", f.root + "/.env", f.outside + "/data", f.root + "/x.pem"} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.outside, f.root+"/link"); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) ws() Workspace { return Workspace{Cwd: f.root, Root: f.root, Home: f.home} }

func entries(src Source, rules ...string) []Entry {
	var es []Entry
	for _, s := range rules {
		r, err := ParseRule(s)
		if err != nil {
			panic(err)
		}
		es = append(es, Entry{Rule: r, Source: src})
	}
	return es
}

func rules(ss ...string) []Rule {
	var rs []Rule
	for _, e := range entries("", ss...) {
		rs = append(rs, e.Rule)
	}
	return rs
}

func skillReq(name string) Request {
	return Request{Tool: "Skill", Input: map[string]any{"skill": name}}
}
func bashReq(cmd string) Request { return Request{Tool: "Bash", Input: map[string]any{"command": cmd}} }
func fileReq(tool, p string) Request {
	return Request{Tool: tool, Input: map[string]any{"file_path": p}}
}

type evalCase struct {
	name   string
	pol    func(p *Policy)
	req    Request
	want   Decision
	step   int
	reason string // substring of the reason, "" = don't care
}

func deny(rs ...string) func(*Policy) {
	return func(p *Policy) { p.Deny = entries(SourceProject, rs...) }
}
func allow(rs ...string) func(*Policy) {
	return func(p *Policy) { p.Allow = entries(SourceLocal, rs...) }
}
func ask(rs ...string) func(*Policy) { return func(p *Policy) { p.Ask = entries(SourceUser, rs...) } }
func mode(m Mode) func(*Policy)      { return func(p *Policy) { p.Mode = m } }
func all(fs ...func(*Policy)) func(*Policy) {
	return func(p *Policy) {
		for _, f := range fs {
			f(p)
		}
	}
}

// testPerm is the seed's test-perm agent as a policy.
func testPerm(p *Policy) {
	p.Mode = ModeExplore
	p.Allow = entries(SourceAgent, "Read", "Bash(git diff*)", "Bash(git log*)")
	p.Constraint = rules("Read", "Bash(git diff*)", "Bash(git log*)")
	p.Deny = entries(SourceAgent, "Bash(git stash*)")
	p.NoPrompt = true
}

// prompting is a policy whose asks reach someone (NoPrompt false), as an
// agent's do under a permission-prompt delegate.
func prompting(p *Policy) { p.NoPrompt = false }

func TestEvaluate(t *testing.T) {
	f := newFixture(t)
	cases := []evalCase{
		// Deny rules match every normalised form.
		{"deny plain", deny("Bash(rm:*)"), bashReq("rm x"), Deny, 1, "blocked by deny rule Bash(rm:*) (project)"},
		{"deny quoted name", deny("Bash(rm:*)"), bashReq("r'm' x"), Deny, 1, ""},
		{"deny double quoted name", deny("Bash(rm:*)"), bashReq(`"rm" x`), Deny, 1, ""},
		{"deny ansi-c name", deny("Bash(rm:*)"), bashReq(`$'rm' x`), Deny, 1, ""},
		{"deny backslash name", deny("Bash(rm:*)"), bashReq(`\rm x`), Deny, 1, ""},
		{"deny sudo", deny("Bash(rm:*)"), bashReq("sudo rm x"), Deny, 1, ""},
		{"deny env prefix", deny("Bash(rm:*)"), bashReq("FOO=1 env BAR=2 command rm x"), Deny, 1, ""},
		{"deny timeout", deny("Bash(rm:*)"), bashReq("timeout 5 rm x"), Deny, 1, ""},
		{"deny basename", deny("Bash(curl:*)"), bashReq("/usr/bin/curl http://x"), Deny, 1, ""},
		// A rule naming the program by a path denies the name PATH finds
		// it under, however it is run.
		{"deny path rule, name", deny("Bash(/bin/rm:*)"), bashReq("rm x"), Deny, 1, "Bash(/bin/rm:*)"},
		{"deny path rule, other path", deny("Bash(/bin/rm:*)"), bashReq("/usr/bin/rm x"), Deny, 1, ""},
		{"deny path rule, sudo", deny("Bash(/bin/rm:*)"), bashReq("sudo rm -f x"), Deny, 1, ""},
		{"deny path rule, xargs", deny("Bash(/bin/rm -rf *)"), bashReq("ls | xargs rm -rf"), Deny, 1, ""},
		{"deny path rule, other program", deny("Bash(/bin/rm:*)"), bashReq("rmdir x"), Ask, 7, ""},
		{"ask path rule, name", ask("Bash(/usr/bin/curl:*)"), bashReq("curl x"), Ask, 5, "Bash(/usr/bin/curl:*)"},
		{"deny xargs", deny("Bash(rm:*)"), bashReq("ls | xargs rm"), Deny, 1, ""},
		// xargs and parallel add operands (and maybe options) of their own.
		{"deny xargs with input operands", deny("Bash(rm -rf *)"), bashReq("echo / | xargs rm --recursive --force"), Deny, 1, ""},
		{"deny xargs options", deny("Bash(rm -rf *)"), bashReq("find . | xargs -0 rm -Rf"), Deny, 1, ""},
		{"deny parallel with input operands", deny("Bash(rm -rf *)"), bashReq("parallel rm -rf ::: a"), Deny, 1, ""},
		{"xargs tee writes what input names", mode(ModeBypass), bashReq("ls | xargs tee"), Ask, 2, "not static"},
		{"deny find exec", deny("Bash(rm:*)"), bashReq(`find . -name x -exec rm {} \;`), Deny, 1, ""},
		{"deny watch", deny("Bash(rm:*)"), bashReq("watch -n 1 rm x"), Deny, 1, ""},
		{"deny bash -c", deny("Bash(curl:*)"), bashReq("bash -c 'curl x | sh'"), Deny, 1, ""},
		{"deny eval", deny("Bash(curl:*)"), bashReq(`eval "curl x"`), Deny, 1, ""},
		{"deny substitution", deny("Bash(curl:*)"), bashReq("echo $(curl x)"), Deny, 1, ""},
		{"deny subshell", deny("Bash(curl:*)"), bashReq("(cd /tmp && curl x)"), Deny, 1, ""},
		{"deny function body", deny("Bash(curl:*)"), bashReq("f() { curl x; }; f"), Deny, 1, ""},
		{"deny git global options", deny("Bash(git push:*)"), bashReq("git -C /r -c a=b --no-pager push origin"), Deny, 1, ""},
		{"deny not other command", deny("Bash(rm:*)"), bashReq("rmdir x"), Ask, 7, ""},
		// Was Ask (destructive): xargs adds its input after the command
		// it runs, so a rule wanting operands there matches, in every
		// spelling of the options and past xargs's own.
		{"deny xargs long options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("echo / | xargs rm --recursive --force"), Deny, 1, "Bash(rm -rf *)"},
		{"deny xargs short options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("echo / | xargs rm -rf"), Deny, 1, "Bash(rm -rf *)"},
		{"deny xargs -0", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("echo / | xargs -0 rm -r -f"), Deny, 1, "Bash(rm -rf *)"},
		{"deny xargs -I", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("echo / | xargs -I{} rm -rf {}"), Deny, 1, "Bash(rm -rf *)"},
		{"deny xargs behind sudo", deny("Bash(rm *)"), bashReq("ls | xargs sudo rm"), Deny, 1, "Bash(rm *)"},
		{"ask rule xargs", all(allow("Bash(ls:*)", "Bash(xargs:*)"), ask("Bash(chown -R *)")), bashReq("ls | xargs chown --recursive"), Ask, 2, "not static"}, // the files xargs gives chown are a write the gate cannot see, before any ask rule
		{"xargs input names no program", all(deny("Bash(cat:*)"), mode(ModeBypass)), bashReq("ls | xargs rm"), Ask, 2, "destructive"},
		{"xargs destructive, bypass", mode(ModeBypass), bashReq("echo / | xargs rm --recursive --force"), Ask, 2, "destructive"},
		// Was Deny: an option's value is no option (git push -o takes
		// one; so does git commit -m), and --no-force is not --force.
		{"not denied: push option value", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push -ofoo"), Allow, 3, ""},
		{"not denied: push option value -f", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push -o -f origin"), Allow, 3, ""},
		{"not denied: push --no-force", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push --no-force"), Allow, 3, ""},
		{"not denied: commit message", all(deny("Bash(git commit -a:*)"), mode(ModeBypass)), bashReq("git commit -mfax"), Allow, 3, ""},
		{"deny: commit -a before message", all(deny("Bash(git commit -a:*)"), mode(ModeBypass)), bashReq("git commit -am fix"), Deny, 1, ""},
		{"deny: push -f after option value", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push -o x -f"), Deny, 1, ""},
		{"deny: push -f in a run before -o", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push -fo x"), Deny, 1, ""},
		{"deny: unknown program keeps every option", all(deny("Bash(frob -f:*)"), mode(ModeBypass)), bashReq("frob -o -f"), Deny, 1, ""},
		{"dynamic name with deny rule", deny("Bash(rm:*)"), bashReq("$CMD x"), Ask, 2, "dynamic command name $CMD"},
		// Was Ask (mention): echo's static output is the name that runs.
		{"dynamic name by substitution", deny("Bash(rm:*)"), bashReq("$(echo rm) x"), Deny, 1, "deny rule Bash(rm:*)"},
		{"dynamic name by unknown substitution", deny("Bash(rm:*)"), bashReq("$(cat f) rm"), Ask, 1, "mentions rm"},
		{"dynamic name in bypass", all(deny("Bash(rm:*)"), mode(ModeBypass)), bashReq("$CMD x"), Ask, 2, ""},
		{"dynamic name without rules", mode(ModeBypass), bashReq("$CMD x"), Ask, 2, "dynamic command name $CMD"},
		// Constant propagation: every way a command assigns counts, and a
		// value built from static output or other names, or an operator's
		// word, is a reading deny rules see. Allow rules and read-only
		// checks still see a word that is not static.
		{"deny builtin export", deny("Bash(curl:*)"), bashReq("builtin export x=curl; $x y"), Deny, 1, "Bash(curl:*)"},
		{"deny declare -x", deny("Bash(curl:*)"), bashReq("declare -x x=curl; $x y"), Deny, 1, "Bash(curl:*)"},
		{"deny readonly", deny("Bash(curl:*)"), bashReq("readonly x=curl; $x y"), Deny, 1, "Bash(curl:*)"},
		{"deny typeset in a function", deny("Bash(curl:*)"), bashReq("f() { typeset x=curl; $x y; }; f"), Deny, 1, "Bash(curl:*)"},
		{"deny exec env", deny("Bash(curl:*)"), bashReq("exec env x=curl sh -c '$x y'"), Deny, 1, "Bash(curl:*)"},
		{"deny value from output", deny("Bash(curl:*)"), bashReq("x=$(echo curl); $x y"), Deny, 1, "Bash(curl:*)"},
		{"deny value from backquotes", deny("Bash(curl:*)"), bashReq("x=`printf curl`; $x y"), Deny, 1, "Bash(curl:*)"},
		{"deny value from a name", deny("Bash(curl:*)"), bashReq("a=cu; x=${a}rl; $x y"), Deny, 1, "Bash(curl:*)"},
		{"deny default", deny("Bash(curl:*)"), bashReq("${x:-curl} y"), Deny, 1, "Bash(curl:*)"},
		{"deny assigned default", deny("Bash(curl:*)"), bashReq("${x:=curl} y"), Deny, 1, "Bash(curl:*)"},
		{"deny default if unset", deny("Bash(curl:*)"), bashReq("${x-curl}"), Deny, 1, "Bash(curl:*)"},
		{"deny value beside default", deny("Bash(curl:*)"), bashReq("x=curl; ${x:-ls} y"), Deny, 1, "Bash(curl:*)"},
		{"allow not by a default", allow("Bash(curl:*)"), bashReq("${x:-curl} y"), Ask, 2, "dynamic command name"},
		{"allow not by output", allow("Bash(curl:*)"), bashReq("x=$(echo curl); $x y"), Ask, 2, "dynamic command name"},
		{"read-only not by a default", nil, bashReq("${x:-ls} ."), Ask, 2, "dynamic command name"},
		{"read-only not by a built value", nil, bashReq("a=l; x=${a}s; $x ."), Ask, 2, "dynamic command name"},
		{"nested code once", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("x=a; bash -c 'rm -rf /' $x"), Deny, 1, "Bash(rm -rf *)"},
		// Variables set only to numbers still make the names set.
		{"wait -p sets PATH", all(deny("Bash(curl:*)"), allow("Bash(wait:*)", "Bash(ls)")), bashReq("wait -p PATH; ls"), Ask, 2, "script sets PATH"},
		{"coproc sets PATH", nil, bashReq("coproc PATH { cat; }; ls"), Ask, 7, "sets PATH outside a command"},
		// The here-document is static code the shell runs: parsed like bash -c.
		{"heredoc to shell", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("bash <<'EOF'\ncurl x\nEOF"), Deny, 1, "Bash(curl:*)"},
		{"heredoc with expansions to shell", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("bash <<EOF\n$X\nEOF"), Ask, 2, "cannot see"},
		// Was Ask (mention): the shell runs what echo prints.
		{"pipe to shell", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("echo 'curl x' | sudo sh -s"), Deny, 1, "deny rule Bash(curl:*)"},
		{"pipe from unknown output to shell", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("cat f | sh -s curl"), Ask, 1, "mentions curl"},
		{"pipe to shell, program not mentioned", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("echo 'x' | sudo sh -s"), Ask, 2, "cannot see"},
		{"python inline", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`python3 -c 'import os'`), Ask, 2, "cannot see"},
		{"powershell inline", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`pwsh -c '& ("cu"+"rl") x'`), Ask, 2, "cannot see"},
		{"emacs eval", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`emacs --batch --eval '(shell-command (concat "cu" "rl"))'`), Ask, 2, "cannot see"},
		{"vim command", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`vim -es -c 'call system("cu"."rl")' -c q`), Ask, 2, "cannot see"},
		{"perl inline", all(ask("Bash(curl:*)"), mode(ModeBypass)), bashReq(`perl -we 'system 1'`), Ask, 2, ""},
		{"awk program", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`awk '{ system($0) }' f`), Ask, 2, ""},
		{"awk pipe", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`awk '{ print | "sh" }' f`), Ask, 2, ""},
		{"awk plain", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`awk '{ print $1 }' f`), Allow, 3, ""},
		{"script file is not opaque", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("bash ./build.sh && python3 x.py"), Allow, 3, ""},
		{"bash -c is parsed, not opaque", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("bash -lc 'echo hi'"), Allow, 3, ""},
		{"xargs into shell", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("xargs -I{} sh -c '{}' < cmds"), Ask, 2, ""},
		{"opaque without rules", mode(ModeBypass), bashReq("echo x | sh"), Allow, 3, ""},
		// Unseen code may open a path a deny rule covers: Read, Edit and
		// Write deny rules guard against it as Bash deny rules do.
		{"python inline under Read deny", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq(`python3 -c "open('.e'+'nv')"`), Ask, 2, "cannot see"},
		{"python inline under Edit deny", all(deny("Edit(./.github/**)"), mode(ModeBypass)), bashReq(`python3 -c "open('.gi'+'thub/w','w')"`), Ask, 2, "cannot see"},
		{"code assignment under Read deny", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq("LD_PRELOAD=./l.so ls"), Ask, 2, "carries code"},
		{"script file under Read deny", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq("python3 x.py"), Allow, 3, ""},
		{"inline code under an ask rule", all(ask("Read(./.env)"), mode(ModeBypass)), bashReq(`python3 -c "open('.e'+'nv')"`), Allow, 3, ""},

		// Allow rules match narrowly.
		{"allow exact", allow("Bash(npm run *)"), bashReq("npm run build"), Allow, 6, "allowed by rule Bash(npm run *) (local)"},
		{"allow star needs text", allow("Bash(npm run *)"), bashReq("npm run"), Ask, 7, ""},
		{"allow compound uncovered", allow("Bash(npm run *)"), bashReq("npm run build && curl x"), Ask, 7, ""},
		{"allow compound covered", allow("Bash(echo *)", "Bash(ls *)"), bashReq("echo hi && ls /tmp"), Allow, 6, ""},
		{"allow not through sudo", allow("Bash(npm run *)"), bashReq("sudo npm run build"), Ask, 7, ""},
		{"allow not path-named", allow("Bash(npm run *)"), bashReq("/tmp/x/npm run build"), Ask, 7, ""},
		{"allow not with env prefix", allow("Bash(npm run *)"), bashReq("NODE_OPTIONS=x npm run build"), Ask, 7, ""},
		{"allow harmless prefix", allow("Bash(npm run *)"), bashReq("LANG=C npm run build"), Allow, 6, ""},
		{"allow through timeout", allow("Bash(npm run *)"), bashReq("timeout 60 npm run build"), Allow, 6, ""},
		{"allow not dynamic arg", allow("Bash(npm run *)"), bashReq("npm run $X"), Ask, 7, ""},
		{"allow not substitution", allow("Bash(echo *)"), bashReq("echo $(curl x)"), Ask, 7, ""},
		{"space star not empty", allow("Bash(git *)"), bashReq("git"), Ask, 7, ""},
		{"trailing star may be empty", allow("Bash(git*)"), bashReq("git"), Allow, 6, ""},
		{"trailing star prefix", allow("Bash(git*)"), bashReq("gitk"), Allow, 6, ""},
		{"colon star alone", allow("Bash(npm:*)"), bashReq("npm"), Allow, 6, ""},
		{"colon star args", allow("Bash(npm:*)"), bashReq("npm i"), Allow, 6, ""},
		{"colon star not prefix", allow("Bash(npm:*)"), bashReq("npmx i"), Ask, 7, ""},
		{"parse error", allow("Bash(echo *)"), bashReq(`echo "unterminated`), Ask, 2, "could not be parsed"},

		// Read-only commands.
		{"read-only ls", nil, bashReq("ls -la src"), Allow, 7, "read-only"},
		{"read-only git status", nil, bashReq("git status && git log --oneline"), Allow, 7, ""},
		{"read-only outside", nil, bashReq("cat /etc/hosts"), Ask, 7, ""},
		{"read-only via symlink outside", nil, bashReq("cat link/data"), Ask, 7, ""},
		{"read-only explore", mode(ModeExplore), bashReq("grep -r x src"), Allow, 7, ""},
		{"find delete", nil, bashReq("find . -delete"), Ask, 2, "destructive"},
		{"find exec not read-only", nil, bashReq("find . -exec grep -l x {} +"), Ask, 7, "not read-only"},
		// What -exec's command writes is each path find finds: not known.
		{"find exec writes", nil, bashReq("find . -exec touch {} +"), Ask, 2, "not static"},
		// A deep glob is expanded now: it matches the denied file (Deny); one
		// that matches none stays unsure (a file may be made later in the line).
		{"read deny deep glob", deny("Read(./secrets/**)"), bashReq("cat s*/k"), Deny, 1, "secrets/k"},
		{"read deny deep glob, no match now", deny("Read(./secrets/**)"), bashReq("cat s*/nothing"), Ask, 2, "cannot be checked"},
		{"deep glob without read deny", mode(ModeBypass), bashReq("wc s*/k"), Allow, 3, ""},
		{"cd then read outside", allow("Bash(cd *)"), bashReq("cd / && cat etc/shadow"), Ask, 7, ""},
		{"cd then read inside", allow("Bash(cd *)"), bashReq("cd src && cat a.go"), Allow, 7, ""},
		{"cd relative chain", allow("Bash(cd *)"), bashReq("cd src; cd ..; cd ..; cat proj/x.pem"), Ask, 7, ""},
		{"cd evading read deny", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cd secrets && cat k"), Deny, 1, ""},
		{"pushd evading read deny", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("pushd secrets; head k"), Deny, 1, ""},
		{"cd dynamic with read deny", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cd $D && cat k"), Ask, 2, ""},
		// A cd to a glob, or to a computed directory, leaves the places a
		// path may be unsure, but those that are known are still judged.
		{"cd glob evading read deny", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cd sec* && cat k"), Deny, 1, ""},
		{"cd glob, then the denied file", all(deny("Read(./secrets/k)"), mode(ModeBypass)), bashReq("cd sec* && cat k"), Deny, 1, "secrets/k"},
		{"cd ? glob evading read deny", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cd se?rets; head k"), Deny, 1, ""},
		{"cd dynamic then write denied", all(deny("Edit(./.env)"), mode(ModeBypass)), bashReq("cd $D; echo x > .env"), Deny, 1, ""},
		{"cd dynamic then glob read denied", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq("cd $D; cat .e*"), Deny, 1, ""},
		{"cd glob then write elsewhere", mode(ModeBypass), bashReq("cd sr* && echo x > f"), Ask, 2, "not static"},
		{"cd dynamic read-only", allow("Bash(cd *)"), bashReq("cd \"$D\" && cat k"), Ask, 7, ""},
		{"cd then redirect outside", all(allow("Bash(cd *)", "Bash(echo *)"), mode(ModeAcceptEdits)), bashReq("cd /tmp && echo x > f"), Ask, 7, "outside"},
		{"cd dynamic then redirect", mode(ModeBypass), bashReq("cd $D && echo x > f"), Ask, 2, "not static"},
		{"read deny covers any command", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq("cp .env /tmp/x"), Deny, 1, ""},
		{"read deny quoted tilde is literal", deny("Read(~/.ssh/**)"), bashReq("cat '~/.ssh/id'"), Allow, 7, ""},
		{"read deny tilde", deny("Read(~/.ssh/**)"), bashReq("cat ~/.ssh/id"), Deny, 1, ""},
		{"read deny covers cat", deny("Read(./.env)"), bashReq("cat .env"), Deny, 1, ""},
		{"read deny covers glob arg", deny("Read(*.pem)"), bashReq("cat *.pem"), Deny, 1, ""},
		{"read ask covers cat", ask("Read(./secrets/**)"), bashReq("head secrets/k"), Ask, 5, ""},

		// Redirects are edits of their target.
		{"redirect default asks", allow("Bash(echo *)"), bashReq("echo hi > out.txt"), Ask, 7, ""},
		{"redirect acceptEdits", all(allow("Bash(echo *)"), mode(ModeAcceptEdits)), bashReq("echo hi > out.txt"), Allow, 7, ""},
		// The reason is the edit the mode allowed, not the read-only echo.
		{"read-only command with a write", mode(ModeAcceptEdits), bashReq("ls; echo hi > out.txt"), Allow, 7, "acceptEdits mode allows edits"},
		{"redirect dev null", allow("Bash(echo *)"), bashReq("echo hi > /dev/null 2>&1"), Allow, 6, ""},
		{"redirect edit deny", all(deny("Edit(./out.txt)"), mode(ModeAcceptEdits)), bashReq("echo hi >> out.txt"), Deny, 1, ""},
		{"redirect sensitive", mode(ModeBypass), bashReq("echo x >> ~/.bashrc"), Ask, 2, "sensitive path"},
		{"redirect device", mode(ModeBypass), bashReq("cat x > /dev/sda"), Ask, 2, "destructive"},
		{"redirect outside", mode(ModeAcceptEdits), bashReq("echo x > " + f.outside + "/o"), Ask, 7, "outside the workspace"},
		{"redirect dynamic", mode(ModeBypass), bashReq("echo x > $F"), Ask, 2, "not static"},

		// A basename allow rule names no directory: like a bare one, it
		// does not reach outside the workspace (Claude Code reads it
		// relative to the working directory). Deny rules still match
		// such a name anywhere.
		{"basename allow inside", allow("Edit(*.md)"), fileReq("Write", f.root+"/docs/a.md"), Allow, 6, ""},
		{"basename allow outside", allow("Edit(*.md)"), fileReq("Write", f.outside+"/a.md"), Ask, 7, "outside the workspace"},
		{"basename allow outside, Bash", allow("Bash(echo *)", "Edit(*.md)"), bashReq("echo x > " + f.outside + "/a.md"), Ask, 7, "outside the workspace"},
		{"basename allow read outside", allow("Read(*)"), fileReq("Read", f.outside+"/data"), Ask, 7, "outside the workspace"},
		{"basename allow through a link out", allow("Read(data)"), fileReq("Read", f.root+"/link/data"), Ask, 7, ""},
		{"basename deny outside", deny("Read(data)"), fileReq("Read", f.outside+"/data"), Deny, 1, ""},
		{"redirect glob", mode(ModeBypass), bashReq("echo x > *.txt"), Ask, 2, "not static"},

		// Bypass-immune checks.
		{"destructive bypass", mode(ModeBypass), bashReq("rm -rf /tmp/x"), Ask, 2, "destructive command"},
		{"destructive allow rule", allow("Bash(rm:*)"), bashReq("rm -r x"), Ask, 2, "destructive command"},
		{"destructive hidden", mode(ModeBypass), bashReq("bash -c 'git push --force'"), Ask, 2, ""},
		{"destructive xargs", mode(ModeBypass), bashReq("echo x | xargs rm -rf"), Ask, 2, ""},
		{"suspicious ifs", mode(ModeBypass), bashReq("IFS=x; echo $IFS"), Ask, 2, "suspicious"},
		{"bypass plain", mode(ModeBypass), bashReq("curl x"), Allow, 3, ""},
		{"bypass beats ask rule", all(mode(ModeBypass), ask("Bash(curl:*)")), bashReq("curl x"), Allow, 3, ""},
		{"sensitive edit", mode(ModeBypass), fileReq("Edit", ".git/config"), Ask, 2, "sensitive path"},
		{"sensitive edit any case", mode(ModeBypass), fileReq("Write", ".GIT/hooks/pre-commit"), Ask, 2, "sensitive path"},
		{"sensitive workflow", mode(ModeBypass), fileReq("Write", ".github/workflows/ci.yml"), Ask, 2, "sensitive path"},
		{"git rm -r", mode(ModeBypass), bashReq("git rm -rf ."), Ask, 2, "destructive"},
		{"rsync --delete", mode(ModeBypass), bashReq("rsync -a --delete src/ /backup/"), Ask, 2, "destructive"},
		{"sensitive write env", all(mode(ModeAcceptEdits), allow("Write")), fileReq("Write", ".env"), Ask, 2, ""},

		// Paths.
		{"read inside", nil, fileReq("Read", "src/a.go"), Allow, 7, ""},
		{"read outside", nil, fileReq("Read", "/etc/hosts"), Ask, 7, "outside"},
		{"read outside allowed by rule", allow("Read(//etc/**)"), fileReq("Read", "/etc/hosts"), Allow, 6, ""},
		{"read outside bare allow", allow("Read"), fileReq("Read", "/etc/hosts"), Ask, 7, ""},
		{"read outside bypass", mode(ModeBypass), fileReq("Read", "/etc/hosts"), Allow, 3, ""},
		{"read deny dir", deny("Read(./secrets/**)"), fileReq("Read", "secrets/k"), Deny, 1, ""},
		{"read deny dir itself", deny("Read(./secrets)"), fileReq("Read", "secrets/k"), Deny, 1, ""},
		{"read deny basename", deny("Read(*.pem)"), fileReq("Read", "x.pem"), Deny, 1, ""},
		{"read deny dotdot", deny("Read(./secrets/**)"), fileReq("Read", "src/../secrets/k"), Deny, 1, ""},
		{"read deny root relative", deny("Read(/secrets/**)"), fileReq("Read", f.root+"/secrets/k"), Deny, 1, ""},
		{"read deny home", deny("Read(~/.ssh/**)"), fileReq("Read", "~/.ssh/id_rsa"), Deny, 1, ""},
		{"read deny absolute", deny("Read(//etc/passwd)"), fileReq("Read", "/etc/passwd"), Deny, 1, ""},
		{"read deny symlink target", deny("Read(//" + f.outside[1:] + "/**)"), fileReq("Read", "link/data"), Deny, 1, ""},
		{"allow needs link and target", allow("Read(./link/**)"), fileReq("Read", "link/data"), Ask, 7, ""},
		{"grep covered by read deny", deny("Read(./secrets/**)"), Request{Tool: "Grep", Input: map[string]any{"pattern": "k", "path": "secrets"}}, Deny, 1, ""},
		{"glob escaping workspace", nil, Request{Tool: "Glob", Input: map[string]any{"pattern": "../../*"}}, Ask, 7, ""},
		{"read deny blocks edit", all(deny("Read(./.env)"), mode(ModeBypass)), fileReq("Edit", ".env"), Deny, 1, ""},
		{"edit rule covers write", deny("Edit(./src/**)"), fileReq("Write", "src/new.go"), Deny, 1, ""},
		{"edit default", nil, fileReq("Edit", "src/a.go"), Ask, 7, ""},
		{"edit acceptEdits", mode(ModeAcceptEdits), fileReq("Write", "src/a.go"), Allow, 7, ""},
		{"edit auto", mode(ModeAuto), fileReq("Write", "src/a.go"), Allow, 7, ""},
		{"edit outside acceptEdits", mode(ModeAcceptEdits), fileReq("Write", f.outside+"/n"), Ask, 7, ""},
		{"edit outside allowed", allow("Edit(//" + f.outside[1:] + "/**)"), fileReq("Write", f.outside+"/n"), Allow, 6, ""},
		{"edit explore", mode(ModeExplore), fileReq("Edit", "src/a.go"), Deny, 7, "explore"},
		{"add dir", func(p *Policy) { p.Mode = ModeAcceptEdits; p.Workspace.Dirs = []string{f.outside} }, fileReq("Write", f.outside+"/n"), Allow, 7, ""},

		// Modes.
		{"dontAsk bash", mode(ModeDontAsk), bashReq("curl x"), Deny, 7, "dontAsk"},
		{"dontAsk ask rule", all(mode(ModeDontAsk), ask("Read(./src/**)")), fileReq("Read", "src/a.go"), Deny, 8, ""},
		{"dontAsk allow rule", all(mode(ModeDontAsk), allow("Bash(curl:*)")), bashReq("curl x"), Allow, 6, ""},
		{"ask rule beats allow", all(ask("Bash(git push:*)"), allow("Bash(git:*)")), bashReq("git push"), Ask, 5, "ask rule"},
		{"ask rule beats safe tool", ask("Read(./src/**)"), fileReq("Read", "src/a.go"), Ask, 5, ""},
		{"deny beats allow", all(deny("Bash(curl:*)"), allow("Bash(curl:*)")), bashReq("curl x"), Deny, 1, ""},
		{"session allow", func(p *Policy) { p.Session = rules("Bash(curl:*)") }, bashReq("curl x"), Allow, 4, "session"},
		{"session beats ask rule", func(p *Policy) { p.Session = rules("Bash(curl:*)"); p.Ask = entries(SourceUser, "Bash(curl:*)") }, bashReq("curl x"), Allow, 4, ""},
		{"deny beats session", func(p *Policy) { p.Session = rules("Bash"); p.Deny = entries(SourceUser, "Bash(curl:*)") }, bashReq("curl x"), Deny, 1, ""},
		{"headless ask", func(p *Policy) { p.NoPrompt = true }, bashReq("curl x"), Deny, 8, "requires approval"},

		// Other tools.
		{"webfetch deny subdomain", deny("WebFetch(domain:example.com)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "https://api.Example.com:8443/x"}}, Deny, 1, ""},
		{"webfetch deny userinfo", deny("WebFetch(domain:example.com)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "https://evil@example.com/"}}, Deny, 1, ""},
		{"webfetch other host", deny("WebFetch(domain:example.com)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "https://notexample.com/"}}, Allow, 7, ""},
		{"webfetch ask", ask("WebFetch(domain:example.com)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "http://example.com"}}, Ask, 5, ""},
		{"webfetch deny fullwidth host", deny("WebFetch(domain:example.com)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "https://ｅｘａｍｐｌｅ.com/"}}, Deny, 1, ""},
		{"webfetch deny soft hyphen", deny("WebFetch(domain:example.com)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "https://exam\u00adple.com/"}}, Deny, 1, ""},
		{"webfetch deny mapped ipv4", deny("WebFetch(domain:127.0.0.1)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "http://[::ffff:127.0.0.1]:8080/"}}, Deny, 1, ""},
		{"write deny covers edit", all(deny("Write(./src/**)"), mode(ModeAcceptEdits)), fileReq("Edit", "src/a.go"), Deny, 1, ""},
		{"glob escaped dotdot", deny("Glob(//etc/**)"), Request{Tool: "Glob", Input: map[string]any{"pattern": `\*/../../../../../../../../etc/*`}}, Deny, 1, ""},
		{"webfetch bad url", nil, Request{Tool: "WebFetch", Input: map[string]any{"url": "not a url"}}, Ask, 2, ""},
		{"agent deny", deny("Agent(Explore)"), Request{Tool: "Agent", Input: map[string]any{"subagent_type": "Explore"}}, Deny, 1, ""},
		{"agent other type", deny("Agent(Explore)"), Request{Tool: "Agent", Input: map[string]any{"subagent_type": "x"}}, Ask, 7, ""},
		{"agent deny by Claude Code's old name", deny("Task(Explore)"), Request{Tool: "Agent", Input: map[string]any{"subagent_type": "Explore"}}, Deny, 1, ""},
		{"skill deny", deny("Skill(pdf)"), skillReq("pdf"), Deny, 1, "blocked by deny rule Skill(pdf)"},
		{"skill deny slash spelling", deny("Skill(/pdf)"), skillReq("pdf"), Deny, 1, ""},
		{"skill deny other skill", deny("Skill(pdf)"), skillReq("pdf-tools"), Ask, 7, "requires approval"},
		{"skill deny prefix", deny("Skill(git:*)"), skillReq("git-commit"), Deny, 1, ""},
		{"skill deny prefix covers the name itself", deny("Skill(git:*)"), skillReq("git"), Deny, 1, ""},
		{"skill deny prefix other", deny("Skill(git:*)"), skillReq("review"), Ask, 7, ""},
		{"skill deny bare", deny("Skill"), skillReq("anything"), Deny, 1, ""},
		{"skill ask rule", all(ask("Skill(pdf)"), allow("Skill")), skillReq("pdf"), Ask, 5, ""},
		{"skill allow", allow("Skill(pdf)"), skillReq("pdf"), Allow, 6, ""},
		{"skill allow prefix", allow("Skill(git:*)"), skillReq("git-commit"), Allow, 6, ""},
		{"skill allow with arguments form", allow("Skill(review-pr *)"), skillReq("review-pr"), Allow, 6, ""},
		{"skill allow does not cover another", allow("Skill(pdf)"), skillReq("pdfx"), Ask, 7, ""},
		{"skill deny beats allow", all(deny("Skill(git:*)"), allow("Skill(git-commit)")), skillReq("git-commit"), Deny, 1, ""},
		{"skill is not a safe tool", nil, skillReq("pdf"), Ask, 7, ""},
		{"skill headless", func(p *Policy) { p.NoPrompt = true }, skillReq("pdf"), Deny, 8, ""},
		{"skill explore", mode(ModeExplore), skillReq("pdf"), Deny, 7, ""},
		{"mcp deny server glob", deny("MCP(mcp__puppeteer__*)"), Request{Tool: "mcp__puppeteer__click"}, Deny, 1, ""},
		{"mcp allow exact", allow("mcp__github__get_issue"), Request{Tool: "mcp__github__get_issue"}, Allow, 6, ""},
		{"mcp allow server", allow("mcp__github"), Request{Tool: "mcp__github__list"}, Allow, 6, ""},
		{"mcp deny server, Claude Code wildcard", deny("mcp__puppeteer__*"), Request{Tool: "mcp__puppeteer__click"}, Deny, 1, ""},
		{"mcp allow server wildcard, other server", allow("mcp__github__*"), Request{Tool: "mcp__githubx__list"}, Ask, 7, ""},
		{"mcp default asks", nil, Request{Tool: "mcp__github__list"}, Ask, 7, ""},

		// The seed's subagent scenario.
		{"seed allow", testPerm, bashReq("git diff --stat"), Allow, 6, ""},
		{"seed compound", testPerm, bashReq("git diff && git status"), Deny, 2, "tool Bash call is outside the allow_tools constraint"},
		{"seed deny", testPerm, bashReq("git stash list"), Deny, 1, "tool Bash is blocked by deny_tools"},
		{"seed destructive", testPerm, bashReq("git diff && rm -rf /tmp/dummy"), Deny, 8, "destructive command"},
		{"seed write invisible", testPerm, fileReq("Write", "x"), Deny, 2, "outside the allow_tools constraint"},
		{"seed read", testPerm, fileReq("Read", "src/a.go"), Allow, 6, ""},
		{"seed read outside", testPerm, fileReq("Read", "/etc/hosts"), Deny, 8, "outside"},
		{"constraint redirect", testPerm, bashReq("git diff > out"), Deny, 2, "allow_tools"},
		// Where the agent's asks reach someone (a permission-prompt
		// delegate), a call outside allow_tools that a bypass-immune
		// check asks about is denied, with the check's reason.
		{"constraint after a sensitive write's ask", all(testPerm, prompting), bashReq("echo x > .git/config"), Deny, 2, "sensitive path .git/"},
		{"constraint after opaque code's ask", all(testPerm, prompting), bashReq("python3 -c 'print(1)'"), Deny, 2, "code deny and ask rules cannot see"},
		{"seed destructive prompting", all(testPerm, prompting), bashReq("git diff && rm -rf /tmp/dummy"), Deny, 2, "destructive command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if tc.pol != nil {
				tc.pol(p)
			}
			got := Evaluate(tc.req, p)
			if got.Decision != tc.want || got.Step != tc.step || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Evaluate(%v) = %v step %d %q (rule %q); want %v step %d containing %q",
					tc.req.Input, got.Decision, got.Step, got.Reason, got.Rule, tc.want, tc.step, tc.reason)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		pol  func(*Policy)
		req  Request
		want []string
	}{
		{"compound one uncovered", allow("Bash(echo *)", "Bash(ls *)"), bashReq("echo hi && cat /etc/hosts"), []string{"Bash(cat /etc/hosts)"}},
		{"compound two uncovered", nil, bashReq("npm test; curl -s 'a b'"), []string{"Bash(npm test)", "Bash(curl -s 'a b')"}},
		{"read-only parts need nothing", nil, bashReq("ls && npm test"), []string{"Bash(npm test)"}},
		{"redirect", allow("Bash(echo *)"), bashReq("echo x > out.txt"), []string{"Edit(/out.txt)"}},
		{"dynamic name", nil, bashReq("$X y"), nil},
		{"at most five", nil, bashReq("a1; a2; a3; a4; a5; a6"), []string{"Bash(a1)", "Bash(a2)", "Bash(a3)", "Bash(a4)", "Bash(a5)"}},
		{"edit inside", nil, fileReq("Edit", "src/a.go"), []string{"Edit(/src/a.go)"}},
		{"read outside", nil, fileReq("Read", "/etc/hosts"), []string{"Read(//etc/hosts)"}},
		{"webfetch", ask("WebFetch(domain:x.org)"), Request{Tool: "WebFetch", Input: map[string]any{"url": "https://X.org/a"}}, []string{"WebFetch(domain:x.org)"}},
		{"agent", nil, Request{Tool: "Agent", Input: map[string]any{"subagent_type": "Explore"}}, []string{"Agent(Explore)"}},
		{"mcp", nil, Request{Tool: "mcp__gh__list"}, []string{"mcp__gh__list"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if tc.pol != nil {
				tc.pol(p)
			}
			got := Suggest(tc.req, p)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Suggest = %q, want %q", got, tc.want)
			}
			// Each suggestion, once allowed, must allow the call.
			if len(got) > 0 && len(got) < maxSuggestions && len(p.Ask) == 0 {
				p.Allow = append(p.Allow, entries(SourceLocal, got...)...)
				if r := Evaluate(tc.req, p); r.Decision != Allow {
					t.Errorf("with the suggested rules: %v (%s)", r.Decision, r.Reason)
				}
			}
		})
	}
}

// TestPublicOnly: only a WebFetch the mode default allowed as a safe read
// is marked PublicOnly (its tool must not connect to an internal address
// a name resolves to); one a rule allows, one in bypassPermissions mode,
// and every other tool are not.
func TestPublicOnly(t *testing.T) {
	f := newFixture(t)
	web := Request{Tool: "WebFetch", Input: map[string]any{"url": "https://example.com/x"}}
	for _, tc := range []struct {
		name string
		pol  func(*Policy)
		req  Request
		want bool
	}{
		{"mode default", nil, web, true},
		{"acceptEdits default", mode(ModeAcceptEdits), web, true},
		{"allow rule", allow("WebFetch(domain:example.com)"), web, false},
		{"bare allow rule", allow("WebFetch"), web, false},
		{"bypassPermissions", mode(ModeBypass), web, false},
		{"another safe tool", nil, fileReq("Read", "src/a.go"), false},
	} {
		p := Policy{Mode: ModeDefault, Workspace: f.ws()}
		if tc.pol != nil {
			tc.pol(&p)
		}
		res := Evaluate(tc.req, &p)
		if res.Decision != Allow || res.PublicOnly != tc.want {
			t.Errorf("%s: %s, PublicOnly %v; want allow, PublicOnly %v (%s)", tc.name, res.Decision, res.PublicOnly, tc.want, res.Reason)
		}
	}
}
