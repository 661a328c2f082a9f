//go:build unix

package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestResumeNotRegular: gen agent batch --resume --output /dev/stdout
// into a pipe, or --output a named pipe, read the "file" for its results
// until the pipe's end, which never came: the batch never started. A
// result file that is not a regular file holds nothing to resume from,
// and saying so is an error naming it and what it is.
func TestResumeNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{fifo}
	if runtime.GOOS == "linux" {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		paths = append(paths, fmt.Sprintf("/proc/self/fd/%d", w.Fd())) // as /dev/stdout into a pipe
	}
	for _, p := range paths {
		_, err := Resume(p)
		if err == nil || !strings.Contains(err.Error(), p+": not a regular file but ") {
			t.Errorf("Resume(%s): %v, want an error naming it", p, err)
		}
	}
}
