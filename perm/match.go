package perm

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gen-run/gen/perm/bash"
	"golang.org/x/net/idna"
)

// bashPattern is a compiled Bash rule pattern.
//
// "X:*" matches X alone or X followed by a space and anything. Otherwise "*"
// matches any run of characters, spaces included, but never the empty
// string — except a final "*" written right after a non-space character,
// which may be empty, so that "git*" matches "git" while "git *" does not.
// Without a wildcard the match is exact. Runs are counted in characters
// (UTF-8 sequences; an invalid byte is one character), as the rule
// grammar defines them.
type bashPattern struct {
	// prefix is set for "X:*"; lits[0] is then X.
	prefix bool
	// lits are the literal runs between wildcards: a wildcard sits
	// between lits[i] and lits[i+1] and matches at least mins[i]
	// characters (consecutive wildcards are one run).
	lits []string
	mins []int
	// re matches patterns whose literal holds U+FFFD, which the grammar
	// lets stand for any invalid byte of the command.
	re *regexp.Regexp
}

// bashMatch reports whether the Bash rule pattern pat matches the command
// text s. Evaluate matches with patterns compiled once per Policy.
func bashMatch(pat, s string) bool {
	bp := compileBash(pat)
	return bp.match(s)
}

// optionRule is the part of a Bash rule pattern naming options that deny
// and ask rules match apart from the rest: a command matches if it has
// every option the pattern names (in any order, grouping or spelling, with
// more beside them) and its other words match the pattern's other words
// (rest). Rule and command are split by the same function
// (bash.OptionNames.Split), with the option names of the rule's program.
type optionRule struct {
	names *bash.OptionNames
	opts  []string
	rest  bashPattern
}

// compileOptionRule returns the optionRule of the Bash rule pattern pat,
// and false if pat names no option.
func compileOptionRule(pat string) (optionRule, bool) {
	body, prefix := strings.CutSuffix(pat, ":*")
	names := optionNamesOf(body)
	opts, rest, ok := names.Split(body)
	if !ok {
		return optionRule{}, false
	}
	if prefix {
		rest += ":*"
	}
	return optionRule{names: names, opts: opts, rest: compileBash(rest)}, true
}

// optionNamesOf returns the option names of the program the text s
// starts with (git's with its subcommand); nil for a wildcard.
func optionNamesOf(s string) *bash.OptionNames {
	prog, tail, _ := strings.Cut(s, " ")
	if strings.IndexByte(prog, '*') >= 0 {
		return nil
	}
	sub, _, _ := strings.Cut(tail, " ")
	return bash.Options(prog, sub)
}

// match reports whether a command split into opts and rest (Split, with
// or.names) matches: every option of the rule is among opts, an option
// the rule gives a value matching that value or none (sed -i is as much
// in place as sed -i.bak), and rest matches the rule's other words, with
// or without the "--" that ended the options.
func (or *optionRule) match(opts []string, rest string) bool {
	for _, want := range or.opts {
		name, _, valued := strings.Cut(want, "=")
		if !slices.ContainsFunc(opts, func(h string) bool {
			return h == want || h == name ||
				!valued && len(h) > len(want) && h[len(want)] == '=' && strings.HasPrefix(h, want)
		}) {
			return false
		}
	}
	if or.rest.match(rest) {
		return true
	}
	// "--" only ends the options: rm -rf -- / is rm -rf /.
	if before, after, found := strings.Cut(rest, " -- "); found {
		return or.rest.match(before + " " + after)
	}
	if before, found := strings.CutSuffix(rest, " --"); found {
		return or.rest.match(before)
	}
	return false
}

