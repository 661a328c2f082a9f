// Package testtree makes the files and directories a test starts from.
package testtree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns a new temporary directory of tb's with its symbolic links
// resolved (macOS's /tmp is one), so that the paths a test builds from it
// are those the code under test resolves them to.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// Write makes each file of files, by its slash-separated path relative to
// dir, with its text, and the directories on the way; a path ending in "/"
// is made as a directory, and a text "->TARGET" makes a symbolic link to
// TARGET.
func Write(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if to, ok := strings.CutPrefix(text, "->"); ok {
			if err := os.Symlink(to, full); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
