//go:build !linux

package bash

import (
	"fmt"
	"os"
)

// confineBash cannot confine bash here: the oracles are skipped.
func confineBash(dir string, args []string) int {
	fmt.Fprintln(os.Stderr, "landlock: not on this platform")
	return confineFailed
}
