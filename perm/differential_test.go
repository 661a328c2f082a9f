package perm

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/callcorpus"
)

// The differential test replays a large frozen corpus of calls under
// several policies and requires every decision — decision, step, reason,
// rule, source, sandbox profile and resolved path — to be what the engine
// decided when the corpus was recorded. Optimisations must not change a
// decision; a deliberate change of behaviour re-records the corpus with
// -update-differential and says why in its commit.
//
// The corpus (calls and results) is data, not generated at test time, so
// a change to the generator below cannot silently change what is checked.

var (
	updateDifferential = flag.Bool("update-differential", false, "re-record testdata/differential.jsonl.gz from the current engine")
	differentialLooser = flag.Bool("differential-looser", false, "with -update-differential, record even decisions looser than the old record's")
)

const differentialFile = "testdata/differential.jsonl.gz"

// diffLine is one recorded decision.
type diffLine struct {
	Policy   string         `json:"p"`
	Tool     string         `json:"tool"`
	Input    map[string]any `json:"input"`
	Decision string         `json:"d"`
	Step     int            `json:"step"`
	Reason   string         `json:"reason"`
	Rule     string         `json:"rule,omitempty"`
	Source   string         `json:"src,omitempty"`
	Sandbox  string         `json:"sb,omitempty"`
	Path     string         `json:"path,omitempty"`
}

// diffFixture is the tree the corpus is decided in: a project with a git
// repository (whose config holds an alias and a shell alias), secrets,
// links inside and out, a home directory and an outside directory.
type diffFixture struct {
	base, root, home, outside string
}

func newDiffFixture(t testing.TB) diffFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := diffFixture{base: base, root: filepath.Join(base, "proj"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside")}
	dirs := []string{".git/hooks", "src/sub", "secrets", "build", ".github/workflows", "docs", "node_modules/x"}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(f.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{f.home + "/.ssh", f.home + "/.config/git", f.outside + "/deep"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		f.root + "/src/a.go":         "package a\n",
		f.root + "/src/b.go":         "package a\n",
		f.root + "/src/sub/c.txt":    "c\n",
		f.root + "/secrets/k":        "k\n",
		f.root + "/.env":             "A=1\n",
		f.root + "/.env.local":       "B=2\n",
		f.root + "/x.pem":            "pem\n",
		f.root + "/README.md":        "# r\n",
		f.root + "/docs/guide.md":    "g\n",
		f.root + "/.git/HEAD":        "ref: refs/heads/main\n",
		f.root + "/.git/config":      "[core]\n\tbare = false\n[alias]\n\tst = status\n\tnuke = !rm -rf build\n",
		f.outside + "/data":          "d\n",
		f.outside + "/deep/file":     "f\n",
		f.home + "/.bashrc":          "# rc\n",
		f.home + "/.ssh/id_ed25519":  "key\n",
		f.home + "/.config/git/conf": "c\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		f.root + "/link":       f.outside,
		f.root + "/envlink":    f.root + "/.env",
		f.root + "/src/up":     "..",
		f.root + "/dangling":   f.base + "/nowhere",
		f.root + "/homelink":   f.home,
		f.root + "/docs/inner": f.root + "/src",
	}
	for l, to := range links {
		if err := os.Symlink(to, l); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f diffFixture) ws() Workspace {
	return Workspace{Cwd: f.root, Root: f.root, Home: f.home, Dirs: []string{f.outside + "/deep"}}
}

// diffPolicies are the policies the corpus is decided under, by name.
func diffPolicies(f diffFixture) map[string]*Policy {
	ws := f.ws()
	ps := map[string]*Policy{
		"default":   {Mode: ModeDefault, Workspace: ws},
		"bypass":    {Mode: ModeBypass, Workspace: ws},
		"explore":   {Mode: ModeExplore, Workspace: ws, NoPrompt: true},
		"noSandbox": {Mode: ModeAcceptEdits, Workspace: ws, NoSandbox: true},
	}
	ten := &Policy{Mode: ModeAcceptEdits, Workspace: ws}
	ten.Deny = entries(SourceProject, "Bash(rm -rf *)", "Bash(curl:*)", "Bash(wget:*)", "Read(./.env)", "Read(./.env.*)", "Read(./secrets/**)", "Read(*.pem)", "WebFetch(domain:evil.example)")
	ten.Ask = entries(SourceUser, "Bash(git push:*)", "Bash(npm publish:*)")
	ten.Allow = entries(SourceLocal, "Bash(npm run *)", "Bash(go test:*)", "Bash(git:*)", "Bash(cd *)", "Bash(tee *)", "Bash(gofmt *)", "Read(./src/**)", "WebFetch(domain:github.com)", "Edit(./build/**)")
	ps["ten"] = ten

	headless := *ten
	headless.Mode = ModeDefault
	headless.NoPrompt = true
	headless.Session = rules("Bash(make:*)", "Edit(./docs/**)")
	ps["headless"] = &headless

	agent := &Policy{Mode: ModeDontAsk, Workspace: ws, NoPrompt: true}
	agent.Deny = entries(SourceAgent, "Bash(git push:*)", "Write")
	agent.Allow = entries(SourceAgent, "Bash(ls:*)", "Bash(make test)", "Read", "Grep", "Glob", "Edit(./src/**)")
	agent.Constraint = rules("Bash(ls:*)", "Bash(make test)", "Bash(cat:*)", "Read", "Grep", "Glob", "Edit(./src/**)", "WebFetch(domain:*.github.com)")
	ps["agent"] = agent

	// Bypass with deny rules: what no rule or approval vouches for is
	// judged by the checks deny rules need alone.
	bypassDeny := &Policy{Mode: ModeBypass, Workspace: ws, Deny: ten.Deny}
	ps["bypassDeny"] = bypassDeny

	ps["thousand"] = thousandRules(ws)
	return ps
}

// thousandRules is a policy with 1,000 rules of every kind, most of them
// about programs and paths the corpus never names, as a large
// organisation's settings are.
func thousandRules(ws Workspace) *Policy {
	p := &Policy{Mode: ModeDefault, Workspace: ws}
	deny, ask, allow := callcorpus.Rules()
	p.Deny = entries(SourceManaged, deny...)
	p.Ask = entries(SourceProject, ask...)
	p.Allow = entries(SourceUser, allow...)
	return p
}

// decide evaluates req under p and renders the result with the fixture's
// base directory replaced, so the record does not depend on where the
// test's temporary directory is.
func (f diffFixture) decide(name string, req Request, p *Policy) diffLine {
	r := Evaluate(req, p)
	// The temporary directory's parent too: "../../etc" from the project
	// leaves the fixture.
	tmp := filepath.Dir(f.base)
	rel := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, f.base, "$BASE"), tmp, "$TMP") }
	return diffLine{Policy: name, Tool: req.Tool, Input: req.Input, Decision: r.Decision.String(), Step: r.Step,
		Reason: rel(r.Reason), Rule: r.Rule, Source: string(r.Source), Sandbox: string(r.Sandbox), Path: rel(r.Path)}
}

