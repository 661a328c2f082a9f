package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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
// line), and allowWrite paths made
// absolute ("~/" under home). Claude Code's keys are first mapped onto
// gen's by claudeSandbox, never to anything less strict.
func (p *parser) sandbox(f *File, v *value, base, home string) error {
	if v.Kind != kindObject {
		return p.errAt(v.Off, "sandbox must be an object")
	}
	fields, err := p.unique(v, "sandbox.")
	if err != nil {
		return err
	}
	if fs, ok := fields["filesystem"]; ok && fs.Kind == kindObject {
		if _, err := p.unique(fs, "sandbox.filesystem."); err != nil {
			return err
		}
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(p.data[v.Off:])).Decode(&raw); err != nil {
		return p.errAt(v.Off, "sandbox: %v", err)
	}
	raw, err = p.claudeSandbox(f, v, raw, base)
	if err != nil {
		return err
	}
	var s sandbox.Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		return p.errAt(sandboxErrorOffset(v, err.Error()), "%v", err)
	}
	for _, paths := range []struct {
		key  string
		list []string
	}{{"allowWrite", s.Filesystem.AllowWrite}, {"allowRead", s.Filesystem.AllowRead}} {
		for i, w := range paths.list {
			dir, err := resolveDir(w, home, home)
			if err != nil {
				return p.errAt(sandboxErrorOffset(v, "sandbox.filesystem: "+w), "sandbox.filesystem.%s: %v", paths.key, err)
			}
			paths.list[i] = filepath.Clean(dir)
		}
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
		return v.Off
	}
	key, _, _ := strings.Cut(rest, ":")
	for _, m := range v.Members {
		if m.Key != key {
			continue
		}
		if key != "filesystem" || m.Val.Kind != kindObject {
			return m.Off
		}
		for _, fm := range m.Val.Members {
			if fm.Key != "allowWrite" && fm.Key != "allowRead" {
				if strings.Contains(msg, `"`+fm.Key+`"`) {
					return fm.Off
				}
				continue
			}
			for _, el := range fm.Val.Elems {
				if el.Kind == kindString && strings.Contains(msg, el.Str) {
					return el.Off
				}
			}
			return fm.Off
		}
		return m.Off
	}
	return v.Off
}

// claudeIgnoredSandboxKeys are Claude Code's sandbox keys that could only
// widen what a command may do or that tune its own sandbox; gen decides
// Bash by its own rules (dangerouslyDisableSandbox asks), so they are
// ignored with a warning.
var claudeIgnoredSandboxKeys = []string{
	"autoAllowBashIfSandboxed", "excludedCommands",
	"enableWeakerNestedSandbox", "enableWeakerNetworkIsolation", "ignoreViolations",
}

// claudeSandbox rewrites the Claude Code forms in the sandbox object v
// (raw is its text) into gen's, failing closed:
//   - a "network" object (domain allow lists, proxy ports) becomes
//     "network": false, since the kernel sandbox cannot filter by domain;
//   - "failIfUnavailable": true becomes "required": true, in any scope
//     (it only tightens);
//   - filesystem.denyRead and denyWrite paths become Read and Edit deny
//     rules of f, which the gate applies to every tool, Bash arguments
//     included; filesystem.allowRead is gen's own key too (it re-opens
//     parts of the home directories to read-only commands) and never
//     makes an exception to a deny rule;
//   - claudeIgnoredSandboxKeys are dropped with a warning.
//
// Relative paths resolve against base. Other keys are left for the strict
// decoder.
func (p *parser) claudeSandbox(f *File, v *value, raw json.RawMessage, base string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return raw, nil // the strict decoder reports it
	}
	changed := false
	warn := func(m member, format string, args ...any) {
		line, _ := lineCol(p.data, m.Off)
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: sandbox.%s: ", f.Path, line, m.Key)+fmt.Sprintf(format, args...))
	}
	for _, m := range v.Members {
		switch {
		case m.Key == "network" && m.Val.Kind == kindObject:
			obj["network"] = json.RawMessage("false")
			changed = true
			warn(m, "Claude Code's network settings cannot be enforced per domain by gen's sandbox; sandboxed commands get no network")
		case m.Key == "failIfUnavailable":
			if m.Val.Kind != kindBool {
				return nil, p.errAt(m.Val.Off, "sandbox.failIfUnavailable must be true or false")
			}
			delete(obj, m.Key)
			changed = true
			if !m.Val.Boolean {
				continue
			}
			if _, set := obj["required"]; set {
				continue
			}
			obj["required"] = json.RawMessage("true")
		case slices.Contains(claudeIgnoredSandboxKeys, m.Key):
			delete(obj, m.Key)
			changed = true
			warn(m, "Claude Code's key is ignored: gen decides Bash by its own rules")
		case m.Key == "filesystem" && m.Val.Kind == kindObject:
			fs, fsChanged, err := p.claudeFilesystem(f, m.Val, obj[m.Key], base, warn)
			if err != nil {
				return nil, err
			}
			if fsChanged {
				obj[m.Key], changed = fs, true
			}
		}
	}
	if !changed {
		return raw, nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, p.errAt(v.Off, "sandbox: %v", err)
	}
	return out, nil
}

// claudeFilesystem maps Claude Code's keys of sandbox.filesystem (v, with
// text raw) as claudeSandbox says, returning the object left for gen.
func (p *parser) claudeFilesystem(f *File, v *value, raw json.RawMessage, base string, warn func(member, string, ...any)) (json.RawMessage, bool, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return raw, false, nil
	}
	changed := false
	for _, m := range v.Members {
		var tool string
		switch m.Key {
		case "denyRead":
			tool = "Read"
		case "denyWrite":
			tool = "Edit"
		default:
			continue
		}
		strs, err := p.strings(m.Val, "sandbox.filesystem."+m.Key)
		if err != nil {
			return nil, false, err
		}
		for _, s := range strs {
			pat, err := sandboxPathPattern(s.Str, base)
			if err != nil {
				return nil, false, p.errAt(s.Off, "sandbox.filesystem.%s: %v", m.Key, err)
			}
			for _, rule := range []string{pat, pat + "/**"} {
				r, err := perm.ParseRule(tool + "(" + rule + ")")
				if err != nil {
					return nil, false, p.wrapAt(s.Off, err)
				}
				f.Deny = append(f.Deny, perm.Entry{Rule: r, Source: f.Scope, Origin: f.Path})
			}
		}
		delete(obj, m.Key)
		changed = true
	}
	if !changed {
		return raw, false, nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, false, p.errAt(v.Off, "sandbox.filesystem: %v", err)
	}
	return out, true, nil
}

// sandboxPathPattern turns a sandbox path (absolute, "~/" or relative to
// base) into a permission rule path: "//abs" or "~/...".
func sandboxPathPattern(path, base string) (string, error) {
	path = strings.TrimSuffix(path, "/")
	switch {
	case path == "":
		return "", fmt.Errorf("empty path")
	case path == "~" || strings.HasPrefix(path, "~/"):
		return path, nil
	case filepath.IsAbs(path):
		return "/" + filepath.ToSlash(filepath.Clean(path)), nil
	}
	return "/" + filepath.ToSlash(filepath.Join(base, path)), nil
}
