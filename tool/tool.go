// Package tool implements the built-in tools an agent can call (Read, Glob,
// Grep, Write, Edit, Bash, ...) and the permission decorator that every one
// of them runs behind.
//
// A Tool never decides whether it may run: Guard asks a Gate first, and a
// tool that is not wrapped by Guard must not be handed to a loop.
package tool

import (
	"context"
	"errors"

	"github.com/gen-run/gen/perm"
)

// Tool is one callable tool. Input has already been normalised and validated
// against the tool's schema (package schema) when Run is called.
type Tool interface {
	Name() string
	Run(ctx context.Context, input map[string]any) (string, error)
}

// Gate decides one call. Implementations resolve Ask themselves (by asking a
// person, or by coercing it to Deny), so the Decision they return is Allow or
// Deny. A Gate must be safe for concurrent use.
type Gate interface {
	Check(ctx context.Context, req perm.Request) perm.Result
}

// DeniedError is returned by a guarded tool whose call the gate refused.
// Its message is what the model sees: "DENIED: <reason>".
type DeniedError struct{ Result perm.Result }

func (e *DeniedError) Error() string { return "DENIED: " + e.Result.Reason }

// IsDenied reports whether err is (or wraps) a DeniedError.
func IsDenied(err error) bool {
	var d *DeniedError
	return errors.As(err, &d)
}

// Guard returns t wrapped by the permission decorator: each Run first asks
// g, and a call that is not allowed returns a *DeniedError without running.
func Guard(t Tool, g Gate) Tool { return guarded{t, g} }

type guarded struct {
	t Tool
	g Gate
}

func (w guarded) Name() string { return w.t.Name() }

func (w guarded) Run(ctx context.Context, input map[string]any) (string, error) {
	res := w.g.Check(ctx, perm.Request{Tool: w.t.Name(), Input: input})
	if res.Decision != perm.Allow {
		return "", &DeniedError{Result: res}
	}
	if res.Path != "" {
		ctx = context.WithValue(ctx, checkedKey{}, res.Path)
	}
	return w.t.Run(ctx, input)
}

type checkedKey struct{}

// checkedPath is the resolved file path the gate allowed for the call
// running with ctx, or "" if the gate named none.
func checkedPath(ctx context.Context) string {
	p, _ := ctx.Value(checkedKey{}).(string)
	return p
}
