package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/tool"
)

// TestOfflineEndToEnd drives the runner with the offline model: every
// directive becomes one call through the gate, and the final answer says
// what became of each.
func TestOfflineEndToEnd(t *testing.T) {
	all := []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch", "Agent"}
	tests := []struct {
		name      string
		prompt    string
		tools     []string // visible tools; nil means all
		deny      []string
		validate  func(string, map[string]any) error
		toolErr   map[string]error
		want      []string // final answer lines
		wantRuns  map[string]int
		wantInput map[string]map[string]any // the input each tool last ran with
		denials   []loop.Denial
	}{
		{
			name:      "allowed bash call runs and is reported",
			prompt:    "Please do this:\nRun bash: echo hi\n",
			want:      []string{"RESULT: Bash(echo hi) -> ALLOWED"},
			wantRuns:  map[string]int{"Bash": 1},
			wantInput: map[string]map[string]any{"Bash": {"command": "echo hi"}},
		},
		{
			name:     "denied call never runs and the model is told why",
			prompt:   "Run bash: rm -rf build",
			deny:     []string{"Bash"},
			want:     []string{"RESULT: Bash(rm -rf build) -> DENIED: Bash is not allowed here"},
			wantRuns: map[string]int{"Bash": 0},
			denials:  []loop.Denial{{ToolName: "Bash", ToolUseID: "call_1", ToolInput: map[string]any{"command": "rm -rf build"}, Reason: "Bash is not allowed here"}},
		},
		{
			name:     "a tool the agent cannot see is answered with the visible ones",
			prompt:   "Read: go.mod",
			tools:    []string{"Bash", "Glob"},
			want:     []string{`RESULT: Read(go.mod) -> ERROR: tool "Read" is not available; available tools: Bash, Glob`},
			wantRuns: map[string]int{"Bash": 0, "Glob": 0},
		},
		{
			name:     "with no tools at all the error says so",
			prompt:   "Glob: *.go",
			tools:    []string{},
			want:     []string{`RESULT: Glob(*.go) -> ERROR: tool "Glob" is not available; available tools: (none)`},
			wantRuns: map[string]int{},
		},
		{
			name:   "arguments the validator rejects never reach the gate or the tool",
			prompt: "Glob: \nGrep: TODO",
			validate: func(name string, in map[string]any) error {
				if in["pattern"] == "" {
					return fmt.Errorf("%s: argument %q must not be empty", name, "pattern")
				}
				return nil
			},
			want: []string{
				`RESULT: Glob() -> ERROR: Glob: argument "pattern" must not be empty`,
				"RESULT: Grep(TODO) -> ALLOWED",
			},
			wantRuns: map[string]int{"Glob": 0, "Grep": 1},
		},
		{
			name:     "a tool's own error is passed on",
			prompt:   "Read: missing.txt",
			toolErr:  map[string]error{"Read": errors.New("open missing.txt: no such file or directory\nsecond line")},
			want:     []string{"RESULT: Read(missing.txt) -> ERROR: open missing.txt: no such file or directory"},
			wantRuns: map[string]int{"Read": 1},
		},
		{
			name: "every directive form in order, one denied",
			prompt: strings.Join([]string{
				"Run bash: go test ./...",
				"not a directive",
				"Read: README.md",
				"Write notes.txt: a: b",
				"Edit main.go: foo => bar",
				"Glob: **/*.go",
				"Grep: func main",
				"Fetch: https://example.com/x",
				"Delegate explore: find the config loader",
			}, "\n"),
			deny: []string{"Write"},
			want: []string{
				"RESULT: Bash(go test ./...) -> ALLOWED",
				"RESULT: Read(README.md) -> ALLOWED",
				"RESULT: Write(notes.txt) -> DENIED: Write is not allowed here",
				"RESULT: Edit(main.go) -> ALLOWED",
				"RESULT: Glob(**/*.go) -> ALLOWED",
				"RESULT: Grep(func main) -> ALLOWED",
				"RESULT: WebFetch(https://example.com/x) -> ALLOWED",
				"RESULT: Agent(explore) -> ALLOWED",
			},
			wantRuns: map[string]int{"Bash": 1, "Read": 1, "Write": 0, "Edit": 1, "Glob": 1, "Grep": 1, "WebFetch": 1, "Agent": 1},
			wantInput: map[string]map[string]any{
				"Edit":  {"file_path": "main.go", "old_string": "foo", "new_string": "bar"},
				"Agent": {"subagent_type": "explore", "prompt": "find the config loader", "description": "find the config loader"},
			},
			denials: []loop.Denial{{ToolName: "Write", ToolUseID: "call_3", ToolInput: map[string]any{"file_path": "notes.txt", "content": "a: b"}, Reason: "Write is not allowed here"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := tt.tools
			if names == nil {
				names = all
			}
			tools := map[string]*fakeTool{}
			var list []*fakeTool
			for _, n := range names {
				ft := &fakeTool{name: n}
				if err := tt.toolErr[n]; err != nil {
					ft.fn = func(context.Context, map[string]any) (string, error) { return "", err }
				}
				tools[n] = ft
				list = append(list, ft)
			}
			g := &fakeGate{deny: map[string]bool{}}
			for _, d := range tt.deny {
				g.deny[d] = true
			}
			r := runner(offline.New(), g, list...)
			if tt.validate != nil {
				r.Validate = tt.validate
			}
			out, err := r.Run(context.Background(), "You are a test agent.", tt.prompt)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got, want := out.Final, strings.Join(tt.want, "\n"); got != want {
				t.Errorf("final answer:\n%s\nwant:\n%s", got, want)
			}
			if got, want := out.Turns, len(tt.want)+1; got != want {
				t.Errorf("Turns = %d, want %d", got, want)
			}
			for n, want := range tt.wantRuns {
				if got := tools[n].runs(); got != want {
					t.Errorf("%s ran %d times, want %d", n, got, want)
				}
			}
			for n, want := range tt.wantInput {
				ft := tools[n]
				if ft.runs() == 0 {
					t.Errorf("%s never ran", n)
					continue
				}
				if got := ft.inputs[len(ft.inputs)-1]; !reflect.DeepEqual(got, want) {
					t.Errorf("%s input = %v, want %v", n, got, want)
				}
			}
			if !reflect.DeepEqual(out.Denials, tt.denials) {
				t.Errorf("Denials = %#v, want %#v", out.Denials, tt.denials)
			}
			if out.Usage.TotalTokens == 0 {
				t.Error("Usage was not summed")
			}
		})
	}
}

// TestOfflineHelp checks that a prompt without directives ends at once.
func TestOfflineHelp(t *testing.T) {
	bash := &fakeTool{name: "Bash"}
	out, err := runner(offline.New(), &fakeGate{}, bash).Run(context.Background(), "", "hello there")
	if err != nil {
		t.Fatal(err)
	}
	if out.Turns != 1 || !strings.Contains(out.Final, "Run bash: CMD") || !strings.Contains(out.Final, "Delegate TYPE: TASK") {
		t.Errorf("Turns = %d, Final = %q; want one turn listing the directive forms", out.Turns, out.Final)
	}
	if bash.runs() != 0 {
		t.Error("a tool ran without a directive")
	}
}

// TestConversation checks exactly what the model is sent every turn.
func TestConversation(t *testing.T) {
	schemas := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "Bash", Parameters: map[string]any{"type": "object"}}}}
	m := turns(
		openai.ChatCompletionMessage{Content: "Let me look.", ToolCalls: []openai.ToolCall{tc("c1", "Bash", `{"command":"ls"}`)}},
		final("done"),
	)
	r := runner(m, &fakeGate{}, echoTools("Bash")...)
	r.Schemas = schemas
	out, err := r.Run(context.Background(), "SYSTEM", "PROMPT")
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "done" || out.Turns != 2 {
		t.Errorf("Outcome = %+v", out)
	}
	reqs := m.requests()
	if len(reqs) != 2 {
		t.Fatalf("model called %d times, want 2", len(reqs))
	}
	for i, req := range reqs {
		if !reflect.DeepEqual(req.Tools, schemas) {
			t.Errorf("turn %d: Tools = %v, want the Runner's Schemas", i+1, req.Tools)
		}
	}
	want := []openai.ChatCompletionMessage{
		{Role: "system", Content: "SYSTEM"},
		{Role: "user", Content: "PROMPT"},
		{Role: "assistant", Content: "Let me look.", ToolCalls: []openai.ToolCall{tc("c1", "Bash", `{"command":"ls"}`)}},
		{Role: "tool", ToolCallID: "c1", Content: "Bash ran"},
	}
	if got := reqs[0].Messages; !reflect.DeepEqual(got, want[:2]) {
		t.Errorf("turn 1 messages:\n%+v\nwant\n%+v", got, want[:2])
	}
	if got := reqs[1].Messages; !reflect.DeepEqual(got, want) {
		t.Errorf("turn 2 messages:\n%+v\nwant\n%+v", got, want)
	}
}

