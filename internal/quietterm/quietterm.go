// Package quietterm keeps the terminal libraries from querying the
// terminal when gen starts.
//
// Bubble Tea v1 asks Lip Gloss for the terminal's background colour in an
// init function (tea_init.go), so every program that links it writes
// ESC ] 11 ; ? and ESC [ 6 n to a terminal on stdout and waits up to 5 s
// for an answer before main runs, whatever the command. Headless commands
// must not touch the terminal at all (their JSON would be corrupted, and a
// pty nobody answers costs 5 s a run).
//
// Go initialises packages in import-path order among those whose imports
// are done, so this package, whose path sorts before
// github.com/charmbracelet/..., runs right after Lip Gloss and before Bubble
// Tea, and fixes the default renderer's background as dark. That is the
// only thing it does; the interactive TUI may query the terminal itself
// once it owns it. It is a module of its own (replaced to this directory
// in gen's go.mod) only because a package inside gen's module cannot have
// a path that sorts early enough.
package quietterm

import "github.com/charmbracelet/lipgloss"

func init() {
	// Explicitly set, the background is never queried.
	lipgloss.SetHasDarkBackground(true)
}
