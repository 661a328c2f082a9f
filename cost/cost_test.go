package cost

import (
	"context"
	"errors"
	"math"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
)

func TestPriceOf(t *testing.T) {
	cachedPrice := 0.5
	u := openai.Usage{PromptTokens: 3_000_000, CompletionTokens: 1_000_000,
		PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: 1_000_000}}
	for _, tc := range []struct {
		p    Price
		want float64
	}{
		{Price{Input: 2, Output: 10}, 2*3 + 10},
		{Price{Input: 2, Output: 10, CachedInput: &cachedPrice}, 2*2 + 0.5 + 10},
		{Price{}, 0},
	} {
		if got := tc.p.Of(u); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v.Of = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// turns is a model whose every turn reports usage.
type turns struct {
	usage openai.Usage
	n     int
}

func (m *turns) Complete(context.Context, loop.Request) (loop.Response, error) {
	m.n++
	return loop.Response{Usage: m.usage}, nil
}

// Turns start until what the run spent reaches the budget; the turn that
// crosses it finishes, the next does not reach the model. Two models
// priced by one meter share its budget.
func TestMeterBudget(t *testing.T) {
	m := &Meter{Max: 0.25}
	a := &turns{usage: openai.Usage{PromptTokens: 100_000}}    // $0.10 a turn at $1/Mtok
	b := &turns{usage: openai.Usage{CompletionTokens: 50_000}} // $0.10 a turn at $2/Mtok
	pa, pb := m.Model(a, Price{Input: 1, Output: 1}), m.Model(b, Price{Input: 2, Output: 2})
	ctx := context.Background()
	for i, model := range []loop.Model{pa, pb, pa} {
		if _, err := model.Complete(ctx, loop.Request{}); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	if _, err := pb.Complete(ctx, loop.Request{}); !errors.Is(err, ErrBudget) {
		t.Fatalf("turn 4 after $%.2f of $0.25: %v, want ErrBudget", m.Spent(), err)
	}
	if a.n != 2 || b.n != 1 {
		t.Errorf("the models answered %d and %d turns, want 2 and 1", a.n, b.n)
	}
	if got := m.Spent(); math.Abs(got-0.3) > 1e-9 {
		t.Errorf("Spent() = %v, want 0.30", got)
	}

	free := &Meter{}
	pf := free.Model(a, Price{Input: 1})
	for range 5 {
		if _, err := pf.Complete(ctx, loop.Request{}); err != nil {
			t.Fatalf("no budget, yet %v", err)
		}
	}
}

// A task's meter counts towards its batch's, and the batch's budget
// bounds every task's turns; a task's own cost is its own.
func TestMeterParent(t *testing.T) {
	batch := &Meter{Max: 0.15}
	t1, t2 := &Meter{Parent: batch}, &Meter{Parent: batch}
	if !t1.Budgeted() || (&Meter{}).Budgeted() || (*Meter)(nil).Budgeted() {
		t.Fatal("Budgeted does not look up the chain")
	}
	a := &turns{usage: openai.Usage{PromptTokens: 100_000}} // $0.10 a turn
	m1, m2 := t1.Model(a, Price{Input: 1}), t2.Model(a, Price{Input: 1})
	ctx := context.Background()
	if _, err := m1.Complete(ctx, loop.Request{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Complete(ctx, loop.Request{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m1.Complete(ctx, loop.Request{}); !errors.Is(err, ErrBudget) {
		t.Fatalf("after $%.2f of the batch's $0.15: %v, want ErrBudget", batch.Spent(), err)
	}
	if *t1.SpentIfPriced() != 0.1 || *t2.SpentIfPriced() != 0.1 || math.Abs(batch.Spent()-0.2) > 1e-9 {
		t.Errorf("spent: task 1 %v, task 2 %v, batch %v", t1.Spent(), t2.Spent(), batch.Spent())
	}
	if (*Meter)(nil).SpentIfPriced() != nil {
		t.Error("a nil meter reports a cost")
	}
}