// A Reminder reaches the model with the prompt in every request of the
// run, and is not part of the conversation Continue returns: the next
// run's requests hold the earlier prompt as it was written.
func TestReminder(t *testing.T) {
	m := turns(
		calling(tc("c1", "Bash", `{"command":"ls"}`)),
		final("done"),
		final("again"),
	)
	r := runner(m, &fakeGate{}, echoTools("Bash")...)
	r.Reminder = "REMINDER"
	history := []openai.ChatCompletionMessage{{Role: "system", Content: "SYSTEM"}}
	_, msgs, err := r.Continue(context.Background(), history, "PROMPT")
	if err != nil {
		t.Fatal(err)
	}
	for i, req := range m.requests() {
		if got := req.Messages[1].Content; got != "PROMPT\n\nREMINDER" {
			t.Errorf("request %d: prompt %q, want it with the reminder", i+1, got)
		}
	}
	if len(msgs) != 5 || msgs[1].Content != "PROMPT" {
		t.Fatalf("conversation %+v, want the prompt as written", msgs)
	}
	r.Reminder = ""
	if _, _, err := r.Continue(context.Background(), msgs, "NEXT"); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	last := reqs[len(reqs)-1].Messages
	if last[1].Content != "PROMPT" || last[len(last)-1].Content != "NEXT" {
		t.Errorf("next run's request %+v, want both prompts as written", last)
	}
}

