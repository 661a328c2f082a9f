package bash

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

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
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(benchSrc)
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
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/part")
		})
	}
}
