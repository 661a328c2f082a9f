package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/workspace"

	"github.com/gen-run/gen/internal/textfile"
)

// Scope is where a skill was found.
type Scope string

// The scopes, highest precedence first.
const (
	ScopeProject    Scope = "project"
	ScopeAdditional Scope = "additional"
	ScopeUser       Scope = "user"
)

// Location is one directory of skills: each subdirectory holding a
// SKILL.md is a skill.
type Location struct {
	Dir   string
	Scope Scope
	// Root, when set, is the tree the location belongs to (the project
	// root, an additional directory): a file found there must lie in it,
	// links resolved (Confined). The user's own locations have none.
	Root string
	// Readable, when set, must accept a file found there before it is
	// read: the Read rules that keep a file from the model keep it from
	// a skill's or a command's text too (memory.Readable).
	Readable func(path string) error
}

// Confined checks that path, a file found in loc, is one loc.Readable
// accepts and lies inside loc.Root with every symbolic link resolved. A project's skill or command is
// text the model is given: one that is a link to ~/.ssh/id_rsa would
// hand the key over the moment it is used, as a memory file would.
func (loc Location) Confined(path string) error {
	if loc.Readable != nil {
		if err := loc.Readable(path); err != nil {
			return fmt.Errorf("skill: %w", err)
		}
	}
	if loc.Root == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("skill: %w", err)
	}
	root, err := filepath.EvalSymlinks(loc.Root)
	if err != nil {
		return fmt.Errorf("skill: %w", err)
	}
	if !workspace.Within(real, root) {
		return fmt.Errorf("skill: %s is a link to %s, outside %s: a %s skill or command must live in its tree", path, real, loc.Root, loc.Scope)
	}
	return nil
}

// Locations returns where the skills of a session are, highest precedence
// first:
//
//  1. <project root>/.gen/skills, then <project root>/.claude/skills
//  2. <dir>/.gen/skills of each additional directory, in order — only
//     skills: no other configuration of an additional directory is read
//  3. ~/.gen/skills, then ~/.claude/skills
//
// The project root is workspace.ProjectRoot(cwd, home); home "" means
// os.UserHomeDir. When the project root is the home directory its skills
// are the user's, listed once.
func Locations(cwd, home string, additional []string) ([]Location, error) {
	return locations(cwd, home, additional, "skills")
}

// CommandLocations returns where the slash commands of a session are,
// highest precedence first: <project root>/.gen/commands, then
// <project root>/.claude/commands, then ~/.gen/commands and
// ~/.claude/commands, as for Locations. Additional directories have none.
func CommandLocations(cwd, home string) ([]Location, error) {
	return locations(cwd, home, nil, "commands")
}

// locations returns the directories named kind of the project, the
// additional directories (only .gen) and the user.
func locations(cwd, home string, additional []string, kind string) ([]Location, error) {
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("skill: cannot find the user %s: %w", kind, err)
		}
		home = h
	}
	root := workspace.ProjectRoot(filepath.Clean(cwd), home)
	var locs []Location
	add := func(dir string, sc Scope, tree string) {
		if !slices.ContainsFunc(locs, func(l Location) bool { return l.Dir == dir }) {
			locs = append(locs, Location{Dir: dir, Scope: sc, Root: tree})
		}
	}
	both := func(base string, sc Scope, tree string) {
		for _, d := range []string{".gen", ".claude"} {
			add(filepath.Join(base, d, kind), sc, tree)
		}
	}
	if root != home {
		both(root, ScopeProject, root)
	}
	for _, a := range additional {
		add(filepath.Join(a, ".gen", kind), ScopeAdditional, a)
	}
	both(home, ScopeUser, "")
	return locs, nil
}

// Set is the skills of a session by name. It is not modified after Load
// returns, so it is safe for concurrent use; its skills must not be
// modified either.
type Set struct {
	byName map[string]*Skill
	sorted []*Skill
	// Warnings are problems that hid nothing: a skill shadowed by one of
	// the same name with higher precedence, unknown keys.
	Warnings []string
}

