package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// aliases maps a canonical argument name to the names models commonly use
// instead, in the order they are tried.
var aliases = []struct {
	canonical string
	from      []string
}{
	{"file_path", []string{"path", "file", "filepath"}},
	{"notebook_path", []string{"path", "file", "filepath", "file_path"}},
	{"command", []string{"cmd"}},
	{"old_string", []string{"old", "search", "from"}},
	{"new_string", []string{"new", "replace", "to"}},
	{"skill", []string{"name", "command"}},
}

// Normalize returns a new map holding in with argument-name aliases of the
// named tool rewritten to their canonical names (path, file or filepath to
// file_path, or to notebook_path for NotebookEdit; cmd to command; old,
// search or from to old_string; new, replace or to to new_string; name or
// command to skill).
// Top-level keys whose value is JSON null are dropped: models send null for
// an argument they mean to omit.
//
// An alias is only rewritten when the tool has its canonical argument and
// does not itself have an argument of the alias's name (Glob's path stays
// path). A canonical key that is present is never overwritten: the alias is
// then left in place for Validate to report, as is every alias after the
// first one present, so conflicting spellings fail instead of one silently
// winning. Unknown tools get a plain copy.
func Normalize(name string, in map[string]any) map[string]any {
	return NormalizeOwned(name, maps.Clone(in))
}

// NormalizeOwned is Normalize rewriting in itself instead of a copy, for
// a caller that owns in, such as the arguments a --batch line decodes to:
// there the copy cost more than validating them. It returns in, or a new
// empty map for nil.
func NormalizeOwned(name string, in map[string]any) map[string]any {
	if in == nil {
		return map[string]any{}
	}
	for k, v := range in {
		if v == nil {
			delete(in, k)
		}
	}
	t, ok := byName.Get()[name]
	if !ok {
		return in
	}
	for _, a := range aliases {
		if t.params.prop(a.canonical) == nil {
			continue
		}
		for _, from := range a.from {
			if t.params.prop(from) != nil {
				continue
			}
			v, ok := in[from]
			if !ok {
				continue
			}
			if _, taken := in[a.canonical]; taken {
				continue
			}
			in[a.canonical] = v
			delete(in, from)
		}
	}
	return in
}

// Validate checks in against the named tool's schema: required arguments,
// JSON types (numbers arrive as float64 and integers must be whole), enums,
// string and array lengths, numeric bounds and unknown arguments, at every
// level of nesting. Every problem is reported, joined with errors.Join, each
// as one line naming the tool and the argument, such as
// `Edit: missing required argument "old_string"`. A nil map is an empty
// argument object. Unknown tools are an error.
func Validate(name string, in map[string]any) error {
	t, ok := byName.Get()[name]
	if !ok {
		return fmt.Errorf("unknown tool %q", name)
	}
	v := validator{tool: name}
	v.object(t.params, in, "")
	return errors.Join(v.errs...)
}

type validator struct {
	tool string
	errs []error
}

func (v *validator) fail(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("%s: %s", v.tool, fmt.Sprintf(format, args...)))
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (v *validator) object(p *param, m map[string]any, path string) {
	for _, c := range p.props {
		val, ok := m[c.name]
		if !ok {
			if c.required {
				v.fail("missing required argument %q", join(path, c.name))
			}
			continue
		}
		v.value(c, val, join(path, c.name))
	}
	var unknown []string
	for k := range m {
		if p.prop(k) == nil {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		v.fail("unknown argument %q", join(path, k))
	}
}

func (v *validator) value(p *param, val any, path string) {
	switch p.typ {
	case tString:
		s, ok := val.(string)
		if !ok {
			v.wrongType(p, val, path)
			return
		}
		if p.nonEmpty && s == "" {
			v.fail("argument %q must not be empty", path)
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			v.fail("argument %q must be one of %s, got %q", path, strings.Join(p.enum, ", "), s)
		}
	case tInteger:
		n, ok := asInt(val)
		if !ok {
			if f, isNum := asFloat(val); isNum {
				v.fail("argument %q must be an integer, got %s", path, strconv.FormatFloat(f, 'g', -1, 64))
			} else {
				v.wrongType(p, val, path)
			}
			return
		}
		if p.minimum != nil && n < int64(*p.minimum) {
			v.fail("argument %q must be at least %d, got %d", path, *p.minimum, n)
		}
		if p.maximum != nil && n > int64(*p.maximum) {
			v.fail("argument %q must be at most %d, got %d", path, *p.maximum, n)
		}
	case tBoolean:
		if _, ok := val.(bool); !ok {
			v.wrongType(p, val, path)
		}
	case tArray:
		a, ok := val.([]any)
		if !ok {
			v.wrongType(p, val, path)
			return
		}
		if len(a) < p.minItems {
			v.fail("argument %q must have at least %s, got %d", path, items(p.minItems), len(a))
		}
		if p.maxItems > 0 && len(a) > p.maxItems {
			v.fail("argument %q must have at most %s, got %d", path, items(p.maxItems), len(a))
		}
		for i, e := range a {
			v.value(p.items, e, fmt.Sprintf("%s[%d]", path, i))
		}
	case tObject:
		m, ok := val.(map[string]any)
		if !ok {
			v.wrongType(p, val, path)
			return
		}
		v.object(p, m, path)
	default:
		// A catalog entry with a type this switch does not know would
		// otherwise accept anything.
		v.fail("argument %q has unsupported schema type %q", path, p.typ)
	}
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

func (v *validator) wrongType(p *param, val any, path string) {
	article := "a"
	if p.typ == tInteger || p.typ == tArray || p.typ == tObject {
		article = "an"
	}
	v.fail("argument %q must be %s %s, got %s", path, article, p.typ, typeName(val))
}

// typeName names val's JSON type, or its Go type if it has none.
func typeName(val any) string {
	switch val.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", val)
}

// maxExact is the largest integer a float64 holds exactly; larger values
// may already have been rounded in decoding, so they are not trusted.
const maxExact = 1 << 53

// asInt reports val as an integer if it is a whole number.
func asInt(val any) (int64, bool) {
	switch n := val.(type) {
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > maxExact {
			return 0, false
		}
		return int64(n), true
	case float32:
		return asInt(float64(n))
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		return asInt(uint64(n))
	case uint64:
		if n > math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// asFloat reports val as a float64 if it is a floating-point number.
func asFloat(val any) (float64, bool) {
	switch n := val.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
