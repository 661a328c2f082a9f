package perm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm/bash"
)

// maxDeniedPaths bounds each list DeniedPaths returns: the sandbox makes
// one mount per path.
const maxDeniedPaths = 256

// DeniedPaths returns the existing files and directories that p's deny
// rules name, symlinks resolved, for the kernel sandbox to enforce behind
// the gate: read are those of Read deny rules (the sandbox hides them:
// a sandboxed command finds an empty directory or an empty file there),
// edit those of Edit and Write deny rules and p's Code files (the
// sandbox keeps them read-only). A Read deny also denies writes, so read
// paths are not repeated in edit.
//
// A pattern's paths are found without searching where it names them: a
// literal path (./.env, ~/.ssh/id_ed25519, /etc/secrets/), the directory
// of a DIR/** pattern, and the matches of a pattern whose only wildcards
// are in its last element (./*.pem: one directory read). The paths of a
// pattern that matches by name anywhere (*.pem, **/.env, secrets/**/k)
// are searched for in the workspace directories only, breadth first, up
// to maxWalkEntries entries: what lies deeper, or outside them, is left
// to the gate, as is everything past maxDeniedPaths. "/" is never
// returned: hiding it would leave the command nothing to run.
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
	for _, f := range p.Code {
		add(&edit, f) // what hooks run stays as the user made it
	}
	kinds := []struct {
		tools  []string
		list   *[]string
		search []searched // patterns whose paths walkWorkspace finds
	}{{tools: []string{"Read"}, list: &read}, {tools: []string{"Edit", "Write"}, list: &edit}}
	deny := p.rules().deny // the patterns compiled once, with the Policy
	for i := range kinds {
		kind := &kinds[i]
		for j := range deny.rules {
			r, pp := deny.rules[j].Rule, deny.rules[j].path
			if !r.HasPattern || !slices.Contains(kind.tools, r.Tool) {
				continue
			}
			if !pp.base && !filepath.IsAbs(pp.abs) {
				continue // relative to a directory the workspace does not give: the gate fails closed
			}
			if named, ok := pp.named(); ok {
				for _, path := range named {
					add(kind.list, path)
				}
			} else {
				kind.search = append(kind.search, searched{pp, filepath.Base(pp.abs)})
			}
		}
	}
	if len(kinds[0].search)+len(kinds[1].search) > 0 {
		walkWorkspace(ws, func(path string, dir bool) bool {
			name := filepath.Base(path)
			for _, kind := range kinds {
				for _, sp := range kind.search {
					if (!sp.dirOnly || dir) && sp.mayName(name) && sp.match(path, false) {
						add(kind.list, path)
						return false // hidden whole: nothing below it to find
					}
				}
			}
			return true
		})
	}
	return read, edit
}

// maxWalkEntries bounds the directory entries DeniedPaths reads looking
// for the paths of patterns that match by name anywhere.
const maxWalkEntries = 10000

// walkWorkspace visits the entries below the workspace root and the
// additional directories, breadth first, without following symbolic
// links, until it has seen maxWalkEntries; visit reports whether to
// descend into a directory.
func walkWorkspace(ws Workspace, visit func(path string, dir bool) bool) {
	queue := append([]string{ws.Root}, ws.Dirs...)
	seen := 0
	for len(queue) > 0 && seen < maxWalkEntries {
		dir := queue[0]
		queue = queue[1:]
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		entries, err := textfile.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if seen++; seen > maxWalkEntries {
				return
			}
			path := filepath.Join(dir, e.Name())
			if visit(path, e.IsDir()) && e.IsDir() {
				queue = append(queue, path)
			}
		}
	}
}

// named returns the paths pp names without searching (DeniedPaths): its
// literal path, the directory of a DIR/** pattern, or the matches of a
// pattern with wildcards in its last element only. ok is false for a
// basename pattern or one with wildcards higher up: those are searched.
func (pp pathPattern) named() (paths []string, ok bool) {
	switch {
	case pp.base:
		return nil, false
	case pp.literal:
		return []string{pp.abs}, true
	case pp.globstar && !strings.ContainsAny(pp.starAbs, `*?[{\`):
		return []string{pp.starAbs}, true
	case strings.ContainsAny(filepath.Dir(pp.abs), `*?[{\`) || strings.Contains(pp.abs, "**") || strings.Contains(pp.abs, "{"):
		return nil, false
	}
	matches, _ := filepath.Glob(pp.abs)
	return matches, true
}

// searched is a pattern whose paths walkWorkspace finds, with the last
// element of its path.
type searched struct {
	pathPattern
	last string
}

// mayName reports whether a path whose last element is name may match,
// by that element alone: a quick test before matching the whole path.
func (sp searched) mayName(name string) bool {
	last := sp.last
	switch {
	case last == "**" || strings.Contains(last, "{"):
		return true
	case !strings.ContainsAny(last, `*?[\`):
		return name == last
	case last[0] == '*' && !strings.ContainsAny(last[1:], `*?[\`):
		return strings.HasSuffix(name, last[1:]) // *.pem
	}
	ok, err := filepath.Match(last, name)
	return ok || err != nil
}

// DeniedPrograms returns the executable files of the programs p's Bash
// deny rules deny whatever their arguments (Bash(curl:*), Bash(curl *)),
// symlinks resolved, for the kernel sandbox to hide behind the gate: code
// the gate cannot read (python3 -c, a script, a Makefile) cannot run them
// either. A rule's program is looked for in the absolute directories of
// path (a PATH value) and the system's program directories, or is the
// path the rule names. A file is one of the program's only if its real
// name is the program's, or a versioned one (python3 -> python3.11): a
// multi-call binary (busybox, a single coreutils) behind a link is left
// to the gate, as hiding it would hide every program it is. Like
// DeniedPaths, it is computed when a command runs, and bounded.
func (p *Policy) DeniedPrograms(path string) []string {
	var names []string
	deny := p.rules().deny
	for i := range deny.rules {
		r, prog := deny.rules[i].Rule, deny.rules[i].prog
		if r.Tool != "Bash" || prog == "" || r.Pattern != prog+":*" && r.Pattern != prog+" *" {
			continue // it denies some of the program's commands, or none by name
		}
		if !slices.Contains(names, prog) {
			names = append(names, prog)
		}
	}
	if len(names) == 0 {
		return nil
	}
	var dirs []string
	// Besides PATH's directories, the system's (bash.SystemDirs): where a
	// command may find a program by an absolute path it writes out
	// (/usr/bin/curl) or through a PATH it sets itself.
	for _, d := range append(filepath.SplitList(path), bash.SystemDirs()...) {
		if filepath.IsAbs(d) && !slices.Contains(dirs, filepath.Clean(d)) {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	var out []string
	for _, prog := range names {
		files := []string{prog}
		if !filepath.IsAbs(prog) {
			files = files[:0]
			for _, d := range dirs {
				files = append(files, filepath.Join(d, prog))
			}
		}
		for _, f := range files {
			real, err := filepath.EvalSymlinks(f)
			if err != nil || !namesProgram(real, filepath.Base(prog)) || slices.Contains(out, real) {
				continue
			}
			if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && len(out) < maxDeniedPaths {
				out = append(out, real)
			}
		}
	}
	return out
}
