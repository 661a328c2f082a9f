package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/internal/callcorpus"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/settings"
)

// The benchmarks of issue 14 for gen permissions check --batch. Quote
// them as ratios of one run:
//
//	go test ./cli -run '^$' -bench 'BatchOverFloor' -benchtime 5x -count 3
//
// reports BenchmarkBatch over BenchmarkFloor, interleaved; BenchmarkFloor,
// BenchmarkBatch and BenchmarkBatchOneWorker alone add CPU, GC and
// allocation figures; BenchmarkFrontOverFloor splits the one-worker time
// into what is spent before any decision and after.

const benchCalls = 20000

// benchInput is the --batch input of BenchmarkFloor and BenchmarkBatch:
// benchCalls distinct Bash calls, each valid (the corpus's empty command
// is dropped), so every line is a decision.
func benchInput(tb testing.TB) []byte {
	tb.Helper()
	var calls []callcorpus.Call
	for _, c := range callcorpus.Bash(1, benchCalls+100) {
		if _, err := normalise(perm.Request{Tool: c.Tool, Input: maps.Clone(c.Input)}); err == nil && len(calls) < benchCalls {
			calls = append(calls, c)
		}
	}
	if len(calls) != benchCalls {
		tb.Fatalf("%d valid calls, want %d", len(calls), benchCalls)
	}
	return batchInput(tb, calls)
}

