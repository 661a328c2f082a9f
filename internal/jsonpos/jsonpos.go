// Package jsonpos decodes JSON into a tree of values that remember where
// they start, so that a configuration loader can name the line of an
// offending key or value.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Error is a problem at a place in a file.
type Error struct {
	Path string
	Line int
	Col  int // 0 when only the line is known
	Err  error
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Kind is the type of a JSON value.
type Kind int

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// Value is a decoded JSON value and the byte offset it starts at.
type Value struct {
	Off     int
	End     int // offset just past the value
	Kind    Kind
	Str     string   // String, and Number in its written form
	Boolean bool     // Bool
	Members []Member // Object, in file order
	Elems   []*Value // Array
}

// Member is one key of an object.
type Member struct {
	Key string
	Off int // offset of the key
	Val *Value
}

// Decode parses data into a value tree. Invalid JSON is an *Error naming
// path and the line and column of the offending byte.
func Decode(path string, data []byte) (*Value, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, syntaxError(path, data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, data)
	if err != nil {
		return nil, &Error{Path: path, Line: 1, Err: err}
	}
	return v, nil
}

// syntaxError returns err, a json.Unmarshal error for data, as an *Error
// with the line and column of the offending byte.
func syntaxError(path string, data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &Error{Path: path, Line: 1, Err: err}
	}
	// Offset counts the bytes read, the offending one included; at the
	// end of the input it is the length, which is where the error is.
	pos := int(se.Offset) - 1
	if pos < 0 || strings.HasPrefix(se.Error(), "unexpected end") {
		pos = int(se.Offset)
	}
	line, col := LineCol(data, pos)
	if h := hint(data, pos); h != "" {
		err = fmt.Errorf("%w: %s", err, h)
	}
	return &Error{Path: path, Line: line, Col: col, Err: err}
}

// bom is the UTF-8 byte order mark some editors put first in a file.
const bom = "\xef\xbb\xbf"

// hint says what a syntax error at pos in data most likely is, when it
// is one of the forms JSON does not allow and other configuration
// formats do: a byte order mark, which encoding/json reports as the
// invisible character 'ï'; a comment; a comma after the last member or
// element. "" otherwise.
func hint(data []byte, pos int) string {
	if pos < 0 || pos >= len(data) {
		return ""
	}
	rest := data[pos:]
	switch {
	case pos == 0 && bytes.HasPrefix(data, []byte(bom)):
		return "the file starts with a byte order mark (U+FEFF), which JSON does not allow: save it as UTF-8 without one"
	case bytes.HasPrefix(rest, []byte("//")) || bytes.HasPrefix(rest, []byte("/*")):
		return "JSON has no comments"
	case rest[0] == '}' || rest[0] == ']':
		if before := bytes.TrimRight(data[:pos], " \t\r\n"); bytes.HasSuffix(before, []byte(",")) {
			return "JSON allows no comma after the last member or element"
		}
	}
	return ""
}

// start returns the offset of the next token: InputOffset is the end of
// the previous one, which may be followed by space, ',' or ':'.
func start(dec *json.Decoder, data []byte) int {
	off := int(dec.InputOffset())
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

func decodeValue(dec *json.Decoder, data []byte) (*Value, error) {
	v := &Value{Off: start(dec, data)}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		v.Kind = Null
	case bool:
		v.Kind, v.Boolean = Bool, t
	case json.Number:
		v.Kind, v.Str = Number, t.String()
	case string:
		v.Kind, v.Str = String, t
	case json.Delim:
		switch t {
		case '{':
			v.Kind = Object
			for dec.More() {
				off := start(dec, data)
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeValue(dec, data)
				if err != nil {
					return nil, err
				}
				v.Members = append(v.Members, Member{Key: k.(string), Off: off, Val: val})
			}
		case '[':
			v.Kind = Array
			for dec.More() {
				el, err := decodeValue(dec, data)
				if err != nil {
					return nil, err
				}
				v.Elems = append(v.Elems, el)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	}
	v.End = int(dec.InputOffset())
	return v, nil
}

// LineCol returns the 1-based line and byte column of offset off in data.
func LineCol(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(data[:off], '\n')
}
