package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/internal/proctest"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/transcript"
)

// hookSettings is a settings file whose hooks run the scripts named per
// event (matcher "*"), each with a timeout of 30 s: SessionEnd's budget
// follows it, where 1.5 s would be tight on a loaded machine.
func hookSettings(t *testing.T, events map[string]string) string {
	t.Helper()
	m := map[string]any{}
	for ev, cmd := range events {
		m[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 30}}}}
	}
	b, err := json.Marshal(map[string]any{"hooks": m})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, s)
}

func (w *warnings) joined() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.list, "\n")
}

// readEvents returns the hook inputs the scripts appended to log, one
// JSON object a line.
func readEvents(t *testing.T, log string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	for line := range strings.Lines(string(data)) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		events = append(events, ev)
	}
	return events
}

// recorder is a model that records every request and answers with a fixed
// final text.
type recorder struct {
	mu   sync.Mutex
	reqs []loop.Request
}

func (r *recorder) Complete(_ context.Context, req loop.Request) (loop.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	var resp loop.Response
	resp.Message.Content = "done"
	return resp, nil
}

func TestLifecycleHooks(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	log := filepath.Join(scripts, "events.jsonl")
	rec := `cat >> ` + log + `; echo >> ` + log
	start := writeScript(t, scripts, "start.sh", rec+"\necho 'Project rule: answer in French.'")
	prompt := writeScript(t, scripts, "prompt.sh", rec+`
if grep -q secret `+log+`; then echo "prompt mentions a secret" >&2; exit 2; fi
echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Today is a holiday."}}'`)
	// Stop blocks once, then lets the agent stop.
	stop := writeScript(t, scripts, "stop.sh", rec+`
if [ -e `+scripts+`/stopped ]; then exit 0; fi
touch `+scripts+`/stopped
echo '{"decision": "block", "reason": "run the tests first"}'`)
	end := writeScript(t, scripts, "end.sh", rec)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{
		"SessionStart": start, "UserPromptSubmit": prompt, "Stop": stop, "SessionEnd": end,
	}))
	m := &recorder{}
	tpath := filepath.Join(home, "transcript.jsonl")
	s := newSession(t, root, home, m, nil, func(c *Config) { c.TranscriptPath = tpath })
	out, err := s.Submit(context.Background(), "hello", nil, nil)
	if err != nil || out.Final != "done" {
		t.Fatalf("Submit: %v %+v", err, out)
	}
	if len(m.reqs) != 2 {
		t.Fatalf("%d model turns, want 2 (the Stop hook kept the agent going once)", len(m.reqs))
	}
	first := m.reqs[0].Messages
	if !strings.Contains(first[0].Content, "Project rule: answer in French.") {
		t.Errorf("SessionStart context not in the system prompt: %q", first[0].Content)
	}
	if u := first[len(first)-1].Content; !strings.HasPrefix(u, "hello") || !strings.Contains(u, "Today is a holiday.") {
		t.Errorf("user message %q, want the prompt with the hook's context", u)
	}
	second := m.reqs[1].Messages
	if last := second[len(second)-1]; last.Role != "user" || last.Content != "run the tests first" {
		t.Errorf("after the Stop block the model got %+v", last)
	}

	// A second prompt: SessionStart does not run again; a blocked prompt
	// never reaches the model and leaves the conversation as it was.
	before := len(s.history)
	if _, err := s.Submit(context.Background(), "my secret is 42", nil, nil); !errors.Is(err, ErrPromptBlocked) || !strings.Contains(err.Error(), "prompt mentions a secret") {
		t.Fatalf("blocked prompt: %v", err)
	}
	if len(m.reqs) != 2 || len(s.history) != before {
		t.Errorf("a blocked prompt reached the model or the history")
	}

	// The session ends once, and its SessionEnd hooks run even though
	// the context is cancelled (the person pressed Ctrl+C to leave).
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	s.End(cancelled, "prompt_input_exit")
	s.End(context.Background(), "other")

	events := readEvents(t, log)
	var names []string
	sid := events[0]["session_id"]
	for _, ev := range events {
		names = append(names, ev["hook_event_name"].(string))
		if ev["session_id"] != sid || sid == "" || ev["cwd"] != root || ev["transcript_path"] != tpath {
			t.Errorf("event %v: session_id, transcript_path and cwd must be the session's", ev)
		}
	}
	if got, want := strings.Join(names, ","), "SessionStart,UserPromptSubmit,Stop,Stop,UserPromptSubmit,SessionEnd"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if r := events[len(events)-1]["reason"]; r != "prompt_input_exit" {
		t.Errorf("SessionEnd reason %v, want prompt_input_exit", r)
	}

	// A session that never started (no turn) ends without SessionEnd
	// hooks: they come in pairs with SessionStart.
	idle := newSession(t, root, home, m, nil, nil)
	idle.End(context.Background(), "other")
	if n := len(readEvents(t, log)); n != len(events) {
		t.Errorf("an idle session's End ran hooks: %d events, want %d", n, len(events))
	}
	if events[2]["stop_hook_active"] != false || events[3]["stop_hook_active"] != true {
		t.Errorf("stop_hook_active: %v then %v", events[2]["stop_hook_active"], events[3]["stop_hook_active"])
	}
}

