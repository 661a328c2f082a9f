package perm

import (
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/net/idna"
)

// bashPatterns caches compiled Bash patterns: policies are rebuilt per run
// but their patterns repeat, and Evaluate runs on every call.
var bashPatterns sync.Map // string → *regexp.Regexp

// bashMatch reports whether the Bash rule pattern pat matches the command
// text s.
//
// "X:*" matches X alone or X followed by a space and anything. Otherwise "*"
// matches any run of characters, spaces included, but never the empty
// string — except a final "*" written right after a non-space character,
// which may be empty, so that "git*" matches "git" while "git *" does not.
// Without a wildcard the match is exact.
func bashMatch(pat, s string) bool {
	v, ok := bashPatterns.Load(pat)
	if !ok {
		v, _ = bashPatterns.LoadOrStore(pat, compileBash(pat))
	}
	return v.(*regexp.Regexp).MatchString(s)
}

func compileBash(pat string) *regexp.Regexp {
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

// webHost extracts the host a WebFetch URL reaches: lower-cased, without
// userinfo, port or a trailing dot. ok is false when the URL has no host.
func webHost(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	h := u.Hostname()
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
	h = strings.TrimSuffix(strings.ToLower(a), ".")
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

// mcpServerMatch reports whether a bare rule naming an MCP server
// (mcp__server) covers the tool mcp__server__tool.
func mcpServerMatch(rule, tool string) bool {
	return strings.HasPrefix(rule, "mcp__") && strings.Count(rule, "__") == 1 && strings.HasPrefix(tool, rule+"__")
}
