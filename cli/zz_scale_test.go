package cli

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func parseAll(cmds []string, workers int) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			p := syntax.NewParser()
			for i := next.Add(1) - 1; i < int64(len(cmds)); i = next.Add(1) - 1 {
				f, err := p.Parse(strings.NewReader(cmds[i]), "")
				if err == nil {
					syntax.Walk(f, func(syntax.Node) bool { return true })
				}
			}
		})
	}
	wg.Wait()
	return float64(time.Since(start).Nanoseconds()) / float64(len(cmds))
}

func BenchmarkZZScale(b *testing.B) {
	in := benchInput(b)
	var cmds []string
	for line := range bytes.Lines(in) {
		req, _ := parseBatchLine(line)
		c, _ := req.Input["command"].(string)
		cmds = append(cmds, c)
	}
	var two, one float64
	for b.Loop() {
		for range 4 {
			two += parseAll(cmds, 2)
			one += parseAll(cmds, 1)
		}
	}
	b.ReportMetric(two/float64(4*b.N), "ns/call")
	b.ReportMetric(one/float64(4*b.N), "ns/call-1cpu")
	b.ReportMetric(one/two, "speedup")
}
