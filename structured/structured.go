// Package structured is --json-schema: the StructuredOutput tool through
// which a headless run's main loop hands over its answer as a JSON object
// that a schema the user gave validates, as Claude Code's structured
// output does. The run's result carries the object (report.Run).
package structured

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

// Name is the tool's name. perm counts it a safe tool (perm.ClassOf): it
// only hands an answer over.
const Name = "StructuredOutput"

// Nudge is what the run is told when its model ends without calling the
// tool; the session says it at most Tries times before the run fails.
const Nudge = "You have not called the " + Name + " tool. Call it now with your final answer as its input; it must match the tool's schema."

// Tries bounds the nudges of one turn.
const Tries = 3

// ErrMissing is the error of a run whose model never gave a valid answer
// through the tool.
var ErrMissing = errors.New("the model did not call " + Name + " with an answer the --json-schema schema validates")

// Output is the tool of one run. Safe for concurrent use.
type Output struct {
	params   map[string]any // the schema, as the model is shown it
	resolved *jsonschema.Resolved

	mu    sync.Mutex
	value map[string]any
}

// New compiles the JSON Schema data. It must describe an object (a tool's
// input is one), and may not refer to other documents: gen does not fetch
// schemas.
func New(data []byte) (*Output, error) {
	var params map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&params); err != nil || dec.More() {
		if err == nil {
			err = errors.New("more after the schema")
		}
		return nil, fmt.Errorf("want a JSON Schema object: %w", err)
	}
	if params == nil {
		return nil, errors.New("want a JSON Schema object, not null")
	}
	if params["type"] != "object" {
		return nil, errors.New(`the schema must describe an object ("type": "object"): the answer is the input of a tool call`)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("not a usable JSON Schema: %w", err)
	}
	return &Output{params: params, resolved: resolved}, nil
}

// Name implements tool.Tool.
func (o *Output) Name() string { return Name }

// Schema is the tool's schema for the model: the user's schema is its
// input's.
func (o *Output) Schema() schema.Schema {
	return schema.Schema{
		Name: Name,
		Description: "Give your final answer as structured data. Call this once, when you are done, " +
			"with the answer as the input; it must match the schema. Then end your turn.",
		Parameters: o.params,
	}
}

// Validate checks a call's input against the schema.
func (o *Output) Validate(in map[string]any) error {
	if err := o.resolved.Validate(in); err != nil {
		return fmt.Errorf("%s: the input does not match the --json-schema schema: %w", Name, err)
	}
	return nil
}

// Run keeps a valid answer; the latest one counts.
func (o *Output) Run(_ context.Context, call tool.Call) (string, error) {
	if err := o.Validate(call.Input); err != nil {
		return "", err
	}
	b, err := json.Marshal(call.Input)
	if err != nil {
		return "", fmt.Errorf("%s: %w", Name, err)
	}
	var v map[string]any // a copy the model's later calls cannot touch
	if err := json.Unmarshal(b, &v); err != nil {
		return "", fmt.Errorf("%s: %w", Name, err)
	}
	o.mu.Lock()
	o.value = v
	o.mu.Unlock()
	return "Structured output provided successfully.", nil
}

// Value returns the answer the model gave, if it gave one since Reset.
func (o *Output) Value() (map[string]any, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.value, o.value != nil
}

// Reset forgets the answer, for the next turn of a conversation.
func (o *Output) Reset() {
	o.mu.Lock()
	o.value = nil
	o.mu.Unlock()
}
