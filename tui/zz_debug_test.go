package tui

import (
	"fmt"
	"testing"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/tool"
)

func TestZZDebug(t *testing.T) {
	eng := newFakeEngine()
	eng.submit = script("I'll run it.", call("", "c1", "Bash", map[string]any{"command": "echo hi && ls /tmp"}), decision("", "c1", perm.Allow, ""), result("", "c1", "hi\nx\n", false, false),
		call("", "c2", "Bash", map[string]any{"command": "rm -rf /"}), decision("", "c2", perm.Deny, "destructive"), result("", "c2", "DENIED: destructive", true, true), "RESULT: done")
	h := newHarness(t, eng)
	h.submit("Run bash: echo hi")
	h.waitIdle()
	h.submit("/permissions")
	h.submit("/help")
	h.submit("/agents")
	h.open(&request{id: 1, approval: bashApproval("echo hi && cat /etc/hosts", "Bash(cat /etc/hosts)")})
	fmt.Println(h.screen())
	h.keys("3")
	fmt.Println(h.m.View())
	h.keys("enter")
	h.open(&request{id: 2, questions: []tool.Question{{Question: "Which?", Header: "Pick", Options: []tool.Option{{Label: "a", Description: "first"}, {Label: "b"}}}}})
	fmt.Println(h.m.View())
	h.keys("down", "down", "hello")
	fmt.Println(h.m.View())
}
