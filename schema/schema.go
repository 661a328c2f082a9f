// Package schema describes the built-in tools to a model: their names,
// descriptions and JSON Schema parameters. It also repairs and checks the
// arguments a model sends back (Normalize, Validate). Which of them a run
// shows the model is a policy question (package policy). It sits on perm
// (tool classes and rules).
//
// The catalog is the single source of truth: the JSON Schema handed to the
// model and the rules Validate enforces are derived from the same
// definitions, so they cannot drift apart.
package schema

import (
	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/internal/lazy"
)

// Schema describes one tool for the model.
type Schema struct {
	Name        string
	Description string
	// Parameters is a JSON Schema of type object; for built-in tools it
	// has additionalProperties false. Every call to Get builds a fresh map, so callers may modify it.
	Parameters map[string]any
}

// Names lists every built-in tool in catalog order. Callers must not modify
// the slice.
func Names() []string { return names.Get() }

var names = lazy.Value[[]string]{New: func() []string {
	cat := catalog.Get()
	names := make([]string, len(cat))
	for i, t := range cat {
		names[i] = t.name
	}
	return names
}}

// byName indexes catalog and the tools offered only when they apply.
var byName = lazy.Value[map[string]*toolDef]{New: func() map[string]*toolDef {
	cat := catalog.Get()
	m := make(map[string]*toolDef, len(cat)+3)
	for _, t := range append(cat[:len(cat):len(cat)], skill.Get(), exitPlan.Get(), enterPlan.Get()) {
		m[t.name] = t
	}
	return m
}}

// Known reports whether name is a built-in tool, the tools Get, Normalize
// and Validate know, without building its schema.
func Known(name string) bool {
	_, ok := byName.Get()[name]
	return ok
}

// Get returns the schema of the named built-in tool. MCP tools and other
// unknown names report false.
func Get(name string) (Schema, bool) {
	t, ok := byName.Get()[name]
	if !ok {
		return Schema{}, false
	}
	return Schema{Name: t.name, Description: t.desc, Parameters: t.params.jsonSchema()}, true
}

// OpenAI returns the named tools as go-openai function tools, in the given
// order. Names that are not built-in tools are skipped: the caller adds MCP
// tools itself.
func OpenAI(names []string) []openai.Tool {
	tools := make([]openai.Tool, 0, len(names))
	for _, n := range names {
		s, ok := Get(n)
		if !ok {
			continue
		}
		tools = append(tools, s.OpenAI())
	}
	return tools
}

// OpenAI returns s as a go-openai function tool. Tools that are not built
// in (MCP tools, the meta-tools of progressive disclosure) describe
// themselves with a Schema and are converted here like the built-ins.
func (s Schema) OpenAI() openai.Tool {
	return openai.Tool{
		Type: openai.ToolTypeFunction,
		Function: &openai.FunctionDefinition{
			Name:        s.Name,
			Description: s.Description,
			Parameters:  s.Parameters,
		},
	}
}
