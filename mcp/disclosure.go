package mcp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

// DefaultThreshold is the number of visible tools above which MCP tools are
// disclosed progressively.
const DefaultThreshold = 40

// The meta-tools of progressive disclosure. perm.ClassOf counts both as
// Safe: they only change which schemas the model is shown.
const (
	ListGroupsName = "ListToolGroups"
	LoadGroupName  = "LoadToolGroup"
)

// Visible returns the tools show accepts (policy.ShowsMCP decides which
// tools an agent sees), in order.
func Visible(tools []*Tool, show func(name string) bool) []*Tool {
	var out []*Tool
	for _, t := range tools {
		if show(t.name) {
			out = append(out, t)
		}
	}
	return out
}

// Group is the tools of one server.
type Group struct {
	Name string // the server name
	// About is the start of the server's instructions, if it sent any.
	About string
	Tools []*Tool
}

// Catalog is one run's view of its MCP tools under progressive disclosure:
// the tools grouped by server and which groups the model has loaded. Safe
// for concurrent use.
//
// Loading a group only adds schemas to what the model is shown; every
// call of a loaded tool still goes through the gate like any other.
type Catalog struct {
	groups    []Group // by name
	disclosed bool

	mu     sync.Mutex
	loaded map[string]bool
}

// NewCatalog groups tools (those Visible to the agent) by server.
// Progressive disclosure applies when builtins (the number of built-in
// tools the agent sees) plus len(tools) exceeds threshold (0 means
// DefaultThreshold); otherwise every tool is shown from the start.
func NewCatalog(builtins int, tools []*Tool, threshold int) *Catalog {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	c := &Catalog{disclosed: builtins+len(tools) > threshold, loaded: make(map[string]bool)}
	idx := make(map[string]int)
	for _, t := range tools {
		name := t.Server()
		i, ok := idx[name]
		if !ok {
			i = len(c.groups)
			idx[name] = i
			c.groups = append(c.groups, Group{Name: name, About: t.c.about()})
		}
		c.groups[i].Tools = append(c.groups[i].Tools, t)
	}
	slices.SortFunc(c.groups, func(a, b Group) int { return cmp.Compare(a.Name, b.Name) })
	return c
}

// Disclosed reports whether progressive disclosure is in effect: the model
// sees only the tools of loaded groups, plus the two meta-tools.
func (c *Catalog) Disclosed() bool { return c.disclosed }

// Groups returns the groups, sorted by server name.
func (c *Catalog) Groups() []Group { return slices.Clone(c.groups) }

// Shown returns the MCP tools whose schemas the model should see this
// turn: all of them without disclosure, else those of loaded groups.
func (c *Catalog) Shown() []*Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Tool
	for _, g := range c.groups {
		if !c.disclosed || c.loaded[g.Name] {
			out = append(out, g.Tools...)
		}
	}
	return out
}

// Schemas returns the schemas to send this turn: the meta-tools (under
// disclosure) and the Shown tools.
func (c *Catalog) Schemas() []schema.Schema {
	var out []schema.Schema
	if c.disclosed {
		out = append(out, listGroupsSchema(), loadGroupSchema(c.names()))
	}
	for _, t := range c.Shown() {
		out = append(out, t.Schema())
	}
	return out
}

func (c *Catalog) names() []string {
	names := make([]string, len(c.groups))
	for i, g := range c.groups {
		names[i] = g.Name
	}
	return names
}

