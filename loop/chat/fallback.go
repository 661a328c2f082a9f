package chat

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/gen-run/gen/loop"
)

// Fallback answers with Primary until a turn fails because Primary's
// server is overloaded (Overloaded, after Primary's own retries), then
// with Secondary: that turn again and every later one, never Primary
// again (Claude Code's --fallback-model). A turn that failed otherwise,
// or after text had streamed, fails as it did: a broken stream is not an
// overloaded server, and text handed on cannot be taken back.
type Fallback struct {
	Primary, Secondary loop.Model
	// OnSwitch, if set, is told of the error that made Fallback switch,
	// once, when it does.
	OnSwitch func(err error)

	switched atomic.Bool
}

// Complete sends the turn to the model in use.
func (f *Fallback) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if !f.switched.Load() {
		resp, err := f.Primary.Complete(ctx, req)
		if err == nil || !Overloaded(err) || ctx.Err() != nil {
			return resp, err
		}
		if f.switched.CompareAndSwap(false, true) && f.OnSwitch != nil {
			f.OnSwitch(err)
		}
	}
	return f.Secondary.Complete(ctx, req)
}

// Overloaded reports whether err is a server's refusal for load: a 429
// or 5xx status, which comes before any of the answer.
func Overloaded(err error) bool {
	se, ok := errors.AsType[*StatusError](err)
	return ok && se.overloaded()
}

// overloaded reports whether e is a refusal for load (429 or 5xx).
func (e *StatusError) overloaded() bool {
	return e.Code == http.StatusTooManyRequests || e.Code >= 500
}
