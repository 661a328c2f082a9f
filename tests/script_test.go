// Package tests holds gen's end-to-end tests: testscript scripts in
// testdata/script drive the real gen command, in process.
package tests

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gen-run/gen/cli"
	"github.com/gen-run/gen/internal/sandboxtest"
)

var update = flag.Bool("u", false, "update testscript golden files")

func TestMain(m *testing.M) {
	// gen re-executes itself as the sandbox helper; here "itself" is
	// this test binary.
	sandboxtest.Dispatch()
	testscript.Main(m, map[string]func(){
		"gen": func() { os.Exit(cli.Main()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// Hermetic: no model endpoint from the developer's shell, and a
			// home directory inside the sandbox.
			env.Setenv("OPENAI_BASE_URL", "")
			env.Setenv("OPENAI_API_KEY", "")
			env.Setenv("GEN_MODEL", "")
			env.Setenv("HOME", env.WorkDir+"/home")
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonnorm": jsonnorm,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "git" {
				_, err := exec.LookPath("git")
				return err == nil, nil
			}
			return false, nil
		},
	})
}

// What varies between runs of the same script: session IDs, durations,
// the work directory, and the input token count, which grows with the
// system prompt (it names the work directory and the date).
var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	durationRE = regexp.MustCompile(`"(duration_ms|duration_api_ms|input_tokens)":[0-9]+`)
)

// jsonnorm FILE OUT writes FILE (stdout, stderr or a file) to OUT with
// session IDs replaced by <session>, durations and input tokens by 0 and the work
// directory by $WORK, so that golden files can be compared with cmp.
func jsonnorm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonnorm FILE OUT")
	}
	s := ts.ReadFile(args[0])
	s = uuidRE.ReplaceAllString(s, "<session>")
	s = durationRE.ReplaceAllString(s, `"$1":0`)
	s = strings.ReplaceAll(s, ts.Getenv("WORK"), "$WORK")
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(s), 0o644))
}
