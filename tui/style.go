package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/gen-run/gen/internal/termsafe"
)

// styles are the colours of the UI. They are made from the renderer of the
// UI's output, so that a pipe or a test buffer gets plain text and a
// terminal gets colour.
type styles struct {
	user, dim, bold       lipgloss.Style
	ok, deny, warn, title lipgloss.Style
	add, del, hunk        lipgloss.Style
	selected, disabled    lipgloss.Style
	header                lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) styles {
	c := func(s string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(s)) }
	return styles{
		user:     c("12").Bold(true),
		dim:      c("8"),
		bold:     r.NewStyle().Bold(true),
		ok:       c("2"),
		deny:     c("1").Bold(true),
		warn:     c("3"),
		title:    c("5").Bold(true),
		add:      c("2"),
		del:      c("1"),
		hunk:     c("6"),
		selected: c("14").Bold(true),
		disabled: c("8"),
		header:   r.NewStyle().Reverse(true).Bold(true),
	}
}

// clip cuts every line of s to width display cells, ending a cut line
// with "…". Escape sequences are kept intact.
func clip(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// wrap breaks s into lines of at most width cells, at word boundaries
// where it can and in the middle of long words where it must.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Wrap(s, width, "")
}

// firstLine returns the first line of s and how many more lines follow.
func firstLine(s string) (string, int) {
	s = strings.TrimRight(s, "\n")
	first, rest, found := strings.Cut(s, "\n")
	if !found {
		return first, 0
	}
	return first, strings.Count(rest, "\n") + 1
}

// indent prefixes every line of s with pre.
func indent(s, pre string) string {
	if pre == "" {
		return s
	}
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// sanitize makes text from the model, a tool or a file safe to draw:
// control characters, and the invisible or reordering characters that could
// make a command look like another, are shown as escapes instead of being
// sent to the terminal (termsafe.Text). New lines are kept; tabs become
// spaces.
func sanitize(s string) string {
	return strings.ReplaceAll(termsafe.Text(s), "\t", "    ")
}
