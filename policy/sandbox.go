package policy

import (
	"slices"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/trust"
)

// Sandbox returns the kernel sandbox settings in force under s, and one
// warning per project settings file whose widening was ignored because
// the project is not trusted (trust.Refusal).
//
// enabled and network come from the highest-precedence file that sets
// them; required is true when any file, of any scope, sets it true (it
// only tightens: a file's false does not undo another's true); the
// allowWrite and allowRead paths of every file that may widen are joined.
// Only user and managed settings, and a trusted project, may widen the
// sandbox: "enabled": false, "network": true, allowWrite and allowRead. An
// untrusted project (shared or local file) may only tighten it.
func Sandbox(s *settings.Settings) (sandbox.Settings, []string) {
	var out sandbox.Settings
	var warns []string
	// Lowest precedence first, so a higher scope overwrites.
	for i := len(s.Files) - 1; i >= 0; i-- {
		f := s.Files[i]
		fs := f.Sandbox
		project := f.Scope.Project()
		if project && fs.Widens() {
			if w := trust.Refusal(s, trust.SandboxOff, f.Path); w != "" {
				warns = append(warns, w)
				fs = fs.Tightening()
			}
		}
		if fs.Enabled != nil {
			out.Enabled = fs.Enabled
		}
		if fs.Network != nil {
			out.Network = fs.Network
		}
		if isTrue(fs.Required) || out.Required == nil {
			out.Required = fs.Required
		}
		if isFalse(fs.AllowUnsandboxed) || out.AllowUnsandboxed == nil {
			out.AllowUnsandboxed = fs.AllowUnsandboxed
		}
		out.Filesystem.AllowWrite = join(out.Filesystem.AllowWrite, fs.Filesystem.AllowWrite)
		out.Filesystem.AllowRead = join(out.Filesystem.AllowRead, fs.Filesystem.AllowRead)
	}
	return out, warns
}

// join appends to list the paths of more it does not hold yet.
func join(list, more []string) []string {
	for _, p := range more {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

// supported is sandbox.Supported, replaceable in tests.
var supported = sandbox.Supported

// confine sets p's sandbox settings to those in force under s (Sandbox;
// its warnings are given where the settings are loaded), and NoSandbox
// where they turn the sandbox off or the platform has none.
func confine(p *perm.Policy, s *settings.Settings) {
	p.Sandbox, _ = Sandbox(s)
	p.NoSandbox = isFalse(p.Sandbox.Enabled) || !supported()
}
