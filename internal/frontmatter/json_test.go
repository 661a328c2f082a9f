package frontmatter

import (
	"strings"
	"testing"
)

// TestJSON: a value of the frontmatter as JSON, for parsers written for
// JSON (hooks): YAML's scalars by their tags, aliases followed; what JSON
// cannot say, or says otherwise, is an error at its line.
func TestJSON(t *testing.T) {
	for _, tt := range []struct {
		name, yaml, want, wantErr string
	}{
		{"mapping and list", "v:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: ./x.sh, timeout: 30}]\n",
			`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./x.sh","timeout":30}]}]}`, ""},
		{"scalars by tag", "v: {s: 'a', i: 0x10, f: 1.5, b: true, n: ~, q: \"1\"}\n", `{"s":"a","i":16,"f":1.5,"b":true,"n":null,"q":"1"}`, ""},
		{"aliases", "a: &x {k: 1}\nv: [*x, *x]\n", `[{"k":1},{"k":1}]`, ""},
		{"keys in order", "v: {b: 1, a: 2}\n", `{"b":1,"a":2}`, ""},
		{"merge key", "v:\n  k: 1\n  <<: {x: 1}\n", "", "f.md:4: YAML merge keys (<<) are not supported: write the keys out"},
		{"number key", "v:\n  1: x\n", "", "f.md:3: keys must be strings"},
		{"duplicate key", "v:\n  k: 1\n  k: 2\n", "", `f.md:4: duplicate key "k"`},
		{"timestamp", "v: {t: 2001-12-14}\n", "", "f.md:2: unsupported value 2001-12-14 (!!timestamp): quote it to make it a string"},
		{"infinity", "v: {t: .inf}\n", "", "f.md:2: unsupported value .inf (!!float): JSON has no such number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("f.md", []byte("---\n"+tt.yaml+"---\n"), "x")
			if err != nil {
				t.Fatal(err)
			}
			v := d.Fields[len(d.Fields)-1].Value
			got, err := d.JSON(v)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("JSON = %s, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("JSON = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	// A few aliases that expand to much are refused, not expanded.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 8; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	d, err := Parse("f.md", []byte("---\n"+b.String()+"---\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.JSON(d.Fields[len(d.Fields)-1].Value); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("alias bomb: %v, want an error", err)
	}
}