// diffPolicyNames fixes the order policies are recorded in.
var diffPolicyNames = []string{"default", "ten", "thousand", "headless", "agent", "bypass", "bypassDeny", "explore", "noSandbox"}

// corpusSize is the number of calls recorded per policy.
const corpusSize = 6000

func TestDifferential(t *testing.T) {
	f := newDiffFixture(t)
	pols := diffPolicies(f)
	if *updateDifferential {
		recordDifferential(t, f, pols)
		return
	}
	lines, total := readDifferential(t, diffStride)
	failed := 0
	for _, want := range lines {
		p := pols[want.Policy]
		if p == nil {
			t.Fatalf("%s:%d: unknown policy %q", differentialFile, want.n, want.Policy)
		}
		got := f.decide(want.Policy, Request{Tool: want.Tool, Input: want.Input}, p)
		if !equalDiff(got, want.diffLine) {
			failed++
			if failed <= 20 {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want.diffLine)
				t.Errorf("%s:%d: decision changed\n got: %s\nwant: %s", differentialFile, want.n, g, w)
			}
		}
	}
	if want := corpusSize * len(diffPolicyNames); total != want {
		t.Fatalf("%s: %d lines, want %d", differentialFile, total, want)
	}
	if failed > 0 {
		t.Fatalf("%d of %d decisions changed", failed, len(lines))
	}
}

// numberedLine is a recorded decision with its line number.
type numberedLine struct {
	n int
	diffLine
}

// readDifferential returns every stride-th recorded decision (lines
// stride, 2*stride, ...) and the number of lines the record holds.
func readDifferential(t *testing.T, stride int) (lines []numberedLine, total int) {
	t.Helper()
	fh, err := os.Open(differentialFile)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		total++
		if total%stride != 0 {
			continue
		}
		var l diffLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", differentialFile, total, err)
		}
		lines = append(lines, numberedLine{total, l})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, total
}

