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
	// links resolved, before it is read. The user's own locations have
	// none.
	Root string
	// Readable, when set, must accept a file found there before it is
	// read: the Read rules that keep a file from the model keep it from
	// a skill's or a command's text too (memory.Readable).
	Readable func(path string) error
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
	catalog[*Skill]
}

// Get returns the skill named name, compared exactly: nil and no error
// when there is none, and an error naming the file when the skill of
// highest precedence of that name is broken or refused.
func (s *Set) Get(name string) (*Skill, error) { return s.get(name) }

// All returns every skill, sorted by name.
func (s *Set) All() []*Skill { return slices.Clone(s.sorted) }

// Discover loads the skills of Locations(cwd, home, additional), each
// file checked with readable (Location.Readable; nil checks none).
func Discover(cwd, home string, additional []string, readable func(path string) error) (*Set, error) {
	locs, err := Locations(cwd, home, additional)
	if err != nil {
		return &Set{}, err
	}
	for i := range locs {
		locs[i].Readable = readable
	}
	return Load(locs...)
}

// DiscoverLocked is Discover for a run whose managed settings lock the
// skills surface (Claude Code's strictPluginOnlyCustomization): no skill
// is read, and each skills directory of Locations that is there is named
// in a warning saying why (locked).
func DiscoverLocked(cwd, home string, additional []string, locked string) *Set {
	s := &Set{}
	locs, err := Locations(cwd, home, additional)
	if err != nil {
		s.Warnings = append(s.Warnings, "skills not loaded: "+locked)
		return s
	}
	for _, l := range locs {
		if _, err := os.Lstat(l.Dir); err == nil {
			s.Warnings = append(s.Warnings, l.Dir+": skills not loaded: "+locked)
		}
	}
	return s
}

// skills are the messages' names for skills.
var skills = kind{plural: "skills", label: func(name string) string { return fmt.Sprintf("skill %q", name) }}

// Load reads the skills of locs, given highest precedence first; missing
// directories are skipped. A skill whose name is already taken by an
// earlier location is dropped with a warning; so is one whose name an
// earlier broken or refused skill took, which Get then reports (the
// user's skill does not stand in for the project's). A broken skill does
// not hide the others: Load returns every skill it could read, and an
// error joining one error per broken file, each naming file:line. The Set
// is never nil.
func Load(locs ...Location) (*Set, error) {
	s := &Set{*load(skills, nil, locs, loadDir)}
	return s, errors.Join(s.errs...)
}

// loadDir reads the skills of one location, in directory order: each
// subdirectory holding a SKILL.md claims its name.
func loadDir(r *reader, loc Location) []found[*Skill] {
	dir, entries, err := readDir(loc.Dir)
	if err != nil || dir == "" {
		return nilOr[*Skill](loc.Dir, err)
	}
	var out []found[*Skill]
	for _, e := range entries {
		base := filepath.Join(dir, e.Name())
		f := found[*Skill]{name: e.Name(), path: filepath.Join(base, "SKILL.md")}
		fi, err := stat(base, e)
		switch {
		case err != nil:
			f.err = err
		case fi == nil || !fi.IsDir():
			continue // a file beside the skills
		default:
			data, err := r.read(loc, f.path)
			if none, err := missing(f.path, err); none {
				continue // a directory that is not a skill
			} else if err != nil {
				f.err = err
			} else if f.v, f.err = Parse(f.path, e.Name(), data); f.err == nil {
				f.v.Dir = base
			}
		}
		out = append(out, f)
	}
	return out
}

// readDir lists the directory of a location and returns its absolute path.
// A directory that is not there has no entries and path "", unless it is
// a symbolic link to nothing: that is an error, not "none here", since
// the user's files of the same names would stand in for the project's.
func readDir(dir string) (abs string, entries []os.DirEntry, err error) {
	entries, err = textfile.ReadDir(dir)
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

// nilOr returns err, an error of the location dir that ties no file to
// a name, as the location's entries: none for nil.
func nilOr[T item](dir string, err error) []found[T] {
	if err == nil {
		return nil
	}
	return []found[T]{{path: dir, err: err}}
}
