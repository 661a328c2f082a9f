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

// swapped is an FS whose Stat says a.md is a regular file and whose Open
// gives a named pipe: the file swapped between ReadFS's check and open.
type swapped struct{ fstest.MapFS }

func (s swapped) Stat(name string) (fs.FileInfo, error) {
	return fstest.MapFS{name: {Data: []byte("x")}}.Stat(name)
}

// ReadFS checks the file it opened, and gen's trees (DirFS, ReadRoot)
// open a FIFO without blocking, so one swapped in after the first check
// is refused, not waited on.
func TestReadFSOpenFIFO(t *testing.T) {
	fsys := swapped{fstest.MapFS{"a.md": {Mode: fs.ModeNamedPipe}}}
	if _, err := ReadFS(fsys, "a.md", 1024); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadFS of a file swapped for a FIFO = %v, want a named pipe refused", err)
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	done := make(chan error, 2)
	go func() {
		f, err := DirFS(dir).Open("fifo")
		if err == nil {
			_, err = readChecked(f, 1024)
		}
		done <- err
	}()
	go func() {
		_, err := rootOpen(root, "fifo", 1024) // ReadRoot past its first check
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file but a named pipe") {
				t.Errorf("opening a FIFO = %v, want a named pipe refused", err)
			}
		case <-time.After(time.Minute):
			// No writer ever comes: a blocking open never returns.
			t.Fatal("opening a FIFO blocked")
		}
	}
	if _, err := DirFS(dir).Open("../x"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("DirFS.Open(../x) = %v, want fs.ErrInvalid", err)
	}
	if _, err := ReadRoot(root, "fifo", 1024); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadRoot(FIFO) = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadRoot(root, "a.md", 1024); err != nil || string(data) != "x" {
		t.Errorf("ReadRoot(a.md) = %q, %v", data, err)
	}
	if data, err := ReadFS(DirFS(dir), "a.md", 1024); err != nil || string(data) != "x" {
		t.Errorf("ReadFS(DirFS, a.md) = %q, %v", data, err)
	}
	// fstest.TestFS in a tree without the FIFO, which it cannot seek and
	// which would fail it whatever DirFS does.
	tree := t.TempDir()
	for name, data := range map[string]string{"a.md": "x", "sub/b.md": "y"} {
		p := filepath.Join(tree, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := fstest.TestFS(DirFS(tree), "a.md", "sub/b.md"); err != nil {
		t.Errorf("DirFS is not a well-behaved fs.FS: %v", err)
	}
}

// ReadDir lists a directory as os.ReadDir does, sorted, and refuses a
// named pipe in a directory's place at once instead of waiting for a
// writer.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b", "a", "c"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, " ") != "a b c" {
		t.Errorf("ReadDir = %q, %v", names, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of a missing directory: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadDir(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("ReadDir listed a named pipe")
		}
	case <-time.After(time.Minute):
		// No writer ever comes: a blocking open never returns.
		t.Fatal("ReadDir of a named pipe blocked")
	}
}

// TestReadRefusesWaitingFiles: a regular file whose reads may wait for
// data (a kernel pseudo-file the poller can wait on) is refused, as a
// FIFO is: /proc/kmsg read as root waits for the next kernel message
// forever (and takes each message it returns from the kernel log), so a
// link to it where a settings file is, or the file an Edit call names
// (the approval dialog's preview reads it), hung gen. /proc/self/mounts,
// which does not wait, stands for it.
func TestReadRefusesWaitingFiles(t *testing.T) {
	const p = "/proc/self/mounts"
	if _, err := os.Stat(p); err != nil {
		t.Skip(err)
	}
	if _, err := Read(p, Max); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Read(%s): %v", p, err)
	}
	r, err := os.OpenRoot("/proc/self")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := ReadRoot(r, "mounts", Max); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadRoot(%s): %v", p, err)
	}
	if f, err := Open(p); err == nil {
		f.Close()
		t.Errorf("Open(%s) succeeded", p)
	}
}