// ListGroups is the ListToolGroups meta-tool's answer: one line per group
// with its tools, marking those already loaded.
func (c *Catalog) ListGroups() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.groups) == 0 {
		return "No tool groups."
	}
	var b strings.Builder
	for _, g := range c.groups {
		short := make([]string, len(g.Tools))
		for i, t := range g.Tools {
			_, short[i], _ = SplitName(t.name)
		}
		fmt.Fprintf(&b, "%s: %d tools (%s)", g.Name, len(g.Tools), strings.Join(short, ", "))
		if c.loaded[g.Name] {
			b.WriteString(" [loaded]")
		}
		if g.About != "" {
			b.WriteString(" — " + g.About)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Call %s with a group name to use its tools.", LoadGroupName)
	return b.String()
}

// Load is the LoadToolGroup meta-tool: it shows the group's tools to the
// model for the rest of the run. It grants nothing; calls still go
// through the gate.
func (c *Catalog) Load(group string) (string, error) {
	i := slices.IndexFunc(c.groups, func(g Group) bool { return g.Name == group })
	if i < 0 {
		return "", fmt.Errorf("%s: no tool group %q; groups: %s", LoadGroupName, group, strings.Join(c.names(), ", "))
	}
	c.mu.Lock()
	c.loaded[group] = true
	c.mu.Unlock()
	g := c.groups[i]
	names := make([]string, len(g.Tools))
	for j, t := range g.Tools {
		names[j] = t.name
	}
	return fmt.Sprintf("Loaded %s: %s. They are available from your next step.", group, strings.Join(names, ", ")), nil
}

// Loaded returns the names of the groups loaded so far, sorted: a
// conversation of several runs (the interactive main loop) passes them to
// the next run's catalog (Load) so that loaded groups stay loaded.
func (c *Catalog) Loaded() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, g := range c.groups {
		if c.loaded[g.Name] {
			out = append(out, g.Name)
		}
	}
	return out
}

// MetaTools returns the two meta-tools as tool.Tool values bound to c, to
// register (guarded, like every tool) when c.Disclosed().
func (c *Catalog) MetaTools() []*MetaTool {
	return []*MetaTool{
		{name: ListGroupsName, schema: listGroupsSchema(), run: func(map[string]any) (string, error) { return c.ListGroups(), nil }},
		{name: LoadGroupName, schema: loadGroupSchema(c.names()), run: func(in map[string]any) (string, error) {
			g, _ := in["group"].(string)
			return c.Load(g)
		}},
	}
}

// MetaTool is a progressive-disclosure meta-tool; it implements tool.Tool.
type MetaTool struct {
	name   string
	schema schema.Schema
	run    func(map[string]any) (string, error)
}

// Name returns ListToolGroups or LoadToolGroup.
func (t *MetaTool) Name() string { return t.name }

// Schema returns the tool's schema for the model.
func (t *MetaTool) Schema() schema.Schema { return t.schema }

// Run runs the meta-tool.
func (t *MetaTool) Run(_ context.Context, call tool.Call) (string, error) {
	input := call.Input
	if err := ValidateMeta(t.name, input); err != nil {
		return "", err
	}
	return t.run(input)
}

// ValidateMeta checks a meta-tool's input. It returns an error for names
// that are not meta-tools.
func ValidateMeta(name string, in map[string]any) error {
	switch name {
	case ListGroupsName:
		for k := range in {
			return fmt.Errorf("%s: unknown argument %q", name, k)
		}
		return nil
	case LoadGroupName:
		for k := range in {
			if k != "group" {
				return fmt.Errorf("%s: unknown argument %q", name, k)
			}
		}
		if g, ok := in["group"].(string); !ok || g == "" {
			return fmt.Errorf("%s: argument \"group\" must be a non-empty string", name)
		}
		return nil
	}
	return fmt.Errorf("unknown tool %q", name)
}

func listGroupsSchema() schema.Schema {
	return schema.Schema{
		Name: ListGroupsName,
		Description: "List the groups of additional tools (one group per MCP server) that can be loaded with " +
			LoadGroupName + ", with the tools in each.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
	}
}

func loadGroupSchema(groups []string) schema.Schema {
	return schema.Schema{
		Name: LoadGroupName,
		Description: "Make the tools of one group (see " + ListGroupsName + ") available for the rest of the run. " +
			"Their calls are still subject to the permission rules.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"group": map[string]any{"type": "string", "enum": slices.Clone(groups), "description": "The group (server) name."},
			},
			"required":             []string{"group"},
			"additionalProperties": false,
		},
	}
}
