package tool

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/atomicfile/atomicfiletest"
)

// step is one tool call in a write-safety scenario.
type step struct {
	tool    string
	in      map[string]any
	want    string // substring of the result
	wantErr string // substring of the error; "" means success
	// before runs ahead of the call, to change the file behind the tool's
	// back.
	before func(t *testing.T, dir string)
}

func rd(p string) map[string]any { return map[string]any{"file_path": p} }
func wr(p, c string) map[string]any {
	return map[string]any{"file_path": p, "content": c}
}
func ed(p, o, n string) map[string]any {
	return map[string]any{"file_path": p, "old_string": o, "new_string": n}
}

func TestWriteSafety(t *testing.T) {
	sameSizeChange := func(t *testing.T, dir string) {
		// Same size, same mtime, different bytes: only the hash sees it.
		p := filepath.Join(dir, "f")
		fi, err := os.Stat(p)
		must(t, err)
		must(t, os.WriteFile(p, []byte("HELLO\n"), 0o644))
		must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	}
	touch := func(t *testing.T, dir string) {
		p := filepath.Join(dir, "f")
		later := time.Now().Add(time.Hour)
		must(t, os.Chtimes(p, later, later))
	}
	appendLine := func(t *testing.T, dir string) {
		f, err := os.OpenFile(filepath.Join(dir, "f"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		f.WriteString("more\n")
		f.Close()
	}
	tests := []struct {
		name  string
		steps []step
		final string // content of f afterwards
	}{
		{"write existing without read", []step{
			{tool: "Write", in: wr("f", "new\n"), wantErr: "read the file first"},
		}, "hello\n"},
		{"edit without read", []step{
			{tool: "Edit", in: ed("f", "hello", "bye"), wantErr: "read the file first"},
		}, "hello\n"},
		{"read then write", []step{
			{tool: "Read", in: rd("f")},
			{tool: "Write", in: wr("f", "new\n"), want: "Wrote f (4 bytes)"},
		}, "new\n"},
		{"read then edit then edit again", []step{
			{tool: "Read", in: rd("f")},
			{tool: "Edit", in: ed("f", "hello", "bye"), want: "Edited f: replaced 1 occurrence"},
			{tool: "Edit", in: ed("f", "bye", "ciao"), want: "replaced 1 occurrence"},
			{tool: "Write", in: wr("f", "w\n")},
			{tool: "Edit", in: ed("f", "w", "v")},
		}, "v\n"},
		{"partial read counts as read", []step{
			{tool: "Read", in: map[string]any{"file_path": "f", "limit": 1.0, "offset": 1.0}},
			{tool: "Edit", in: ed("f", "hello", "bye")},
		}, "bye\n"},
		{"read through another spelling of the path", []step{
			{tool: "Read", in: rd("./sub/../f")},
			{tool: "Edit", in: ed("f", "hello", "bye")},
		}, "bye\n"},
		{"content changed since read", []step{
			{tool: "Read", in: rd("f")},
			{before: appendLine, tool: "Edit", in: ed("f", "hello", "bye"), wantErr: "file changed since it was read; read it again"},
		}, "hello\nmore\n"},
		{"same size and mtime but other bytes", []step{
			{tool: "Read", in: rd("f")},
			{before: sameSizeChange, tool: "Write", in: wr("f", "x\n"), wantErr: "changed since it was read"},
		}, "HELLO\n"},
		{"mtime alone changed", []step{
			{tool: "Read", in: rd("f")},
			{before: touch, tool: "Edit", in: ed("f", "hello", "bye"), wantErr: "changed since it was read"},
		}, "hello\n"},
		{"reading again after a change", []step{
			{tool: "Read", in: rd("f")},
			{before: appendLine, tool: "Edit", in: ed("f", "hello", "bye"), wantErr: "changed since"},
			{tool: "Read", in: rd("f")},
			{tool: "Edit", in: ed("f", "more", "less")},
		}, "hello\nless\n"},
		{"failed edit leaves the baseline", []step{
			{tool: "Read", in: rd("f")},
			{tool: "Edit", in: ed("f", "absent", "x"), wantErr: "was not found in f"},
			{tool: "Edit", in: ed("f", "hello", "bye")},
		}, "bye\n"},
		{"new file needs no read and can be edited", []step{
			{tool: "Write", in: wr("g", "one\n"), want: "Created g (4 bytes)"},
			{tool: "Edit", in: ed("g", "one", "two")},
			{tool: "Read", in: rd("f")},
		}, "hello\n"},
		{"file deleted after read is created again", []step{
			{tool: "Read", in: rd("f")},
			{before: func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, "f"))) },
				tool: "Write", in: wr("f", "again\n"), want: "Created f"},
		}, "again\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			files(t, dir, map[string]string{"f": "hello\n", "sub/": ""})
			for i, s := range tt.steps {
				if s.before != nil {
					s.before(t, dir)
				}
				got, err := call(t, env, s.tool, s.in)
				if s.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), s.wantErr) {
						t.Fatalf("step %d %s: err = %v, want %q", i, s.tool, err, s.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d %s: %v", i, s.tool, err)
				}
				if !strings.Contains(got, s.want) {
					t.Fatalf("step %d %s: result %q, want it to contain %q", i, s.tool, got, s.want)
				}
			}
			if got := readFile(t, filepath.Join(dir, "f")); got != tt.final {
				t.Fatalf("f = %q, want %q", got, tt.final)
			}
			assertNoTemp(t, dir)
		})
	}
}

