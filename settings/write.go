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
	"time"

	"github.com/gen-run/gen/internal/atomicfile"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/workspace"
)

// lockTimeout bounds how long a writer waits for the others (lockDirs): a
// stuck process holding the lock must not hang this one forever. Waiting
// is blocking, not polled, so under contention it is a queue, and the
// bound is only reached when a holder is stuck. (A variable so that tests
// can reach the bound, and so that a test of contention on a loaded
// machine does not.)
var lockTimeout = 30 * time.Second

// AddRule appends rule to permissions.<list> ("allow", "ask" or "deny") in
// the settings file at path, creating the file and its parents if missing.
// Adding a rule that is already in the list does nothing.
//
// Every other key, and the order of keys, is kept. The write is atomic
// (a temporary file in the same directory is synced and renamed over path)
// and the whole read-modify-write holds an exclusive lock on the
// directory of the file path names, a link followed (no lock file is
// created), so concurrent writers in this and
// other processes do not lose each other's rules.
// A file that is not a valid settings object is left alone and reported.
func AddRule(path, list, rule string) error {
	if _, err := perm.ParseRule(rule); err != nil {
		return fmt.Errorf("adding to %s: %w", path, err)
	}
	return update(path, list, true, nil, adding(rule))
}

// adding is the edit that appends rule unless it is there.
func adding(rule string) func([]string) []string {
	return func(rules []string) []string {
		if slices.Contains(rules, rule) {
			return nil
		}
		return append(rules, rule)
	}
}

// RemoveRule removes every occurrence of rule from permissions.<list> in the
// settings file at path, with the same guarantees as AddRule. A missing file
// or a rule not in the list is not an error. The rule is not validated, so
// that a malformed rule can be removed.
func RemoveRule(path, list, rule string) error {
	return update(path, list, false, nil, removing(rule))
}

// removing is the edit that removes every occurrence of rule.
func removing(rule string) func([]string) []string {
	return func(rules []string) []string {
		if !slices.Contains(rules, rule) {
			return nil
		}
		return slices.DeleteFunc(rules, func(r string) bool { return r == rule })
	}
}

// update applies edit to permissions.<list> of the file at path under the
// lock, keeping trust current with keep when it is not nil. edit returns
// nil when there is nothing to change.
func update(path, list string, create bool, keep *KeepTrust, edit func([]string) []string) error {
	switch list {
	case "allow", "ask", "deny":
	default:
		return fmt.Errorf("settings: unknown rule list %q (want allow, ask or deny)", list)
	}
	return modify(path, create, keep, func(data []byte) ([]byte, bool, error) {
		return edited(path, data, list, edit)
	})
}

// AddTrustedProject records root, an absolute project directory, as
// trusted with files, the digests of its configuration (ProjectFiles), in
// the top-level trustedProjects list of the user settings file at path,
// with AddRule's guarantees (atomic, locked, other keys kept). An entry
// already there for root (a plain path, or other files) is replaced;
// entries for other roots are kept as written.
func AddTrustedProject(path, root string, files map[string]string) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("settings: trusted project %q is not absolute", root)
	}
	if files == nil {
		return fmt.Errorf("settings: trusting %s: no file digests to record", root)
	}
	entry, err := marshal(struct {
		Path  string            `json:"path"`
		Files map[string]string `json:"files"`
	}{root, files})
	if err != nil {
		return err
	}
	return modify(path, true, nil, func(data []byte) ([]byte, bool, error) {
		top, entries, err := trustEntries(path, data)
		if err != nil {
			return nil, false, err
		}
		kept := slices.DeleteFunc(entries, func(e json.RawMessage) bool { return entryPath(e) == root })
		enc, err := marshal(append(kept, entry))
		if err != nil {
			return nil, false, err
		}
		out, err := indented(setField(top, trustedKey, enc))
		return out, err == nil, err
	})
}

// trustEntries splits the user settings data into its members and the
// entries of its trustedProjects list, kept verbatim.
func trustEntries(path string, data []byte) ([]field, []json.RawMessage, error) {
	top, err := readObject(path, data, "settings")
	if err != nil {
		return nil, nil, err
	}
	var entries []json.RawMessage
	if raw, ok := getField(top, trustedKey); ok {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &entries) != nil {
			return nil, nil, fmt.Errorf("%s: %s must be an array", path, trustedKey)
		}
	}
	return top, entries, nil
}

// entryPath is the project path of a trustedProjects entry, a string or
// an object's "path"; "" when it has none.
func entryPath(e json.RawMessage) string {
	var p string
	if json.Unmarshal(e, &p) == nil {
		return p
	}
	var o struct{ Path string }
	if json.Unmarshal(e, &o) == nil {
		return o.Path
	}
	return ""
}

// KeepTrust is what a write to a project settings file needs to keep the
// project's trust current: User, the user settings file that records
// trust, and Root, the project root. gen's own writes to a trusted
// project's settings (an "Always allow", a rule added with /permissions)
// must not untrust the project: its AddRule and RemoveRule also update
// the digest recorded for the file, in the same locked step, when the
// file's content before the write is the content that was trusted.
// Otherwise (the file had already changed, or the project has no trust
// entry with files) the trust is left as it is.
type KeepTrust struct {
	User, Root string
}

// AddRule is settings.AddRule for the project settings file at path,
// keeping the trust of k.Root current (see KeepTrust).
func (k KeepTrust) AddRule(path, list, rule string) error {
	if _, err := perm.ParseRule(rule); err != nil {
		return fmt.Errorf("adding to %s: %w", path, err)
	}
	return update(path, list, true, &k, adding(rule))
}

