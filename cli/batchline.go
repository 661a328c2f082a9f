package cli

import "unicode/utf8"

// decodePlainBatchLine decodes the --batch lines almost every client
// writes, {"tool":"T","input":{"k":"v",...}} or {"call":"C"}, without
// encoding/json/v2's reflection: it costs a few allocations where
// jsonv2.Unmarshal costs a dozen and four times the CPU. It is only a
// shortcut: ok is false for anything outside that plain shape (other
// names, escaped names, repeated names, values that are not strings,
// surrogate escapes, invalid UTF-8, trailing bytes, ...), and the caller
// then decodes the line with jsonv2, which decides it, errors included.
// Where ok is true, bl is exactly what jsonv2.Unmarshal gives
// (TestPlainBatchLineMatchesJSONv2, FuzzPlainBatchLine).
func decodePlainBatchLine(line []byte) (bl batchLine, ok bool) {
	if !utf8.Valid(line) {
		return batchLine{}, false
	}
	d := plainDecoder{b: line}
	if !d.byte('{') {
		return batchLine{}, false
	}
	// once reports whether the member with this bit is new: a name
	// repeated is left to jsonv2.
	var seen uint8
	once := func(bit uint8) bool {
		isNew := seen&bit == 0
		seen |= bit
		return isNew
	}
	for first := true; ; first = false {
		if d.byte('}') {
			if first {
				return batchLine{}, false // {}: jsonv2 says what is wrong
			}
			break
		}
		if !first && !d.byte(',') {
			return batchLine{}, false
		}
		name, ok := d.name()
		if !ok || !d.byte(':') {
			return batchLine{}, false
		}
		switch string(name) {
		case "tool":
			if ok = once(1); ok {
				bl.Tool, ok = d.string()
			}
		case "call":
			if ok = once(2); ok {
				bl.Call, ok = d.string()
			}
		case "input":
			if ok = once(4); ok {
				bl.Input, ok = d.stringObject()
			}
		default:
			ok = false
		}
		if !ok {
			return batchLine{}, false
		}
	}
	d.space()
	return bl, d.i == len(d.b)
}

// plainDecoder reads the plain JSON of decodePlainBatchLine from b[i:].
// Every method skips the whitespace before what it reads, and reports
// false where the text is not of its plain kind.
type plainDecoder struct {
	b []byte
	i int
}

// space skips JSON whitespace.
func (d *plainDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte reads c if it comes next.
func (d *plainDecoder) byte(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// name reads a member name without escapes, as the bytes of the line it
// is in.
func (d *plainDecoder) name() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, true
		case c < 0x20 || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// string reads a string value. The caller checked the whole line is
// valid UTF-8; an escape of a UTF-16 surrogate is left to jsonv2.
func (d *plainDecoder) string() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := string(d.b[start:d.i])
			d.i++
			return s, true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// escaped finishes string from its first backslash, at d.i; the string's
// text began at start. It decodes into a buffer on the stack while the
// text fits, so that the string it returns is its one allocation.
func (d *plainDecoder) escaped(start int) (string, bool) {
	var buf [512]byte
	out := append(buf[:0], d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		switch e := d.b[d.i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if d.i+6 > len(d.b) {
				return "", false
			}
			r, ok := hex4(d.b[d.i+2 : d.i+6])
			if !ok || utf8.RuneLen(r) < 0 {
				return "", false // not hex, or a surrogate
			}
			out = utf8.AppendRune(out, r)
			d.i += 6
			continue
		default:
			return "", false
		}
		d.i += 2
	}
	return "", false
}

// stringObject reads an object whose values are all strings, with plain
// names none of which repeats.
func (d *plainDecoder) stringObject() (map[string]any, bool) {
	if !d.byte('{') {
		return nil, false
	}
	m := map[string]any{}
	if d.byte('}') {
		return m, true
	}
	for {
		k, ok := d.name()
		if !ok || !d.byte(':') {
			return nil, false
		}
		name := inputName(k)
		if _, dup := m[name]; dup {
			return nil, false
		}
		v, ok := d.string()
		if !ok {
			return nil, false
		}
		m[name] = v
		if d.byte('}') {
			return m, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// inputName returns the name k as a string. The input names most calls
// use are returned as constants, without a copy of their own; a switch
// rather than a map, so that nothing is built at package init.
func inputName(k []byte) string {
	switch string(k) {
	case "command":
		return "command"
	case "description":
		return "description"
	case "timeout":
		return "timeout"
	case "file_path":
		return "file_path"
	case "notebook_path":
		return "notebook_path"
	case "pattern":
		return "pattern"
	case "path":
		return "path"
	case "url":
		return "url"
	case "content":
		return "content"
	case "old_string":
		return "old_string"
	case "new_string":
		return "new_string"
	}
	return string(k)
}
