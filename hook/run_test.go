package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/proctest"
)

// hookSpec is one hook for newRunner: a bash script body and its options.
type hookSpec struct {
	matcher string
	body    string
	timeout float64
}

// newRunner writes each hook's body to a script in a temporary directory
// and returns a Runner with those hooks configured for ev, one group per
// hook, in order, plus the directory.
func newRunner(t *testing.T, ev Event, specs ...hookSpec) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	var groups []map[string]any
	for i, s := range specs {
		path := filepath.Join(dir, fmt.Sprintf("hook%d.sh", i))
		if err := os.WriteFile(path, []byte("#!/bin/bash\n"+s.body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		h := map[string]any{"type": "command", "command": path}
		if s.timeout > 0 {
			h["timeout"] = s.timeout
		}
		groups = append(groups, map[string]any{"matcher": s.matcher, "hooks": []any{h}})
	}
	raw, err := json.Marshal(map[string]any{string(ev): groups})
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Config: mustParse(t, filepath.Join(dir, "settings.json"), string(raw)), ProjectDir: dir}, dir
}

func toolInput() Input {
	return Input{SessionID: "s1", Cwd: "/", ToolName: "Bash", ToolInput: map[string]any{"command": "npm test"}, ToolUseID: "call_1"}
}

// run is Run with a hang guard: a test fails rather than hangs.
func run(t *testing.T, r *Runner, ev Event, in Input) Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return r.Run(ctx, ev, in)
}

