// Package reap collects what is left of a process group gen killed. On
// Linux gen is a child subreaper once its first Bash command has run
// (tool/bash_linux.go), so the processes a hook or an MCP server started
// are re-parented to gen when their parent dies, and nothing but gen can
// reap them: unreaped, each stays a zombie until gen exits, and a long
// batch whose hooks start background processes would use up the process
// ids its container allows. It also finds the processes of one command
// by a marker in their environment (Marker, Marked), also those that left
// the command's process group.
package reap

import (
	"fmt"
	"os"
	"sync/atomic"
)

var seq atomic.Int64

// Marker returns NAME=VALUE for the environment of a command, with a
// value no other command gets (gen's pid and a counter), so that Marked
// finds what the command started.
func Marker(name string) string {
	return fmt.Sprintf("%s=%d.%d", name, os.Getpid(), seq.Add(1))
}
