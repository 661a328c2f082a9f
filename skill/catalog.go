package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/workspace"
)

// item is what a location holds: a *Skill or a *Command.
type item interface{ meta() *Meta }

func (m *Meta) meta() *Meta { return m }

// found is one entry of a location: the file of a name, parsed or broken,
// or an error that ties no file to a name (an unreadable directory), whose
// name is "".
type found[T item] struct {
	name, path string
	v          T // set when err is nil
	err        error
}

// kind names what a catalog holds, for its messages.
type kind struct {
	plural string                   // "skills"
	label  func(name string) string // `skill "pdf"`
}

// catalog is the skills or the commands of a session by name. It is not
// modified once load returns.
type catalog[T item] struct {
	kind   kind
	byName map[string]T
	// broken holds the names whose file of highest precedence is broken
	// or refused: they fail with its error rather than let a file of lower
	// precedence (the user's) stand in for the one the project meant.
	broken map[string]error
	sorted []T // by name
	errs   []error
	// Warnings are problems that hid nothing but what they name: a file
	// shadowed by one of the same name with higher precedence or by a
	// built-in command, unknown keys, frontmatter gen does not act on.
	Warnings []string
}

// load reads the entries of locs, given highest precedence first, with
// read, one location at a time. The first file to claim a name has it,
// even when it is broken or refused (then the name fails with its error);
// a later one is shadowed, with a warning, as is a file claiming one of
// reserved. Every broken file is an error, shadowed or not: a broken file
// does not hide the others.
func load[T item](k kind, reserved []string, locs []Location, read func(*reader, Location) []found[T]) *catalog[T] {
	c := &catalog[T]{kind: k, byName: map[string]T{}, broken: map[string]error{}}
	type owner struct {
		path  string
		scope Scope
	}
	taken := map[string]owner{}
	var names []string
	r := &reader{roots: map[string]*root{}}
	defer r.close()
	for _, loc := range locs {
		for _, f := range read(r, loc) {
			if f.err != nil {
				c.errs = append(c.errs, f.err)
			} else {
				c.Warnings = append(c.Warnings, f.v.meta().Warnings...)
			}
			if f.name == "" {
				continue
			}
			switch prev, dup := taken[f.name]; {
			case slices.Contains(reserved, f.name):
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s is not offered: /%s is built in", f.path, k.label(f.name), f.name))
			case dup:
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s is shadowed by %s (%s %s take precedence)", f.path, k.label(f.name), prev.path, prev.scope, k.plural))
			case f.err != nil:
				taken[f.name] = owner{f.path, loc.Scope}
				c.broken[f.name] = f.err
			default:
				taken[f.name] = owner{f.path, loc.Scope}
				f.v.meta().Scope = loc.Scope
				c.byName[f.name] = f.v
				names = append(names, f.name)
			}
		}
	}
	slices.Sort(names)
	for _, n := range names {
		c.sorted = append(c.sorted, c.byName[n])
	}
	return c
}

// get returns the item named name: the zero T and no error when there is
// none, and the error of its file when that is broken or refused.
func (c *catalog[T]) get(name string) (T, error) {
	if err := c.broken[name]; err != nil {
		var none T
		return none, fmt.Errorf("%s is not offered: %w", c.kind.label(name), err)
	}
	return c.byName[name], nil
}

// stat returns what entry e of a directory, at path, is, links followed.
// An entry that is gone since the directory was listed is nil and no
// error. A symbolic link to nothing, or one that cannot be followed (a
// loop), is an error naming it: the name is the project's, and a user's
// file of the same name must not stand in for it.
func stat(path string, e os.DirEntry) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		return fi, nil
	case errors.Is(err, fs.ErrNotExist) && e.Type()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("skill: %s is a symbolic link to a file or directory that does not exist", path)
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	}
	return nil, fmt.Errorf("skill: %w", err)
}

// reader reads the files of locations, each only once it is known that
// it may be read. It resolves each location's root once.
type reader struct {
	roots map[string]*root
}

// root is a location's tree, opened to read its files through.
type root struct {
	real string   // the tree, links resolved
	fsys *os.Root // the tree, opened; nil when err is set
	err  error
}

// read returns the content of path, a file found in loc, after checking
// that it may be given to the model: that it lies inside loc.Root with
// every symbolic link resolved, and that loc.Readable accepts it. A
// project's skill or command is text the model is given: one that is a
// link to ~/.ssh/id_rsa would hand the key over the moment it is used, as
// a memory file would. Nothing is read before both checks pass, and a
// file in a root is read through the root (os.Root), so that a link
// swapped in after the check cannot lead out of it either. A missing
// file's error satisfies errors.Is(err, fs.ErrNotExist).
func (r *reader) read(loc Location, path string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("skill: %w", err)
	}
	var rt *root
	if loc.Root != "" {
		if rt = r.root(loc.Root); rt.err != nil {
			return nil, rt.err
		}
		if !workspace.Within(real, rt.real) {
			return nil, fmt.Errorf("skill: %s is a link to %s, outside %s: a %s skill or command must live in its tree", path, real, loc.Root, loc.Scope)
		}
	}
	if loc.Readable != nil {
		if err := loc.Readable(path); err != nil {
			return nil, fmt.Errorf("skill: %w", err)
		}
	}
	var data []byte
	if rt == nil {
		data, err = textfile.Read(path, textfile.Max)
	} else {
		rel, _ := filepath.Rel(rt.real, real) // Within checked it
		data, err = textfile.ReadRoot(rt.fsys, rel, textfile.Max)
	}
	if err != nil {
		return nil, fmt.Errorf("skill: reading %s: %w", path, err)
	}
	return data, nil
}

// root returns the tree dir, resolved and opened on first use.
func (r *reader) root(dir string) *root {
	if rt, ok := r.roots[dir]; ok {
		return rt
	}
	rt := &root{}
	r.roots[dir] = rt
	if rt.real, rt.err = filepath.EvalSymlinks(dir); rt.err == nil {
		rt.fsys, rt.err = os.OpenRoot(rt.real)
	}
	if rt.err != nil {
		rt.err = fmt.Errorf("skill: %w", rt.err)
	}
	return rt
}

// close closes the trees r opened.
func (r *reader) close() {
	for _, rt := range r.roots {
		if rt.fsys != nil {
			rt.fsys.Close()
		}
	}
}

// missing reports whether err, from reader.read, says the file is not
// there; a symbolic link to nothing is no such case but an error naming
// the link, which it returns.
func missing(path string, err error) (bool, error) {
	if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if link := workspace.DanglingLink(path); link != "" {
		return false, fmt.Errorf("skill: %s is a symbolic link to a file that does not exist", link)
	}
	return true, nil
}
