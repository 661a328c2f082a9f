package perm

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// redCase is one red-team probe: a call, the policy it runs under and the
// decision the engine should reach. step 0 means any step will do (for
// rows the engine gets wrong today, where the step depends on the fix).
type redCase struct {
	name string
	pol  func(*Policy)
	req  Request
	want Decision
	step int
}

// hangGuard fails a decision that does not finish instead of hanging the
// suite. It is no performance budget: speed is measured by the benchmarks
// (bench_test.go), which include the pathological inputs below.
const hangGuard = 2 * time.Minute

// TestRedTeam collects attacks on the permission engine: bypasses of deny
// rules, of the bypass-immune checks and of Read deny rules, allow rules
// that cover too much, and inputs that make a decision slow. Rows marked
// FAILS document bypasses that are still open.
func TestRedTeam(t *testing.T) {
	f := newFixture(t)
	denyRmBypass := all(deny("Bash(rm:*)"), mode(ModeBypass))
	denyEnvBypass := all(deny("Read(./.env)"), mode(ModeBypass))
	denyCurlBypass := all(deny("Bash(curl:*)"), mode(ModeBypass))
	denySecretsBypass := all(deny("Read(./secrets/**)"), mode(ModeBypass))
	denyEditEnvBypass := all(deny("Edit(./.env)"), mode(ModeBypass))
	cds := strings.Repeat("cd a; ", 22) + "cat x"
	tooMany := "" // more values than constant propagation follows
	for i := range 16 {
		tooMany += fmt.Sprintf("x=v%d; ", i)
	}
	var assigns strings.Builder // many values, and many uses of them
	for i := range 10000 {
		fmt.Fprintf(&assigns, "x=v%d; $x y; ", i)
	}
	for i := range 10000 {
		fmt.Fprintf(&assigns, "for y in a%d b; do $y; done; ", i)
	}

	cases := []redCase{
		// Deny rules must see every command a line runs.
		{"deny: ansi-c hex escaped name", denyRmBypass, bashReq(`$'\x72m' x`), Deny, 1},
		{"deny: exec -a renames argv0", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("exec -a foo curl x"), Deny, 1},
		{"deny: xargs -a reads args from file", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("xargs -a list curl"), Deny, 1},
		{"deny: find -execdir", denyRmBypass, bashReq(`find . -execdir rm {} \;`), Deny, 1},
		{"deny: quoted subscript runs substitution", denyRmBypass, bashReq(`unset 'a[$(rm x)]'`), Ask, 1},
		{"suspicious: quoted subscript runs substitution", mode(ModeBypass), bashReq(`unset 'a[$(rm x)]'`), Ask, 2},
		// Was a bypass: git -c alias.NAME='!cmd' is shell code; shellCode does not parse it
		{"deny: git -c alias shell command", denyRmBypass, bashReq(`git -c alias.x='!rm x' x`), Deny, 0},
		// Was a bypass: env vars holding commands (GIT_SSH_COMMAND, PAGER, EDITOR, ...) are not parsed or opaque
		{"deny: GIT_SSH_COMMAND", denyRmBypass, bashReq(`GIT_SSH_COMMAND='rm x' git fetch`), Deny, 0},
		// Was a bypass: fish/csh/tcsh are missing from bash.shells, so their -c string is never parsed
		{"deny: fish -c", denyRmBypass, bashReq(`fish -c 'rm x'`), Deny, 0},
		// Was a bypass: `env -` (same as -i) is taken as env's operand, so the command after it is not unwrapped
		{"deny: env dash", denyRmBypass, bashReq("env - rm x"), Deny, 0},
		// Was a bypass: chrt (like taskset, nsenter, unshare, chroot, strace) is not in broadWrappers
		{"deny: chrt wrapper", denyRmBypass, bashReq("chrt 10 rm x"), Deny, 0},
		// Was a bypass: pkexec is privileged for AllowForm but not a broad wrapper
		{"deny: pkexec wrapper", denyRmBypass, bashReq("pkexec rm x"), Deny, 0},
		// Was a bypass: flock FILE cmd (without -c) is not a wrapper
		{"deny: flock file command", denyRmBypass, bashReq("flock /tmp/lock rm x"), Deny, 0},
		// Was a bypass: parallel runs its arguments as a command but is not a wrapper
		{"deny: parallel", denyRmBypass, bashReq("parallel rm ::: x"), Deny, 0},
		// Was a bypass: git's --attr-source takes a separate value; gitGlobals treats it as a flag and HEAD as the subcommand
		{"deny: git --attr-source value", all(deny("Bash(git push:*)"), mode(ModeBypass)), bashReq("git --attr-source HEAD push origin"), Deny, 0},
		// Was a bypass: source/. of a process substitution runs generated code; opaque() does not know it
		// Was Ask (mention): the file source reads is echo's static output.
		{"deny: source process substitution", denyRmBypass, bashReq("source <(echo 'rm x')"), Deny, 1},
		{"deny: source process substitution, no mention", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq("source <(echo 'rm x')"), Ask, 2},
		// Was a bypass: sed's e command and s///e flag run shell code; opaque() does not know sed
		{"deny: sed e command", denyRmBypass, bashReq(`sed -n '1e rm x' f`), Ask, 1},
		{"deny: sed e command, no mention", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`sed -n '1e rm x' f`), Ask, 2},

		// Was a bypass (Allow): "!" and "@" were not word separators for
		// the mention check, so a program's shell escape hid the name.
		{"mention: vim -c !cmd", denyCurlBypass, bashReq(`vim -c '!curl x'`), Ask, 1},
		{"mention: vim -c :!cmd", denyCurlBypass, bashReq(`vim -c ':!curl x'`), Ask, 1},
		{"mention: less +!cmd", denyCurlBypass, bashReq(`less +'!curl x' f`), Ask, 1},
		{"mention: gdb -ex !cmd", denyCurlBypass, bashReq(`gdb -ex '!curl x'`), Ask, 1},
		{"mention: git config shell alias", denyCurlBypass, bashReq(`git config alias.x '!curl x'; git x`), Ask, 1},
		// Was a bypass (Allow): here-document and here-string bodies were
		// never read, whatever program runs them.
		{"mention: at here-string", denyCurlBypass, bashReq(`at now <<< 'curl x'`), Ask, 1},
		{"mention: make recipe on stdin", denyCurlBypass, bashReq(`make -f /dev/stdin <<< 'all:;@curl x'`), Ask, 1},
		{"mention: crontab here-doc", denyCurlBypass, bashReq("crontab - <<'EOF'\n* * * * * curl x\nEOF"), Ask, 1},
		{"mention: here-string is no program", denyCurlBypass, bashReq(`tee x <<< '/usr/bin/curl x'`), Ask, 1},
		{"not code: read-only program reads here-string", denyCurlBypass, bashReq(`cat <<< 'curl x'`), Allow, 3},
		// Was Ask (opaque code): a shell reading a static here-document or
		// here-string runs visible code, which is parsed like bash -c.
		{"deny: bash here-string", denyCurlBypass, bashReq(`bash <<< 'curl x'`), Deny, 1},
		{"deny: sh -s here-string", denyCurlBypass, bashReq(`sh -s -- a <<< 'curl x'`), Deny, 1},
		{"deny: bash here-doc", denyCurlBypass, bashReq("bash <<'EOF'\necho hi\ncurl x\nEOF"), Deny, 1},
		{"deny: source /dev/stdin here-string", denyCurlBypass, bashReq(`source /dev/stdin <<< 'curl x'`), Deny, 1},
		{"deny: group reads here-string", denyCurlBypass, bashReq(`{ bash; } <<< 'curl x'`), Deny, 1},
		{"read deny: bash here-string reads", denyEnvBypass, bashReq(`bash <<< 'cat .env'`), Deny, 1},
		{"not code: here-string to a script", denyCurlBypass, bashReq(`bash run.sh <<< 'curl x'`), Ask, 1},
		// Was Ask (mention): a name the script assigns a static value to
		// may run that value; every static assignment anywhere counts.
		{"deny: variable names program", denyCurlBypass, bashReq("x=curl; $x y"), Deny, 1},
		{"deny: quoted variable names program", denyCurlBypass, bashReq(`f=curl; "$f" x`), Deny, 1},
		{"deny: exported variable", denyCurlBypass, bashReq("export X=curl; $X y"), Deny, 1},
		{"deny: readonly braced variable", denyCurlBypass, bashReq("readonly X=curl; ${X} y"), Deny, 1},
		{"deny: local variable in a function", denyCurlBypass, bashReq("f() { local x=curl; $x y; }; f"), Deny, 1},
		{"deny: assignment after the use, in a loop", denyCurlBypass, bashReq("for i in 1 2; do $x y; x=curl; done"), Deny, 1},
		{"deny: assignment in one branch", denyCurlBypass, bashReq("if a; then x=ls; else x=curl; fi; $x y"), Deny, 1},
		{"deny: for loop item", denyCurlBypass, bashReq("for p in wget curl; do $p x; done"), Deny, 1},
		{"deny: variable split into words", denyCurlBypass, bashReq(`x="curl -s"; $x y`), Deny, 1},
		{"deny: variable behind a wrapper", denyCurlBypass, bashReq("x=curl; sudo $x y"), Deny, 1},
		{"deny: variable is the wrapper", denyCurlBypass, bashReq("x=sudo; $x curl y"), Deny, 1},
		{"deny: variables make the name", denyCurlBypass, bashReq("a=cu; b=rl; $a$b y"), Deny, 1},
		{"deny: variable in bash -c", denyCurlBypass, bashReq(`x=curl; bash -c "$x y"`), Deny, 1},
		{"deny: variable options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("x=-rf; rm $x /"), Deny, 1},
		{"suspicious: variable names another program", denyCurlBypass, bashReq("x=ls; $x"), Ask, 2},
		{"suspicious: variable names a program, no rules", mode(ModeBypass), bashReq("x=ls; $x ."), Ask, 2},
		{"suspicious: variable value not static", denyCurlBypass, bashReq("x=$(cat f); $x y"), Ask, 2},
		{"mention: variable with too many values", denyCurlBypass, bashReq(tooMany + "x=curl; $x y"), Ask, 1},
		// Was Ask (mention): what echo or printf prints with static
		// arguments is code when a shell runs it.
		{"deny: echo piped to bash", denyCurlBypass, bashReq("echo curl x | bash"), Deny, 1},
		{"deny: printf piped to sh", denyCurlBypass, bashReq(`printf 'curl x\n' | sh`), Deny, 1},
		{"deny: printf %s piped to bash", denyCurlBypass, bashReq(`printf '%s x\n' curl | bash`), Deny, 1},
		{"deny: echo piped to a group", denyCurlBypass, bashReq("echo curl x | { bash; }"), Deny, 1},
		{"deny: source echo's output", denyCurlBypass, bashReq(". <(echo curl x)"), Deny, 1},
		{"deny: source printf's output", denyCurlBypass, bashReq(`source <(printf 'curl x')`), Deny, 1},
		{"deny: bash reads echo's output", denyCurlBypass, bashReq("bash <(echo curl x)"), Deny, 1},
		{"deny: bash stdin from echo's output", denyCurlBypass, bashReq("bash < <(echo curl x)"), Deny, 1},
		{"deny: echo's output in bash -c", denyCurlBypass, bashReq(`bash -c "$(echo curl) x"`), Deny, 1},
		{"deny: echo's output in eval", denyCurlBypass, bashReq(`eval "$(echo curl)" x`), Deny, 1},
		{"deny: backquoted output in eval", denyCurlBypass, bashReq("eval `echo curl` x"), Deny, 1},
		{"deny: echo's output names program", denyCurlBypass, bashReq("$(echo curl) x"), Deny, 1},
		{"deny: options reordered in piped code", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("echo 'rm -fr /' | bash"), Deny, 1},
		{"read deny: echo piped to bash reads", denyEnvBypass, bashReq("echo 'cat .env' | bash"), Deny, 1},
		{"mention: printf format not worked out", denyCurlBypass, bashReq(`printf '%d curl' 1 | bash`), Ask, 1},
		{"opaque: echo -e escapes not worked out", denyCurlBypass, bashReq(`echo -e 'c\x75rl x' | bash`), Ask, 2},
		{"mention: output to a program that is no shell", denyCurlBypass, bashReq("diff <(echo curl x) f"), Ask, 1},
		{"opaque: piped code without a denied program", denyCurlBypass, bashReq("echo ls | bash"), Ask, 2},
		// Was Ask (dynamic command name): brace expansion is static, so
		// the words it makes are the command line the shell runs.
		{"deny: brace-expanded program", denyCurlBypass, bashReq("c{u,x}rl x"), Deny, 1},
		{"deny: brace expansion is the command line", denyCurlBypass, bashReq("{curl,x}"), Deny, 1},
		{"deny: brace expansion after a wrapper", denyCurlBypass, bashReq("sudo {curl,x}"), Deny, 1},
		{"read deny: brace-expanded argument", denyEnvBypass, bashReq("cat .{env,x}"), Deny, 1},
		{"read deny: brace inside a name", denyEnvBypass, bashReq("cat .e{n,x}v"), Deny, 1},
		{"read deny: brace-expanded directory", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cat s{e,x}crets/k"), Deny, 1},
		{"not denied: brace expansion elsewhere", denyEnvBypass, bashReq("ls {src,x}"), Allow, 3},
		// Was Ask (glob in command name): a glob that may match the denied
		// program runs it when it does.
		{"deny: glob names program", denyCurlBypass, bashReq("/usr/bin/cur? x"), Deny, 1},
		{"deny: star glob names program", denyCurlBypass, bashReq("/usr/bin/c*l x"), Deny, 1},
		{"deny: bracket glob names program", denyCurlBypass, bashReq("/usr/bin/c[u]rl x"), Deny, 1},
		{"deny: glob after a wrapper", denyCurlBypass, bashReq("sudo /usr/bin/cu* x"), Deny, 1},
		// Was Ask (syntax error): the parser took c[u] for the start of
		// an array assignment; bash runs the glob as a command.
		{"deny: bracket glob bare name", denyCurlBypass, bashReq("c[u]rl x"), Deny, 1},
		{"deny: bracket glob name after a command", denyCurlBypass, bashReq("ls; c[u]rl x"), Deny, 1},
		{"deny: bracket glob name in a substitution", denyCurlBypass, bashReq(`echo "$(c[u]rl x)"`), Deny, 1},
		{"deny: bracket glob name in bash -c", denyCurlBypass, bashReq(`bash -c 'c[u]rl x'`), Deny, 1},
		{"suspicious: bracket glob name another rule's", denyCurlBypass, bashReq("l[s] x"), Ask, 2},
		{"deny: glob program and pattern", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("/usr/bin/r? -rf /"), Deny, 1},
		{"deny: glob program, options reordered", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("/usr/bin/r? -fr /"), Deny, 1},
		{"suspicious: glob program another rule's", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("/usr/bin/r? -i x"), Ask, 2},
		// Was Ask (unsure): a glob in a directory element was never
		// expanded, so a denied file it matches now was not seen.
		{"read deny: glob in directory", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cat s*/k"), Deny, 1},
		{"read deny: star directory", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cat */k"), Deny, 1},
		{"read deny: glob in directory, not denied", all(deny("Read(./secrets/**)"), mode(ModeBypass)), bashReq("cat sr*/a.go"), Ask, 2},
		// Was Ask (mention): wrappers that run the command line after
		// their options (moreutils chronic and ifne, macOS caffeinate).
		{"deny: chronic wrapper", denyCurlBypass, bashReq("chronic curl x"), Deny, 1},
		{"deny: ifne wrapper", denyCurlBypass, bashReq("ifne -n curl x"), Deny, 1},
		{"deny: caffeinate wrapper", denyCurlBypass, bashReq("caffeinate -t 5 curl x"), Deny, 1},

		// Was Ask (destructive): getopt reads -fr, -r -f and -rfv as -rf,
		// so a rule naming options matches every spelling of them.
		{"deny: options reordered", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm -fr /"), Deny, 1},
		{"deny: options split", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm -r -f /"), Deny, 1},
		{"deny: options with more", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm -v -fr x"), Deny, 1},
		{"deny: options repeated", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("sudo rm -rrf x"), Deny, 1},
		{"deny: prefix rule, options reordered", all(deny("Bash(rm -rf:*)"), mode(ModeBypass)), bashReq("rm -fr x"), Deny, 1},
		{"not denied: fewer options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm -f x"), Allow, 3},
		// Was Allow: interpreters nobody listed (irb, dc, m4, expect, an
		// in-house tool) and code options of programs whose options were
		// never audited build the denied name from pieces. In bypass a
		// program the gate has no model of asks when a word or its input
		// may be code (stepUnmodelled); an allow rule vouches for it.
		{"unmodelled: irb code on stdin", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`irb <<< 'system("r"+"m -rf /")'`), Ask, 3},
		{"unmodelled: dc shell escape", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`dc -e '!r"m -rf /'`), Ask, 3},
		{"unmodelled: expect", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`expect -c 'exec r[string cat m] -rf /'`), Ask, 3},
		{"unmodelled: echo into an unknown program", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`echo 'syscmd(r` + "``" + `m -rf /)' | m4`), Ask, 3},
		{"unmodelled: tar compressor", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`tar -I 'sh -c "r\"\"m -rf /"' -tf x.tar`), Ask, 2}, // a program an option names: step 2 under any rules
		// Making an archive, with an option tarSpec does not know: the
		// archive it writes is not known, asked at step 2.
		{"unmodelled: tar compressor, creating", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`tar -I 'sh -c "r\"\"m -rf /"' -cf x.tar .`), Ask, 2},
		{"unmodelled: install strip program", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`install -s --strip-program='r""m' a b`), Ask, 2}, // a program an option names: step 2 under any rules
		{"unmodelled: env -S name", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`env -S 'r""m -rf /'`), Ask, 3},
		{"unmodelled: wrapper option", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`strace -o '|r""m -rf /' true`), Ask, 3},
		{"unmodelled: wrapped", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`timeout 5 zzz 'r"+"m -rf /'`), Ask, 3},
		{"unmodelled: read-only spec, option outside it", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`less -c '+!r""m -rf /' x`), Ask, 3},
		{"unmodelled: xargs into it", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`echo '-c +!x' | xargs less`), Ask, 3},
		{"unmodelled: under a Read deny rule", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq(`irb <<< 'File.read(".e"+"nv")'`), Ask, 3},
		{"unmodelled: a function shadows a modelled name", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`cp() { irb; }; cp <<< 'system("r"+"m -rf /")'`), Ask, 3},
		{"unmodelled: a function shadows a read-only one", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`cat() { irb; }; cat <<< 'system("r"+"m -rf /")'`), Ask, 3},
		{"unmodelled: a path program named like a modelled one", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`./cp <<< 'system("r"+"m -rf /")'`), Ask, 3},
		{"unmodelled: a system program by path", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`/usr/bin/git commit -m 'fix the bug'`), Allow, 3},
		// Was Allow: any program may run a variable's value as code.
		{"unmodelled: tar reads TAR_OPTIONS", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=r""m' tar -cf x.tar .`), Ask, 3},
		{"unmodelled: make reads MAKEFLAGS", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`MAKEFLAGS='--eval=$(shell r""m -rf /)' make`), Ask, 3},
		{"unmodelled: env sets it", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`env FZF_DEFAULT_COMMAND='r""m -rf /' fzf`), Ask, 3},
		{"unmodelled: export sets it", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`export FZF_DEFAULT_COMMAND='r""m -rf /'; fzf`), Ask, 3},
		{"unmodelled: declare -x sets it", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`declare -rx FZF_DEFAULT_COMMAND='r""m -rf /'; fzf`), Ask, 3},
		{"unmodelled: declare without -x does not export", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`declare msg='a b'; f() { local x="$1"; echo "$x"; }; f a`), Allow, 3},
		{"unmodelled: declare with a flag not known", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`declare $opt FZF_DEFAULT_COMMAND='r""m -rf /'; fzf`), Ask, 2},
		{"unmodelled: builtin set -a", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`builtin set -a; FZF_DEFAULT_COMMAND='r""m -rf /'; fzf`), Ask, 3},
		{"unmodelled: allexport sets it", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`set -ea; FZF_DEFAULT_COMMAND='r""m -rf /'; fzf`), Ask, 3},
		{"unmodelled: plain variables", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`x='a b'; echo "$x"; LANG=C CGO_ENABLED=0 GOFLAGS=-mod=mod go build ./...`), Allow, 3},
		{"unmodelled: input through a descriptor", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`exec 3<<<'system("r"+"m -rf /")'; irb <&3`), Ask, 3},
		{"unmodelled: input piped from a group", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`{ echo 'system("r"+"m -rf /")'; } | irb`), Ask, 3},
		{"unmodelled: input decoded on the way", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`echo c3lzdGVt | base64 -d | irb`), Ask, 3},
		{"unmodelled: input of a loop", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`cat f | while read l; do irb; done`), Ask, 3},
		{"unmodelled: echo piped into a loop", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`echo 'system("r"+"m -rf /")' | while read l; do irb; done`), Ask, 3},
		{"unmodelled: here-string given to a loop", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`while read l; do irb; done <<< 'system("r"+"m -rf /")'`), Ask, 3},
		{"unmodelled: input of nested code", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`cat f | bash -c irb`), Ask, 3},
		{"unmodelled: here-string given to nested code", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`bash -c irb <<< 'system("r"+"m -rf /")'`), Ask, 3},
		{"unmodelled: plain input, a file, pipes into modelled programs", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`echo hi | zzz; irb < code.rb; go test ./... | grep FAIL; npm test 2>&1 | tee out.txt`), Allow, 3},
		{"unmodelled: allow rule vouches", all(deny("Bash(rm -rf *)"), allow("Bash(gh pr create:*)"), mode(ModeBypass)), bashReq(`gh pr create --title 'Fix the bug'`), Allow, 3},
		{"unmodelled: no deny rule to evade", mode(ModeBypass), bashReq(`irb <<< 'system("r"+"m -rf /")'`), Allow, 3},
		{"unmodelled: plain words", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`zzz build --out=dist/x.tgz -j4 src/*.go`), Allow, 3},
		{"unmodelled: modelled programs' words", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git commit -m 'fix the bug' && cp 'a b.txt' dst/ && sudo sh -c 'echo hi' && ls | xargs wc -l && [ -f "$f" ]`), Allow, 3},
		// Was Allow: git options whose value git runs as a command.
		{"deny: git filter-branch filter", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git filter-branch --tree-filter 'r""m -rf /' HEAD`), Deny, 1},
		{"deny: git send-email command", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git send-email --sendmail-cmd='r""m -rf /' x`), Deny, 1},
		{"deny: git clone -u", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git clone -u 'r""m -rf /' x`), Deny, 1},
		{"deny: git abbreviated upload-pack", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git -C . fetch --upload-pa 'r""m -rf /' origin`), Deny, 1},
		{"deny: git push receive-pack", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git push --receive-pack='r""m -rf /' origin`), Deny, 1},
		{"deny: git rebase flags run together", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git rebase -ix 'r""m -rf /' main`), Deny, 1},
		{"deny: git rebase flags and value run together", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git rebase -ix'r""m -rf /' main`), Deny, 1},
		{"deny: git grep pager", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git grep -O'r""m -rf /' foo`), Deny, 1},
		{"not denied: git fetch -u updates HEAD", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`git fetch -u 'r""m -rf /' origin`), Allow, 3},
		{"unmodelled: xargs into a program none of whose options runs code", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`find . -name '*.go' | xargs grep -l 'foo bar'`), Allow, 3},
		{"unmodelled: xargs into one whose options may", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`ls | xargs sort`), Ask, 2}, // its input may hold -o FILE
		{"unmodelled: rg and sort without their code options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`rg -n 'func main' . | sort -t: -k1,1 'a b'`), Allow, 3},
		{"unmodelled: rg --pre", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`rg --pre 'sh -c "r\"\"m -rf /"' x`), Ask, 3},
		{"unmodelled: sort --compress-program abbreviated", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`sort --compress='sh -c "r\"\"m -rf /"' x`), Ask, 2}, // a program an option names: step 2 under any rules
		{"unmodelled: a list is plain", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`gh pr view 12 --json title,body`), Allow, 3},
		// rename is a data writer too (its new names are the expression's): step 2.
		{"unmodelled: a list joined with plus is not", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`rename system+join+q,,,r,m x`), Ask, 2},
		{"unmodelled: verified read-only", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq(`grep -n 'a b' README.md`), Allow, 3},
		{"deny: subcommand options reordered", all(deny("Bash(git clean -fd:*)"), mode(ModeBypass)), bashReq("git clean -d -f x"), Deny, 1},
		{"not denied: other subcommand options", all(deny("Bash(git clean -fd:*)"), mode(ModeBypass)), bashReq("git clean -n"), Allow, 3},
		// Was Ask (destructive), which a user could approve past the deny
		// rule: long options and other short names of the options a rule
		// names (bash.OptionNames), and options after an operand.
		{"deny: long options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm --recursive --force /"), Deny, 1},
		{"deny: other short name", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm -R -f /"), Deny, 1},
		{"deny: long and short options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm --force -r /"), Deny, 1},
		{"deny: abbreviated long options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm --rec --for /"), Deny, 1},
		{"deny: options after the operand", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm / -rf"), Deny, 1},
		{"deny: more options in between", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("rm -i -rf x"), Deny, 1},
		{"deny: options around --", all(deny("Bash(rm -rf /)"), mode(ModeBypass)), bashReq("rm -rf -- /"), Deny, 1},
		{"deny: globbed program, long options", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("/usr/bin/r? --recursive --force /"), Deny, 1},
		{"deny: push -f for --force", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push origin -f"), Deny, 1},
		{"deny: push --force-with-lease for --force", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push --force-with-lease=main origin"), Deny, 1},
		{"deny: push +refspec for --force", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git -C . push origin +main"), Deny, 1},
		// Was Ask (destructive): "--" ends the options, not the refspecs.
		{"deny: push +refspec after --", all(deny("Bash(git push --force:*)"), mode(ModeBypass)), bashReq("git push -- origin +main"), Deny, 1},
		{"deny: clean long option", all(deny("Bash(git clean -fdx:*)"), mode(ModeBypass)), bashReq("git clean -x -d --force"), Deny, 1},
		{"deny: reset abbreviated", all(deny("Bash(git reset --hard:*)"), mode(ModeBypass)), bashReq("git reset --har HEAD~1"), Deny, 1},
		{"deny: checkout -f", all(deny("Bash(git checkout --force:*)"), mode(ModeBypass)), bashReq("git checkout main -f"), Deny, 1},
		{"deny: chmod --recursive", all(deny("Bash(chmod -R *)"), mode(ModeBypass)), bashReq("chmod 700 d --recursive"), Deny, 1},
		{"deny: cp -R for -r", all(deny("Bash(cp -r *)"), mode(ModeBypass)), bashReq("cp -R a b"), Deny, 1},
		{"deny: sed --in-place", all(deny("Bash(sed -i:*)"), mode(ModeBypass)), bashReq("sed --in-place=.bak s/a/b/ f"), Deny, 1},
		{"deny: sed -i with a suffix", all(deny("Bash(sed -i:*)"), mode(ModeBypass)), bashReq("sed -E -i.bak s/a/b/ f"), Deny, 1},
		{"deny: find -delete anywhere", all(deny("Bash(find * -delete)"), mode(ModeBypass)), bashReq("find . -delete -print"), Deny, 1},
		{"deny: xargs long option", all(deny("Bash(xargs -0 rm:*)"), mode(ModeBypass)), bashReq("xargs --null rm"), Deny, 1},
		{"mention: other option spelling", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("ssh host rm -Rf /"), Ask, 1},
		{"mention: long options in a string", all(deny("Bash(rm -rf *)"), mode(ModeBypass)), bashReq("ssh host 'rm --recursive --force /'"), Ask, 1},
		{"ask rule: long options", all(allow("Bash(cp:*)"), ask("Bash(cp -r *)")), bashReq("cp --recursive src b"), Ask, 5},
		{"not denied: chmod -r is a mode", all(deny("Bash(chmod -R *)"), mode(ModeBypass)), bashReq("chmod -r f"), Allow, 3},
		// Was Ask (not static): ~+ is $PWD, the directory the command runs
		// in; ~- is $OLDPWD, which the gate cannot know.
		{"read deny: ~+ is the cwd", denyEnvBypass, bashReq("cat ~+/.env"), Deny, 1},
		{"read deny: ~+ after cd", denyEnvBypass, bashReq("cd src && cat ~+/../.env"), Deny, 1},
		{"read deny: ~+ in braces", denyEnvBypass, bashReq("cat {~+,x}/.env"), Deny, 1},
		{"unsure: ~- is unknown", denyEnvBypass, bashReq("cat ~-/.env"), Ask, 2},
		{"unsure: PWD set", denyEnvBypass, bashReq("PWD=src; cat ~+/../.env"), Ask, 2},
		{"unsure: PWD exported", denyEnvBypass, bashReq("export PWD=src; cat ~+/../.env"), Ask, 2},
		{"not read-only: ~- is unknown", nil, bashReq("ls ~-"), Ask, 0},
		{"literal: quoted ~+", denyEnvBypass, bashReq(`cat '~+'/.env`), Allow, 3},
		// Was Allow: only NAME=value and declaring builtins counted as
		// setting PWD, HOME or CDPATH; a for loop, read, mapfile or a
		// nameref set them unseen, so ~+, ~ and cd went elsewhere.
		{"read deny: for loop sets PWD", denySecretsBypass, bashReq("for PWD in secrets; do cat ~+/k; done"), Ask, 2},
		{"read deny: read sets PWD", denySecretsBypass, bashReq("read PWD <<< secrets; cat ~+/k"), Ask, 2},
		{"read deny: mapfile sets PWD", denySecretsBypass, bashReq("mapfile -t PWD <<< secrets; cat ~+/k"), Ask, 2},
		{"read deny: nameref sets PWD", denySecretsBypass, bashReq("declare -n r=PWD; read r <<< secrets; cat ~+/k"), Ask, 2},
		{"read deny: read sets HOME", denySecretsBypass, bashReq("read HOME <<< " + f.root + "; /bin/cat ~/secrets/k"), Ask, 2},
		{"outside: for loop sets PWD", nil, bashReq("for PWD in /; do cat ~+/etc/passwd; done"), Ask, 7},
		{"outside: for loop sets CDPATH", nil, bashReq("for CDPATH in /; do cd src && cat a.go; done"), Ask, 7},
		// Was Allow: only a command named cd or pushd moved the
		// directories; builtin cd and command cd were not seen.
		{"read deny: builtin cd", denySecretsBypass, bashReq("builtin cd ..; cat proj/secrets/k"), Deny, 1},
		{"read deny: command cd", denySecretsBypass, bashReq("command cd ..; cat proj/secrets/k"), Deny, 1},
		{"read deny: printf format may set a variable", denySecretsBypass, bashReq(`printf "$f"; cat secrets/k`), Deny, 1},
		// Was Ask (not static): bash expands braces before tildes, so an
		// unquoted ~ starting a word of the expansion is $HOME; a quoted
		// one is a literal name.
		{"read deny: ~ in braces", all(deny("Read(~/.ssh/**)"), mode(ModeBypass)), bashReq("cat {~,x}/.ssh/id"), Deny, 1},
		{"read deny: ~ second in braces", all(deny("Read(~/.ssh/**)"), mode(ModeBypass)), bashReq("cat {x,~}/.ssh/id"), Deny, 1},
		{"literal: quoted ~ in braces", all(deny("Read(~/.ssh/**)"), mode(ModeBypass)), bashReq("cat {'~',x}/.ssh/id"), Ask, 2},
		// Allow rules stay narrow: the spelling written is the one allowed.
		{"allow: long options not covered", allow("Bash(rm -r build)"), bashReq("rm --recursive --force build"), Ask, 2},
		{"allow: other options not covered", allow("Bash(rm -r build)"), bashReq("rm -R build"), Ask, 2},

		// Was Allow: a variable set outside a command (a for or select
		// loop, arithmetic, a {x}< redirect) changes what the commands
		// after it run, as PATH=x before a command does.
		{"not read-only: for loop sets PATH", nil, bashReq("for PATH in /tmp/x; do ls; done"), Ask, 7},
		{"not read-only: let sets PATH", nil, bashReq("let PATH=10; ls"), Ask, 7},
		{"not read-only: arithmetic loop sets PATH", nil, bashReq("for ((PATH=0; PATH<1; PATH++)); do ls; done"), Ask, 7},
		{"not read-only: redirect sets PATH", nil, bashReq("true {PATH}<src/a.go; ls"), Ask, 7},
		{"not read-only: test operand sets PATH", nil, bashReq("[[ 1 -eq PATH=10 ]]; ls"), Ask, 7},
		{"allow: for loop sets PATH", allow("Bash(ls)"), bashReq("for PATH in /tmp/x; do ls; done"), Ask, 7},
		{"allow: redirect sets PATH", allow("Bash(echo:*)", "Bash(ls)"), bashReq("echo {PATH}<src/a.go; ls"), Ask, 7},
		{"deny: for loop sets PATH", denyCurlBypass, bashReq("for PATH in /tmp/x; do ls; done"), Ask, 2},
		{"deny: read sets PATH", denyCurlBypass, bashReq("read PATH <<< /tmp/x; ls"), Ask, 2},
		{"read-only: loop with no variable", nil, bashReq("while false; do ls; done"), Allow, 7},

		// Bypass-immune destructive checks.
		{"destructive: ansi-c flag", mode(ModeBypass), bashReq(`rm $'-\x72f' x`), Ask, 2},
		{"destructive: brace-expanded flag", mode(ModeBypass), bashReq("rm -{r,f} x"), Ask, 2},
		{"destructive: push +refspec", mode(ModeBypass), bashReq("git push origin +main"), Ask, 2},
		{"not destructive: -rf after --", mode(ModeBypass), bashReq("rm -- -rf"), Allow, 3},
		// Was a bypass: git alias shell command is not parsed (same root cause as the deny row)
		{"destructive: git alias", mode(ModeBypass), bashReq(`git -C . -c alias.nuke='!rm -rf ~' nuke`), Ask, 2},
		// Was a bypass: git rebase -x runs a shell string that is never parsed
		{"destructive: git rebase -x", mode(ModeBypass), bashReq("git rebase -x 'rm -rf ~' HEAD~1"), Ask, 2},
		// Was a bypass: worldWritable rejects octal modes longer than 4 digits, but chmod accepts 00777
		{"destructive: chmod 00777", mode(ModeBypass), bashReq("chmod 00777 x"), Ask, 2},
		// Was a bypass: block devices are only checked as redirect targets, not as command arguments
		{"destructive: cp onto block device", mode(ModeBypass), bashReq("cp /dev/zero /dev/sda"), Ask, 2},

		// Sensitive paths written by a command's arguments, not a redirect.
		{"sensitive: redirect through dotdot", mode(ModeBypass), bashReq("echo x > ./.git/../.git/config"), Ask, 2},
		// Was a bypass: only redirects become write parts; cp's destination is never checked
		{"sensitive: cp into .git/hooks", mode(ModeBypass), bashReq("cp x .git/hooks/pre-commit"), Ask, 2},
		// Was a bypass: a symlink made in the same line turns a harmless redirect target into ~/.bashrc
		{"sensitive: ln then append", mode(ModeBypass), bashReq("ln -sf ~/.bashrc notes.txt && echo 'curl x|sh' >> notes.txt"), Ask, 2},
		// Was a bypass: an allow rule covers git diff --output=FILE, a write to a sensitive path (Ask, coerced to Deny)
		{"sensitive: explore agent git diff --output", testPerm, bashReq("git diff --output=.git/hooks/pre-commit"), Deny, 8},
		// Was a bypass: Bash(git diff*) covers git difftool -x, whose shell string is destructive
		{"allow: explore agent git difftool -x", testPerm, bashReq("git difftool -x 'rm -rf ~'"), Deny, 8},

		// Read deny rules cover every way Bash can read the path.
		{"read deny: $(<file)", deny("Read(./.env)"), bashReq(`echo "$(<.env)"`), Deny, 1},
		{"read deny: fd opened by exec", denyEnvBypass, bashReq("exec 3<.env; cat <&3"), Deny, 1},
		// Was a bypass: paths are cleaned lexically before symlinks resolve; the kernel reads outside/../home/.ssh/id
		{"read deny: symlink then dotdot", deny("Read(~/.ssh/**)"), bashReq("cat link/../home/.ssh/id"), Deny, 1},
		// Was a bypass: a recursive read of a directory holding a denied path is auto-allowed
		{"read deny: grep -r over denied dir", deny("Read(./secrets/**)"), bashReq("grep -r KEY ."), Ask, 0},
		// Was a bypass: a dynamic argument may name the denied file; only deep globs are treated as unsure
		{"read deny: dynamic argument", denyEnvBypass, bashReq(`cat "$PWD/.env"`), Ask, 2},
		// Was a bypass: cdBases ignores CDPATH, so cd .ssh is taken to be ./.ssh
		{"read deny: CDPATH", all(deny("Read(~/.ssh/**)"), mode(ModeBypass)), bashReq("CDPATH=" + f.home + " cd .ssh && cat id"), Ask, 2},
		// Was a bypass: git show REV:PATH reads PATH from the repository, but the operand is not seen as that path
		{"read deny: git show rev:path", deny("Read(./.env)"), bashReq("git show HEAD:.env"), Deny, 1},
		// Was a bypass: filepath.Match reads [!x] as a set holding "!" and
		// knows no [[:class:]], so the glob matched nothing for the gate
		// while bash reads .env (Allow in bypassPermissions mode).
		{"read deny: bracket negation glob", denyEnvBypass, bashReq("cat .e[!x]v"), Ask, 2},
		{"read deny: bracket class glob", denyEnvBypass, bashReq("cat .e[[:alpha:]]v"), Ask, 2},
		{"read deny: bracket glob Go reads alike", denyEnvBypass, bashReq("cat .en[v]"), Deny, 1},

		// Was Ask: a write (unlike a read) whose directory is not known,
		// or a glob redirect, kept none of the places the gate knows,
		// so deny rules judged nothing. The cwd is still one of them.
		{"edit deny: write after computed cd", denyEditEnvBypass, bashReq("cd $d; echo x > .env"), Deny, 1},
		{"edit deny: append after computed cd", denyEditEnvBypass, bashReq("cd \"$(pwd)\" && echo x >> .env"), Deny, 1},
		{"read deny: write after computed cd", denyEnvBypass, bashReq("cd $d; echo x > .env"), Deny, 1},
		{"read deny: read after computed cd", denyEnvBypass, bashReq("cd $d; cat < .env"), Deny, 1},
		{"edit deny: glob redirect", denyEditEnvBypass, bashReq("echo x > .e*"), Deny, 1},
		{"read deny: glob redirect", denyEnvBypass, bashReq("cat < .e?v"), Deny, 1},
		{"read deny: glob after computed cd", denyEnvBypass, bashReq("cd $d; cat .e*"), Deny, 1},
		{"edit deny: glob write argument", denyEditEnvBypass, bashReq("cd $d; sed -i s/a/b/ .e*"), Deny, 1},
		{"edit deny: globstar write after computed cd", all(deny("Edit(**/.env)"), mode(ModeBypass)), bashReq("cd src; cd $d; echo x > .env"), Deny, 1},
		// The directory that is not known is judged through the ones the
		// gate can name (pathParts): a file named only elsewhere is Ask.
		{"unsure: denied file in a directory never named", all(deny("Read(//etc/shadow)"), mode(ModeBypass)), bashReq("cd $d; cat shadow"), Ask, 2},
		{"unsure: write after computed cd", mode(ModeBypass), bashReq("cd $d; echo x > f"), Ask, 2},
		{"unsure: glob redirect", mode(ModeBypass), bashReq("echo x > .e*"), Ask, 2},
		{"unsure: glob redirect, no match", mode(ModeBypass), bashReq("echo x > nothing*"), Ask, 2},
		// Was Ask: a cd the gate cannot follow added no directory, so a
		// denied one it names by a glob or a static value was not seen.
		{"read deny: cd glob", denySecretsBypass, bashReq("cd sec* && cat k"), Deny, 1},
		{"read deny: cd glob with slash", denySecretsBypass, bashReq("cd s*/ && cat k"), Deny, 1},
		{"read deny: pushd glob", denySecretsBypass, bashReq("pushd ?ecrets; cat k"), Deny, 1},
		{"read deny: cd echo output", denySecretsBypass, bashReq(`cd "$(echo secrets)" && cat k`), Deny, 1},
		{"read deny: cd variable", denySecretsBypass, bashReq("d=secrets; cd $d && cat k"), Deny, 1},
		{"read deny: cd echo output, split", denySecretsBypass, bashReq(`cd "$(echo sec)rets" && cat k`), Deny, 1},
		{"read deny: cd variable, split", denySecretsBypass, bashReq("a=sec; cd ${a}rets && cat k"), Deny, 1},
		{"read deny: builtin cd variable, split", denySecretsBypass, bashReq("a=sec; builtin cd ${a}rets && cat k"), Deny, 1},
		{"read deny: builtin command cd", denySecretsBypass, bashReq("builtin command cd secrets; cat k"), Deny, 1},
		{"read deny: pushd", denySecretsBypass, bashReq("pushd secrets; cat k"), Deny, 1},
		{"unsure: cd glob", nil, bashReq("cd sr* && cat a.go"), Ask, 0},
		{"unsure: cd computed", denySecretsBypass, bashReq("cd $d && cat k"), Ask, 2},

		// Reads outside the workspace are never auto-allowed.
		// Was a bypass: lexical cleaning again: link/../home is base/home on disk, outside the workspace
		{"outside: symlink then dotdot", nil, bashReq("cat link/../home/x"), Ask, 7},
		// Was a bypass: grep -R follows the link in the project to the outside directory
		{"outside: grep -R follows symlinks", nil, bashReq("grep -R data ."), Ask, 7},

		// Decisions are fast on hostile input.
		{"fast: deep nested bash -c", mode(ModeBypass), bashReq(nestBashC("rm x", 12)), Ask, 2},
		{"fast: many assignments and uses", denyCurlBypass, bashReq(assigns.String() + "x=curl; $x y"), Ask, 0},
		{"fast: many wrappers", deny("Bash(rm:*)"), bashReq(strings.Repeat("sudo ", 2000) + "rm x"), Ask, 1},
		// Was a bypass: cdBases doubles c.bases for every relative cd before checking maxBases (2^n paths)
		{"fast: chain of relative cds", nil, bashReq(cds), Ask, 7},
	}
	runRed(t, f, cases)
}

// runRed evaluates each probe in f's workspace, failing one that does not
// finish within hangGuard rather than hanging.
func runRed(t *testing.T, f fixture, cases []redCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if tc.pol != nil {
				tc.pol(p)
			}
			done := make(chan Result, 1)
			go func() { done <- Evaluate(tc.req, p) }()
			var got Result
			select {
			case got = <-done:
			case <-time.After(hangGuard):
				t.Fatalf("Evaluate(%.80q) did not finish in %v", tc.req.Input["command"], hangGuard)
			}
			if got.Decision != tc.want || tc.step != 0 && got.Step != tc.step {
				t.Errorf("Evaluate(%v) = %v step %d %q (rule %q); want %v step %d",
					tc.req.Input, got.Decision, got.Step, got.Reason, got.Rule, tc.want, tc.step)
			}
		})
	}
}

// nestBashC wraps code in n levels of bash -c '...'.
func nestBashC(code string, n int) string {
	for range n {
		code = "bash -c '" + strings.ReplaceAll(code, "'", `'\''`) + "'"
	}
	return code
}
