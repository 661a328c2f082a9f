package perm

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// The targets of paths in directories (targetIn), new directories
	// and names, plain and not, long and short.
	res = NewResolver(100)
	long := strings.Repeat("x", 3000)
	for i := range 4000 {
		c := &call{resolver: res, ws: f.ws().Deferred()}
		dir := fmt.Sprintf("%s/d%d", f.root, i%300)
		if i%7 == 0 {
			dir += "/" + long
		}
		c.targetIn(dir, fmt.Sprintf("f%d", i))
		c.targetIn(f.root, fmt.Sprintf("src/f%d", i))
		if n := res.Len(); n > 100 || res.bytes > res.maxBytes {
			t.Fatalf("after %d paths in directories the Resolver holds %d entries (bound 100), %d bytes a generation (bound %d)", i+1, n, res.bytes, res.maxBytes)
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
	for _, cmd := range []string{"echo $(cat /etc/hosts)", "cat /etc/passwd src", "echo $(ls /usr/bin/*)", `python3 -c "open('/etc/x')"`,
		"/usr/lib a", "/usr/lib/x b", "/usr c/d"} {
		src := cmd + " " + strings.Repeat("x", 1<<16)
		if dir, rest, ok := strings.Cut(cmd, " "); ok && dir[0] == '/' {
			// A directory and a name targetIn is given may be slices
			// of a command too.
			c := &call{resolver: res, ws: f.ws().Deferred()}
			c.targetIn(src[:len(dir)], src[len(dir)+1:len(dir)+1+len(rest)])
		} else {
			res.Evaluate(Request{Tool: "Bash", Input: map[string]any{"command": src}}, p)
		}
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
		for _, gen := range []map[string]*dirTargets{res.tcur, res.told} {
			for dir, d := range gen {
				if inside(dir) || inside(d.real) {
					t.Errorf("%s: the directory %q or its real path %q is kept in the command's memory", cmd, dir, d.real)
				}
				for k, v := range d.kids {
					if inside(k) || inside(v.s) || inside(v.real) {
						t.Errorf("%s: the target of %q in %q is kept in the command's memory", cmd, k, dir)
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

// TestTargetInMatchesTarget checks a Resolver's targetIn, which resolves
// a plain name from what it keeps of the name's directory (resolveIn),
// against target without a Resolver, over a tree of links (to a
// directory, to "..", to a file, chains, a loop, dangling ones), files,
// missing and unclean directories and "/": each path asked twice (found
// the second time) and in both orders, from Resolvers large and small
// (a small one rotates while it resolves).
func TestTargetInMatchesTarget(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(root+"/a/b/c", 0o755))
	must(os.WriteFile(root+"/a/b/f", []byte("x"), 0o644))
	must(os.WriteFile(root+"/a/.env", []byte("x"), 0o644))
	for link, dest := range map[string]string{
		"/l": "a", "/a/up": "..", "/a/b/abs": root + "/a", "/c1": "c2", "/c2": "a/b", "/loop": "loop",
		"/dangling": "nowhere", "/a/b/fl": "f", "/a/b/c/back": "../../up/l/b", "/a/secret": "../a/.env",
		"/a/Mixed": "b",
	} {
		must(os.Symlink(dest, root+link))
	}
	// l0 -> l1 -> ... -> l44 -> a: past the kernel's 40 links.
	for i := range 45 {
		dest := fmt.Sprintf("l%d", i+1)
		if i == 44 {
			dest = "a"
		}
		must(os.Symlink(dest, fmt.Sprintf("%s/l%d", root, i)))
	}
	var dirs []string
	for _, d := range []string{"", "/a", "/a/b", "/a/b/c", "/l", "/l/b", "/a/up", "/a/up/l", "/a/b/abs", "/c1",
		"/c1/c", "/c1/c/back", "/loop", "/dangling", "/nothing", "/nothing/x", "/a/b/f", "/a/b/fl", "/a/./b",
		"/a/b/../b", "/l/..", "/a/up/..", "/A", "/a/mixed", "/a/Mixed", "/l0", "/l39", "/l2/b"} {
		dirs = append(dirs, root+d)
	}
	dirs = append(dirs, "/", "/etc", "/dev", "/var", "/usr/lib")
	names := []string{"b", "c", "f", "fl", "up", "abs", "back", "l", "loop", "dangling", "nothing", ".env", "secret",
		"Mixed", "mixed", "MIXED", "é", "a..b", "..", ".", "", "x/..", "b/c", "up/l", "passwd", "null", ".git", "HEAD",
		"b/c/back", "b/c/back/c", "up/l/b", "up/up/up/a", "l/b/f", "l/b/fl/x", "c1/c/back/c", "dangling/x", "loop/x/y",
		"nothing/x/y", "b/f/x", "b/fl/x", "b/abs/b/c", "a/b/abs/up/l", "l0/b", "l0/b/c", "l3/b/c/back", "a/.env",
		"a/secret", "a/Mixed/c", "ssh/x", "spool/cron/x", "b//c", "b/./c", "b/../c", "b/", "/b", "é/x", "b/é"}
	type q struct{ dir, name string }
	var qs []q
	for _, d := range dirs {
		for _, n := range names {
			qs = append(qs, q{d, n})
		}
	}
	backward := slices.Clone(qs)
	slices.Reverse(backward)
	ws := Workspace{Cwd: root, Root: root, Home: root + "/a"}
	for _, entries := range []int{0, 8} {
		for _, order := range [][]q{qs, backward} {
			c := &call{resolver: NewResolver(entries), ws: ws.Deferred()}
			for _, q := range order {
				want := (&call{ws: ws.Fresh(nil)}).target(q.dir + "/" + q.name)
				want.facts = factsOf(want)
				for range 2 {
					if got := c.targetIn(q.dir, q.name); got != want {
						t.Errorf("Resolver of %d entries: targetIn(%s, %q) = %+v, target says %+v", entries, q.dir, q.name, got, want)
					}
				}
			}
		}
	}
}

// TestNameFacts checks nameFacts, where it is sure, against factsOf
// over directories in, above and beside the system ones, /dev, dotted and
// unclean ones and "/", and names plain, dotted, upper-case and not.
func TestNameFacts(t *testing.T) {
	dirs := []string{"/", "/w", "/w/src", "/etc", "/etc/ssh", "/dev", "/dev/shm", "/var", "/var/spool", "/var/spool/cron",
		"/usr/local/bin", "/usr2", "/home/u", "/home/u/.ssh", "/home/u/.config", "/w/.git/hooks", "/w/.GIT", "/w/./a",
		"/w/a/", "w/a", "/w/é", "/proc/1", "/lib64x", "/w/x.env", "/w/.envdir"}
	names := []string{"a", "x.go", "cron", "spool", "etc", "ETC", "passwd", "null", "tty", "authorized_keys", "Authorized_Keys",
		"JENKINSFILE", "mise.toml", "sitecustomize.py", ".env", ".env.local", ".git", ".bashrc", "é", "a/b", "", ".", "..",
		"usr", "lib64", "env.", "bunfig.toml"}
	sure := 0
	for _, d := range dirs {
		for _, r := range append([]string{""}, dirs...) {
			for _, name := range names {
				f, ok := nameFacts(dirFactsOf(d), dirFactsOf(r), r != "", name)
				if !ok {
					continue
				}
				sure++
				tg := target{abs: d + "/" + name, real: d + "/" + name}
				if d == "/" {
					tg.abs, tg.real = "/"+name, "/"+name
				}
				if r != "" {
					tg.real = r + "/" + name
					if r == "/" {
						tg.real = "/" + name
					}
				}
				if want := factsOf(tg); f != want {
					t.Errorf("nameFacts(%s, %s, %q) = %b, factsOf(%+v) = %b", d, r, name, f, tg, want)
				}
			}
		}
	}
	if sure < 1000 {
		t.Errorf("nameFacts was sure of %d paths only: the test does not test it", sure)
	}
}