// What a UserPromptSubmit hook adds reaches the model with the prompt,
// in that turn and the later ones, as in Claude Code, but it is not the
// person's words: the transcript keeps the prompt as typed and the
// context apart (a message named loop.ContextName), and a resumed
// session sends both as they were.
func TestPromptContextKeptApart(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{
		"UserPromptSubmit": writeScript(t, scripts, "prompt.sh", `cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Today is a holiday."}}'`),
	}))
	path := filepath.Join(t.TempDir(), "s.jsonl")
	record := func(c *Config) {
		c.TranscriptPath = path
		c.OnTurn = func(msgs []openai.ChatCompletionMessage) error {
			return transcript.Append(path, transcript.Meta{SessionID: "s"}, msgs)
		}
	}
	m := &recorder{}
	s := newSession(t, root, home, m, nil, record)
	for _, p := range []string{"hello", "again"} {
		if _, err := s.Submit(context.Background(), p, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The second turn's request holds both prompts, each with its
	// context, and no named message.
	var users []string
	for _, msg := range m.reqs[len(m.reqs)-1].Messages {
		if msg.Name != "" {
			t.Errorf("the model was sent the named message %+v", msg)
		}
		if msg.Role == openai.ChatMessageRoleUser {
			users = append(users, msg.Content)
		}
	}
	if want := []string{"hello\n\nToday is a holiday.", "again\n\nToday is a holiday."}; !slices.Equal(users, want) {
		t.Errorf("the second turn sent the prompts %q, want %q", users, want)
	}
	saved, err := transcript.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var prompts, contexts []string
	for _, msg := range saved {
		switch {
		case msg.Role != openai.ChatMessageRoleUser:
		case msg.Name == loop.ContextName:
			contexts = append(contexts, msg.Content)
		default:
			prompts = append(prompts, msg.Content)
		}
	}
	if !slices.Equal(prompts, []string{"hello", "again"}) || !slices.Equal(contexts, []string{"Today is a holiday.", "Today is a holiday."}) {
		t.Errorf("the transcript keeps the prompts %q and the contexts %q; want the prompts as typed, the contexts apart", prompts, contexts)
	}

	// Resumed, the model is sent the earlier prompts with their context.
	resumed := &recorder{}
	r := newSession(t, root, home, resumed, nil, func(c *Config) { record(c); c.History = saved })
	if _, err := r.Submit(context.Background(), "go on", nil, nil); err != nil {
		t.Fatal(err)
	}
	users = nil
	for _, msg := range resumed.reqs[0].Messages {
		if msg.Role == openai.ChatMessageRoleUser {
			users = append(users, msg.Content)
		}
	}
	if want := []string{"hello\n\nToday is a holiday.", "again\n\nToday is a holiday.", "go on\n\nToday is a holiday."}; !slices.Equal(users, want) {
		t.Errorf("the resumed session sent the prompts %q, want %q", users, want)
	}
}

// A stop hook that always blocks cannot keep the agent forever.
func TestStopHookBounded(t *testing.T) {
	root, home := project(t, nil)
	stop := writeScript(t, t.TempDir(), "stop.sh", `echo "keep going" >&2; exit 2`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"Stop": stop}))
	m := &recorder{}
	s := newSession(t, root, home, m, nil, nil)
	if _, err := s.Submit(context.Background(), "hello", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(m.reqs); n < 2 || n > 20 {
		t.Errorf("%d turns: the stop hook must keep the agent going, a bounded number of times", n)
	}
}

