package perm

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gen-run/gen/internal/callcorpus"
	"github.com/gen-run/gen/perm/bash"
)

// linearRules compiles p without indexes: every rule is tried for every
// part, as a scan of the lists would.
func linearRules(p *Policy) *ruleSet {
	ws := p.Workspace
	return &ruleSet{cwd: ws.Cwd, root: ws.Root, home: ws.Home,
		deny: compileList(ws, p.Deny, nil, false), ask: compileList(ws, p.Ask, nil, false), allow: compileList(ws, p.Allow, nil, false),
		session: compileList(ws, nil, p.Session, false), constraint: compileList(ws, nil, p.Constraint, false)}
}

// edgePolicy hides rules the index must still find (versioned and
// path-named programs, segments of resolved links, subdomains, MCP server
// rules, a bare Bash constraint for redirects) among many others.
func edgePolicy(ws Workspace, mode Mode) *Policy {
	p := thousandRules(ws)
	p.Mode = mode
	var noise []string
	for i := range 20 {
		noise = append(noise, fmt.Sprintf("Bash(other%d:*)", i), fmt.Sprintf("Read(./n%d/**)", i))
	}
	p.Deny = append(p.Deny, entries(SourceProject, "Bash(python3 -c *)", "Bash(perl:*)", "Bash(/usr/bin/env *)", "Read(**/deep/**)",
		"Edit(**/hooks/*)", "Read(*.local)", "Read(./src/[ab].go)", "Read(./{docs,x}/guide.md)", "WebFetch(domain:*.evil.example)", "mcp__github",
		"Bash(\uFFFDab *)", "Bash(*\uFFFDcd x)")...)
	p.Ask = append(p.Ask, entries(SourceUser, "Bash(git*)", "Bash(*status*)", "Bash(*.sh)", "Bash(**-helper68 *)", "Bash(*ab)", "Bash(* x)", "Bash(npm run:*)", "Edit(./README.md)", "MCP(mcp__srv*__*)")...)
	p.Allow = append(p.Allow, entries(SourceLocal, "Bash(ls *)", "Bash(cat:*)", "Glob", "Grep(./src/**)", "NotebookEdit", "Write(./build/**)", "WebFetch(domain:*.github.com)")...)
	p.Session = rules(append(noise, "Bash(echo:*)", "Edit(./docs/**)", "Read(//tmp/**)")...)
	p.Constraint = rules(append(noise, "Bash", "Read", "Glob", "Grep", "Edit(./src/**)", "WebFetch(domain:github.com)", "Agent", "mcp__srv7__tool")...)
	return p
}

// TestRuleIndexFindsWhatScanFinds decides a generated corpus and edge
// cases under large policies with the index and with every rule tried:
// the results must be identical, rule and reason included.
func TestRuleIndexFindsWhatScanFinds(t *testing.T) {
	f := newDiffFixture(t)
	var reqs []Request
	for _, c := range callcorpus.Mixed(31, 2500) {
		reqs = append(reqs, Request{Tool: c.Tool, Input: c.Input})
	}
	for _, cmd := range []string{"python3.11 -c 'print(1)'", "/usr/bin/python3 -c x", "env python3 -c x", "sudo perl5.36 -e 1", "x=$(perl -e 1)",
		"/usr/bin/env ls", "gitk", "git status", "echo status", "echo hi > .git/hooks/pre-commit", "cat .env.local", "cat src/a.go > docs/x",
		"tar czf x.tgz .", "grep -r KEY .", "ls link/deep", "cp x.pem link/deep/y", "npm run", "cat ./src/a.go",
		// Rules that start with a wildcard (thousandRules' "*-helperN *", the
		// edge rules below): indexed by the end of a word.
		"x-helper8 y", "a b-helper18 c", "-helper28 x", "zz-helper38", "run.sh", "ls run.sh", "./run.sh x", "a.sh.bak", `echo x-helper48\ y z`,
		"tool x-helper58  y", "sudo a-helper68 b",
		// An invalid byte matches U+FFFD in a rule, as the regular
		// expression such rules use reads it.
		`$'\xff'ab x`, `y$'\xff'cd x`} {
		reqs = append(reqs, bashReq(cmd))
	}
	reqs = append(reqs, fileReq("Read", "link/deep/file"), fileReq("Read", "docs/guide.md"), fileReq("Read", "src/b.go"), fileReq("Edit", "README.md"),
		Request{Tool: "WebFetch", Input: map[string]any{"url": "https://a.b.evil.example/x"}},
		Request{Tool: "WebFetch", Input: map[string]any{"url": "https://api.github.com/x"}},
		Request{Tool: "mcp__github__get_issue", Input: map[string]any{}}, Request{Tool: "mcp__srv3__x", Input: map[string]any{}})
	for _, m := range []Mode{ModeDefault, ModeAcceptEdits} {
		p := edgePolicy(f.ws(), m)
		p.Compile()
		lin := linearRules(p)
		for _, req := range reqs {
			got := evaluate(analyse(req, p.Workspace), p, p.rules())
			want := evaluate(analyse(req, p.Workspace), p, lin)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v (%s):\n index: %+v\n  scan: %+v", req.Tool, req.Input, m, got, want)
			}
		}
	}
}

