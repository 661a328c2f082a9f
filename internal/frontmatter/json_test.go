package frontmatter

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/perm"
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

// TestDecodeJSON: JSON read into the nodes a frontmatter block would
// parse to, so that Doc.JSON gives it back; JSON that YAML reads
// otherwise (\/, surrogate pairs, 1e3) is read as JSON means it, and
// invalid JSON, invalid UTF-8 and a repeated name are errors at their
// line and column.
func TestDecodeJSON(t *testing.T) {
	for _, tt := range []struct {
		name, json, want, wantErr string
	}{
		{"nested", `{"b": [1, -2.5, "x", true, null, {}], "a": {"k": []}}`, `{"b":[1,-2.5,"x",true,null,{}],"a":{"k":[]}}`, ""},
		{"escapes", "{\n\t\"a\": \"x\\/y \\ud83d\\ude00 \\u00e9\"\n}", `{"a":"x/y 😀 é"}`, ""},
		{"numbers", `[1e3, 10, 12345678901234567890, 123456789012345678901234]`, `[1000,10,12345678901234567890,1.2345678901234569e+23]`, ""},
		{"scalar", `"s"`, `"s"`, ""},
		{"repeated name", "{\"a\": [{\"b\": 1,\n \"b\": 2}]}", "", `p:2:2: duplicate key "a[0].b"`},
		{"invalid UTF-8", "[\"\n\xff\"]", "", "p:2:1: invalid UTF-8"},
		{"trailing value", `{} []`, "", "p:1:4: invalid character '[' after top-level value"},
		{"unclosed", `{"a": [1`, "", "p:1:9: unexpected end of JSON input"},
		{"empty", " ", "", "p:1:2: unexpected end of JSON input"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := DecodeJSON("p", []byte(tt.json))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("DecodeJSON = %v, %v; want error %q", n, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := (&Doc{Path: "p"}).JSON(n)
			if err != nil || string(got) != tt.want {
				t.Errorf("JSON of the nodes = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	n, err := DecodeJSON("p", []byte(`[1, 1.0, 1e3, "1", true, null]`))
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, el := range n.Content {
		tags = append(tags, el.ShortTag())
	}
	if want := "!!int !!float !!float !!str !!bool !!null"; strings.Join(tags, " ") != want {
		t.Errorf("tags %s, want %s", strings.Join(tags, " "), want)
	}
	n, err = DecodeJSON("p", []byte("{\n \"a\": [1,\n  2]}"))
	if err != nil {
		t.Fatal(err)
	}
	if k, el := n.Content[0], n.Content[1].Content[1]; k.Line != 2 || k.Column != 2 || el.Line != 3 || el.Column != 3 {
		t.Errorf("key a at %d:%d, element 2 at %d:%d; want 2:2 and 3:3", k.Line, k.Column, el.Line, el.Column)
	}
}

// TestKeyed: a keyed Doc's errors and warnings name the key path of a
// value, where a file's name its line.
func TestKeyed(t *testing.T) {
	m, err := DecodeJSON("p", []byte(`{"tools": ["Read", "Nope"], "hooks": {"Stop": [{"matcher": "x"}]}, "s": "t"}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Keyed("--agents r", m)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Fields) != 3 || !d.Keyed || d.Body != "" {
		t.Fatalf("doc %+v", d)
	}
	tools, hooks := d.Fields[0], d.Fields[1]
	matcher := hooks.Value.Content[1].Content[0].Content[0] // the key "matcher"
	for _, tt := range []struct {
		err  error
		want string
	}{
		{d.Errorf(tools.Key, "k"), "--agents r: tools: k"},
		{d.Errorf(tools.Value, "v"), "--agents r: tools: v"},
		{d.Errorf(tools.Value.Content[1], "el"), "--agents r: tools[1]: el"},
		{d.Errorf(matcher, "m"), "--agents r: hooks.Stop[0].matcher: m"},
		{d.Errorf(&yaml.Node{}, "elsewhere"), "--agents r: elsewhere"},
		{d.KeyErrorf(hooks.Key, "hooks.Stop[0].hooks", "h"), "--agents r: hooks.Stop[0].hooks: h"},
		{d.Missing("description"), `--agents r: missing required field "description"`},
	} {
		if tt.err.Error() != tt.want {
			t.Errorf("error %q, want %q", tt.err, tt.want)
		}
	}
	if _, _, err := d.Rules("tools", tools.Value, perm.DenyList); err == nil || err.Error() != `--agents r: tools[1]: malformed rule "Nope": unknown tool "Nope" (want a built-in tool such as Bash, Read or Edit, mcp__server__tool, MCP(...), Agent(...) or Skill(...))` {
		t.Errorf("rules error %v", err)
	}
	if got := d.Pos(matcher); got != "--agents r: hooks.Stop[0].matcher" {
		t.Errorf("Pos = %q", got)
	}
	if got := d.KeyPos(matcher); got != "--agents r" {
		t.Errorf("KeyPos = %q", got)
	}
	// A file's name lines, and KeyErrorf's the key after the line.
	f, err := Parse("a.md", []byte("---\nhooks:\n  Stop: []\n---\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.KeyErrorf(f.Fields[0].Key, "hooks.Stop", "h"); err.Error() != "a.md:2: hooks.Stop: h" {
		t.Errorf("file KeyErrorf = %q", err)
	}
	if got := f.KeyPos(f.Fields[0].Key); got != "a.md:2" {
		t.Errorf("file KeyPos = %q", got)
	}
	if _, err := Keyed("p", &yaml.Node{Kind: yaml.SequenceNode}); err == nil {
		t.Error("Keyed of a list: no error")
	}
}