// Project hooks run only in a trusted project; untrusted, they are
// reported once, naming the file.
func TestProjectHooksNeedTrust(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted"}[trusted], func(t *testing.T) {
			root, home := project(t, nil)
			scripts := t.TempDir()
			marker := filepath.Join(scripts, "ran")
			pre := writeScript(t, scripts, "pre.sh", "touch "+marker)
			projFile := filepath.Join(root, ".gen", "settings.json")
			writeAt(t, projFile, hookSettings(t, map[string]string{"PreToolUse": pre}))
			writeAt(t, filepath.Join(root, "a.txt"), "x")
			var w warnings
			s := newSession(t, root, home, offline.New(), nil, func(c *Config) {
				c.Settings.Trust = trusted
				c.OnWarning = w.add
			})
			if _, err := s.Submit(context.Background(), "Read: a.txt", nil, nil); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(marker)
			if ran := err == nil; ran != trusted {
				t.Errorf("project hook ran: %v, want %v", ran, trusted)
			}
			warned := strings.Contains(w.joined(), projFile+": ignoring project hooks: the project "+root+" is not trusted")
			if warned == trusted {
				t.Errorf("warnings %q (trusted %v)", w.joined(), trusted)
			}
		})
	}
}

// The headless main loop: a PermissionRequest hook approves a call that
// would otherwise be denied (step 8).
func TestHeadlessPermissionRequest(t *testing.T) {
	root, home := project(t, nil)
	approve := writeScript(t, t.TempDir(), "approve.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PermissionRequest": approve}))
	s := newSession(t, root, home, offline.New(), nil, nil)
	out, err := s.Submit(context.Background(), "Write notes.txt: hi", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Denials) != 0 || !strings.Contains(out.Final, "Write(notes.txt) -> ALLOWED") {
		t.Errorf("final %q, denials %v", out.Final, out.Denials)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "hi" {
		t.Errorf("notes.txt = %q", b)
	}
}

// A PreToolUse "ask" goes to the person even where the policy would allow:
// the dialog's re-evaluation must not skip it.
func TestHookAskReachesThePerson(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "x"})
	ask := writeScript(t, t.TempDir(), "ask.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "audit"}}'`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PreToolUse": ask}))
	a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.No} }}
	s := newSession(t, root, home, offline.New(), a, nil)
	res := s.Check(context.Background(), perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}})
	if res.Decision != perm.Deny || len(a.got) != 1 || !strings.Contains(a.got[0].Result.Reason, "audit") {
		t.Errorf("got %v, asked %d times", res, len(a.got))
	}
}

// Settings with hooks that fail to parse stop the session with file:line.
func TestBrokenHooksFailClosed(t *testing.T) {
	root, home := project(t, nil)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), `{"hooks": {"PreToolUse": [{"matcher": "Bash",
  "hooks": [{"type": "prompt", "prompt": "x"}]}]}}`)
	_, err := New(Config{Settings: settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "none")}, Model: offline.New()})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, ".gen", "settings.json")+":2:") {
		t.Errorf("error %v, want one naming the file and line 2", err)
	}
}

// The Skill tool is offered, with the skills in its description, only
// when there are skills, and a bare Skill deny rule hides it.
func TestSkillToolOffered(t *testing.T) {
	skillFile := "---\nname: pdf\ndescription: Extract text from PDF files.\n---\nRun pdftotext.\n"
	tools := func(t *testing.T, files map[string]string) map[string]string {
		root, home := project(t, files)
		m := &recorder{}
		s := newSession(t, root, home, m, nil, nil)
		if _, err := s.Submit(context.Background(), "hi", nil, nil); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, tl := range m.reqs[0].Tools {
			out[tl.Function.Name] = tl.Function.Description
		}
		return out
	}
	got := tools(t, map[string]string{".gen/skills/pdf/SKILL.md": skillFile})
	if d, ok := got["Skill"]; !ok || !strings.Contains(d, "- pdf: Extract text from PDF files.") {
		t.Errorf("Skill tool %v: %q", ok, d)
	}
	if _, ok := tools(t, nil)["Skill"]; ok {
		t.Error("Skill tool offered without skills")
	}
	if _, ok := tools(t, map[string]string{".gen/skills/pdf/SKILL.md": skillFile, ".gen/settings.json": `{"permissions": {"deny": ["Skill"]}}`})["Skill"]; ok {
		t.Error("Skill tool offered despite a bare Skill deny rule")
	}
}

