package perm

// Rank orders modes by how much they allow without asking: explore (which
// denies what others ask about), then default and dontAsk (and the empty
// mode, which is default), then acceptEdits and auto, then
// bypassPermissions. It is the one ranking that caps modes (CapMode, a
// subagent under its parent) and says what a mode allows unasked.
func (m Mode) Rank() int {
	switch m {
	case ModeExplore:
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
func CapMode(m, limit Mode) Mode {
	if limit != "" && limit.Rank() < m.Rank() {
		return limit
	}
	return m
}
