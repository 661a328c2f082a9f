package perm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/gen-run/gen/workspace"
)

// TestResolverSameDecisions replays the differential corpus through a
// shared Resolver, small (so that it evicts all the time) and large, from
// two goroutines, and requires every decision Evaluate recorded.
func TestResolverSameDecisions(t *testing.T) {
	f := newDiffFixture(t)
	pols := diffPolicies(f)
	lines, _ := readDifferential(t, diffStride*2)
	// A small Resolver evicts all the time; a large one, over two
	// passes, answers the second from what the first cached.
	for _, tc := range []struct{ entries, passes int }{{64, 1}, {0, 2}} {
		res := NewResolver(tc.entries)
		var wg sync.WaitGroup
		var mu sync.Mutex
		failed := 0
		for w := range 2 {
			wg.Go(func() {
				for range tc.passes {
					for i := w; i < len(lines); i += 2 {
						want := lines[i]
						r := res.Evaluate(Request{Tool: want.Tool, Input: want.Input}, pols[want.Policy])
						got := f.render(want.diffLine, r)
						if !equalDiff(got, want.diffLine) {
							mu.Lock()
							if failed++; failed <= 10 {
								t.Errorf("decision changed with a Resolver of %d entries\n got: %+v\nwant: %+v", tc.entries, got, want)
							}
							mu.Unlock()
						}
					}
				}
			})
		}
		wg.Wait()
		if n := res.Len(); tc.entries > 0 && n > tc.entries {
			t.Errorf("Resolver holds %d entries, bound %d", n, tc.entries)
		}
	}
}

// render is decide's rendering of a result already made.
func (f diffFixture) render(l diffLine, r Result) diffLine {
	tmp := filepath.Dir(f.base)
	rel := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, f.base, "$BASE"), tmp, "$TMP")
	}
	return diffLine{Policy: l.Policy, Tool: l.Tool, Input: l.Input, Decision: r.Decision.String(), Step: r.Step,
		Reason: rel(r.Reason), Rule: r.Rule, Source: string(r.Source), Sandbox: string(r.Sandbox), Path: rel(r.Path)}
}

func TestResolverBounded(t *testing.T) {
	f := newFixture(t)
	p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
	res := NewResolver(100)
	for i := range 2000 {
		res.Evaluate(fileReq("Read", fmt.Sprintf("d%d/f%d", i, i)), p)
		if n := res.Len(); n > 100 {
			t.Fatalf("after %d calls the Resolver holds %d entries, bound 100", i+1, n)
		}
	}
}

// A name under a missing directory or under a file names nothing, so it
// is not looked up; one in a directory is, and a link there is followed.
func TestNothingLookedUpUnderMissingDir(t *testing.T) {
	f := newDiffFixture(t)
	p := diffPolicies(f)["ten"]
	res := NewResolver(0)
	r := res.Evaluate(Request{Tool: "Bash", Input: map[string]any{"command": "grep x missing/a x.pem/b src/new envlink"}}, p)
	if r.Decision != Deny {
		t.Fatalf("grep of envlink (a link to .env, Read-denied): %+v, want Deny", r)
	}
	for path, looked := range map[string]bool{"missing/a": false, "x.pem/b": false, "src/new": true, "missing": true, "envlink": true} {
		if got := lookedUp(res, f.root+"/"+path); got != looked {
			t.Errorf("%s looked up: %v, want %v", path, got, looked)
		}
	}
	// A link is never answered from a listing: lstat reads where it points.
	k := fsKey{opLink, f.root + "/envlink"}
	if v, ok := res.get(k); !ok || !v.ok {
		t.Errorf("envlink: %+v, %v; want its own lstat, a link", v, ok)
	}
}

// lookedUp reports whether res holds an answer about p: its own lstat,
// or a listing of the directory holding it.
func lookedUp(res *Resolver, p string) bool {
	for _, k := range []fsKey{{opLink, p}, {opList, filepath.Dir(p)}} {
		if _, ok := res.get(k); ok {
			return true
		}
	}
	return false
}

