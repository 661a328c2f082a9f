package cli

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/gen-run/gen/internal/callcorpus"
)

// plainEdgeLines are lines at the edges of decodePlainBatchLine's plain
// shape, each to be decoded exactly as jsonv2 decodes it, or left to it.
var plainEdgeLines = append([]string{
	`{"tool":"Bash","input":{"command":"ls"}}`,
	` {"tool" : "Bash" , "input" : { "command" : "ls" } } ` + "\r\n\t",
	`{"input":{"command":"ls"},"tool":"Bash"}`,
	`{"tool":"Bash"}`,
	`{"tool":"Bash","input":{}}`,
	`{"call":"Bash(ls)"}`,
	`{"call":""}`,
	`{"tool":"","input":{}}`,
	`{}`,
	`{"tool":"Bash","input":{"command":"ls"}}x`,
	`{"tool":"Bash","input":{"command":"ls"}}{}`,
	`{"tool":"Bash","input":{"command":"ls"},}`,
	`{"tool":"Bash",,"input":{"command":"ls"}}`,
	`{"tool":"Bash" "input":{"command":"ls"}}`,
	`{"tool":"Bash","input":{"command":"ls",}}`,
	`{"tool":"Bash","input":{"command":"ls"}`,
	`{"tool":"Bash","input":{"command":"ls}}`,
	`{"tool":"Bash","input":{"command"}}`,
	`{"tool":null,"input":{"command":"ls"}}`,
	`{"tool":"Bash","input":null}`,
	`{"tool":"Bash","input":{"command":null}}`,
	`{"tool":"Bash","input":{"command":"ls","timeout":5}}`,
	`{"tool":"Bash","input":{"command":"ls","timeout":1e400}}`,
	`{"tool":"Bash","input":{"command":"ls","x":{"a":[1,"b",null,true]}}}`,
	`{"tool":"Bash","input":["ls"]}`,
	`{"tool":5}`,
	`{"tool":"Bash","input":{"command":"ls","command":"rm -rf /"}}`,
	`{"tool":"Bash","tool":"Bash","input":{"command":"ls"}}`,
	`{"input":{},"input":{"command":"ls"},"tool":"Bash"}`,
	`{"call":"Bash(ls)","call":"Bash(rm)"}`,
	`{"\u0074ool":"Bash","input":{"command":"ls"}}`,
	`{"tool":"Bash","input":{"comm\u0061nd":"ls"}}`,
	`{"Tool":"Bash","input":{"command":"ls"}}`,
	`{"tool":"Bash","input":{"command":"a \u003e b \u0026\u0026 c \u003c d"}}`,
	`{"tool":"Bash","input":{"command":"\"\\\/\b\f\n\r\t"}}`,
	`{"tool":"Bash","input":{"command":"\u00e9\u20AC\uFFFF\u0000"}}`,
	`{"tool":"Bash","input":{"command":"\ud83d\ude00"}}`,
	`{"tool":"Bash","input":{"command":"\ud83d"}}`,
	`{"tool":"Bash","input":{"command":"\ude00x"}}`,
	`{"tool":"Bash","input":{"command":"\u12"}}`,
	`{"tool":"Bash","input":{"command":"\u12g4"}}`,
	`{"tool":"Bash","input":{"command":"\x"}}`,
	`{"tool":"Bash","input":{"command":"\`,
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"a\tb\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"a\x1fb\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"a\\\\n\x1fb\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"comm\x1fand\":\"ls\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"é ü 日本\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"ls \xff\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"ls \xed\xa0\x80\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"comm\xffand\":\"ls\"}}",
	"{\"tool\":\"Bash\",\"input\":{\"command\":\"ls\"}}\x00",
	`{"tool":"Bash","input":{"":"ls"}}`,
	`{"tool":"Bash","input":{"a\"b":"ls"}}`,
	`[1, 2]`,
	`"tool"`,
	``,
	` `,
	// Longer than escaped's buffer on the stack.
	`{"tool":"Bash","input":{"command":"` + strings.Repeat(`a\n\u00e9`, 200) + `"}}`,
	`{"tool":"Bash","input":{"command":"` + strings.Repeat(`a\n\u00e9`, 200) + `\ud800"}}`,
}, badLines...)

// plainCorpusLines are the lines of the --batch inputs the benchmarks
// and the batch tests use, as encoding/json and as jsonv2 write them.
func plainCorpusLines(t testing.TB) [][]byte {
	var lines [][]byte
	for _, calls := range [][]callcorpus.Call{callcorpus.Mixed(3, 3000), callcorpus.Bash(1, 3000)} {
		lines = append(lines, bytes.Split(bytes.TrimSpace(batchInput(t, calls)), []byte("\n"))...)
		for _, c := range calls {
			b, err := jsonv2.Marshal(map[string]any{"tool": c.Tool, "input": c.Input})
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, b)
		}
	}
	return lines
}

// checkPlainLine fails t unless decodePlainBatchLine either leaves line
// to jsonv2 or decodes it exactly as jsonv2 does. It reports whether the
// shortcut took the line.
func checkPlainLine(t *testing.T, line []byte) bool {
	t.Helper()
	got, ok := decodePlainBatchLine(line)
	if !ok {
		return false
	}
	var want batchLine
	if err := unmarshalBatchLine(line, &want); err != nil {
		t.Errorf("%q: the shortcut decoded %+v where jsonv2 fails: %v", line, got, err)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q: the shortcut decoded\n%#v\njsonv2\n%#v", line, got, want)
	}
	return true
}

// TestPlainBatchLineMatchesJSONv2 is the shortcut's differential test:
// over the call corpus and lines at the edges of its plain shape, it
// decodes nothing jsonv2 would not, and nothing differently. It must
// also take the plain lines, or it shortcuts nothing.
func TestPlainBatchLineMatchesJSONv2(t *testing.T) {
	lines := plainCorpusLines(t)
	taken := 0
	for _, l := range lines {
		if checkPlainLine(t, l) {
			taken++
		}
	}
	for _, l := range plainEdgeLines {
		checkPlainLine(t, []byte(l))
	}
	// Only the calls holding a value that is not a string (a boolean
	// dangerouslyDisableSandbox) are left to jsonv2.
	if taken < len(lines)*95/100 {
		t.Errorf("the shortcut took %d of %d corpus lines", taken, len(lines))
	}
	for _, l := range []string{
		`{"tool":"Bash","input":{"command":"a \u003e b \u0026\u0026 c"}}`,
		` {"call" : "Bash(ls)"} `,
		`{"tool":"Bash","input":{"command":"\"\\\/\b\f\n\r\t\u00e9"}}`,
		"{\"tool\":\"Bash\",\"input\":{\"command\":\"é ü 日本\"}}",
	} {
		if _, ok := decodePlainBatchLine([]byte(l)); !ok {
			t.Errorf("%s: the shortcut left a plain line to jsonv2", l)
		}
	}
}

// TestParseBatchLineErrorsUnchanged checks that every line jsonv2 refuses
// is refused with jsonv2's own error: the shortcut never speaks for it.
func TestParseBatchLineErrorsUnchanged(t *testing.T) {
	for _, l := range plainEdgeLines {
		var bl batchLine
		want := unmarshalBatchLine([]byte(l), &bl)
		if want == nil {
			continue
		}
		_, got := parseBatchLine([]byte(l))
		if got == nil || got.Error() != want.Error() {
			t.Errorf("%q: error %v, want jsonv2's %v", l, got, want)
		}
	}
}

// FuzzPlainBatchLine checks the shortcut against jsonv2 on any line.
func FuzzPlainBatchLine(f *testing.F) {
	for _, l := range plainEdgeLines {
		f.Add([]byte(l))
	}
	for i, l := range plainCorpusLines(f) {
		if i%97 == 0 && !strings.Contains(string(l), "\n") {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkPlainLine(t, line) })
}
