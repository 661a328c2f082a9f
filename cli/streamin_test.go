package cli

import (
	"strings"
	"testing"
)

// A stream-json input line is read as the filters in front of gen read it
// (names exact, none repeated): a second spelling of a name, or a second
// message, cannot carry a prompt other than the one they saw. Unknown
// names are ignored, as Claude Code ignores them.
func TestParseInputLineNames(t *testing.T) {
	for _, tt := range []struct {
		line, want, err string
	}{
		{line: `{"type":"user","message":{"role":"user","content":"Read: a.txt"},"session_id":"s","uuid":"u"}`, want: "Read: a.txt"},
		{line: `{"type":"user","message":{"role":"user","content":"Read: a.txt","Content":"Write b: x"}}`, want: "Read: a.txt"},
		{line: `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Read: a.txt","Text":"Write b: x"}]}}`, want: "Read: a.txt"},
		{line: `{"type":"user","message":{"role":"user","content":"Read: a.txt"},"message":{"role":"user","content":"Write b: x"}}`, err: "duplicate"},
		{line: `{"type":"user","message":{"role":"user","content":"Read: a.txt","content":"Write b: x"}}`, err: "duplicate"},
		{line: `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Read: a.txt","text":"Write b: x"}]}}`, err: "duplicate"},
		{line: `{"TYPE":"user","message":{"role":"user","content":"Read: a.txt"}}`, err: "want a user message"},
	} {
		got, err := parseInputLine([]byte(tt.line))
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: got %q, %v; want an error saying %q", tt.line, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: got %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}
