package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/internal/jsonpos"
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

// DecodeJSON reads data, one JSON value (jsonpos.Decode), into the YAML
// nodes a frontmatter block would parse to, each at its line and column,
// for the parsers of frontmatter fields to read JSON (Keyed): strings are
// !!str, integers that fit 64 bits !!int, other numbers !!float, and
// true, false and null !!bool and !!null. It reads the JSON as JSON
// rather than have YAML parse it as a flow value, which refuses some
// valid JSON (the escapes \/ and surrogate pairs) and reads some numbers
// (1e3) as strings. It is strict: invalid JSON, invalid UTF-8 and a name
// repeated in an object are errors naming path, line and column.
func DecodeJSON(path string, data []byte) (*yaml.Node, error) {
	if !utf8.Valid(data) {
		// encoding/json would read each bad byte as U+FFFD, and a rule
		// with one matches nothing that was meant.
		line, col := jsonpos.LineCol(data, invalidUTF8(data))
		return nil, &jsonpos.Error{Path: path, Line: line, Col: col, Err: errors.New("invalid UTF-8")}
	}
	v, err := jsonpos.Decode(path, data)
	if err != nil {
		return nil, err
	}
	return jsonNode(path, data, v, "")
}

// invalidUTF8 returns the offset of the first byte of data that is not
// UTF-8.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// jsonNode returns the node of v, a value of data whose key path is key
// (r.hooks.Stop[0]; "" for the top), which names a repeated key.
func jsonNode(path string, data []byte, v *jsonpos.Value, key string) (*yaml.Node, error) {
	at := func(off int) (n *yaml.Node) {
		n = &yaml.Node{}
		n.Line, n.Column = jsonpos.LineCol(data, off)
		return n
	}
	n := at(v.Off)
	switch v.Kind {
	case jsonpos.Object:
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
		seen := make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			k, mkey := at(m.Off), m.Key
			if key != "" {
				mkey = key + "." + m.Key
			}
			if seen[m.Key] {
				return nil, &jsonpos.Error{Path: path, Line: k.Line, Col: k.Column, Err: fmt.Errorf("duplicate key %q", mkey)}
			}
			seen[m.Key] = true
			k.Kind, k.Tag, k.Value = yaml.ScalarNode, "!!str", m.Key
			val, err := jsonNode(path, data, m.Val, mkey)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, k, val)
		}
	case jsonpos.Array:
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		for i, el := range v.Elems {
			val, err := jsonNode(path, data, el, fmt.Sprintf("%s[%d]", key, i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, val)
		}
	case jsonpos.String:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", v.Str
	case jsonpos.Number:
		// As YAML tells them: an integer past uint64 is a float.
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!float", v.Str
		if _, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			n.Tag = "!!int"
		} else if _, err := strconv.ParseUint(v.Str, 10, 64); err == nil {
			n.Tag = "!!int"
		}
	case jsonpos.Bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", strconv.FormatBool(v.Boolean)
	default:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}