// What a hook added to a prompt (Context) is part of the conversation,
// as a message of its own after the prompt's: the model sees it joined
// to the prompt in every request, of this run and the next, never as a
// named message nor as a second user message in a row, and a Reminder
// comes after it.
func TestContext(t *testing.T) {
	m := turns(
		calling(tc("c1", "Bash", `{"command":"ls"}`)),
		final("done"),
		final("again"),
	)
	r := runner(m, &fakeGate{}, echoTools("Bash")...)
	r.Context, r.Reminder = "CONTEXT", "REMINDER"
	history := []openai.ChatCompletionMessage{{Role: "system", Content: "SYSTEM"}}
	_, msgs, err := r.Continue(context.Background(), history, "PROMPT")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6 || msgs[1].Content != "PROMPT" || msgs[1].Name != "" ||
		msgs[2].Role != openai.ChatMessageRoleUser || msgs[2].Name != loop.ContextName || msgs[2].Content != "CONTEXT" {
		t.Fatalf("conversation %+v, want the prompt as written, then the context as a message of its own", msgs)
	}
	for i, req := range m.requests() {
		if got := req.Messages[1].Content; got != "PROMPT\n\nCONTEXT\n\nREMINDER" {
			t.Errorf("request %d: prompt %q, want it with the context, then the reminder", i+1, got)
		}
	}
	r.Context, r.Reminder = "", ""
	if _, _, err := r.Continue(context.Background(), msgs, "NEXT"); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	last := reqs[len(reqs)-1].Messages
	if len(last) != 6 || last[1].Content != "PROMPT\n\nCONTEXT" || last[5].Content != "NEXT" {
		t.Errorf("next run's request %+v, want the earlier prompt with its context, and the new one", last)
	}
	for _, msg := range last {
		if msg.Name != "" {
			t.Errorf("a request holds the named message %+v", msg)
		}
	}
}

// TestArguments covers what happens to the arguments of one call before
// the tool runs.
func TestArguments(t *testing.T) {
	tests := []struct {
		name      string
		args      string
		normalize func(string, map[string]any) map[string]any
		validate  func(string, map[string]any) error
		want      string // the tool message
		wantInput map[string]any
	}{
		{
			name: "invalid JSON is reported with the parser's message",
			args: `{"command": "ls"`,
			want: "ERROR: the arguments for Bash are not valid JSON: unexpected end of JSON input; send one JSON object",
		},
		{
			name: "trailing garbage is invalid JSON",
			args: `{"command": "ls"} {"command": "rm -rf /"}`,
			want: "ERROR: the arguments for Bash are not valid JSON: invalid character '{' after top-level value; send one JSON object",
		},
		{
			name: "an array is not an object",
			args: `["ls"]`,
			want: "ERROR: the arguments for Bash are not valid JSON: the arguments are a JSON array, not an object; send one JSON object",
		},
		{
			name: "null is not an empty object",
			args: `null`,
			want: "ERROR: the arguments for Bash are not valid JSON: the arguments are a JSON null, not an object; send one JSON object",
		},
		{
			name: "empty arguments are not an empty object",
			args: ` `,
			want: "ERROR: the arguments for Bash are not valid JSON: the arguments are empty (for no arguments send {}); send one JSON object",
		},
		{
			name: "validation errors are passed on verbatim",
			args: `{"command": 7}`,
			validate: func(name string, in map[string]any) error {
				if _, ok := in["command"].(string); !ok {
					return fmt.Errorf("%s: argument %q must be a string, got number", name, "command")
				}
				return nil
			},
			want: `ERROR: Bash: argument "command" must be a string, got number`,
		},
		{
			name: "aliases are normalised before the gate and the tool see them",
			args: `{"cmd": "ls -l"}`,
			normalize: func(_ string, in map[string]any) map[string]any {
				out := map[string]any{}
				for k, v := range in {
					if k == "cmd" {
						k = "command"
					}
					out[k] = v
				}
				return out
			},
			validate: func(name string, in map[string]any) error {
				if _, ok := in["command"]; !ok {
					return errors.New("validated before normalising")
				}
				return nil
			},
			want:      "Bash ran",
			wantInput: map[string]any{"command": "ls -l"},
		},
		{
			name:      "empty output is replaced so the message has content",
			args:      `{"command": "true", "quiet": true}`,
			want:      "(no output)",
			wantInput: map[string]any{"command": "true", "quiet": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := turns(calling(tc("c1", "Bash", tt.args)), final("ok"))
			bash := &fakeTool{name: "Bash", fn: func(_ context.Context, in map[string]any) (string, error) {
				if in["quiet"] == true {
					return "", nil
				}
				return "Bash ran", nil
			}}
			g := &fakeGate{}
			r := runner(m, g, bash)
			if tt.normalize != nil {
				r.Normalize = tt.normalize
			}
			if tt.validate != nil {
				r.Validate = tt.validate
			}
			if _, err := r.Run(context.Background(), "", "go"); err != nil {
				t.Fatal(err)
			}
			msgs := toolMessages(t, m)
			if len(msgs) != 1 || msgs[0].Content != tt.want || msgs[0].ToolCallID != "c1" {
				t.Fatalf("tool messages = %+v, want one for c1 saying %q", msgs, tt.want)
			}
			if tt.wantInput == nil {
				if bash.runs() != 0 || len(g.reqs) != 0 {
					t.Errorf("rejected call reached the gate (%d) or ran (%d)", len(g.reqs), bash.runs())
				}
				return
			}
			if bash.runs() != 1 || !reflect.DeepEqual(bash.inputs[0], tt.wantInput) {
				t.Errorf("tool inputs = %v, want [%v]", bash.inputs, tt.wantInput)
			}
			if len(g.reqs) != 1 || !reflect.DeepEqual(g.reqs[0], perm.Request{Tool: "Bash", Input: tt.wantInput}) {
				t.Errorf("gate requests = %+v", g.reqs)
			}
		})
	}
}

