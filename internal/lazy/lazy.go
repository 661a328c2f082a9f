// Package lazy holds values that are built on first use rather than at
// package init: Go runs every linked package's init on every start, so a
// table built there (a map literal, a set, a parsed spec) costs every
// command, including the many that never look at it.
package lazy

import (
	"sync"
	"sync/atomic"
)

// Value is a value New builds on the first call of Get. A package-level
// Value written as a composite literal whose New is a function literal
// that captures nothing takes no work at init: the compiler lays it out
// in the binary. (A constructor taking New would allocate, so there is
// none.) New must not be nil and must not call Get on the same Value.
// Get is safe for concurrent use; a Value must not be copied after its
// first use.
type Value[T any] struct {
	New  func() T
	done atomic.Bool
	mu   sync.Mutex
	v    T
}

// Get returns the value, building it with New on the first call; every
// call returns what that first call built. It is small enough to inline:
// after the first call it costs one atomic load, which matters where a
// table is read per word of a command.
func (l *Value[T]) Get() T {
	if !l.done.Load() {
		l.build()
	}
	return l.v
}

// build runs New once, under mu; the callers that wait for it see done
// set when they take mu.
func (l *Value[T]) build() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done.Load() {
		l.v = l.New()
		l.done.Store(true)
	}
}
