package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// failureGate allows every call but Write and records the calls it is
// asked to review as failures.
type failureGate struct{ reviewed []string }

func (g *failureGate) Check(_ context.Context, req perm.Request) perm.Result {
	if req.Tool == "Write" {
		return perm.Result{Decision: perm.Deny, Reason: "no writes"}
	}
	return perm.Result{Decision: perm.Allow}
}

func (g *failureGate) ReviewFailure(_ context.Context, req perm.Request, err error) string {
	g.reviewed = append(g.reviewed, req.Tool)
	return "Files live under src/."
}

// redirected is a tool refused after it was allowed, as WebFetch is on a
// redirect the gate denies.
type redirected struct{}

func (redirected) Name() string { return "Fetch" }
func (redirected) Run(context.Context, Call) (string, error) {
	return "", fmt.Errorf("Fetch: redirect to evil.example: %w", ErrDenied)
}

// PostToolUseFailure hooks look at calls that were allowed and failed:
// what they say follows the error the model sees. A denied call (also
// one denied after it was allowed), and a call whose run is being torn
// down, are not theirs.
func TestFailureReview(t *testing.T) {
	env, dir := testEnv(t)
	g := &failureGate{}
	set, err := NewSet(g, append(Toolbox{Env: env}.Tools(), redirected{}))
	if err != nil {
		t.Fatal(err)
	}
	res := set.Call(context.Background(), "Read", "1", map[string]any{"file_path": dir + "/missing.txt"}, nil)
	if res.Err == nil || !strings.HasSuffix(res.Err.Error(), "\n\nFiles live under src/.") || !strings.Contains(res.Err.Error(), "missing.txt") || errors.Unwrap(res.Err) == nil {
		t.Errorf("failed Read: error %v, want the tool's error and the review", res.Err)
	}
	res = set.Call(context.Background(), "Write", "2", map[string]any{"file_path": dir + "/x.txt", "content": "x"}, nil)
	if !IsDenied(res.Err) || strings.Contains(res.Err.Error(), "Files live") {
		t.Errorf("denied Write: error %v, want the denial alone", res.Err)
	}
	res = set.Call(context.Background(), "Fetch", "3", map[string]any{}, nil)
	if !IsDenied(res.Err) || strings.Contains(res.Err.Error(), "Files live") {
		t.Errorf("redirected Fetch: error %v, want the denial alone", res.Err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = set.Call(ctx, "Read", "4", map[string]any{"file_path": dir + "/missing.txt"}, nil)
	if res.Err == nil || strings.Contains(res.Err.Error(), "Files live") {
		t.Errorf("cancelled Read: error %v, want no review", res.Err)
	}
	if len(g.reviewed) != 1 || g.reviewed[0] != "Read" {
		t.Errorf("reviewed %q, want the failed Read only", g.reviewed)
	}
}