// A delegated subagent's hooks are told the session's transcript_path, as
// the main loop's are.
func TestSubagentHooksGetTranscriptPath(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "x"})
	log := filepath.Join(t.TempDir(), "events.jsonl")
	rec := writeScript(t, t.TempDir(), "rec.sh", `cat >> `+log+`; echo >> `+log)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PreToolUse": rec}))
	tpath := filepath.Join(home, "transcript.jsonl")
	yes := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.Yes} }}
	s := newSession(t, root, home, offline.New(), yes, func(c *Config) { c.TranscriptPath = tpath })
	if _, err := s.Submit(context.Background(), "Delegate Explore: Read: a.txt", nil, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	sub := 0
	for line := range strings.Lines(string(data)) {
		var ev map[string]any
		if strings.TrimSpace(line) == "" || json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		if ev["transcript_path"] != tpath {
			t.Errorf("event %v: transcript_path must be the session's %s", ev, tpath)
		}
		if ev["agent_type"] == "Explore" {
			sub++
		}
	}
	if sub == 0 {
		t.Errorf("no PreToolUse event of the Explore subagent in %s", data)
	}
}

// A permission dialog runs the Notification hooks beside it, told
// permission_prompt; a tool that fails runs the PostToolUseFailure hooks,
// whose additionalContext the model is told with the error.
func TestNotificationAndFailureHooks(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	note := filepath.Join(scripts, "notification.json")
	fail := filepath.Join(scripts, "failure.json")
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{
		"Notification":       writeScript(t, scripts, "notify.sh", "cat > "+note+".tmp && mv "+note+".tmp "+note),
		"PostToolUseFailure": writeScript(t, scripts, "fail.sh", "cat > "+fail+"\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUseFailure\", \"additionalContext\": \"Files live under src/.\"}}'"),
	}))
	// The person answers once the notification went out: the hook runs
	// beside the dialog, not before it, so the dialog waits for it here.
	a := &approver{answer: func(gate.Approval) gate.Reply {
		for i := 0; i < 3000; i++ {
			if _, err := os.Stat(note); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		return gate.Reply{Choice: gate.No}
	}}
	s := newSession(t, root, home, offline.New(), a, nil)
	if _, err := s.Submit(context.Background(), "Run bash: touch x\nRead: missing.txt", nil, nil); err != nil {
		t.Fatal(err)
	}
	var n, f map[string]any
	for path, v := range map[string]*map[string]any{note: &n, fail: &f} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	if n["hook_event_name"] != "Notification" || n["notification_type"] != "permission_prompt" || n["message"] != "gen needs your permission to use Bash" {
		t.Errorf("Notification input %v", n)
	}
	if f["hook_event_name"] != "PostToolUseFailure" || f["tool_name"] != "Read" || !strings.Contains(fmt.Sprint(f["error"]), "missing.txt") || f["is_interrupt"] != false {
		t.Errorf("PostToolUseFailure input %v", f)
	}
	var told string
	for _, m := range s.History() {
		if m.Role == "tool" && strings.Contains(m.Content, "missing.txt") {
			told = m.Content
		}
	}
	if !strings.HasSuffix(told, "\n\nFiles live under src/.") {
		t.Errorf("the model was told %q, want the error and the hook's context", told)
	}
}

