package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/workspace"
)

// Catalog holds the agent types of a session by name. It is not modified
// after Load returns, so it is safe for concurrent use; the definitions it
// returns must not be modified either.
//
// A file that fails to load does not hide the others: it is kept as a
// FileError, and the name it appears to define resolves to that error
// (Lookup), so a broken project file never lets a user file or a built-in
// of the same name stand in for it.
type Catalog struct {
	byName map[string]*Definition
	sorted []*Definition
	// broken maps a name to the error of the highest-precedence file that
	// appears to define it, when that file failed.
	broken map[string]*FileError
	errs   []*FileError
	// clashes are warnings about names defined in both .gen and .claude.
	clashes []string
}

// FileError is an agent file that could not be loaded.
type FileError struct {
	Path string
	// Name is the agent the file appears to define: the value of its name
	// line, else the file name without ".md".
	Name string
	// Err names the file, and the line where one is known.
	Err error
}

func (e *FileError) Error() string { return e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// Get returns the definition named name. Names are case-sensitive.
func (c *Catalog) Get(name string) (*Definition, bool) {
	d, ok := c.byName[name]
	return d, ok
}

// Lookup returns the definition named name, or an error: the file's own
// error (with file and line) when the file that would define name is
// broken, else one listing the agents that exist.
func (c *Catalog) Lookup(name string) (*Definition, error) {
	if d, ok := c.byName[name]; ok {
		return d, nil
	}
	if fe, ok := c.broken[name]; ok {
		return nil, fmt.Errorf("agent type %q cannot be used: %w", name, fe)
	}
	names := make([]string, len(c.sorted))
	for i, d := range c.sorted {
		names[i] = d.Name
	}
	return nil, fmt.Errorf("unknown agent type %q (available: %s)", name, strings.Join(names, ", "))
}

// All returns every definition that loaded, sorted by name.
func (c *Catalog) All() []*Definition { return slices.Clone(c.sorted) }

// Errors returns one error per agent file that failed to load, in the
// order the files were read; nil when every file loaded.
func (c *Catalog) Errors() []error {
	var out []error
	for _, e := range c.errs {
		out = append(out, e)
	}
	return out
}

// Warnings returns the name clashes between .gen and .claude, then the
// warnings of every definition, sorted by name.
func (c *Catalog) Warnings() []string {
	w := slices.Clone(c.clashes)
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

// scope is one directory of agent files, or the agents given on the
// command line (defs).
type scope struct {
	fsys   fs.FS
	source string
	// name turns an FS path into the path errors show.
	name func(string) string
	// defs, if set, are the scope's agents, parsed already (ParseJSON);
	// fsys is then nil.
	defs []*Definition
}

// Load reads the agent files (**/*.md) of the project and user scopes; each
// FS is rooted at an agents directory and may be nil. A file replaces the
// built-in of the same name, and a project file replaces the user file of
// the same name. Errors name files as .gen/agents/... and ~/.gen/agents/...
func Load(project, user fs.FS) (*Catalog, error) {
	return load(
		scope{fsys: project, source: SourceProject, name: func(p string) string { return path.Join(".gen/agents", p) }},
		scope{fsys: user, source: SourceUser, name: func(p string) string { return path.Join("~/.gen/agents", p) }},
	), nil
}

// Discover loads the agents of the project root (workspace.ProjectRoot(cwd))
// and of home ("" means os.UserHomeDir), each from .gen/agents and, for
// Claude Code's files, .claude/agents. Precedence, highest first: project
// .gen, project .claude, user .gen, user .claude, built-ins; a name defined
// in both .gen and .claude of one level is taken from .gen with a warning.
// Errors name the real file paths; the error returned is only for a
// directory that cannot be read at all, while broken files are reported by
// Catalog.Errors.
//
// flag are the agents given on the command line for this run
// (--agents, ParseJSON): they take precedence over every file, and a
// file of the same name, loaded or broken, is not used.
func Discover(cwd, home string, flag ...*Definition) (*Catalog, error) {
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("agent: cannot find the user agents: %w", err)
		}
		home = h
	}
	root := workspace.ProjectRoot(cwd)
	scopes := []scope{{source: SourceCLI, defs: flag}}
	var tree *os.Root // the project, which its agents' files must lie in
	defer func() {
		if tree != nil {
			tree.Close()
		}
	}()
	for _, lvl := range []struct{ base, source string }{{root, SourceProject}, {home, SourceUser}} {
		if lvl.source == SourceProject && root == home {
			// The project root is the home directory: its agents are the
			// user's, and reading them twice would make every name a clash.
			continue
		}
		for _, dir := range []string{".gen", ".claude"} {
			abs := filepath.Join(lvl.base, dir, "agents")
			fsys, err := dirFS(abs)
			if err != nil {
				return nil, err
			}
			if fsys != nil && lvl.source == SourceProject {
				if tree == nil {
					if tree, err = openTree(root); err != nil {
						return nil, err
					}
				}
				if fsys, err = inTree(tree, abs); err != nil {
					return nil, err
				}
			}
			scopes = append(scopes, scope{fsys: fsys, source: lvl.source, name: func(p string) string { return filepath.Join(abs, filepath.FromSlash(p)) }})
		}
	}
	return load(scopes...), nil
}

