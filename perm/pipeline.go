package perm

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gen-run/gen/sandbox"
	"github.com/gen-run/gen/workspace"
)

// Evaluate decides one tool call under policy p. It never fails: a call
// that cannot be analysed is never allowed, and under a policy that could
// not be built (Policy.Failed) every call is denied at step 1.
//
// The steps, in order (the first that decides ends evaluation, except that
// steps 4–7 are decided per part of a compound Bash command and the
// strictest part wins):
//
//  1. deny rules, and a tool the agent does not have (Policy.Hidden) → Deny
//  2. bypass-immune checks (sensitive paths and the files hooks and MCP
//     servers run (Policy.Code), destructive or suspicious commands, code
//     a script carries in data, anything that cannot be analysed) → Ask;
//     then an agent's allow_tools constraint → Deny
//  3. bypassPermissions mode → Allow
//  4. session runtime permissions → Allow
//  5. ask rules → Ask (and the mode switches, ExitPlanMode in plan mode
//     and EnterPlanMode outside it, which ask before step 3: whatever
//     bypassPermissions, a grant or an allow rule says, the mode is the
//     person's)
//  6. allow rules → Allow
//  7. the mode's default (read-only commands and safe tools inside the
//     workspace → Allow)
//  8. Ask → Deny where nobody can be asked (subagents, headless, dontAsk)
func Evaluate(req Request, p *Policy) Result { return evaluateWith(req, p, nil) }

// evaluateWith is Evaluate asking res (nil: nobody) what it knows of the
// file system.
func evaluateWith(req Request, p *Policy, res *Resolver) (r Result) {
	// A call the analysis fails on (a bug: the input is the model's) is
	// denied, not the end of the run; the panic is the reason, to report.
	defer func() {
		if v := recover(); v != nil {
			if res != nil {
				res.rotate() // what the failed call left half made is
				res.rotate() // forgotten
			}
			r = Result{Decision: Deny, Step: 1, Reason: fmt.Sprintf("%s, so it is denied (please report this bug): %v", analysisFailed, v), Source: SourceBuiltin}
		}
	}()
	if failHook != nil {
		failHook(req)
	}
	c := analyseWith(req, p.Workspace, res)
	r = evaluate(c, p, p.rules())
	switch req.Tool {
	case "Read", "Edit", "Write", "NotebookEdit":
		if len(c.parts) == 1 && !c.parts[0].dynamic {
			r.Path = c.parts[0].path.real
		}
	case "Bash":
		r.Sandbox = sandboxProfile(c, r, p)
	}
	r.readOnly = false
	c.release()
	return r
}

// analysisFailed starts the reason of a call denied because its analysis
// failed.
const analysisFailed = "gen failed to analyse this call"

// failHook, set by tests only, fails the analysis of a call.
var failHook func(Request)

// sandboxProfile is the one place a Bash call's sandbox profile is
// decided: none where the policy has no sandbox or an approved
// dangerouslyDisableSandbox call; read-only for a call allowed only
// because every part of it is verified read-only (step 7), and for every
// call in plan mode; otherwise workspace-write (a rule, a mode, a
// session grant or an approval).
func sandboxProfile(c *call, r Result, p *Policy) sandbox.Profile {
	switch {
	case p.NoSandbox || c.unsandboxed:
		return sandbox.None
	case r.Decision == Allow && r.readOnly, p.Mode == ModePlan:
		// In plan mode nothing changes: what a rule or a grant allows
		// there only reads too, and the kernel holds it to that.
		return sandbox.ReadOnly
	}
	return sandbox.WorkspaceWrite
}

