package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// tree is the layout the Glob and Grep tests search.
var tree = map[string]string{
	"a.go":                  "package a\nfunc A() {}\n",
	"b.txt":                 "hello World\nbye\n",
	"src/c.go":              "package src\nfunc C() { hello() }\n",
	"src/d/e.go":            "package d\n// HELLO there\n",
	"src/d/notes.md":        "hello notes\n",
	"node_modules/x.go":     "hello from deps\n",
	".git/y.go":             "hello from git\n",
	".hg/h.go":              "hello\n",
	".svn/s.go":             "hello\n",
	"__pycache__/p.go":      "hello\n",
	".venv/v.go":            "hello\n",
	"src/node_modules/n.go": "hello nested deps\n",
	".gen/cache/z.go":       "hello cache\n",
	".gen/keep.go":          "hello config\n",
	"cache/ok.go":           "hello top cache\n",
	"empty/":                "",
}

func TestGlob(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]any
		canRead func(tool, path string) bool
		want    []string
		wantErr string
	}{
		{"recursive", map[string]any{"pattern": "**/*.go"}, nil,
			[]string{".gen/keep.go", "a.go", "cache/ok.go", "src/c.go", "src/d/e.go"}, ""},
		{"top level only", map[string]any{"pattern": "*.go"}, nil, []string{"a.go"}, ""},
		{"one level down skips skipped dirs", map[string]any{"pattern": "*/*.go"}, nil,
			[]string{".gen/keep.go", "cache/ok.go", "src/c.go"}, ""},
		{"two levels down skips .gen/cache", map[string]any{"pattern": "*/*/*.go"}, nil,
			[]string{"src/d/e.go"}, ""},
		{"path argument", map[string]any{"pattern": "*.go", "path": "src"}, nil, []string{"src/c.go"}, ""},
		{"static directory in the pattern", map[string]any{"pattern": "src/**/*.md"}, nil, []string{"src/d/notes.md"}, ""},
		{"explicitly named skipped dir is searched", map[string]any{"pattern": "node_modules/*.go"}, nil, []string{"node_modules/x.go"}, ""},
		{"path inside a skipped dir is searched", map[string]any{"pattern": "*.go", "path": ".gen/cache"}, nil, []string{".gen/cache/z.go"}, ""},
		{"alternatives", map[string]any{"pattern": "{a.go,b.txt}"}, nil, []string{"a.go", "b.txt"}, ""},
		{"directories are not listed", map[string]any{"pattern": "*"}, nil, []string{"a.go", "b.txt"}, ""},
		{"CanRead hides files", map[string]any{"pattern": "**/*.go"}, func(tool, p string) bool { return tool == "Glob" && !strings.Contains(p, "/src/") }, []string{".gen/keep.go", "a.go", "cache/ok.go"}, ""},
		{"no match", map[string]any{"pattern": "**/*.rs"}, nil, nil, ""},
		{"missing directory", map[string]any{"pattern": "nope/**"}, nil, nil, ""},
		{"invalid pattern", map[string]any{"pattern": "[a"}, nil, nil, "invalid pattern"},
		{"missing pattern", map[string]any{}, nil, nil, `missing required argument "pattern"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			files(t, dir, tree)
			env.CanRead = tt.canRead
			got, err := call(t, env, "Glob", tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := "no files matched\n"
			if tt.want != nil {
				want = strings.Join(tt.want, "\n") + "\n"
			}
			if got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
	t.Run("absolute pattern prints paths relative to Cwd", func(t *testing.T) {
		env, dir := testEnv(t)
		files(t, dir, tree)
		got, err := call(t, env, "Glob", map[string]any{"pattern": filepath.Join(dir, "src", "*.go")})
		if err != nil || got != "src/c.go\n" {
			t.Fatalf("got %q, %v", got, err)
		}
	})
	t.Run("outside Cwd prints absolute paths", func(t *testing.T) {
		env, _ := testEnv(t)
		other, _ := filepath.EvalSymlinks(t.TempDir())
		files(t, other, map[string]string{"o.go": ""})
		got, err := call(t, env, "Glob", map[string]any{"pattern": "*.go", "path": other})
		if want := filepath.Join(other, "o.go") + "\n"; err != nil || got != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	})
	t.Run("truncated after 1000", func(t *testing.T) {
		env, dir := testEnv(t)
		m := map[string]string{}
		for i := range 1005 {
			m[fmt.Sprintf("f%04d.txt", i)] = ""
		}
		files(t, dir, m)
		got, err := call(t, env, "Glob", map[string]any{"pattern": "*.txt"})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != 1001 || lines[0] != "f0000.txt" || lines[999] != "f0999.txt" || lines[1000] != "(truncated: 5 more)" {
			t.Fatalf("got %d lines, first %q, last two %q", len(lines), lines[0], lines[len(lines)-2:])
		}
	})
	t.Run("symlinks", func(t *testing.T) {
		env, dir := testEnv(t)
		outside, _ := filepath.EvalSymlinks(t.TempDir())
		files(t, outside, map[string]string{"secret.go": ""})
		files(t, dir, map[string]string{"real.go": "", "sub/s.go": ""})
		must(t, os.Symlink(".", filepath.Join(dir, "loop")))
		must(t, os.Symlink("real.go", filepath.Join(dir, "alias.go")))
		must(t, os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(dir, "escape.go")))
		must(t, os.Symlink(outside, filepath.Join(dir, "outdir")))
		got, err := call(t, env, "Glob", map[string]any{"pattern": "**/*.go"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "alias.go\nreal.go\nsub/s.go\n"; got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	})
}

func TestGrep(t *testing.T) {
	tests := []struct {
		name    string
		extra   map[string]string
		in      map[string]any
		canRead func(tool, path string) bool
		want    []string
		wantErr string
	}{
		{"walks and skips dirs", nil, map[string]any{"pattern": "hello"}, nil, []string{
			".gen/keep.go:1:hello config",
			"b.txt:1:hello World",
			"cache/ok.go:1:hello top cache",
			"src/c.go:2:func C() { hello() }",
			"src/d/notes.md:1:hello notes",
		}, ""},
		{"case insensitive", nil, map[string]any{"pattern": "hello", "path": "src", "case_insensitive": true}, nil, []string{
			"src/c.go:2:func C() { hello() }",
			"src/d/e.go:2:// HELLO there",
			"src/d/notes.md:1:hello notes",
		}, ""},
		{"regexp", nil, map[string]any{"pattern": `^func [A-Z]\(`}, nil, []string{"a.go:2:func A() {}", "src/c.go:2:func C() { hello() }"}, ""},
		{"single file", nil, map[string]any{"pattern": "^by", "path": "b.txt"}, nil, []string{"b.txt:2:bye"}, ""},
		{"explicit file in a skipped dir", nil, map[string]any{"pattern": "hello", "path": "node_modules/x.go"}, nil, []string{"node_modules/x.go:1:hello from deps"}, ""},
		{"glob on the file name", nil, map[string]any{"pattern": "hello", "glob": "*.md"}, nil, []string{"src/d/notes.md:1:hello notes"}, ""},
		{"glob on the path", nil, map[string]any{"pattern": "package", "glob": "src/**/*.go"}, nil, []string{"src/c.go:1:package src", "src/d/e.go:1:package d"}, ""},
		{"CanRead hides files", nil, map[string]any{"pattern": "hello", "path": "src"}, func(tool, p string) bool { return tool == "Grep" && filepath.Base(p) != "c.go" }, []string{"src/d/notes.md:1:hello notes"}, ""},
		{"binary files are skipped, big ones searched", map[string]string{
			"bin.dat": "hello\x00world",
			"big.txt": strings.Repeat("z\n", 1<<20) + "hello at the end\n",
			"ok.txt":  "hello ok",
		}, map[string]any{"pattern": "hello", "glob": "*.{dat,txt}"}, nil, []string{"b.txt:1:hello World", "big.txt:1048577:hello at the end", "ok.txt:1:hello ok"}, ""},
		{"a big file named explicitly", map[string]string{
			"big.log": strings.Repeat("x\n", 3<<19) + "needle\n",
		}, map[string]any{"pattern": "needle", "path": "big.log"}, nil, []string{"big.log:1572865:needle"}, ""},
		{"a line over the line cap", map[string]string{
			"long.txt": strings.Repeat("y", maxGrepLine) + "needle\nneedle too\n",
		}, map[string]any{"pattern": "needle", "path": "long.txt"}, nil, []string{"long.txt:2:needle too", "(1 line longer than 1 MiB was searched only in its first 1 MiB)"}, ""},
		{"gitignore rules at the walk root", map[string]string{
			".gitignore":          "# comment\n*.log\nbuild/\nsecret.txt\n/docs/gen\n!keep.log\nsrc/**/*.md\n",
			"x.log":               "hello log",
			"keep.log":            "hello keep",
			"build/out.txt":       "hello build",
			"build.txt":           "hello build file",
			"deep/secret.txt":     "hello secret",
			"docs/gen/api.txt":    "hello generated",
			"docs/guide.txt":      "hello guide",
			"other/docs/gen/a.go": "hello nested",
		}, map[string]any{"pattern": "hello"}, nil, []string{
			".gen/keep.go:1:hello config",
			"b.txt:1:hello World",
			"build.txt:1:hello build file",
			"cache/ok.go:1:hello top cache",
			"docs/guide.txt:1:hello guide",
			"other/docs/gen/a.go:1:hello nested",
			"src/c.go:2:func C() { hello() }",
		}, ""},
		{"no matches", nil, map[string]any{"pattern": "zebra"}, nil, nil, ""},
		{"invalid regexp", nil, map[string]any{"pattern": "(unclosed"}, nil, nil, "invalid regexp (Go RE2 syntax): error parsing regexp: missing closing )"},
		{"look-ahead is not RE2", nil, map[string]any{"pattern": "a(?=b)"}, nil, nil, "invalid or unsupported Perl syntax"},
		{"max_results over the cap", nil, map[string]any{"pattern": "x", "max_results": 1001.0}, nil, nil, "max_results must be between 1 and 1000"},
		{"invalid glob", nil, map[string]any{"pattern": "x", "glob": "{a"}, nil, nil, "invalid glob"},
		{"missing path", nil, map[string]any{"pattern": "x", "path": "nope"}, nil, nil, "nope does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			files(t, dir, tree)
			files(t, dir, tt.extra)
			env.CanRead = tt.canRead
			got, err := call(t, env, "Grep", tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := "no matches\n"
			if tt.want != nil {
				want = strings.Join(tt.want, "\n") + "\n"
			}
			if got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
	t.Run("max_results truncates", func(t *testing.T) {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{"a.txt": "m1\nm2\nm3\n", "b.txt": "m4\nm5\n"})
		got, err := call(t, env, "Grep", map[string]any{"pattern": "m", "max_results": 3.0})
		want := "a.txt:1:m1\na.txt:2:m2\na.txt:3:m3\n(truncated after 3 matches: narrow the pattern, path or glob, or raise max_results)\n"
		if err != nil || got != want {
			t.Fatalf("got %q, %v", got, err)
		}
		got, _ = call(t, env, "Grep", map[string]any{"pattern": "m", "max_results": 5.0})
		if strings.Contains(got, "truncated") {
			t.Fatalf("exactly max_results matches reported as truncated: %q", got)
		}
	})
	t.Run("default cap is 200", func(t *testing.T) {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{"a.txt": strings.Repeat("m\n", 250)})
		got, err := call(t, env, "Grep", map[string]any{"pattern": "m"})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != 201 || lines[199] != "a.txt:200:m" || !strings.HasPrefix(lines[200], "(truncated after 200 matches") {
			t.Fatalf("got %d lines ending %q", len(lines), lines[len(lines)-2:])
		}
	})
	t.Run("long lines are truncated", func(t *testing.T) {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{"a.txt": "m" + strings.Repeat("x", 3000)})
		got, _ := call(t, env, "Grep", map[string]any{"pattern": "m"})
		if want := "a.txt:1:m" + strings.Repeat("x", 1999) + " … [line truncated]\n"; got != want {
			t.Fatalf("got %.80q…", got)
		}
	})
	t.Run("symlinks, FIFOs and escapes", func(t *testing.T) {
		env, dir := testEnv(t)
		outside, _ := filepath.EvalSymlinks(t.TempDir())
		files(t, outside, map[string]string{"secret.txt": "hello secret"})
		files(t, dir, map[string]string{"real.txt": "hello real"})
		must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "escape.txt")))
		must(t, os.Symlink(outside, filepath.Join(dir, "outdir")))
		must(t, os.Symlink(".", filepath.Join(dir, "loop")))
		must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
		done := make(chan struct{})
		var got string
		var err error
		go func() {
			got, err = call(t, env, "Grep", map[string]any{"pattern": "hello"})
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("Grep blocked")
		}
		if err != nil || got != "real.txt:1:hello real\n" {
			t.Fatalf("got %q, %v", got, err)
		}
		if _, err := call(t, env, "Grep", map[string]any{"pattern": "hello", "path": "outdir"}); err == nil || !strings.Contains(err.Error(), "path escapes") {
			t.Fatalf("grep through a link leaving the workspace: err = %v", err)
		}
	})
	// A named pipe as .gitignore (any command can make one) was waited on
	// for a writer forever, at the walk root and in a path searched.
	t.Run("a FIFO .gitignore means no rules", func(t *testing.T) {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{"a.txt": "hello", "sub/b.txt": "hello"})
		must(t, syscall.Mkfifo(filepath.Join(dir, ".gitignore"), 0o644))
		must(t, syscall.Mkfifo(filepath.Join(dir, "sub", ".gitignore"), 0o644))
		got, err := call(t, env, "Grep", map[string]any{"pattern": "hello"})
		if want := "a.txt:1:hello\nsub/b.txt:1:hello\n"; err != nil || got != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
		got, err = call(t, env, "Grep", map[string]any{"pattern": "hello", "path": "sub"})
		if want := "sub/b.txt:1:hello\n"; err != nil || got != want {
			t.Fatalf("in sub: got %q, %v; want %q", got, err, want)
		}
	})
	t.Run("outside Cwd prints absolute paths", func(t *testing.T) {
		env, _ := testEnv(t)
		other, _ := filepath.EvalSymlinks(t.TempDir())
		files(t, other, map[string]string{"o.txt": "hello"})
		got, err := call(t, env, "Grep", map[string]any{"pattern": "hello", "path": other})
		if want := filepath.Join(other, "o.txt") + ":1:hello\n"; err != nil || got != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	})
}

func TestPrunedFS(t *testing.T) {
	fsys := fstest.MapFS{
		"node_modules/a.js": {},
		"src/.git/HEAD":     {},
		"src/main.go":       {},
		".gen/cache/x":      {},
		".gen/agents/y.md":  {},
		"cache/z":           {},
	}
	tests := []struct {
		dir, base string
		want      []string
	}{
		{".", "proj", []string{".gen", "cache", "src"}},
		{"src", "proj", []string{"main.go"}},
		{".gen", "proj", []string{"agents"}},
		{".", ".gen", []string{".gen", "src"}}, // a walk rooted in .gen hides its cache
	}
	for _, tt := range tests {
		t.Run(tt.dir+" in "+tt.base, func(t *testing.T) {
			ents, err := prunedFS{fsys, tt.base}.ReadDir(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ReadDir(%q) = %v, want %v", tt.dir, got, tt.want)
			}
		})
	}
}

// A Glob or Grep whose walk outlives searchBudget (** from /, a slow
// network mount) answers with what it found by then and says it stopped,
// rather than holding the run: a headless run never waits without bound.
func TestSearchBudget(t *testing.T) {
	old := searchBudget
	searchBudget = 0 // spent before the walk starts
	t.Cleanup(func() { searchBudget = old })
	for _, c := range []struct {
		tool string
		in   map[string]any
	}{
		{"Glob", map[string]any{"pattern": "**/*.go"}},
		{"Grep", map[string]any{"pattern": "hello"}},
		{"Grep", map[string]any{"pattern": "hello", "path": "b.txt"}},
	} {
		env, dir := testEnv(t)
		files(t, dir, tree)
		got, err := call(t, env, c.tool, c.in)
		if err != nil || !strings.Contains(got, "the search stopped after 0s") {
			t.Errorf("%s %v: got %q, %v; want an answer that says the search stopped", c.tool, c.in, got, err)
		}
	}
}

// A Glob keeps at most maxGlobCollect matches to sort, and says it
// stopped there.
func TestGlobCollectBound(t *testing.T) {
	old := maxGlobCollect
	maxGlobCollect = 3
	t.Cleanup(func() { maxGlobCollect = old })
	env, dir := testEnv(t)
	files(t, dir, map[string]string{"a.txt": "", "b.txt": "", "c.txt": "", "d.txt": "", "e.txt": ""})
	got, err := call(t, env, "Glob", map[string]any{"pattern": "*.txt"})
	if err != nil || got != "a.txt\nb.txt\nc.txt\n(the search stopped at 3 matches and covers only what it reached: narrow the pattern or the path)\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}
