package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Settings is the "sandbox" object of a settings file, with Claude Code's
// key names. A nil pointer field is unset (the scope below decides).
type Settings struct {
	// Enabled turns the sandbox on or off; unset means on where Available.
	Enabled *bool `json:"enabled,omitempty"`
	// Network allows network access to workspace-write commands; unset
	// means allowed. Read-only commands never have it.
	Network *bool `json:"network,omitempty"`
	// Filesystem widens what workspace-write commands may write.
	Filesystem Filesystem `json:"filesystem,omitzero"`
	// Required refuses Bash where there is no sandbox, instead of warning
	// and running unconfined. It only ever tightens, so every scope may
	// set it, and scopes combine by "or": a false never undoes another
	// scope's true.
	Required *bool `json:"required,omitempty"`
	// AllowUnsandboxed is Claude Code's allowUnsandboxedCommands. False
	// turns the dangerouslyDisableSandbox escape off: such a call is
	// denied, never run without the sandbox, whoever would approve it.
	// Only false changes anything (true is what gen does anyway: such a
	// call asks), so every scope may set it, and a false never yields to
	// another scope's true.
	AllowUnsandboxed *bool `json:"allowUnsandboxedCommands,omitempty"`
}

// Equal reports whether s and t say the same.
func (s Settings) Equal(t Settings) bool {
	same := func(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	return same(s.Enabled, t.Enabled) && same(s.Network, t.Network) && same(s.Required, t.Required) && same(s.AllowUnsandboxed, t.AllowUnsandboxed) &&
		slices.Equal(s.Filesystem.AllowWrite, t.Filesystem.AllowWrite) && slices.Equal(s.Filesystem.AllowRead, t.Filesystem.AllowRead)
}

// Filesystem is the "sandbox.filesystem" object.
type Filesystem struct {
	// AllowWrite are extra writable paths, each absolute or starting with
	// "~/" (the settings package expands it).
	AllowWrite []string `json:"allowWrite,omitempty"`
	// AllowRead are paths inside the home directories that read-only
	// commands may read (Roots.Reads), in the same forms. They never
	// re-open what a deny rule hides.
	AllowRead []string `json:"allowRead,omitempty"`
}

// UnmarshalJSON decodes the "sandbox" object strictly: keys must match
// exactly (encoding/json alone would accept "ENABLED"), unknown keys and
// values of the wrong type are errors, and each allowWrite path must be
// absolute or start with "~/".
func (s *Settings) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("sandbox: want an object: %w", err)
	}
	var out Settings
	for key, val := range raw {
		var err error
		switch key {
		case "enabled":
			out.Enabled, err = boolValue(val)
		case "network":
			out.Network, err = boolValue(val)
		case "required":
			out.Required, err = boolValue(val)
		case "allowUnsandboxedCommands":
			out.AllowUnsandboxed, err = boolValue(val)
		case "filesystem":
			err = out.Filesystem.decode(val)
		default:
			err = fmt.Errorf("unknown key (want enabled, network, filesystem, required or allowUnsandboxedCommands)")
		}
		if err != nil {
			return fmt.Errorf("sandbox.%s: %w", key, err)
		}
	}
	*s = out
	return nil
}

func (f *Filesystem) decode(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("want an object: %w", err)
	}
	for key, val := range raw {
		var dst *[]string
		switch key {
		case "allowWrite":
			dst = &f.AllowWrite
		case "allowRead":
			dst = &f.AllowRead
		default:
			return fmt.Errorf("unknown key %q (want allowWrite or allowRead)", key)
		}
		var paths []string
		if err := json.Unmarshal(val, &paths); err != nil || bytes.Equal(bytes.TrimSpace(val), []byte("null")) {
			return fmt.Errorf("%s: want an array of strings", key)
		}
		for _, p := range paths {
			if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
				return fmt.Errorf("%s: %q must be absolute or start with ~/", key, p)
			}
		}
		*dst = paths
	}
	return nil
}

// boolValue decodes a JSON boolean; null and other types are errors.
func boolValue(data []byte) (*bool, error) {
	var b bool
	if t := bytes.TrimSpace(data); !bytes.Equal(t, []byte("true")) && !bytes.Equal(t, []byte("false")) {
		return nil, errors.New("want true or false")
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// Widens reports whether s turns the sandbox off, turns network on or adds
// writable or readable paths: what only the user's own settings, or a
// trusted project's, may do.
func (s Settings) Widens() bool {
	return (s.Enabled != nil && !*s.Enabled) || (s.Network != nil && *s.Network) || len(s.Filesystem.AllowWrite) > 0 || len(s.Filesystem.AllowRead) > 0
}

// Tightening keeps only what narrows the sandbox: turning it on, taking
// the network away, requiring it. A scope that may not widen the sandbox
// (an untrusted project, a scope --setting-sources leaves out) still
// narrows it.
func (s Settings) Tightening() Settings {
	var out Settings
	if s.Enabled != nil && *s.Enabled {
		out.Enabled = s.Enabled
	}
	if s.Network != nil && !*s.Network {
		out.Network = s.Network
	}
	if s.Required != nil && *s.Required {
		out.Required = s.Required
	}
	if s.AllowUnsandboxed != nil && !*s.AllowUnsandboxed {
		out.AllowUnsandboxed = s.AllowUnsandboxed
	}
	return out
}
