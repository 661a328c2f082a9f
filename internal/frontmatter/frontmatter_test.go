package frontmatter

import "testing"

// TestParseBlock pins where the block and the body are found: blank lines
// before the opening line, delimiters with white space around them, a
// closing line at the end of the file without a newline, and a "---" in
// the body, which belongs to the body.
func TestParseBlock(t *testing.T) {
	tests := []struct {
		name, file string
		open       int
		keyLine    int // the line of the first key
		body       string
		wantErr    string // exact
	}{
		{name: "plain", file: "---\nname: a\n---\nbody\n", open: 1, keyLine: 2, body: "body"},
		{name: "blank lines first", file: "\n \t\n---\nname: a\n---\n\n  body  \n\n", open: 3, keyLine: 4, body: "body"},
		{name: "delimiters with white space", file: "  --- \r\nname: a\r\n\t---\r\nbody\r\n", open: 1, keyLine: 2, body: "body"},
		{name: "closing line at the end", file: "---\nname: a\n---", open: 1, keyLine: 2, body: ""},
		{name: "rule in the body", file: "---\nname: a\n---\nbody\n---\nmore\n", open: 1, keyLine: 2, body: "body\n---\nmore"},
		{name: "blank line in the block", file: "---\n\nname: a\n---\n", open: 1, keyLine: 3},
		{name: "yaml error line", file: "\n---\nname: a\n  b: [\n---\n", wantErr: "f.md:4: "},
		{name: "text first", file: "\nhello\n---\nname: a\n---\n", wantErr: `f.md:2: no frontmatter: x starts with a "---" line, YAML with at least name and description, and a closing "---" line`},
		{name: "empty", file: "", wantErr: `f.md:1: no frontmatter: x starts with a "---" line, YAML with at least name and description, and a closing "---" line`},
		{name: "not closed", file: "\n---\nname: a\n", wantErr: `f.md:2: frontmatter is not closed by a "---" line`},
		{name: "dashes with text are not a delimiter", file: "---\nname: a\n--- x\n", wantErr: `f.md:1: frontmatter is not closed by a "---" line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("f.md", []byte(tt.file), "x")
			if tt.wantErr != "" {
				if err == nil || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Open != tt.open || d.Body != tt.body {
				t.Errorf("open %d body %q, want %d %q", d.Open, d.Body, tt.open, tt.body)
			}
			if len(d.Fields) != 1 || d.Line(d.Fields[0].Key) != tt.keyLine {
				t.Errorf("fields %v, want the key at line %d", d.Fields, tt.keyLine)
			}
		})
	}
}
