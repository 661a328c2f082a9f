// Package cost prices a run's model turns and bounds what a run may spend
// (--max-budget-usd). gen talks to any OpenAI-compatible server, so it
// knows no prices of its own: they come from the api.pricing setting, in
// US dollars per million tokens, model by model.
package cost

import (
	"context"
	"errors"
	"fmt"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
)

// Price is what a model's tokens cost, in US dollars per million.
type Price struct {
	Input, Output float64
	// CachedInput is the price of prompt tokens the server read from its
	// cache; nil means Input.
	CachedInput *float64
}

// Of returns the cost of u in US dollars.
func (p Price) Of(u openai.Usage) float64 {
	cached := 0
	if d := u.PromptTokensDetails; d != nil {
		cached = min(d.CachedTokens, u.PromptTokens)
	}
	cachedPrice := p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	return (float64(u.PromptTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(u.CompletionTokens)*p.Output) / 1e6
}

// ErrBudget is the error of a turn a run may not take: its models' turns
// so far cost the budget or more.
var ErrBudget = errors.New("the run reached its budget (--max-budget-usd)")

// Meter adds up what the models of one run cost, subagents' turns
// included (they share the run's models), and refuses turns past Max.
// Safe for concurrent use.
type Meter struct {
	// Max is the budget in US dollars; 0 means none.
	Max float64
	// Parent, if set, is a meter this one's spending counts towards as
	// well, whose budget bounds this one's turns too: a batch's, for one
	// task's.
	Parent *Meter

	mu    sync.Mutex
	spent float64
}

// SpentIfPriced returns what m's turns cost, for a result's
// total_cost_usd; nil for a nil m (a run whose model has no price).
func (m *Meter) SpentIfPriced() *float64 {
	if m == nil {
		return nil
	}
	s := m.Spent()
	return &s
}

// Budgeted reports whether m or a meter above it has a budget. A nil m
// has none.
func (m *Meter) Budgeted() bool {
	for ; m != nil; m = m.Parent {
		if m.Max > 0 {
			return true
		}
	}
	return false
}

// over returns the first meter on the way up from m whose budget is
// spent, with what it spent; nil if none.
func (m *Meter) over() (*Meter, float64) {
	for ; m != nil; m = m.Parent {
		if spent := m.Spent(); m.Max > 0 && spent >= m.Max {
			return m, spent
		}
	}
	return nil, 0
}

// add counts c on m and every meter above it.
func (m *Meter) add(c float64) {
	for ; m != nil; m = m.Parent {
		m.mu.Lock()
		m.spent += c
		m.mu.Unlock()
	}
}

// Spent returns what the turns cost so far.
func (m *Meter) Spent() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// Model returns inner, priced at p: each turn's cost counts towards m, and
// a turn asked for once the run has spent its budget fails with ErrBudget
// without reaching the server. A turn under way when the budget runs out
// finishes (it is paid for): the budget bounds what starts, as Claude
// Code's does, so a run may end a turn's cost above it.
func (m *Meter) Model(inner loop.Model, p Price) loop.Model {
	return &priced{inner: inner, price: p, meter: m}
}

type priced struct {
	inner loop.Model
	price Price
	meter *Meter
}

func (p *priced) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if m, spent := p.meter.over(); m != nil {
		return loop.Response{}, fmt.Errorf("%w: spent $%.4f of $%.4f", ErrBudget, spent, m.Max)
	}
	resp, err := p.inner.Complete(ctx, req)
	// A failed turn reports no usage, and costs nothing here.
	if c := p.price.Of(resp.Usage); c > 0 {
		p.meter.add(c)
	}
	return resp, err
}