// TestNoResolverSeesSwap: without a Resolver each decision looks at the
// file system afresh, so a link swapped between two calls is seen.
func TestNoResolverSeesSwap(t *testing.T) {
	f := newFixture(t)
	if err := os.Mkdir(f.root+"/in", 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Policy{Mode: ModeAcceptEdits, Workspace: f.ws().Resolve()}
	link := f.root + "/sw"
	if err := os.Symlink(f.root+"/in", link); err != nil {
		t.Fatal(err)
	}
	req := fileReq("Write", "sw/x")
	if r := Evaluate(req, p); r.Decision != Allow {
		t.Fatalf("write through a link inside: %v (%s)", r.Decision, r.Reason)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, link); err != nil {
		t.Fatal(err)
	}
	if r := Evaluate(req, p); r.Decision == Allow || r.Path != f.outside+"/x" {
		t.Fatalf("write through a link swapped to outside: %v %s (%s)", r.Decision, r.Path, r.Reason)
	}
}

// TestGitConfigChangeSeen: a repository configuration is cached across
// calls only while it is unchanged: a rewrite (even one that keeps the
// size and sets the old modification time back) is seen on the next call.
func TestGitConfigChangeSeen(t *testing.T) {
	f := newFixture(t)
	p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
	cfg := f.root + "/.git/config"
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if err := os.MkdirAll(f.root+"/.git/"+name, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(cfg, old, old); err != nil {
			t.Fatal(err)
		}
	}
	req := bashReq("git status")
	write("[core]\n\tbare = false\n")
	for range 2 { // the second from the cache
		if r := Evaluate(req, p); r.Decision != Allow {
			t.Fatalf("git status with a safe config: %v (%s)", r.Decision, r.Reason)
		}
	}
	write("[core]\n\tpager = xxxx\n") // the same size, the same mtime
	if r := Evaluate(req, p); r.Decision == Allow {
		t.Fatalf("git status after core.pager was set: allowed (%s)", r.Reason)
	}
}

// TestPathHelpers checks the allocation-free helpers against the
// concatenations they replace.
func TestPathHelpers(t *testing.T) {
	strs := []string{"", "/", "/a", "/a/", "a", "/a/b", "/ab", "/a/bc", "/.git", "/x/.git/y", "/x.git/y", "/x/.gitx", ".git", "/x/.config/git", "/x/.config/gitx/a"}
	for _, q := range strs {
		for _, d := range strs {
			if got, want := dirPrefix(q, d), strings.HasPrefix(q+"/", d); got != want {
				t.Errorf("dirPrefix(%q, %q) = %v, want %v", q, d, got, want)
			}
			if d == "" {
				continue
			}
			if got, want := hasSegments(q, d), strings.Contains(q+"/", "/"+d+"/"); got != want {
				t.Errorf("hasSegments(%q, %q) = %v, want %v", q, d, got, want)
			}
		}
	}
}

// TestResolverBytesBounded: long distinct paths end a generation by size,
// not only by count.
func TestResolverBytesBounded(t *testing.T) {
	f := newFixture(t)
	p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
	res := NewResolver(1 << 20)
	long := strings.Repeat("/"+strings.Repeat("x", 250), 12)
	rotated := false
	for i := range 4000 {
		res.Evaluate(fileReq("Read", fmt.Sprintf("d%d%s", i, long)), p)
		if res.bytes > res.maxBytes || res.bytes > maxResolverBytes {
			t.Fatalf("after %d calls a generation holds %d bytes, bound %d", i+1, res.bytes, res.maxBytes)
		}
		for _, m := range res.old {
			rotated = rotated || len(m) > 0
		}
	}
	if !rotated {
		t.Fatal("no generation ended: the test paths are too short to test the bound")
	}
}

// TestResolverOwnsText: what a Resolver keeps of a call is its own
// copy, never a slice of the call's command, which a kept answer would
// keep alive whole while only the slice counts against maxBytes (the path
// in a substitution was such a slice: 400 calls of 256 KiB kept 104 MiB).
func TestResolverOwnsText(t *testing.T) {
	f := newFixture(t)
	p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
	res := NewResolver(0)
	for _, cmd := range []string{"echo $(cat /etc/hosts)", "cat /etc/passwd src", "echo $(ls /usr/bin/*)", `python3 -c "open('/etc/x')"`} {
		src := cmd + " " + strings.Repeat("x", 1<<16)
		res.Evaluate(Request{Tool: "Bash", Input: map[string]any{"command": src}}, p)
		start := uintptr(unsafe.Pointer(unsafe.StringData(src)))
		inside := func(s string) bool {
			at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
			return s != "" && at >= start && at < start+uintptr(len(src))
		}
		for _, gen := range [...][numOps]map[string]fsVal{res.cur, res.old} {
			for op, m := range gen {
				for k, v := range m {
					if inside(k) || inside(v.s) || inside(v.real) {
						t.Errorf("%s: the answer to question %d about %q is kept in the command's memory", cmd, op, k)
					}
				}
			}
		}
	}
}

// TestResolverBudget: a Resolver with a share of the default entries (one
// per batch worker) may hold that share of the default's text, so the
// workers' Resolvers hold no more together than one.
func TestResolverBudget(t *testing.T) {
	if got := NewResolver(0).maxBytes; got != maxResolverBytes {
		t.Errorf("default Resolver: %d bytes a generation, want %d", got, maxResolverBytes)
	}
	for _, workers := range []int{2, 4, 16} {
		total := 0
		for range workers {
			total += NewResolver(DefaultResolverEntries / workers).maxBytes
		}
		if total > maxResolverBytes {
			t.Errorf("%d workers' Resolvers: %d bytes a generation together, more than one Resolver's %d", workers, total, maxResolverBytes)
		}
	}
	if got := NewResolver(1).maxBytes; got != minResolverBytes {
		t.Errorf("a one-entry Resolver: %d bytes, want %d", got, minResolverBytes)
	}
}

// TestLstatLongPath: a path of PathMax bytes or more names nothing, and
// lstat answers so without a question to the file system or a Resolver:
// asking about every directory above it was quadratic in its length.
func TestLstatLongPath(t *testing.T) {
	for _, res := range []*Resolver{nil, NewResolver(0)} {
		c := &call{resolver: res}
		p := "/" + strings.Repeat("a/", workspace.PathMax) + "x"
		if v := c.lstat(p); v != (fsVal{}) {
			t.Errorf("lstat of %d bytes: %+v, want nothing", len(p), v)
		}
		if n := res.Len(); n != 0 || len(c.memo) != 0 {
			t.Errorf("lstat of %d bytes asked %d Resolver and %d call questions, want none", len(p), n, len(c.memo))
		}
	}
}

// A Resolver's target answers carry the target's facts (targetVal): the
// target made from one says what working them out says.
func TestTargetFacts(t *testing.T) {
	f := newFixture(t)
	c := analyse(bashReq("true"), f.ws())
	defer c.release()
	for _, tc := range []struct {
		abs, real        string
		plain, sensitive bool
	}{
		{"/w/a", "/w/a", true, false},
		{"/w/a", "/x/b", true, false},
		{"/w/ä", "/w/ä", false, false},
		{"/w/a", "/x/ä", false, false},
		{"/w/./a", "/w/a", false, false},
		{"/w/a", "/x//b", false, false},
		{"w/a", "w/a", false, false},
		{"", "", false, false},
		{"/w/.env", "/w/.env", true, true},
		{"/w/link", "/home/u/.ssh/id_rsa", true, true},
		{"/etc/passwd", "/etc/passwd", true, true},
		{"/w/.GIT/config", "/w/.GIT/config", true, true},
	} {
		t0 := target{abs: tc.abs, real: tc.real}
		if got := t0.isPlain(); got != tc.plain {
			t.Errorf("target{%q, %q}.isPlain() = %v, want %v", tc.abs, tc.real, got, tc.plain)
		}
		if got := t0.isSensitive(); got != tc.sensitive {
			t.Errorf("target{%q, %q}.isSensitive() = %v, want %v", tc.abs, tc.real, got, tc.sensitive)
		}
		// As resolveTarget makes it: with its facts.
		t1 := valTarget(targetVal(target{abs: tc.abs, real: tc.real, facts: factsOf(t0)}))
		if tc.abs != "" && tc.abs[0] == '/' {
			if r := c.resolveTarget(tc.abs); r.facts != factsOf(r) {
				t.Errorf("resolveTarget(%q) = %+v, want its facts %v worked out", tc.abs, r, factsOf(r))
			}
		}
		if t1.abs != tc.abs || t1.real != tc.real || t1.facts&factsKnown == 0 || t1.isPlain() != tc.plain || t1.isSensitive() != tc.sensitive {
			t.Errorf("a Resolver's answer for %+v = %+v, want the same paths and facts (plain %v, sensitive %v)", t0, t1, tc.plain, tc.sensitive)
		}
	}
}