func compileBash(pat string) bashPattern {
	if strings.ContainsRune(pat, utf8.RuneError) && utf8.ValidString(pat) {
		return bashPattern{re: bashRegexp(pat)}
	}
	if prefix, ok := strings.CutSuffix(pat, ":*"); ok {
		return bashPattern{prefix: true, lits: []string{prefix}}
	}
	bp := bashPattern{}
	lit := 0 // start of the current literal run
	for i := 0; i < len(pat); i++ {
		if pat[i] != '*' {
			continue
		}
		if i > lit || i == 0 {
			bp.lits = append(bp.lits, pat[lit:i])
			bp.mins = append(bp.mins, 0)
		}
		// Only a final "*" right after a non-space character may be empty.
		if !(i == len(pat)-1 && i > 0 && pat[i-1] != ' ') {
			bp.mins[len(bp.mins)-1]++
		}
		lit = i + 1
	}
	bp.lits = append(bp.lits, pat[lit:])
	return bp
}

// bashRegexp is the grammar of bashPattern as a regular expression.
func bashRegexp(pat string) *regexp.Regexp {
	if prefix, ok := strings.CutSuffix(pat, ":*"); ok {
		q := regexp.QuoteMeta(prefix)
		return regexp.MustCompile(`^` + q + `(?: [\s\S]*)?$`)
	}
	var b strings.Builder
	b.WriteString(`^`)
	for i := 0; i < len(pat); i++ {
		if pat[i] != '*' {
			j := strings.IndexByte(pat[i:], '*')
			if j < 0 {
				j = len(pat) - i
			}
			b.WriteString(regexp.QuoteMeta(pat[i : i+j]))
			i += j - 1
			continue
		}
		if i == len(pat)-1 && i > 0 && pat[i-1] != ' ' {
			b.WriteString(`[\s\S]*`)
		} else {
			b.WriteString(`[\s\S]+`)
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// match reports whether the pattern matches s. Each literal between
// wildcards is placed at its leftmost possible position: a wildcard
// matches anything, so an earlier placement never loses a match.
func (bp *bashPattern) match(s string) bool {
	if bp.re != nil {
		return bp.re.MatchString(s)
	}
	first := bp.lits[0]
	if bp.prefix {
		return strings.HasPrefix(s, first) && (len(s) == len(first) || s[len(first)] == ' ')
	}
	n := len(bp.lits)
	if n == 1 {
		return s == first
	}
	last := bp.lits[n-1]
	end := len(s) - len(last)
	if end < len(first) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	pos := len(first)
	for i := 1; i < n-1; i++ {
		p, ok := skipChars(s[:end], pos, bp.mins[i-1])
		if !ok {
			return false
		}
		j := strings.Index(s[p:end], bp.lits[i])
		if j < 0 {
			return false
		}
		pos = p + j + len(bp.lits[i])
	}
	_, ok := skipChars(s[:end], pos, bp.mins[n-2])
	return ok
}

// skipChars returns the position n characters after pos in s, and
// whether s has that many.
func skipChars(s string, pos, n int) (int, bool) {
	for ; n > 0; n-- {
		if pos >= len(s) {
			return pos, false
		}
		if s[pos] < utf8.RuneSelf {
			pos++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[pos:])
		pos += w
	}
	return pos, true
}

// webHost extracts the host a WebFetch URL reaches: lower-cased, without
// userinfo, port or a trailing dot. ok is false when the URL has no host.
func webHost(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	return canonicalHost(u.Hostname())
}

// canonicalHost returns host h as the gate compares hosts: the address an
// IP literal reaches, in canonical form, or the ASCII name the HTTP client
// connects to, lower-cased and without a trailing dot. ok is false for a
// host that is neither. A WebFetch rule's domain must be written in this
// form (Rule.check): it is compared with it as written.
func canonicalHost(h string) (string, bool) {
	if a, ok := numericHost(h); ok {
		// 127.1, 0x7f000001 and ::ffff:127.0.0.1 are 127.0.0.1.
		return a, true
	}
	// The HTTP client maps an international name to ASCII before it
	// connects (ｌｏｃａｌｈｏｓｔ is localhost, a soft hyphen vanishes):
	// rules must see the name it connects to. A name that does not map is
	// not a host the gate can judge.
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", false
	}
	// Empty labels dropped: "example.com..", "example..com" and
	// ".example.com" are example.com to a resolver or proxy that tidies
	// the name, so they are to every rule; and the mapped name is read as
	// an address again ("127.1." and full-width "０x7f.1" are 127.0.0.1).
	h = strings.Join(strings.FieldsFunc(strings.ToLower(a), func(r rune) bool { return r == '.' }), ".")
	if a, ok := numericHost(h); ok {
		return a, true
	}
	return h, h != ""
}

// domainMatch matches a WebFetch "domain:" pattern against a host.
// Broad (deny, ask) matching covers subdomains of the named domain; narrow
// (allow) matching is exact unless the pattern is "*.domain", which then
// covers only proper subdomains.
func domainMatch(pat, host string, broad bool) bool {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimPrefix(pat, "domain:")), ".")
	wild := strings.HasPrefix(d, "*.")
	d = strings.TrimPrefix(d, "*.")
	sub := strings.HasSuffix(host, "."+d)
	switch {
	case broad:
		return host == d || sub
	case wild:
		return sub
	default:
		return host == d
	}
}

