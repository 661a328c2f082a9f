// Package agenttest holds the agent definition the benchmarks of many
// agents use, so that loading them in memory (agent) and listing them from
// disk (gen agent list) measure the same files.
package agenttest

import "fmt"

// File returns the text of agent number i: a realistic definition with a
// name, description, mode, tool lists, model, turn limit and prompt, and
// its path relative to an agents directory, ten teams of subdirectories.
func File(i int) (path, text string) {
	return fmt.Sprintf("team%d/agent%d.md", i%10, i), fmt.Sprintf(`---
name: agent-%d
description: Agent number %d, which reviews changes and reports problems.
mode: explore
allow_tools:
  - Read
  - Grep
  - Bash(git diff:*)
deny_tools: Bash(rm:*), WebFetch
model: small
max_turns: 20
---
You are agent %d. Review the change you are given and report problems
with file paths and line numbers.
`, i, i, i)
}
