package perm

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestCodeIndexLikeScan: codeAt through the index finds what a scan of
// Code in order finds — the same file, and whether the path is it or
// inside it — for Code lists with repeats, nesting and "/", and targets
// whose two forms differ, lie in Code files, hold them, or are not
// clean.
func TestCodeIndexLikeScan(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2026))
	seg := []string{"ws", "a", "b", ".git", "hooks", "x.md"}
	path := func() string {
		p := ""
		for range 1 + r.IntN(4) {
			p += "/" + seg[r.IntN(len(seg))]
		}
		if r.IntN(40) == 0 {
			return "/"
		}
		if r.IntN(30) == 0 {
			return p + "/../" + seg[r.IntN(len(seg))] // joined raw
		}
		return p
	}
	ws := Workspace{Cwd: "/ws", Root: "/ws"}
	for range 300 {
		code := make([]string, smallList+1+r.IntN(30))
		for i := range code {
			for code[i] = path(); filepath.Clean(code[i]) != code[i]; {
				code[i] = path()
			}
		}
		x := newCodeIndex(code)
		if x.at == nil {
			t.Fatalf("Code of %d clean paths not indexed", len(code))
		}
		c := &call{code: x, ws: ws}
		for range 200 {
			tg := target{abs: path(), real: path()}
			if r.IntN(2) == 0 {
				tg.real = tg.abs
			}
			f, exact := c.codeAt(tg)
			wf, wexact := x.scan(tg.forms(), ws)
			if f != wf || exact != wexact {
				t.Fatalf("codeAt(%v) under %q = %q %v; a scan finds %q %v", tg.forms(), code, f, exact, wf, wexact)
			}
		}
	}
}

// codePolicy is tenRules with n Code files: hook scripts of as many
// agents, as a catalog's agents bring them.
func codePolicy(f diffFixture, n int) *Policy {
	p := tenRules(f.ws())
	for i := range n {
		p.Code = append(p.Code, filepath.Join(f.home, ".gen", "hooks", fmt.Sprintf("agent%d", i), "guard.sh"))
	}
	p.Code = append(p.Code, filepath.Join(f.root, ".gen"), filepath.Join(f.root, ".git", "hooks"))
	return p
}

// BenchmarkCodeRatio decides benchRuleCalls under 10 and under 1,000
// Code files alternately and reports the ratio of their times: what a
// catalog of agents with hooks costs each call.
func BenchmarkCodeRatio(b *testing.B) {
	f := newDiffFixture(b)
	benchRatio(b, "code10", codePolicy(f, 10), "code1000", codePolicy(f, 1000))
}
