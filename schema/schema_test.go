package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// args decodes a JSON object the way the loop does, so numbers are float64.
func args(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

func TestNamesCatalogOrder(t *testing.T) {
	want := []string{"Read", "Glob", "Grep", "Write", "Edit", "Bash", "WebFetch", "WebSearch",
		"NotebookEdit", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "AskUserQuestion", "Agent"}
	if !slices.Equal(Names(), want) {
		t.Fatalf("Names = %v, want %v", Names(), want)
	}
}

// Skill is known to Get, Normalize and Validate but offered only by runs
// that have skills: it is in neither Names nor Visible.
func TestSkillOutsideCatalog(t *testing.T) {
	s, ok := Get("Skill")
	if !ok || !reflect.DeepEqual(s.Parameters["required"], []string{"skill"}) {
		t.Fatalf("Get(Skill) = %+v, %v", s, ok)
	}
	if slices.Contains(Names(), "Skill") {
		t.Error("Skill is in the default catalog")
	}
	if err := Validate("Skill", map[string]any{"args": "x"}); err == nil {
		t.Error("Validate accepted a Skill call without a skill name")
	}
}

// Known answers exactly as Get does, for the catalog, Skill and others.
func TestKnown(t *testing.T) {
	for _, name := range append(slices.Clone(Names()), "Skill", "mcp__github__get_issue", "read", "", "Bash ") {
		_, ok := Get(name)
		if Known(name) != ok {
			t.Errorf("Known(%q) = %v, Get says %v", name, !ok, ok)
		}
	}
	if !Known("Skill") || Known("mcp__x__y") {
		t.Error("Known: Skill must be known and MCP tools not")
	}
}

func TestGetParameters(t *testing.T) {
	tests := []struct {
		tool     string
		props    []string
		required []string
	}{
		{"Read", []string{"file_path", "offset", "limit"}, []string{"file_path"}},
		{"Glob", []string{"pattern", "path"}, []string{"pattern"}},
		{"Grep", []string{"pattern", "path", "glob", "case_insensitive", "max_results"}, []string{"pattern"}},
		{"Write", []string{"file_path", "content"}, []string{"file_path", "content"}},
		{"Edit", []string{"file_path", "old_string", "new_string", "replace_all"}, []string{"file_path", "old_string", "new_string"}},
		{"Bash", []string{"command", "timeout", "description", "dangerouslyDisableSandbox"}, []string{"command"}},
		{"WebFetch", []string{"url", "prompt"}, []string{"url"}},
		{"WebSearch", []string{"query", "max_results"}, []string{"query"}},
		{"NotebookEdit", []string{"notebook_path", "cell_index", "cell_id", "new_source", "cell_type", "edit_mode"}, []string{"notebook_path", "edit_mode"}},
		{"TaskCreate", []string{"subject", "description"}, []string{"subject"}},
		{"TaskGet", []string{"id"}, []string{"id"}},
		{"TaskList", nil, nil},
		{"TaskUpdate", []string{"id", "status", "subject", "description"}, []string{"id"}},
		{"AskUserQuestion", []string{"questions"}, []string{"questions"}},
		{"Agent", []string{"subagent_type", "prompt", "description"}, []string{"subagent_type", "prompt", "description"}},
	}
	if len(tests) != len(Names()) {
		t.Fatalf("test covers %d tools, catalog has %d", len(tests), len(Names()))
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			s, ok := Get(tt.tool)
			if !ok {
				t.Fatalf("Get(%q) not found", tt.tool)
			}
			if s.Name != tt.tool || s.Description == "" {
				t.Fatalf("Get(%q) = name %q, description %q", tt.tool, s.Name, s.Description)
			}
			// Round-trip through JSON: this is what the model receives.
			b, err := json.Marshal(s.Parameters)
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
				Additional *bool                      `json:"additionalProperties"`
			}
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if p.Type != "object" || p.Properties == nil || p.Additional == nil || *p.Additional {
				t.Fatalf("parameters not a closed object with properties: %s", b)
			}
			var got []string
			for k := range p.Properties {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.props))
			if !slices.Equal(got, want) {
				t.Errorf("properties = %v, want %v", got, want)
			}
			if !slices.Equal(p.Required, tt.required) {
				t.Errorf("required = %v, want %v", p.Required, tt.required)
			}
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		if _, ok := Get("mcp__x__y"); ok {
			t.Fatal("Get reported an MCP tool as built-in")
		}
	})
	t.Run("callers cannot corrupt the catalog", func(t *testing.T) {
		s, _ := Get("Read")
		s.Parameters["additionalProperties"] = true
		delete(s.Parameters["properties"].(map[string]any), "file_path")
		again, _ := Get("Read")
		if again.Parameters["additionalProperties"] != false {
			t.Fatal("modifying one Get result changed the next")
		}
		if _, ok := again.Parameters["properties"].(map[string]any)["file_path"]; !ok {
			t.Fatal("modifying one Get result removed a property from the next")
		}
	})
	t.Run("nested objects are closed too", func(t *testing.T) {
		s, _ := Get("AskUserQuestion")
		q := s.Parameters["properties"].(map[string]any)["questions"].(map[string]any)
		if q["minItems"] != 1 || q["maxItems"] != 4 {
			t.Fatalf("questions bounds = %v..%v", q["minItems"], q["maxItems"])
		}
		item := q["items"].(map[string]any)
		if item["additionalProperties"] != false {
			t.Fatal("question objects accept unknown keys")
		}
		opt := item["properties"].(map[string]any)["options"].(map[string]any)
		if opt["minItems"] != 2 || opt["maxItems"] != 4 || opt["items"].(map[string]any)["additionalProperties"] != false {
			t.Fatalf("options schema = %v", opt)
		}
	})
}