func evaluate(c *call, p *Policy, rs *ruleSet) Result {
	if p.Failed != "" {
		return Result{Decision: Deny, Step: 1, Reason: p.Failed, Source: SourceBuiltin}
	}
	if rs.failed != "" {
		return Result{Decision: Deny, Step: 1, Reason: rs.failed, Source: SourceBuiltin}
	}
	if slices.Contains(p.Hidden, c.req.Tool) || !p.HasMCPTool(c.req.Tool) {
		return Result{Decision: Deny, Step: 1, Reason: fmt.Sprintf("tool %s is not one of the agent's tools", c.req.Tool), Source: SourceAgent}
	}
	if len(rs.deny.pathProgs)+len(rs.ask.pathProgs) > 0 {
		c.pathProgramForms(rs)
	}
	// Path deny rules look at what commands read (classify). Otherwise
	// a command is classified only when a later step needs it: a
	// sensitive path it names (unless it only reads), a Read ask rule, or
	// the mode's default.
	if rs.deny.hasPath {
		c.classifyAll()
	}
	if r, ok := stepDeny(c, rs); ok {
		return stepCoerce(r, p)
	}
	if c.unsandboxed && p.Sandbox.AllowUnsandboxed != nil && !*p.Sandbox.AllowUnsandboxed {
		// Claude Code's sandbox.allowUnsandboxedCommands: false: the
		// escape is off, so no approval may run the command unconfined.
		return Result{Decision: Deny, Step: 1, Reason: UnsandboxedKey + " is turned off by sandbox.allowUnsandboxedCommands: false; run the command without it", Rule: UnsandboxedKey, Source: SourceBuiltin}
	}
	c.code = rs.codeOf(p.Code)
	c.xargsOK = !rs.deny.hasBash && !rs.ask.hasBash && !rs.deny.hasRead
	if r, ok := stepImmune(c, rs); ok {
		if r.Decision == Ask && p.Mode == ModePlan && c.changes() {
			// Nothing that changes anything runs before the plan is
			// approved, even with a person's say-so.
			r.Decision, r.Reason = Deny, planReason+" ("+r.Reason+")"
		}
		r = stepCoerce(r, p)
		if r.Decision != Ask {
			return r
		}
		if _, out := stepConstraint(c, rs); out {
			// Someone could be asked (a permission-prompt delegate)
			// about a call the agent's allow_tools do not allow: no
			// approval may reach it. The check's reason stays, as the
			// seed's subagent scenario prints it ("DENIED: destructive
			// command").
			r.Decision = Deny
		}
		return r
	}
	if r, ok := stepConstraint(c, rs); ok {
		return r
	}
	if r, ok := stepModeSwitch(c, p); ok {
		return stepCoerce(r, p)
	}
	if p.Mode == ModeBypass {
		if r, ok := stepUnmodelled(c, rs); ok {
			return stepCoerce(r, p)
		}
		return Result{Decision: Allow, Step: 3, Reason: "bypassPermissions mode", Source: SourceMode}
	}
	return stepCoerce(stepParts(c, p, rs), p)
}

// firstDeny returns the first deny rule that matches a part of c, in
// rule order, and the first part it matches.
func firstDeny(c *call, rs *ruleSet) (*crule, *part) {
	best, at := int32(-1), -1
	for i := range c.parts {
		pt := &c.parts[i]
		for _, j := range rs.deny.candidates(c, pt, matchDeny) {
			if best >= 0 && j >= best {
				break
			}
			if c.matches(&rs.deny.rules[j], pt, matchDeny) {
				best, at = j, i
				break
			}
		}
	}
	if best < 0 {
		return nil, nil
	}
	return &rs.deny.rules[best], &c.parts[at]
}

