package perm

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

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

// optionCanon returns the command text s with each run of short-option
// words (words of "-" and letters or digits, one after another) split
// into single letters, sorted and without repeats: getopt reads -rf,
// -fr, -r -f and -rff alike, after the program or a subcommand (git clean
// -df). ok is false if s has no such word. It applies to rule patterns
// and command forms alike, so that deny and ask rules match every
// spelling of the options they name; a word holding "*" or "=" is no
// option word.
func optionCanon(s string) (string, bool) {
	if !strings.Contains(s, " -") {
		return "", false
	}
	var (
		b       strings.Builder
		letters []byte
		found   bool
	)
	flush := func() {
		if len(letters) == 0 {
			return
		}
		slices.Sort(letters)
		for _, l := range slices.Compact(letters) {
			b.WriteString(" -")
			b.WriteByte(l)
		}
		letters = letters[:0]
	}
	for i, w := range strings.Split(s, " ") {
		if i > 0 && shortCluster(w) {
			letters = append(letters, w[1:]...)
			found = true
			continue
		}
		flush()
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	flush()
	if !found {
		return "", false
	}
	return b.String(), true
}

// shortCluster reports a word of one or more short options: "-" and then
// ASCII letters and digits only.
func shortCluster(w string) bool {
	if len(w) < 2 || w[0] != '-' {
		return false
	}
	for i := 1; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// canonPattern returns the Bash rule pattern pat with its options in
// optionCanon's order ("rm -rf:*" is "rm -f -r:*"), and whether it names
// any.
func canonPattern(pat string) (string, bool) {
	if prefix, ok := strings.CutSuffix(pat, ":*"); ok {
		c, ok := optionCanon(prefix)
		return c + ":*", ok
	}
	return optionCanon(pat)
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