// DiscoverLocked is Discover for a run whose managed settings lock the
// agents surface (Claude Code's strictPluginOnlyCustomization): no agent
// file of the project or the user is read, only the built-ins and flag's.
// Each agents directory that is there is named in a warning saying why
// (locked) its agents are not loaded.
func DiscoverLocked(cwd, home, locked string, flag ...*Definition) *Catalog {
	c := load(scope{source: SourceCLI, defs: flag})
	root := workspace.ProjectRoot(cwd)
	for _, base := range []string{root, home} {
		for _, dir := range []string{".gen", ".claude"} {
			abs := filepath.Join(base, dir, "agents")
			if _, err := os.Lstat(abs); err == nil && !slices.Contains(c.clashes, abs+": agents not loaded: "+locked) {
				c.clashes = append(c.clashes, abs+": agents not loaded: "+locked)
			}
		}
	}
	return c
}

// openTree opens the project root, links resolved, to read the
// project's agents through (inTree).
func openTree(root string) (*os.Root, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	tree, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return tree, nil
}

// inTree returns the project's agents directory dir as an FS read through
// tree, the project: a project's agent is text the model is given (its
// prompt, its description), as a skill or a memory file is, and a file or
// a directory there that is a link out of the project (to a file of
// another repository, of the home directory) is an error naming it, not
// an agent; through the tree, a link swapped in later cannot lead out
// either.
func inTree(tree *os.Root, dir string) (fs.FS, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if !workspace.Within(real, tree.Name()) {
		return nil, fmt.Errorf("agent: %s is a link to %s, outside the project %s: a project's agents must live in its tree", dir, real, tree.Name())
	}
	rel, err := filepath.Rel(tree.Name(), real)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return textfile.RootFS{R: tree, Dir: filepath.ToSlash(rel)}, nil
}