// Step 1. A Bash deny rule's program mentioned anywhere in a command
// (an argument of a program the gate does not know, a word inside a
// string, a versioned name) is at least Ask; Deny where that program is
// certainly what runs.
func stepDeny(c *call, rs *ruleSet) (Result, bool) {
	if cr, pt := firstDeny(c, rs); cr != nil {
		e := cr.Entry
		reason := denyReason(c.req.Tool, e)
		if pt.kind == kindCommand {
			if w, ok := c.commandPath(cr, pt, matchDeny); ok {
				reason += ": the command names " + w
			}
		}
		return Result{Decision: Deny, Step: 1, Reason: reason, Rule: e.Rule.String(), Source: e.Source}, true
	}
	aliases := false
	if rs.deny.hasBash || rs.ask.hasBash {
		for i := range c.parts {
			pt := &c.parts[i]
			if pt.kind != kindCommand {
				continue
			}
			// Aliases in the repository's configuration are resolved
			// like git -c alias.X=...; a "!" alias is shell code.
			forms, _ := c.repoAliasForms(pt)
			pt.denyForms = append(pt.denyForms, forms...)
			aliases = aliases || len(forms) > 0
		}
	}
	// Without alias forms the parts are as firstDeny saw them above.
	if aliases {
		if cr, _ := firstDeny(c, rs); cr != nil {
			e := cr.Entry
			return Result{Decision: Deny, Step: 1, Reason: denyReason(c.req.Tool, e) + " (git alias)", Rule: e.Rule.String(), Source: e.Source}, true
		}
	}
	if !rs.deny.hasBash {
		return Result{}, false
	}
	if cr, prog := globDeny(c, rs.deny); cr != nil {
		e := cr.Entry
		return Result{Decision: Deny, Step: 1, Reason: denyReason(c.req.Tool, e) + ": runs " + prog + ", a pattern that names " + cr.prog, Rule: e.Rule.String(), Source: e.Source}, true
	}
	// The mention check: each command's forms are split once, and only
	// deny rules whose program one of the words may name are tried.
	words := slices.Grow(c.mentions.parts[:0], len(c.parts))[:len(c.parts)]
	c.mentions.parts = words
	var cands []int32
	for i := range c.parts {
		if pt := &c.parts[i]; pt.kind == kindCommand {
			forms := pt.denyForms
			if pt.cmd.Stdin != "" {
				// A here-document or here-string may be code the
				// program runs (at, make -f -, a REPL); a verified
				// read-only program only reads it. The leading
				// separator keeps its first word from counting as the
				// program the form runs: a mention, never certain.
				c.classify(pt)
				if !pt.readOnly {
					forms = append(slices.Clip(forms), "\n"+pt.cmd.Stdin)
				}
			}
			if !rs.deny.mayMention(forms) {
				words[i] = nil // no word to split: none names a rule's program
				continue
			}
			words[i], c.mentions.block, c.mentions.lists = appendMentionWords(forms, c.mentions.block, c.mentions.lists)
			if !rs.deny.linear() {
				cands = append(cands, rs.deny.mentioned(words[i])...)
			}
		}
	}
	if rs.deny.linear() {
		cands = rs.deny.all // every rule, in order; shared: not modified
	} else {
		slices.Sort(cands)
		cands = slices.Compact(cands)
	}
	for _, j := range cands {
		cr := &rs.deny.rules[j]
		e := cr.Entry
		for i := range c.parts {
			pt := &c.parts[i]
			if pt.kind != kindCommand || e.Rule.Tool != "Bash" || !e.Rule.HasPattern {
				continue
			}
			certain, word := mentionMatch(cr, words[i])
			switch {
			case certain:
				return Result{Decision: Deny, Step: 1, Reason: denyReason(c.req.Tool, e) + ": runs " + word, Rule: e.Rule.String(), Source: e.Source}, true
			case word != "":
				return Result{Decision: Ask, Step: 1, Reason: fmt.Sprintf("command mentions %s, which deny rule %s (%s) blocks", word, e.Rule, e.Source), Rule: e.Rule.String(), Source: e.Source}, true
			}
		}
	}
	return Result{}, false
}

// globDeny returns the first Bash deny rule whose program a command runs
// through a glob (/usr/bin/cur? x, c[u]rl x, sudo /bin/c* x): the shell
// replaces the pattern with the files it matches and runs the first, so
// any file the pattern may match may run. The rest of the command must
// match the rest of the rule's pattern. It also returns the glob. The
// rules are tried only for the forms whose program is a glob, which few
// commands have, so that its cost does not grow with the rules.
func globDeny(c *call, deny *ruleList) (*crule, string) {
	var globbed []string // forms whose program word is a pattern
	for i := range c.parts {
		if pt := &c.parts[i]; pt.kind == kindCommand {
			for _, f := range pt.denyForms {
				if prog, _, _ := strings.Cut(f, " "); hasGlobMeta(prog) {
					globbed = append(globbed, f)
				}
			}
		}
	}
	if len(globbed) == 0 {
		return nil, ""
	}
	for j := range deny.rules {
		cr := &deny.rules[j]
		if cr.Rule.Tool != "Bash" || cr.prog == "" {
			continue
		}
		for _, f := range globbed {
			prog, tail, _ := strings.Cut(f, " ")
			if !globNames(prog, cr.prog) {
				continue
			}
			if f := strings.TrimSpace(cr.prog + " " + tail); cr.bash.match(f) || cr.canonMatch(f, nil, 0) {
				return cr, prog
			}
		}
	}
	return nil, ""
}

