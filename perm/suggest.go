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
		if r == "" || slices.Contains(out, r) {
			continue
		}
		out = append(out, r)
		if len(out) == maxSuggestions {
			break
		}
	}
	return out
}

func suggestion(c *call, pt *part) string {
	switch pt.kind {
	case kindCommand:
		if pt.allowOK {
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
			return "WebFetch(domain:" + pt.host + ")"
		case pt.hasSpec && pt.spec != "" && !strings.ContainsAny(pt.spec, "()"):
			return pt.tool + "(" + pt.spec + ")"
		}
		return pt.tool
	}
	return ""
}

// rulePath writes abs as a rule pattern naming exactly that path: relative
// to the cwd where it lies below it, else filesystem-absolute.
func (c *call) rulePath(abs string) string {
	if rel, err := filepath.Rel(c.ws.Cwd, abs); err == nil && within(abs, c.ws.Cwd) && rel != "." {
		return "./" + escapeMeta(filepath.ToSlash(rel))
	}
	return "/" + escapeMeta(abs)
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