func TestInputPerEvent(t *testing.T) {
	cwd := t.TempDir()
	common := map[string]any{"session_id": "s1", "transcript_path": "", "cwd": cwd}
	tool := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "tool_use_id": "call_1"}
	with := func(ms ...map[string]any) map[string]any {
		out := map[string]any{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	base := Input{SessionID: "s1", Cwd: cwd, ToolName: "Bash", ToolInput: map[string]any{"command": "npm test"}, ToolUseID: "call_1"}
	tests := []struct {
		ev    Event
		input func(in *Input)
		want  map[string]any
	}{
		{PreToolUse, nil, with(common, tool)},
		{PreToolUse, func(in *Input) { in.PermissionMode, in.AgentID, in.AgentType = "default", "a1", "reviewer" },
			with(common, tool, map[string]any{"permission_mode": "default", "agent_id": "a1", "agent_type": "reviewer"})},
		{PermissionRequest, func(in *Input) {
			in.PermissionSuggestions = []PermissionUpdate{{Type: "addRules", Rules: []RuleValue{{ToolName: "Bash", RuleContent: "npm test"}}, Behavior: "allow", Destination: "session"}}
		}, with(common, tool, map[string]any{"permission_suggestions": []any{map[string]any{
			"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "npm test"}}, "behavior": "allow", "destination": "session"}}})},
		{PermissionDenied, func(in *Input) { in.Reason = "tool Bash is blocked by deny rule Bash(npm:*) (project)" },
			with(common, tool, map[string]any{"reason": "tool Bash is blocked by deny rule Bash(npm:*) (project)"})},
		{PostToolUse, func(in *Input) { in.ToolResponse = map[string]any{"output": "ok", "exit_code": 0} },
			with(common, tool, map[string]any{"tool_response": map[string]any{"output": "ok", "exit_code": float64(0)}})},
		{UserPromptSubmit, func(in *Input) { in.ToolName, in.ToolInput, in.ToolUseID, in.Prompt = "", nil, "", "fix the bug" },
			with(common, map[string]any{"prompt": "fix the bug"})},
		{Stop, func(in *Input) {
			in.ToolName, in.ToolInput, in.ToolUseID, in.LastAssistantMessage = "", nil, "", "done"
		},
			with(common, map[string]any{"stop_hook_active": false, "last_assistant_message": "done"})},
		{SubagentStop, func(in *Input) {
			in.ToolName, in.ToolInput, in.ToolUseID, in.StopHookActive, in.AgentID, in.AgentType = "", nil, "", true, "a2", "Explore"
		}, with(common, map[string]any{"stop_hook_active": true, "agent_id": "a2", "agent_type": "Explore"})},
		{SessionStart, func(in *Input) {
			in.ToolName, in.ToolInput, in.ToolUseID, in.Source, in.Model = "", nil, "", "startup", "qwen"
		},
			with(common, map[string]any{"source": "startup", "model": "qwen"})},
	}
	for _, tt := range tests {
		t.Run(string(tt.ev), func(t *testing.T) {
			r, dir := newRunner(t, tt.ev, hookSpec{body: `cat > "$GEN_PROJECT_DIR/in.json"; pwd > "$CLAUDE_PROJECT_DIR/pwd"`})
			in := base
			if tt.input != nil {
				tt.input(&in)
			}
			o := run(t, r, tt.ev, in)
			if o.Ran != 1 || len(o.Warnings) > 0 {
				t.Fatalf("Ran %d, warnings %v", o.Ran, o.Warnings)
			}
			data, err := os.ReadFile(filepath.Join(dir, "in.json"))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("hook input %s: %v", data, err)
			}
			want := with(tt.want, map[string]any{"hook_event_name": string(tt.ev)})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("hook input\n%v\nwant\n%v", got, want)
			}
			pwd, _ := os.ReadFile(filepath.Join(dir, "pwd"))
			if strings.TrimSpace(string(pwd)) != cwd {
				t.Errorf("hook ran in %q, want the input's cwd %q", pwd, cwd)
			}
		})
	}
}

func TestPreToolUseDecisions(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		verdict  Verdict
		reason   string
		warning  string // substring of the only warning; "" for none
		contexts []string
	}{
		{"allow", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "tests are fine"}}'`,
			Approve, "tests are fine", "", nil},
		{"deny", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no npm here"}}'`,
			Deny, "no npm here", "", nil},
		{"ask", `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "check this"}}'`,
			Ask, "check this", "", nil},
		{"legacy block", `echo '{"decision": "block", "reason": "old style"}'`, Deny, "old style", "", nil},
		{"legacy approve", `echo '{"decision": "approve"}'`, Approve, "", "", nil},
		{"exit 2 blocks with stderr", `echo 'ignored {"x"' ; echo "rm is not allowed" >&2; exit 2`, Deny, "rm is not allowed", "", nil},
		{"exit 1 is a non-blocking error", `echo '{"hookSpecificOutput": {"permissionDecision": "deny"}}'; echo oops >&2; exit 1`,
			NoVerdict, "", "exited with status 1 (a non-blocking error): oops", nil},
		// An answer gen cannot read may be a deny: it denies, naming
		// why, and is reported.
		{"invalid JSON denies", `echo '{"hookSpecificOutput": {"permissionDecision": "deny"'`, Deny, "unexpected end of JSON input", "unexpected end of JSON input", nil},
		{"wrong type denies", `echo '{"hookSpecificOutput": {"permissionDecision": true}}'`, Deny, "cannot unmarshal bool", "invalid JSON on stdout", nil},
		{"unknown decision denies", `echo '{"hookSpecificOutput": {"permissionDecision": "defer"}}'`, Deny, `unknown permissionDecision "defer"`, `unknown permissionDecision "defer"`, nil},
		{"a decision in another case denies", `echo '{"hookSpecificOutput": {"permissionDecision": "Deny"}}'`, Deny, `unknown permissionDecision "Deny"`, `unknown permissionDecision "Deny"`, nil},
		{"an allow in another case denies", `echo '{"hookSpecificOutput": {"permissionDecision": "Allow"}}'`, Deny, `unknown permissionDecision "Allow"`, `unknown permissionDecision "Allow"`, nil},
		{"a key in another case denies", `echo '{"hookSpecificOutput": {"PermissionDecision": "allow"}}'`, Deny, `unknown key "hookSpecificOutput.PermissionDecision"`, `unknown key`, nil},
		{"a decision outside hookSpecificOutput denies", `echo '{"permissionDecision": "deny"}'`, Deny, `unknown key "permissionDecision"`, `unknown key`, nil},
		{"a key given twice denies", `echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecision": "allow"}}'`, Deny, `key "hookSpecificOutput.permissionDecision" given twice`, "given twice", nil},
		{"an object given twice denies", `echo '{"hookSpecificOutput": {"permissionDecision": "deny"}, "hookSpecificOutput": {"permissionDecision": "allow"}}'`, Deny, "given twice", "given twice", nil},
		{"a key given twice in updatedInput denies", `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "rm -rf ~", "command": "ls"}}}'`, Deny, "given twice", "given twice", nil},
		{"text after the JSON denies", `echo '{"hookSpecificOutput": {"permissionDecision": "deny"}}'; echo done`, Deny, "invalid character", "invalid character", nil},
		{"two JSON answers deny", `echo '{"decision": "approve"}'; echo '{"decision": "block"}'`, Deny, "invalid character", "invalid character", nil},
		{"text before the JSON denies", `echo "checking npm test"; echo '{"hookSpecificOutput": {"permissionDecision": "deny"}}'`, Deny, "text before the JSON", "text before the JSON", nil},
		{"a decision not in UTF-8 denies", `printf '{"hookSpecificOutput": {"permissionDecision": "deny\xff"}}'`, Deny, "unknown permissionDecision", "unknown permissionDecision", nil},
		{"legacy and new decisions that disagree deny", `echo '{"decision": "block", "hookSpecificOutput": {"permissionDecision": "allow"}}'`, Deny, `both "block"`, `both "block"`, nil},
		{"an unknown legacy decision denies", `echo '{"decision": "allow"}'`, Deny, `unknown decision "allow"`, `unknown decision "allow"`, nil},
		{"other event's output denies", `echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "allow"}}'`,
			Deny, "hookSpecificOutput for PostToolUse, not PreToolUse", "hookSpecificOutput for PostToolUse, not PreToolUse", nil},
		{"a hook that cannot run denies", `exec /nonexistent/guard.sh`, Deny, "could not be run (exit status 127)", "could not be run", nil},
		{"a hook killed by a signal denies", `kill -9 $$`, Deny, "signal: killed", "signal: killed", nil},
		// A byte order mark is white space, as in Claude Code.
		{"a byte order mark before the JSON", `printf '\xef\xbb\xbf{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "bom"}}'`, Deny, "bom", "", nil},
		{"plain stdout is ignored", `echo hello`, NoVerdict, "", "", nil},
		{"plain stdout with braces is ignored", `echo "hello {x}"`, NoVerdict, "", "", nil},
		{"context", `echo '{"hookSpecificOutput": {"additionalContext": "remember X"}}'`, NoVerdict, "", "", []string{"remember X"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newRunner(t, PreToolUse, hookSpec{matcher: "Bash", body: tt.body})
			o := run(t, r, PreToolUse, toolInput())
			if o.Verdict != tt.verdict || !strings.Contains(o.Reason, tt.reason) || tt.reason == "" && o.Reason != "" {
				t.Errorf("verdict %v reason %q, want %v %q", o.Verdict, o.Reason, tt.verdict, tt.reason)
			}
			switch {
			case tt.warning == "" && len(o.Warnings) > 0:
				t.Errorf("unexpected warnings %q", o.Warnings)
			case tt.warning != "" && (len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], tt.warning)):
				t.Errorf("warnings %q, want one containing %q", o.Warnings, tt.warning)
			}
			if tt.warning != "" && len(o.Warnings) > 0 && !strings.Contains(o.Warnings[0], "hooks.PreToolUse[0].hooks[0]") {
				t.Errorf("warning %q does not name the hook's origin", o.Warnings[0])
			}
			if !slices.Equal(o.Context, tt.contexts) {
				t.Errorf("context %q, want %q", o.Context, tt.contexts)
			}
			if o.UpdatedInput != nil {
				t.Errorf("UpdatedInput %v, want nil", o.UpdatedInput)
			}
		})
	}
}

