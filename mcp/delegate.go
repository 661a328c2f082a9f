package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/jsonpos"
	"github.com/gen-run/gen/perm"
)

// DelegateRequest is the call the gate would have asked a person about.
type DelegateRequest struct {
	ToolName  string
	Input     map[string]any
	ToolUseID string
	// Agent names the asking agent; "" for the main loop.
	Agent string
}

// DelegateAnswer is a permission-prompt tool's decision.
//
// An Allow is not a decision of the gate: the caller must evaluate the
// call again (with UpdatedInput when it is set, as a new call) and run it
// only if the gate then allows it, with the Updates' session rules added
// for the asking agent only.
type DelegateAnswer struct {
	Allow bool
	// UpdatedInput replaces the call's input; nil keeps it.
	UpdatedInput map[string]any
	// Updates are the addRules entries of updatedPermissions whose
	// destination is "session" (allow answers only).
	Updates []PermissionUpdate
	// Ignored describes the entries of updatedPermissions gen does not
	// apply: other types, other destinations, updates on a deny. Worth a
	// warning; never worth more permission.
	Ignored []string
	// Message is a deny's reason; Interrupt asks to stop the run.
	Message   string
	Interrupt bool
}

// PermissionUpdate is one addRules entry of updatedPermissions.
type PermissionUpdate struct {
	// Behavior is the rule list: "allow", "ask" or "deny".
	Behavior string
	// Rules are rule strings (Bash(npm test), mcp__s__t, ...), each
	// accepted by perm.ParseRule.
	Rules []string
	// Destination is where Claude Code would keep them; always "session".
	Destination string
}

// defaultDenyMessage is a deny's reason when the tool gives none.
const defaultDenyMessage = "denied by the permission-prompt tool"

// AskDelegate asks the permission-prompt tool toolName
// (--permission-prompt-tool mcp__SERVER__TOOL) of m about req, as Claude
// Code does: the tool gets {tool_name, input, tool_use_id, agent} and
// answers with JSON text, {"behavior":"allow","updatedInput":{...},
// "updatedPermissions":[...]} or {"behavior":"deny","message":"..."}.
// "agent" is left out when req.Agent is "" or when the tool's input schema
// is closed and does not declare it.
//
// Any failure is an error, which the caller must treat as Deny: an unknown
// tool, a server that is down, a call that errs or times out (the
// manager's call timeout, or ctx), a result flagged as an error, and an
// answer that is not exactly one of the two shapes.
func AskDelegate(ctx context.Context, m *Manager, toolName string, req DelegateRequest) (DelegateAnswer, error) {
	t, ok := m.Tool(toolName)
	if !ok {
		return DelegateAnswer{}, fmt.Errorf("permission-prompt tool %q: no such MCP tool", toolName)
	}
	input := req.Input
	if input == nil {
		input = map[string]any{}
	}
	args := map[string]any{"tool_name": req.ToolName, "input": input, "tool_use_id": req.ToolUseID}
	if req.Agent != "" && t.accepts("agent") {
		args["agent"] = req.Agent
	}
	res, err := t.callRaw(ctx, args)
	if err != nil {
		return DelegateAnswer{}, fmt.Errorf("permission-prompt tool: %w", err)
	}
	if res.IsError {
		return DelegateAnswer{}, fmt.Errorf("permission-prompt tool %s failed: %s", toolName, render(res, 500))
	}
	var text *sdk.TextContent
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text = tc
			break
		}
	}
	if text == nil {
		return DelegateAnswer{}, fmt.Errorf("permission-prompt tool %s: the answer has no text content", toolName)
	}
	a, err := ParseDelegateAnswer([]byte(text.Text))
	if err != nil {
		return DelegateAnswer{}, fmt.Errorf("permission-prompt tool %s: %w", toolName, err)
	}
	return a, nil
}

// accepts reports whether the tool's input schema allows the argument key.
func (t *Tool) accepts(key string) bool {
	if props, ok := t.params["properties"].(map[string]any); ok {
		if _, ok := props[key]; ok {
			return true
		}
	}
	ap, present := t.params["additionalProperties"]
	if !present {
		return true
	}
	open, isBool := ap.(bool)
	return !isBool || open
}

