package textfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 2048)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, err string
	}{
		{ok, ""},
		{big, "over the 1024-byte limit"},
		{fifo, "not a regular file"},
		{zero, "not a regular file"},
		{dir, "not a regular file"},
	}
	for _, tc := range cases {
		data, err := Read(tc.path, 1024)
		switch {
		case tc.err == "" && (err != nil || string(data) != "{}"):
			t.Errorf("Read(%s) = %q, %v", tc.path, data, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Read(%s) error %v, want %q", tc.path, err, tc.err)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing"), 1024); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	fsys := fstest.MapFS{"a.md": {Data: []byte("x")}, "d": {Mode: fs.ModeDir}}
	if data, err := ReadFS(fsys, "a.md", 10); err != nil || string(data) != "x" {
		t.Errorf("ReadFS = %q, %v", data, err)
	}
	if _, err := ReadFS(fsys, "d", 10); err == nil {
		t.Error("ReadFS of a directory succeeded")
	}
}

// A file that turns into a FIFO after Read checked it is refused once
// open, not waited on: readOpen is what Read does past its first check.
func TestReadOpenFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readOpen(fifo, 1024)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file but a named pipe") {
			t.Errorf("readOpen(FIFO) = %v, want a named pipe refused", err)
		}
	case <-time.After(time.Minute):
		// No writer ever comes: a blocking open never returns.
		t.Fatal("readOpen(FIFO) blocked in open")
	}
}
