// Package tests holds gen's end-to-end tests: testscript scripts in
// testdata/script drive the real gen command, in process.
package tests

import (
	"flag"
	"os"
	"os/exec"
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
		Condition: func(cond string) (bool, error) {
			if cond == "git" {
				_, err := exec.LookPath("git")
				return err == nil, nil
			}
			return false, nil
		},
	})
}
