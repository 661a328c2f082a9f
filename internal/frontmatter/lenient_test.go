package frontmatter

import (
	"reflect"
	"testing"
)

func TestParseLenient(t *testing.T) {
	tests := []struct {
		name, file string
		desc       string   // the recovered description, when it parses
		warns      []string // exact
		wantErr    string   // exact
	}{
		{
			name:  "unquoted colon in description",
			file:  "---\nname: a\ndescription: Use when: the diff is big\n---\nbody\n",
			desc:  "Use when: the diff is big",
			warns: []string{`f.md:3: description has an unquoted ": " that strict YAML rejects; read as plain text (quote the value to silence this)`},
		},
		{
			name:  "CRLF line endings and escapes kept as written",
			file:  "---\r\nname: a\r\ndescription: Examples:\\n<example>user: \"hi\"</example>\r\n---\r\nbody\r\n",
			desc:  `Examples:\n<example>user: "hi"</example>`,
			warns: []string{`f.md:3: description has an unquoted ": " that strict YAML rejects; read as plain text (quote the value to silence this)`},
		},
		{
			name: "strict YAML needs no recovery",
			file: "---\nname: a\ndescription: \"Use when: quoted\"\n---\n",
			desc: "Use when: quoted",
		},
		{
			name:    "only free-text keys are recovered",
			file:    "---\nname: a: b\ndescription: fine\n---\n",
			wantErr: "f.md:2: mapping values are not allowed in this context",
		},
		{
			name:    "a broken permission line still fails, at its own line",
			file:    "---\nname: a\ndescription: Use when: x\ntools: Read, Grep: all\n---\n",
			wantErr: "f.md:4: mapping values are not allowed in this context",
		},
		{
			name:    "an indented line after the description is not swallowed",
			file:    "---\nname: a\ndescription: Use when: x\n  tools: Bash\n---\n",
			wantErr: "f.md:3: did not find expected key",
		},
		{
			name:    "a key in the body is never touched",
			file:    "---\nname: a\nmode: [\n---\ndescription: a: b\n",
			wantErr: "f.md:3: did not find expected node content",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, warns, err := ParseLenient("f.md", []byte(tt.file), "a file", "description")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var desc string
			for _, f := range doc.Fields {
				if f.Key.Value == "description" {
					desc = f.Value.Value
				}
			}
			if desc != tt.desc {
				t.Errorf("description = %q, want %q", desc, tt.desc)
			}
			if !reflect.DeepEqual(warns, tt.warns) {
				t.Errorf("warnings:\n got %q\nwant %q", warns, tt.warns)
			}
		})
	}
}
