package cli

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// BenchmarkGeminiPolicyEngine decides the same 20,000 distinct Bash calls
// as BenchmarkBatch with Gemini CLI's policy engine (bench/gemini, run by
// node) and with gen's --batch, and reports both costs per call and their
// ratio. It needs node and @google/gemini-cli-core installed in the
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
	var gemNs, genNs float64
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
		if err := runBatch(file, pol, Streams{Out: io.Discard, Err: io.Discard}); err != nil {
			b.Fatal(err)
		}
		genNs += float64(time.Since(start).Nanoseconds()) / benchCalls
	}
	n := float64(b.N)
	b.ReportMetric(gemNs/n, "gemini-ns/call")
	b.ReportMetric(genNs/n, "gen-ns/call")
	b.ReportMetric(gemNs/genNs, "gemini/gen")
}