// TestCompileStale checks that a Policy changed after Compile is decided
// by its current rules and workspace, not by the index.
func TestCompileStale(t *testing.T) {
	f := newDiffFixture(t)
	p := thousandRules(f.ws())
	p.Compile()
	req := bashReq("zork --now")
	if r := Evaluate(req, p); r.Decision == Deny {
		t.Fatalf("before: %+v", r)
	}
	q := *p // a copy shares the index
	q.Deny = append(append([]Entry{}, p.Deny...), entries(SourceSession, "Bash(zork:*)")...)
	if r := Evaluate(req, &q); r.Decision != Deny || r.Rule != "Bash(zork:*)" {
		t.Errorf("appended deny rule not applied: %+v", r)
	}
	q.Compile()
	if r := Evaluate(req, &q); r.Decision != Deny || r.Rule != "Bash(zork:*)" {
		t.Errorf("after Compile: %+v", r)
	}
	if r := Evaluate(req, p); r.Decision == Deny {
		t.Errorf("the original changed: %+v", r)
	}
	// CompileFrom reuses only lists with equal rules.
	r := thousandRules(f.ws())
	r.Deny = append(r.Deny, entries(SourceSession, "Bash(zork:*)")...)
	r.CompileFrom(p, &q)
	if got := Evaluate(req, r); got.Decision != Deny || got.Rule != "Bash(zork:*)" || &r.idx.deny.rules[0] != &q.idx.deny.rules[0] || &r.idx.ask.rules[0] != &p.idx.ask.rules[0] {
		t.Errorf("CompileFrom: %+v, deny reused %v, ask reused %v", got, &r.idx.deny.rules[0] == &q.idx.deny.rules[0], &r.idx.ask.rules[0] == &p.idx.ask.rules[0])
	}
	// A new workspace re-resolves relative path patterns.
	w := *p
	w.Deny = entries(SourceProject, "Read(./secret.txt)")
	w.Compile()
	w.Workspace.Cwd = f.outside
	if r := Evaluate(fileReq("Read", f.outside+"/secret.txt"), &w); r.Decision != Deny {
		t.Errorf("pattern not resolved in the new workspace: %+v", r)
	}
}

// TestEvaluateShared decides calls from several goroutines under one
// compiled and one uncompiled policy (run with -race).
func TestEvaluateShared(t *testing.T) {
	f := newDiffFixture(t)
	compiled := thousandRules(f.ws())
	compiled.Compile()
	plain := thousandRules(f.ws())
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range callcorpus.Mixed(uint64(g), 50) {
				req := Request{Tool: c.Tool, Input: c.Input}
				if a, b := Evaluate(req, compiled), Evaluate(req, plain); a.Decision != b.Decision || a.Rule != b.Rule {
					t.Errorf("%v: compiled %+v, not %+v", req, a, b)
				}
			}
		}()
	}
	wg.Wait()
}

