package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrepSwapAfterCheck: a file Grep's filter let through is replaced
// by a symbolic link to a denied file between the check and the open
// (a background command racing the walk). Grep must not show the denied
// file's content.
func TestGrepSwapAfterCheck(t *testing.T) {
	for _, start := range []string{"", "notes", "d"} {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{".env": "KEYX\n", "notes": "plain\n", "d/notes": "plain\n", "secret/notes": "KEYX\n"})
		denied := func(p string) bool {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return true
			}
			return real == filepath.Join(dir, ".env") || strings.HasPrefix(real, filepath.Join(dir, "secret"))
		}
		// The walk checks a file twice (as it lists it and as it opens
		// it); the swap follows the last check.
		last := map[string]int{"": 2, "notes": 1, "d": 2}[start]
		calls := map[string]int{}
		env.CanRead = func(tool, p string) bool {
			if denied(p) {
				return false
			}
			if calls[p]++; calls[p] != last {
				return true
			}
			// The swap, right after the check allowed p.
			switch p {
			case filepath.Join(dir, "notes"):
				os.Remove(p)
				if err := os.Symlink(".env", p); err != nil {
					t.Fatal(err)
				}
			case filepath.Join(dir, "d", "notes"):
				os.RemoveAll(filepath.Join(dir, "d"))
				if err := os.Symlink("secret", filepath.Join(dir, "d")); err != nil {
					t.Fatal(err)
				}
			}
			return true
		}
		out, err := call(t, env, "Grep", map[string]any{"pattern": "KEYX", "path": start})
		if strings.Contains(out, "KEYX") {
			t.Errorf("Grep path %q shows a denied file swapped in after the check:\n%s", start, out)
		}
		_ = err
	}
}