func TestMatcherSelection(t *testing.T) {
	r, dir := newRunner(t, PreToolUse,
		hookSpec{matcher: "Bash", body: `touch "$GEN_PROJECT_DIR/bash"`},
		hookSpec{matcher: "Edit|Write", body: `touch "$GEN_PROJECT_DIR/edit"`},
		hookSpec{matcher: "mcp__github__.*", body: `touch "$GEN_PROJECT_DIR/github"`},
		hookSpec{matcher: "*", body: `touch "$GEN_PROJECT_DIR/all"`},
	)
	in := toolInput()
	in.ToolName = "mcp__github__create_issue"
	if o := run(t, r, PreToolUse, in); o.Ran != 2 {
		t.Errorf("Ran %d hooks, want 2", o.Ran)
	}
	var ran []string
	for _, n := range []string{"bash", "edit", "github", "all"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			ran = append(ran, n)
		}
	}
	if want := []string{"github", "all"}; !slices.Equal(ran, want) {
		t.Errorf("hooks that ran: %v, want %v", ran, want)
	}
	if o := run(t, r, PostToolUse, in); o.Ran != 0 {
		t.Errorf("PostToolUse ran %d PreToolUse hooks", o.Ran)
	}
}

// A regular expression matcher that matches a tool's name only in part
// runs its hook, whose deny holds, but its allow is not taken: an allow
// covers what its matcher names, as an allow rule does. mcp__github__.*
// must not approve mcp__evil__mcp__github__delete_repo, a tool of the
// server evil whose own name starts mcp__github__.
func TestPartialMatchDoesNotApprove(t *testing.T) {
	allowPre := `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`
	allowReq := `echo '{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "mcp__github"}], "behavior": "allow", "destination": "session"}]}}}'`
	for _, tt := range []struct {
		ev      Event
		matcher string
		body    string
		tool    string
		verdict Verdict
		warned  bool
	}{
		{PreToolUse, "mcp__github__.*", allowPre, "mcp__github__create_issue", Approve, false},
		{PreToolUse, "mcp__github__.*", allowPre, "mcp__evil__mcp__github__delete_repo", NoVerdict, true},
		{PermissionRequest, "mcp__github__.*", allowReq, "mcp__evil__mcp__github__delete_repo", NoVerdict, true},
		{PermissionRequest, "mcp__github__.*", allowReq, "mcp__github__create_issue", Approve, false},
		{PreToolUse, "Notebook.*", allowPre, "NotebookEdit", Approve, false},
		{PreToolUse, "Edit|Write.*", allowPre, "Edit", Approve, false},
		{PreToolUse, "Task.*", allowPre, "Agent", Approve, false},
		{PreToolUse, "Bas.", allowPre, "Bash", Approve, false},
		{PreToolUse, "Bas.", allowPre, "mcp__x__Bash", NoVerdict, true},
		// A deny holds wherever the matcher matched.
		{PreToolUse, "mcp__github__.*", `echo no >&2; exit 2`, "mcp__evil__mcp__github__delete_repo", Deny, false},
	} {
		t.Run(fmt.Sprintf("%s %s %s", tt.ev, tt.matcher, tt.tool), func(t *testing.T) {
			r, _ := newRunner(t, tt.ev, hookSpec{matcher: tt.matcher, body: tt.body})
			in := toolInput()
			in.ToolName = tt.tool
			o := run(t, r, tt.ev, in)
			if o.Ran != 1 || o.Verdict != tt.verdict || (tt.verdict != Approve && o.UpdatedPermissions != nil) {
				t.Errorf("ran %d, verdict %v, updates %v; want 1 %v", o.Ran, o.Verdict, o.UpdatedPermissions, tt.verdict)
			}
			if warned := len(o.Warnings) == 1 && strings.Contains(o.Warnings[0], "matches only part of"); warned != tt.warned || !warned && len(o.Warnings) > 0 {
				t.Errorf("warnings %q, want a partial-match one: %v", o.Warnings, tt.warned)
			}
		})
	}
	// The same command in a group that matches the whole name approves.
	c := mustParse(t, "f.json", `{"PreToolUse": [{"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "`+strings.ReplaceAll(allowPre, `"`, `\"`)+`"}]},
		{"matcher": "mcp__evil__.*", "hooks": [{"type": "command", "command": "`+strings.ReplaceAll(allowPre, `"`, `\"`)+`"}]}]}`)
	in := toolInput()
	in.ToolName = "mcp__evil__mcp__github__delete_repo"
	if o := run(t, &Runner{Config: c}, PreToolUse, in); o.Ran != 1 || o.Verdict != Approve {
		t.Errorf("ran %d, verdict %v (%q); want the whole match's approve", o.Ran, o.Verdict, o.Warnings)
	}
}

