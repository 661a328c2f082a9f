package bash

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMoreCommandsAgainstBash is TestCommandsAgainstBash over the shapes
// its grammar leaves out: command substitutions nested in double quotes,
// parameter expansions, arithmetic, array subscripts, redirect targets
// and assignments; select, coproc, until and arithmetic for loops;
// functions declared with the function keyword; code run by eval and
// bash -c; extended globs. Bash runs with extglob on, as Parse reads.
func TestMoreCommandsAgainstBash(t *testing.T) {
	requireBash(t)
	lines := moreCommandLines(rand.New(rand.NewPCG(9, 2026)), 3000)
	compareCommands(t, lines, runOracleWith(t, lines, "shopt -s extglob\nexport -f p\n"), false)
}

// moreShapes wrap a p command (S) into the shapes of
// TestMoreCommandsAgainstBash; Q is the command quoted (quoteString) for eval
// and bash -c. Output of a command inside a substitution goes to fd 3,
// the script's stdout.
var moreShapes = []string{
	`: "$(S >&3)"`,
	`: "a$(S >&3)b" "$(S >&3)"`,
	`: "${x:-$(S >&3)}"`,
	`: ${x:-$(S >&3)}`,
	`: "${x:=$(S >&3)}"; unset x`,
	`x=$(S >&3)`,
	`x=$(S >&3) y="$(S >&3)"`,
	`a=( $(S >&3) )`,
	`declare x="$(S >&3)"`,
	`export x=$(S >&3)`,
	`: $(( 1 + $(S >&3; echo 1) ))`,
	`: "${a[$(S >&3; echo 0)]}"`,
	`(( a[$(S >&3; echo 0)] = 1 ))`,
	`S > $(S >&3; echo /dev/null)`,
	`S 2> "$(S >&3; echo /dev/null)"`,
	`case $(S >&3) in *) S ;; esac`,
	`case x in $(S >&3; echo x)) S ;; esac`,
	`for _ in $(S >&3); do :; done`,
	`[[ $(S >&3) == x ]] || S`,
	`[ "$(S >&3)" ] || S`,
	`until S; true; do :; done`,
	`while S; false; do :; done`,
	`for (( i = 0; i < 1; i++ )); do S; done`,
	`select _ in a; do S; break; done <<< 1 2>/dev/null`,
	`coproc { S >&3; }; wait`,
	`function f { S; }; f`,
	`function f() { S; }; f`,
	`f() ( S ); f`,
	`S | cat`,
	`S |& cat`,
	`{ S; } 2>&1`,
	"{ S & }; wait", // the & only S's, so that wait is the shell's own
	`eval Q`,
	`eval "Q"`,
	`bash -c Q`,
	`bash -c Q; S`,
	`: "$(S >&3 # c
)"`,
	`: "$(cat <<E
$(S >&3)
E
)"`,
	`: "$( (S >&3) )"`,
	"`S >&3`",
	`: "` + "`S >&3`" + `"`,
	`S @(a|b) +(x) ?(y)`,
	`S !(a|b)`,
	`x=@(a|b); S`,
	`: $[ $(S >&3; echo 1) ]`,
	`S <<< "$(S >&3)"`,
	`: "${x:-"$(S >&3)"}"`,
	`: "${x:-'$(S >&3)'}"`,
	`: ${x:-"$(S >&3)"}`,
	`: "${x#$(S >&3)}" "${x/$(S >&3)/y}"`,
	`case x in ")"|x) S;; esac`,
	`case x in (x) S;; esac`,
	`: $(case x in x) S >&3;; esac)`,
	`: "$(case x in (x) S >&3;; esac)"`,
	`[[ x =~ $(S >&3) ]] || S`,
	`[[ x =~ ( a|b ) ]] || S`,
	`[[ x == @(a|$(S >&3)) ]] || S`,
	`(( x = $(S >&3; echo 1) ))`,
	`let x=$(S >&3; echo 1)`,
	`: $(cat <<-E
	$(S >&3)
	E
)`,
	`: $(cat <<'E'
$(S >&3)
E
)`,
	`! S`,
	`time -p S 2>/dev/null`,
	`S 3>&1 >&3`,
	`{ S;}`,
	`: $(( 1 +\
 $(S >&3; echo 1) ))`,
	`S # $(S >&3)`,
	`S ';' "#" \# x#y`,
	`: <<E; S
E`,
	`: <<E && S
$(S >&3)
E`,
	`: $"$(S >&3)"`,
	`: "${x:-\"$(S >&3)\"}"`,
	`: "${x:-` + "`S >&3`" + `}"`,
	`: ${x:-${y:-$(S >&3)}}`,
	`: "$(( $(S >&3; echo 1) ))"`,
	`: ${x[$(S >&3; echo 0)]}`,
	`declare -A m; m[$(S >&3; echo k)]=1`,
	`x[$(S >&3; echo 0)]=1`,
	`[[ -v a[$(S >&3; echo 0)] ]] || S`,
	`case $(S >&3) in $(S >&3; echo y)) ;; *) S;; esac`,
	`for x in "$(S >&3)"; do S; done`,
	`: "$(printf '%s' "$(S >&3)")"`,
	`: $(: ')'; S >&3)`,
	`: $(echo "(" ; S >&3)`,
	`: $( # a comment with )
S >&3)`,
	`: $(case x in x) : ;; esac; S >&3)`,
	`: $(cat <<'E'
)
E
S >&3)`,
	`: $(cat <<E
)
E
S >&3)`,
	`: $( (S >&3) ; S >&3)`,
	`: $((S >&3) )`,
	`: $( ((1)) && S >&3)`,
}

// moreCommandLines makes n lines for TestMoreCommandsAgainstBash.
func moreCommandLines(r *rand.Rand, n int) []string {
	var lines []string
	for range n {
		var b strings.Builder
		for i := range 1 + r.IntN(3) {
			if i > 0 {
				b.WriteString([]string{"; ", " && ", "\n", " || ", " ;\n"}[r.IntN(5)])
			}
			cmd := "p"
			for range r.IntN(3) {
				cmd += " " + oracleWord(r)
			}
			seg := moreShapes[r.IntN(len(moreShapes))]
			seg = strings.ReplaceAll(seg, "Q", quoteString(cmd))
			seg = strings.ReplaceAll(seg, "S", cmd)
			b.WriteString(seg)
		}
		lines = append(lines, b.String())
	}
	return lines
}
