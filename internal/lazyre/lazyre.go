// Package lazyre compiles the regular expressions that packages keep in
// variables on first use rather than at package init: Go runs every
// linked package's init on every start, so a regexp.MustCompile there
// costs every command, including the many that never match it.
package lazyre

import (
	"regexp"
	"sync"
)

// MustCompile returns a function that compiles expr on its first call
// and returns that same *regexp.Regexp on every call; it is safe for
// concurrent use. Like regexp.MustCompile it panics if expr does not
// compile, at the first call: the tests of the package that holds expr
// reach it.
func MustCompile(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
