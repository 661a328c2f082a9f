package perm

// Rank orders modes by how much they allow without asking: explore and
// plan (which deny what others ask about), then default and dontAsk (and the empty
// mode, which is default), then acceptEdits and auto, then
// bypassPermissions. It is the one ranking that caps modes (CapMode, a
// subagent under its parent) and says what a mode allows unasked.
func (m Mode) Rank() int {
	switch m {
	case ModeExplore, ModePlan:
		return 0
	case ModeDefault, ModeDontAsk, "":
		return 1
	case ModeAcceptEdits, ModeAuto:
		return 2
	}
	return 3 // bypassPermissions
}

// CapMode returns m, or limit when limit allows less without asking: a
// limit can narrow a mode, never widen it. An empty limit is no limit
// (callers for whom an empty mode means default pass ModeDefault).
//
// A plan limit caps at plan, whatever m is: under a main loop in plan
// mode nothing changes anything, and a subagent's own allow rules
// (allow_tools) must not change that, as they would in explore. Only the
// main loop leaves plan mode (ExitPlanMode, the person's). Explore caps
// plan: plan may be left, explore may not.
//
// A dontAsk limit caps default too, which has its rank: default asks
// (a PermissionRequest hook, a permission-prompt tool) where dontAsk
// denies, so a default-mode subagent under a dontAsk main loop had its
// calls approved by the tool the main loop's were never put to.
func CapMode(m, limit Mode) Mode {
	switch {
	case limit == ModePlan, m == ModePlan && limit == ModeExplore:
		return limit
	case limit == ModeDontAsk && m.Rank() >= limit.Rank():
		return limit
	case limit != "" && limit.Rank() < m.Rank():
		return limit
	}
	return m
}
