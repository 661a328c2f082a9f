package perm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/internal/callcorpus"
	"github.com/gen-run/gen/perm/bash"
)

// benchCmd is a compound command of the kind an agent runs.
const benchCmd = `cd src && LANG=C timeout 60 go test ./... 2>&1 | tee out.log; ` +
	`git --no-pager log --oneline -n 5 && git status --short && ` +
	`find . -name '*.tmp' -exec rm -f {} \; && ` +
	`for f in $(git ls-files '*.go'); do gofmt -l "$f"; done > fmt.txt && ` +
	`bash -c 'echo done' && npm run build`

// benchPolicy has a realistic number of rules from several scopes.
func benchPolicy(b *testing.B) *Policy {
	f := newFixture(b)
	p := &Policy{Mode: ModeAcceptEdits, Workspace: f.ws()}
	p.Deny = entries(SourceProject, "Bash(rm -rf *)", "Bash(curl:*)", "Bash(wget:*)", "Read(./.env)", "Read(./.env.*)", "Read(./secrets/**)", "Read(*.pem)", "WebFetch(domain:evil.example)")
	p.Ask = entries(SourceUser, "Bash(git push:*)", "Bash(npm publish:*)")
	p.Allow = entries(SourceLocal, "Bash(npm run *)", "Bash(go test:*)", "Bash(git:*)", "Bash(cd *)", "Bash(tee *)", "Bash(gofmt *)", "Read(./src/**)", "WebFetch(domain:github.com)")
	p.Compile() // as package policy builds them
	return p
}

// BenchmarkShellParse is the baseline: the bare bash parser on benchCmd.
func BenchmarkShellParse(b *testing.B) {
	for b.Loop() {
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(benchCmd), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyse is bash.Parse with every command classified.
func BenchmarkAnalyse(b *testing.B) {
	for b.Loop() {
		if _, err := bash.Parse(benchCmd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateBash is one whole decision for benchCmd; quote it as a
// ratio over BenchmarkShellParse.
func BenchmarkEvaluateBash(b *testing.B) {
	p := benchPolicy(b)
	req := bashReq(benchCmd)
	b.ReportAllocs()
	for b.Loop() {
		if r := Evaluate(req, p); r.Decision == Allow {
			b.Fatal("benchCmd must not be allowed")
		}
	}
}

// BenchmarkEvaluateRead is a decision for a file tool, which involves no
// shell parsing but path resolution.
func BenchmarkEvaluateRead(b *testing.B) {
	p := benchPolicy(b)
	req := fileReq("Read", "src/a.go")
	b.ReportAllocs()
	for b.Loop() {
		if r := Evaluate(req, p); r.Decision != Allow {
			b.Fatal(r.Reason)
		}
	}
}

// andChain returns n distinct commands joined by "&&", the last one
// unknown so that the decision is not Allow.
func andChain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "echo part%d && ", i)
	}
	b.WriteString("unknown-tool x")
	return b.String()
}

// functionRing is n functions each calling the next, the last one the
// first in the background, and a call of the first: a fork bomb only the
// whole ring shows.
func functionRing(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "f%d() { echo %d; f%d; }\n", i, i, i+1)
	}
	fmt.Fprintf(&b, "f%d() { f0 & }\nf0", n-1)
	return b.String()
}

// assignChain is n assignments of distinct values to one name, each
// followed by a use of it as a program: constant propagation's worst case
// (every use pending, the name past its bound on values).
func assignChain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "x=v%d; $x y; ", i)
	}
	b.WriteString("x=curl; $x y")
	return b.String()
}