// ParseDelegateAnswer parses a permission-prompt tool's answer text. Keys
// are matched exactly and may not repeat; unknown keys are ignored, as
// Claude Code ignores them. A behavior other than "allow" or "deny", a
// value of the wrong type, a malformed rule or a malformed
// updatedPermissions entry is an error.
func ParseDelegateAnswer(text []byte) (DelegateAnswer, error) {
	var a DelegateAnswer
	root, err := jsonpos.Decode("answer", text)
	if err != nil {
		return a, fmt.Errorf("the answer is not JSON: %w", err)
	}
	if root.Kind != jsonpos.Object {
		return a, fmt.Errorf("the answer must be a JSON object, not %s", root.Kind)
	}
	seen := make(map[string]bool)
	for _, m := range root.Members {
		if seen[m.Key] {
			return a, fmt.Errorf("the answer repeats the key %q", m.Key)
		}
		seen[m.Key] = true
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		return a, fmt.Errorf("the answer is not JSON: %w", err)
	}
	var behavior string
	if err := json.Unmarshal(raw["behavior"], &behavior); err != nil {
		return a, errors.New(`the answer needs "behavior": "allow" or "deny"`)
	}
	switch behavior {
	case "allow":
		a.Allow = true
		if in, ok := raw["updatedInput"]; ok && string(in) != "null" {
			if err := json.Unmarshal(in, &a.UpdatedInput); err != nil || a.UpdatedInput == nil {
				return DelegateAnswer{}, errors.New("updatedInput must be a JSON object")
			}
		}
		if up, ok := raw["updatedPermissions"]; ok {
			if a.Updates, a.Ignored, err = ParsePermissionUpdates(up); err != nil {
				return DelegateAnswer{}, err
			}
		}
	case "deny":
		a.Message = defaultDenyMessage
		if msg, ok := raw["message"]; ok {
			if err := json.Unmarshal(msg, &a.Message); err != nil {
				return DelegateAnswer{}, errors.New("message must be a string")
			}
			if a.Message == "" {
				a.Message = defaultDenyMessage
			}
		}
		if in, ok := raw["interrupt"]; ok {
			if err := json.Unmarshal(in, &a.Interrupt); err != nil {
				return DelegateAnswer{}, errors.New("interrupt must be a boolean")
			}
		}
		if _, ok := raw["updatedPermissions"]; ok {
			a.Ignored = append(a.Ignored, "updatedPermissions on a deny answer")
		}
	default:
		return a, fmt.Errorf(`behavior %q: must be "allow" or "deny"`, behavior)
	}
	return a, nil
}

// ParsePermissionUpdates parses updatedPermissions in Claude Code's shape:
// an array of {"type": "addRules", "rules": [{"toolName": "Bash",
// "ruleContent": "npm test"}], "behavior": "allow", "destination":
// "session"}. Only addRules entries for the session are returned; the
// others (other destinations, replaceRules, removeRules, setMode,
// addDirectories, removeDirectories) are described in ignored and have no
// effect: gen never writes settings nor widens a run's mode or directories
// on a tool's say-so. A malformed entry of any type is an error, an
// unknown type or destination included (hook.PermissionUpdate.Check, as
// for a PermissionRequest hook's): the answer is then no answer, and the
// call is denied, rather than taken without the entry the tool meant.
func ParsePermissionUpdates(raw json.RawMessage) (updates []PermissionUpdate, ignored []string, err error) {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, errors.New("updatedPermissions must be an array of objects")
	}
	for i, e := range list {
		where := fmt.Sprintf("updatedPermissions[%d]", i)
		var typ string
		if err := json.Unmarshal(e["type"], &typ); err != nil || typ == "" {
			return nil, nil, fmt.Errorf("%s: missing type", where)
		}
		b, _ := json.Marshal(e)
		var wire hook.PermissionUpdate
		if err := json.Unmarshal(b, &wire); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
		if typ != "addRules" {
			if err := wire.Check(); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", where, err)
			}
			ignored = append(ignored, fmt.Sprintf("%s: type %q is not applied", where, typ))
			continue
		}
		var u struct {
			Rules []struct {
				ToolName    *string `json:"toolName"`
				RuleContent *string `json:"ruleContent"`
			} `json:"rules"`
			Behavior    string `json:"behavior"`
			Destination string `json:"destination"`
		}
		if err := json.Unmarshal(b, &u); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
		switch u.Behavior {
		case "allow", "ask", "deny":
		default:
			return nil, nil, fmt.Errorf("%s: behavior %q: must be allow, ask or deny", where, u.Behavior)
		}
		if len(u.Rules) == 0 {
			return nil, nil, fmt.Errorf("%s: addRules needs a non-empty rules array", where)
		}
		up := PermissionUpdate{Behavior: u.Behavior, Destination: u.Destination}
		for j, r := range u.Rules {
			if r.ToolName == nil || *r.ToolName == "" {
				return nil, nil, fmt.Errorf("%s.rules[%d]: missing toolName", where, j)
			}
			s := *r.ToolName
			if r.RuleContent != nil && *r.RuleContent != "" {
				s += "(" + *r.RuleContent + ")"
			}
			if _, err := perm.ParseRule(s); err != nil {
				return nil, nil, fmt.Errorf("%s.rules[%d]: %w", where, j, err)
			}
			up.Rules = append(up.Rules, s)
		}
		if err := wire.Check(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
		if u.Destination != "session" {
			ignored = append(ignored, fmt.Sprintf("%s: destination %q is not applied (gen keeps delegate rules for the session only)", where, u.Destination))
			continue
		}
		updates = append(updates, up)
	}
	return updates, ignored, nil
}
