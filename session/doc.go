// Package session is the interactive main loop's engine, independent of
// any user interface: the conversation, the current mode, session
// permissions, and the gate.Asker that turns Ask into a question for a
// person. The TUI (package tui) and headless `gen -p` both drive it. It
// sits on policy (the main loop's policy), gate, tool (tool.Toolbox),
// subagent (the Agent tool) and loop.
package session