func TestOpenAI(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"given order is kept", []string{"Bash", "Read", "Agent"}, []string{"Bash", "Read", "Agent"}},
		{"unknown and MCP names are skipped", []string{"Read", "mcp__fs__read", "Nope", "Glob"}, []string{"Read", "Glob"}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := OpenAI(tt.names)
			var got []string
			for _, tl := range tools {
				if tl.Type != "function" || tl.Function == nil {
					t.Fatalf("tool %+v is not a function tool", tl)
				}
				if tl.Function.Parameters == nil || tl.Function.Description == "" {
					t.Fatalf("tool %s lacks parameters or description", tl.Function.Name)
				}
				got = append(got, tl.Function.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("OpenAI(%v) = %v, want %v", tt.names, got, tt.want)
			}
		})
	}
	t.Run("marshals as chat-completions tools", func(t *testing.T) {
		b, err := json.Marshal(OpenAI([]string{"TaskList"}))
		if err != nil {
			t.Fatal(err)
		}
		want := `[{"type":"function","function":{"name":"TaskList","description":"List all tasks with their ids and statuses.","parameters":{"additionalProperties":false,"properties":{},"type":"object"}}}]`
		var got, exp any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("got  %s\nwant %s", b, want)
		}
	})
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name string
		tool string
		in   string
		want string
	}{
		{"path to file_path", "Read", `{"path":"a.go"}`, `{"file_path":"a.go"}`},
		{"file to file_path", "Write", `{"file":"a.go","content":"x"}`, `{"file_path":"a.go","content":"x"}`},
		{"filepath to file_path", "Edit", `{"filepath":"a.go","old_string":"a","new_string":"b"}`, `{"file_path":"a.go","old_string":"a","new_string":"b"}`},
		{"notebook path", "NotebookEdit", `{"path":"n.ipynb","edit_mode":"delete"}`, `{"notebook_path":"n.ipynb","edit_mode":"delete"}`},
		{"notebook file_path", "NotebookEdit", `{"file_path":"n.ipynb","edit_mode":"delete"}`, `{"notebook_path":"n.ipynb","edit_mode":"delete"}`},
		{"cmd to command", "Bash", `{"cmd":"ls"}`, `{"command":"ls"}`},
		{"old and new", "Edit", `{"file_path":"f","old":"a","new":"b"}`, `{"file_path":"f","old_string":"a","new_string":"b"}`},
		{"search and replace", "Edit", `{"file_path":"f","search":"a","replace":"b","replace_all":true}`, `{"file_path":"f","old_string":"a","new_string":"b","replace_all":true}`},
		{"from and to", "Edit", `{"file_path":"f","from":"a","to":"b"}`, `{"file_path":"f","old_string":"a","new_string":"b"}`},
		{"present canonical is never overwritten", "Read", `{"file_path":"a","path":"b"}`, `{"file_path":"a","path":"b"}`},
		{"second alias stays for validation", "Read", `{"path":"a","file":"b"}`, `{"file_path":"a","file":"b"}`},
		{"glob path is its own argument", "Glob", `{"pattern":"*","path":"src"}`, `{"pattern":"*","path":"src"}`},
		{"grep path is its own argument", "Grep", `{"pattern":"x","path":"src"}`, `{"pattern":"x","path":"src"}`},
		{"aliases only for tools with the canonical key", "Glob", `{"pattern":"*","cmd":"ls"}`, `{"pattern":"*","cmd":"ls"}`},
		{"null optional is dropped", "Read", `{"file_path":"a","offset":null,"limit":null}`, `{"file_path":"a"}`},
		{"null canonical gives way to alias", "Bash", `{"command":null,"cmd":"ls"}`, `{"command":"ls"}`},
		{"unknown tool is copied", "mcp__x__y", `{"path":"a","z":null}`, `{"path":"a"}`},
		{"empty", "TaskList", `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := args(t, tt.in)
			orig := args(t, tt.in)
			got := Normalize(tt.tool, in)
			if want := args(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("Normalize(%s, %s) = %v, want %v", tt.tool, tt.in, got, want)
			}
			if !reflect.DeepEqual(in, orig) {
				t.Fatalf("Normalize modified its input: %v", in)
			}
			// NormalizeOwned gives the same map, rewritten.
			if got := NormalizeOwned(tt.tool, in); !reflect.DeepEqual(got, args(t, tt.want)) || !sameMap(got, in) {
				t.Fatalf("NormalizeOwned(%s, %s) = %v (the map given: %v), want %s in it", tt.tool, tt.in, got, sameMap(got, in), tt.want)
			}
		})
	}
	t.Run("nil input", func(t *testing.T) {
		if got := Normalize("Read", nil); got == nil || len(got) != 0 {
			t.Fatalf("Normalize(nil) = %#v, want empty map", got)
		}
		if got := NormalizeOwned("Read", nil); got == nil || len(got) != 0 {
			t.Fatalf("NormalizeOwned(nil) = %#v, want empty map", got)
		}
	})
}

// sameMap reports whether a and b are one map, not only equal.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestValidate(t *testing.T) {
	q := func(opts string) string {
		return `{"question":"Which?","options":` + opts + `}`
	}
	twoOpts := `[{"label":"a"},{"label":"b"}]`
	tests := []struct {
		name string
		tool string
		in   string
		want []string // error lines, in order; nil means valid
	}{
		{"read minimal", "Read", `{"file_path":"a.go"}`, nil},
		{"read window", "Read", `{"file_path":"a.go","offset":10,"limit":5}`, nil},
		{"read whole float is an integer", "Read", `{"file_path":"a.go","limit":5.0}`, nil},
		{"read missing path", "Read", `{}`, []string{`Read: missing required argument "file_path"`}},
		{"read limit string", "Read", `{"file_path":"a","limit":"5"}`, []string{`Read: argument "limit" must be an integer, got string`}},
		{"read limit fraction", "Read", `{"file_path":"a","limit":2.5}`, []string{`Read: argument "limit" must be an integer, got 2.5`}},
		{"read offset zero", "Read", `{"file_path":"a","offset":0}`, []string{`Read: argument "offset" must be at least 1, got 0`}},
		{"read empty path", "Read", `{"file_path":""}`, []string{`Read: argument "file_path" must not be empty`}},
		{"read path number", "Read", `{"file_path":7}`, []string{`Read: argument "file_path" must be a string, got number`}},
		{"read null path", "Read", `{"file_path":null}`, []string{`Read: argument "file_path" must be a string, got null`}},
		{"read huge number is not trusted", "Read", `{"file_path":"a","limit":1e300}`, []string{`Read: argument "limit" must be an integer, got 1e+300`}},
		{"edit missing old_string", "Edit", `{"file_path":"a","new_string":"b"}`, []string{`Edit: missing required argument "old_string"`}},
		{"edit replace_all string", "Edit", `{"file_path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`, []string{`Edit: argument "replace_all" must be a boolean, got string`}},
		{"edit empty new_string is fine", "Edit", `{"file_path":"a","old_string":"x","new_string":""}`, nil},
		{"bash unknown cwd", "Bash", `{"command":"ls","cwd":"/"}`, []string{`Bash: unknown argument "cwd"`}},
		{"bash timeout at max", "Bash", `{"command":"ls","timeout":600000}`, nil},
		{"bash timeout over max", "Bash", `{"command":"ls","timeout":600001}`, []string{`Bash: argument "timeout" must be at most 600000, got 600001`}},
		{"bash unnormalized alias", "Bash", `{"cmd":"ls"}`, []string{`Bash: missing required argument "command"`, `Bash: unknown argument "cmd"`}},
		{"grep max_results over cap", "Grep", `{"pattern":"x","max_results":1001}`, []string{`Grep: argument "max_results" must be at most 1000, got 1001`}},
		{"grep full", "Grep", `{"pattern":"x","path":".","glob":"*.go","case_insensitive":true,"max_results":10}`, nil},
		{"notebook bad mode", "NotebookEdit", `{"notebook_path":"n.ipynb","edit_mode":"append"}`, []string{`NotebookEdit: argument "edit_mode" must be one of replace, insert, delete, got "append"`}},
		{"notebook negative index", "NotebookEdit", `{"notebook_path":"n.ipynb","edit_mode":"delete","cell_index":-1}`, []string{`NotebookEdit: argument "cell_index" must be at least 0, got -1`}},
		{"notebook insert", "NotebookEdit", `{"notebook_path":"n.ipynb","edit_mode":"insert","cell_type":"code","new_source":"x=1","cell_index":0}`, nil},
		{"task update status enum", "TaskUpdate", `{"id":"1","status":"done"}`, []string{`TaskUpdate: argument "status" must be one of pending, in_progress, completed, got "done"`}},
		{"task list empty", "TaskList", `{}`, nil},
		{"task list nil map", "TaskList", ``, nil},
		{"task list extra", "TaskList", `{"all":true}`, []string{`TaskList: unknown argument "all"`}},
		{"task get nil map", "TaskGet", ``, []string{`TaskGet: missing required argument "id"`}},
		{"ask ok", "AskUserQuestion", `{"questions":[` + q(twoOpts) + `]}`, nil},
		{"ask four questions four options", "AskUserQuestion", `{"questions":[` + strings.Repeat(q(`[{"label":"a"},{"label":"b"},{"label":"c","description":"d"},{"label":"e"}]`)+",", 3) + q(twoOpts) + `]}`, nil},
		{"ask no questions", "AskUserQuestion", `{"questions":[]}`, []string{`AskUserQuestion: argument "questions" must have at least 1 item, got 0`}},
		{"ask five questions", "AskUserQuestion", `{"questions":[` + strings.Repeat(q(twoOpts)+",", 4) + q(twoOpts) + `]}`, []string{`AskUserQuestion: argument "questions" must have at most 4 items, got 5`}},
		{"ask one option", "AskUserQuestion", `{"questions":[` + q(`[{"label":"a"}]`) + `]}`, []string{`AskUserQuestion: argument "questions[0].options" must have at least 2 items, got 1`}},
		{"ask nested unknown and missing", "AskUserQuestion", `{"questions":[` + q(twoOpts) + `,{"question":"q","options":[{"label":"a"},{"text":"b"}],"multi":true}]}`, []string{
			`AskUserQuestion: missing required argument "questions[1].options[1].label"`,
			`AskUserQuestion: unknown argument "questions[1].options[1].text"`,
			`AskUserQuestion: unknown argument "questions[1].multi"`,
		}},
		{"ask questions not array", "AskUserQuestion", `{"questions":{"question":"q"}}`, []string{`AskUserQuestion: argument "questions" must be an array, got object`}},
		{"ask question not object", "AskUserQuestion", `{"questions":["which?"]}`, []string{`AskUserQuestion: argument "questions[0]" must be an object, got string`}},
		{"agent all missing", "Agent", `{}`, []string{
			`Agent: missing required argument "subagent_type"`,
			`Agent: missing required argument "prompt"`,
			`Agent: missing required argument "description"`,
		}},
		{"several problems sorted", "Read", `{"z":1,"a":2,"limit":"x"}`, []string{
			`Read: missing required argument "file_path"`,
			`Read: argument "limit" must be an integer, got string`,
			`Read: unknown argument "a"`,
			`Read: unknown argument "z"`,
		}},
		{"unknown tool", "Nope", `{}`, []string{`unknown tool "Nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in map[string]any
			if tt.in != "" {
				in = args(t, tt.in)
			}
			err := Validate(tt.tool, in)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate(%s, %s) = %v, want nil", tt.tool, tt.in, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%s, %s) = nil, want %q", tt.tool, tt.in, tt.want)
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tt.want) {
				t.Fatalf("Validate(%s, %s) =\n%s\nwant\n%s", tt.tool, tt.in, err, strings.Join(tt.want, "\n"))
			}
		})
	}
	t.Run("go integer types", func(t *testing.T) {
		if err := Validate("Read", map[string]any{"file_path": "a", "offset": 3, "limit": int64(4)}); err != nil {
			t.Fatal(err)
		}
		if err := Validate("Read", map[string]any{"file_path": "a", "limit": json.Number("4")}); err != nil {
			t.Fatal(err)
		}
		if err := Validate("Read", map[string]any{"file_path": "a", "limit": json.Number("4.5")}); err == nil {
			t.Fatal("json.Number 4.5 accepted as an integer")
		}
	})
	t.Run("normalized aliases validate", func(t *testing.T) {
		in := Normalize("Edit", args(t, `{"path":"a","old":"x","new":"y"}`))
		if err := Validate("Edit", in); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("every catalog tool rejects unknown keys", func(t *testing.T) {
		for _, n := range Names() {
			err := Validate(n, map[string]any{"bogus_key": true})
			if err == nil || !strings.Contains(err.Error(), n+`: unknown argument "bogus_key"`) {
				t.Errorf("%s: Validate with unknown key = %v", n, err)
			}
		}
	})
}

func BenchmarkNormalizeValidate(b *testing.B) {
	var in map[string]any
	if err := json.Unmarshal([]byte(`{"questions":[{"question":"Which?","header":"h","options":[{"label":"a","description":"d"},{"label":"b"}],"multi_select":false}]}`), &in); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := Validate("AskUserQuestion", Normalize("AskUserQuestion", in)); err != nil {
			b.Fatal(err)
		}
	}
}

// The mode switches take Claude Code's input: EnterPlanMode none, and
// ExitPlanMode its plan with the optional allowedPrompts models trained
// on Claude Code send, each of them a Bash tool and a description, held
// as strictly as any argument: anything else is an error naming it.
func TestModeSwitchInput(t *testing.T) {
	for _, name := range []string{"EnterPlanMode", "ExitPlanMode"} {
		if !Known(name) || slices.Contains(Names(), name) {
			t.Errorf("%s: known %v, in the catalog %v; want known, and offered only by a session", name, Known(name), slices.Contains(Names(), name))
		}
	}
	for _, tc := range []struct {
		tool, in string
		want     string // the error; "" for none
	}{
		{"EnterPlanMode", `{}`, ""},
		{"EnterPlanMode", `{"plan": "x"}`, `EnterPlanMode: unknown argument "plan"`},
		{"ExitPlanMode", `{"plan": "1. x"}`, ""},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": []}`, ""},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}, {"tool": "Bash", "prompt": "install dependencies"}]}`, ""},
		// Claude Code 2.1 reads the plan from a file; gen has none.
		{"ExitPlanMode", `{"allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}]}`, `ExitPlanMode: missing required argument "plan"`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": [{"tool": "Bash"}]}`, `ExitPlanMode: missing required argument "allowedPrompts[0].prompt"`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": [{"tool": "Bash", "prompt": "run tests", "command": "go test ./..."}]}`, `ExitPlanMode: unknown argument "allowedPrompts[0].command"`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": [{"tool": "Edit", "prompt": "edit files"}]}`, `ExitPlanMode: argument "allowedPrompts[0].tool" must be one of Bash, got "Edit"`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": [{"tool": "Bash", "prompt": 3}]}`, `ExitPlanMode: argument "allowedPrompts[0].prompt" must be a string`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": [{"tool": "Bash", "prompt": ""}]}`, `ExitPlanMode: argument "allowedPrompts[0].prompt" must not be empty`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": ["run tests"]}`, `ExitPlanMode: argument "allowedPrompts[0]" must be an object`},
		{"ExitPlanMode", `{"plan": "1. x", "allowedPrompts": {"tool": "Bash", "prompt": "run tests"}}`, `ExitPlanMode: argument "allowedPrompts" must be an array`},
		{"ExitPlanMode", `{"plan": "1. x", "allowed_prompts": []}`, `ExitPlanMode: unknown argument "allowed_prompts"`},
	} {
		err := Validate(tc.tool, args(t, tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("Validate(%s, %s) = %q, want %q", tc.tool, tc.in, got, tc.want)
		}
	}
}
