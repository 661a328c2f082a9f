package settings

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

func TestLoadSandbox(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.managed, `{"sandbox": {"required": true, "network": false}}`)
	writeFile(t, l.user, `{"sandbox": {"enabled": true, "filesystem": {"allowWrite": ["~/.cache/go-build", "/opt/cache/../x"], "allowRead": ["~/.gitconfig-work"]}}}`)
	writeFile(t, l.project, `{"sandbox": {"enabled": false}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	by := map[perm.Source]File{}
	for _, f := range s.Files {
		by[f.Scope] = f
	}
	if m := by[perm.SourceManaged].Sandbox; m.Required == nil || !*m.Required || m.Network == nil || *m.Network {
		t.Errorf("managed sandbox = %+v", m)
	}
	want := []string{filepath.Join(l.home, ".cache", "go-build"), "/opt/x"}
	if u := by[perm.SourceUser].Sandbox; !slices.Equal(u.Filesystem.AllowWrite, want) {
		t.Errorf("user allowWrite = %q, want %q", u.Filesystem.AllowWrite, want)
	}
	if u := by[perm.SourceUser].Sandbox; !slices.Equal(u.Filesystem.AllowRead, []string{filepath.Join(l.home, ".gitconfig-work")}) {
		t.Errorf("user allowRead = %q", u.Filesystem.AllowRead)
	}
	if p := by[perm.SourceProject].Sandbox; p.Enabled == nil || *p.Enabled {
		t.Errorf("project sandbox = %+v", p)
	}
}

func TestLoadSandboxErrors(t *testing.T) {
	tests := []struct {
		name, file, content, want string
	}{
		{"required not a bool", "user", "{\n  \"sandbox\": {\n    \"required\": 1}}", `settings.json:3: sandbox.required: want true or false`},
		{"unknown key", "user", "{\"sandbox\": {\n\"enabled\": true,\n\"Network\": false}}", `settings.json:3: sandbox.Network: unknown key`},
		{"wrong type", "user", "{\"sandbox\": {\"enabled\": \"no\"}}", `settings.json:1: sandbox.enabled: want true or false`},
		{"not an object", "user", `{"sandbox": true}`, `sandbox must be an object`},
		{"relative allowWrite", "user", "{\"sandbox\": {\"filesystem\": {\n\"allowWrite\": [\n\"/ok\",\n\"cache\"]}}}", `settings.json:4: sandbox.filesystem: allowWrite: "cache" must be absolute or start with ~/`},
		{"relative allowRead", "user", "{\"sandbox\": {\"filesystem\": {\n\"allowRead\": [\n\"notes\"]}}}", `settings.json:3: sandbox.filesystem: allowRead: "notes" must be absolute or start with ~/`},
		{"unknown filesystem key", "user", "{\"sandbox\": {\"filesystem\": {\n\"allowWrites\": []}}}", `settings.json:2: sandbox.filesystem: unknown key "allowWrites"`},
		{"duplicate key", "user", "{\"sandbox\": {\"enabled\": true,\n\"enabled\": false}}", `settings.json:2: duplicate key "sandbox.enabled"`},
		{"null", "user", `{"sandbox": {"network": null}}`, `sandbox.network: want true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLayout(t)
			path := map[string]string{"user": l.user, "project": l.project}[tt.file]
			writeFile(t, path, tt.content)
			_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want %q naming %s", err, tt.want, path)
			}
		})
	}
}
