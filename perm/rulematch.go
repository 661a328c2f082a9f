package perm

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

// matches reports whether rule r applies to part pt of call c.
func (c *call) matches(r Rule, pt *part, h how) bool {
	switch pt.kind {
	case kindCommand:
		return c.matchCommand(r, pt, h)
	case kindRead, kindWrite:
		return c.matchPath(r, pt, h)
	}
	return matchOther(r, pt, h)
}

func (c *call) matchCommand(r Rule, pt *part, h how) bool {
	switch r.Tool {
	case "Bash":
		if !r.HasPattern {
			return true
		}
		if h.broad() {
			for _, f := range pt.denyForms {
				if bashMatch(r.Pattern, f) {
					return true
				}
			}
			return false
		}
		return pt.allowOK && bashMatch(r.Pattern, pt.allowForm)
	case "Read":
		// A Read deny or ask also covers read-only commands that read the
		// path (cat .env); a Read deny covers any command naming it.
		if !h.broad() {
			return false
		}
		ts := pt.reads
		if h == matchDeny {
			args, _ := c.argsOf(pt)
			ts = append(ts[:len(ts):len(ts)], args...)
		}
		for _, t := range ts {
			if !r.HasPattern || targetMatch(c.pathPattern(r.Pattern), t, true) {
				return true
			}
		}
	}
	return false
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

func (c *call) matchPath(r Rule, pt *part, h how) bool {
	if pt.dynamic {
		return false
	}
	if !pathRuleApplies(r.Tool, pt, h) {
		// A redirect belongs to its Bash command: a bare Bash rule in an
		// agent's allow_tools leaves it unconstrained.
		return h == matchConstraint && pt.tool == "Bash" && r.Tool == "Bash" && !r.HasPattern
	}
	if r.HasPattern {
		return targetMatch(c.pathPattern(r.Pattern), pt.path, h.broad())
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
		if pt.tool == "WebFetch" {
			return domainMatch(r.Pattern, pt.host, h.broad())
		}
		return nameMatch(r.Pattern, pt.spec)
	case r.Tool == "MCP":
		return nameMatch(r.Pattern, pt.tool)
	}
	return !r.HasPattern && mcpServerMatch(r.Tool, pt.tool)
}

// pathPattern compiles a path rule pattern once per call.
func (c *call) pathPattern(pat string) pathPattern {
	pp, ok := c.pats[pat]
	if !ok {
		pp = compilePath(c.ws, pat)
		c.pats[pat] = pp
	}
	return pp
}