// globNames reports whether the pattern pat, a program word, may match
// prog: the program path a rule names, or a program found on PATH by its
// name (matched against pat's last element).
func globNames(pat, prog string) bool {
	if strings.Contains(prog, "/") {
		ok, _ := path.Match(pat, prog)
		return ok
	}
	ok, _ := path.Match(path.Base(pat), prog)
	return ok
}

func denyReason(tool string, e Entry) string {
	if e.Source == SourceAgent {
		return fmt.Sprintf("tool %s is blocked by deny_tools", tool)
	}
	return "tool " + tool + " is blocked by deny rule " + e.Rule.String() + " (" + string(e.Source) + ")"
}

// Step 2. These checks hold in every mode, bypassPermissions included, and
// no allow rule can silence them.
func stepImmune(c *call, rs *ruleSet) (Result, bool) {
	ask := func(reason, rule string) (Result, bool) {
		return Result{Decision: Ask, Step: 2, Reason: reason, Rule: rule, Source: SourceBuiltin}, true
	}
	if c.invalid != "" {
		return ask(c.invalid, "")
	}
	if c.script != nil {
		for _, s := range c.script.Suspicious {
			if s == "dynamic command name" || s == "glob in command name" {
				// A program no rule can name runs: `$r -rf /`.
				s += " " + dynamicName(c)
			}
			return ask("suspicious command: "+s, "")
		}
	}
	guarded := rs.deny.hasBash || rs.ask.hasBash
	// Code the gate cannot read may run a program a Bash rule names, or
	// open a path a Read, Edit or Write deny rule covers
	// (python3 -c "open('.e'+'nv')").
	unseen := guarded || rs.deny.namesPaths
	readDeny := rs.deny.hasRead
	for i := range c.parts {
		pt := &c.parts[i]
		switch pt.kind {
		case kindCommand:
			if d := pt.cmd.Destructive(); d != "" {
				return ask("destructive command", d)
			}
			for _, a := range pt.aliased {
				if d := a.Destructive(); d != "" {
					return ask("destructive command (a git alias)", d)
				}
			}
			// Assignments alone (n=5, v=$(git describe)) run no
			// program: their substitutions are parts of their own.
			if _, ok := pt.cmd.Name(); !ok && guarded && len(pt.cmd.Words) > 0 {
				return ask("command name is not static, so deny and ask rules cannot be checked", "")
			}
			if _, shell := c.repoAliasForms(pt); shell != "" {
				// A "!" alias in git's configuration (the repository's,
				// the user's or the system's) is code deny rules cannot
				// see: bypass-immune, like obfuscation.
				return ask("git alias from git's configuration runs shell code: "+shell, "")
			}
			if o := c.opaque(pt, unseen); o != "" {
				return ask("command runs code deny and ask rules cannot see", o)
			}
			if vs := pt.cmd.CodeAssigns(); len(vs) > 0 && unseen {
				return ask("command sets "+strings.Join(vs, ", ")+", which carries code deny and ask rules cannot see", "")
			}
			if rs.deny.namesPaths {
				ms, unsure := c.mentionsOf(pt)
				if unsure {
					if readDeny {
						return ask("arguments that cannot be checked against Read deny rules", "")
					}
					return ask("arguments that cannot be checked against Edit and Write deny rules", "")
				}
				// A path through another mount namespace, or one too
				// long to follow, names a file no deny rule can tell.
				for _, m := range ms {
					if why := unjudged(m.t); why != "" && !namesNothing(m.word) {
						return ask(fmt.Sprintf("argument %.200s %s", m.word, why), "")
					}
				}
			}
			if c.namesSensitive(pt) {
				c.classify(pt) // a command that only reads does not touch it
				if w, l := c.sensitiveMention(pt); w != "" {
					return ask(fmt.Sprintf("mentions %s (sensitive path %s)", w, l), l)
				}
			}
			if c.code.len() > 0 {
				c.classify(pt)
				if why, f := c.codeMention(pt); why != "" {
					return ask(why, f)
				}
			}
			if r, root := coveredTree(c, pt, rs.deny); r != "" {
				what := "recursive read of %s, which holds paths Read deny rule %s covers"
				if !pt.recursion.recursive {
					what = "may print tracked file contents of the repository %s, which holds paths Read deny rule %s covers"
				}
				return ask(fmt.Sprintf(what, root, r), r)
			}
			if ms, _ := c.mentionsOf(pt); anyDevice(ms) {
				return ask("destructive command", "write to a block device")
			}
		case kindWrite:
			if pt.dynamic && pt.why != "" {
				return ask(pt.why, "")
			}
			if pt.dynamic {
				return ask("write target (redirect or argument) is not static", "")
			}
			if pt.tool == "Bash" && (isDevice(pt.path.abs) || isDevice(pt.path.real)) {
				return ask("destructive command", "> "+pt.path.abs)
			}
			if len(pt.path.abs) >= workspace.PathMax || len(pt.path.real) >= workspace.PathMax {
				// Past PATH_MAX the links in it are not followed, but
				// a shell that reached it by cd after cd writes there.
				return ask(fmt.Sprintf("writes a path of %d bytes or more (%.200s…), past which the links in it are not followed", workspace.PathMax, pt.path.abs), "")
			}
			if s := sensitive(pt.path); s != "" {
				name := pt.path.abs
				if pt.path.real != name {
					name += " → " + pt.path.real
				}
				return ask(fmt.Sprintf("writes %s (sensitive path %s)", name, s), s)
			}
			if f, exact := c.codeAt(pt.path); f != "" {
				return ask(codeReason("writes", pt.path.abs, f, exact), f)
			}
		case kindRead:
			if pt.dynamic {
				return ask("redirect source is not static", "")
			}
		}
	}
	if c.script != nil && unseen {
		// for PATH in /tmp/x; do ls; done, read BASH_ENV: as a command's
		// own assignment of one is (CodeAssigns, above).
		if v := c.script.SetsCode(); v != "" {
			return ask("script sets "+v+", which carries code deny and ask rules cannot see", "")
		}
	}
	if c.script != nil && unseen {
		if v := c.script.ArithData(); v != "" {
			return ask("arithmetic evaluates "+v+", which the script sets to what may not be a number: an a[$(...)] in it would run code deny rules cannot see", "")
		}
	}
	if c.unsandboxed {
		return ask(UnsandboxedKey+": the command would run without the kernel sandbox", UnsandboxedKey)
	}
	return Result{}, false
}