// batchInput renders calls as --batch lines ({"tool":...,"input":{...}}).
func batchInput(tb testing.TB, calls []callcorpus.Call) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, c := range calls {
		if err := enc.Encode(map[string]any{"tool": c.Tool, "input": c.Input}); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// checkPolicy is the what-if policy gen permissions check builds for a
// trusted project in acceptEdits mode whose settings hold ten rules from
// three scopes' worth of kinds, as package policy builds it. (Gemini's
// driver, bench/gemini, runs the same rules in its autoEdit mode.)
func checkPolicy(tb testing.TB) *perm.Policy {
	tb.Helper()
	base := tb.TempDir()
	root, home, outside := filepath.Join(base, "proj"), filepath.Join(base, "home"), filepath.Join(base, "outside")
	files := map[string]string{
		root + "/.git/HEAD": "ref: refs/heads/main\n", root + "/src/a.go": "x\n", root + "/secrets/k": "x\n",
		root + "/.env": "x\n", root + "/x.pem": "x\n", outside + "/data": "x\n", home + "/.bashrc": "x\n",
		base + "/managed.json": "{}\n",
		root + "/.gen/settings.json": `{"permissions": {
			"defaultMode": "acceptEdits",
			"deny": ["Bash(rm -rf *)", "Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)", "WebFetch(domain:evil.example)"],
			"ask": ["Bash(git push:*)"],
			"allow": ["Bash(npm run *)", "Bash(go test:*)", "Bash(git:*)", "Read(./src/**)"]}}`,
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink(outside, root+"/link"); err != nil {
		tb.Fatal(err)
	}
	set, err := settings.Load(settings.Options{Cwd: root, Home: home, ManagedPath: base + "/managed.json", Trust: true})
	if err != nil {
		tb.Fatal(err)
	}
	pol, _ := policy.ForCheck(set, policy.Check{})
	if pol.Mode != perm.ModeAcceptEdits {
		tb.Fatalf("mode %s, want acceptEdits", pol.Mode)
	}
	if n := len(pol.Deny) + len(pol.Ask) + len(pol.Allow); n != 10 {
		tb.Fatalf("policy has %d rules, want 10", n)
	}
	return &pol
}

// BenchmarkFloor is the floor of issue 14: per line only what any checker
// must do — JSON-decode it, parse the command with mvdan/sh (bash) and
// walk every node of the syntax tree — single-threaded, with one parser.
func BenchmarkFloor(b *testing.B) {
	in := benchInput(b)
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	b.ReportAllocs()
	m := startMeter()
	for b.Loop() {
		floorPass(b, p, in)
	}
	m.report(b, benchCalls)
}

// floorPass is one pass of BenchmarkFloor over the lines of in.
func floorPass(b *testing.B, p *syntax.Parser, in []byte) {
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	nodes := 0
	for sc.Scan() {
		var bl batchLine
		if err := json.Unmarshal(sc.Bytes(), &bl); err != nil {
			b.Fatal(err)
		}
		cmd, _ := bl.Input["command"].(string)
		f, err := p.Parse(strings.NewReader(cmd), "")
		if err != nil {
			continue // the corpus holds some unparsable commands
		}
		syntax.Walk(f, func(syntax.Node) bool { nodes++; return true })
	}
}

// BenchmarkBatchOverFloor runs a pass of BenchmarkFloor and one of
// BenchmarkBatch alternately in each iteration, and reports their wall
// times per call and the ratio, issue 14's first measure: the two sides
// see the same machine, however its speed drifts.
func BenchmarkBatchOverFloor(b *testing.B) {
	in := benchInput(b)
	pol := checkPolicy(b)
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	var floor, batch time.Duration
	for b.Loop() {
		start := time.Now()
		floorPass(b, p, in)
		floor += time.Since(start)
		start = time.Now()
		if err := runBatch(context.Background(), "-", pol, Streams{In: bytes.NewReader(in), Out: io.Discard, Err: io.Discard}); err != nil {
			b.Fatal(err)
		}
		batch += time.Since(start)
	}
	n := float64(b.N * benchCalls)
	b.ReportMetric(float64(floor.Nanoseconds())/n, "floor-ns/call")
	b.ReportMetric(float64(batch.Nanoseconds())/n, "batch-ns/call")
	b.ReportMetric(float64(batch)/float64(floor), "ratio")
}

// BenchmarkBatch is runBatch, the whole --batch path from input
// bytes to output lines, over BenchmarkFloor's calls under checkPolicy.
func BenchmarkBatch(b *testing.B) {
	benchBatch(b, func(s Streams, pol *perm.Policy) error { return runBatch(context.Background(), "-", pol, s) })
}

// BenchmarkBatchOneWorker is BenchmarkBatch on one worker: set side by
// side with it, the gain of the parallel batch.
func BenchmarkBatchOneWorker(b *testing.B) {
	benchBatch(b, func(s Streams, pol *perm.Policy) error {
		defer raiseGCPercent()()
		return checkBatch(context.Background(), s.In, "-", 1, pol, s)
	})
}

// BenchmarkFrontOverFloor sets, on one worker each and interleaved, the
// floor, gen's front end alone (each line decoded as --batch decodes it
// and its command parsed and walked by bash.Parse, which the engine
// decides from; no decision) and the whole one-worker batch. Its ratios
// show how much of the batch's cost is there before any rule is
// consulted: with both cores, --batch is the one-worker time over the
// parallel gain (BenchmarkBatch set beside BenchmarkBatchOneWorker).
func BenchmarkFrontOverFloor(b *testing.B) {
	in := benchInput(b)
	pol := checkPolicy(b)
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	defer raiseGCPercent()()
	var floor, front, batch time.Duration
	for b.Loop() {
		start := time.Now()
		floorPass(b, p, in)
		floor += time.Since(start)
		start = time.Now()
		frontPass(b, in)
		front += time.Since(start)
		start = time.Now()
		if err := checkBatch(context.Background(), bytes.NewReader(in), "-", 1, pol, Streams{Out: io.Discard, Err: io.Discard}); err != nil {
			b.Fatal(err)
		}
		batch += time.Since(start)
	}
	n := float64(b.N * benchCalls)
	b.ReportMetric(float64(floor.Nanoseconds())/n, "floor-ns/call")
	b.ReportMetric(float64(front.Nanoseconds())/n, "front-ns/call")
	b.ReportMetric(float64(batch.Nanoseconds())/n, "batch1-ns/call")
	b.ReportMetric(float64(front)/float64(floor), "front-ratio")
	b.ReportMetric(float64(batch)/float64(floor), "batch1-ratio")
}

// frontPass is one pass of BenchmarkFrontOverFloor's front end over the
// lines of in.
func frontPass(b *testing.B, in []byte) {
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	cmds := 0
	for sc.Scan() {
		req, err := parseBatchLine(sc.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		if s, err := bash.Parse(req.Input["command"].(string)); err == nil {
			cmds += len(s.Commands)
		}
	}
	if cmds == 0 {
		b.Fatal("nothing parsed")
	}
}

func benchBatch(b *testing.B, run func(Streams, *perm.Policy) error) {
	in := benchInput(b)
	pol := checkPolicy(b)
	b.ReportAllocs()
	m := startMeter()
	for b.Loop() {
		if err := run(Streams{In: bytes.NewReader(in), Out: io.Discard, Err: io.Discard}, pol); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b, benchCalls)
}

// meter measures what wall time hides on a loaded machine: the process's
// CPU time and the GC's share of it.
type meter struct{ cpu, gc, numGC float64 }

// cpuSeconds returns the process's CPU time (user and system, from
// getrusage) and the GC's estimated share of it.
func cpuSeconds() (total, gc float64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(), s[0].Value.Float64()
}

func numGC() float64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64())
}

func startMeter() meter {
	cpu, gc := cpuSeconds()
	return meter{cpu, gc, numGC()}
}

// report reports wall ns/call (the measure), CPU ns/call, the GC's
// percentage of CPU and GC cycles per thousand calls, for b.N runs of
// calls calls each.
func (m meter) report(b *testing.B, calls int) {
	cpu, gc := cpuSeconds()
	n := float64(b.N * calls)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/call")
	b.ReportMetric((cpu-m.cpu)*1e9/n, "cpu-ns/call")
	b.ReportMetric(100*(gc-m.gc)/(cpu-m.cpu), "gc-cpu-%")
	b.ReportMetric(1000*(numGC()-m.numGC)/n, "gcs/1000calls")
}

// rssKB is the process's resident set size (VmRSS) in KiB, or 0 where
// /proc is not there.
func rssKB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return n
		}
	}
	return 0
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// liveHeap is the bytes of live heap objects (right after a GC).
func liveHeap() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64())
}