// RemoveRule is settings.RemoveRule for the project settings file at
// path, keeping the trust of k.Root current (see KeepTrust).
func (k KeepTrust) RemoveRule(path, list, rule string) error {
	return update(path, list, false, &k, removing(rule))
}

// rel is path relative to k.Root as ProjectFiles names it, "" when path is
// not one of the project's settings files.
func (k KeepTrust) rel(path string) string {
	r, err := filepath.Rel(k.Root, path)
	if err != nil {
		return ""
	}
	r = filepath.ToSlash(r)
	if !slices.Contains(trustFiles, r) {
		return ""
	}
	return r
}

// refresh returns the user settings data with the digest of rel changed
// from before to after in every trust entry for k.Root that records
// before for it; false when no entry does.
func (k KeepTrust) refresh(data []byte, rel, before, after string) ([]byte, bool, error) {
	top, entries, err := trustEntries(k.User, data)
	if err != nil {
		return nil, false, err
	}
	root := filepath.Clean(k.Root)
	real := realPath(root)
	changed := false
	for i, e := range entries {
		fields, err := readObject(k.User, e, trustedKey+" entry")
		if err != nil || !sameRoot(entryPath(e), root, real) {
			continue // a plain path has no digests to keep
		}
		raw, ok := getField(fields, "files")
		var files map[string]string
		if !ok || json.Unmarshal(raw, &files) != nil || files[rel] != before && !(before == Absent && files[rel] == "") {
			continue
		}
		files[rel] = after
		enc, err := marshal(files)
		if err != nil {
			return nil, false, err
		}
		if entries[i], err = writeObject(setField(fields, "files", enc)); err != nil {
			return nil, false, err
		}
		changed = true
	}
	if !changed {
		return nil, false, nil
	}
	enc, err := marshal(entries)
	if err != nil {
		return nil, false, err
	}
	out, err := indented(setField(top, trustedKey, enc))
	return out, err == nil, err
}

// modify runs change on the contents of the file at path (nil if it does
// not exist) under an exclusive lock on the directory of the file it
// names (a link followed), and writes what
// it returns atomically. change reports false when there is nothing to
// write. With keep, the user settings' directory is locked too (after
// path's) and the trust of keep.Root is kept current (KeepTrust).
func modify(path string, create bool, keep *KeepTrust, change func([]byte) ([]byte, bool, error)) error {
	if err := writable(path); err != nil {
		return err
	}
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	// The lock is on the directory of the file written, a link's target:
	// writers reaching one file through links in different directories
	// (a dotfiles file linked from two homes, one local settings file
	// linked from several worktrees) must exclude each other too.
	rel := ""
	dirs := []string{filepath.Dir(resolved(path))}
	if keep != nil {
		if rel = keep.rel(path); rel != "" {
			if err := writable(keep.User); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Dir(keep.User)); err == nil {
				dirs = append(dirs, filepath.Dir(resolved(keep.User)))
			} else {
				rel = "" // no user settings, so no trust to keep
			}
		}
	}
	unlock, err := lockDirs(dirs...)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil // no directory, so no file to remove from
	}
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	defer unlock()

	data, mode, err := readLocked(path, create)
	if err != nil || data == nil && !create {
		return err
	}
	out, changed, err := change(data)
	if err != nil || !changed {
		return err
	}
	if err := writeAtomic(resolved(path), out, mode); err != nil {
		return err
	}
	if rel == "" {
		return nil
	}
	user, userMode, err := readLocked(keep.User, false)
	if err != nil || user == nil {
		return err
	}
	newUser, ok, err := keep.refresh(user, rel, contentDigest(data), digest(out))
	if err != nil || !ok {
		return err
	}
	return writeAtomic(resolved(keep.User), newUser, userMode)
}

// writable refuses a settings file that is a symbolic link to nothing
// (Load refuses it too): writing would replace the link with a file of
// its own, and the dotfiles it pointed into would never see the change.
func writable(path string) error {
	if link := workspace.DanglingLink(path); link != "" {
		return fmt.Errorf("settings %s: %s is a symbolic link to a file that does not exist; nothing was written", path, link)
	}
	return nil
}

// resolved is path with a symbolic link at it followed: gen writes
// through a link rather than replacing it.
func resolved(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	return path
}

// readLocked reads the file at path (through a link) for modify, with the
// mode to write it back with. A missing file is nil data, or, without
// create, nil data and no error for the caller to stop at. It reads as
// Load does (textfile.Read): a FIFO or a link to a device is an error, not
// a wait that holds the lock forever or a read that never ends.
func readLocked(path string, create bool) ([]byte, fs.FileMode, error) {
	data, err := textfile.Read(resolved(path), textfile.Max)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, mode, nil
	case err != nil:
		return nil, mode, fmt.Errorf("settings %s: %w", path, err)
	}
	if data == nil {
		data = []byte{} // an empty file exists: not nil
	}
	if fi, err := os.Stat(resolved(path)); err == nil {
		mode = fi.Mode().Perm()
	}
	return data, mode, nil
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
	// Load reads no settings file over textfile.Max: a write that made one
	// (trust records of many projects piling up) would leave every later
	// gen unable to start.
	if len(data) > textfile.Max {
		return fmt.Errorf("settings %s: the new content would be %d bytes, over the %d-byte limit of a settings file; nothing was written", path, len(data), textfile.Max)
	}
	if err := atomicfile.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}