// coveredTree returns the first Read deny rule that could match a file
// inside a tree a recursive reader reads (grep -r KEY . or tar czf x.tgz .
// with Read(./secrets/**)), or inside the repository of a git command that
// may print tracked contents (git show, git log -p), with the tree's root;
// "" if none.
func coveredTree(c *call, pt *part, deny *ruleList) (rule, root string) {
	if !deny.hasRead {
		return "", ""
	}
	tracked := pt.tracked()
	if !pt.recursion.recursive && !tracked {
		return "", ""
	}
	var roots []target
	if pt.recursion.recursive {
		roots = c.treeRoots(pt)
	}
	if tracked {
		roots = append(roots, c.repoRoots(pt)...)
	}
	for _, j := range deny.reads {
		e := &deny.rules[j]
		pp := e.path
		for _, t := range roots {
			if !e.Rule.HasPattern || pp.mayCover(t.abs) || pp.mayCover(t.real) {
				return e.Rule.String(), t.abs
			}
		}
	}
	return "", ""
}

// anyDevice reports whether a command names a block device (cp x /dev/sda).
func anyDevice(ms []mention) bool {
	for _, m := range ms {
		if isDevice(m.t.abs) || isDevice(m.t.real) {
			return true
		}
	}
	return false
}

// stepConstraint enforces an agent's allow_tools, right after step 2 and in
// every mode: each part must be covered by one of its rules.
func stepConstraint(c *call, rs *ruleSet) (Result, bool) {
	if len(rs.constraint.rules) == 0 {
		return Result{}, false
	}
	for i := range c.parts {
		if rs.constraint.first(c, &c.parts[i], matchConstraint) == nil {
			return Result{Decision: Deny, Step: 2, Reason: fmt.Sprintf("tool %s call is outside the allow_tools constraint", c.req.Tool), Source: SourceAgent}, true
		}
	}
	return Result{}, false
}

