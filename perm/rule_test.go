package perm

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseRule(t *testing.T) {
	cases := []struct {
		in      string
		want    Rule
		wantErr string
		canon   string // String(), where it is not in
	}{
		{in: "Bash", want: Rule{Tool: "Bash"}},
		{in: "Bash(git diff*)", want: Rule{Tool: "Bash", Pattern: "git diff*", HasPattern: true}},
		{in: "Bash(echo (a) b)", want: Rule{Tool: "Bash", Pattern: "echo (a) b", HasPattern: true}},
		{in: "Read(./src/**)", want: Rule{Tool: "Read", Pattern: "./src/**", HasPattern: true}},
		{in: "WebFetch(domain:github.com)", want: Rule{Tool: "WebFetch", Pattern: "domain:github.com", HasPattern: true}},
		{in: "WebFetch(domain:*.github.com)", want: Rule{Tool: "WebFetch", Pattern: "domain:*.github.com", HasPattern: true}},
		{in: "mcp__github__get_issue", want: Rule{Tool: "mcp__github__get_issue"}},
		{in: "MCP(mcp__puppeteer__*)", want: Rule{Tool: "MCP", Pattern: "mcp__puppeteer__*", HasPattern: true}},
		// Claude Code writes every tool of a server as mcp__server__*.
		{in: "mcp__puppeteer__*", want: Rule{Tool: "mcp__puppeteer"}, canon: "mcp__puppeteer"},
		{in: "mcp__*", wantErr: `malformed rule "mcp__*": invalid character '*' in tool name`},
		// and some of them as mcp__server__get_*: a glob over the tools.
		{in: "mcp__a__b__*", want: Rule{Tool: "MCP", Pattern: "mcp__a__b__*", HasPattern: true}, canon: "MCP(mcp__a__b__*)"},
		{in: "mcp__a__get_*", want: Rule{Tool: "MCP", Pattern: "mcp__a__get_*", HasPattern: true}, canon: "MCP(mcp__a__get_*)"},
		{in: "mcp__a*__get", wantErr: `malformed rule "mcp__a*__get": invalid character '*' in tool name`},
		{in: "mcp__a__get.*", wantErr: `malformed rule "mcp__a__get.*": invalid character '.' in tool name`},
		{in: "mcp__a__*(x)", wantErr: `malformed rule "mcp__a__*(x)": invalid character '*' in tool name`},
		{in: "Agent(Explore)", want: Rule{Tool: "Agent", Pattern: "Explore", HasPattern: true}},
		{in: "", wantErr: `malformed rule "": empty rule`},
		{in: "Bash(", wantErr: `malformed rule "Bash(": missing closing parenthesis`},
		{in: "Bash(x", wantErr: `malformed rule "Bash(x": missing closing parenthesis`},
		{in: "Bash)", wantErr: `malformed rule "Bash)": unbalanced parenthesis`},
		{in: "Bash()", wantErr: `malformed rule "Bash()": empty pattern: write the bare tool name to match every call`},
		{in: "(ls)", wantErr: `malformed rule "(ls)": missing tool name`},
		{in: " Bash", wantErr: `malformed rule " Bash": leading or trailing white space`},
		{in: "Ba sh(x)", wantErr: `malformed rule "Ba sh(x)": invalid character ' ' in tool name`},
		{in: "WebFetch(github.com)", wantErr: `malformed rule "WebFetch(github.com)": WebFetch patterns are domain:HOST or domain:*.HOST`},
		{in: "WebFetch(domain:a*.com)", wantErr: `malformed rule "WebFetch(domain:a*.com)": WebFetch allows a wildcard only as a leading *.`},
		// MCP rules the tools' names can never match: the model sees a
		// server's tool get.file as mcp__s__get_file, and no server's
		// name starts or ends with '_'.
		{in: "MCP(mcp__s__get.file)", wantErr: `malformed rule "MCP(mcp__s__get.file)": no MCP tool's name has '.': the model sees a tool's name with only letters, digits, '_' and '-' (a server's tool get.file is mcp__SERVER__get_file)`},
		{in: "MCP(mcp__s__[a-z]*_?)", want: Rule{Tool: "MCP", Pattern: "mcp__s__[a-z]*_?", HasPattern: true}},
		{in: "mcp___s", wantErr: `malformed rule "mcp___s": "mcp___s" names no MCP server: a server's name is letters, digits, '_' and '-', without "__" or a leading or trailing '_'`},
		{in: "mcp__s___x", want: Rule{Tool: "mcp__s___x"}},
		{in: "mcp__s__", wantErr: `malformed rule "mcp__s__": "mcp__s__" names no MCP tool: write mcp__s for every tool of the server`},
		// A pattern on a tool whose calls have none to match (an MCP
		// tool or server, TaskCreate) matches no call: a deny fails open.
		{in: "mcp__s__x(*)", wantErr: `malformed rule "mcp__s__x(*)": mcp__s__x takes no pattern: no call of it has one to match, so the rule would match none; write mcp__s__x for every call`},
		{in: "mcp__s(delete)", wantErr: `malformed rule "mcp__s(delete)": mcp__s takes no pattern: no call of it has one to match, so the rule would match none; write mcp__s for every call`},
		{in: "TaskCreate(*)", wantErr: `malformed rule "TaskCreate(*)": TaskCreate takes no pattern: no call of it has one to match, so the rule would match none; write TaskCreate for every call`},
		// Two rules written as one match no call: a deny would fail open.
		{in: "Read(./.env) Read(./secrets/**)", wantErr: `malformed rule "Read(./.env) Read(./secrets/**)": unbalanced parentheses in the pattern: is it two rules? Write each rule on its own (a list entry each; in a flag, separated by commas)`},
		{in: "Bash(rm -rf *), Bash(curl *)", wantErr: `malformed rule "Bash(rm -rf *), Bash(curl *)": unbalanced parentheses in the pattern: is it two rules? Write each rule on its own (a list entry each; in a flag, separated by commas)`},
		{in: "Bash(echo (a)", wantErr: `malformed rule "Bash(echo (a)": unbalanced parentheses in the pattern: is it two rules? Write each rule on its own (a list entry each; in a flag, separated by commas)`},
		{in: "Read(./a (1).txt)", want: Rule{Tool: "Read", Pattern: "./a (1).txt", HasPattern: true}},
		{in: `Read(./a\).txt)`, want: Rule{Tool: "Read", Pattern: `./a\).txt`, HasPattern: true}},
		{in: `Bash(grep -E "(a|b" *)`, want: Rule{Tool: "Bash", Pattern: `grep -E "(a|b" *`, HasPattern: true}},
		{in: `Bash(echo ')' "\")")`, want: Rule{Tool: "Bash", Pattern: `echo ')' "\")"`, HasPattern: true}},
		{in: `Read(./don't (1).txt)`, want: Rule{Tool: "Read", Pattern: `./don't (1).txt`, HasPattern: true}},
		// A quote never closed hides no parenthesis and breaks no rule:
		// a prefix rule may end inside one.
		{in: `Bash(git commit -m "feat:*)`, want: Rule{Tool: "Bash", Pattern: `git commit -m "feat:*`, HasPattern: true}},
		{in: `Bash(echo it's:*)`, want: Rule{Tool: "Bash", Pattern: `echo it's:*`, HasPattern: true}},
		{in: `Bash(echo "a) Read(./.env)`, wantErr: `malformed rule "Bash(echo \"a) Read(./.env)": unbalanced parentheses in the pattern: is it two rules? Write each rule on its own (a list entry each; in a flag, separated by commas)`},
		{in: `Bash(echo "a\)`, want: Rule{Tool: "Bash", Pattern: `echo "a\`, HasPattern: true}},
		{in: `Bash(echo 'a) Bash(rm *)`, wantErr: `malformed rule "Bash(echo 'a) Bash(rm *)": unbalanced parentheses in the pattern: is it two rules? Write each rule on its own (a list entry each; in a flag, separated by commas)`},
		// A domain is compared as written with the canonical host a URL
		// reaches (webHost): in another form it would match no fetch, and
		// a deny rule would fail open.
		{in: "WebFetch(domain:bücher.de)", wantErr: `malformed rule "WebFetch(domain:bücher.de)": a fetch of bücher.de reaches the host xn--bcher-kva.de, and the rule is compared with that: write domain:xn--bcher-kva.de`},
		{in: "WebFetch(domain:*.ｅｘａｍｐｌｅ.com)", wantErr: `malformed rule "WebFetch(domain:*.ｅｘａｍｐｌｅ.com)": a fetch of ｅｘａｍｐｌｅ.com reaches the host example.com, and the rule is compared with that: write domain:*.example.com`},
		{in: "WebFetch(domain:0x7f.1)", wantErr: `malformed rule "WebFetch(domain:0x7f.1)": a fetch of 0x7f.1 reaches the host 127.0.0.1, and the rule is compared with that: write domain:127.0.0.1`},
		{in: "WebFetch(domain:2130706433)", wantErr: `malformed rule "WebFetch(domain:2130706433)": a fetch of 2130706433 reaches the host 127.0.0.1, and the rule is compared with that: write domain:127.0.0.1`},
		{in: "WebFetch(domain:exa_mple.com)", wantErr: `malformed rule "WebFetch(domain:exa_mple.com)": "exa_mple.com" is not a host name or IP address a URL can reach`},
		{in: "WebFetch(domain:xn--bcher-kva.de)", want: Rule{Tool: "WebFetch", Pattern: "domain:xn--bcher-kva.de", HasPattern: true}},
		{in: "WebFetch(domain:Example.COM.)", want: Rule{Tool: "WebFetch", Pattern: "domain:Example.COM.", HasPattern: true}},
		{in: "MCP", wantErr: `malformed rule "MCP": MCP needs a pattern such as MCP(mcp__server__*)`},
		{in: "MCP(github)", wantErr: `malformed rule "MCP(github)": MCP patterns name tools mcp__server__tool`},
		{in: "Read(src/[)", wantErr: `malformed rule "Read(src/[)": invalid path pattern "src/["`},
		{in: "Bash(git:* x)", wantErr: `malformed rule "Bash(git:* x)": :* is only allowed at the end of a Bash pattern`},
		{in: "Skill(git:*)", want: Rule{Tool: "Skill", Pattern: "git:*", HasPattern: true}},
		{in: "Skill(git:*x)", wantErr: `malformed rule "Skill(git:*x)": :* is only allowed at the end of a Skill pattern`},
		// Patterns that can match nothing: as deny rules they would fail open.
		{in: "Bash(:*)", wantErr: `malformed rule "Bash(:*)": the prefix before :* is empty or ends in white space: write the bare tool name Bash to match every call`},
		{in: "Bash( :*)", wantErr: `malformed rule "Bash( :*)": leading or trailing white space in the pattern: no Bash call has it`},
		{in: "Bash(npm run :*)", wantErr: `malformed rule "Bash(npm run :*)": the prefix before :* is empty or ends in white space: write the bare tool name Bash to match every call`},
		{in: "Bash(*:*)", wantErr: `malformed rule "Bash(*:*)": the prefix before :* is literal and cannot hold *: write Bash(*) for a wildcard`},
		{in: "Bash(git * push:*)", wantErr: `malformed rule "Bash(git * push:*)": the prefix before :* is literal and cannot hold *: write Bash(git * push*) for a wildcard`},
		{in: "Bash(  *)", wantErr: `malformed rule "Bash(  *)": leading or trailing white space in the pattern: no Bash call has it`},
		{in: "Bash(ls )", wantErr: `malformed rule "Bash(ls )": leading or trailing white space in the pattern: no Bash call has it`},
		{in: "Skill(:*)", wantErr: `malformed rule "Skill(:*)": the prefix before :* is empty or ends in white space: write the bare tool name Skill to match every call`},
		{in: "Bash(:)", want: Rule{Tool: "Bash", Pattern: ":", HasPattern: true}}, // the : builtin
		// A ~ that names another user's home (bash's ~root) would be read
		// as a relative name "./~root/...": a dead deny rule.
		{in: "Read(~/.ssh/**)", want: Rule{Tool: "Read", Pattern: "~/.ssh/**", HasPattern: true}},
		{in: "Read(~)", want: Rule{Tool: "Read", Pattern: "~", HasPattern: true}},
		{in: "Read(~root/.ssh/**)", wantErr: `malformed rule "Read(~root/.ssh/**)": only ~ and ~/ (your home) may start a path rule, not ~root: write the absolute path (//home/NAME/... or //root/...)`},
		{in: "Edit(~alice)", wantErr: `malformed rule "Edit(~alice)": only ~ and ~/ (your home) may start a path rule, not ~alice: write the absolute path (//home/NAME/... or //root/...)`},
		{in: "Read(~+/x)", wantErr: `malformed rule "Read(~+/x)": only ~ and ~/ (your home) may start a path rule, not ~+: write the absolute path (//home/NAME/... or //root/...)`},
		{in: "Read(./~root/x)", want: Rule{Tool: "Read", Pattern: "./~root/x", HasPattern: true}}, // a name written as one
		// Control characters match no command or path a person meant.
		{in: "Bash(rm\x00:*)", wantErr: `malformed rule "Bash(rm\x00:*)": control character U+0000 in the rule`},
		{in: "Bash(rm\t-rf:*)", wantErr: `malformed rule "Bash(rm\t-rf:*)": control character U+0009 in the rule`},
		{in: "Read(./a\nb)", wantErr: `malformed rule "Read(./a\nb)": control character U+000A in the rule`},
		{in: "Read(./a\x7fb)", wantErr: `malformed rule "Read(./a\x7fb)": control character U+007F in the rule`},
		{in: "Read(./a\u0085b)", wantErr: `malformed rule "Read(./a\u0085b)": control character U+0085 in the rule`},
		{in: "Bash\x00", wantErr: `malformed rule "Bash\x00": control character U+0000 in the rule`},
		// Claude Code's old name for the Agent tool.
		{in: "Task(Explore)", want: Rule{Tool: "Agent", Pattern: "Explore", HasPattern: true}, canon: "Agent(Explore)"},
		{in: "Task", want: Rule{Tool: "Agent"}, canon: "Agent"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRule(tc.in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ParseRule(%q) error = %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseRule(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			canon := tc.in
			if tc.canon != "" {
				canon = tc.canon
			}
			if got.String() != canon {
				t.Errorf("String() = %q, want %q", got.String(), canon)
			}
		})
	}
}

// A rule naming one of Claude Code's tools that gen does not have is
// still an error, but one ParseListRule can tell (errClaudeTool) and
// leave out of an allow list; a misspelt gen tool is not such a rule.
func TestParseRuleClaudeTool(t *testing.T) {
	for _, in := range []string{"MultiEdit", "TodoWrite", "LS", "MultiEdit(./src/**)"} {
		_, err := ParseRule(in)
		if err == nil || !errors.Is(err, errClaudeTool) {
			t.Errorf("ParseRule(%q) error = %v, want one wrapping errClaudeTool", in, err)
		}
	}
	for _, in := range []string{"Bassh", "multiedit", "Bash("} {
		if _, err := ParseRule(in); err == nil || errors.Is(err, errClaudeTool) {
			t.Errorf("ParseRule(%q) error = %v, want an error that is not errClaudeTool", in, err)
		}
	}
}

func TestBashMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		want   bool
	}{
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"git *", "git status", true},
		{"git *", "git", false},
		{"git*", "git", true},
		{"git*", "gitk", true},
		{"git:*", "git", true},
		{"git:*", "git push", true},
		{"git:*", "gitk", false},
		{"* --version", "go --version", true},
		{"* --version", " --version", false},
		{"ls *", "lsof", false},
		{"ls*", "lsof", true},
		{"npm run *", "npm run build --x", true},
		{"a*b", "ab", false},
		{"a*b", "a b", true},
		{"x.y", "xzy", false},
	}
	for _, tc := range cases {
		if got := bashMatch(tc.pat, tc.s); got != tc.want {
			t.Errorf("bashMatch(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto", "explore"} {
		if got, err := ParseMode(m); err != nil || string(got) != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if got, err := ParseMode(""); err != nil || got != ModeDefault {
		t.Errorf("ParseMode(\"\") = %q, %v", got, err)
	}
	for _, m := range []string{"edit", "Default", "bypass", "Plan"} {
		if _, err := ParseMode(m); err == nil {
			t.Errorf("ParseMode(%q) succeeded", m)
		}
	}
}

func TestParseCall(t *testing.T) {
	cases := []struct {
		in   string
		tool string
		key  string
		val  string
		err  bool
	}{
		{"Bash(git diff && echo (x))", "Bash", "command", "git diff && echo (x)", false},
		{"Read(./a.txt)", "Read", "file_path", "./a.txt", false},
		{"NotebookEdit(n.ipynb)", "NotebookEdit", "notebook_path", "n.ipynb", false},
		{"Grep(K)", "Grep", "pattern", "K", false},
		{"WebFetch(https://x.org)", "WebFetch", "url", "https://x.org", false},
		{"Agent(Explore)", "Agent", "subagent_type", "Explore", false},
		{"Skill(pdf)", "Skill", "skill", "pdf", false},
		{"mcp__github__get_issue", "mcp__github__get_issue", "", "", false},
		{"Bash(ls", "", "", "", true},
		{"Bash(ls) x", "", "", "", true},
		{"(ls)", "", "", "", true},
		{"mcp__x__y(z)", "", "", "", true},
	}
	for _, tc := range cases {
		req, err := ParseCall(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("ParseCall(%q) succeeded", tc.in)
			}
			continue
		}
		if err != nil || req.Tool != tc.tool || (tc.key != "" && req.Input[tc.key] != tc.val) {
			t.Errorf("ParseCall(%q) = %+v, %v", tc.in, req, err)
		}
	}
}

// FuzzBashMatch checks the compiled Bash pattern matcher against the
// grammar written as a regular expression.
func FuzzBashMatch(f *testing.F) {
	for _, s := range [][2]string{{"git *", "git status"}, {"a**b", "aéb"}, {"*x*", "axxb"}, {"git*", "git"}, {"a*b:*", "a*b c"},
		{"* --version", " --version"}, {"x*y*", "x\xe2\x82y"}, {"*", ""}, {"a*é*", "a\xc3é"}, {"**a", "éa"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, s string) {
		if pat == "" || !utf8.ValidString(pat) {
			return // rules are text; the regular expression cannot hold invalid UTF-8
		}
		bp := compileBash(pat)
		if got, want := bp.match(s), bashRegexp(pat).MatchString(s); got != want {
			t.Fatalf("pattern %q on %q: match %v, regexp %v", pat, s, got, want)
		}
	})
}

// TestOptionSplit checks how commands and rule patterns are split into
// options (in one spelling) and the rest, for deny and ask rules.
func TestOptionSplit(t *testing.T) {
	for _, tc := range []struct{ in, opts, rest string }{
		{"rm -rf /", "-f -r", "rm /"},
		{"rm -fr /", "-f -r", "rm /"},
		{"rm -r -f -v x", "-f -r -v", "rm x"},
		{"rm -rrf x -v", "-f -r -v", "rm x"}, // after an operand too
		{"rm -R -f /", "-f -r", "rm /"},
		{"rm --recursive --force /", "-f -r", "rm /"},
		{"rm --rec --fo /", "-f -r", "rm /"}, // abbreviations
		{"rm --force / -R", "-f -r", "rm /"},
		{"rm -- -rf x", "", ""},           // operands after "--"
		{"rm -f -- -r", "-f", "rm -- -r"}, // "--" kept
		{"git clean -df x", "-d -f", "git clean x"},
		{"git clean --force -d -x", "-d -f -x", "git clean"},
		{"git push origin --force-with-lease=main", "-f=main", "git push origin"},
		{"git push origin +main", "-f", "git push origin +main"},
		{"git push --force-if-includes", "-f", "git push"},
		{"git reset --ha HEAD", "--hard", "git reset HEAD"},
		{"git checkout --force x", "-f", "git checkout x"},
		{"git switch --discard-changes x", "-f", "git switch x"},
		{"sed --in-place=.bak s/a/b/ f", "-i=.bak", "sed s/a/b/ f"},
		{"sed -i.bak s/a/b/ f", "-i=.bak", "sed s/a/b/ f"},
		{"sed -Ei f", "-E -i", "sed f"},
		{"git push -ofoo", "-o=foo", "git push"},  // -o takes a value: not -o -f -o
		{"git push -of x", "-o=f", "git push x"},  // even one letter
		{"git push -fo x", "-f -o", "git push x"}, // -o last: its value is the next word
		{"git push -uf", "-f -u", "git push"},
		{"git clean -ef", "-e=f", "git clean"},
		{"frob -ofoo", "-f -o", "frob"}, // no names known: every letter an option
		{"sed -E -i f", "-E -i", "sed f"},
		{"sed --regexp-extended -r f", "-E", "sed f"}, // from the read-only spec
		{"chmod -R --recursive 700 d", "-R", "chmod 700 d"},
		{"cp --recursive -R a b", "-r", "cp a b"},
		{"find . -name x -delete", "-delete -name", "find . x"},
		{"xargs --null rm", "-0", "xargs rm"},
		{"ls --all -l", "-a -l", "ls"},
		{"frob --all -l", "--all -l", "frob"}, // no names known
		{"rm -r* x", "", ""},                  // a pattern is no option word
		{"-rf x", "", ""},                     // the program word is left alone
		{"echo hi", "", ""},
	} {
		opts, rest, ok := optionNamesOf(tc.in).Split(tc.in)
		if !ok {
			rest = ""
		}
		if got := strings.Join(opts, " "); got != tc.opts || rest != tc.rest {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tc.in, got, rest, tc.opts, tc.rest)
		}
	}
}

// TestOptionRule checks that a rule naming options matches every
// spelling of them, and only commands that have them all.
func TestOptionRule(t *testing.T) {
	for _, tc := range []struct {
		pat, cmd string
		want     bool
	}{
		{"rm -rf *", "rm --recursive --force /", true},
		{"rm -rf *", "rm -R -f /", true},
		{"rm -rf *", "rm --force -r /", true},
		{"rm -rf *", "rm / -rf", true},
		{"rm -rf *", "rm -i -rf x", true},
		{"rm -rf *", "rm -r /", false},
		{"rm -rf *", "rm -rf", false}, // "*" wants an operand
		{"rm -rf *", "rm -r -f --", true},
		{"rm -rf /", "rm -rf -- /", true},
		{"rm -rf /", "rm -rf / --", true},
		{"rm --recursive:*", "rm -R x", true},
		{"git push --force:*", "git push -f", true},
		{"git push --force:*", "git push origin --force-with-lease", true},
		{"git push --force:*", "git push origin +main", true},
		{"git push --force:*", "git pull --force", false},
		{"git push --force:*", "git push -ofoo", false}, // a push option, foo
		{"git push --force:*", "git push -of", false},
		{"git push --force:*", "git push -fo x", true},
		{"git push -f origin main", "git push origin main --force", true},
		{"git push -f origin main", "git push main origin --force", false},
		{"git clean -fdx:*", "git clean -x --force -d", true},
		{"git reset --hard:*", "git reset --har origin/main", true},
		{"git checkout -f:*", "git checkout --force main", true},
		{"sed -i *", "sed --in-place=.bak s/a/b/ f", true},
		{"sed -i.bak *", "sed -i s/a/b/ f", true}, // in place all the same
		{"sed -i.bak *", "sed -i.orig s/a/b/ f", false},
		{"sed --in-place=.bak *", "sed -i.bak x", true},
		{"chown -R *", "chown --recursive u d", true},
		{"chmod -R *", "chmod -r f", false}, // chmod's -r is a mode
		{"find * -delete", "find . -name x -delete -print", true},
		{"xargs -0 rm:*", "xargs --null rm", true},
		// An option's value is no option; the rule's own value words stay
		// among its other words, so it matches as before.
		{"git push --force:*", "git push -ofoo", false},
		{"git push --force:*", "git push -o -f", false},
		{"git push --force:*", "git push --no-force", false},
		{"git push --force:*", "git push -o x -f", true},
		{"git push -o:*", "git push -of", true},
		{"git commit -m *", "git commit -m fix", true},
		{"git commit -m *", "git commit -am fix", true},
		{"git commit -a:*", "git commit -mfax", false},
		{"git commit -a:*", "git commit -am fax", true},
		{"cp -r *", "cp -Zr a b", true}, // -Z takes no value here
	} {
		or, ok := compileOptionRule(tc.pat)
		if !ok {
			t.Errorf("%q: names no option", tc.pat)
			continue
		}
		opts, rest, ok := or.names.Split(tc.cmd)
		if got := ok && or.match(opts, rest); got != tc.want {
			t.Errorf("rule %q on %q: %v, want %v", tc.pat, tc.cmd, got, tc.want)
		}
	}
}
