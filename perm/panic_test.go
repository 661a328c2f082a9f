package perm

import (
	"strings"
	"testing"
)

// TestAnalysisFailureDenies: a call whose analysis fails (a bug the
// model's input reaches) is denied with the failure as the reason, in
// every mode, and the next call is decided as usual.
func TestAnalysisFailureDenies(t *testing.T) {
	f := newFixture(t)
	failHook = func(req Request) {
		if req.Input["command"] == "boom" {
			panic("index out of range")
		}
	}
	defer func() { failHook = nil }()
	for _, m := range []Mode{ModeDefault, ModeBypass} {
		p := &Policy{Mode: m, Workspace: f.ws()}
		got := Evaluate(bashReq("boom"), p)
		if got.Decision != Deny || !strings.Contains(got.Reason, "index out of range") {
			t.Errorf("%s: Evaluate(boom) = %v %q; want deny naming the failure", m, got.Decision, got.Reason)
		}
		if got := Evaluate(bashReq("ls"), p); got.Decision != Allow {
			t.Errorf("%s: Evaluate(ls) after a failure = %v %q; want allow", m, got.Decision, got.Reason)
		}
		// A batch's Resolver forgets what the failed call left, and
		// its lock is free for the next call.
		res := NewResolver(0)
		res.Evaluate(bashReq("ls"), p)
		if got := res.Evaluate(bashReq("boom"), p); got.Decision != Deny || res.Len() != 0 {
			t.Errorf("%s: with a Resolver, Evaluate(boom) = %v, %d answers kept; want deny, none", m, got.Decision, res.Len())
		}
		if got := res.Evaluate(bashReq("ls"), p); got.Decision != Allow {
			t.Errorf("%s: with a Resolver, Evaluate(ls) after a failure = %v %q; want allow", m, got.Decision, got.Reason)
		}
	}
}