// stepParts runs steps 4–7 on every part and combines them: the strictest
// decision wins (the earliest step among equals); an Allow names the
// latest step any part needed (at that step, a part that is not only
// read-only), and every rule that allowed a part.
func stepParts(c *call, p *Policy, rs *ruleSet) Result {
	var out Result
	var rules []string
	readOnly := true
	decided := slices.Grow(c.decided[:0], len(c.parts))[:len(c.parts)]
	clear(decided) // as new: ownedWrite reads its owner's
	c.decided = decided
	for i := range c.parts {
		r := decidePart(c, &c.parts[i], p, rs)
		if r.Decision != Allow && r.Step == 7 {
			if o, ok := ownedWrite(c, &c.parts[i], decided); ok {
				r = o
			}
		}
		decided[i] = r
		switch {
		case i == 0, r.Decision.stricter(out.Decision):
			out = r
			rules = nil
		case r.Decision == out.Decision && r.Decision != Allow && r.Step < out.Step:
			out = r
		case r.Decision == Allow && out.Decision == Allow && (r.Step > out.Step || r.Step == out.Step && out.readOnly && !r.readOnly):
			// At one step, what the mode allowed beyond reading (an
			// edit) is the reason, not the read-only part beside it.
			out.Step, out.Reason, out.Source, out.readOnly = r.Step, r.Reason, r.Source, r.readOnly
		}
		if r.Decision == Allow && r.Rule != "" && !slices.Contains(rules, r.Rule) {
			rules = append(rules, r.Rule)
		}
		readOnly = readOnly && r.Decision == Allow && r.readOnly
	}
	if out.Decision == Allow {
		out.Rule = strings.Join(rules, ", ")
	}
	out.readOnly = readOnly && out.Decision == Allow
	return out
}

// dynamicName returns the first program word of the script that is not a
// static literal, for the reason that names it.
func dynamicName(c *call) string {
	for _, pt := range c.parts {
		if pt.kind == kindCommand && len(pt.cmd.Words) > 0 {
			if _, ok := pt.cmd.Name(); !ok {
				return pt.cmd.Words[0].Raw
			}
		}
	}
	return "(in a wrapped command)"
}

// ownedWrite allows a write a command's arguments name (mkdir build, cp's
// destination) when an allow rule covers that command and the path is in
// the workspace: the rule means what it says. Edit deny and ask rules,
// sensitive paths and the workspace boundary were checked before.
func ownedWrite(c *call, pt *part, decided []Result) (Result, bool) {
	if pt.kind != kindWrite || pt.owner == 0 || pt.dynamic || !inWorkspace(c.ws, pt.path) {
		return Result{}, false
	}
	o := decided[pt.owner-1]
	if o.Decision != Allow || o.Step != 4 && o.Step != 6 {
		return Result{}, false
	}
	return Result{Decision: Allow, Step: o.Step, Reason: "written by a command " + o.Reason, Rule: o.Rule, Source: o.Source}, true
}