// TestMayMention checks mayMention's shortcut of the mention check: for
// every Bash rule of the differential corpus's and more, alone in a list
// and all in one, and every form of generated commands (with names by
// path, versioned and in here-documents), a part it says mentions no
// program is one mentionMatch and mentioned find nothing in.
func TestMayMention(t *testing.T) {
	deny, ask, allow := callcorpus.Rules()
	pats := []string{"Bash(rm -rf *)", "Bash(curl:*)", "Bash(python3 -c *)", "Bash(/bin/rm:*)", "Bash(git push:*)", "Bash(* --force)", "Bash(node:*)"}
	for _, r := range slices.Concat(deny, ask, allow) {
		if strings.HasPrefix(r, "Bash(") {
			pats = append(pats, r)
		}
	}
	var lists [][]Entry
	for _, p := range pats {
		r, err := ParseRule(p)
		if err != nil {
			t.Fatal(err)
		}
		lists = append(lists, []Entry{{Rule: r}})
	}
	var all []Entry
	for _, l := range lists {
		all = append(all, l...)
	}
	lists = append(lists, all[:7], all)
	// An indexed list (more than smallList rules) with few enough
	// programs for mayMention to look for them: the index's own answer
	// must agree too.
	var few []Entry
	for _, p := range []string{"Bash(git push:*)", "Bash(git reset --hard:*)", "Bash(git clean:*)", "Bash(npm publish:*)", "Bash(npm install:*)",
		"Bash(go run:*)", "Bash(go generate:*)", "Bash(make install:*)", "Bash(make deploy:*)", "Bash(rm -rf *)", "Bash(rm -f *)", "Bash(curl:*)"} {
		r, err := ParseRule(p)
		if err != nil {
			t.Fatal(err)
		}
		few = append(few, Entry{Rule: r})
	}
	lists = append(lists, few)
	var formsOf [][]string
	cmds := []string{"python3.11 -c 'print(1)'", "/usr/bin/rm -rf /", "sudo /bin/curl x", "cat <<'EOF'\nrm -rf /\nEOF", "x=$(curl y)", "npx rimraf build"}
	for _, c := range callcorpus.Bash(5, 1000) {
		cmds = append(cmds, c.Input["command"].(string))
	}
	for _, src := range cmds {
		s, err := bash.Parse(src)
		if err != nil {
			continue
		}
		for _, cmd := range s.Commands {
			forms := cmd.DenyForms()
			if cmd.Stdin != "" {
				forms = append(forms, "\n"+cmd.Stdin)
			}
			formsOf = append(formsOf, forms)
		}
	}
	wordsOf := make([][][]string, len(formsOf))
	for i, forms := range formsOf {
		wordsOf[i], _, _ = appendMentionWords(forms, nil, nil)
	}
	sure, found, indexed := 0, 0, 0
	for _, es := range lists {
		l := compileList(Workspace{Cwd: "/w", Root: "/w", Home: "/h"}, es, nil, true)
		for k, forms := range formsOf {
			words := wordsOf[k]
			if l.mayMention(forms) {
				for i := range l.rules {
					if _, w := mentionMatch(&l.rules[i], words); w != "" {
						found++
					}
				}
				continue
			}
			sure++
			for i := range l.rules {
				if certain, w := mentionMatch(&l.rules[i], words); certain || w != "" {
					t.Errorf("%s: mayMention says no program, but %s mentions %s", es[i].Rule, forms, w)
				}
			}
			if !l.linear() {
				indexed++
				if c := l.mentioned(words); len(c) > 0 {
					t.Errorf("mayMention says no program, but the index finds rules %v in %s", c, forms)
				}
			}
		}
	}
	if sure == 0 || found == 0 || indexed == 0 {
		t.Fatalf("%d parts shortcut (%d against an index), %d mentions found: the test checks nothing", sure, indexed, found)
	}
}
