package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

// maxDescription bounds a tool description shown to the model; servers
// sometimes ship whole manuals.
const maxDescription = 2048

// Tool is one tool of an MCP server, as the model sees it. It implements
// tool.Tool, unguarded like the built-in tools: the loop must wrap it with
// tool.Guard, and the gate treats it as an Exec-class tool whatever its
// annotations say.
type Tool struct {
	c           *conn
	m           *Manager
	name        string // mcp__SERVER__TOOL
	remote      string // the server's own name for it
	desc        string
	params      map[string]any
	annotations *sdk.ToolAnnotations
	validator   *jsonschema.Resolved // nil: the schema is left to the server
}

// ToolName returns the name the model sees for a server's tool: "mcp__",
// the server name, "__", and the tool's name with every character other
// than an ASCII letter, digit, '_' or '-' replaced by '_'.
func ToolName(server, tool string) string {
	return "mcp__" + server + "__" + strings.Map(func(r rune) rune {
		if perm.MCPNameChar(r) {
			return r
		}
		return '_'
	}, tool)
}

// SplitName splits a tool name mcp__SERVER__TOOL into its server and tool
// parts; ok is false for names that are not MCP tool names.
func SplitName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || !ValidName(server) || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// newTool describes rt, a tool of c's server. A tool that cannot be offered
// (a name too long for the API, a schema that is not an object) yields a
// note saying why instead.
func newTool(m *Manager, c *conn, rt *sdk.Tool) (*Tool, string) {
	if rt.Name == "" {
		return nil, "a tool without a name was skipped"
	}
	name := ToolName(c.srv.Name, rt.Name)
	if len(name) > maxToolName {
		return nil, fmt.Sprintf("tool %q skipped: %s is longer than %d characters", rt.Name, name, maxToolName)
	}
	params, err := objectSchema(rt.InputSchema)
	if err != nil {
		return nil, fmt.Sprintf("tool %q skipped: %v", rt.Name, err)
	}
	desc := rt.Description
	if desc == "" {
		desc = rt.Title
	}
	if len(desc) > maxDescription {
		desc = desc[:maxDescription] + "…"
	}
	t := &Tool{c: c, m: m, name: name, remote: rt.Name, desc: desc, params: params, annotations: rt.Annotations}
	// Validation here only gives the model an early, precise error; the
	// server validates too. A schema the library cannot resolve (a remote
	// $ref, an older draft) is left to the server rather than refusing
	// every call.
	if raw, err := json.Marshal(params); err == nil {
		var s jsonschema.Schema
		if json.Unmarshal(raw, &s) == nil {
			if rs, err := s.Resolve(nil); err == nil {
				t.validator = rs
			}
		}
	}
	return t, ""
}

// objectSchema checks that an input schema describes an object and
// returns it as a map.
func objectSchema(in any) (map[string]any, error) {
	if in == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("input schema is not a JSON object")
	}
	switch t := m["type"]; t {
	case nil:
		m["type"] = "object"
	case "object":
	default:
		return nil, fmt.Errorf("input schema has type %v, not object", t)
	}
	return m, nil
}

// Name returns mcp__SERVER__TOOL.
func (t *Tool) Name() string { return t.name }

// Server returns the name of the tool's server.
func (t *Tool) Server() string { return t.c.srv.Name }

// Remote returns the server's own name for the tool.
func (t *Tool) Remote() string { return t.remote }

// Description returns the server's description of the tool.
func (t *Tool) Description() string { return t.desc }

// Annotations returns the server's hints (readOnlyHint, destructiveHint,
// ...), or nil. They are for display only: a server describes itself, so
// no hint ever allows a call.
func (t *Tool) Annotations() *sdk.ToolAnnotations { return t.annotations }

// Schema returns the tool's description and input JSON Schema for the
// model. Every call builds a fresh copy of the top level.
func (t *Tool) Schema() schema.Schema {
	return schema.Schema{Name: t.name, Description: t.desc, Parameters: maps.Clone(t.params)}
}

// Validate checks input against the tool's input schema, when the schema
// could be resolved locally; the error names the tool.
func (t *Tool) Validate(input map[string]any) error {
	if t.validator == nil {
		return nil
	}
	if input == nil {
		input = map[string]any{}
	}
	if err := t.validator.Validate(input); err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	return nil
}

// Run calls the tool; see Manager.Call.
func (t *Tool) Run(ctx context.Context, call tool.Call) (string, error) {
	input := call.Input
	return t.call(ctx, input)
}

func (t *Tool) call(ctx context.Context, args map[string]any) (string, error) {
	res, err := t.callRaw(ctx, args)
	if err != nil {
		return "", err
	}
	out := render(res, t.m.opts.MaxOutput)
	if res.IsError {
		return "", fmt.Errorf("%s: %s", t.name, out)
	}
	return out, nil
}

// callRaw calls the tool within the call timeout; errors name the tool.
func (t *Tool) callRaw(ctx context.Context, args map[string]any) (*sdk.CallToolResult, error) {
	if keep := t.m.opts.Keep; keep != nil && t.c.status().State == StateConnected {
		if err := keep(t.c.srv); err != nil {
			t.m.stop(t.c, fmt.Errorf("MCP server %q stopped: %w", t.c.srv.Name, err))
		}
	}
	st := t.c.status()
	if st.State != StateConnected {
		if st.Err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, st.Err)
		}
		return nil, fmt.Errorf("%s: MCP server %q is %s", t.name, t.c.srv.Name, st.State)
	}
	if args == nil {
		args = map[string]any{} // arguments must be an object, never null
	}
	timeout := t.m.opts.CallTimeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := t.c.cs.CallTool(cctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("%s: cancelled: %w", t.name, ctx.Err())
		case cctx.Err() == context.DeadlineExceeded:
			return nil, fmt.Errorf("%s: no answer within %s (the MCP call timeout)", t.name, timeout)
		}
		if st := t.c.status(); st.Err != nil {
			return nil, fmt.Errorf("%s: %w (%w)", t.name, err, st.Err)
		}
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return res, nil
}

// Validator returns a function for loop.Runner.Validate: inputs of this
// manager's tools are checked by their input schemas, everything else by
// next (schema.Validate). The meta-tools of progressive disclosure are
// checked too.
func (m *Manager) Validator(next func(string, map[string]any) error) func(string, map[string]any) error {
	return func(name string, in map[string]any) error {
		if t, ok := m.Tool(name); ok {
			return t.Validate(in)
		}
		if name == ListGroupsName || name == LoadGroupName {
			return ValidateMeta(name, in)
		}
		return next(name, in)
	}
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

var (
	_ tool.Tool = (*Tool)(nil)
	_ tool.Tool = (*MetaTool)(nil)
)
