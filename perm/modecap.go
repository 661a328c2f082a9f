package perm

// modeRank orders modes by how much they allow without asking: explore,
// then default and dontAsk, then acceptEdits and auto, then
// bypassPermissions.
func modeRank(m Mode) int {
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
// limit can narrow a mode, never widen it. An empty limit is no limit.
func CapMode(m, limit Mode) Mode {
	if limit != "" && modeRank(limit) < modeRank(m) {
		return limit
	}
	return m
}