// TestDefaultSchema checks that a Runner without Normalize and Validate
// uses package schema's.
func TestDefaultSchema(t *testing.T) {
	m := turns(
		calling(tc("c1", "Bash", `{"cmd": "ls"}`), tc("c2", "Bash", `{"command": "ls", "cwd": "/"}`)),
		final("ok"),
	)
	bash := &fakeTool{name: "Bash"}
	r := &loop.Runner{Model: m, Gate: &fakeGate{}, Tools: []tool.Tool{bash}}
	if _, err := r.Run(context.Background(), "", "go"); err != nil {
		t.Fatal(err)
	}
	if bash.runs() != 1 || !reflect.DeepEqual(bash.inputs[0], map[string]any{"command": "ls"}) {
		t.Errorf("inputs = %v, want the alias cmd normalised to command, and only that call run", bash.inputs)
	}
	msgs := toolMessages(t, m)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[1].Content, "ERROR: ") || !strings.Contains(msgs[1].Content, `"cwd"`) {
		t.Errorf("tool messages = %+v, want the second to reject the unknown argument cwd", msgs)
	}
}

// TestRepetition checks the breaker for a model stuck on one call.
func TestRepetition(t *testing.T) {
	ls := `{"command":"ls"}`
	tests := []struct {
		name     string
		turns    [][]string // per turn, the arguments of each Bash call; then a final answer
		wantRuns int
		wantErr  error
		want     []string // tool message contents, in order
	}{
		{
			name:     "the third and fourth identical calls are refused and the fifth ends the run",
			turns:    [][]string{{ls}, {ls}, {ls}, {ls}, {ls}},
			wantRuns: 2,
			wantErr:  loop.ErrRepeating,
			want: []string{"Bash ran", "Bash ran",
				"ERROR: identical call repeated 3 times; try something else",
				"ERROR: identical call repeated 4 times; try something else"},
		},
		{
			name:     "identical calls within one message count too",
			turns:    [][]string{{ls, ls, ls, ls, ls}},
			wantRuns: 2,
			wantErr:  loop.ErrRepeating,
		},
		{
			name:     "a different call in between resets the count",
			turns:    [][]string{{ls}, {ls}, {`{"command":"pwd"}`}, {ls}, {ls}},
			wantRuns: 5,
			want:     []string{"Bash ran", "Bash ran", "Bash ran", "Bash ran", "Bash ran"},
		},
		{
			name:     "key order and white space do not make a call different",
			turns:    [][]string{{`{"a":1,"command":"ls"}`}, {`{ "command": "ls", "a": 1 }`}, {`{"command":"ls","a":1.0}`}},
			wantRuns: 2,
			want:     []string{"Bash ran", "Bash ran", "ERROR: identical call repeated 3 times; try something else"},
		},
		{
			name:     "repeated invalid JSON is caught as well",
			turns:    [][]string{{`{`}, {`{`}, {`{`}, {`{`}, {`{`}},
			wantRuns: 0,
			wantErr:  loop.ErrRepeating,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []openai.ChatCompletionMessage
			n := 0
			for _, turn := range tt.turns {
				var calls []openai.ToolCall
				for _, a := range turn {
					n++
					calls = append(calls, tc(fmt.Sprintf("c%d", n), "Bash", a))
				}
				msgs = append(msgs, calling(calls...))
			}
			m := turns(append(msgs, final("done"))...)
			bash := echoTools("Bash")[0]
			out, err := runner(m, &fakeGate{}, bash).Run(context.Background(), "", "go")
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Run error = %v, want %v", err, tt.wantErr)
			}
			if bash.runs() != tt.wantRuns {
				t.Errorf("Bash ran %d times, want %d", bash.runs(), tt.wantRuns)
			}
			if out.Turns != len(tt.turns)+btoi(tt.wantErr == nil) {
				t.Errorf("Turns = %d", out.Turns)
			}
			if tt.want != nil {
				var got []string
				for _, m := range toolMessages(t, m) {
					got = append(got, m.Content)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("tool messages:\n%q\nwant\n%q", got, tt.want)
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestMaxTurns checks the turn limit and its default.
func TestMaxTurns(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		wantRuns int
	}{
		{"a limit of one turn runs no tool", 1, 0},
		{"the calls of the last allowed turn are not made", 3, 2},
		{"zero means fifty", 0, 49},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Never finishes, and never repeats itself.
			m := &scripted{reply: func(_ context.Context, turn int, _ loop.Request) (loop.Response, error) {
				return loop.Response{
					Message: calling(tc(fmt.Sprint("c", turn), "Bash", args(map[string]any{"command": fmt.Sprint("echo ", turn)}))),
					Usage:   openai.Usage{PromptTokens: 2, CompletionTokens: 1, TotalTokens: 3},
				}, nil
			}}
			bash := echoTools("Bash")[0]
			r := runner(m, &fakeGate{}, bash)
			r.MaxTurns = tt.max
			out, err := r.Run(context.Background(), "", "go")
			if !errors.Is(err, loop.ErrMaxTurns) {
				t.Fatalf("Run error = %v, want ErrMaxTurns", err)
			}
			wantTurns := tt.wantRuns + 1
			if out.Turns != wantTurns || bash.runs() != tt.wantRuns {
				t.Errorf("Turns = %d, runs = %d; want %d, %d", out.Turns, bash.runs(), wantTurns, tt.wantRuns)
			}
			if want := (openai.Usage{PromptTokens: 2 * wantTurns, CompletionTokens: wantTurns, TotalTokens: 3 * wantTurns}); out.Usage != want {
				t.Errorf("Usage = %+v, want %+v (summed even when the run fails)", out.Usage, want)
			}
		})
	}
}

// TestParallelAgents checks that consecutive Agent calls overlap in time,
// keep their order, and that other calls stay sequential.
func TestParallelAgents(t *testing.T) {
	const n = 3
	var (
		mu      sync.Mutex
		arrived int
		all     = make(chan struct{})
		order   []string
	)
	finished := make([]chan struct{}, n)
	for i := range finished {
		finished[i] = make(chan struct{})
	}
	agent := &fakeTool{name: "Agent", fn: func(ctx context.Context, in map[string]any) (string, error) {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		// The barrier: no Agent call returns before all have started,
		// which only parallel calls can achieve.
		select {
		case <-all:
		case <-time.After(60 * time.Second):
			return "", errors.New("the Agent calls did not overlap")
		}
		// The first call finishes last: each waits for the next one.
		i := int(in["i"].(float64))
		if i+1 < n {
			select {
			case <-finished[i+1]:
			case <-time.After(60 * time.Second):
				return "", errors.New("the Agent calls did not overlap")
			}
		}
		mu.Lock()
		order = append(order, fmt.Sprint("agent ", i))
		mu.Unlock()
		close(finished[i])
		return fmt.Sprint("agent ", i, " done"), nil
	}}
	bash := &fakeTool{name: "Bash", fn: func(context.Context, map[string]any) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "bash")
		return "bash done", nil
	}}
	m := turns(
		calling(
			tc("a0", "Agent", `{"i":0}`), tc("a1", "Agent", `{"i":1}`), tc("a2", "Agent", `{"i":2}`),
			tc("b", "Bash", `{"command":"ls"}`),
		),
		final("ok"),
	)
	g := &fakeGate{deny: map[string]bool{}}
	var events []loop.Event
	r := runner(m, g, agent, bash)
	r.OnEvent = func(e loop.Event) { events = append(events, e) }
	if _, err := r.Run(context.Background(), "", "go"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range toolMessages(t, m) {
		got = append(got, msg.ToolCallID+"="+msg.Content)
	}
	want := []string{"a0=agent 0 done", "a1=agent 1 done", "a2=agent 2 done", "b=bash done"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tool messages %q, want %q", got, want)
	}
	if wantOrder := []string{"agent 2", "agent 1", "agent 0", "bash"}; !reflect.DeepEqual(order, wantOrder) {
		t.Errorf("completion order %q, want %q: Bash must wait for the Agent batch", order, wantOrder)
	}
	// Decisions of a parallel batch are reported after it, in call order.
	var seq []string
	for _, e := range events {
		if e.Kind == loop.EventDecision || e.Kind == loop.EventToolResult || e.Kind == loop.EventToolCall {
			seq = append(seq, string(e.Kind)+":"+e.CallID)
		}
	}
	wantSeq := []string{
		"tool_call:a0", "tool_call:a1", "tool_call:a2",
		"decision:a0", "tool_result:a0", "decision:a1", "tool_result:a1", "decision:a2", "tool_result:a2",
		"tool_call:b", "decision:b", "tool_result:b",
	}
	if !reflect.DeepEqual(seq, wantSeq) {
		t.Errorf("events\n%q\nwant\n%q", seq, wantSeq)
	}
}

