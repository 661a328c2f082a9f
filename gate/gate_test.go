package gate

import (
	"context"
	"testing"

	"github.com/gen-run/gen/perm"
)

type askerFunc func(perm.Request, perm.Result) perm.Result

func (f askerFunc) Ask(_ context.Context, req perm.Request, res perm.Result, _ func() perm.Policy) perm.Result {
	return f(req, res)
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	pol := perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: dir, Root: dir, Home: dir}}
	write := perm.Request{Tool: "Write", Input: map[string]any{"file_path": "a.txt", "content": "x"}}
	read := perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}
	asked := 0
	tests := []struct {
		name  string
		asker Asker
		req   perm.Request
		want  perm.Decision
		step  int
		asks  int
	}{
		{"allowed without asking", askerFunc(func(perm.Request, perm.Result) perm.Result { asked++; return perm.Result{} }), read, perm.Allow, 7, 0},
		{"no asker: step 8 denies", nil, write, perm.Deny, 8, 0},
		{"the asker allows", askerFunc(func(_ perm.Request, r perm.Result) perm.Result { asked++; r.Decision = perm.Allow; return r }), write, perm.Allow, 7, 1},
		{"the asker denies", askerFunc(func(_ perm.Request, r perm.Result) perm.Result { asked++; r.Decision = perm.Deny; return r }), write, perm.Deny, 7, 1},
		{"unanswered is step 8", askerFunc(func(_ perm.Request, r perm.Result) perm.Result { asked++; return r }), write, perm.Deny, 8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = 0
			g := &Gate{Policy: func() perm.Policy { return pol }, Asker: tt.asker}
			got := g.Check(context.Background(), tt.req)
			if got.Decision != tt.want || got.Step != tt.step || asked != tt.asks {
				t.Errorf("got %v step %d (%s), asked %d times; want %v step %d, asked %d", got.Decision, got.Step, got.Reason, asked, tt.want, tt.step, tt.asks)
			}
		})
	}
	if got := Fixed(pol).Check(context.Background(), write); got.Decision != perm.Deny || got.Step != 8 {
		t.Errorf("Fixed: %v step %d", got.Decision, got.Step)
	}
}

// reevaluator is an Asker, Answerer or Stopper that evaluates the call
// again under the policy the gate hands it, as session.Session.Ask and the
// permission-prompt delegate do, after wait: what happens while a person
// or a tool takes their time.
type reevaluator struct {
	wait func()
	got  []perm.Result
}

func (r *reevaluator) eval(req perm.Request, policy func() perm.Policy) perm.Result {
	p := policy()
	before := perm.Evaluate(req, &p)
	r.wait()
	p = policy()
	after := perm.Evaluate(req, &p)
	r.got = append(r.got, before, after)
	return after
}

func (r *reevaluator) Ask(_ context.Context, req perm.Request, _ perm.Result, policy func() perm.Policy) perm.Result {
	return r.eval(req, policy)
}

type reanswerer struct{ *reevaluator }

func (r reanswerer) Answer(_ context.Context, req perm.Request, _ perm.Result, policy func() perm.Policy) Answer {
	return Answer{Result: r.eval(req, policy)}
}

type restopper struct{ *reevaluator }

func (r restopper) AskStop(_ context.Context, req perm.Request, _ perm.Result, policy func() perm.Policy) (perm.Result, string) {
	return r.eval(req, policy), ""
}

// The policy an Asker is handed is the asking gate's as it is when the
// Asker calls it, not as it was when the gate asked: a grant another
// dialog made while this one waited (the base policy's session rules)
// and a rule added to the gate meanwhile (a PermissionRequest hook's or a
// delegate's, AddRules) both decide the call when it is evaluated again.
func TestAskerPolicyIsLive(t *testing.T) {
	dir := t.TempDir()
	touch := perm.Request{Tool: "Bash", Input: map[string]any{"command": "touch a"}}
	for _, kind := range []string{"Asker", "Answerer", "Stopper"} {
		t.Run(kind, func(t *testing.T) {
			var session []perm.Rule
			g := &Gate{Policy: func() perm.Policy {
				return perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: dir, Root: dir, Home: dir}, Session: session}
			}}
			r := &reevaluator{}
			switch kind {
			case "Asker":
				g.Asker = r
			case "Answerer":
				g.Asker = reanswerer{r}
			case "Stopper":
				g.Asker = restopper{r}
			}
			// Another dialog grants Bash for the session meanwhile.
			r.wait = func() { session = []perm.Rule{mustRule(t, "Bash")} }
			if res := g.Check(context.Background(), touch); res.Decision != perm.Allow || len(r.got) != 2 || r.got[0].Decision != perm.Ask {
				t.Fatalf("the grant made meanwhile: %v (%s), the Asker saw %+v", res.Decision, res.Reason, r.got)
			}
			// A deny rule is added to the gate meanwhile.
			session, r.got = nil, nil
			r.wait = func() {
				if err := g.AddRules(Rules{Deny: []perm.Rule{mustRule(t, "Bash(touch:*)")}}); err != nil {
					t.Fatal(err)
				}
			}
			if res := g.Check(context.Background(), touch); res.Decision != perm.Deny || len(r.got) != 2 || r.got[0].Decision != perm.Ask || r.got[1].Rule != "Bash(touch:*)" {
				t.Errorf("the deny rule added meanwhile: %v (%s), the Asker saw %+v", res.Decision, res.Reason, r.got)
			}
		})
	}
}
