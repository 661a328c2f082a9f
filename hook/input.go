package hook

import (
	"bytes"
	"encoding/json"
)

// Input is what a hook is told about the event. Run sends each hook the
// fields of Claude Code's hook input that belong to the event, as one JSON
// object on stdin; fields of other events are left out.
type Input struct {
	// Common to every event.
	SessionID string
	// TranscriptPath is sent even when empty (gen may keep no transcript
	// file).
	TranscriptPath string
	Cwd            string
	// PermissionMode is the mode in effect; sent when not empty.
	PermissionMode string
	// AgentID and AgentType name the subagent the event happened in; both
	// empty in the main loop.
	AgentID, AgentType string

	// Tool events (PreToolUse, PermissionRequest, PermissionDenied,
	// PostToolUse, PostToolUseFailure).
	ToolName  string
	ToolInput map[string]any
	ToolUseID string
	// ToolResponse is the tool's result, for PostToolUse.
	ToolResponse any
	// Error is what the tool failed with, for PostToolUseFailure, and
	// IsInterrupt says the person interrupted the call (Claude Code's
	// is_interrupt).
	Error       string
	IsInterrupt bool
	// PermissionSuggestions are the rules a person would be offered to
	// "always allow", for PermissionRequest.
	PermissionSuggestions []PermissionUpdate
	// Reason is why the call was denied, for PermissionDenied, and why
	// the session ended, for SessionEnd (Claude Code's reasons:
	// prompt_input_exit when the person leaves the prompt, other
	// otherwise).
	Reason string

	// Prompt is the submitted prompt, for UserPromptSubmit.
	Prompt string

	// Message and NotificationType are what a Notification is about
	// ("gen needs your permission to use Bash", permission_prompt).
	Message, NotificationType string

	// StopHookActive is set, for Stop and SubagentStop, when the agent is
	// already continuing because a stop hook blocked it: a hook that
	// always blocks must check it, or the agent never stops.
	StopHookActive bool
	// LastAssistantMessage is the final answer, for Stop and SubagentStop.
	LastAssistantMessage string

	// Source is how the session started (startup, resume, clear, compact),
	// for SessionStart.
	Source string
	// Model is the model name, for SessionStart.
	Model string
}

// subject is what ev's matchers are tested against.
func (in *Input) subject(ev Event) string {
	switch {
	case ev.toolEvent():
		return in.ToolName
	case ev == SessionStart:
		return in.Source
	case ev == SubagentStop || ev == SubagentStart:
		return in.AgentType
	case ev == SessionEnd:
		return in.Reason
	case ev == Notification:
		return in.NotificationType
	}
	return ""
}

// encode renders the JSON a hook of ev receives on stdin.
func (in *Input) encode(ev Event) ([]byte, error) {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": in.TranscriptPath,
		"cwd":             in.Cwd,
		"hook_event_name": string(ev),
	}
	opt := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	opt("permission_mode", in.PermissionMode)
	opt("agent_id", in.AgentID)
	opt("agent_type", in.AgentType)
	if ev.toolEvent() {
		m["tool_name"] = in.ToolName
		ti := in.ToolInput
		if ti == nil {
			ti = map[string]any{}
		}
		m["tool_input"] = ti
		m["tool_use_id"] = in.ToolUseID
	}
	switch ev {
	case PostToolUse:
		m["tool_response"] = in.ToolResponse
	case PostToolUseFailure:
		m["error"] = in.Error
		m["is_interrupt"] = in.IsInterrupt
	case Notification:
		m["message"] = in.Message
		m["notification_type"] = in.NotificationType
	case PermissionRequest:
		if len(in.PermissionSuggestions) > 0 {
			m["permission_suggestions"] = in.PermissionSuggestions
		}
	case PermissionDenied, SessionEnd:
		m["reason"] = in.Reason
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop, SubagentStop:
		m["stop_hook_active"] = in.StopHookActive
		opt("last_assistant_message", in.LastAssistantMessage)
	case SessionStart:
		m["source"] = in.Source
		opt("model", in.Model)
	}
	// Without HTML escaping, as Claude Code (JSON.stringify) writes it: a
	// hook that looks for text in its input without a JSON parser
	// (grep -q '> /etc/', case *'&&'*) must find the command's own >, <
	// and &, which json.Marshal writes as \u003e, \u003c and \u0026.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
