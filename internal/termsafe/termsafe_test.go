package termsafe

import "testing"

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                   "plain",
		"two\nlines\tand a tab":   "two\nlines\tand a tab",
		"\x1b]52;c;aGk=\x07 clip": `\u{1b}]52;c;aGk=\u{7} clip`,
		"a\u202eb\rc":             `a\u{202e}b\u{d}c`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                 "plain",
		"two\nlines\tand a tab": `two\u{a}lines\u{9}and a tab`,
		"\x1b[2J":               `\u{1b}[2J`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}