// dirFS returns an FS for dir, nil if dir does not exist. A dir that a
// dangling symbolic link makes name nothing is an error: read as "no
// agents", a user agent of a project agent's name would run instead.
func dirFS(dir string) (fs.FS, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if link := workspace.DanglingLink(dir); link != "" {
			if link != dir {
				return nil, fmt.Errorf("agent: %s: %s is a symbolic link to a directory that does not exist", dir, link)
			}
			return nil, fmt.Errorf("agent: %s is a symbolic link to a directory that does not exist", link)
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("agent: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("agent: %s is not a directory", dir)
	}
	return textfile.DirFS(dir), nil
}

// load builds a catalog from the scopes, given highest precedence first,
// and the built-ins. A name belongs to the first scope that has a file
// for it, whether that file loaded or not.
func load(scopes ...scope) *Catalog {
	c := &Catalog{byName: make(map[string]*Definition), broken: make(map[string]*FileError)}
	claimed := make(map[string]string) // name -> path of the file that won it
	for _, sc := range scopes {
		defs, errs := loadScope(sc)
		c.errs = append(c.errs, errs...)
		for _, fe := range errs {
			if _, taken := claimed[fe.Name]; !taken {
				claimed[fe.Name] = fe.Path
				c.broken[fe.Name] = fe
			}
		}
		for _, d := range defs {
			if by, taken := claimed[d.Name]; taken {
				prev, ok := c.byName[d.Name]
				if ok && prev.Source == SourceProject && d.Source == SourceUser {
					// A cloned repository's file replaces the user's own
					// definition (its deny_tools and mode): say so where
					// the agent is used.
					prev.Warnings = append(prev.Warnings, fmt.Sprintf("%s: the project's agent %q replaces yours in %s", prev.Path, d.Name, d.Path))
				}
				if ok && prev.Source == d.Source {
					c.clashes = append(c.clashes, fmt.Sprintf("%s and %s both define the agent %q; using %s", prev.Path, d.Path, d.Name, prev.Path))
				} else if fe, ok := c.broken[d.Name]; ok && fe.Path == by {
					c.clashes = append(c.clashes, fmt.Sprintf("%s is not used: %s, which also defines the agent %q, failed to load", d.Path, by, d.Name))
				}
				continue
			}
			claimed[d.Name] = d.Path
			c.byName[d.Name] = d
		}
	}
	for _, d := range Builtins() {
		if _, taken := claimed[d.Name]; !taken {
			c.byName[d.Name] = d
		}
	}
	for _, d := range c.byName {
		c.sorted = append(c.sorted, d)
	}
	slices.SortFunc(c.sorted, func(a, b *Definition) int { return strings.Compare(a.Name, b.Name) })
	return c
}

// nameLine finds the name a file that does not parse appears to define.
var nameLine = lazyre.MustCompile(`(?m)^name:[ \t]*["']?([A-Za-z0-9][A-Za-z0-9_.-]*)["']?[ \t]*\r?$`)

func guessName(p string, data []byte) string {
	if m := nameLine.Get().FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return strings.TrimSuffix(path.Base(p), ".md")
}

// loadScope parses every agent file of one scope. Two files with the same
// name in one scope are both errors: neither can be said to win. The files
// are read and parsed in parallel (sc.fsys must be safe for concurrent
// use, as textfile.DirFS and fstest.MapFS are); the results are taken in walk
// order, so the outcome is the same as reading them one by one.
func loadScope(sc scope) ([]*Definition, []*FileError) {
	if sc.fsys == nil {
		// ParseJSON has checked them: one name each, Source set.
		return sc.defs, nil
	}
	// files holds one slot per file, in walk order; a walk error is a
	// slot that is already done.
	var files []*file
	_ = fs.WalkDir(sc.fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			files = append(files, &file{err: &FileError{Path: sc.name(p), Name: guessName(p, nil), Err: fmt.Errorf("agent: reading %s: %w", sc.name(p), err)}})
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		files = append(files, &file{path: p})
		return nil
	})
	parseAll(sc, files)
	var defs []*Definition
	var errs []*FileError
	byName := make(map[string]*Definition)
	for _, f := range files {
		if f.err != nil {
			errs = append(errs, f.err)
			continue
		}
		d := f.def
		if prev, dup := byName[d.Name]; dup {
			errs = append(errs, &FileError{Path: d.Path, Name: d.Name, Err: fmt.Errorf("agent: %s and %s both define the agent %q", prev.Path, d.Path, d.Name)})
			continue
		}
		d.Source = sc.source
		byName[d.Name] = d
		defs = append(defs, d)
	}
	// A name two files define is broken, not the first file's.
	dup := make(map[string]bool)
	for _, fe := range errs {
		if _, ok := byName[fe.Name]; ok {
			dup[fe.Name] = true
		}
	}
	defs = slices.DeleteFunc(defs, func(d *Definition) bool { return dup[d.Name] })
	return defs, errs
}

// file is one agent file of a scope: its path, then what it parsed to
// (def or err).
type file struct {
	path string
	def  *Definition
	err  *FileError
}

// parseAll reads and parses the files that are not done, on up to
// GOMAXPROCS goroutines. Each file is parsed on its own (Parse shares no
// state), so the order they are parsed in cannot change a result.
func parseAll(sc scope, files []*file) {
	workers := min(runtime.GOMAXPROCS(0), len(files)/parallelMin)
	if workers < 2 {
		for _, f := range files {
			f.parse(sc)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				files[i].parse(sc)
			}
		})
	}
	wg.Wait()
}

// parallelMin is how many files each goroutine of parseAll must have to
// be worth starting.
const parallelMin = 16

// parse reads and parses f, unless it is done (a walk error).
func (f *file) parse(sc scope) {
	if f.err != nil {
		return
	}
	data, err := textfile.ReadFS(sc.fsys, f.path, textfile.Max)
	if err != nil {
		f.err = &FileError{Path: sc.name(f.path), Name: guessName(f.path, nil), Err: fmt.Errorf("agent: reading %s: %w", sc.name(f.path), err)}
		return
	}
	d, err := Parse(sc.name(f.path), data)
	if err != nil {
		f.err = &FileError{Path: sc.name(f.path), Name: guessName(f.path, data), Err: err}
		return
	}
	f.def = d
}
