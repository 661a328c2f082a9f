// Package reap collects what is left of a process group gen killed. On
// Linux gen is a child subreaper once its first Bash command has run
// (tool/bash_linux.go), so the processes a hook or an MCP server started
// are re-parented to gen when their parent dies, and nothing but gen can
// reap them: unreaped, each stays a zombie until gen exits, and a long
// batch whose hooks start background processes would use up the process
// ids its container allows.
package reap
