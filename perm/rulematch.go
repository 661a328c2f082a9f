package perm

import (
	"path"
	"strings"

	"github.com/gen-run/gen/perm/bash"
)

// how says which kind of rule a match is for. Deny and ask rules match
// broadly (any normalised form, any path form, ancestors, subdomains);
// allow rules and the allow_tools constraint match narrowly.
type how int

const (
	matchDeny how = iota
	matchAsk
	matchAllow
	matchConstraint
)

func (h how) broad() bool { return h == matchDeny || h == matchAsk }

// matches reports whether rule cr applies to part pt of call c.
func (c *call) matches(cr *crule, pt *part, h how) bool {
	switch pt.kind {
	case kindCommand:
		return c.matchCommand(cr, pt, h)
	case kindRead, kindWrite:
		return c.matchPath(cr, pt, h)
	}
	return matchOther(cr.Rule, pt, h)
}

func (c *call) matchCommand(cr *crule, pt *part, h how) bool {
	switch cr.Rule.Tool {
	case "Bash":
		if !cr.Rule.HasPattern {
			return true
		}
		if h.broad() {
			for i, f := range pt.denyForms {
				if cr.bash.match(f) || cr.canonMatch(f, pt, i) {
					return true
				}
			}
			return false
		}
		return pt.allowOK && cr.bash.match(pt.allowForm)
	case "Read", "Edit", "Write":
		_, ok := c.commandPath(cr, pt, h)
		return ok
	}
	return false
}

// canonMatch reports whether the Bash rule cr, which names options,
// matches the command form f with both split into options and the rest
// (optionRule): rm -fr /, rm --recursive --force / and rm / -Rf for
// Bash(rm -rf *). f is pt's deny form i, whose split pt keeps; with pt
// nil it is split here.
func (cr *crule) canonMatch(f string, pt *part, i int) bool {
	// The pattern's first word is the form's too.
	if !cr.hasOpt || !strings.HasPrefix(f, cr.canonLead) {
		return false
	}
	var of optionForm
	if pt != nil {
		of = pt.optionForm(i, cr.opt.names)
	} else {
		of.opts, of.rest, of.ok = cr.opt.names.Split(f)
	}
	return of.ok && cr.opt.match(of.opts, of.rest)
}

// optionForm is a deny form split by the option names of a rule's
// program (bash.OptionNames.Split).
type optionForm struct {
	form  int
	names *bash.OptionNames
	opts  []string
	rest  string
	ok    bool
}

// optionForm returns the part's deny form i split with names. Each split
// is worked out once, when first asked for: the rules that name options
// of one program share it.
func (pt *part) optionForm(i int, names *bash.OptionNames) optionForm {
	for _, of := range pt.optForms {
		if of.form == i && of.names == names {
			return of
		}
	}
	of := optionForm{form: i, names: names}
	of.opts, of.rest, of.ok = names.Split(pt.denyForms[i])
	pt.optForms = append(pt.optForms, of)
	return of
}

// commandPath reports whether a path rule covers a command part, and the
// word that names the covered path. A Read deny or ask covers read-only
// commands that read the path (cat .env); a Read deny covers any command
// whose words name it (python3 -c "open('.env')", curl -d @.env); an Edit
// or Write deny with a pattern covers any command naming a path it matches
// that is not verified to only read it.
func (c *call) commandPath(cr *crule, pt *part, h how) (string, bool) {
	r := cr.Rule
	if !h.broad() || (r.Tool != "Read" && h != matchDeny) {
		return "", false
	}
	if r.Tool == "Read" {
		for _, t := range pt.reads {
			if !r.HasPattern || targetMatch(cr.path, t, true) {
				return t.abs, true
			}
		}
	}
	if h != matchDeny || (r.Tool != "Read" && !r.HasPattern) {
		// A bare Edit or Write deny denies those tools; it does not
		// make every command with an argument a denied edit.
		return "", false
	}
	m, ok := c.mentionMatch(cr, pt)
	return m.word, ok
}

// pathTools says which rule tools govern a path part.
func pathRuleApplies(rule string, pt *part, h how) bool {
	if pt.kind == kindRead {
		return rule == "Read" || (rule == pt.tool && (rule == "Glob" || rule == "Grep"))
	}
	switch rule {
	case "Edit":
		return true
	case "Read":
		// Denying reads of a path also denies writing it.
		return h == matchDeny
	case "Write":
		// A Write deny or ask covers every write of the path; a Write
		// allow only the Write tool and shell writes.
		return h.broad() || pt.tool == "Write" || pt.tool == "Bash"
	case "NotebookEdit":
		return pt.tool == "NotebookEdit"
	}
	return false
}

