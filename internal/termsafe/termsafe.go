// Package termsafe shows text that came from a model, a tool or a file on
// a terminal as what it is: a control character sent as it is could clear
// the screen, retitle the window, write the clipboard (OSC 52) or make a
// command look like another. It sits on nothing.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Hidden reports whether r would not show as itself: C0 and C1 controls,
// DEL, zero-width characters, bidirectional overrides and invalid UTF-8.
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff, r == utf8.RuneError:
		return true
	}
	return false
}

// Line returns s as one line of text that shows as itself: every Hidden
// rune, newlines and tabs included, written as \u{x}.
func Line(s string) string { return escape(s, Hidden) }

// Text returns s as lines of text that show as themselves: like Line,
// but new lines and tabs stay, for a message of several lines (an
// error listing the lines of a file, a reason a hook gave).
func Text(s string) string {
	return escape(s, func(r rune) bool { return r != '\n' && r != '\t' && Hidden(r) })
}

// escape writes each rune of s that hidden reports as \u{x}.
func escape(s string, hidden func(rune) bool) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, `\u{%x}`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
