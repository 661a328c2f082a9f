package skill

import (
	"context"
	"fmt"
	"strings"

	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

// Tool is the Skill tool: the model calls it with a skill's name and gets
// the skill's instructions and directory back. It implements tool.Tool and,
// like every tool, must run behind tool.Guard: the gate decides each call
// (Skill(name) and Skill(prefix:*) rules match the "skill" argument).
type Tool struct {
	set *Set
}

// NewTool returns the Skill tool over set; a nil set has no skills.
func NewTool(set *Set) *Tool { return &Tool{set: set} }

// Name implements tool.Tool.
func (t *Tool) Name() string { return "Skill" }

// invocable returns the skills the model may load, sorted by name.
func (t *Tool) invocable() []*Skill {
	var out []*Skill
	if t.set == nil {
		return nil
	}
	for _, k := range t.set.sorted {
		if !k.DisableModelInvocation {
			out = append(out, k)
		}
	}
	return out
}

// Available reports whether the model has any skill to load: a run
// offers the tool only then.
func (t *Tool) Available() bool { return len(t.invocable()) > 0 }

// Schema is the tool's schema for the model: the catalog's Skill schema
// with the available skills (name and description) appended to its
// description, so a model can tell when one applies.
func (t *Tool) Schema() schema.Schema {
	s, ok := schema.Get("Skill")
	if !ok {
		panic("skill: the schema catalog has no Skill tool")
	}
	var b strings.Builder
	b.WriteString(s.Description)
	b.WriteString("\n\nAvailable skills:")
	for _, k := range t.invocable() {
		fmt.Fprintf(&b, "\n- %s: %s", k.Name, oneLine(k.Description))
	}
	s.Description = b.String()
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Run implements tool.Tool. input has been validated against the schema:
// "skill" is a non-empty string, "args" an optional string. The name is
// looked up exactly as sent — the gate matched rules against this same
// string.
func (t *Tool) Run(_ context.Context, call tool.Call) (string, error) {
	input := call.Input
	name, _ := input["skill"].(string)
	args, _ := input["args"].(string)
	var k *Skill
	if t.set != nil {
		var err error
		if k, err = t.set.Get(name); err != nil {
			return "", fmt.Errorf("Skill: %w", err)
		}
	}
	if k == nil || k.DisableModelInvocation {
		var names []string
		for _, k := range t.invocable() {
			names = append(names, k.Name)
		}
		avail := "none"
		if len(names) > 0 {
			avail = strings.Join(names, ", ")
		}
		return "", fmt.Errorf("Skill: unknown skill %q (available: %s)", name, avail)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %q loaded from %s.\n", k.Name, k.Path)
	fmt.Fprintf(&b, "Base directory: %s\nPaths in the instructions are relative to it; read the files they mention with the Read tool when you need them.\n", k.Dir)
	if l := k.allowedList(); l != "" {
		fmt.Fprintf(&b, "The skill lists these tools: %s. This does not change your permissions; each call is still checked.\n", l)
	}
	body := k.Body
	if args != "" && strings.Contains(body, "$ARGUMENTS") {
		body = strings.ReplaceAll(body, "$ARGUMENTS", args)
	} else {
		body = withArguments(body, args)
	}
	fmt.Fprintf(&b, "\n%s\n", body)
	return b.String(), nil
}

var _ tool.Tool = (*Tool)(nil)
