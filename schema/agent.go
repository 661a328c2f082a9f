package schema

import (
	"fmt"
	"strings"
)

// AgentType is one subagent type as the Agent tool's description lists it.
type AgentType struct{ Name, Description string }

// maxAgentDescription bounds each listed description, in characters: files
// written for Claude Code often carry pages of examples in theirs, and the
// list is sent with every request.
const maxAgentDescription = 400

// AgentDescription returns the Agent tool's description with the agent
// types a run may delegate to, one line each, in the order given, so that
// a model can pick subagent_type without guessing. With no types it is the
// static description.
func AgentDescription(types []AgentType) string {
	desc := byName.Get()["Agent"].desc
	if len(types) == 0 {
		return desc
	}
	var b strings.Builder
	b.WriteString(desc)
	b.WriteString("\n\nAvailable agent types (subagent_type):")
	for _, t := range types {
		fmt.Fprintf(&b, "\n- %s: %s", t.Name, clip(strings.Join(strings.Fields(t.Description), " "), maxAgentDescription))
	}
	return b.String()
}

// clip cuts s to at most n characters, marking a cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
