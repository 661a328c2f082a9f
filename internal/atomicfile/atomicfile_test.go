package atomicfile

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/atomicfile/atomicfiletest"
)

// childEnv makes the test binary a writer that stops mid-write (after
// creating its temporary file in the directory the variable names) until
// it is killed.
const childEnv = "GEN_ATOMICFILE_TEST_STALL"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		root, err := os.OpenRoot(dir)
		if err != nil {
			panic(err)
		}
		Write(root, "f.txt", []byte("never"), 0o644, func(*os.File) error {
			os.Stdout.WriteString("stalled\n")
			select {} // until SIGKILL
		})
	}
	os.Exit(m.Run())
}

// stalledWriter starts a writer that has created its temporary file in
// dir and stops there.
func stalledWriter(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "stalled\n" {
		t.Fatalf("writer did not stall: %q, %v", line, err)
	}
	return cmd
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestWriteSweepsDeadWritersOnly(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	// (Each writer sweeps before it stalls, so the one to die goes last.)
	live := stalledWriter(t, dir)
	dead := stalledWriter(t, dir)
	dead.Process.Kill() // SIGKILL mid-write
	dead.Wait()
	if got := temps(t, dir); len(got) != 2 {
		t.Fatalf("temporary files before the next write: %q, want two", got)
	}

	if _, err := Write(root, "other.txt", []byte("x"), 0o644, nil); err != nil {
		t.Fatal(err)
	}
	got := temps(t, dir)
	if len(got) != 1 {
		t.Fatalf("after the next write: %q, want only the running writer's file", got)
	}
	if pid, _ := tempPID(got[0]); pid != live.Process.Pid {
		t.Fatalf("kept %s, not the running writer's (pid %d)", got[0], live.Process.Pid)
	}

	// Old enough, even a file whose pid is running goes: the id may
	// have been reused.
	old := time.Now().Add(-StaleAge - time.Hour)
	if err := os.Chtimes(filepath.Join(dir, got[0]), old, old); err != nil {
		t.Fatal(err)
	}
	Sweep(root)
	if got := temps(t, dir); len(got) != 0 {
		t.Fatalf("a file older than StaleAge was kept: %q", got)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fi, err := Write(root, "a.txt", []byte("hello"), 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	if err != nil || string(b) != "hello" || fi.Size() != 5 || fi.Mode().Perm() != 0o640 {
		t.Fatalf("got %q %v, info size %d mode %v", b, err, fi.Size(), fi.Mode())
	}
	st, err := os.Stat(filepath.Join(dir, "a.txt"))
	if err != nil || !os.SameFile(st, fi) || !st.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("returned information is not the file's: %v", err)
	}
	if got := temps(t, dir); len(got) != 0 {
		t.Fatalf("left behind: %q", got)
	}
}

func TestTempPID(t *testing.T) {
	for name, want := range map[string]int{
		".a.txt.gen-123-0123456789ab.tmp":  123,
		"..gen-x.gen-7-abcdefabcdef.tmp":   7,
		".a.txt.gen-0123456789ab.tmp":      0, // the old naming: no pid
		".a.txt.gen-12-xyz.tmp":            0,
		"a.txt.gen-12-0123456789ab.tmp":    0, // not hidden
		".settings.json.123456789.tmp":     0,
		".a.gen-12-0123456789ab.tmp.other": 0,
	} {
		got, ok := tempPID(name)
		if got != want || ok != (want != 0) {
			t.Errorf("tempPID(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}

// DeadTempName returns a temporary file name for name as a writer that
// is no longer running would have left it: for the tests of the packages
// that write through Write.
func TestDeadTempNameIsSwept(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	stale := atomicfiletest.DeadTempName(t, "x.json")
	if err := os.WriteFile(filepath.Join(dir, stale), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	Sweep(root)
	if got := temps(t, dir); len(got) != 0 {
		t.Fatalf("kept %q", got)
	}
}

// TestWriteRefusesReadOnly: the rename replaced a file someone had made
// read-only (chmod a-w), which writing in place would not have; it is
// refused, named, and left as it was.
func TestWriteRefusesReadOnly(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	p := filepath.Join(dir, "a.json")
	if err := os.WriteFile(p, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err = Write(root, "a.json", []byte("new"), 0o444, nil)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "a.json is read-only") {
		t.Fatalf("Write over a read-only file: %v, want an error naming it", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the read-only file now holds %q", b)
	}
	if got := temps(t, dir); len(got) != 0 {
		t.Errorf("left behind: %q", got)
	}
	// Any write bit lets it be replaced, keeping the mode given.
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(root, "a.json", []byte("new"), 0o640, nil); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFileThroughLink: WriteFile (batch's --summary and --resume,
// settings) replaced a symbolic link at the path with a file of its own,
// and gave an existing 0600 file the new file's 0644. The link now stays
// and its target is written, with its mode; a link to nothing is an
// error that leaves it as it was.
func TestWriteFileThroughLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "summary.json")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "summary.json")
	if err := os.Symlink("dotfiles/summary.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced (%v)", err)
	}
	fi, err := os.Stat(target)
	if b, _ := os.ReadFile(target); err != nil || string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("target holds %q with mode %v (%v), want \"new\" with 0600", b, fi.Mode().Perm(), err)
	}

	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("nowhere/x.json", dangling); err != nil {
		t.Fatal(err)
	}
	err = WriteFile(dangling, []byte("new"), 0o644)
	if err == nil || !strings.Contains(err.Error(), dangling+": it is a symbolic link to a file that does not exist") {
		t.Fatalf("WriteFile through a dangling link: %v", err)
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the dangling link was replaced (%v)", err)
	}

	// A pipe, reached through a link as /dev/stdout reaches one, is not
	// a file to replace: it stays, and the error says what it is.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	if err := os.Symlink("fifo", out); err != nil {
		t.Fatal(err)
	}
	err = WriteFile(out, []byte("new"), 0o644)
	if err == nil || !strings.Contains(err.Error(), out+": it is not a regular file") {
		t.Fatalf("WriteFile through a link to a FIFO: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced (%v)", err)
	}

	// A new file gets the mode given.
	fresh := filepath.Join(dir, "fresh.json")
	if err := WriteFile(fresh, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("new file: %v, %v", fi.Mode(), err)
	}
}
