package gate

import (
	"context"
	"testing"

	"github.com/gen-run/gen/perm"
)

type askerFunc func(perm.Request, perm.Result) perm.Result

func (f askerFunc) Ask(_ context.Context, req perm.Request, res perm.Result) perm.Result {
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
