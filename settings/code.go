package settings

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/workspace"
)

// MCPFiles returns the existing regular files, symbolic links resolved,
// that the stdio MCP servers that may start under s name as their command
// or an argument (node ./server/index.js), and those hook.Follow finds
// through a shell script among them: the servers of the managed and user
// settings, and, in a trusted project, of the project's settings files
// and .mcp.json. Servers run in the working directory, outside the gate
// and the sandbox, so these files are guarded like hook scripts
// (perm.Policy.Code). Servers given with --mcp-config are the user's
// choice for one run, and are not looked at.
func (s *Settings) MCPFiles() []string {
	ws := s.Workspace
	var out []string
	for _, f := range s.Files {
		if f.MCPServers != nil && (s.Trusted || !f.Project()) {
			out = serverFiles(out, f.MCPServers, ws.Cwd, ws.Home)
		}
	}
	if s.Trusted {
		if data, err := textfile.Read(filepath.Join(ws.Root, ".mcp.json"), textfile.Max); err == nil {
			out = serverFiles(out, data, ws.Cwd, ws.Home)
		}
	}
	return hook.Follow(out, ws.Cwd, ws.Root, ws.Home) // a server started by a shell script
}

// maxServerFiles bounds what serverFiles adds.
const maxServerFiles = 256

// serverFiles appends to out the files the stdio servers of the
// {"mcpServers": {...}} object in data name, as their process would find
// them in dir ("~/" under home). Package mcp checks the configuration
// strictly; this reads only the command and arguments, and passes over
// what it cannot read: a word with a ${VAR} expansion, a server of
// another shape, a file that is not there.
func serverFiles(out []string, data []byte, dir, home string) []string {
	var top struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if json.Unmarshal(data, &top) != nil {
		return out
	}
	for _, srv := range top.MCPServers {
		for _, w := range append([]string{srv.Command}, srv.Args...) {
			if len(out) >= maxServerFiles {
				return out
			}
			if w == "" || strings.Contains(w, "$") || strings.HasPrefix(w, "-") {
				continue
			}
			if f, ok := workspace.RegularFile(workspace.Roots{Cwd: dir, Home: home}.Abs(w)); ok {
				out = append(out, f)
			}
		}
	}
	return out
}
