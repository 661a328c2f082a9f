package perm

import (
	"path/filepath"
	"slices"
	"strings"
)

// maxSuggestions bounds the rules "Always allow" offers for one call.
const maxSuggestions = 5

// Suggest returns the allow rules that would cover the parts of req that p
// does not already allow (steps 4–7): the exact call, or for a compound
// Bash command one rule per subcommand that needs approval, at most five.
// Parts no rule can ever cover (a dynamic command name) are left out, as
// are checks no rule can silence (step 2).
//
// A suggestion is saved when the person answers "always" (and a
// PermissionRequest hook is offered it), so it must allow no more than the
// part it was made for: a part no rule names exactly gets none (see
// suggestion), and every rule is checked to parse back and to allow its
// part (suggests): none is offered that could not be saved or would not
// stop the prompt.
func Suggest(req Request, p *Policy) []string {
	c := analyse(req, p.Workspace)
	if c.invalid != "" {
		return nil
	}
	rs := p.rules()
	var out []string
	for i := range c.parts {
		pt := &c.parts[i]
		if decidePart(c, pt, p, rs).Decision == Allow {
			continue
		}
		r := suggestion(c, pt)
		if r == "" || slices.Contains(out, r) || !c.suggests(r, pt) {
			continue
		}
		out = append(out, r)
		if len(out) == maxSuggestions {
			break
		}
	}
	return out
}

// suggestion returns the allow rule that names pt exactly, or "" if no
// rule can:
//   - a command whose allow form would be read as a pattern: a "*" in it
//     (python3 -c 'print(1*2)', whose rule would match any code between
//     "print(1" and "2)"), or a U+FFFD, which a pattern lets stand for
//     any invalid byte;
//   - a command the script gives its standard input (StdinFed: python3
//     <<EOF, cat x.py | python3, python3 < x.py, find | xargs rm), which
//     its rule, matching only its words, would allow with any input;
//   - a command of a script that changes directory (cdBases: cd src &&
//     ./build.sh), other than the change itself: its rule would allow it
//     in any directory, where ./build.sh, make or x.py are other files;
//   - a command named as a function the script defines (make() { ...; };
//     make): its rule would allow the program of that name;
//   - a WebFetch of this machine or its network (internalHost): a
//     domain rule covers every port of the host, the service approved
//     and every other one listening there;
//   - a call of a tool whose rules match an argument (Agent's
//     subagent_type, Skill's skill, WebSearch's query) without that
//     argument: the bare tool would allow every call of it. The argument
//     is escaped, as those patterns are globs.
func suggestion(c *call, pt *part) string {
	switch pt.kind {
	case kindCommand:
		if _, _, cd := pt.cmd.DirChange(); !cd && (len(c.bases) > 1 || c.cdUnsure) {
			return ""
		}
		if name, ok := pt.cmd.Name(); ok && c.script.Defines(name) {
			return ""
		}
		if pt.allowOK && literalBash(pt.allowForm) && !pt.cmd.StdinFed() {
			return "Bash(" + pt.allowForm + ")"
		}
	case kindRead:
		if !pt.dynamic {
			return "Read(" + c.rulePath(pt.path.abs) + ")"
		}
	case kindWrite:
		if !pt.dynamic {
			return "Edit(" + c.rulePath(pt.path.abs) + ")"
		}
	case kindOther:
		switch {
		case pt.tool == "WebFetch":
			if internalHost(pt.host) {
				return ""
			}
			return "WebFetch(domain:" + pt.host + ")"
		case specKey(pt.tool) == "":
			return pt.tool // no argument of it is matched: the tool is the call
		case pt.hasSpec && pt.spec != "":
			return pt.tool + "(" + escapeRule(pt.spec) + ")"
		}
	}
	return ""
}

// literalBash reports whether the Bash pattern form matches only the
// command text form itself.
func literalBash(form string) bool {
	bp := compileBash(form)
	return bp.re == nil && !bp.prefix && len(bp.lits) == 1
}

// escapeRule escapes what a rule pattern would read as a glob
// metacharacter (escapeMeta) or as a parenthesis of the rule itself, so
// that the pattern names s as written.
func escapeRule(s string) string {
	s = escapeMeta(s)
	if !strings.ContainsAny(s, "()") {
		return s
	}
	return strings.NewReplacer("(", `\(`, ")", `\)`).Replace(s)
}

// suggests reports whether the rule text r, offered for pt, can be saved
// and does what it is offered for: it parses, compiles for the workspace
// and, as an allow rule, matches pt. A rule with a control character (a
// command with a newline in a quoted argument), one naming an IPv6 host,
// or one naming a link whose target lies elsewhere (every form of a path
// must match an allow rule) fails this.
func (c *call) suggests(r string, pt *part) bool {
	rule, err := ParseRule(r)
	if err != nil {
		return false
	}
	l := compileList(c.ws, []Entry{{Rule: rule, Source: SourceLocal}}, nil, false)
	return l.failed == "" && c.matches(&l.rules[0], pt, matchAllow)
}

// rulePath writes abs as a rule pattern naming exactly that path: relative
// to the project root where it lies below it (/src/a.go), else
// filesystem-absolute (//etc/hosts). Not relative to the cwd: the rule is
// saved in the project's settings, which hold wherever in the project gen
// starts, and ./a.go approved in src would name another file at the root.
func (c *call) rulePath(abs string) string {
	if root := c.ws.Root; root != "" && abs != root && within(abs, root) {
		if rel, err := filepath.Rel(root, abs); err == nil {
			return "/" + escapeRule(filepath.ToSlash(rel))
		}
	}
	return "/" + escapeRule(abs)
}

// FileAllowed reports whether tool (Glob or Grep, or Read itself) may show
// the file at path found while walking a directory the gate allowed. It is
// two calls of Evaluate on synthetic requests: a Read of the file must be
// allowed, and so must the walking tool's own call on exactly that file
// (Grep with path=file; Glob with path=file and pattern "."), so a
// Grep(./secret/**) deny also hides those files from a search started
// above them.
func FileAllowed(tool, path string, p *Policy) bool {
	if Evaluate(Request{Tool: "Read", Input: map[string]any{"file_path": path}}, p).Decision != Allow {
		return false
	}
	var req Request
	switch tool {
	case "Grep":
		req = Request{Tool: "Grep", Input: map[string]any{"pattern": "", "path": path}}
	case "Glob":
		req = Request{Tool: "Glob", Input: map[string]any{"pattern": ".", "path": path}}
	default:
		return true
	}
	return Evaluate(req, p).Decision == Allow
}
