package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gen-run/gen/internal/atomicfile"
	"github.com/gen-run/gen/perm"
)

// AddRule appends rule to permissions.<list> ("allow", "ask" or "deny") in
// the settings file at path, creating the file and its parents if missing.
// Adding a rule that is already in the list does nothing.
//
// Every other key, and the order of keys, is kept. The write is atomic
// (a temporary file in the same directory is synced and renamed over path)
// and the whole read-modify-write holds an exclusive lock on path's
// directory (no lock file is created), so concurrent writers in this and
// other processes do not lose each other's rules.
// A file that is not a valid settings object is left alone and reported.
func AddRule(path, list, rule string) error {
	if _, err := perm.ParseRule(rule); err != nil {
		return fmt.Errorf("adding to %s: %w", path, err)
	}
	return update(path, list, true, func(rules []string) []string {
		if slices.Contains(rules, rule) {
			return nil
		}
		return append(rules, rule)
	})
}

// RemoveRule removes every occurrence of rule from permissions.<list> in the
// settings file at path, with the same guarantees as AddRule. A missing file
// or a rule not in the list is not an error. The rule is not validated, so
// that a malformed rule can be removed.
func RemoveRule(path, list, rule string) error {
	return update(path, list, false, func(rules []string) []string {
		if !slices.Contains(rules, rule) {
			return nil
		}
		return slices.DeleteFunc(rules, func(r string) bool { return r == rule })
	})
}

// update applies edit to permissions.<list> of the file at path under the
// lock. edit returns nil when there is nothing to change.
func update(path, list string, create bool, edit func([]string) []string) error {
	switch list {
	case "allow", "ask", "deny":
	default:
		return fmt.Errorf("settings: unknown rule list %q (want allow, ask or deny)", list)
	}
	return modify(path, create, func(data []byte) ([]byte, bool, error) {
		return edited(path, data, list, edit)
	})
}

// AddTrustedProject records root, an absolute project directory, in the
// top-level trustedProjects list of the user settings file at path, with
// AddRule's guarantees (atomic, locked, other keys kept). Recording a root
// twice does nothing.
func AddTrustedProject(path, root string) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("settings: trusted project %q is not absolute", root)
	}
	return modify(path, true, func(data []byte) ([]byte, bool, error) {
		top, err := readObject(path, data, "settings")
		if err != nil {
			return nil, false, err
		}
		var roots []string
		if raw, ok := getField(top, trustedKey); ok {
			if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &roots) != nil {
				return nil, false, fmt.Errorf("%s: %s must be an array of strings", path, trustedKey)
			}
		}
		if slices.Contains(roots, root) {
			return nil, false, nil
		}
		enc, err := marshal(append(roots, root))
		if err != nil {
			return nil, false, err
		}
		out, err := indented(setField(top, trustedKey, enc))
		return out, err == nil, err
	})
}

// modify runs change on the contents of the file at path (nil if it does
// not exist) under an exclusive lock on path+".lock", and writes what it
// returns atomically. change reports false when there is nothing to write.
func modify(path string, create bool, change func([]byte) ([]byte, bool, error)) error {
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	unlock, err := lockDir(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil // no directory, so no file to remove from
	}
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	defer unlock()

	// Write through a symbolic link rather than replacing it.
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	data, err := os.ReadFile(target)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return nil
		}
		data = nil
	case err != nil:
		return fmt.Errorf("settings: %w", err)
	default:
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, changed, err := change(data)
	if err != nil || !changed {
		return err
	}
	return writeAtomic(target, out, mode)
}

// field is one member of a JSON object whose value is kept verbatim.
type field struct {
	key string
	val json.RawMessage
}

// readObject splits a JSON object into its members, in order. Empty input
// (a file someone created with touch) is an empty object.
func readObject(path string, data []byte, what string) ([]field, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	top, err := decode(path, data)
	if err != nil {
		return nil, err
	}
	if top.Kind != kindObject {
		line, _ := lineCol(data, top.Off)
		return nil, &Error{Path: path, Line: line, Err: fmt.Errorf("%s must be a JSON object", what)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // '{'; data is known to be a valid object
	var fields []field
	for dec.More() {
		k, _ := dec.Token()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		for _, f := range fields {
			if f.key == k.(string) {
				return nil, fmt.Errorf("%s: duplicate key %q in %s", path, f.key, what)
			}
		}
		fields = append(fields, field{k.(string), raw})
	}
	return fields, nil
}

func writeObject(fields []field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(f.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without escaping <, > and &, which are common in
// shell rules and should stay readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func setField(fields []field, key string, val json.RawMessage) []field {
	for i := range fields {
		if fields[i].key == key {
			fields[i].val = val
			return fields
		}
	}
	return append(fields, field{key, val})
}

func getField(fields []field, key string) (json.RawMessage, bool) {
	for _, f := range fields {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}

// edited returns data with edit applied to permissions.<list>, indented.
func edited(path string, data []byte, list string, edit func([]string) []string) ([]byte, bool, error) {
	top, err := readObject(path, data, "settings")
	if err != nil {
		return nil, false, err
	}
	var perms []field
	if raw, ok := getField(top, "permissions"); ok {
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return nil, false, fmt.Errorf("%s: permissions must be an object", path)
		}
		if perms, err = readObject(path, raw, "permissions"); err != nil {
			return nil, false, err
		}
	}
	var rules []string
	if raw, ok := getField(perms, list); ok {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &rules) != nil {
			return nil, false, fmt.Errorf("%s: permissions.%s must be an array of strings", path, list)
		}
	}
	rules = edit(rules)
	if rules == nil {
		return nil, false, nil
	}
	enc, err := marshal(rules)
	if err != nil {
		return nil, false, err
	}
	perms = setField(perms, list, enc)
	pb, err := writeObject(perms)
	if err != nil {
		return nil, false, err
	}
	out, err := indented(setField(top, "permissions", pb))
	return out, err == nil, err
}

// indented renders a settings object the way gen writes it.
func indented(top []field) ([]byte, error) {
	tb, err := writeObject(top)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, tb, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeAtomic replaces path with data so that readers see the old or the
// new file, never a part of one, even after a crash (atomicfile.Write).
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := atomicfile.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}
