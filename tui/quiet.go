package tui

// Linked with the TUI, and so into every program that links Bubble Tea:
// it must initialise before Bubble Tea's init queries the terminal (see
// the package's doc).
import _ "gen.internal/quietterm"
