package settings

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
)

// sandboxKey is the top-level key of the kernel sandbox settings (Claude
// Code's name). Package sandbox decodes and checks its value; package
// policy decides which scopes' values apply.
const sandboxKey = "sandbox"

// sandbox parses the "sandbox" object v into f.Sandbox: strictly (unknown
// keys, duplicate keys and values of the wrong type are errors naming the
// line), "required" only in managed settings, and allowWrite paths made
// absolute ("~/" under home).
func (p *parser) sandbox(f *File, v *value, home string) error {
	if v.kind != kindObject {
		return p.errAt(v.off, "sandbox must be an object")
	}
	fields, err := p.unique(v, "sandbox.")
	if err != nil {
		return err
	}
	if fs, ok := fields["filesystem"]; ok && fs.kind == kindObject {
		if _, err := p.unique(fs, "sandbox.filesystem."); err != nil {
			return err
		}
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(p.data[v.off:])).Decode(&raw); err != nil {
		return p.errAt(v.off, "sandbox: %v", err)
	}
	var s sandbox.Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		return p.errAt(sandboxErrorOffset(v, err.Error()), "%v", err)
	}
	if err := s.Validate(f.Scope == perm.SourceManaged); err != nil {
		return p.errAt(sandboxErrorOffset(v, err.Error()), "%v (this is %s settings)", err, f.Scope)
	}
	for i, w := range s.Filesystem.AllowWrite {
		dir, err := resolveDir(w, home, home)
		if err != nil {
			return p.errAt(sandboxErrorOffset(v, "sandbox.filesystem: "+w), "sandbox.filesystem.allowWrite: %v", err)
		}
		s.Filesystem.AllowWrite[i] = filepath.Clean(dir)
	}
	f.Sandbox = s
	return nil
}

// sandboxErrorOffset finds where in the sandbox object v the problem an
// error message names is: the member "sandbox.KEY: ..." names, and for
// filesystem the allowWrite path it quotes; v itself otherwise.
func sandboxErrorOffset(v *value, msg string) int {
	rest, ok := strings.CutPrefix(msg, "sandbox.")
	if !ok {
		return v.off
	}
	key, _, _ := strings.Cut(rest, ":")
	for _, m := range v.members {
		if m.key != key {
			continue
		}
		if key != "filesystem" || m.val.kind != kindObject {
			return m.off
		}
		for _, fm := range m.val.members {
			if fm.key != "allowWrite" {
				if strings.Contains(msg, `"`+fm.key+`"`) {
					return fm.off
				}
				continue
			}
			for _, el := range fm.val.elems {
				if el.kind == kindString && strings.Contains(msg, el.str) {
					return el.off
				}
			}
			return fm.off
		}
		return m.off
	}
	return v.off
}
