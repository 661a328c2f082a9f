package perm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxDeniedPaths bounds each list DeniedPaths returns: the sandbox makes
// one mount per path.
const maxDeniedPaths = 256

// DeniedPaths returns the existing files and directories that p's deny
// rules name, symlinks resolved, for the kernel sandbox to enforce behind
// the gate: read are those of Read deny rules (the sandbox hides them:
// a sandboxed command finds an empty directory or an empty file there),
// edit those of Edit and Write deny rules (the sandbox keeps them
// read-only). A Read deny also denies writes, so read paths are not
// repeated in edit.
//
// Only what a pattern names without searching is found: a literal path
// (./.env, ~/.ssh/id_ed25519, /etc/secrets/), the directory of a
// DIR/** pattern, and the matches of a pattern whose only wildcards are
// in its last element (./*.pem: one directory read). A pattern that
// matches by name anywhere (*.pem, **/.env, secrets/**/k) is left to the
// gate, as is everything past maxDeniedPaths. "/" is never returned:
// hiding it would leave the command nothing to run.
//
// The gate is the policy; these lists are a second layer that holds where
// the gate's reading of a command was wrong, so they are computed when a
// command runs (the files may have changed since p was built).
func (p *Policy) DeniedPaths() (read, edit []string) {
	ws := p.Workspace
	var seen map[string]bool
	add := func(list *[]string, path string) {
		if len(*list) >= maxDeniedPaths {
			return
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil || real == "/" || !filepath.IsAbs(real) {
			return
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() && !fi.Mode().IsRegular() {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		if !seen[real] {
			seen[real] = true
			*list = append(*list, real)
		}
	}
	for _, kind := range []struct {
		tools []string
		list  *[]string
	}{{[]string{"Read"}, &read}, {[]string{"Edit", "Write"}, &edit}} {
		for _, e := range p.Deny {
			r := e.Rule
			if !r.HasPattern || !slices.Contains(kind.tools, r.Tool) {
				continue
			}
			if dir, _ := anchorOf(&ws, r.Pattern); dir != nil && !filepath.IsAbs(*dir) {
				continue // the gate fails closed on such a policy
			}
			pp := compileAnchored(ws, r.Pattern)
			for _, path := range pp.named() {
				add(kind.list, path)
			}
		}
	}
	return read, edit
}

// named returns the paths pp names without searching (DeniedPaths): its
// literal path, the directory of a DIR/** pattern, or the matches of a
// pattern with wildcards in its last element only; nil for a basename
// pattern or one with wildcards higher up.
func (pp pathPattern) named() []string {
	switch {
	case pp.base:
		return nil
	case pp.literal:
		return []string{pp.abs}
	case pp.globstar && !strings.ContainsAny(pp.starAbs, `*?[{\`):
		return []string{pp.starAbs}
	case strings.ContainsAny(filepath.Dir(pp.abs), `*?[{\`) || strings.Contains(pp.abs, "**"):
		return nil
	}
	matches, _ := filepath.Glob(pp.abs)
	return matches
}