func equalDiff(a, b diffLine) bool {
	return a.Policy == b.Policy && a.Decision == b.Decision && a.Step == b.Step && a.Reason == b.Reason &&
		a.Rule == b.Rule && a.Source == b.Source && a.Sandbox == b.Sandbox && a.Path == b.Path
}

func recordDifferential(t *testing.T, f diffFixture, pols map[string]*Policy) {
	corpus := callcorpus.Mixed(2026, corpusSize)
	old, _ := readDifferential(t, 1)
	var lines []diffLine
	for _, name := range diffPolicyNames {
		for _, req := range corpus {
			// Round-trip the input through JSON, as it is replayed.
			b, _ := json.Marshal(req.Input)
			var in map[string]any
			if err := json.Unmarshal(b, &in); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, f.decide(name, Request{Tool: req.Tool, Input: in}, pols[name]))
		}
	}
	changed, looser := compareRecords(old, lines)
	for i, n := range looser {
		if i == 20 {
			break
		}
		g, _ := json.Marshal(lines[n-1])
		w, _ := json.Marshal(old[n-1].diffLine)
		t.Logf("%s:%d: looser than recorded\n got: %s\nwas: %s", differentialFile, n, g, w)
	}
	t.Logf("%d of %d decisions changed, %d of them looser", changed, len(lines), len(looser))
	if len(looser) > 0 && !*differentialLooser {
		t.Fatalf("not re-recorded: %d decisions would become looser (a lower decision or a weaker sandbox); pass -differential-looser if that is intended", len(looser))
	}
	fh, err := os.Create(differentialFile)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(fh)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	counts := map[string]int{}
	for _, l := range lines {
		counts[l.Policy+" "+l.Decision]++
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d decisions: %v", corpusSize*len(diffPolicyNames), counts)
}

// strictness orders decisions and sandbox profiles: a re-recorded line
// is looser than the old one when its decision allows more, or when it
// allows as much and its command runs under a weaker sandbox.
var strictness = map[string]int{"allow": 1, "ask": 2, "deny": 3, "none": 1, "workspace-write": 2, "read-only": 3, "": 3}

// compareRecords returns how many of lines differ from old, the record
// they replace, and the line numbers (from 1) of those that are looser.
// A record of another length or order (a changed corpus) counts every
// line as changed and none as looser: there is nothing to compare.
func compareRecords(old []numberedLine, lines []diffLine) (changed int, looser []int) {
	if len(old) != len(lines) {
		return len(lines), nil
	}
	for i, l := range lines {
		o := old[i].diffLine
		if equalDiff(o, l) {
			continue
		}
		changed++
		if o.Policy != l.Policy || o.Tool != l.Tool || !reflect.DeepEqual(o.Input, l.Input) {
			continue
		}
		sd, od := strictness[strings.ToLower(l.Decision)], strictness[strings.ToLower(o.Decision)]
		if sd < od || sd == od && l.Decision != "deny" && strictness[l.Sandbox] < strictness[o.Sandbox] {
			looser = append(looser, i+1)
		}
	}
	return changed, looser
}

func TestCompareRecords(t *testing.T) {
	in := map[string]any{"command": "ls"}
	line := func(d, sb string) diffLine {
		return diffLine{Policy: "default", Tool: "Bash", Input: in, Decision: d, Sandbox: sb}
	}
	old := []numberedLine{{1, line("deny", "workspace-write")}, {2, line("ask", "read-only")}, {3, line("allow", "read-only")}, {4, line("ask", "workspace-write")}}
	for _, c := range []struct {
		name   string
		lines  []diffLine
		looser []int
	}{
		{"same", []diffLine{old[0].diffLine, old[1].diffLine, old[2].diffLine, old[3].diffLine}, nil},
		{"stricter", []diffLine{line("deny", "none"), line("deny", "read-only"), line("ask", "read-only"), line("ask", "read-only")}, nil},
		{"lower decisions", []diffLine{line("ask", "workspace-write"), line("allow", "read-only"), line("allow", "read-only"), line("ask", "workspace-write")}, []int{1, 2}},
		{"weaker sandboxes", []diffLine{line("deny", "none"), line("ask", "workspace-write"), line("allow", "none"), line("ask", "workspace-write")}, []int{2, 3}},
	} {
		changed, looser := compareRecords(old, c.lines)
		if !slices.Equal(looser, c.looser) {
			t.Errorf("%s: looser lines %v, want %v", c.name, looser, c.looser)
		}
		if c.name == "same" && changed != 0 {
			t.Errorf("same: %d changed, want 0", changed)
		}
	}
}