// Get returns the skill named name. Names are compared exactly.
func (s *Set) Get(name string) (*Skill, bool) {
	k, ok := s.byName[name]
	return k, ok
}

// All returns every skill, sorted by name.
func (s *Set) All() []*Skill { return slices.Clone(s.sorted) }

// Discover loads the skills of Locations(cwd, home, additional), each
// file checked with readable (Location.Readable; nil checks none).
func Discover(cwd, home string, additional []string, readable func(path string) error) (*Set, error) {
	locs, err := Locations(cwd, home, additional)
	if err != nil {
		return &Set{byName: map[string]*Skill{}}, err
	}
	for i := range locs {
		locs[i].Readable = readable
	}
	return Load(locs...)
}

// Load reads the skills of locs, given highest precedence first; missing
// directories are skipped. A skill whose name is already taken by an
// earlier location is dropped with a warning. A broken skill does not hide
// the others: Load returns every skill it could read, and an error joining
// one error per broken file, each naming file:line. The Set is never nil.
func Load(locs ...Location) (*Set, error) {
	s := &Set{byName: map[string]*Skill{}}
	var errs []error
	for _, loc := range locs {
		skills, lerrs := loadDir(loc)
		errs = append(errs, lerrs...)
		for _, k := range skills {
			s.Warnings = append(s.Warnings, k.Warnings...)
			if prev, dup := s.byName[k.Name]; dup {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: skill %q is shadowed by %s (%s skills take precedence)", k.Path, k.Name, prev.Path, prev.Scope))
				continue
			}
			s.byName[k.Name] = k
			s.sorted = append(s.sorted, k)
		}
	}
	slices.SortFunc(s.sorted, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	return s, errors.Join(errs...)
}

// loadDir reads the skills of one location, in directory order.
func loadDir(loc Location) ([]*Skill, []error) {
	dir, entries, err := readDir(loc.Dir)
	if err != nil || dir == "" {
		return nil, nilOr(err)
	}
	var out []*Skill
	var errs []error
	for _, e := range entries {
		base := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			if err := danglingEntry(base, e, err); err != nil {
				errs = append(errs, err)
			}
			continue // a file beside the skills
		}
		path := filepath.Join(base, "SKILL.md")
		data, err := textfile.Read(path, textfile.Max)
		if errors.Is(err, fs.ErrNotExist) {
			if link := workspace.DanglingLink(path); link != "" {
				errs = append(errs, fmt.Errorf("skill: %s is a symbolic link to a file that does not exist", link))
			}
			continue // a directory that is not a skill
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("skill: reading %s: %w", path, err))
			continue
		}
		if err := loc.Confined(path); err != nil {
			errs = append(errs, err)
			continue
		}
		k, err := Parse(path, e.Name(), data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		k.Dir, k.Scope = base, loc.Scope
		out = append(out, k)
	}
	return out, errs
}

// readDir lists the directory of a location and returns its absolute path.
// A directory that is not there has no entries and path "", unless it is
// a symbolic link to nothing: that is an error, not "none here", since
// the user's files of the same names would stand in for the project's.
func readDir(dir string) (abs string, entries []os.DirEntry, err error) {
	entries, err = os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if link := workspace.DanglingLink(dir); link != "" {
			if link != dir {
				return "", nil, fmt.Errorf("skill: %s: %s is a symbolic link to a directory that does not exist", dir, link)
			}
			return "", nil, fmt.Errorf("skill: %s is a symbolic link to a directory that does not exist", link)
		}
		return "", nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("skill: %w", err)
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return "", nil, fmt.Errorf("skill: %w", err)
	}
	return abs, entries, nil
}

// danglingEntry returns the error for entry e at path, which os.Stat
// failed on with err, when it is a symbolic link to nothing; else nil.
func danglingEntry(path string, e os.DirEntry, err error) error {
	if errors.Is(err, fs.ErrNotExist) && e.Type()&fs.ModeSymlink != 0 {
		return fmt.Errorf("skill: %s is a symbolic link to a file or directory that does not exist", path)
	}
	return nil
}

// nilOr returns err as a list: none for nil.
func nilOr(err error) []error {
	if err == nil {
		return nil
	}
	return []error{err}
}
