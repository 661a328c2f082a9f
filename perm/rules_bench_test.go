package perm

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/callcorpus"
)

// benchRuleCalls are the calls BenchmarkRules10 and BenchmarkRules1000
// decide: generated shell commands with some file, WebFetch and other
// tool calls.
func benchRuleCalls() []Request {
	var reqs []Request
	for _, c := range callcorpus.Mixed(99, 400) {
		reqs = append(reqs, Request{Tool: c.Tool, Input: c.Input})
	}
	return reqs
}

// benchRules decides every call of benchRuleCalls under p per iteration
// and reports the cost per call.
func benchRules(b *testing.B, p *Policy) {
	reqs := benchRuleCalls()
	p.Compile()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, req := range reqs {
			Evaluate(req, p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/call")
}

// tenRules is thousandRules cut to ten rules with the same kinds in each
// list — a Bash and a path rule among the deny, the ask and the allow
// rules — and the rules the calls reach, in the same mode. The kinds
// matter apart from the number: a Read ask rule, say, makes every command
// be classified for what it reads, under ten rules as under a thousand.
func tenRules(ws Workspace) *Policy {
	p := &Policy{Mode: ModeDefault, Workspace: ws}
	p.Deny = entries(SourceManaged, "Bash(curl:*)", "Read(./.env)", "Read(**/secrets/**)")
	p.Ask = entries(SourceProject, "Bash(git push:*)", "Read(./data2/**)")
	p.Allow = entries(SourceUser, "Bash(npm test)", "Bash(go test:*)", "Bash(make:*)", "Edit(./src/**)", "Read(./link/**)")
	return p
}

// BenchmarkRules10 and BenchmarkRules1000 decide the same calls under 10
// and 1,000 rules of the same kinds; quote Rules1000 as a ratio over
// Rules10. Rule matching is indexed, so the ratio stays near 1.
func BenchmarkRules10(b *testing.B) {
	f := newDiffFixture(b)
	benchRules(b, tenRules(f.ws()))
}

func BenchmarkRules1000(b *testing.B) {
	f := newDiffFixture(b)
	benchRules(b, thousandRules(f.ws()))
}

// BenchmarkRulesRatio decides benchRuleCalls under 10 and under 1,000
// rules alternately, one pass each per iteration, and reports the ratio
// of their times: the two sides see the same machine, however its speed
// drifts.
func BenchmarkRulesRatio(b *testing.B) {
	f := newDiffFixture(b)
	benchRatio(b, "rules10", tenRules(f.ws()), "rules1000", thousandRules(f.ws()))
}

// benchRatio decides benchRuleCalls under the policies small and large,
// one pass each per iteration, and reports the time per call
// of each (as NAME-ns/call) and the ratio large over small.
func benchRatio(b *testing.B, smallName string, small *Policy, largeName string, large *Policy) {
	small.Compile()
	large.Compile()
	reqs := benchRuleCalls()
	pass := func(p *Policy) time.Duration {
		start := time.Now()
		for _, req := range reqs {
			Evaluate(req, p)
		}
		return time.Since(start)
	}
	// Which goes first alternates: the second pass of an iteration
	// finds caches the first warmed.
	var ts, tl time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			ts += pass(small)
			tl += pass(large)
		} else {
			tl += pass(large)
			ts += pass(small)
		}
	}
	n := float64(b.N * len(reqs))
	b.ReportMetric(float64(ts.Nanoseconds())/n, smallName+"-ns/call")
	b.ReportMetric(float64(tl.Nanoseconds())/n, largeName+"-ns/call")
	b.ReportMetric(float64(tl)/float64(ts), "ratio")
}

// BenchmarkPathRules decides file and shell calls under thousands of
// "**" path rules, none of which matches.
func BenchmarkPathRules(b *testing.B) {
	f := newDiffFixture(b)
	p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
	for i := range 3000 {
		p.Deny = append(p.Deny, entries(SourceProject, fmt.Sprintf("Read(./data%d/**)", i), fmt.Sprintf("Edit(**/gen%d/*.txt)", i))...)
		p.Allow = append(p.Allow, entries(SourceUser, fmt.Sprintf("Edit(./out%d/**)", i), fmt.Sprintf("Read(**/cache%d/**)", i))...)
	}
	reqs := []Request{fileReq("Read", "src/a.go"), fileReq("Edit", "src/sub/c.txt"), fileReq("Write", "build/x.txt"),
		bashReq("cat src/a.go src/b.go | grep -n foo > build/out.txt"), bashReq("cp src/a.go docs/guide.md")}
	p.Compile()
	b.ReportAllocs()
	for b.Loop() {
		for _, req := range reqs {
			Evaluate(req, p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/call")
}

// BenchmarkCompile1000 compiles the 1,000-rule policy: what a policy
// rebuilt for every call (settings followed live) pays per call.
func BenchmarkCompile1000(b *testing.B) {
	f := newDiffFixture(b)
	p := thousandRules(f.ws())
	b.ReportAllocs()
	for b.Loop() {
		p.idx = nil
		p.Compile()
	}
}

// BenchmarkRecompile1000 is Compile on a copy of a compiled policy with
// its lists cloned, as a policy rebuilt from the same settings is: the
// lists are compared and their indexes reused.
func BenchmarkRecompile1000(b *testing.B) {
	f := newDiffFixture(b)
	p := thousandRules(f.ws())
	p.Compile()
	b.ReportAllocs()
	for b.Loop() {
		q := *p
		q.Deny, q.Ask, q.Allow = slices.Clone(p.Deny), slices.Clone(p.Ask), slices.Clone(p.Allow)
		q.Compile()
	}
}