func decidePart(c *call, pt *part, p *Policy, rs *ruleSet) Result {
	if p.Mode == ModePlan && c.partChanges(pt) {
		// No grant, rule or person allows a change before the plan is
		// approved.
		return Result{Decision: Deny, Step: 7, Reason: planReason, Source: SourceMode}
	}
	// Step 4.
	if cr := rs.session.first(c, pt, matchAllow); cr != nil {
		return Result{Decision: Allow, Step: 4, Reason: "allowed for this session", Rule: cr.Rule.String(), Source: SourceSession}
	}
	// Step 5.
	if rs.ask.hasPath {
		c.classify(pt) // a Read ask rule looks at what a command reads
	}
	if cr := rs.ask.first(c, pt, matchAsk); cr != nil {
		e, rule := cr.Entry, cr.Rule.String()
		return Result{Decision: Ask, Step: 5, Reason: "ask rule " + rule + " (" + string(e.Source) + ")", Rule: rule, Source: e.Source}
	}
	// Step 6.
	if cr := rs.allow.first(c, pt, matchAllow); cr != nil {
		e, rule := cr.Entry, cr.Rule.String()
		return Result{Decision: Allow, Step: 6, Reason: "allowed by rule " + rule + " (" + string(e.Source) + ")", Rule: rule, Source: e.Source}
	}
	// Step 7.
	return modeDefault(c, pt, p.Mode)
}

// stepModeSwitch decides the calls of the tools that switch the mode
// (ModeTools), after deny rules and an agent's constraint and before
// anything that allows: the mode is the person's, so each switch is
// theirs to approve, each time. No bypassPermissions mode, grant or
// allow rule approves it, and, as an ask rule's question (step 5), no
// PreToolUse hook; a PermissionRequest hook or a permission-prompt tool
// answers for the person, and where nobody can be asked (a subagent,
// headless) it is denied. A switch to where the session is already is
// denied: ExitPlanMode outside plan mode, EnterPlanMode in it.
func stepModeSwitch(c *call, p *Policy) (Result, bool) {
	switch {
	case c.req.Tool == "ExitPlanMode" && p.Mode == ModePlan:
		return Result{Decision: Ask, Step: 5, Reason: "the plan needs the person's approval", Source: SourceMode}, true
	case c.req.Tool == "ExitPlanMode":
		return Result{Decision: Deny, Step: 7, Reason: "ExitPlanMode: the session is not in plan mode", Source: SourceMode}, true
	case c.req.Tool == "EnterPlanMode" && p.Mode == ModePlan:
		return Result{Decision: Deny, Step: 7, Reason: "EnterPlanMode: the session is in plan mode already", Source: SourceMode}, true
	case c.req.Tool == "EnterPlanMode":
		return Result{Decision: Ask, Step: 5, Reason: "switching to plan mode needs the person's approval", Source: SourceMode}, true
	}
	return Result{}, false
}

// planReason is why plan mode refuses a change.
const planReason = "plan mode: nothing that changes anything runs until the person approves the plan (ExitPlanMode)"

// changes reports whether c may change something: a call the gate could
// not analyse (c.invalid: a command it cannot parse may be one bash runs,
// as `echo $((touch x) )`) may do anything; otherwise a part may
// (partChanges).
func (c *call) changes() bool {
	if c.invalid != "" {
		return true
	}
	for i := range c.parts {
		if c.partChanges(&c.parts[i]) {
			return true
		}
	}
	return false
}

// partChanges reports whether pt may change something: a write, a
// command not verified read-only, or a tool that is neither safe (read,
// search, ask) nor one plan mode needs: Agent (a subagent under plan mode
// plans too: CapMode), Skill (instructions to read) and the mode
// switches (ModeTools, decided by stepModeSwitch).
// An MCP tool may do anything, so it changes.
func (c *call) partChanges(pt *part) bool {
	switch pt.kind {
	case kindWrite:
		return true
	case kindCommand:
		c.classify(pt)
		return !pt.readOnly && !pt.xargs
	case kindRead:
		return false
	}
	switch pt.tool {
	case "Agent", "Skill", "ExitPlanMode", "EnterPlanMode":
		return false
	}
	return ClassOf(pt.tool) != Safe
}

