package bash

import (
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