func (c *call) matchPath(cr *crule, pt *part, h how) bool {
	r := cr.Rule
	if pt.dynamic {
		return false
	}
	if !pathRuleApplies(r.Tool, pt, h) {
		// A redirect belongs to its Bash command: a bare Bash rule in an
		// agent's allow_tools leaves it unconstrained.
		return h == matchConstraint && pt.tool == "Bash" && r.Tool == "Bash" && !r.HasPattern
	}
	if r.HasPattern {
		// A basename pattern (Edit(*.md), Read(.env)) names no
		// directory: as an allow rule it does not reach outside the
		// workspace, as a bare one does not (in Claude Code such a
		// pattern is relative to the working directory), so that
		// Edit(*.md) does not allow writing ~/other/README.md.
		return targetMatch(cr.path, pt.path, h.broad()) && (h != matchAllow || !cr.path.base || inWorkspace(c.ws, pt.path))
	}
	switch h {
	case matchAllow:
		// A bare allow rule does not name a path, so it does not reach
		// outside the workspace.
		return inWorkspace(c.ws, pt.path)
	default:
		return true
	}
}

func matchOther(r Rule, pt *part, h how) bool {
	switch {
	case r.Tool == pt.tool:
		if !r.HasPattern {
			return true
		}
		if !pt.hasSpec {
			return false
		}
		switch pt.tool {
		case "WebFetch":
			return domainMatch(r.Pattern, pt.host, h.broad())
		case "Skill":
			return skillMatch(r.Pattern, pt.spec)
		}
		return nameMatch(r.Pattern, pt.spec)
	case r.Tool == "MCP":
		return nameMatch(r.Pattern, pt.tool)
	}
	return !r.HasPattern && mcpServerMatch(r.Tool, pt.tool)
}

// mentionSep reports the bytes appendMentionWords splits at: white space (as
// RE2's \s: tab, newline, form feed, carriage return, space), shell
// punctuation, "=", and the punctuation other languages put before a
// command they run: "!" (vim -c '!cmd', less, gdb, git aliases), "@"
// (make recipes), ":" (vim's :!cmd), "\\", "%", "^" and "#". Only bytes no
// program name holds are here: "+" (g++), "-", "_", "." and "/" stay, and
// so do the glob characters "*" and "?". All are ASCII, so a byte of a
// multi-byte UTF-8 sequence is never one.
func mentionSep(b byte) bool {
	switch b {
	case '\t', '\n', '\f', '\r', ' ', ';', '|', '&', '(', ')', '<', '>', '\'', '"', '`', '$', '=', '{', '}', '[', ']', ',',
		'!', '@', ':', '\\', '%', '^', '#':
		return true
	}
	return false
}

// appendMentionWords splits each of a command's forms into the words a
// program name may hide in, once for every deny rule: at every run of
// mentionSep bytes, an empty word before a leading run and after a
// trailing one. The words are appended to block and the forms' word lists
// to lists, which the caller may reuse; it returns the forms' lists and
// the grown block and lists. The lists returned stay valid while block
// and lists grow.
func appendMentionWords(forms, block []string, lists [][]string) (words [][]string, _ []string, _ [][]string) {
	start := len(lists)
	for _, f := range forms {
		s := len(block)
		block = splitMention(f, block)
		lists = append(lists, block[s:len(block):len(block)])
	}
	return lists[start:len(lists):len(lists)], block, lists
}

// splitMention appends the words of s (appendMentionWords) to out.
func splitMention(s string, out []string) []string {
	start := 0
	for i := 0; i < len(s); {
		if !mentionSep(s[i]) {
			i++
			continue
		}
		out = append(out, s[start:i])
		for i < len(s) && mentionSep(s[i]) {
			i++
		}
		start = i
	}
	return append(out, s[start:])
}

// mentionMatch reports whether the program of a Bash rule pattern appears
// in any of a command's forms, split by appendMentionWords, outside the
// position the rule matched: as
// any word or part of a word (an argument of setarch, prlimit, fakeroot,
// ld-linux.so, a string given to sg -c), by path, or by a versioned name
// (python3.11 for python3, perl5.36 for perl). It returns that word, and
// certain if it is the program the form runs. The words after it must
// match the rest of the pattern, as written or in any spelling of the
// options it names (canonMatch). A pattern that starts with a wildcard
// names no program.
func mentionMatch(cr *crule, forms [][]string) (certain bool, word string) {
	prog := cr.prog
	if prog == "" {
		return false, ""
	}
	for _, toks := range forms {
		for i, t := range toks {
			if t == "" || !namesProgram(t, prog) {
				continue
			}
			tail := strings.Join(toks[i+1:], " ")
			if f := strings.TrimSpace(prog + " " + tail); !cr.bash.match(f) && !cr.canonMatch(f, nil, 0) {
				continue
			}
			return i == 0 && t != prog, t
		}
	}
	return false, ""
}

// ruleProgram returns the program a Bash pattern starts with and the rest
// of the pattern, or "" when it starts with a wildcard.
func ruleProgram(pat string) (prog, rest string) {
	p := strings.TrimSuffix(pat, ":*")
	prog, rest, _ = strings.Cut(p, " ")
	if prog == "" || strings.ContainsAny(prog, "*?") {
		return "", ""
	}
	return prog, rest
}

// namesProgram reports whether the word t (a path or a name) runs prog:
// the same name, a path ending in it, or a versioned name. A prog that is
// a path must be that path.
func namesProgram(t, prog string) bool {
	if strings.Contains(prog, "/") {
		return t == prog
	}
	base := path.Base(t)
	return base == prog || strings.HasPrefix(base, prog) && isVersion(base[len(prog):])
}