// TestParallelLimit checks that at most four Agent calls run at once and
// that denials inside a batch are recorded in call order.
func TestParallelLimit(t *testing.T) {
	var cur, peak atomic.Int32
	agent := &fakeTool{name: "Agent", fn: func(_ context.Context, in map[string]any) (string, error) {
		c := cur.Add(1)
		for {
			p := peak.Load()
			if c <= p || peak.CompareAndSwap(p, c) {
				break
			}
		}
		time.Sleep(40 * time.Millisecond)
		cur.Add(-1)
		return fmt.Sprint(in["subagent_type"]), nil
	}}
	var calls []openai.ToolCall
	for i := range 7 {
		typ := "worker"
		if i == 2 || i == 5 {
			typ = "forbidden"
		}
		calls = append(calls, tc(fmt.Sprint("a", i), "Agent", args(map[string]any{"subagent_type": typ, "n": i})))
	}
	m := turns(calling(calls...), final("ok"))
	g := gateFunc(func(req perm.Request) perm.Result {
		if req.Input["subagent_type"] == "forbidden" {
			return perm.Result{Decision: perm.Deny, Reason: fmt.Sprint("no ", req.Input["n"])}
		}
		return perm.Result{Decision: perm.Allow}
	})
	r := &loop.Runner{Model: m, Gate: g, Tools: []tool.Tool{agent}, Normalize: identity, Validate: accept}
	out, err := r.Run(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > 4 || p < 2 {
		t.Errorf("peak concurrency %d, want between 2 and 4", p)
	}
	if agent.runs() != 5 {
		t.Errorf("Agent ran %d times, want 5", agent.runs())
	}
	var reasons []string
	for _, d := range out.Denials {
		reasons = append(reasons, d.Reason)
	}
	if want := []string{"no 2", "no 5"}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("denials %q, want %q", reasons, want)
	}
	msgs := toolMessages(t, m)
	if len(msgs) != 7 || msgs[2].Content != "DENIED: no 2" || msgs[6].Content != "worker" {
		t.Errorf("tool messages = %+v", msgs)
	}
}

