package settings

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
)

// TestServerFiles: the files stdio MCP servers name, from the working
// directory and home; not what an expansion, an option, a directory or a
// URL names.
func TestServerFiles(t *testing.T) {
	base := testtree.Dir(t)
	dir, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	testtree.Write(t, base, map[string]string{"proj/server.js": "", "proj/bin/run": "", "home/tools/s.py": "", "proj/$X.js": "", "proj/lib/x.js": ""})
	data := []byte(`{"mcpServers": {
		"a": {"command": "node", "args": ["server.js", "--config=lib/x.js", "lib", "${X}.js", "$X.js"]},
		"b": {"command": "./bin/run"},
		"c": {"command": "python3", "args": ["~/tools/s.py"]},
		"d": {"type": "http", "url": "https://example.com/mcp"}
	}}`)
	got := serverFiles(nil, data, dir, home)
	slices.Sort(got)
	want := []string{home + "/tools/s.py", dir + "/bin/run", dir + "/server.js"}
	if !slices.Equal(got, want) {
		t.Errorf("serverFiles =\n%q\nwant\n%q", got, want)
	}
	if got := serverFiles(nil, []byte(`{"mcpServers": 1}`), dir, home); got != nil {
		t.Errorf("malformed: %q", got)
	}
}

// TestProjectFilesFollowServers: the trust record holds the files a
// server's start script runs or sources, as Policy.Code guards them.
func TestProjectFilesFollowServers(t *testing.T) {
	base := testtree.Dir(t)
	root, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	testtree.Write(t, base, map[string]string{
		"proj/.mcp.json":  `{"mcpServers": {"s": {"command": "./start.sh"}}}`,
		"proj/start.sh":   "#!/bin/sh\n. lib/env.sh\nexec node server.js\n",
		"proj/lib/env.sh": "PORT=1\n",
		"proj/server.js":  "",
		"home/":           "",
	})
	files, err := ProjectFiles(root, home)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"start.sh", "lib/env.sh", "server.js"} {
		if d := files[rel]; d == "" || d == Absent {
			t.Errorf("%s: digest %q; files %q", rel, d, files)
		}
	}
}

// TestConfigLinksBudget: configLinks reads at most its budget of entries
// and says when it ran out, so a configuration directory holding a large
// tree costs bounded work at every start, and the warning says what is
// not protected; with budget to spare it finds every link.
func TestConfigLinksBudget(t *testing.T) {
	base := testtree.Dir(t)
	testtree.Write(t, base, map[string]string{"agents/a.md": "", "agents/b.md": "", "agents/sub/c.md": "", "dot/d.md": ""})
	if err := os.Symlink(filepath.Join(base, "dot", "d.md"), filepath.Join(base, "agents", "sub", "d.md")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "agents")
	got, left := configLinks(nil, dir, 100)
	if want := []string{filepath.Join(base, "dot", "d.md")}; !slices.Equal(got, want) || left != 100-5 {
		t.Errorf("configLinks(budget 100) = %q, %d left; want %q, 95 left", got, left, want)
	}
	if _, left := configLinks(nil, dir, 3); left >= 0 {
		t.Errorf("configLinks(budget 3) left %d, want it spent (below zero)", left)
	}
}
