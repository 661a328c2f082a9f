package cli

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// BenchmarkParseScaling parses and walks BenchmarkFloor's commands with
// mvdan/sh alone, on every core and on one, and reports both times per
// call and their ratio: how far this machine's cores scale an
// allocation-heavy parse with no gen code in it, the ceiling for
// --batch's own gain from its workers (BenchmarkBatch over
// BenchmarkBatchOneWorker). Set GOGC to see the GC target's part in it.
func BenchmarkParseScaling(b *testing.B) {
	in := benchInput(b)
	var cmds []string
	for line := range bytes.Lines(in) {
		req, err := parseBatchLine(line)
		if err != nil {
			b.Fatal(err)
		}
		c, _ := req.Input["command"].(string)
		cmds = append(cmds, c)
	}
	var all, one float64
	for b.Loop() {
		all += parseAll(cmds, runtime.GOMAXPROCS(0))
		one += parseAll(cmds, 1)
	}
	n := float64(b.N)
	b.ReportMetric(all/n, "ns/call")
	b.ReportMetric(one/n, "ns/call-1cpu")
	b.ReportMetric(one/all, "speedup")
}

// parseAll parses and walks cmds on workers goroutines, each with its own
// parser, and returns the wall time per command.
func parseAll(cmds []string, workers int) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			p := syntax.NewParser(syntax.Variant(syntax.LangBash))
			for i := next.Add(1) - 1; i < int64(len(cmds)); i = next.Add(1) - 1 {
				if f, err := p.Parse(strings.NewReader(cmds[i]), ""); err == nil {
					syntax.Walk(f, func(syntax.Node) bool { return true })
				}
			}
		})
	}
	wg.Wait()
	return float64(time.Since(start).Nanoseconds()) / float64(len(cmds))
}
