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
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("skill: cannot find the user skills: %w", err)
		}
		home = h
	}
	root := workspace.ProjectRoot(filepath.Clean(cwd), home)
	var locs []Location
	add := func(base string, sc Scope) {
		for _, d := range []string{".gen", ".claude"} {
			dir := filepath.Join(base, d, "skills")
			if !slices.ContainsFunc(locs, func(l Location) bool { return l.Dir == dir }) {
				locs = append(locs, Location{dir, sc})
			}
		}
	}
	if root != home {
		add(root, ScopeProject)
	}
	for _, a := range additional {
		dir := filepath.Join(a, ".gen", "skills")
		if !slices.ContainsFunc(locs, func(l Location) bool { return l.Dir == dir }) {
			locs = append(locs, Location{dir, ScopeAdditional})
		}
	}
	add(home, ScopeUser)
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

// Discover loads the skills of Locations(cwd, home, additional).
func Discover(cwd, home string, additional []string) (*Set, error) {
	locs, err := Locations(cwd, home, additional)
	if err != nil {
		return &Set{byName: map[string]*Skill{}}, err
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
	entries, err := os.ReadDir(loc.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if link := workspace.DanglingLink(loc.Dir); link != "" {
			// Not "no skills": a user skill would stand in for the
			// project's.
			if link != loc.Dir {
				return nil, []error{fmt.Errorf("skill: %s: %s is a symbolic link to a directory that does not exist", loc.Dir, link)}
			}
			return nil, []error{fmt.Errorf("skill: %s is a symbolic link to a directory that does not exist", link)}
		}
		return nil, nil
	case err != nil:
		return nil, []error{fmt.Errorf("skill: %w", err)}
	}
	dir, err := filepath.Abs(loc.Dir)
	if err != nil {
		return nil, []error{fmt.Errorf("skill: %w", err)}
	}
	var out []*Skill
	var errs []error
	for _, e := range entries {
		base := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			if errors.Is(err, fs.ErrNotExist) && e.Type()&fs.ModeSymlink != 0 {
				errs = append(errs, fmt.Errorf("skill: %s is a symbolic link to a directory that does not exist", base))
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