func TestCombination(t *testing.T) {
	allow := `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "fine"}}'`
	ask := `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "hmm"}}'`
	// The deny hook finishes last: combination must not depend on timing.
	deny := `sleep 0.2; echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}'`
	deny2 := `echo bad >&2; exit 2`
	tests := []struct {
		name    string
		bodies  []string
		verdict Verdict
		reason  string
	}{
		{"deny beats ask and allow", []string{allow, deny, ask}, Deny, "no"},
		{"ask beats allow", []string{allow, ask, allow}, Ask, "hmm"},
		{"allow and a silent hook", []string{allow, `exit 0`}, Approve, "fine"},
		{"deny reasons in configuration order", []string{deny, deny2}, Deny, "no\nbad"},
		{"a failing hook does not weaken a deny", []string{`exit 1`, deny2}, Deny, "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var specs []hookSpec
			for i, b := range tt.bodies {
				// Distinct commands: identical ones run once.
				specs = append(specs, hookSpec{body: b + " # " + strconv.Itoa(i)})
			}
			r, _ := newRunner(t, PreToolUse, specs...)
			o := run(t, r, PreToolUse, toolInput())
			if o.Ran != len(tt.bodies) || o.Verdict != tt.verdict || o.Reason != tt.reason {
				t.Errorf("ran %d, verdict %v, reason %q; want %d %v %q", o.Ran, o.Verdict, o.Reason, len(tt.bodies), tt.verdict, tt.reason)
			}
		})
	}
}

func TestUpdatedInput(t *testing.T) {
	rewrite := `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "npm test -- --ci"}}}'`
	t.Run("passed through", func(t *testing.T) {
		r, _ := newRunner(t, PreToolUse, hookSpec{body: rewrite})
		o := run(t, r, PreToolUse, toolInput())
		if want := map[string]any{"command": "npm test -- --ci"}; !reflect.DeepEqual(o.UpdatedInput, want) || o.Verdict != Approve {
			t.Errorf("UpdatedInput %v verdict %v, want %v approve", o.UpdatedInput, o.Verdict, want)
		}
	})
	t.Run("dropped on deny", func(t *testing.T) {
		r, _ := newRunner(t, PreToolUse, hookSpec{body: rewrite}, hookSpec{body: `exit 2`})
		if o := run(t, r, PreToolUse, toolInput()); o.UpdatedInput != nil || o.Verdict != Deny {
			t.Errorf("UpdatedInput %v verdict %v, want nil deny", o.UpdatedInput, o.Verdict)
		}
	})
	t.Run("conflicts reported, first wins", func(t *testing.T) {
		r, _ := newRunner(t, PreToolUse, hookSpec{body: rewrite},
			hookSpec{body: `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "rm -rf /"}}}'`})
		o := run(t, r, PreToolUse, toolInput())
		if want := map[string]any{"command": "npm test -- --ci"}; !reflect.DeepEqual(o.UpdatedInput, want) {
			t.Errorf("UpdatedInput %v, want %v", o.UpdatedInput, want)
		}
		if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "updatedInput ignored") {
			t.Errorf("warnings %q, want one about the conflict", o.Warnings)
		}
	})
}