type gateFunc func(perm.Request) perm.Result

func (f gateFunc) Check(_ context.Context, req perm.Request) perm.Result { return f(req) }

// TestCancel checks that cancelling ctx ends the run promptly wherever it
// is waiting.
func TestCancel(t *testing.T) {
	blockTool := func(started chan<- struct{}) *fakeTool {
		return &fakeTool{name: "Agent", fn: func(ctx context.Context, _ map[string]any) (string, error) {
			started <- struct{}{}
			<-ctx.Done()
			return "", ctx.Err()
		}}
	}
	tests := []struct {
		name  string
		calls int // parallel Agent calls the model makes; 0: the model blocks
	}{
		{name: "while the model thinks"},
		{name: "while a tool runs", calls: 1},
		{name: "while parallel agents run", calls: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{}, 8)
			m := &scripted{reply: func(ctx context.Context, turn int, _ loop.Request) (loop.Response, error) {
				if tt.calls == 0 || turn > 1 {
					started <- struct{}{}
					<-ctx.Done()
					return loop.Response{}, errors.New("request aborted")
				}
				var calls []openai.ToolCall
				for i := range tt.calls {
					calls = append(calls, tc(fmt.Sprint("a", i), "Agent", fmt.Sprintf(`{"i":%d}`, i)))
				}
				return loop.Response{Message: calling(calls...)}, nil
			}}
			agent := blockTool(started)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := runner(m, &fakeGate{}, agent).Run(ctx, "", "go")
				done <- err
			}()
			for range max(tt.calls, 1) {
				select {
				case <-started:
				case <-time.After(60 * time.Second):
					t.Fatal("the run never blocked where expected")
				}
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run error = %v, want context.Canceled", err)
				}
			case <-time.After(60 * time.Second): // hang guard
				t.Fatal("Run did not return after cancellation")
			}
			if got := len(m.requests()); got != 1 {
				t.Errorf("model called %d times, want 1: no turn after cancellation", got)
			}
		})
	}
}

