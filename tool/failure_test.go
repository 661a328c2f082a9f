package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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

func (g *failureGate) ReviewFailure(_ context.Context, req perm.Request, err error, _ bool) string {
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

// blocking runs until its call's context is cancelled, after it says it
// started.
type blocking struct{ started chan struct{} }

func (blocking) Name() string { return "Block" }
func (b blocking) Run(ctx context.Context, _ Call) (string, error) {
	close(b.started)
	<-ctx.Done()
	return "", fmt.Errorf("Block: cancelled: %w", ctx.Err())
}

// interruptGate allows every call and records how it is asked to review
// a failure.
type interruptGate struct {
	interrupt, live bool
	deadline        time.Duration
	calls           int
}

func (g *interruptGate) Check(context.Context, perm.Request) perm.Result {
	return perm.Result{Decision: perm.Allow}
}

func (g *interruptGate) ReviewFailure(ctx context.Context, _ perm.Request, _ error, interrupt bool) string {
	g.calls++
	g.interrupt, g.live = interrupt, ctx.Err() == nil
	if d, ok := ctx.Deadline(); ok {
		g.deadline = time.Until(d)
	}
	return "noted"
}

// A call interrupted while it runs is reviewed as a failure, told so, in
// a context of its own that is live and bounded (the call's is done).
func TestInterruptedCallReviewed(t *testing.T) {
	g := &interruptGate{}
	b := blocking{started: make(chan struct{})}
	set, err := NewSet(g, []Tool{b})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-b.started
		cancel()
	}()
	res := set.Call(ctx, "Block", "1", map[string]any{}, nil)
	if g.calls != 1 || !g.interrupt || !g.live || g.deadline <= 0 || g.deadline > interruptReview {
		t.Errorf("reviewed %d times: interrupt %v, live %v, deadline in %v; want once, interrupted, in a live context ending within %v", g.calls, g.interrupt, g.live, g.deadline, interruptReview)
	}
	if res.Err == nil || !strings.HasSuffix(res.Err.Error(), "\n\nnoted") || !errors.Is(res.Err, context.Canceled) {
		t.Errorf("error %v; want the cancellation and the review", res.Err)
	}
}
