// Package lazyre compiles the regular expressions that packages keep in
// variables on first use rather than at package init: Go runs every
// linked package's init on every start, so a regexp.MustCompile there
// costs every command, including the many that never match it.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on its first use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// MustCompile returns a Regexp that compiles expr on the first call of
// Get. It is small enough to inline, so a package-level
// `var re = lazyre.MustCompile(...)` is laid out in the binary and takes
// no work at init. Like regexp.MustCompile it panics if expr does not
// compile, at the first Get: the tests of the package that holds expr
// reach it.
func MustCompile(expr string) *Regexp { return &Regexp{expr: expr} }

// Get returns the compiled expression, the same *regexp.Regexp on every
// call; it is safe for concurrent use.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(r.compile)
	return r.re
}

func (r *Regexp) compile() { r.re = regexp.MustCompile(r.expr) }
