package settings

import (
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