// soakDecisions is the number of decisions one BenchmarkSoak iteration
// makes; every other one repeats one of soakRepeated calls.
const soakDecisions, soakRepeated = 1_000_000, 1000

// BenchmarkSoak streams a million decisions through the --batch path:
// half of them distinct calls (shell commands and file tools on distinct
// paths), half repeats of a thousand calls, whose answers must be the
// same bytes every time. It reports decisions/s and the resident set,
// sampled at every tenth of the run after a GC that returns freed pages
// to the OS (so that a sample is what is in use, not where the GC cycle
// stands): the first sample, the largest, the one after the run, and the
// growth of the second half — the mean of the last three samples over
// the mean of the three before them. The bounded caches (the Resolver,
// the parsers) fill during the first half; flat means no growth after
// that. It reports the live heap at the first sample and after the run
// too. The calls are generated as the run goes, on the
// same cores, which costs a few percent of its rate. It is a soak,
// skipped unless asked for by name:
//
//	go test ./cli -run '^$' -bench BenchmarkSoak -benchtime 1x
func BenchmarkSoak(b *testing.B) {
	if f := flag.Lookup("test.bench"); f == nil || !strings.Contains(f.Value.String(), "Soak") {
		b.Skip("a soak: run with -bench BenchmarkSoak -benchtime 1x")
	}
	pol := checkPolicy(b)
	repeated := batchInput(b, callcorpus.Mixed(7, soakRepeated))
	repLines := bytes.SplitAfter(repeated, []byte("\n"))
	var rate, cpuPer, growth, rssFirst, rssAfter, rssMax, heapStart, heapEnd float64
	for b.Loop() {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		// The generator writes distinct calls in chunks of fresh seeds,
		// interleaved with the repeated ones.
		go func() {
			w := bufio.NewWriter(inW)
			var chunk [][]byte
			for i, seed := 0, uint64(100); i < soakDecisions; i++ {
				if i%2 == 1 {
					w.Write(repLines[(i/2)%soakRepeated])
					continue
				}
				if len(chunk) == 0 {
					seed++
					var calls []callcorpus.Call
					if seed%2 == 0 {
						calls = callcorpus.Bash(seed, 5000)
					} else {
						for k := range 5000 {
							tool := []string{"Read", "Edit", "Write", "Glob"}[k%4]
							key := map[string]string{"Read": "file_path", "Edit": "file_path", "Write": "file_path", "Glob": "path"}[tool]
							in := map[string]any{key: fmt.Sprintf("src/d%d/f%d.go", seed, k)}
							switch tool {
							case "Edit":
								in["old_string"], in["new_string"] = "a", "b"
							case "Write":
								in["content"] = "x"
							case "Glob":
								in["pattern"] = "*.go"
							}
							calls = append(calls, callcorpus.Call{Tool: tool, Input: in})
						}
					}
					chunk = bytes.SplitAfter(batchInput(b, calls), []byte("\n"))
					chunk = chunk[:len(chunk)-1]
				}
				w.Write(chunk[0])
				chunk = chunk[1:]
			}
			w.Flush()
			inW.Close()
		}()
		done := make(chan error, 1)
		go func() {
			done <- runBatch(context.Background(), "-", pol, Streams{In: inR, Out: outW, Err: io.Discard})
			outW.Close()
		}()
		start := time.Now()
		cpu0, _ := cpuSeconds()
		first := make([]string, soakRepeated)
		sc := bufio.NewScanner(outR)
		n := 0
		var rss []float64 // at every tenth of the run
		for ; sc.Scan(); n++ {
			if n > 0 && n%(soakDecisions/10) == 0 {
				debug.FreeOSMemory() // a GC, and freed pages back to the OS: RSS is then what is in use
				rss = append(rss, rssKB())
				if len(rss) == 1 {
					heapStart = liveHeap()
				}
			}
			if n%2 == 0 {
				continue
			}
			k := (n / 2) % soakRepeated
			switch {
			case first[k] == "":
				first[k] = sc.Text()
			case first[k] != sc.Text():
				b.Fatalf("decision %d repeats call %d but differs:\n%s\n%s", n, k, first[k], sc.Text())
			}
		}
		elapsed := time.Since(start)
		cpu1, _ := cpuSeconds()
		debug.FreeOSMemory()
		rssAfter, heapEnd = rssKB(), liveHeap()
		if err := <-done; err != nil {
			// Some repeated calls are malformed on purpose.
			if !strings.Contains(err.Error(), "bad line") {
				b.Fatal(err)
			}
		}
		if n != soakDecisions {
			b.Fatalf("%d answers for %d calls", n, soakDecisions)
		}
		rate = soakDecisions / elapsed.Seconds()
		cpuPer = (cpu1 - cpu0) * 1e9 / soakDecisions
		if len(rss) != 9 {
			b.Fatalf("%d samples of the resident set, want 9", len(rss))
		}
		rssFirst, rssMax = rss[0], slices.Max(rss)
		mid, last := mean(rss[3:6]), mean(rss[6:9])
		growth = 100 * (last - mid) / mid
	}
	b.ReportMetric(rate, "decisions/s")
	b.ReportMetric(rssFirst/1024, "rss-first-MB")
	b.ReportMetric(rssMax/1024, "rss-max-MB")
	b.ReportMetric(rssAfter/1024, "rss-after-MB")
	b.ReportMetric(growth, "rss-growth-%")
	b.ReportMetric(cpuPer, "cpu-ns/decision")
	b.ReportMetric(heapStart/(1<<20), "heap-start-MB")
	b.ReportMetric(heapEnd/(1<<20), "heap-end-MB")
}
