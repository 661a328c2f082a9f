package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/agenttest"
)

// The start-up benchmarks run the built binary as a user does, one process
// per iteration, beside a Go hello-world built the same way: the machine's
// cost of starting any Go process. Each reports the median milliseconds of
// both and their ratio (gen/hello); the ratio is what to compare across
// machines, the milliseconds are what issue 14's goals are stated in.
//
// Two builds are measured: "go-build" as `go build` makes it (with cgo,
// dynamically linked, where the toolchain has a C compiler) and "release"
// as the Dockerfile makes it (CGO_ENABLED=0 -trimpath -ldflags="-s -w").

// BenchmarkProcessStart runs gen permissions check 'Bash(ls)': process
// start, package init, flag parsing, settings and one decision.
func BenchmarkProcessStart(b *testing.B) {
	for _, bld := range startBuilds {
		b.Run(bld.name, func(b *testing.B) {
			dir, env := startProject(b)
			gen, hello := bld.build(b, "github.com/gen-run/gen/cmd/gen"), buildHello(b, bld)
			benchStart(b, dir, env, hello, gen, "permissions", "check", "Bash(ls)")
		})
	}
}

// BenchmarkAgentList1000 runs gen agent list in a project with 1,000 agent
// files (the agent files of BenchmarkLoad1000 in package agent).
func BenchmarkAgentList1000(b *testing.B) {
	for _, bld := range startBuilds {
		b.Run(bld.name, func(b *testing.B) {
			dir, env := startProject(b)
			for i := range 1000 {
				rel, text := agenttest.File(i)
				p := filepath.Join(dir, ".gen", "agents", rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			gen, hello := bld.build(b, "github.com/gen-run/gen/cmd/gen"), buildHello(b, bld)
			benchStart(b, dir, env, hello, gen, "agent", "list")
		})
	}
}

// startBuild is one way of building a binary for the start-up benchmarks.
type startBuild struct {
	name string
	env  []string // added to the environment of go build
	args []string // go build flags
}

var startBuilds = []startBuild{
	{name: "go-build"},
	{name: "release", env: []string{"CGO_ENABLED=0"}, args: []string{"-trimpath", "-ldflags=-s -w"}},
}

// build builds pkg (an import path, or "." in dir) into a temporary
// directory and returns the binary's path.
func (s startBuild) build(b *testing.B, pkg string, dir ...string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "bin")
	cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, s.args...), pkg)...)
	cmd.Env = append(os.Environ(), s.env...)
	if len(dir) > 0 {
		cmd.Dir = dir[0]
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// buildHello builds a Go program that writes one line and exits.
func buildHello(b *testing.B, s startBuild) string {
	b.Helper()
	dir := b.TempDir()
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return s.build(b, ".", dir)
}

// startProject makes a project directory (with a .git, so that it is the
// project root) that is also HOME, so that no settings or agents of the
// machine's user are read, and returns it with the environment to run gen
// in.
func startProject(b *testing.B) (string, []string) {
	b.Helper()
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	return dir, append(os.Environ(), "HOME="+dir, "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
}

// benchStart runs hello and then gen with args, once each per iteration,
// and reports the median time of each and the ratio of the medians.
func benchStart(b *testing.B, dir string, env []string, hello, gen string, args ...string) {
	b.Helper()
	run := func(bin string, args ...string) time.Duration {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		if err != nil || len(out) == 0 {
			b.Fatalf("%s %q: %v\n%s", bin, args, err, out)
		}
		return d
	}
	run(gen, args...) // the first run reads the binary from disk
	var helloTimes, genTimes []time.Duration
	b.ResetTimer()
	for b.Loop() {
		helloTimes = append(helloTimes, run(hello))
		genTimes = append(genTimes, run(gen, args...))
	}
	h, g := median(helloTimes), median(genTimes)
	b.ReportMetric(ms(g), "gen-ms")
	b.ReportMetric(ms(h), "hello-ms")
	b.ReportMetric(float64(g)/float64(h), "gen/hello")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
