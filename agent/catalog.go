package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/workspace"
)

// Catalog holds the agent types of a session by name. It is not modified
// after Load returns, so it is safe for concurrent use; the definitions it
// returns must not be modified either.
type Catalog struct {
	byName map[string]*Definition
	sorted []*Definition
}

// Get returns the definition named name. Names are case-sensitive.
func (c *Catalog) Get(name string) (*Definition, bool) {
	d, ok := c.byName[name]
	return d, ok
}

// All returns every definition, sorted by name.
func (c *Catalog) All() []*Definition { return slices.Clone(c.sorted) }

// Warnings returns the warnings of every definition, sorted by name.
func (c *Catalog) Warnings() []string {
	var w []string
	for _, d := range c.sorted {
		w = append(w, d.Warnings...)
	}
	return w
}

// Builtins returns fresh copies of the agent types that exist without files:
// Explore, a read-only investigator, and general-purpose.
func Builtins() []*Definition {
	return []*Definition{
		{
			Name:        "Explore",
			Description: "Read-only agent for investigating a codebase: finding files, reading code and answering questions about how it works.",
			Mode:        perm.ModeExplore,
			AllowTools:  []perm.Rule{{Tool: "Read"}, {Tool: "Glob"}, {Tool: "Grep"}},
			Prompt: withExploreNotice("You are a read-only codebase investigator. Answer the question you were " +
				"given by searching and reading the code: find the relevant files, follow how they " +
				"connect, and report concrete findings with file paths and line numbers. Be thorough " +
				"in what you look at and brief in what you report."),
			Source: SourceBuiltin,
		},
		{
			Name:        "general-purpose",
			Description: "General agent for multi-step tasks: researching, editing files and running commands.",
			Mode:        perm.ModeAcceptEdits,
			Prompt: "You are a general-purpose assistant working on a multi-step task. Work out the " +
				"steps, carry each one out with the tools you have, check the result, and finish with " +
				"a short summary of what you did and anything left undone.",
			Source: SourceBuiltin,
		},
	}
}

// scope is one directory of agent files.
type scope struct {
	fsys   fs.FS
	source string
	// name turns an FS path into the path errors show.
	name func(string) string
}

// Load reads the agent files (**/*.md) of the project and user scopes; each
// FS is rooted at an agents directory and may be nil. A file replaces the
// built-in of the same name, and a project file replaces the user file of
// the same name. Errors name files as .gen/agents/... and ~/.gen/agents/...
func Load(project, user fs.FS) (*Catalog, error) {
	return load(
		scope{project, SourceProject, func(p string) string { return path.Join(".gen/agents", p) }},
		scope{user, SourceUser, func(p string) string { return path.Join("~/.gen/agents", p) }},
	)
}

// Discover loads the agents of <project root>/.gen/agents and
// <home>/.gen/agents, where the project root is workspace.ProjectRoot(cwd)
// and home "" means os.UserHomeDir. Errors name the real file paths.
func Discover(cwd, home string) (*Catalog, error) {
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("agent: cannot find the user agents: %w", err)
		}
		home = h
	}
	projectDir := filepath.Join(workspace.ProjectRoot(cwd), ".gen", "agents")
	userDir := filepath.Join(home, ".gen", "agents")
	project, err := dirFS(projectDir)
	if err != nil {
		return nil, err
	}
	if projectDir == userDir {
		// The project root is the home directory: its agents are the
		// user's, and reading them twice would make every name a clash.
		project = nil
	}
	user, err := dirFS(userDir)
	if err != nil {
		return nil, err
	}
	real := func(dir string) func(string) string {
		return func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	}
	return load(scope{project, SourceProject, real(projectDir)}, scope{user, SourceUser, real(userDir)})
}

// dirFS returns an FS for dir, nil if dir does not exist.
func dirFS(dir string) (fs.FS, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("agent: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("agent: %s is not a directory", dir)
	}
	return os.DirFS(dir), nil
}

// load builds a catalog from the built-ins and the scopes, given highest
// precedence first.
func load(scopes ...scope) (*Catalog, error) {
	c := &Catalog{byName: make(map[string]*Definition)}
	for _, d := range Builtins() {
		c.byName[d.Name] = d
	}
	for _, sc := range slices.Backward(scopes) {
		defs, err := loadScope(sc)
		if err != nil {
			return nil, err
		}
		for _, d := range defs {
			c.byName[d.Name] = d
		}
	}
	for _, d := range c.byName {
		c.sorted = append(c.sorted, d)
	}
	slices.SortFunc(c.sorted, func(a, b *Definition) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

// loadScope parses every agent file of one scope. Two files with the same
// name in one scope are an error: neither can be said to win.
func loadScope(sc scope) ([]*Definition, error) {
	if sc.fsys == nil {
		return nil, nil
	}
	var defs []*Definition
	byName := make(map[string]*Definition)
	err := fs.WalkDir(sc.fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("agent: reading %s: %w", sc.name(p), err)
		}
		if e.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		data, err := textfile.ReadFS(sc.fsys, p, textfile.Max)
		if err != nil {
			return fmt.Errorf("agent: reading %s: %w", sc.name(p), err)
		}
		d, err := Parse(sc.name(p), data)
		if err != nil {
			return err
		}
		if prev, dup := byName[d.Name]; dup {
			return fmt.Errorf("agent: %s and %s both define the agent %q", prev.Path, d.Path, d.Name)
		}
		d.Source = sc.source
		byName[d.Name] = d
		defs = append(defs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return defs, nil
}