func TestPermissionRequest(t *testing.T) {
	t.Run("allow with updated permissions", func(t *testing.T) {
		r, _ := newRunner(t, PermissionRequest, hookSpec{matcher: "Bash", body: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
			"decision": {"behavior": "allow", "updatedInput": {"command": "npm test"},
			"updatedPermissions": [
				{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}, {"toolName": "Read"}], "behavior": "allow", "destination": "session"},
				{"type": "setMode", "mode": "acceptEdits", "destination": "session"}
			]}}}'`})
		o := run(t, r, PermissionRequest, toolInput())
		if o.Verdict != Approve || !reflect.DeepEqual(o.UpdatedInput, map[string]any{"command": "npm test"}) {
			t.Fatalf("verdict %v input %v", o.Verdict, o.UpdatedInput)
		}
		if len(o.UpdatedPermissions) != 2 {
			t.Fatalf("UpdatedPermissions %+v, want the addRules and setMode entries", o.UpdatedPermissions)
		}
		if got, want := o.UpdatedPermissions[0].RuleStrings(), []string{"Bash(npm test)", "Read"}; !slices.Equal(got, want) {
			t.Errorf("rules %v, want %v", got, want)
		}
		rules, err := o.UpdatedPermissions[0].ParsedRules()
		if err != nil || rules[0].Tool != "Bash" || rules[0].Pattern != "npm test" || rules[1].HasPattern {
			t.Errorf("ParsedRules = %+v, %v", rules, err)
		}
		if u := o.UpdatedPermissions[1]; u.Type != "setMode" || u.Mode != "acceptEdits" {
			t.Errorf("second update %+v, want setMode acceptEdits", u)
		}
		if len(o.Warnings) != 0 {
			t.Errorf("warnings %q, want none", o.Warnings)
		}
	})
	// An allow is not taken in part: with one entry gen cannot read (a
	// deny rule with a typo beside the allow rules), the answer decides
	// nothing, its rules are not added, and the warning names the entry.
	for _, bad := range []struct{ entry, want string }{
		{`{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "git:*:x"}], "behavior": "deny", "destination": "session"}`, `updatedPermissions[1]: malformed rule "Bash(git:*:x)"`},
		{`{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}], "behavior": "Deny", "destination": "session"}`, `updatedPermissions[1]: addRules: unknown behavior "Deny"`},
		{`{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}], "behavior": "deny", "destination": "sesion"}`, `updatedPermissions[1]: unknown destination "sesion"`},
		{`{"type": "grantEverything", "destination": "session"}`, `updatedPermissions[1]: unknown update type "grantEverything"`},
		{`{"type": "setMode", "mode": "yolo", "destination": "session"}`, `updatedPermissions[1]: setMode: unknown mode "yolo"`},
		{`{"type": "addRules", "rules": [{"ruleContent": "rm:*"}], "behavior": "deny", "destination": "session"}`, `updatedPermissions[1]: addRules: a rule without toolName`},
	} {
		t.Run("malformed entry "+bad.want, func(t *testing.T) {
			r, _ := newRunner(t, PermissionRequest, hookSpec{body: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
				"decision": {"behavior": "allow", "updatedInput": {"command": "npm test"},
				"updatedPermissions": [
					{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"},
					` + bad.entry + `
				]}}}'`})
			o := run(t, r, PermissionRequest, toolInput())
			if o.Verdict != NoVerdict || o.UpdatedPermissions != nil || o.UpdatedInput != nil {
				t.Errorf("verdict %v, updates %+v, input %v; want no verdict, no updates, no input", o.Verdict, o.UpdatedPermissions, o.UpdatedInput)
			}
			if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "allow ignored: "+bad.want) {
				t.Errorf("warnings %q, want one containing %q", o.Warnings, bad.want)
			}
		})
	}
	t.Run("deny", func(t *testing.T) {
		r, _ := newRunner(t, PermissionRequest, hookSpec{body: `echo '{"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "not on Fridays", "interrupt": true}}}'`})
		o := run(t, r, PermissionRequest, toolInput())
		if o.Verdict != Deny || o.Reason != "not on Fridays" || !o.Interrupt || o.UpdatedPermissions != nil {
			t.Errorf("got %+v", o)
		}
	})
	t.Run("deny beats allow and drops its permissions", func(t *testing.T) {
		r, _ := newRunner(t, PermissionRequest,
			hookSpec{body: `echo '{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"}]}}}'`},
			hookSpec{body: `echo nope >&2; exit 2`})
		o := run(t, r, PermissionRequest, toolInput())
		if o.Verdict != Deny || o.Reason != "nope" || o.UpdatedPermissions != nil {
			t.Errorf("got %+v", o)
		}
	})
	// A hook whose answer cannot be read may have meant deny: no other
	// hook's allow stands, and a person is asked (Ask: undecided).
	allow := `echo '{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput": {"command": "ls"}, "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"}]}}}'`
	for _, bad := range []struct{ name, body, warning string }{
		{"unknown behavior", `echo '{"hookSpecificOutput": {"decision": {"behavior": "ask"}}}'`, `unknown decision.behavior "ask"`},
		{"behavior in another case", `echo '{"hookSpecificOutput": {"decision": {"behavior": "Deny"}}}'`, `unknown decision.behavior "Deny"`},
		{"behavior given twice", `echo '{"hookSpecificOutput": {"decision": {"behavior": "deny", "behavior": "allow"}}}'`, "given twice"},
		{"a key in another case", `echo '{"hookSpecificOutput": {"Decision": {"behavior": "deny"}}}'`, `unknown key "hookSpecificOutput.Decision"`},
		{"a top-level decision", `echo '{"decision": "block", "reason": "no"}'`, `top-level decision "block"`},
		{"invalid JSON", `echo '{"hookSpecificOutput": {"decision": {"behavior": "deny"}'`, "unexpected end of JSON input"},
		{"a timeout", `sleep 30`, "timed out"},
	} {
		t.Run(bad.name+" leaves the call to a person", func(t *testing.T) {
			r, _ := newRunner(t, PermissionRequest, hookSpec{body: allow}, hookSpec{body: bad.body, timeout: 0.5})
			o := run(t, r, PermissionRequest, toolInput())
			if o.Verdict != Ask || o.UpdatedPermissions != nil || o.UpdatedInput != nil || o.Reason != "" {
				t.Errorf("got %+v, want Ask, without the other hook's input or permissions", o)
			}
			if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], bad.warning) || !strings.Contains(o.Warnings[0], "hooks.PermissionRequest[1].hooks[0]") {
				t.Errorf("warnings %q, want one from the second hook containing %q", o.Warnings, bad.warning)
			}
		})
	}
}

func TestOtherEvents(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		body string
		want Outcome
	}{
		{"PostToolUse block", PostToolUse, `echo '{"decision": "block", "reason": "lint failed"}'`,
			Outcome{Block: true, Reason: "lint failed"}},
		{"PostToolUse exit 2", PostToolUse, `echo "formatting broke" >&2; exit 2`, Outcome{Block: true, Reason: "formatting broke"}},
		{"PostToolUse context", PostToolUse, `echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 warnings"}}'`,
			Outcome{Context: []string{"3 warnings"}}},
		{"UserPromptSubmit plain stdout is context", UserPromptSubmit, `echo "today is Tuesday"`, Outcome{Context: []string{"today is Tuesday"}}},
		{"UserPromptSubmit exit 2", UserPromptSubmit, `echo "no secrets in prompts" >&2; exit 2`, Outcome{Block: true, Reason: "no secrets in prompts"}},
		{"Stop block", Stop, `echo '{"decision": "block", "reason": "run the tests first"}'`, Outcome{Block: true, Reason: "run the tests first"}},
		{"SubagentStop exit 2", SubagentStop, `echo "keep going" >&2; exit 2`, Outcome{Block: true, Reason: "keep going"}},
		{"continue false", Stop, `echo '{"continue": false, "stopReason": "budget spent", "systemMessage": "stopping"}'`,
			Outcome{Stop: true, StopReason: "budget spent", SystemMessages: []string{"stopping"}}},
		{"PermissionDenied retry", PermissionDenied, `echo '{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}'`, Outcome{Retry: true}},
		{"SessionStart context", SessionStart, `echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}}'`,
			Outcome{Context: []string{"branch main"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newRunner(t, tt.ev, hookSpec{body: tt.body})
			in := toolInput()
			in.AgentType = ""
			o := run(t, r, tt.ev, in)
			tt.want.Event, tt.want.Ran = tt.ev, 1
			if !reflect.DeepEqual(o, tt.want) {
				t.Errorf("got  %+v\nwant %+v", o, tt.want)
			}
		})
	}
	t.Run("SessionStart exit 2 does not block", func(t *testing.T) {
		r, _ := newRunner(t, SessionStart, hookSpec{body: `echo "x" >&2; exit 2`})
		o := run(t, r, SessionStart, Input{Source: "startup"})
		if o.Block || len(o.Warnings) != 1 {
			t.Errorf("got %+v", o)
		}
	})
}

