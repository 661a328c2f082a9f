package tool

import (
	"context"
	"os"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/perm"
)

// testEnv returns an Env whose Cwd and Root are a fresh temporary
// directory, and that directory.
func testEnv(t testing.TB) (*Env, string) {
	t.Helper()
	dir := testtree.Dir(t)
	return NewEnv(perm.Workspace{Cwd: dir, Root: dir}), dir
}

// call runs the built-in tool name from env's file tools.
func call(t *testing.T, env *Env, name string, in map[string]any) (string, error) {
	t.Helper()
	return callCtx(context.Background(), t, env, name, in)
}

func callCtx(ctx context.Context, t *testing.T, env *Env, name string, in map[string]any) (string, error) {
	t.Helper()
	for _, tl := range fileTools(env) {
		if tl.Name() == name {
			return tl.Run(ctx, Call{Input: in})
		}
	}
	t.Fatalf("no built-in tool %q", name)
	return "", nil
}

// files is testtree.Write, as the tests here call it.
func files(t testing.TB, dir string, m map[string]string) {
	t.Helper()
	testtree.Write(t, dir, m)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
