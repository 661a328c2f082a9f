package perm

import (
	"fmt"

	"github.com/bmatcuk/doublestar/v4"
)

// checkPathPattern validates a path rule pattern.
func checkPathPattern(p string) error {
	if !doublestar.ValidatePattern(p) {
		return fmt.Errorf("invalid path pattern %q", p)
	}
	return nil
}