// TestEvents checks the event stream of a run and its stream-json form.
func TestEvents(t *testing.T) {
	g := &fakeGate{deny: map[string]bool{"Write": true}}
	var events []loop.Event
	r := runner(offline.New(), g, echoTools("Bash", "Write")...)
	r.OnEvent = func(e loop.Event) { events = append(events, e) }
	out, err := r.Run(context.Background(), "", "Run bash: ls\nWrite a.txt: hi\nGlob: *")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		if e.Agent != "main" {
			t.Errorf("event %v has Agent %q", e.Kind, e.Agent)
		}
		kinds = append(kinds, string(e.Kind))
	}
	want := []string{
		"init",
		"tool_call", "decision", "tool_result",
		"text", "tool_call", "decision", "tool_result",
		"text", "tool_call", "tool_result", // Glob is not available: no decision
		"final",
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("events\n%q\nwant\n%q", kinds, want)
	}
	last := events[len(events)-1]
	if last.Text != out.Final || last.Turns != 4 || last.IsError {
		t.Errorf("final event %+v does not match the outcome %+v", last, out)
	}

	lines := map[int]string{
		0: `{"type":"init","agent":"main","tools":["Bash","Write"]}`,
		6: `{"type":"decision","agent":"main","call_id":"call_2","tool":"Write","input":{"content":"hi","file_path":"a.txt"},"denied":true,` +
			`"result":{"decision":"deny","step":1,"reason":"Write is not allowed here","rule":"Write","source":"project"}}`,
		7: `{"type":"tool_result","agent":"main","call_id":"call_2","tool":"Write","input":{"content":"hi","file_path":"a.txt"},"output":"DENIED: Write is not allowed here","is_error":true,"denied":true}`,
		3: `{"type":"tool_result","agent":"main","call_id":"call_1","tool":"Bash","input":{"command":"ls"},"output":"Bash ran"}`,
	}
	for i, want := range lines {
		b, err := json.Marshal(events[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("event %d as JSON:\n%s\nwant\n%s", i, b, want)
		}
	}
}

// TestErrorEvents checks that a failed run still ends with a final event.
func TestErrorEvents(t *testing.T) {
	m := &scripted{reply: func(context.Context, int, loop.Request) (loop.Response, error) {
		return loop.Response{}, errors.New("HTTP 400: bad model")
	}}
	var events []loop.Event
	r := runner(m, &fakeGate{})
	r.OnEvent = func(e loop.Event) { events = append(events, e) }
	_, err := r.Run(context.Background(), "", "go")
	if err == nil || !strings.Contains(err.Error(), "turn 1: model: HTTP 400: bad model") {
		t.Fatalf("Run error = %v", err)
	}
	if len(events) != 2 || events[1].Kind != loop.EventFinal || !events[1].IsError || events[1].Text != err.Error() {
		t.Errorf("events = %+v, want init and an error final", events)
	}
}