// gone reports whether process pid ends within a generous bound: SIGKILL
// is delivered asynchronously, so a process may outlive kill(2) briefly.
func gone(pid int) bool {
	deadline := time.Now().Add(30 * time.Second)
	for proctest.Alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func pids(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for f := range strings.FieldsSeq(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// A PreToolUse hook that times out may have meant to deny: the call is
// denied. Another event's hook decides nothing.
func TestTimeoutDenies(t *testing.T) {
	// The hook starts a background child, records both pids, and then
	// would deny — but only after its timeout.
	r, dir := newRunner(t, PreToolUse, hookSpec{timeout: 1, body: `sleep 300 & echo "$$ $!" > "$GEN_PROJECT_DIR/pids"
		sleep 300; echo '{"hookSpecificOutput": {"permissionDecision": "deny"}}'`})
	o := run(t, r, PreToolUse, toolInput())
	if o.Verdict != Deny || !strings.Contains(o.Reason, "timed out after 1s") || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "timed out after 1s") {
		t.Fatalf("got %+v, want Deny and a timeout warning", o)
	}
	post, _ := newRunner(t, PostToolUse, hookSpec{timeout: 0.1, body: `sleep 300`})
	if o := run(t, post, PostToolUse, toolInput()); o.Block || o.Verdict != NoVerdict || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "it decides nothing") {
		t.Errorf("PostToolUse: got %+v, want only a warning", o)
	}
	for _, pid := range pids(t, filepath.Join(dir, "pids")) {
		if !gone(pid) {
			t.Errorf("process %d of the timed-out hook is still running", pid)
		}
	}
}

func TestBackgroundChildrenDoNotOutliveHook(t *testing.T) {
	// A hook that exits at once but leaves a child holding its stdout: Run
	// must return (the group is killed) and the answer still count.
	r, dir := newRunner(t, PreToolUse, hookSpec{body: `sleep 300 & echo "$!" > "$GEN_PROJECT_DIR/pids"
		echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "x"}}'`})
	o := run(t, r, PreToolUse, toolInput())
	if o.Verdict != Deny || len(o.Warnings) != 0 {
		t.Fatalf("got %+v", o)
	}
	for _, pid := range pids(t, filepath.Join(dir, "pids")) {
		if !gone(pid) {
			t.Errorf("background process %d outlived its hook", pid)
		}
	}
}

func TestCancelDenies(t *testing.T) {
	r, dir := newRunner(t, PreToolUse, hookSpec{body: `echo $$ > "$GEN_PROJECT_DIR/pids.tmp"; mv "$GEN_PROJECT_DIR/pids.tmp" "$GEN_PROJECT_DIR/pids"; sleep 300; exit 2`})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome)
	go func() { done <- r.Run(ctx, PreToolUse, toolInput()) }()
	guard := time.After(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "pids")); err == nil {
			break
		}
		select {
		case <-guard:
			t.Fatal("hook did not start")
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	var o Outcome
	select {
	case o = <-done:
	case <-guard:
		t.Fatal("Run did not return after cancellation")
	}
	if o.Verdict != Deny || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "cancelled") {
		t.Errorf("got %+v", o)
	}
	for _, pid := range pids(t, filepath.Join(dir, "pids")) {
		if !gone(pid) {
			t.Errorf("hook process %d survived cancellation", pid)
		}
	}
}

func TestOutputCap(t *testing.T) {
	r, _ := newRunner(t, PreToolUse, hookSpec{body: `printf '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "'; head -c 2000000 /dev/zero | tr '\0' x; printf '"}}'`})
	o := run(t, r, PreToolUse, toolInput())
	if o.Verdict != Deny || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "over 1048576 bytes on stdout") {
		t.Errorf("verdict %v warnings %q", o.Verdict, o.Warnings)
	}
}

func TestIdenticalCommandsRunOnce(t *testing.T) {
	dir := t.TempDir()
	cmd := fmt.Sprintf(`echo x >> %q`, filepath.Join(dir, "count"))
	raw := fmt.Sprintf(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}, {"hooks": [{"type": "command", "command": %q}]}]}`, cmd, cmd)
	r := &Runner{Config: mustParse(t, "s.json", raw)}
	if o := run(t, r, PreToolUse, toolInput()); o.Ran != 1 {
		t.Errorf("Ran %d, want 1", o.Ran)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "count")); string(data) != "x\n" {
		t.Errorf("command ran %d times", strings.Count(string(data), "x"))
	}
}

// A tool event's "continue": false, and a PermissionRequest deny with
// "interrupt": true, ask to stop the agent: Agent.TakeHalt reports the
// first reason once. Other answers ask nothing of the kind; a Stop hook's
// "continue": false comes before its block.
func TestAgentHalt(t *testing.T) {
	var warned []string
	agent := func(r *Runner) *Agent { return &Agent{Runner: r, Warn: func(w string) { warned = append(warned, w) }} }
	post, _ := newRunner(t, PostToolUse, hookSpec{body: `echo '{"continue": false, "stopReason": "the build broke"}'`})
	a := agent(post)
	if got := a.TakeHalt(); got != "" {
		t.Fatalf("TakeHalt before any hook ran = %q", got)
	}
	send := func(a *Agent, ev Event, in Input) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		a.Run(ctx, ev, in)
	}
	send(a, PostToolUse, toolInput())
	send(a, PostToolUse, toolInput())
	if got, want := a.TakeHalt(), "a PostToolUse hook stopped the agent: the build broke"; got != want {
		t.Errorf("TakeHalt = %q, want %q", got, want)
	}
	if got := a.TakeHalt(); got != "" {
		t.Errorf("TakeHalt a second time = %q, want it forgotten", got)
	}
	if len(warned) != 2 || warned[0] != "a PostToolUse hook stopped the agent: the build broke" {
		t.Errorf("warnings %q, want the reason once per answer", warned)
	}

	pr, _ := newRunner(t, PermissionRequest, hookSpec{body: `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no", "interrupt": true}}}'`})
	a = agent(pr)
	send(a, PermissionRequest, toolInput())
	if got, want := a.TakeHalt(), "a PermissionRequest hook stopped the agent: no"; got != want {
		t.Errorf("TakeHalt after an interrupt = %q, want %q", got, want)
	}

	quiet, _ := newRunner(t, PostToolUse, hookSpec{body: `echo '{"decision": "block", "reason": "lint"}'`})
	a = agent(quiet)
	send(a, PostToolUse, toolInput())
	if got := a.TakeHalt(); got != "" {
		t.Errorf("TakeHalt after a block = %q, want none", got)
	}

	stop, _ := newRunner(t, Stop, hookSpec{body: `echo '{"continue": false, "decision": "block", "reason": "go on"}'`})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if got := agent(stop).Stop(ctx, "done", false); got != "" {
		t.Errorf("Stop = %q, want the agent to stop: continue false comes before the block", got)
	}
	var nilAgent *Agent
	if got := nilAgent.TakeHalt(); got != "" {
		t.Errorf("nil TakeHalt = %q", got)
	}
}