// A call the person interrupts (the turn's context cancelled while it
// runs: Esc, Ctrl+C, SIGINT) runs the PostToolUseFailure hooks told
// is_interrupt, as in Claude Code, though the turn's context is done.
func TestInterruptedCallRunsFailureHooks(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	fail := filepath.Join(scripts, "failure.json")
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{
		"PostToolUseFailure": writeScript(t, scripts, "fail.sh", "cat > "+fail+".tmp && mv "+fail+".tmp "+fail),
	}))
	a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.Yes} }}
	s := newSession(t, root, home, offline.New(), a, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := filepath.Join(root, "started")
	go func() {
		// Interrupt once the command runs.
		for i := 0; i < 3000; i++ {
			if _, err := os.Stat(started); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := s.Submit(ctx, "Run bash: touch started && sleep 300", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted turn: %v", err)
	}
	data, err := os.ReadFile(fail)
	if err != nil {
		t.Fatalf("the PostToolUseFailure hook did not run: %v", err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	in, _ := f["tool_input"].(map[string]any)
	if f["hook_event_name"] != "PostToolUseFailure" || f["tool_name"] != "Bash" || in["command"] != "touch started && sleep 300" || f["is_interrupt"] != true || !strings.Contains(fmt.Sprint(f["error"]), "cancel") {
		t.Errorf("PostToolUseFailure input %v", f)
	}
}

// A session ended after Ctrl+C (its context cancelled) still runs its
// SessionEnd hooks, but for at most endAfterInterrupt, whatever their
// budget, so that they end before gen does.
func TestSessionEndAfterInterrupt(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	started := filepath.Join(scripts, "started")
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "timeout": 50, "command": `+
		strconv.Quote(writeScript(t, scripts, "end.sh", "touch "+started+"; sleep 300"))+`}]}]}}`)
	var mu sync.Mutex
	var warns []string
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) {
		c.OnWarning = func(w string) { mu.Lock(); warns = append(warns, w); mu.Unlock() }
	})
	if _, err := s.Submit(context.Background(), "hello", nil, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.End(ctx, "other")
	if _, err := os.Stat(started); err != nil {
		t.Fatalf("the SessionEnd hook did not run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warns) != 1 || !strings.Contains(warns[0], "cancelled (context deadline exceeded)") {
		t.Errorf("warnings %q, want the hook cut at endAfterInterrupt, before its 50 s budget", warns)
	}
}

// A Notification hook still running when the session ends is stopped
// with it: End waits for it, and nothing it started outlives the session.
func TestNotificationStopsWithSession(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	pidFile := filepath.Join(scripts, "pid")
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{
		"Notification": writeScript(t, scripts, "notify.sh", "sleep 300 &\necho $! > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"\nwait"),
	}))
	s := newSession(t, root, home, offline.New(), nil, nil)
	s.Notify(context.Background(), "gen is waiting for your input", "idle_prompt")
	var pid int
	for i := 0; i < 3000 && pid == 0; i++ {
		if data, err := os.ReadFile(pidFile); err == nil {
			fmt.Sscan(string(data), &pid)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if pid == 0 {
		t.Fatal("the Notification hook did not start")
	}
	s.End(context.Background(), "other")
	if proctest.Alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the hook's sleep %d outlived the session", pid)
	}
	// Once the session has ended, Notify runs nothing.
	os.Remove(pidFile)
	s.Notify(context.Background(), "again", "idle_prompt")
	s.End(context.Background(), "other")
	if _, err := os.Stat(pidFile); err == nil {
		t.Error("a Notification hook ran after the session ended")
	}
}

// Start runs the SessionStart hooks as the session opens, once: the first
// turn does not run them again, and their context is in its system
// prompt.
func TestStartRunsSessionStart(t *testing.T) {
	root, home := project(t, nil)
	scripts := t.TempDir()
	log := filepath.Join(scripts, "events.jsonl")
	start := writeScript(t, scripts, "start.sh", "cat >> "+log+"; echo >> "+log+"\necho 'Branch: main'")
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"SessionStart": start}))
	m := &recorder{}
	s := newSession(t, root, home, m, nil, nil)
	s.Start(context.Background())
	if n := len(readEvents(t, log)); n != 1 {
		t.Fatalf("%d SessionStart runs after Start, want 1", n)
	}
	s.Start(context.Background())
	if _, err := s.Submit(context.Background(), "hello", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(readEvents(t, log)); n != 1 {
		t.Errorf("%d SessionStart runs after a second Start and a turn, want 1", n)
	}
	if sys := m.reqs[0].Messages[0].Content; !strings.HasSuffix(sys, "\n\nBranch: main") {
		t.Errorf("system prompt %q, want the hook's context at its end", sys)
	}
}

// An ask rule a PermissionRequest hook added for the session holds at
// the dialog: the person is asked about the call it covers, which the
// session's own policy (without the rule) would allow.
func TestHookSessionAskRuleReachesThePerson(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "x"})
	hook := writeScript(t, t.TempDir(), "ask.sh", `grep -q '"tool_name": *"Write"' || exit 0
echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "cat:*"}], "behavior": "ask", "destination": "session"}]}}}'`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PermissionRequest": hook}))
	a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.No} }}
	s := newSession(t, root, home, offline.New(), a, nil)
	if r := s.Check(context.Background(), perm.Request{Tool: "Write", Input: map[string]any{"file_path": "n.txt", "content": "x"}}); r.Decision != perm.Allow || a.count() != 0 {
		t.Fatalf("write: %+v, asked %d times", r, a.count())
	}
	r := s.Check(context.Background(), perm.Request{Tool: "Bash", Input: map[string]any{"command": "cat a.txt"}})
	if r.Decision != perm.Deny || a.count() != 1 {
		t.Errorf("cat under the hook's ask rule: %+v, the person asked %d times", r, a.count())
	}
}