// TestRunnerErrors checks the configurations Run refuses.
func TestRunnerErrors(t *testing.T) {
	m := turns(final("x"))
	tests := []struct {
		name string
		r    *loop.Runner
		want string
	}{
		{"no model", &loop.Runner{Gate: &fakeGate{}}, "Model is nil"},
		{"no gate", &loop.Runner{Model: m}, "Gate is nil"},
		{"a tool listed twice", &loop.Runner{Model: m, Gate: &fakeGate{}, Tools: []tool.Tool{&fakeTool{name: "Read"}, &fakeTool{name: "Read"}}}, `tool "Read" is listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.r.Run(context.Background(), "", "go")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if len(m.requests()) != 0 {
		t.Error("the model was called by a misconfigured Runner")
	}
}

// TestMissingIDs checks that calls without an ID get one that the tool
// message repeats.
func TestMissingIDs(t *testing.T) {
	m := turns(calling(tc("", "Bash", `{"command":"a"}`), tc("", "Bash", `{"command":"b"}`)), final("ok"))
	if _, err := runner(m, &fakeGate{}, echoTools("Bash")...).Run(context.Background(), "", "go"); err != nil {
		t.Fatal(err)
	}
	msgs := m.requests()[1].Messages
	asst, tools := msgs[1], msgs[2:]
	if len(tools) != 2 {
		t.Fatalf("messages = %+v", msgs)
	}
	seen := map[string]bool{}
	for i, c := range asst.ToolCalls {
		if c.ID == "" || seen[c.ID] || tools[i].ToolCallID != c.ID {
			t.Errorf("call %d: ID %q, tool message for %q", i, c.ID, tools[i].ToolCallID)
		}
		seen[c.ID] = true
	}
}

// TestNestedRun checks that a run started inside a tool (delegation) keeps
// its decisions and denials to itself.
func TestNestedRun(t *testing.T) {
	var inner loop.Outcome
	var innerEvents []loop.Event
	agent := &fakeTool{name: "Agent", fn: func(ctx context.Context, in map[string]any) (string, error) {
		sub := runner(offline.New(), &fakeGate{deny: map[string]bool{"Bash": true}}, echoTools("Bash")...)
		sub.Agent = "sub"
		sub.OnEvent = func(e loop.Event) { innerEvents = append(innerEvents, e) }
		out, err := sub.Run(ctx, "", in["prompt"].(string))
		inner = out
		return out.Final, err
	}}
	m := turns(calling(tc("a", "Agent", `{"prompt":"Run bash: rm -rf /"}`)), final("ok"))
	var events []loop.Event
	r := runner(m, &fakeGate{}, agent)
	r.OnEvent = func(e loop.Event) { events = append(events, e) }
	out, err := r.Run(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Denials) != 0 || len(inner.Denials) != 1 {
		t.Errorf("outer denials %v, inner %v: want the denial only in the inner run", out.Denials, inner.Denials)
	}
	var decisions []string
	for _, e := range events {
		if e.Kind == loop.EventDecision {
			decisions = append(decisions, e.Tool+"="+e.Result.Decision.String())
		}
	}
	if want := []string{"Agent=allow"}; !reflect.DeepEqual(decisions, want) {
		t.Errorf("outer decisions %q, want %q", decisions, want)
	}
	for _, e := range innerEvents {
		if e.Agent != "sub" {
			t.Errorf("inner event %+v reported under agent %q", e, e.Agent)
		}
	}
	if msgs := toolMessages(t, m); msgs[0].Content != "RESULT: Bash(rm -rf /) -> DENIED: Bash is not allowed here" {
		t.Errorf("outer tool message %q", msgs[0].Content)
	}
}

// reporter is a tool that reports delegated work, as the Agent tool does.
type reporter struct{ rep tool.Report }

func (reporter) Name() string { return "Agent" }

func (r reporter) Run(ctx context.Context, call tool.Call) (string, error) {
	out, _, err := r.RunReport(ctx, call)
	return out, err
}

func (r reporter) RunReport(context.Context, tool.Call) (string, tool.Report, error) {
	return "delegated", r.rep, nil
}

// TestReportIsAggregated checks that a tool's Report (a subagent's usage
// and denials) reaches the run's Outcome where its call finished.
func TestReportIsAggregated(t *testing.T) {
	sub := tool.Denial{ToolName: "Bash", ToolInput: map[string]any{"command": "x"}, Reason: "[subagent s] no"}
	r := &loop.Runner{
		Model:     turns(calling(tc("a", "Agent", `{}`), tc("b", "Bash", `{}`)), final("done")),
		Gate:      &fakeGate{deny: map[string]bool{"Bash": true}},
		Tools:     []tool.Tool{reporter{tool.Report{Usage: openai.Usage{TotalTokens: 7}, Denials: []tool.Denial{sub}}}, echoTools("Bash")[0]},
		Normalize: identity, Validate: accept,
	}
	out, err := r.Run(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Denials) != 2 || out.Denials[0].Reason != sub.Reason || out.Denials[1].ToolName != "Bash" {
		t.Errorf("denials = %+v", out.Denials)
	}
	if out.Usage.TotalTokens != 7 {
		t.Errorf("usage = %+v", out.Usage)
	}
}

// deniedInside is allowed by the gate but then refused something it tried
// (as a WebFetch redirect is).
type deniedInside struct{}

func (deniedInside) Name() string { return "WebFetch" }

func (deniedInside) Run(context.Context, tool.Call) (string, error) {
	return "", fmt.Errorf("WebFetch: %w", &tool.DeniedError{Result: perm.Result{Decision: perm.Deny, Reason: "redirect refused"}})
}

// A denial raised inside an allowed tool is found with errors.Is and is a
// permission denial of the run.
func TestDenialInsideTool(t *testing.T) {
	m := turns(calling(tc("a", "WebFetch", `{}`)), final("done"))
	r := &loop.Runner{Model: m, Gate: &fakeGate{}, Tools: []tool.Tool{deniedInside{}}, Normalize: identity, Validate: accept}
	out, err := r.Run(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Denials) != 1 || out.Denials[0].Reason != "WebFetch: DENIED: redirect refused" {
		t.Errorf("denials = %+v", out.Denials)
	}
	if msgs := toolMessages(t, m); msgs[0].Content != "DENIED: WebFetch: DENIED: redirect refused" {
		t.Errorf("tool message %q", msgs[0].Content)
	}
}

// A halt asked for during a round of calls (a hook's "continue": false)
// ends the run after that round, every call of it made, without another
// model turn; Halt is asked after each round.
func TestHalt(t *testing.T) {
	m := turns(
		calling(tc("c1", "Bash", args(map[string]any{"command": "a"})), tc("c2", "Bash", args(map[string]any{"command": "b"}))),
		calling(tc("c3", "Bash", args(map[string]any{"command": "c"}))),
		final("never"),
	)
	bash := echoTools("Bash")[0]
	r := runner(m, &fakeGate{}, bash)
	asked := 0
	r.Halt = func() string {
		asked++
		if asked == 2 {
			return "a PostToolUse hook stopped the agent"
		}
		return ""
	}
	out, err := r.Run(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Halted != "a PostToolUse hook stopped the agent" || out.Turns != 2 || bash.runs() != 3 || len(m.requests()) != 2 {
		t.Errorf("Halted %q, %d turns, %d runs, %d model requests; want the halt after the second round (2 turns, 3 runs, 2 requests)",
			out.Halted, out.Turns, bash.runs(), len(m.requests()))
	}
}