// What an Agent tells the person of a hook's output (a warning with its
// stderr, a systemMessage) carries no terminal escape: a hook that echoes
// the command it looked at passes on what the model wrote.
func TestAgentWarningsAreTerminalSafe(t *testing.T) {
	r, _ := newRunner(t, PreToolUse,
		hookSpec{body: `printf 'odd command: ]52;c;cHduZWQ=
' >&2; exit 1`},
		hookSpec{body: `echo '{"systemMessage": "look: \u001b[2J"}'`})
	var warned []string
	a := &Agent{Runner: r, Warn: func(w string) { warned = append(warned, w) }}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a.Run(ctx, PreToolUse, toolInput())
	if len(warned) != 2 {
		t.Fatalf("warnings %q, want the exit status's and the systemMessage", warned)
	}
	for _, w := range warned {
		if strings.ContainsAny(w, "\x1b\x07\n") || !strings.Contains(w, `\u{1b}`) {
			t.Errorf("warning %q: want its escape written out, not sent", w)
		}
	}
}

// Runner.Debug hears each event's matching hooks and how each ended, on
// one line each, with no control characters from the hook's output.
func TestRunnerDebug(t *testing.T) {
	raw := `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "printf '\\033[31mRED\\033[0m\\nmore' >&2; exit 2"}]}]}`
	var lines []string
	r := &Runner{Config: mustParse(t, "s.json", raw), Debug: func(s string) { lines = append(lines, s) }}
	run(t, r, PreToolUse, toolInput())
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `PreToolUse ("Bash"): 1 matching hooks`) ||
		!strings.Contains(lines[1], ": exit 2 after ") || !strings.Contains(lines[1], "; stderr: [31mRED [0m more") {
		t.Fatalf("debug lines %q", lines)
	}
	for _, l := range lines {
		if strings.ContainsFunc(l, func(r rune) bool { return r < ' ' }) {
			t.Errorf("a control character in %q", l)
		}
	}
	lines = nil
	run(t, r, PostToolUse, toolInput())
	if len(lines) != 0 {
		t.Errorf("an event with no hooks configured logged %q", lines)
	}
}

// SessionEnd hooks share one budget, as in Claude Code: 1.5 s, raised to
// the longest timeout one of them sets, up to a minute.
func TestSessionEndBudget(t *testing.T) {
	for _, tc := range []struct {
		timeouts []time.Duration
		want     time.Duration
	}{
		{nil, 1500 * time.Millisecond},
		{[]time.Duration{0}, 1500 * time.Millisecond},
		{[]time.Duration{time.Second}, 1500 * time.Millisecond},
		{[]time.Duration{0, 5 * time.Second, 2 * time.Second}, 5 * time.Second},
		{[]time.Duration{time.Hour}, time.Minute},
	} {
		var hs []Handler
		for _, d := range tc.timeouts {
			hs = append(hs, Handler{Timeout: d})
		}
		if got := sessionEndBudget(hs); got != tc.want {
			t.Errorf("timeouts %v: budget %v, want %v", tc.timeouts, got, tc.want)
		}
	}

	// A SessionEnd hook that sets no timeout is killed, with what it
	// started, when the budget is spent, not after DefaultTimeout.
	r, dir := newRunner(t, SessionEnd, hookSpec{body: `sleep 300 & echo "$$ $!" > "$GEN_PROJECT_DIR/pids"; sleep 300`})
	o := run(t, r, SessionEnd, Input{Reason: "other"})
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "cancelled (SessionEnd hooks run for at most 1.5s together)") {
		t.Fatalf("warnings %q, want the budget's", o.Warnings)
	}
	for _, pid := range pids(t, filepath.Join(dir, "pids")) {
		if !gone(pid) {
			t.Errorf("process %d of the SessionEnd hook is still running", pid)
		}
	}
}

// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS sets the SessionEnd budget
// explicitly, as in Claude Code: a whole number of milliseconds, at most
// a minute. Anything else is an error naming the variable, never a
// budget gen would have to guess.
func TestEndBudgetFromEnv(t *testing.T) {
	for _, tc := range []struct {
		value string
		set   bool
		want  time.Duration
		err   bool
	}{
		{set: false, want: 0},
		{value: "", set: true, want: 0},
		{value: "5000", set: true, want: 5 * time.Second},
		{value: " 1 ", set: true, want: time.Millisecond},
		{value: "60000", set: true, want: time.Minute},
		{value: "60001", set: true, err: true},
		{value: "0", set: true, err: true},
		{value: "-5", set: true, err: true},
		{value: "1.5", set: true, err: true},
		{value: "5s", set: true, err: true},
		{value: "99999999999999999999", set: true, err: true},
	} {
		got, err := EndBudgetFromEnv(func(name string) (string, bool) {
			if name != EndBudgetEnv {
				t.Errorf("looked up %s", name)
			}
			return tc.value, tc.set
		})
		switch {
		case tc.err && (err == nil || err.Error() != fmt.Sprintf("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=%q: must be a whole number of milliseconds from 1 to 60000 (a minute)", tc.value)):
			t.Errorf("%q: %v, %v; want the error naming the variable", tc.value, got, err)
		case !tc.err && (err != nil || got != tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.value, got, err, tc.want)
		}
	}

	// The budget it sets holds whatever timeouts the hooks set: this
	// hook's 50 s would raise the budget to 50 s otherwise.
	r, _ := newRunner(t, SessionEnd, hookSpec{body: "sleep 300", timeout: 50})
	r.EndBudget = 100 * time.Millisecond
	o := run(t, r, SessionEnd, Input{Reason: "other"})
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "cancelled (SessionEnd hooks run for at most 100ms together)") {
		t.Fatalf("warnings %q, want the budget EndBudget sets", o.Warnings)
	}
	// A runner With an agent's hooks keeps it.
	if w := r.With(func() Config { return Config{} }, ""); w.EndBudget != r.EndBudget {
		t.Errorf("With: EndBudget %v, want %v", w.EndBudget, r.EndBudget)
	}
}

// A guard (Config.Guards: a hook whose settings the command line left
// out) only refuses: its deny and ask stand, its allow decides nothing
// and brings no updatedPermissions, and a PreToolUse guard's rewrite is
// asked about rather than made or dropped.
func TestGuardOnlyRefuses(t *testing.T) {
	guard := func(r *Runner) *Runner {
		r.Config = r.Config.Guards()
		return r
	}
	for _, c := range []struct {
		name    string
		ev      Event
		body    string
		verdict Verdict
	}{
		{"deny", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}'`, Deny},
		{"exit 2", PreToolUse, `echo no >&2; exit 2`, Deny},
		{"ask", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'`, Ask},
		{"allow", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`, NoVerdict},
		{"approve", PreToolUse, `echo '{"decision": "approve"}'`, NoVerdict},
		{"rewrite", PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "npm test -- --ci"}}}'`, Ask},
		{"rewrite, no decision", PreToolUse, `echo '{"hookSpecificOutput": {"updatedInput": {"command": "npm test -- --ci"}}}'`, Ask},
		{"request: deny", PermissionRequest, `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}'`, Deny},
		{"request: allow", PermissionRequest, `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow",
			"updatedInput": {"command": "npm test"},
			"updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"}]}}}'`, NoVerdict},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := newRunner(t, c.ev, hookSpec{body: c.body})
			o := run(t, guard(r), c.ev, toolInput())
			if o.Verdict != c.verdict || o.UpdatedInput != nil || o.UpdatedPermissions != nil {
				t.Errorf("verdict %v, input %v, updates %+v; want %v and nothing else", o.Verdict, o.UpdatedInput, o.UpdatedPermissions, c.verdict)
			}
			if c.verdict == Deny && o.Reason == "" {
				t.Error("no reason")
			}
		})
	}
	t.Run("a full hook beside it still approves", func(t *testing.T) {
		full, _ := newRunner(t, PreToolUse, hookSpec{body: `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`})
		g, _ := newRunner(t, PreToolUse, hookSpec{body: `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`})
		r := &Runner{Config: Merge(full.Config, g.Config.Guards()), ProjectDir: full.ProjectDir}
		if o := run(t, r, PreToolUse, toolInput()); o.Verdict != Approve {
			t.Errorf("verdict %v, want approve", o.Verdict)
		}
	})
}

// Claude Code's "if" (a permission rule) narrows which calls a tool
// event's hook runs for. A guard runs wherever the call could be what
// its rule names, read as a deny rule reads a call (every form, every
// part of a compound command); an allow counts only where the rule
// covers the call as an allow rule would.
func TestIfRule(t *testing.T) {
	dir := t.TempDir()
	guard := filepath.Join(dir, "guard.sh")
	approve := filepath.Join(dir, "approve.sh")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(guard, []byte("#!/bin/bash\necho no git >&2\nexit 2\n"), 0o755))
	must(os.WriteFile(approve, []byte("#!/bin/bash\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}'\n"), 0o755))
	cfg := mustParse(t, filepath.Join(dir, "settings.json"), `{"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "`+guard+`", "if": "Bash(git push *)"},
		{"type": "command", "command": "`+approve+`", "if": "Bash(git status)"}]}]}`)
	r := &Runner{Config: cfg, ProjectDir: dir}
	bash := func(cmd string) Input {
		return Input{SessionID: "s", Cwd: dir, ToolName: "Bash", ToolInput: map[string]any{"command": cmd}, ToolUseID: "c"}
	}
	for _, c := range []struct {
		cmd  string
		want Verdict
	}{
		{"ls", NoVerdict},                         // neither rule: neither hook runs
		{"git push origin main", Deny},            // the guard
		{"ls && git push origin main", Deny},      // a part
		{"env X=1 git push origin main", Deny},    // a wrapped form
		{"git status", Approve},                   // the approver's call
		{"git status; rm -rf build", NoVerdict},   // not all the approver's rule covers: its allow is dropped
		{"git status && git push origin x", Deny}, // both run; the guard's deny stands
	} {
		if o := run(t, r, PreToolUse, bash(c.cmd)); o.Verdict != c.want {
			t.Errorf("%s: verdict %v, want %v (warnings %q)", c.cmd, o.Verdict, c.want, o.Warnings)
		}
	}
}
