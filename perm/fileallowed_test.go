package perm

import (
	"path/filepath"
	"testing"
)

func TestFileAllowed(t *testing.T) {
	dir := t.TempDir()
	ws := Workspace{Cwd: dir, Root: dir, Home: dir}
	entries := func(rules ...string) []Entry {
		var es []Entry
		for _, s := range rules {
			r, err := ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, Entry{Rule: r, Source: SourceProject})
		}
		return es
	}
	secret := filepath.Join(dir, "secret", "k.txt")
	env := filepath.Join(dir, ".env")
	plain := filepath.Join(dir, "src", "a.go")
	tests := []struct {
		name      string
		mode      Mode
		deny, ask []string
		tool      string
		path      string
		want      bool
	}{
		{"plain file", ModeDefault, nil, nil, "Grep", plain, true},
		{"Read deny hides from Grep", ModeDefault, []string{"Read(./.env)"}, nil, "Grep", env, false},
		{"Read deny hides from Glob", ModeDefault, []string{"Read(./.env)"}, nil, "Glob", env, false},
		{"Grep deny hides from Grep", ModeDefault, []string{"Grep(./secret/**)"}, nil, "Grep", secret, false},
		{"Grep deny does not hide from Glob", ModeDefault, []string{"Grep(./secret/**)"}, nil, "Glob", secret, true},
		{"Glob deny hides from Glob", ModeDefault, []string{"Glob(./secret/**)"}, nil, "Glob", secret, false},
		{"Glob deny does not hide from Read", ModeDefault, []string{"Glob(./secret/**)"}, nil, "Read", secret, true},
		{"Grep ask hides", ModeDefault, nil, []string{"Grep(./secret/**)"}, "Grep", secret, false},
		{"Grep ask does not hide in bypass", ModeBypass, nil, []string{"Grep(./secret/**)"}, "Grep", secret, true},
		{"outside the workspace", ModeDefault, nil, nil, "Grep", "/etc/hostname", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{Mode: tt.mode, Deny: entries(tt.deny...), Ask: entries(tt.ask...), Workspace: ws}
			if got := FileAllowed(tt.tool, tt.path, &p); got != tt.want {
				t.Errorf("FileAllowed(%s, %s) = %v, want %v", tt.tool, tt.path, got, tt.want)
			}
		})
	}
}