// assertNoTemp fails if a temporary file of atomicWrite is left in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".gen-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]any
		want    string
		wantErr string
		final   string
	}{
		{"unique replacement", ed("f", "beta", "BETA"), "replaced 1 occurrence", "", "alpha BETA gamma\nalpha delta\nalpha\n"},
		{"ambiguous without replace_all", ed("f", "alpha", "A"), "", "occurs 3 times in f", ""},
		{"replace_all", map[string]any{"file_path": "f", "old_string": "alpha", "new_string": "A", "replace_all": true},
			"replaced 3 occurrences", "", "A beta gamma\nA delta\nA\n"},
		{"replace_all with one occurrence", map[string]any{"file_path": "f", "old_string": "gamma", "new_string": "G", "replace_all": true},
			"replaced 1 occurrence", "", "alpha beta G\nalpha delta\nalpha\n"},
		{"multi-line old_string", ed("f", "gamma\nalpha", "gamma\n\nalpha"), "replaced 1", "", "alpha beta gamma\n\nalpha delta\nalpha\n"},
		{"deleting text", ed("f", " delta", ""), "replaced 1", "", "alpha beta gamma\nalpha\nalpha\n"},
		{"not found", ed("f", "omega", "x"), "", "old_string was not found in f", ""},
		{"white space must match", ed("f", "alpha  beta", "x"), "", "was not found", ""},
		{"identical strings", ed("f", "beta", "beta"), "", "identical", ""},
		{"empty old_string", ed("f", "", "x"), "", "old_string is empty", ""},
		{"missing file", ed("nope", "a", "b"), "", "nope does not exist", ""},
		{"directory", ed("d", "a", "b"), "", "d is a directory", ""},
		{"missing argument", map[string]any{"file_path": "f", "old_string": "a"}, "", `missing required argument "new_string"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			orig := "alpha beta gamma\nalpha delta\nalpha\n"
			files(t, dir, map[string]string{"f": orig, "d/": ""})
			if _, err := call(t, env, "Read", rd("f")); err != nil {
				t.Fatal(err)
			}
			got, err := call(t, env, "Edit", tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if c := readFile(t, filepath.Join(dir, "f")); c != orig {
					t.Fatalf("failed edit changed the file to %q", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("result %q, want %q", got, tt.want)
			}
			if c := readFile(t, filepath.Join(dir, "f")); c != tt.final {
				t.Fatalf("file = %q, want %q", c, tt.final)
			}
			assertNoTemp(t, dir)
		})
	}
}

func TestWrite(t *testing.T) {
	t.Run("new file gets 0644 and parent directories", func(t *testing.T) {
		env, dir := testEnv(t)
		if _, err := call(t, env, "Write", wr("a/b/c.txt", "x")); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "a", "b", "c.txt")
		fi, err := os.Stat(p)
		must(t, err)
		if fi.Mode().Perm() != 0o644 || readFile(t, p) != "x" {
			t.Fatalf("mode %v content %q", fi.Mode(), readFile(t, p))
		}
		if got := names(t, filepath.Join(dir, "a", "b")); !slices.Equal(got, []string{"c.txt"}) {
			t.Fatalf("directory holds %v, want only c.txt", got)
		}
	})
	for _, mode := range []os.FileMode{0o600, 0o755, 0o640} {
		t.Run("existing mode "+mode.String()+" is kept", func(t *testing.T) {
			env, dir := testEnv(t)
			p := filepath.Join(dir, "s.sh")
			must(t, os.WriteFile(p, []byte("old"), 0o600))
			must(t, os.Chmod(p, mode))
			call(t, env, "Read", rd("s.sh"))
			if _, err := call(t, env, "Write", wr("s.sh", "new")); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			must(t, err)
			if fi.Mode().Perm() != mode {
				t.Fatalf("mode = %v, want %v", fi.Mode().Perm(), mode)
			}
			if _, err := call(t, env, "Edit", ed("s.sh", "new", "newer")); err != nil {
				t.Fatal(err)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != mode {
				t.Fatalf("mode after Edit = %v, want %v", fi.Mode().Perm(), mode)
			}
		})
	}
	t.Run("write is atomic: the old inode is never written", func(t *testing.T) {
		env, dir := testEnv(t)
		p := filepath.Join(dir, "f")
		must(t, os.WriteFile(p, []byte("old content\n"), 0o644))
		// A reader holding the old file keeps seeing the old content: the
		// new content went to a new inode that was renamed into place.
		old, err := os.Open(p)
		must(t, err)
		defer old.Close()
		call(t, env, "Read", rd("f"))
		if _, err := call(t, env, "Write", wr("f", "new\n")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, _ := old.Read(buf)
		if string(buf[:n]) != "old content\n" {
			t.Fatalf("old descriptor reads %q: the file was rewritten in place", buf[:n])
		}
		if got := names(t, dir); !slices.Equal(got, []string{"f"}) {
			t.Fatalf("directory holds %v, want only f", got)
		}
	})
	t.Run("failed write leaves no temporary file", func(t *testing.T) {
		env, dir := testEnv(t)
		ro := filepath.Join(dir, "ro")
		files(t, dir, map[string]string{"ro/f": "x"})
		call(t, env, "Read", rd("ro/f"))
		must(t, os.Chmod(ro, 0o555))
		defer os.Chmod(ro, 0o755)
		if os.Geteuid() == 0 {
			t.Skip("root ignores directory permissions")
		}
		if _, err := call(t, env, "Write", wr("ro/f", "y")); err == nil {
			t.Fatal("write into a read-only directory succeeded")
		}
		if got := names(t, ro); !slices.Equal(got, []string{"f"}) {
			t.Fatalf("directory holds %v", got)
		}
	})
	t.Run("failed rename removes the temporary file", func(t *testing.T) {
		// Works as root too: renaming a file over a directory always fails.
		_, dir := testEnv(t)
		files(t, dir, map[string]string{"d/x": "x"})
		root, err := os.OpenRoot(dir)
		must(t, err)
		defer root.Close()
		if _, err := atomicWrite(root, "d", []byte("data"), 0o644, ""); err == nil {
			t.Fatal("rename over a directory succeeded")
		}
		if got := names(t, dir); !slices.Equal(got, []string{"d"}) {
			t.Fatalf("directory holds %v, want only d", got)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		env, dir := testEnv(t)
		outside, _ := filepath.EvalSymlinks(t.TempDir())
		files(t, dir, map[string]string{"real": "r\n", "d/": ""})
		must(t, os.Symlink("real", filepath.Join(dir, "link")))
		must(t, os.Symlink(outside, filepath.Join(dir, "out")))
		call(t, env, "Read", rd("link"))
		tests := []struct{ name, tool, path, wantErr string }{
			{"symlink is not replaced", "Write", "link", "is a symbolic link (to real)"},
			{"symlink is not edited", "Edit", "link", "is a symbolic link"},
			{"directory", "Write", "d", "d is a directory"},
			{"through a link leaving the workspace", "Write", "out/x", "path escapes"},
			{"new dirs through a link leaving the workspace", "Write", "out/a/b/x", "path escapes"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				in := wr(tt.path, "z")
				if tt.tool == "Edit" {
					in = ed(tt.path, "r", "z")
				}
				_, err := call(t, env, tt.tool, in)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			})
		}
		if got := names(t, outside); len(got) != 0 {
			t.Fatalf("files created outside the workspace: %v", got)
		}
		if readFile(t, filepath.Join(dir, "real")) != "r\n" {
			t.Fatal("link target changed")
		}
	})
	t.Run("concurrent edits do not lose changes", func(t *testing.T) {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{"f": "a b c d e f g h\n"})
		call(t, env, "Read", rd("f"))
		var wg sync.WaitGroup
		for _, w := range strings.Fields("a b c d e f g h") {
			wg.Go(func() {
				call(t, env, "Edit", ed("f", w, strings.ToUpper(w)))
			})
		}
		wg.Wait()
		if got := readFile(t, filepath.Join(dir, "f")); got != "A B C D E F G H\n" {
			t.Fatalf("f = %q", got)
		}
	})
}

// A write whose directory is not the checked one writes nothing and leaves
// no temp file.
func TestAtomicWriteChecksDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "sub"))
	if _, err := atomicWrite(root, "sub/x", []byte("data"), 0o644, "/somewhere/else"); err == nil || !strings.Contains(err.Error(), "symbolic link changed") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "sub")); len(entries) != 0 {
		t.Fatalf("left %v behind", entries)
	}
	if _, err := atomicWrite(root, "sub/x", []byte("data"), 0o644, real); err != nil {
		t.Fatalf("checked directory: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "x")); string(got) != "data" {
		t.Fatalf("content %q", got)
	}
}

// TestWriteSweepsDeadWritersTemp: Write killed mid-write leaves
// .NAME.gen-PID-RANDOM.tmp; the next write to the directory removes it.
func TestWriteSweepsDeadWritersTemp(t *testing.T) {
	env, dir := testEnv(t)
	stale := filepath.Join(dir, atomicfiletest.DeadTempName(t, "f"))
	must(t, os.WriteFile(stale, []byte("half"), 0o600))
	if _, err := call(t, env, "Write", wr("g", "new\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the dead writer's temporary file is still there: %v", err)
	}
}
