package jsonpos

import "testing"

// TestSyntaxHints: the syntax errors of forms other configuration formats
// allow say what they are, at the file, line and column of the offending
// byte: encoding/json alone reports a byte order mark as an invisible
// "invalid character 'ï'".
func TestSyntaxHints(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"byte order mark", "\xef\xbb\xbf{\"a\": 1}",
			"f.json:1:1: invalid character 'ï' looking for beginning of value: the file starts with a byte order mark (U+FEFF), which JSON does not allow: save it as UTF-8 without one"},
		{"line comment", "{\"a\": 1 // one\n}",
			"f.json:1:9: invalid character '/' after object key:value pair: JSON has no comments"},
		{"block comment", "{\n  /* x */ \"a\": 1}",
			"f.json:2:3: invalid character '/' looking for beginning of object key string: JSON has no comments"},
		{"trailing comma in an object", "{\"a\": [1],\n}",
			"f.json:2:1: invalid character '}' looking for beginning of object key string: JSON allows no comma after the last member or element"},
		{"trailing comma in an array", "{\"a\": [1, ]}",
			"f.json:1:11: invalid character ']' looking for beginning of value: JSON allows no comma after the last member or element"},
		{"other errors as they were", "{\"a\": x}",
			"f.json:1:7: invalid character 'x' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("f.json", []byte(tt.data))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Decode error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}
