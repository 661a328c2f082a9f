// Package linktest makes the directory trees the tests of symbolic-link
// handling start from.
package linktest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
)

// Dirs makes two directories a and b in a fresh temporary directory base
// (its links resolved) and a symbolic link base/link pointing at a. It
// returns their paths.
func Dirs(tb testing.TB, a, b, link string) (base, aDir, bDir, linkPath string) {
	tb.Helper()
	base = testtree.Dir(tb)
	aDir, bDir, linkPath = filepath.Join(base, a), filepath.Join(base, b), filepath.Join(base, link)
	for _, d := range []string{aDir, bDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink(aDir, linkPath); err != nil {
		tb.Fatal(err)
	}
	return base, aDir, bDir, linkPath
}
