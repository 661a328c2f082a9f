package hook

import (
	"fmt"
	"slices"

	"github.com/gen-run/gen/perm"
)

// PermissionUpdate is a change to the permission rules, in Claude Code's
// wire shape: a PermissionRequest hook may return them with an allow
// ("updatedPermissions"), and PermissionRequest input offers them as
// "permission_suggestions".
//
//	{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
//	 "behavior": "allow", "destination": "session"}
//
// The updates in an Outcome have been validated (known type, behavior and
// destination; every rule parses with perm.ParseRule). Applying them is
// the caller's choice: they widen the policy, so a caller should accept
// only what the user could have granted by hand (gen applies "session"
// addRules to the asking agent only).
type PermissionUpdate struct {
	// Type is addRules, replaceRules, removeRules, setMode,
	// addDirectories or removeDirectories.
	Type string `json:"type"`
	// Rules, Behavior: for the three rule types.
	Rules    []RuleValue `json:"rules,omitempty"`
	Behavior string      `json:"behavior,omitempty"`
	// Mode: for setMode.
	Mode string `json:"mode,omitempty"`
	// Directories: for the two directory types.
	Directories []string `json:"directories,omitempty"`
	// Destination is session, localSettings, projectSettings,
	// userSettings or cliArg.
	Destination string `json:"destination"`
}

// RuleValue is one rule of a PermissionUpdate: Bash with ruleContent
// "npm test" is the rule Bash(npm test); without ruleContent it is the
// bare tool name.
type RuleValue struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
}

// String is the rule in gen's written form.
func (v RuleValue) String() string {
	if v.RuleContent == "" {
		return v.ToolName
	}
	return v.ToolName + "(" + v.RuleContent + ")"
}

// RuleValueOf converts a parsed rule to its wire form.
func RuleValueOf(r perm.Rule) RuleValue {
	return RuleValue{ToolName: r.Tool, RuleContent: r.Pattern}
}

// AddRules is an addRules update of rules with behavior (allow, deny or
// ask) for destination: what a caller offers a PermissionRequest hook as
// suggestions (perm.Suggest's rules, parsed).
func AddRules(behavior, destination string, rules ...perm.Rule) PermissionUpdate {
	u := PermissionUpdate{Type: "addRules", Behavior: behavior, Destination: destination}
	for _, r := range rules {
		u.Rules = append(u.Rules, RuleValueOf(r))
	}
	return u
}

// ParsedRules returns u's rules parsed. They were checked when the Outcome
// was built, so the error is only for updates built by hand.
func (u PermissionUpdate) ParsedRules() ([]perm.Rule, error) {
	out := make([]perm.Rule, 0, len(u.Rules))
	for _, v := range u.Rules {
		r, err := perm.ParseRule(v.String())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RuleStrings returns u's rules written as gen writes them: Bash(npm test).
func (u PermissionUpdate) RuleStrings() []string {
	out := make([]string, len(u.Rules))
	for i, v := range u.Rules {
		out[i] = v.String()
	}
	return out
}

// Check validates u as Claude Code's wire shape has it: a known type,
// behavior and destination, and every rule parsing with perm.ParseRule.
// That u is valid does not mean gen applies it (it applies only session
// addRules).
func (u PermissionUpdate) Check() error {
	if !slices.Contains([]string{"session", "localSettings", "projectSettings", "userSettings", "cliArg"}, u.Destination) {
		return fmt.Errorf("unknown destination %q", u.Destination)
	}
	switch u.Type {
	case "addRules", "replaceRules", "removeRules":
		if !slices.Contains([]string{"allow", "deny", "ask"}, u.Behavior) {
			return fmt.Errorf("%s: unknown behavior %q", u.Type, u.Behavior)
		}
		if len(u.Rules) == 0 && u.Type != "replaceRules" {
			return fmt.Errorf("%s without rules", u.Type)
		}
		for _, v := range u.Rules {
			if v.ToolName == "" {
				return fmt.Errorf("%s: a rule without toolName", u.Type)
			}
		}
		_, err := u.ParsedRules()
		return err
	case "setMode":
		if _, err := perm.ParseMode(u.Mode); err != nil || u.Mode == "" {
			return fmt.Errorf("setMode: unknown mode %q", u.Mode)
		}
	case "addDirectories", "removeDirectories":
		if len(u.Directories) == 0 {
			return fmt.Errorf("%s without directories", u.Type)
		}
	default:
		return fmt.Errorf("unknown update type %q", u.Type)
	}
	return nil
}
