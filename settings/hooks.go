package settings

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// The top-level keys of the hooks configuration, in Claude Code's shape.
const (
	hooksKey        = "hooks"
	managedHooksKey = "allowManagedHooksOnly"
	noHooksKey      = "disableAllHooks"
	// noShellKey is Claude Code's disableSkillShellExecution: the `!`
	// commands of custom commands and skills do not run.
	noShellKey = "disableSkillShellExecution"
)

// hooks parses the file's "hooks" object (package hook) and tags every
// hook with the file's scope. An error names the file and the line of the
// offending key.
func (p *parser) hooks(f *File, v *value) error {
	c, err := hook.Parse(p.path, p.data[v.Off:v.End])
	var pe *hook.ParseError
	if errors.As(err, &pe) {
		return p.errAt(keyOffset(v, pe.Key), "%s: %s", pe.Key, pe.Msg)
	}
	if err != nil {
		return p.wrapAt(v.Off, err)
	}
	for _, ev := range c.Ignored() {
		line, _ := lineCol(p.data, keyOffset(v, hooksKey+"."+ev))
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: %s", p.path, line, hook.IgnoredNote(ev)))
	}
	f.Hooks = c.WithSource(f.Scope)
	return nil
}

// pluginOnlyKey is Claude Code's managed strictPluginOnlyCustomization:
// true, or a list of the surfaces it locks (Surfaces), whose user and
// project sources are then not loaded. gen has no plugins, so a locked
// surface comes from managed settings (and gen's built-ins) only.
const pluginOnlyKey = "strictPluginOnlyCustomization"

// Surfaces are the customization surfaces strictPluginOnlyCustomization
// locks, as Claude Code names them.
var Surfaces = []string{"skills", "agents", "hooks", "mcp"}

// pluginOnly parses strictPluginOnlyCustomization, which only managed
// settings may set: elsewhere it is ignored with a warning. A surface
// gen does not know is a warning; any other value is an error, so that a
// lock is never lost to a typing mistake.
func (p *parser) pluginOnly(f *File, m member) error {
	line, _ := lineCol(p.data, m.Off)
	var locked []string
	switch m.Val.Kind {
	case kindBool:
		if m.Val.Boolean {
			locked = Surfaces
		}
	case kindArray:
		for _, e := range m.Val.Elems {
			if e.Kind != kindString {
				return p.errAt(e.Off, "%s must be true, false or a list of %s", pluginOnlyKey, quoteList(Surfaces))
			}
			if !slices.Contains(Surfaces, e.Str) {
				l, _ := lineCol(p.data, e.Off)
				p.warn = append(p.warn, fmt.Sprintf("%s:%d: %s: unknown surface %q (gen knows %s); ignored", p.path, l, pluginOnlyKey, e.Str, quoteList(Surfaces)))
				continue
			}
			locked = append(locked, e.Str)
		}
	default:
		return p.errAt(m.Val.Off, "%s must be true, false or a list of %s", pluginOnlyKey, quoteList(Surfaces))
	}
	if f.Scope != perm.SourceManaged {
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: %s is read only from managed settings; ignored", p.path, line, pluginOnlyKey))
		return nil
	}
	f.Locked = locked
	return nil
}

// managedHooksOnly parses allowManagedHooksOnly, which only managed
// settings may set: elsewhere it is ignored with a warning, as a user
// cannot bind an administrator's policy.
func (p *parser) managedHooksOnly(f *File, m member) error {
	if m.Val.Kind != kindBool {
		return p.errAt(m.Val.Off, "%s must be true or false", managedHooksKey)
	}
	if f.Scope != perm.SourceManaged {
		line, _ := lineCol(p.data, m.Off)
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: %s is read only from managed settings; ignored", p.path, line, managedHooksKey))
		return nil
	}
	f.ManagedHooksOnly = m.Val.Boolean
	return nil
}

// keyStep is one step of a hook.ParseError key: a member name or an index.
var keyStep = lazyre.MustCompile(`\.?([^.\[\]]+)|\[(\d+)\]`)

// keyOffset returns the offset of the value a key such as
// hooks.PreToolUse[0].hooks[1].timeout names inside v, the value of
// "hooks": as deep as the key can be followed. A member is located at its
// key, so the line is the line a person looks for.
func keyOffset(v *value, key string) int {
	off := v.Off
	steps := keyStep.Get().FindAllStringSubmatch(strings.TrimPrefix(key, hooksKey), -1)
	for _, st := range steps {
		switch {
		case st[1] != "" && v.Kind == kindObject:
			var next *value
			for _, m := range v.Members {
				if m.Key == st[1] {
					next, off = m.Val, m.Off
				}
			}
			if next == nil {
				return off
			}
			v = next
		case st[2] != "" && v.Kind == kindArray:
			i, err := strconv.Atoi(st[2])
			if err != nil || i >= len(v.Elems) {
				return off
			}
			v = v.Elems[i]
			off = v.Off
		default:
			return off
		}
	}
	return off
}
