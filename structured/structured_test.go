package structured

import (
	"context"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/tool"
)

const point = `{"type": "object", "properties": {"x": {"type": "integer"}, "note": {"type": ["string", "null"]}}, "required": ["x"], "additionalProperties": false}`

func TestNewRefusesWhatIsNoObjectSchema(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type": "string"}`, `must describe an object`},
		{`{"properties": {}}`, `must describe an object`},
		{`null`, `not null`},
		{`[]`, `want a JSON Schema object`},
		{point + ` {}`, `more after the schema`},
		{`{"type": "object", "properties": {"a": {"$ref": "https://example.org/s.json"}}}`, `cannot resolve remote schemas`},
		{`{"type": "object", "properties": {"a": {"type": 3}}}`, `not a JSON Schema`},
	} {
		if _, err := New([]byte(tc.schema)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%s) = %v, want an error saying %q", tc.schema, err, tc.want)
		}
	}
}

func TestRunKeepsAValidAnswer(t *testing.T) {
	o, err := New([]byte(point))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Schema().Parameters["required"]; len(got.([]any)) != 1 {
		t.Errorf("the model is shown %v as required, want the schema's", got)
	}
	for _, bad := range []map[string]any{{}, {"x": "one"}, {"x": 1.5}, {"x": 1.0, "y": true}} {
		if _, err := o.Run(context.Background(), tool.Call{Input: bad}); err == nil {
			t.Errorf("Run(%v) succeeded", bad)
		}
	}
	if _, ok := o.Value(); ok {
		t.Fatal("an invalid answer was kept")
	}
	in := map[string]any{"x": 2.0, "note": nil}
	if _, err := o.Run(context.Background(), tool.Call{Input: in}); err != nil {
		t.Fatal(err)
	}
	in["x"] = 9.0 // the caller's map is not the answer
	v, ok := o.Value()
	if !ok || v["x"] != 2.0 || len(v) != 2 {
		t.Errorf("Value() = %v, %v; want x 2 and the null note", v, ok)
	}
	o.Reset()
	if _, ok := o.Value(); ok {
		t.Error("Reset kept the answer")
	}
}

// The gate lets the tool run in every mode: it only hands an answer over.
func TestSafeTool(t *testing.T) {
	if c := perm.ClassOf(Name); c != perm.Safe {
		t.Errorf("perm.ClassOf(%s) = %v, want Safe", Name, c)
	}
}
