package bash

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/callcorpus"

	"mvdan.cc/sh/v3/syntax"
)

// benchSrc is a representative compound command of the kind an agent runs.
const benchSrc = `cd /repo && LANG=C timeout 60 go test ./... 2>&1 | tee out.log; ` +
	`git -C /repo --no-pager log --oneline -n 5 && git status --short && ` +
	`find . -name '*.tmp' -exec rm -f {} \; && ` +
	`for f in $(git ls-files '*.go'); do gofmt -l "$f"; done > fmt.txt && ` +
	`bash -c 'echo done' && sudo -u root env A=1 nice -n 5 rm -rf build`

// BenchmarkParse is the baseline: the bare bash parser on benchSrc.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p := syntax.NewParser(syntax.Variant(syntax.LangBash))
		if _, err := p.Parse(strings.NewReader(benchSrc), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyze is what the engine does per Bash call: Parse and every
// classification of every command.
func BenchmarkAnalyze(b *testing.B) {
	analyze(b, benchSrc)
}

// analyze parses src and classifies every command in it, b.N times.
func analyze(b *testing.B, src string) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range s.Commands {
			_ = c.DenyForms()
			_, _ = c.AllowForm()
			_ = c.Destructive()
			_, _ = c.ReadOnly()
		}
	}
}

// chain returns n distinct commands joined by "&&".
func chain(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(" && ")
		}
		fmt.Fprintf(&b, "cmd%d -v arg%d", i, i)
	}
	return b.String()
}

// BenchmarkChain analyses long "&&" chains. ns/part must stay flat from
// 5,000 to 20,000 parts: the analysis is linear in the chain's length.
func BenchmarkChain(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		src := chain(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			analyze(b, src)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/part")
		})
	}
}

// BenchmarkCorpus sets Parse beside its floor, a bare parse with one reused
// parser and one syntax.Walk, over many distinct generated commands. The
// two run interleaved in chunks of the same commands, so that load on the
// machine weighs on both alike; "ratio" is Parse's wall time over the
// floor's, "cpu-ratio" the same for the CPU time of the benchmark's thread
// (steadier on a loaded machine; GC work on other threads is not in it).
func BenchmarkCorpus(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	calls := callcorpus.Bash(14, 2000)
	srcs := make([]string, len(calls))
	for i, c := range calls {
		srcs[i] = c.Input["command"].(string)
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	var r strings.Reader
	const chunk = 50
	var floor, parse, floorCPU, parseCPU time.Duration
	nodes, cmds := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		for lo := 0; lo < len(srcs); lo += chunk {
			part := srcs[lo:min(lo+chunk, len(srcs))]
			c0, t0 := threadCPU(), time.Now()
			for _, src := range part {
				r.Reset(src)
				f, err := p.Parse(&r, "")
				if err != nil {
					continue // some generated commands are malformed on purpose
				}
				syntax.Walk(f, func(syntax.Node) bool { nodes++; return true })
			}
			c1, t1 := threadCPU(), time.Now()
			for _, src := range part {
				if s, err := Parse(src); err == nil {
					cmds += len(s.Commands)
				}
			}
			c2, t2 := threadCPU(), time.Now()
			floor += t1.Sub(t0)
			parse += t2.Sub(t1)
			floorCPU += c1 - c0
			parseCPU += c2 - c1
		}
	}
	n := float64(b.N * len(srcs))
	b.ReportMetric(float64(floor.Nanoseconds())/n, "floor-ns/cmd")
	b.ReportMetric(float64(parse.Nanoseconds())/n, "parse-ns/cmd")
	b.ReportMetric(float64(parse)/float64(floor), "ratio")
	if floorCPU > 0 {
		b.ReportMetric(float64(parseCPU)/float64(floorCPU), "cpu-ratio")
	}
	if nodes == 0 || cmds == 0 {
		b.Fatal("nothing parsed")
	}
}

// BenchmarkCorpusParse is Parse alone over BenchmarkCorpus's commands, for
// its allocations per command and for profiles.
func BenchmarkCorpusParse(b *testing.B) {
	calls := callcorpus.Bash(14, 2000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = Parse(calls[i%len(calls)].Input["command"].(string))
		i++
	}
}

// BenchmarkCorpusAnalyze is Parse and every method the engine may call on
// each command, over BenchmarkCorpus's commands.
func BenchmarkCorpusAnalyze(b *testing.B) {
	calls := callcorpus.Bash(14, 2000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s, err := Parse(calls[i%len(calls)].Input["command"].(string))
		i++
		if err != nil {
			continue
		}
		for _, c := range s.Commands {
			_, _ = c.AllowForm()
			_ = c.DenyForms()
			_, _ = c.Writes()
			_ = c.Destructive()
			_ = c.CodeAssigns()
			_, _ = c.Reads()
		}
	}
}
