package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"

	"gopkg.in/yaml.v3"
)

// maxJSONNodes bounds the nodes JSON writes, aliases expanded: a few
// aliases can stand for more values than memory holds.
const maxJSONNodes = 100_000

// JSON returns the value v of the frontmatter as JSON, for a parser
// written for JSON (a settings-shaped value, such as hooks). Mappings keep
// their key order; scalars are read by their YAML tags (!!str, !!int,
// !!float, !!bool, !!null); aliases are followed. What JSON cannot hold,
// or would hold otherwise than YAML means it (a merge key, a key that is
// not a string, a repeated key, a timestamp, an infinite number), is an
// error at its line.
func (d *Doc) JSON(v *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	n := 0
	if err := d.writeJSON(&b, v, &n); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (d *Doc) writeJSON(b *bytes.Buffer, v *yaml.Node, n *int) error {
	v = Resolve(v)
	if *n++; *n > maxJSONNodes {
		return d.Errorf(v, "value too large (aliases expanded)")
	}
	switch v.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := make(map[string]bool)
		for i := 0; i+1 < len(v.Content); i += 2 {
			k := Resolve(v.Content[i])
			switch {
			case k.ShortTag() == "!!merge":
				return d.Errorf(k, "YAML merge keys (<<) are not supported: write the keys out")
			case k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str":
				return d.Errorf(k, "keys must be strings")
			case seen[k.Value]:
				return d.Errorf(k, "duplicate key %q", k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k.Value)
			b.WriteByte(':')
			if err := d.writeJSON(b, v.Content[i+1], n); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, el := range v.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := d.writeJSON(b, el, n); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		return d.scalarJSON(b, v)
	default:
		return d.Errorf(v, "unsupported YAML value")
	}
	return nil
}

// scalarJSON writes the scalar v as the JSON value its tag makes it.
func (d *Doc) scalarJSON(b *bytes.Buffer, v *yaml.Node) error {
	switch tag := v.ShortTag(); tag {
	case "!!str":
		writeString(b, v.Value)
	case "!!null":
		b.WriteString("null")
	case "!!bool", "!!int", "!!float":
		var x any
		if err := v.Decode(&x); err != nil {
			return d.Errorf(v, "%v", err)
		}
		if f, ok := x.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return d.Errorf(v, "unsupported value %s (%s): JSON has no such number", v.Value, tag)
		}
		out, err := json.Marshal(x)
		if err != nil {
			return d.Errorf(v, "unsupported value %s (%s): %v", v.Value, tag, err)
		}
		b.Write(out)
	default:
		return d.Errorf(v, "unsupported value %s (%s): quote it to make it a string", v.Value, tag)
	}
	return nil
}

// writeString writes s as a JSON string.
func writeString(b *bytes.Buffer, s string) {
	out, err := json.Marshal(s)
	if err != nil {
		panic(errors.New("frontmatter: a string did not marshal")) // cannot happen: strings always marshal
	}
	b.Write(out)
}