func modeDefault(c *call, pt *part, m Mode) Result {
	res := func(d Decision, reason string) Result {
		return Result{Decision: d, Step: 7, Reason: reason, Source: SourceMode}
	}
	c.classify(pt)
	switch pt.kind {
	case kindCommand:
		// A recursive read that follows symlinks may leave the workspace
		// through any link inside it.
		if pt.readOnly && !pt.recursion.follows && c.allInWorkspace(pt.reads) {
			if w := c.outsideMention(pt); w != "" {
				return res(Ask, "read-only command names a path outside the workspace: "+w)
			}
			return Result{Decision: Allow, Step: 7, Reason: "read-only command", Source: SourceBuiltin, readOnly: true}
		}
		if pt.xargs && c.xargsOK {
			return Result{Decision: Allow, Step: 7, Reason: "xargs into a read-only command (no Bash or Read deny rules)", Source: SourceBuiltin, readOnly: true}
		}
		if m == ModeExplore || m == ModeDontAsk || m == ModeBypass {
			break
		}
		why := pt.notRO.String()
		switch {
		case pt.readOnly && c.allInWorkspace(pt.reads):
			why = "follows symlinks inside the directories it reads, which may lead out of the workspace"
		case pt.readOnly:
			why = "reads outside the workspace: " + outside(c, pt.reads)
		}
		return res(Ask, "Bash requires approval in "+string(m)+" mode (not read-only: "+why+")")
	case kindRead:
		if !inWorkspace(c.ws, pt.path) {
			return res(Ask, "path is outside the workspace: "+pt.path.abs)
		}
		if pt.tool == "Bash" {
			return Result{Decision: Allow, Step: 7, Reason: "redirect reads a file inside the workspace", Source: SourceBuiltin, readOnly: true}
		}
	case kindWrite:
		if !inWorkspace(c.ws, pt.path) {
			if m == ModeExplore || m == ModeDontAsk {
				return res(Deny, fmt.Sprintf("%s mode: path is outside the workspace: %s", m, pt.path.abs))
			}
			return res(Ask, "path is outside the workspace: "+pt.path.abs)
		}
	}
	class := ClassOf(pt.tool)
	if pt.kind == kindWrite {
		class = Edit
	}
	if pt.kind == kindCommand {
		class = Exec
	}
	if pt.tool == "WebFetch" && internalHost(pt.host) {
		// Reading this machine or its network (cloud metadata, admin
		// panels) is not a safe read: only an explicit rule allows it.
		return res(Ask, "WebFetch to a loopback, link-local or private address: "+pt.host)
	}
	switch {
	case class == Safe:
		r := res(Allow, "safe tool")
		r.PublicOnly = pt.tool == "WebFetch"
		return r
	case m == ModePlan:
		// Agent and Skill, which change nothing (partChanges).
		return res(Ask, fmt.Sprintf("%s requires approval in plan mode", c.req.Tool))
	case m == ModeExplore:
		return res(Deny, "explore mode is read-only")
	case m == ModeDontAsk:
		return res(Deny, "dontAsk mode: not pre-allowed")
	case class == Edit && (m == ModeAcceptEdits || m == ModeAuto):
		return res(Allow, fmt.Sprintf("%s mode allows edits", m))
	}
	if pt.kind == kindWrite && pt.tool == "Bash" {
		return res(Ask, fmt.Sprintf("writes %s: edits require approval in %s mode", pt.path.abs, m))
	}
	return res(Ask, fmt.Sprintf("%s requires approval in %s mode", c.req.Tool, m))
}

// outside names the first path that is outside the workspace.
func outside(c *call, ts []target) string {
	for _, t := range ts {
		if !inWorkspace(c.ws, t) {
			return t.abs
		}
	}
	return "(none)"
}

func (c *call) allInWorkspace(ts []target) bool {
	for _, t := range ts {
		if !inWorkspace(c.ws, t) {
			return false
		}
	}
	return true
}

// Step 8: where nobody can be asked, Ask becomes Deny.
func stepCoerce(r Result, p *Policy) Result {
	if p.NoPrompt || p.Mode == ModeDontAsk {
		return Unattended(r)
	}
	return r
}

// Unattended is step 8 on its own, for a gate whose approver left an Ask
// unanswered: an Ask becomes Deny, reported as step 8. The reason is kept,
// so the model and the log say why approval was needed. Other decisions
// are returned as they are. This is the only place Ask turns into Deny.
func Unattended(r Result) Result {
	if r.Decision == Ask {
		r.Decision = Deny
		r.Step = 8
	}
	return r
}
