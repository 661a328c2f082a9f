package tool

import (
	"fmt"
	"testing"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
)

// benchTree builds a source tree of 1,600 Go files next to a dependency
// directory of as many files that searches must skip.
func benchTree(b *testing.B) *Env {
	b.Helper()
	env, dir := testEnv(b)
	m := map[string]string{}
	for i := range 40 {
		for j := range 40 {
			m[fmt.Sprintf("pkg%02d/f%02d.go", i, j)] = "package p\n\nfunc F() int {\n\treturn 42\n}\n// TODO: more\n"
			m[fmt.Sprintf("node_modules/m%02d/f%02d.js", i, j)] = "// TODO: deps\n"
		}
	}
	files(b, dir, m)
	return env
}

func BenchmarkGrep(b *testing.B) {
	env := benchTree(b)
	tl := grepTool{env}
	in := map[string]any{"pattern": `TODO: \w+`, "max_results": 1000.0}
	for b.Loop() {
		if _, err := tl.Run(b.Context(), Call{Input: in}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGlob(b *testing.B) {
	env := benchTree(b)
	tl := globTool{env}
	in := map[string]any{"pattern": "**/*.go"}
	for b.Loop() {
		if _, err := tl.Run(b.Context(), Call{Input: in}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadWindow(b *testing.B) {
	env, dir := testEnv(b)
	files(b, dir, map[string]string{"big.txt": manyLines(50000)})
	tl := readTool{env}
	in := map[string]any{"file_path": "big.txt", "offset": 25000.0, "limit": 100.0}
	for b.Loop() {
		if _, err := tl.Run(b.Context(), Call{Input: in}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBash is one Bash call of `true` under each profile: the ratio
// of read-only or workspace-write to none is what the sandbox adds.
func BenchmarkBash(b *testing.B) {
	env, _ := testEnv(b)
	tl := bashTool{env}
	in := map[string]any{"command": "true"}
	for _, p := range []sandbox.Profile{sandbox.None, sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		b.Run(string(p), func(b *testing.B) {
			if ok, why := sandbox.Available(); !ok && p != sandbox.None {
				b.Skip(why)
			}
			call := Call{Input: in, Decision: Decision{Result: perm.Result{Decision: perm.Allow, Sandbox: p}}}
			for b.Loop() {
				if _, err := tl.Run(b.Context(), call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