// BenchmarkPathological times the hostile inputs of TestRedTeam, which
// must stay bounded: a chain of relative cds (2^n candidate directories
// if the bound on them broke), deeply nested bash -c, and thousands of
// wrappers, long "&&" chains and assignment chains, and long words
// (reported per part, or per unit of a long word: ns/part stays flat from
// 5,000 to 20,000 parts (2,500 to 9,000 functions), and from 20,000 to
// 100,000 units, because the decision is linear in them).
func BenchmarkPathological(b *testing.B) {
	f := newFixture(b)
	inputs := []struct {
		name  string
		cmd   string
		pol   func(*Policy)
		parts int // parts of a chain, for ns/part; 0 if not a chain
	}{
		{"cd chain", strings.Repeat("cd a; ", 22) + "cat x", nil, 0},
		{"nested bash -c", nestBashC("rm x", 12), mode(ModeBypass), 0},
		{"wrappers", strings.Repeat("sudo ", 2000) + "rm x", deny("Bash(rm:*)"), 0},
		{"and chain 5000", andChain(5000), nil, 5001},
		{"and chain 20000", andChain(20000), nil, 20001},
		// A ring's functions open two brackets each: past 10,000 of
		// them the source is over bash.Parse's bound on brackets, and
		// is refused without analysis.
		{"function ring 2500", functionRing(2500), mode(ModeBypass), 2500},
		{"function ring 9000", functionRing(9000), mode(ModeBypass), 9000},
		{"assignments 5000", assignChain(5000), deny("Bash(curl:*)"), 10002},
		{"assignments 20000", assignChain(20000), deny("Bash(curl:*)"), 40002},
		// One long word each, per unit: a chain of clustered options
		// (exponential before allReadings read each text once), a
		// word read as every suffix after a ":" (quadratic before the
		// reading budget), brace groups (the expansion is quadratic in
		// their number) and a deep path (FollowLinks was quadratic).
		{"option chain 20000", "rm " + strings.Repeat("-a", 20000), nil, 20000},
		{"option chain 100000", "rm " + strings.Repeat("-a", 100000), nil, 100000},
		{"colon suffixes 20000", "rm " + strings.Repeat("a:", 20000), nil, 20000},
		{"colon suffixes 100000", "rm " + strings.Repeat("a:", 100000), nil, 100000},
		{"brace groups 2000", "rm " + strings.Repeat("{a,b}", 2000), nil, 2000},
		{"brace groups 20000", "rm " + strings.Repeat("{a,b}", 20000), nil, 20000},
		{"deep path 20000", "rm " + strings.Repeat("a/", 20000) + "x", nil, 20000},
		{"deep path 100000", "rm " + strings.Repeat("a/", 100000) + "x", nil, 100000},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if in.pol != nil {
				in.pol(p)
			}
			req := bashReq(in.cmd)
			for b.Loop() {
				if r := Evaluate(req, p); r.Decision == Allow {
					b.Fatalf("%s allowed", in.name)
				}
			}
			if in.parts > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(in.parts), "ns/part")
			}
		})
	}
}

// benchCorpus is the number of distinct calls the corpus benchmarks cycle
// through, so that no one command's shape decides the result.
const benchCorpus = 2000

// BenchmarkCorpusParse is the floor for BenchmarkEvaluateCorpus/bash: the
// bare bash parser on the same distinct commands.
func BenchmarkCorpusParse(b *testing.B) {
	calls := callcorpus.Bash(14, benchCorpus)
	i := 0
	for b.Loop() {
		src := calls[i%len(calls)].Input["command"].(string)
		i++
		// Some generated commands are malformed on purpose.
		_, _ = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	}
}

// BenchmarkEvaluateCorpus decides many distinct generated calls under the
// differential test's 10-rule policy in its fixture tree: bash is Bash
// calls only, mixed every tool. Quote bash as a ratio over
// BenchmarkCorpusParse.
func BenchmarkEvaluateCorpus(b *testing.B) {
	f := newDiffFixture(b)
	p := diffPolicies(f)["ten"]
	p.Compile()
	// A repository's configuration is cached across calls only once it
	// is older than a few seconds (gitConfigs): make the fixture's so.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(f.root, ".git/config"), old, old); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		calls []callcorpus.Call
	}{
		{"bash", callcorpus.Bash(14, benchCorpus)},
		{"mixed", callcorpus.Mixed(14, benchCorpus)},
	} {
		reqs := make([]Request, len(tc.calls))
		for i, c := range tc.calls {
			reqs[i] = Request{Tool: c.Tool, Input: c.Input}
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				Evaluate(reqs[i%len(reqs)], p)
				i++
			}
		})
		// As `gen permissions check --batch` decides: with a Resolver.
		b.Run(tc.name+"-resolver", func(b *testing.B) {
			b.ReportAllocs()
			res := NewResolver(0)
			i := 0
			for b.Loop() {
				res.Evaluate(reqs[i%len(reqs)], p)
				i++
			}
		})
	}
}
