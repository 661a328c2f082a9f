package batch

import (
	"errors"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	in := `{"id":"a","type":"reviewer","prompt":"p1","metadata":{"repo":"x","n":[1,2]}}

   
{"id":"b","type":"reviewer","prompt":"p2","cwd":"sub/dir","model":"offline","max_turns":3,"permission_mode":"explore"}
{"id":"c","type":"reviewer","prompt":"p3","cwd":"/abs/../abs/x"}`
	tasks, err := Parse(strings.NewReader(in), "tasks.jsonl", "/base")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 {
		t.Fatalf("got %d tasks", len(tasks))
	}
	a, b, c := tasks[0], tasks[1], tasks[2]
	if a.Cwd != "/base" || string(a.Metadata) != `{"repo":"x","n":[1,2]}` || a.Line != 1 || a.Index != 0 {
		t.Errorf("a = %+v", a)
	}
	// Blank lines are skipped: b is the second task, on line 4.
	if b.Cwd != "/base/sub/dir" || b.Model != "offline" || b.MaxTurns != 3 || b.Mode != "explore" || b.Line != 4 || b.Index != 1 {
		t.Errorf("b = %+v", b)
	}
	if c.Cwd != "/abs/x" || c.Metadata != nil || c.Index != 2 {
		t.Errorf("c = %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	const ok = `"type":"r","prompt":"p"`
	cases := []struct {
		line string
		msg  string
	}{
		{`{"id":"x",` + ok, `malformed JSON`},
		{`not json`, `not a JSON object`},
		{`["id"]`, `not a JSON object`},
		{`{"id":"x",` + ok + `} {"id":"y"}`, `more than one JSON value on the line`},
		{`{"id":"x",` + ok + `,"extra":1}`, `unknown key "extra"`},
		{`{"ID":"x",` + ok + `}`, `unknown key "ID"`},
		{`{"id":"x","id":"y",` + ok + `}`, `key "id" appears twice`},
		{`{"id":7,` + ok + `}`, `id: must be a string, not 7`},
		{`{"id":null,` + ok + `}`, `id: must be a string, not null`},
		{`{"id":"x","type":"r"}`, `missing prompt`},
		{`{"id":"x","type":"r","prompt":"  "}`, `prompt: must not be empty`},
		{`{"type":"r","prompt":"p"}`, `missing id`},
		{`{"id":"x",` + ok + `,"max_turns":0}`, `max_turns: must be a positive integer, not 0`},
		{`{"id":"x",` + ok + `,"max_turns":-2}`, `max_turns: must be a positive integer, not -2`},
		{`{"id":"x",` + ok + `,"max_turns":1.5}`, `max_turns: must be a positive integer, not 1.5`},
		{`{"id":"x",` + ok + `,"max_turns":"3"}`, `max_turns: must be a positive integer, not "3"`},
		{`{"id":"x",` + ok + `,"permission_mode":"yolo"}`, `permission_mode: unknown permission mode "yolo"`},
		{`{"id":"x",` + ok + `,"permission_mode":""}`, `permission_mode: must name a mode`},
		{`{"id":"x",` + ok + `,"cwd":""}`, `cwd: must not be empty`},
		{`{"id":"x",` + ok + `,"model":["a"]}`, `model: must be a string, not ["a"]`},
	}
	for _, c := range cases {
		t.Run(c.msg, func(t *testing.T) {
			in := `{"id":"first",` + ok + "}\n" + c.line + "\n"
			tasks, err := Parse(strings.NewReader(in), "t.jsonl", "/b")
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Lines) != 1 {
				t.Fatalf("err = %v, tasks = %v", err, tasks)
			}
			if tasks != nil {
				t.Errorf("tasks returned with an error: %v", tasks)
			}
			if got := pe.Lines[0].Error(); !strings.HasPrefix(got, "t.jsonl:2: "+c.msg) {
				t.Errorf("error %q, want prefix %q", got, "t.jsonl:2: "+c.msg)
			}
		})
	}
}

// Every bad line is reported, in order, with its own line number; a
// duplicate id names the first line.
func TestParseCollectsErrors(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"a","type":"r","prompt":"p"}`,
		`{"id":"a","type":"r","prompt":"p"}`,
		``,
		`{"id":"b"}`,
		`{"id":"c","type":"r","prompt":"p"}`,
		`{`,
	}, "\n")
	_, err := Parse(strings.NewReader(in), "in.jsonl", "/")
	want := `in.jsonl:2: duplicate id "a" (first on line 1)
in.jsonl:4: missing type
in.jsonl:6: malformed JSON: the line ends inside the object`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestParseLongLine(t *testing.T) {
	long := `{"id":"x","type":"r","prompt":"` + strings.Repeat("a", MaxLine) + `"}`
	in := long + "\n" + `{"id":"y","type":"r","prompt":"p"}` + "\n" + long
	_, err := Parse(strings.NewReader(in), "f", "/")
	var pe *ParseError
	if !errors.As(err, &pe) || len(pe.Lines) != 2 || pe.Lines[0].Line != 1 || pe.Lines[1].Line != 3 ||
		!strings.Contains(pe.Lines[0].Msg, "line longer than") {
		t.Errorf("err = %v", err)
	}
	// Just under the limit is fine, and the last line needs no newline.
	ok := `{"id":"x","type":"r","prompt":"` + strings.Repeat("a", MaxLine-40) + `"}`
	if tasks, err := Parse(strings.NewReader(ok), "f", "/"); err != nil || len(tasks) != 1 {
		t.Errorf("%d tasks, %v", len(tasks), err)
	}
}
