package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gen-run/gen/perm"
)

// BenchmarkGeminiPolicyEngine decides the same 20,000 distinct Bash calls
// as BenchmarkBatch with Gemini CLI's policy engine (bench/gemini, run by
// node) and with gen's --batch, and reports both costs per call and their
// ratio. It also times what the driver times for Gemini, decisions on
// calls already decoded, for gen on every core (gen-eval) and on one
// (gen-eval-1cpu). It needs node and @google/gemini-cli-core installed in the
// directory GEN_GEMINI_BENCH names (see bench/gemini/README.md) and skips
// otherwise; CI does not run it.
func BenchmarkGeminiPolicyEngine(b *testing.B) {
	dir := os.Getenv("GEN_GEMINI_BENCH")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		b.Skip("set GEN_GEMINI_BENCH to a directory with node_modules/@google/gemini-cli-core and put node on PATH (bench/gemini/README.md)")
	}
	_, self, _, _ := runtime.Caller(0)
	driver := filepath.Join(filepath.Dir(self), "..", "bench", "gemini", "driver.mjs")
	in := benchInput(b)
	file := filepath.Join(b.TempDir(), "calls.jsonl")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		b.Fatal(err)
	}
	pol := checkPolicy(b)
	// The requests Gemini's timed loop starts from: decoded already.
	var reqs []perm.Request
	for line := range bytes.Lines(in) {
		req, err := parseBatchLine(line)
		if err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	var gemNs, genNs, evalNs, evalOneNs float64
	for b.Loop() {
		out, err := exec.Command(node, driver, "--modules", dir, "--json", file).Output()
		if err != nil {
			b.Fatalf("driver: %v", err)
		}
		var res struct {
			Calls  int     `json:"calls"`
			LoopNs float64 `json:"loop_ns"`
		}
		if err := json.Unmarshal(out, &res); err != nil || res.Calls != benchCalls {
			b.Fatalf("driver output %q: %v", out, err)
		}
		gemNs += res.LoopNs / float64(res.Calls)
		start := time.Now()
		// runBatch is what gen permissions check --batch FILE runs.
		if err := runBatch(context.Background(), file, pol, Streams{Out: io.Discard, Err: io.Discard}); err != nil {
			b.Fatal(err)
		}
		genNs += float64(time.Since(start).Nanoseconds()) / benchCalls
		evalNs += decideAll(reqs, pol, runtime.GOMAXPROCS(0))
		evalOneNs += decideAll(reqs, pol, 1)
	}
	n := float64(b.N)
	b.ReportMetric(gemNs/n, "gemini-ns/call")
	b.ReportMetric(genNs/n, "gen-ns/call")
	b.ReportMetric(gemNs/genNs, "gemini/gen")
	b.ReportMetric(evalNs/n, "gen-eval-ns/call")
	b.ReportMetric(gemNs/evalNs, "gemini/gen-eval")
	b.ReportMetric(evalOneNs/n, "gen-eval-1cpu-ns/call")
	b.ReportMetric(gemNs/evalOneNs, "gemini/gen-eval-1cpu")
}

// decideAll decides reqs under pol on workers goroutines, as a fresh
// --batch run would (a Resolver per worker, its GC target), and returns
// the wall time per call.
// It times what Gemini's driver times: decisions on decoded calls, with
// no input to read and no output to write.
func decideAll(reqs []perm.Request, pol *perm.Policy, workers int) float64 {
	defer raiseGCPercent()() // as --batch does
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			res := workerResolver(workers)
			for i := next.Add(1) - 1; i < int64(len(reqs)); i = next.Add(1) - 1 {
				res.Evaluate(reqs[i], pol)
			}
		})
	}
	wg.Wait()
	return float64(time.Since(start).Nanoseconds()) / float64(len(reqs))
}
