package tool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gen-run/gen/perm"
)

func numbered(from int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", from+i, l)
	}
	return b.String()
}

func manyLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 2500)
	longRunes := strings.Repeat("é", 2500)
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", 3000) // 300,000 bytes
	tests := []struct {
		name    string
		content string // file "f" holds this
		in      map[string]any
		want    string
		wantErr string
	}{
		{"numbered like cat -n", "a\nb\n", nil, numbered(1, "a", "b"), ""},
		{"last line without newline", "a\nb", nil, numbered(1, "a", "b"), ""},
		{"blank lines count", "a\n\n\nb\n", nil, numbered(1, "a", "", "", "b"), ""},
		{"carriage returns are kept", "a\r\nb\r\n", nil, numbered(1, "a\r", "b\r"), ""},
		{"empty file", "", nil, "(file is empty)\n", ""},
		{"offset and limit window", "a\nb\nc\nd\n", map[string]any{"offset": 2.0, "limit": 2.0},
			numbered(2, "b", "c") + "(file continues after line 3: read on with offset 4)\n", ""},
		{"window reaching the end", "a\nb\nc\n", map[string]any{"offset": 2.0, "limit": 5.0}, numbered(2, "b", "c"), ""},
		{"window exactly to the end", "a\nb\nc\n", map[string]any{"offset": 2.0, "limit": 2.0}, numbered(2, "b", "c"), ""},
		{"offset past the end", "a\nb\n", map[string]any{"offset": 5.0}, "(offset 5 is past the end of the file: it has 2 lines)\n", ""},
		{"default limit is 2000 lines", manyLines(2500), nil,
			numbered(1, strings.Split(strings.TrimSuffix(manyLines(2000), "\n"), "\n")...) + "(file continues after line 2000: read on with offset 2001)\n", ""},
		{"long line truncated", long + "\nz\n", nil, numbered(1, strings.Repeat("x", 2000)+" … [line truncated]", "z"), ""},
		{"line of exactly 2000 kept", strings.Repeat("x", 2000), nil, numbered(1, strings.Repeat("x", 2000)), ""},
		{"truncation counts runes", longRunes, nil, numbered(1, strings.Repeat("é", 2000)+" … [line truncated]"), ""},
		{"big file refused without a window", big, nil, "", "over the 256 KiB whole-file limit"},
		{"big file read with limit", big, map[string]any{"limit": 2.0}, numbered(1, strings.Repeat("y", 99), strings.Repeat("y", 99)) + "(file continues after line 2: read on with offset 3)\n", ""},
		{"big file read with offset", big, map[string]any{"offset": 3000.0}, numbered(3000, strings.Repeat("y", 99)), ""},
		{"binary file refused", "text\x00more", nil, "", "is a binary file"},
		{"NUL after the first 8 KiB is text", strings.Repeat("a", 9000) + "\x00", map[string]any{"limit": 1.0},
			numbered(1, strings.Repeat("a", 2000)+" … [line truncated]"), ""},
		{"offset zero", "a\n", map[string]any{"offset": 0.0}, "", "offset must be at least 1"},
		{"limit zero", "a\n", map[string]any{"limit": 0.0}, "", "limit must be at least 1"},
		{"fractional limit", "a\n", map[string]any{"limit": 1.5}, "", `argument "limit" must be an integer`},
		{"string offset", "a\n", map[string]any{"offset": "2"}, "", `argument "offset" must be an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			files(t, dir, map[string]string{"f": tt.content})
			in := map[string]any{"file_path": "f"}
			for k, v := range tt.in {
				in[k] = v
			}
			got, err := call(t, env, "Read", in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got\n%.500q\nwant\n%.500q", got, tt.want)
			}
		})
	}
}

func TestReadFailures(t *testing.T) {
	env, dir := testEnv(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	files(t, dir, map[string]string{"sub/": "", "in.txt": "inside\n"})
	files(t, outside, map[string]string{"secret.txt": "secret\n", "d/s.txt": "secret\n"})
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "escape")))
	must(t, os.Symlink("../"+filepath.Base(outside), filepath.Join(dir, "relescape")))
	must(t, os.Symlink(filepath.Join(outside, "d"), filepath.Join(dir, "dirlink")))
	must(t, os.Symlink("in.txt", filepath.Join(dir, "inlink")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	tests := []struct {
		name    string
		path    string
		wantErr []string
	}{
		{"missing file names the path", "nope.txt", []string{"nope.txt", "does not exist"}},
		{"directory", "sub", []string{"sub is a directory"}},
		{"symlink to a file outside the workspace", "escape", []string{"escape", "path escapes"}},
		{"relative symlink leaving the workspace", "relescape/secret.txt", []string{"path escapes"}},
		{"path through a symlinked directory outside", "dirlink/s.txt", []string{"path escapes"}},
		{"FIFO does not block", "fifo", []string{"not a regular file"}},
		{"home directory unknown", "~/in.txt", []string{"home directory, which is not known"}},
		{"empty path", "", []string{"empty path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var got string
			var err error
			go func() {
				got, err = call(t, env, "Read", map[string]any{"file_path": tt.path})
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("Read blocked")
			}
			if err == nil {
				t.Fatalf("Read(%q) = %q, want an error", tt.path, got)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
			if strings.Contains(got+err.Error(), "secret\n") {
				t.Fatal("content from outside the root leaked")
			}
		})
	}
	t.Run("symlink inside the workspace is followed", func(t *testing.T) {
		got, err := call(t, env, "Read", map[string]any{"file_path": "inlink"})
		if err != nil || got != numbered(1, "inside") {
			t.Fatalf("Read(inlink) = %q, %v", got, err)
		}
	})
	t.Run("absolute path outside the workspace opens at its parent", func(t *testing.T) {
		got, err := call(t, env, "Read", map[string]any{"file_path": filepath.Join(outside, "secret.txt")})
		if err != nil || got != numbered(1, "secret") {
			t.Fatalf("Read = %q, %v", got, err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := callCtx(ctx, t, env, "Read", map[string]any{"file_path": "in.txt"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestReadRoots(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "proj")
	cwd := filepath.Join(root, "sub")
	extra := filepath.Join(base, "extra")
	files(t, base, map[string]string{
		"proj/sub/a.txt":   "a\n",
		"proj/other/b.txt": "b\n",
		"extra/c.txt":      "c\n",
	})
	// A link in Cwd to a file elsewhere in the project: the most specific
	// workspace directory (Cwd) is the root, so it is refused.
	must(t, os.Symlink("../other/b.txt", filepath.Join(cwd, "up")))
	env := NewEnv(perm.Workspace{Cwd: cwd, Root: root, Dirs: []string{extra}})
	tests := []struct {
		name, path, want, wantErr string
	}{
		{"relative to Cwd", "a.txt", numbered(1, "a"), ""},
		{"dot-dot into the project root", "../other/b.txt", numbered(1, "b"), ""},
		{"additional directory", filepath.Join(extra, "c.txt"), numbered(1, "c"), ""},
		{"link leaving the tightest root", "up", "", "path escapes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, env, "Read", map[string]any{"file_path": tt.path})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	t.Run("home-relative paths", func(t *testing.T) {
		env := NewEnv(perm.Workspace{Cwd: cwd, Root: root, Home: extra})
		got, err := call(t, env, "Read", map[string]any{"file_path": "~/c.txt"})
		if err != nil || got != numbered(1, "c") {
			t.Fatalf("Read(~/c.txt) = %q, %v", got, err)
		}
		// Only ~ and ~/ mean home, as for the gate; ~c.txt is a name in Cwd.
		files(t, cwd, map[string]string{"~c.txt": "tilde\n"})
		got, err = call(t, env, "Read", map[string]any{"file_path": "~c.txt"})
		if err != nil || got != numbered(1, "tilde") {
			t.Fatalf("Read(~c.txt) = %q, %v", got, err)
		}
		got, err = call(t, env, "Glob", map[string]any{"pattern": "~/*.txt", "path": "/nonexistent"})
		if want := filepath.Join(extra, "c.txt") + "\n"; err != nil || got != want {
			t.Fatalf("Glob(~/*.txt) = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("relative path without an absolute Cwd fails", func(t *testing.T) {
		env := NewEnv(perm.Workspace{Cwd: "rel"})
		if _, err := call(t, env, "Read", map[string]any{"file_path": "a.txt"}); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
			t.Fatalf("err = %v", err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A window with a large limit is still capped at 256 KiB of output, and
// says where to read on.
func TestReadWindowCapped(t *testing.T) {
	env, dir := testEnv(t)
	line := strings.Repeat("x", 1000) + "\n"
	files(t, dir, map[string]string{"big.log": strings.Repeat(line, 2000)})
	out, err := call(t, env, "Read", map[string]any{"file_path": "big.log", "offset": float64(1), "limit": float64(100000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > maxWholeRead+4096 {
		t.Errorf("output is %d bytes, want at most about %d", len(out), maxWholeRead)
	}
	if !strings.Contains(out, "read on with offset") {
		t.Errorf("output does not say where to read on: %q", out[len(out)-200:])
	}
}

// The descriptor check compares what was opened with what was checked.
func TestOpenedChecked(t *testing.T) {
	_, dir := testEnv(t)
	files(t, dir, map[string]string{"a.txt": "a", "b.txt": "b"})
	f, err := os.Open(filepath.Join(dir, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "a.txt"))
	if err := openedChecked(Decision{Result: perm.Result{Path: real}}, "Read", f); err != nil {
		t.Errorf("same file: %v", err)
	}
	other, _ := filepath.EvalSymlinks(filepath.Join(dir, "b.txt"))
	if err := openedChecked(Decision{Result: perm.Result{Path: other}}, "Read", f); err == nil || !strings.Contains(err.Error(), "symbolic link changed") {
		t.Errorf("other file: %v", err)
	}
	if err := openedChecked(Decision{}, "Read", f); err != nil {
		t.Errorf("no checked path: %v", err)
	}
}

// TestReadBigFileIsNotHashed reads three lines of a 2 GB sparse file: the
// baseline for write safety must come from the file's metadata, not from
// hashing gigabytes.
func TestReadBigFileIsNotHashed(t *testing.T) {
	env, dir := testEnv(t)
	p := filepath.Join(dir, "big")
	// Text past the binary sniff, then a hole.
	files(t, dir, map[string]string{"big": "one\ntwo\nthree\n" + strings.Repeat("text\n", binarySniff/4)})
	must(t, os.Truncate(p, 2<<30))
	out, err := call(t, env, "Read", map[string]any{"file_path": "big", "offset": 1, "limit": 3})
	if err != nil || !strings.Contains(out, "3\tthree") {
		t.Fatalf("Read: %q, %v", out, err)
	}
	st, ok := env.seen[p]
	if !ok {
		t.Fatal("no baseline recorded")
	}
	if st.hashed {
		t.Fatal("the whole 2 GB file was hashed for a 3-line window")
	}
	if st.size != 2<<30 || st.mtime.IsZero() {
		t.Fatalf("baseline is not the file's metadata: %+v", st)
	}
}

// TestUnhashedChangeDetected changes a file too big to hash in place,
// keeping its size and restoring its modification time: the change time
// still tells Edit that it is not the file that was read.
func TestUnhashedChangeDetected(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("change times are read on Linux")
	}
	env, dir := testEnv(t)
	p := filepath.Join(dir, "data")
	files(t, dir, map[string]string{"data": "key = old\n" + strings.Repeat("text\n", binarySniff/4)})
	must(t, os.Truncate(p, hashLimit+1))
	if _, err := call(t, env, "Read", map[string]any{"file_path": "data", "limit": 1}); err != nil {
		t.Fatal(err)
	}
	if env.seen[p].hashed {
		t.Fatal("a file over hashLimit was hashed")
	}
	fi, err := os.Stat(p)
	must(t, err)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	must(t, err)
	f.WriteAt([]byte("key = new\n"), 0)
	f.Close()
	must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	_, err = call(t, env, "Edit", ed("data", "key = new", "key = x"))
	if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Fatalf("Edit after a same-size change: %v", err)
	}
}