// nameMatch matches a glob (path.Match syntax) against a name such as an
// agent type or an MCP tool name. A malformed glob matches nothing; rules
// are validated when parsed, so this only guards against misuse.
func nameMatch(pat, name string) bool {
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// skillMatch reports whether a Skill rule pattern covers the skill called
// name, as Claude Code reads Skill rules: "NAME" is that skill, "PREFIX:*"
// every skill whose name starts with PREFIX ("git:*" covers git,
// git-commit and github-pr), and "NAME *" (a skill with any arguments) is
// NAME. A leading "/", the slash-command spelling, is ignored in the rule;
// the name itself is taken as the model sent it, never normalised, because
// the Skill tool looks up exactly that name. Other patterns are globs
// (nameMatch).
func skillMatch(pat, name string) bool {
	pat = strings.TrimPrefix(pat, "/")
	if prefix, ok := strings.CutSuffix(pat, ":*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	if n, ok := strings.CutSuffix(pat, " *"); ok {
		return name == n
	}
	return nameMatch(pat, name)
}

// NamesTool reports whether r is about the tool called name as a whole,
// whatever its input: r names it (bare or with a pattern), names its MCP
// server (mcp__server), or is an MCP(glob) rule whose glob matches it.
// Visibility filters use it; the gate itself matches with Evaluate.
func (r Rule) NamesTool(name string) bool {
	switch {
	case r.Tool == name:
		return true
	case r.Tool == "MCP":
		return nameMatch(r.Pattern, name)
	}
	return !r.HasPattern && mcpServerMatch(r.Tool, name)
}

// HasMCPTool reports whether p's MCPTools let the agent have tool: any
// tool that is not an MCP tool, and every MCP tool when MCPTools is nil;
// otherwise an MCP tool MCPTools names, or whose server it names.
func (p *Policy) HasMCPTool(tool string) bool {
	if p.MCPTools == nil || !strings.HasPrefix(tool, "mcp__") {
		return true
	}
	return slices.ContainsFunc(p.MCPTools, func(name string) bool { return name == tool || mcpServerMatch(name, tool) })
}

// mcpServerMatch reports whether a bare rule naming an MCP server
// (mcp__server) covers the tool mcp__server__tool.
func mcpServerMatch(rule, tool string) bool {
	return isMCPServer(rule) && strings.HasPrefix(tool, rule+"__")
}

// isMCPServer reports whether name names an MCP server: mcp__server,
// with a server name and no tool.
func isMCPServer(name string) bool {
	return strings.HasPrefix(name, "mcp__") && len(name) > len("mcp__") && strings.Count(name, "__") == 1
}
