// Package settings loads the permission settings that apply to a session.
// It only parses and merges files and flags; package policy turns the
// result into a perm.Policy. It sits on perm (rules, modes), workspace
// (roots, "~" expansion) and internal/textfile.
//
// Settings come from JSON files and the command line. From the highest
// precedence to the lowest:
//
//   - managed: /etc/gen/managed-settings.json and Claude Code's managed file
//     (ClaudeManagedPath), deployed by an administrator;
//   - local project: <root>/.gen/settings.local.json, then
//     <root>/.claude/settings.local.json, not committed;
//   - shared project: <root>/.gen/settings.json, then
//     <root>/.claude/settings.json, committed;
//   - user: <home>/.gen/settings.json, then <home>/.claude/settings.json;
//
// Claude Code's files are read like their .gen twins, at the same scope and
// by the same rules, with Claude Code's value forms ("disable" for
// disableBypassPermissionsMode and disableAutoMode, allowManagedHooksOnly and
// allowManagedPermissionRulesOnly at the top level). Where
// two files of one scope disagree on a single value, the .gen file wins.
//
// and the --permission-mode, --add-dir, --allowedTools and --disallowedTools
// flags. Rule lists concatenate across scopes; the single default mode comes
// from the highest scope that sets one, with the flag above all of them.
//
// Loading fails closed: a file that exists but cannot be read, is not valid
// JSON, has a value of the wrong type, names an unknown mode or holds a
// malformed rule is an error naming the file and line. It is never treated
// as if it were empty.
package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
	"github.com/gen-run/gen/workspace"
)

// DefaultManagedPath is where managed settings are read from unless
// Options.ManagedPath says otherwise. ClaudeManagedPath is read beside it.
const DefaultManagedPath = "/etc/gen/managed-settings.json"

// ClaudeManagedPath is Claude Code's managed settings file on this
// platform. Both it and DefaultManagedPath are managed scope: their rules
// concatenate, so a deny in either holds.
var ClaudeManagedPath = claudeManagedPath(runtime.GOOS)

func claudeManagedPath(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\ProgramData\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// Options are the inputs of Load that do not come from settings files.
type Options struct {
	// Cwd is the absolute working directory.
	Cwd string
	// Home is the absolute home directory; "" means os.UserHomeDir.
	Home string
	// ManagedPath is the managed settings file; "" means DefaultManagedPath
	// and ClaudeManagedPath.
	ManagedPath string
	// Mode is the --permission-mode flag; "" when it was not given.
	Mode string
	// AddDirs are the --add-dir flags, relative to Cwd unless absolute.
	AddDirs []string
	// Allowed and Disallowed are the --allowedTools and --disallowedTools
	// rules.
	Allowed, Disallowed []string
	// Trust is the --trust flag: trust the project for this run only,
	// without recording it.
	Trust bool
	// FlagSettings is the content of the --settings flag (a file's, read
	// once when the flag was read, or the JSON given inline), and
	// FlagSettingsPath its file, or "--settings" for inline JSON: a
	// settings scope of the command line, above local settings and below
	// managed ones. It is not followed: what the run was started with is
	// what it keeps, whoever writes the file later.
	FlagSettings     []byte
	FlagSettingsPath string
	// Tools is the --tools flag, when LimitTools: the built-in tools the
	// run has, "default" for all, none when it is empty ("" entries
	// count for nothing).
	Tools      []string
	LimitTools bool
	// Sources is the --setting-sources flag, when LimitSources: the
	// scopes among user, project and local whose settings load in full
	// (ParseSources). The others still load what they forbid
	// (File.restrictions); managed settings and --settings always load.
	Sources      []perm.Source
	LimitSources bool
}

// The scopes --setting-sources chooses among, as Claude Code names them.
var selectable = []perm.Source{perm.SourceUser, perm.SourceProject, perm.SourceLocal}

// ParseSources parses the --setting-sources values: names of user,
// project and local, comma- or space-separated. None at all is allowed:
// only managed settings and --settings then load in full.
func ParseSources(values []string) ([]perm.Source, error) {
	out := []perm.Source{}
	for _, v := range values {
		for _, name := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			src := perm.Source(name)
			if !slices.Contains(selectable, src) {
				return nil, fmt.Errorf("unknown settings source %q (want user, project or local)", name)
			}
			if !slices.Contains(out, src) {
				out = append(out, src)
			}
		}
	}
	return out, nil
}

// leftOut reports whether opts leaves the scope src out (Sources).
func (opts *Options) leftOut(src perm.Source) bool {
	return opts.LimitSources && slices.Contains(selectable, src) && !slices.Contains(opts.Sources, src)
}

// File is one settings file that exists, as parsed.
type File struct {
	Scope perm.Source
	Path  string

	Allow, Ask, Deny []perm.Entry
	// DefaultMode is "" when the file does not set permissions.defaultMode.
	DefaultMode perm.Mode
	// AdditionalDirectories are absolute and clean.
	AdditionalDirectories []string
	// DisableBypass and DisableAuto are disableBypassPermissionsMode and
	// disableAutoMode (inside permissions, or at the top level for
	// disableAutoMode), true or "disable".
	DisableBypass, DisableAuto bool
	// ManagedRulesOnly is allowManagedPermissionRulesOnly, at the top
	// level (Claude Code) or inside permissions (gen before it).
	ManagedRulesOnly bool
	// ManagedHooksOnly is the top-level allowManagedHooksOnly.
	ManagedHooksOnly bool
	// NoHooks is Claude Code's top-level disableAllHooks.
	NoHooks bool
	// ManagedMCPOnly is the top-level allowManagedMcpServersOnly.
	ManagedMCPOnly bool
	// MCPAllow and MCPDeny are the top-level allowedMcpServers and
	// deniedMcpServers; MCPAllow is nil when the file has none.
	MCPAllow, MCPDeny []MCPServerRule
	// MCPJSONOn and MCPJSONOff are the top-level enabledMcpjsonServers
	// (nil when the file has none) and disabledMcpjsonServers, and
	// MCPJSONAllOn enableAllProjectMcpServers: Claude Code's approvals of
	// the project's .mcp.json servers (MCPRules).
	MCPJSONOn, MCPJSONOff []MCPServerRule
	MCPJSONAllOn          bool
	// ModelAliases is the top-level modelAliases object: model names by
	// alias (sonnet, opus, haiku or any other), for agent definitions.
	ModelAliases map[string]string
	// Agent is the top-level agent key, Claude Code's: the agent the main
	// loop runs as; "" when the file has none.
	Agent string
	// TrustedProjects are the projects the file trusts (top-level
	// trustedProjects; user and managed scopes only), roots absolute and
	// clean.
	TrustedProjects []TrustedProject

	// API is the file's "api" object.
	API API

	// MCPServers is the whole file when it has a top-level "mcpServers"
	// object, nil otherwise: package mcp parses it (mcp.ParseSettings), so
	// its errors name this file and the server's line.
	MCPServers []byte

	// Sandbox is the file's "sandbox" object, allowWrite paths absolute.
	// Which scopes' values apply is package policy's (policy.Sandbox).
	Sandbox sandbox.Settings

	// Hooks are the file's "hooks", each tagged with Scope.
	Hooks hook.Config

	// mcpExclusive marks Claude Code's managed-mcp.json.
	mcpExclusive bool
	// NoSkillShell is Claude Code's top-level disableSkillShellExecution.
	NoSkillShell bool
	// Locked are the surfaces (Surfaces) managed settings'
	// strictPluginOnlyCustomization locks: their user and project
	// sources are not loaded (Settings.LockedBy).
	Locked []string

	modeLine  int // line of defaultMode, for warnings
	allowLine int // line of the first allow rule, for warnings
	agentLine int // line of agent, for warnings and errors
}

// Settings is the merged result of every scope.
type Settings struct {
	// Files are the settings files that exist, highest precedence first.
	Files []File
	// Mode is the effective default mode; never ModeExplore, and never
	// ModeBypass when DisableBypass is set.
	Mode perm.Mode
	// ModeSource is the scope Mode came from: SourceCLI for the flag,
	// SourceBuiltin when nobody set it.
	ModeSource perm.Source
	// Allow, Ask and Deny hold the rules of every file in precedence order,
	// then the flag rules. A rule is listed once per source.
	Allow, Ask, Deny []perm.Entry
	// Hidden are the built-in tools --tools leaves out: every agent's
	// calls of them are denied (perm.Policy.Hidden), and no agent sees
	// them.
	Hidden    []string
	Workspace perm.Workspace
	// DisableBypass is set when any scope sets disableBypassPermissionsMode.
	DisableBypass bool
	// DisableAuto is set when any scope sets disableAutoMode: auto mode is
	// then unavailable, like bypassPermissions under DisableBypass.
	DisableAuto bool
	// ManagedHooksOnly is set when managed settings set
	// allowManagedHooksOnly (elsewhere it is ignored with a warning), or
	// a file disableAllHooks (mergeHooks): only hooks from managed
	// settings may run, and under a managed disableAllHooks none.
	ManagedHooksOnly bool
	// UserGuards is set with ManagedHooksOnly when only the command line
	// set it (a --settings disableAllHooks): the user's PreToolUse and
	// PermissionRequest hooks, a user agent's included, still run as
	// guards (hook.Config.Guards).
	UserGuards bool
	// HooksOff says why only managed hooks run, for warnings; "" when
	// ManagedHooksOnly is not set.
	HooksOff string
	// ManagedMCPOnly is set when any scope sets allowManagedMcpServersOnly:
	// only MCP servers configured in managed settings may start.
	ManagedMCPOnly bool
	// MCPExclusive is Claude Code's managed-mcp.json where it exists: no
	// MCP server but its own may start.
	MCPExclusive string
	// NoSkillShell is the file that sets disableSkillShellExecution, in
	// any scope (it only narrows): no `!` command of a custom command
	// runs. "" when none does.
	NoSkillShell string
	// locked says, for each surface managed settings'
	// strictPluginOnlyCustomization locks, which file locks it.
	locked map[string]string
	// MCP are the merged allowedMcpServers and deniedMcpServers, and the
	// approvals of .mcp.json servers.
	MCP MCPRules
	// ModelAliases maps model aliases to model names, each alias from the
	// highest-precedence file that maps it (agent.Definition.ResolveModel).
	ModelAliases map[string]string
	// Agent is the agent the main loop runs as unless --agent names one
	// (Claude Code's agent key), from the highest-precedence file that
	// names one, and AgentAt that file and line; "" for none. A file of a
	// project that is not trusted may not choose it (a user's agent may
	// allow what the project's settings could not), and is ignored with a
	// warning.
	Agent, AgentAt string
	// ManagedRulesOnly is set when any scope sets
	// allowManagedPermissionRulesOnly; Allow then holds managed rules only.
	ManagedRulesOnly bool
	// Warnings are problems that did not stop loading, such as unknown keys.
	Warnings []string
	// Trusted reports that the project (Workspace.Root) may run code of
	// its own before any tool call is checked: its hooks, MCP servers and
	// sandbox opt-outs, and what widens the permissions. It is set by
	// Options.Trust, or when the user or managed settings list the root
	// (symlinks resolved) in trustedProjects with the digests of the
	// project's configuration files as they are now (ProjectFiles), or
	// when managed settings list the root as a plain path. Deny and ask
	// rules apply either way.
	Trusted bool
	// TrustChanged is set when the project is not trusted although the
	// user trusted it once: the files (relative to the root) that changed
	// since, or none when the trust was recorded without files (by an
	// older gen) or the files could not be read. Load warns; the
	// interactive first-use prompt asks again.
	TrustChanged []string
	// TrustStale reports that a trust entry for the project exists but
	// does not hold (see TrustChanged).
	TrustStale bool
	// trustPaths are the files a trust entry for the project was checked
	// against (ProjectFiles) and the directories whose files it covers,
	// absolute: Live follows them as it follows the settings files, so a
	// hook script changed while gen runs untrusts the project at once.
	trustPaths []string
	// config is what ConfigFiles returns, found when the files were
	// loaded.
	config []string

	// API is how to talk to the model server, each key from the
	// highest-precedence file that sets it.
	API API

	// Hooks are the hooks of every scope, highest precedence first (all
	// of them run; none overrides another). Under ManagedHooksOnly only
	// managed hooks are kept. Project and local hooks are here even when
	// the project is not trusted: trust.RunnableHooks drops them then.
	// Settings in additional directories are never read, so no hook
	// comes from one.
	Hooks hook.Config
}

// Load reads every settings scope for opts and merges them.
//
// Settings files inside additional directories are never loaded: adding a
// directory widens where tools may work, not whose rules apply.
func Load(opts Options) (*Settings, error) {
	loc, err := locate(opts)
	if err != nil {
		return nil, err
	}
	return loadAt(opts, loc)
}

// loadAt is Load with the settings files already located.
func loadAt(opts Options, loc location) (*Settings, error) {
	cwd, home, root, scopes := loc.cwd, loc.home, loc.root, loc.scopes
	s := &Settings{Workspace: perm.Workspace{Cwd: cwd, Root: root, Home: home}}
	var followed []string // the files of every scope Live follows
	for _, sc := range scopes {
		data, err := sc.data, error(nil)
		if data == nil {
			followed = append(followed, sc.path)
			data, err = textfile.Read(sc.path, textfile.Max)
		}
		if errors.Is(err, fs.ErrNotExist) {
			if link := workspace.DanglingLink(sc.path); link != "" {
				// A scope whose file is a broken link is not a scope
				// without rules: its deny rules would silently vanish.
				return nil, fmt.Errorf("%s settings %s: %s is a symbolic link to a file that does not exist", sc.source, sc.path, link)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s settings %s: %w", sc.source, sc.path, err)
		}
		var f *File
		var warns []string
		if sc.mcpOnly {
			f, err = parseManagedMCP(sc.path, data)
		} else {
			f, warns, err = parseFile(sc.source, sc.path, data, sc.base, home)
		}
		if err != nil {
			// A file left out is still parsed, and fails closed: its
			// deny rules apply.
			return nil, err
		}
		if opts.leftOut(sc.source) {
			*f = f.restrictions()
		}
		s.Files = append(s.Files, *f)
		s.Warnings = append(s.Warnings, warns...)
	}
	if err := s.merge(opts, cwd, home); err != nil {
		return nil, err
	}
	s.mergeAPI()
	var warn string
	s.config, warn = configFiles(followed, home, root)
	if warn != "" {
		s.Warnings = append(s.Warnings, warn)
	}
	return s, nil
}

// LockedBy says why the user's and the project's sources of surface
// ("skills", "agents", "hooks" or "mcp") are not loaded: managed settings'
// strictPluginOnlyCustomization locks it. "" when it is not locked.
func (s *Settings) LockedBy(surface string) string {
	if path, ok := s.locked[surface]; ok {
		return fmt.Sprintf("%s in %s locks %s to managed settings", pluginOnlyKey, path, surface)
	}
	return ""
}

// scope is one settings file Load reads, if it exists.
type scope struct {
	source perm.Source
	path   string
	base   string // what relative additionalDirectories resolve against
	data   []byte // the content, for the --settings scope, which is not read
	// mcpOnly marks Claude Code's managed-mcp.json (parseManagedMCP).
	mcpOnly bool
}

// ClaudeManagedMCPPath is Claude Code's managed-mcp.json, beside its
// managed settings file. Where it exists, only its MCP servers may run
// (Settings.MCPExclusive), as in Claude Code; with no server in it, none.
func ClaudeManagedMCPPath() string {
	return filepath.Join(filepath.Dir(ClaudeManagedPath), "managed-mcp.json")
}

// location is where the settings of one Options are.
type location struct {
	cwd, home, root string
	// scopes are the files of every scope, highest precedence first,
	// whether they exist or not; within a scope gen's file comes before
	// Claude Code's.
	scopes []scope
	// watch are directories whose entries choose files of scopes (the
	// managed drop-in directory): Live follows them too, so a drop-in
	// added later is read.
	watch []string
}

// dropIns lists the settings files of Claude Code's managed drop-in
// directory, as Claude Code reads it: the *.json files not hidden, in name
// order. No directory is none; one that cannot be read is an error, not a
// policy without its rules.
func dropIns(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if link := workspace.DanglingLink(dir); link != "" {
			return nil, fmt.Errorf("managed settings %s: %s is a symbolic link to a directory that does not exist", dir, link)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("managed settings %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") || e.IsDir() {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	slices.Sort(out)
	return out, nil
}

// locate finds the settings files for opts. Claude Code's managed file is
// read beside gen's unless opts.ManagedPath names the managed file.
func locate(opts Options) (location, error) {
	if !filepath.IsAbs(opts.Cwd) {
		return location{}, fmt.Errorf("settings: working directory %q is not absolute", opts.Cwd)
	}
	cwd := filepath.Clean(opts.Cwd)
	home := opts.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			// Without a home directory the user's deny rules could not be
			// read; carrying on without them would be unsafe.
			return location{}, fmt.Errorf("settings: cannot find the user settings: %w", err)
		}
		home = h
	}
	if !filepath.IsAbs(home) {
		return location{}, fmt.Errorf("settings: home directory %q is not absolute", home)
	}
	home = filepath.Clean(home)
	managed := opts.ManagedPath
	if managed == "" {
		managed = DefaultManagedPath
	}
	root := workspace.ProjectRoot(cwd, home)
	loc := location{cwd: cwd, home: home, root: root}
	loc.scopes = append(loc.scopes, scope{source: perm.SourceManaged, path: managed, base: cwd})
	if opts.ManagedPath == "" {
		// Claude Code merges the drop-ins of managed-settings.d over its
		// managed file, in name order, a later file's single values
		// winning. A scope's first file wins here, so they come first,
		// last name first; their rules concatenate like any file's.
		dir := filepath.Join(filepath.Dir(ClaudeManagedPath), "managed-settings.d")
		drops, err := dropIns(dir)
		if err != nil {
			return location{}, err
		}
		loc.watch = append(loc.watch, dir)
		for i := len(drops) - 1; i >= 0; i-- {
			loc.scopes = append(loc.scopes, scope{source: perm.SourceManaged, path: drops[i], base: cwd})
		}
		loc.scopes = append(loc.scopes,
			scope{source: perm.SourceManaged, path: ClaudeManagedPath, base: cwd},
			scope{source: perm.SourceManaged, path: ClaudeManagedMCPPath(), base: cwd, mcpOnly: true})
	}
	if opts.FlagSettings != nil {
		loc.scopes = append(loc.scopes, scope{source: perm.SourceCLI, path: opts.FlagSettingsPath, base: cwd, data: opts.FlagSettings})
	}
	for _, dir := range []string{".gen", ".claude"} {
		loc.scopes = append(loc.scopes, scope{source: perm.SourceLocal, path: filepath.Join(root, dir, "settings.local.json"), base: root})
	}
	for _, dir := range []string{".gen", ".claude"} {
		p := filepath.Join(root, dir, "settings.json")
		if p == filepath.Join(home, dir, "settings.json") {
			// The project root is the home directory (it has a .git), so
			// the shared project file is the user file: read it once.
			continue
		}
		loc.scopes = append(loc.scopes, scope{source: perm.SourceProject, path: p, base: root})
	}
	loc.scopes = append(loc.scopes, scope{source: perm.SourceUser, path: UserPath(home), base: cwd})
	if dir := os.Getenv(ClaudeConfigEnv); dir != "" {
		// Claude Code keeps the user's settings there instead: their
		// deny rules must not be left behind. ~/.claude's still load
		// below it, so that none of its rules is lost either.
		if !filepath.IsAbs(dir) {
			return location{}, fmt.Errorf("settings: %s=%q is not an absolute path, so the user settings in it cannot be found", ClaudeConfigEnv, dir)
		}
		if p := filepath.Join(filepath.Clean(dir), "settings.json"); p != filepath.Join(home, ".claude", "settings.json") {
			loc.scopes = append(loc.scopes, scope{source: perm.SourceUser, path: p, base: cwd})
		}
	}
	loc.scopes = append(loc.scopes, scope{source: perm.SourceUser, path: filepath.Join(home, ".claude", "settings.json"), base: cwd})
	return loc, nil
}

// ClaudeConfigEnv is Claude Code's variable naming the directory that
// holds its user settings (settings.json) in place of ~/.claude.
const ClaudeConfigEnv = "CLAUDE_CONFIG_DIR"

// merge combines s.Files and the flags in opts.
func (s *Settings) merge(opts Options, cwd, home string) error {
	var managedOnlyBy string
	for _, f := range s.Files {
		s.DisableBypass = s.DisableBypass || f.DisableBypass
		s.DisableAuto = s.DisableAuto || f.DisableAuto
		s.ManagedMCPOnly = s.ManagedMCPOnly || f.ManagedMCPOnly
		if f.mcpExclusive {
			s.MCPExclusive = f.Path
		}
		if f.NoSkillShell && s.NoSkillShell == "" {
			s.NoSkillShell = f.Path
		}
		for _, sf := range f.Locked {
			if _, ok := s.locked[sf]; !ok {
				if s.locked == nil {
					s.locked = make(map[string]string)
				}
				s.locked[sf] = f.Path
			}
		}
		if f.ManagedRulesOnly && !s.ManagedRulesOnly {
			s.ManagedRulesOnly, managedOnlyBy = true, f.Path
		}
	}

	// Trust first: what an untrusted project may not widen or configure
	// is decided below (the mode, the additional directories, the model
	// aliases).
	s.Trusted = opts.Trust || s.judgeTrust()
	s.mergeAliases()
	s.mergeHooks()
	s.mergeMCPRules()
	s.resolveAgent()
	if err := s.resolveMode(opts.Mode); err != nil {
		return err
	}

	// A rule is kept once per list and source: the same rule in two scopes
	// is listed twice so that /permissions can show both origins.
	seen := make(map[string]bool)
	add := func(list *[]perm.Entry, name string, e perm.Entry) {
		key := name + "\x00" + string(e.Source) + "\x00" + e.Rule.String()
		if !seen[key] {
			seen[key] = true
			*list = append(*list, e)
		}
	}
	dropped := 0
	for _, f := range s.Files {
		for _, e := range f.Deny {
			add(&s.Deny, "deny", e)
		}
		for _, e := range f.Ask {
			add(&s.Ask, "ask", e)
		}
		switch {
		case len(f.Allow) == 0:
		case s.ManagedRulesOnly && f.Scope != perm.SourceManaged:
			dropped += len(f.Allow)
		case s.untrusted(f):
			// A cloned repository's "allow": ["Bash(*)"] would run
			// what a prompt in the same repository asks for.
			s.Warnings = append(s.Warnings, s.Refusal(fmt.Sprintf("allow rules (%d)", len(f.Allow)), fmt.Sprintf("%s:%d", f.Path, f.allowLine)))
		default:
			for _, e := range f.Allow {
				add(&s.Allow, "allow", e)
			}
		}
	}
	if opts.LimitTools {
		hidden, warns, err := toolsHidden(opts.Tools)
		if err != nil {
			return err
		}
		s.Hidden = hidden
		s.Warnings = append(s.Warnings, warns...)
	}
	for _, flag := range []struct {
		name  string
		rules []string
		list  *[]perm.Entry
		kind  string
		as    perm.ListKind
	}{
		{"--disallowedTools", opts.Disallowed, &s.Deny, "deny", perm.DenyList},
		{"--allowedTools", opts.Allowed, &s.Allow, "allow", perm.AllowList},
	} {
		for _, text := range flag.rules {
			r, left, err := perm.ParseListRule(text, flag.as)
			if err != nil {
				return fmt.Errorf("%s: %w", flag.name, err)
			}
			if left != "" {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s", flag.name, left))
				continue
			}
			if flag.kind == "allow" && s.ManagedRulesOnly {
				dropped++
				continue
			}
			add(flag.list, flag.kind, perm.Entry{Rule: r, Source: perm.SourceCLI, Origin: flag.name})
		}
	}
	if dropped > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: allowManagedPermissionRulesOnly is set: ignoring %d allow rule(s) from other scopes and --allowedTools", managedOnlyBy, dropped))
	}

	for _, f := range s.Files {
		if len(f.AdditionalDirectories) > 0 && s.untrusted(f) {
			s.Warnings = append(s.Warnings, s.Refusal("additionalDirectories", f.Path))
			continue
		}
		s.Workspace.Dirs = appendUnique(s.Workspace.Dirs, f.AdditionalDirectories...)
	}
	for _, d := range opts.AddDirs {
		abs, err := resolveDir(d, cwd, home)
		if err != nil {
			return fmt.Errorf("--add-dir: %w", err)
		}
		// A directory that is not there yet would be trusted the moment
		// anything (a clone, a symlink) appears under that name.
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return fmt.Errorf("--add-dir %s: not an existing directory", d)
		}
		s.Workspace.Dirs = appendUnique(s.Workspace.Dirs, abs)
	}
	return nil
}

// mergeHooks sets s.Hooks and s.ManagedHooksOnly from s.Files. Claude
// Code's disableAllHooks turns off every hook, agents' included, where
// managed settings set it, and all but managed hooks elsewhere (as in
// Claude Code, a user cannot turn the policy's off), once a project that
// sets it is trusted: a repository could otherwise turn off the guard a
// user's PreToolUse hook is. Read as an unknown key, it left every hook
// running.
//
// A disableAllHooks only the command line gives (--settings) leaves the
// user's PreToolUse and PermissionRequest hooks running as guards
// (userGuards), as --setting-sources does when it leaves the user's
// settings out: a command line cannot turn off a user's guard, as it
// cannot drop the user's deny rules.
func (s *Settings) mergeHooks() {
	by, none, cliOnly := "", false, true
	for _, f := range s.Files {
		switch {
		case f.NoHooks && s.untrusted(f):
			s.Warnings = append(s.Warnings, s.Refusal(noHooksKey, f.Path))
		case f.NoHooks:
			if by == "" {
				by = fmt.Sprintf("%s is set in %s", noHooksKey, f.Path)
			}
			s.ManagedHooksOnly = true
			none = none || f.Scope == perm.SourceManaged
			cliOnly = cliOnly && f.Scope == perm.SourceCLI
		case f.ManagedHooksOnly:
			if by == "" {
				by = fmt.Sprintf("%s is set in %s", managedHooksKey, f.Path)
			}
			s.ManagedHooksOnly, cliOnly = true, false
		case slices.Contains(f.Locked, "hooks"):
			if by == "" {
				by = fmt.Sprintf("%s locks hooks in %s", pluginOnlyKey, f.Path)
			}
			s.ManagedHooksOnly, cliOnly = true, false
		}
	}
	guards := s.ManagedHooksOnly && cliOnly && !none
	s.UserGuards, s.HooksOff = guards, by
	var cs []hook.Config
	for _, f := range s.Files {
		if none || s.ManagedHooksOnly && f.Scope != perm.SourceManaged {
			g := hook.Config{}
			if guards {
				g = f.userGuards()
			}
			if !f.Hooks.Empty() {
				kept := ""
				if !g.Empty() {
					kept = " (its PreToolUse and PermissionRequest hooks still run, only to refuse)"
				}
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: ignoring hooks: %s%s", f.Path, by, kept))
			}
			if !g.Empty() {
				cs = append(cs, g)
			}
			continue
		}
		cs = append(cs, f.Hooks)
	}
	s.Hooks = hook.Merge(cs...)
}

// mergeAliases sets s.ModelAliases from the files, each alias from the
// highest-precedence file that maps it. An untrusted project's aliases
// are ignored with a warning, as its api settings and its choice of
// agent are: above the user's, "opus": "some-model" in a cloned
// repository chose the model every agent of the user's written with
// model: opus runs on, the one that makes its tool calls.
func (s *Settings) mergeAliases() {
	for _, f := range s.Files {
		if len(f.ModelAliases) > 0 && s.untrusted(f) {
			s.Warnings = append(s.Warnings, s.Refusal(aliasesKey, f.Path))
			continue
		}
		for alias, model := range f.ModelAliases {
			if _, set := s.ModelAliases[alias]; !set {
				if s.ModelAliases == nil {
					s.ModelAliases = make(map[string]string)
				}
				s.ModelAliases[alias] = model
			}
		}
	}
}

// resolveAgent sets s.Agent and s.AgentAt from the files, as resolveMode
// sets the mode from them: the first that names an agent and may choose
// it wins, and its twin of the same scope naming another is said.
func (s *Settings) resolveAgent() {
	for i, f := range s.Files {
		if f.Agent == "" {
			continue
		}
		at := fmt.Sprintf("%s:%d", f.Path, f.agentLine)
		if s.untrusted(f) {
			s.Warnings = append(s.Warnings, s.Refusal(fmt.Sprintf("agent %q", f.Agent), at))
			continue
		}
		s.sayTwins(i, "agent", func(g *File) (string, int) { return g.Agent, g.agentLine })
		s.Agent, s.AgentAt = f.Agent, at
		return
	}
}

// sayTwins warns of each later file of s.Files[i]'s scope that sets key
// (read by get, with its line) to another value. A .gen file and its
// .claude twin of the same scope: the first (gen's) wins, and the
// disagreement is said.
func (s *Settings) sayTwins(i int, key string, get func(*File) (string, int)) {
	f := &s.Files[i]
	won, _ := get(f)
	for j := i + 1; j < len(s.Files); j++ {
		g := &s.Files[j]
		if v, line := get(g); g.Scope == f.Scope && v != "" && v != won {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: %s %q is overridden by %q in %s", g.Path, line, key, v, won, f.Path))
		}
	}
}

// resolveMode sets s.Mode and s.ModeSource from the flag, then the files.
func (s *Settings) resolveMode(flag string) error {
	if flag != "" {
		m, err := perm.ParseMode(flag)
		if err != nil {
			return fmt.Errorf("permission mode flag: %w", err)
		}
		switch {
		case m == perm.ModeExplore:
			return fmt.Errorf("permission mode flag: %q is only for subagents", m)
		case m == perm.ModeBypass && s.DisableBypass:
			return fmt.Errorf("permission mode flag: %s is disabled by disableBypassPermissionsMode in %s", m, s.disabledBy())
		case m == perm.ModeAuto && s.DisableAuto:
			return fmt.Errorf("permission mode flag: %s is disabled by disableAutoMode in %s", m, s.autoDisabledBy())
		}
		s.Mode, s.ModeSource = m, perm.SourceCLI
		return nil
	}
	for i, f := range s.Files {
		if f.DefaultMode == "" {
			continue
		}
		if f.DefaultMode == perm.ModeBypass && s.DisableBypass {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: ignoring defaultMode %q: disabled by disableBypassPermissionsMode in %s", f.Path, f.modeLine, f.DefaultMode, s.disabledBy()))
			continue
		}
		if f.DefaultMode == perm.ModeAuto && s.DisableAuto {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: ignoring defaultMode %q: disabled by disableAutoMode in %s", f.Path, f.modeLine, f.DefaultMode, s.autoDisabledBy()))
			continue
		}
		if f.DefaultMode.Rank() > perm.ModeDefault.Rank() && s.untrusted(f) {
			s.Warnings = append(s.Warnings, s.Refusal(fmt.Sprintf("defaultMode %q", f.DefaultMode), fmt.Sprintf("%s:%d", f.Path, f.modeLine)))
			continue
		}
		s.sayTwins(i, "defaultMode", func(g *File) (string, int) { return string(g.DefaultMode), g.modeLine })
		s.Mode, s.ModeSource = f.DefaultMode, f.Scope
		return nil
	}
	s.Mode, s.ModeSource = perm.ModeDefault, perm.SourceBuiltin
	return nil
}

// restrictions is f as a scope --setting-sources leaves out. What it
// forbids or narrows still applies: its deny and ask rules, the switches
// that disable modes or keep rules, hooks and MCP servers to managed
// settings, its allowed and denied MCP servers, its approvals of
// .mcp.json servers but enableAllProjectMcpServers, and what narrows the
// sandbox; so does its record of trusted projects, the user's answer to
// a question, not a setting. What it grants or configures does not: allow
// rules, defaultMode, additional directories, hooks, MCP servers, the API,
// model aliases, what widens the sandbox. A flag cannot swap the user's
// deny rules out, as it cannot swap out the managed policy.
func (f *File) restrictions() File {
	return File{
		Scope:            f.Scope,
		Path:             f.Path,
		Ask:              f.Ask,
		Deny:             f.Deny,
		DisableBypass:    f.DisableBypass,
		DisableAuto:      f.DisableAuto,
		NoSkillShell:     f.NoSkillShell,
		ManagedRulesOnly: f.ManagedRulesOnly,
		ManagedHooksOnly: f.ManagedHooksOnly,
		ManagedMCPOnly:   f.ManagedMCPOnly,
		MCPAllow:         f.MCPAllow,
		MCPDeny:          f.MCPDeny,
		MCPJSONOn:        f.MCPJSONOn,
		MCPJSONOff:       f.MCPJSONOff,
		TrustedProjects:  f.TrustedProjects,
		Sandbox:          f.Sandbox.Tightening(),
		Hooks:            f.userGuards(),
	}
}

// userGuards are the hooks of a user settings file that still guard
// where the command line leaves the file's hooks out (hook.Config.Guards):
// a user's guard is the user's policy, as the file's deny rules are. A
// project's and a local file's are not kept: they run only in a trusted
// project, and a run that leaves them out is not asked to trust it.
func (f *File) userGuards() hook.Config {
	if f.Scope != perm.SourceUser {
		return hook.Config{}
	}
	return f.Hooks.Guards()
}

// ConfigFiles returns, for perm.Policy.Code, the settings files of every
// scope gen follows, existing or not, and the user's and the project's
// configuration directories (.gen and .claude) with what in them gen
// reads (configEntries: agents, whose hooks run outside the gate, skills,
// commands, memory), with their links resolved as a write would follow
// them (workspace.RealPath), as they were when the settings were loaded.
// Their own names are sensitive paths, but a link can make them any file:
// with ~/.claude/settings.json or ~/.claude/agents a link into a dotfiles
// repository, an acceptEdits Write of the repository's file added user
// allow rules that applied at the next call, or a user agent whose hooks
// ran outside the gate when it ran.
func (s *Settings) ConfigFiles() []string { return s.config }

// configFiles finds ConfigFiles: followed are the settings files Live
// follows, as located. A warning says where links were no longer looked
// for (configLinks).
func configFiles(followed []string, home, root string) ([]string, string) {
	// A directory's links are resolved once (an Lstat a component),
	// then each entry in it costs one Lstat unless it is a link.
	dirs := make(map[string]string)
	real := func(p string) string {
		dir, ok := dirs[filepath.Dir(p)]
		if !ok {
			dir = workspace.RealPath(filepath.Dir(p))
			dirs[filepath.Dir(p)] = dir
		}
		p = filepath.Join(dir, filepath.Base(p))
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return workspace.RealPath(p)
		}
		return p
	}
	out := make([]string, 0, len(followed)+4*(1+len(configEntries)))
	budget := maxConfigEntries
	for _, p := range followed {
		out = append(out, real(p))
	}
	for _, dir := range []string{home, root} {
		for _, name := range []string{".gen", ".claude"} {
			conf := filepath.Join(dir, name)
			out = append(out, real(conf))
			if _, err := os.Lstat(conf); err != nil {
				continue // what is made in it has a sensitive name
			}
			for _, entry := range configEntries {
				p := real(filepath.Join(conf, entry))
				out = append(out, p)
				if entry != "AGENTS.md" && entry != "CLAUDE.md" {
					out, budget = configLinks(out, p, budget)
				}
			}
		}
	}
	if budget < 0 {
		return out, fmt.Sprintf("stopped looking for symbolic links in the agents, skills and commands directories of %s and %s after %d entries: a file linked from beyond them is not protected as code", home, root, maxConfigEntries)
	}
	return out, ""
}

// maxConfigEntries bounds the directory entries configLinks reads, at
// every start of gen, in all the configuration directories together.
const maxConfigEntries = 20000

// configLinks appends to out the resolved link of every symbolic link
// below dir (an agents, skills or commands directory, links resolved),
// down to configDepth directories, following links to directories, with
// what is left of budget, the entries it may still read (below zero when
// it ran out). The loaders follow such links to the agent, skill and
// command files they read: with ~/.claude/agents/x.md a link into a
// dotfiles repository, kept one file at a time as GNU stow does when the
// directory exists, the repository's claude/agents/x.md is a user agent
// whose hooks run outside the gate.
func configLinks(out []string, dir string, budget int) ([]string, int) {
	seen := make(map[string]bool)
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if budget < 0 || depth > configDepth || seen[dir] {
			return
		}
		seen[dir] = true
		entries, err := textfile.ReadDir(dir)
		if err != nil {
			return // none, or not a directory: the loaders report it
		}
		for _, e := range entries {
			if budget--; budget < 0 {
				return
			}
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				walk(p, depth+1)
			case e.Type()&fs.ModeSymlink != 0:
				p = workspace.RealPath(p)
				out = append(out, p)
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					walk(p, depth+1)
				}
			}
		}
	}
	walk(dir, 0)
	return out, budget
}

// configDepth is how many directories deep configLinks looks below a
// configuration directory, as deep as the loaders look for commands.
const configDepth = 8

// configEntries are what a configuration directory holds that gen reads
// (ConfigFiles), each of which a dotfiles manager such as GNU stow may
// make a link of its own into a repository.
var configEntries = []string{"agents", "skills", "commands", "AGENTS.md", "CLAUDE.md"}

// Project reports whether f is a project file, shared or local: one a
// cloned repository can supply.
func (f *File) Project() bool {
	return f.Scope.Project()
}

// Widens reports whether f asks for what needs the project's trust in
// the permission settings: allow rules, a default mode that runs calls
// without asking (above default: acceptEdits, auto, bypassPermissions),
// additional directories, which the gate counts as workspace and the
// kernel sandbox lets commands write, or the agent the main loop runs as.
// Load ignores these in an untrusted project's files; its deny and ask
// rules, which only narrow, apply.
func (f *File) Widens() bool {
	return len(f.Allow) > 0 || f.DefaultMode.Rank() > perm.ModeDefault.Rank() || len(f.AdditionalDirectories) > 0 || f.Agent != ""
}

// untrusted reports whether f is a file of a project that is not trusted.
func (s *Settings) untrusted(f File) bool { return !s.Trusted && f.Project() }

// Refusal is the warning for what, asked for in file (a path, or
// path:line), ignored because the project is not trusted: it says how to
// trust the project. Package trust uses it for hooks, MCP servers and
// sandbox opt-outs.
func (s *Settings) Refusal(what, file string) string {
	root := s.Workspace.Root
	return fmt.Sprintf("%s: ignoring project %s: the project %s is not trusted (trust it with `gen trust %s`, or --trust for one run)", file, what, root, root)
}

// judgeTrust reports whether a user or managed file trusts the project
// root, compared with symlinks resolved on both sides. An entry with files
// trusts only while ProjectFiles of the root equals them (ChangedFiles),
// so the files are read only when such an entry exists. A plain path
// trusts in managed settings, and in the user settings fails closed. When
// an entry exists but none holds, it sets TrustStale and TrustChanged and
// adds one warning that says why and how to trust the project again.
func (s *Settings) judgeTrust() bool {
	root, home := s.Workspace.Root, s.Workspace.Home
	real := realPath(root)
	var (
		now     map[string]string
		readErr error
		read    bool
		changed []string
		legacy  string // a user file with a plain-path entry
	)
	for _, f := range s.Files {
		for _, t := range f.TrustedProjects {
			if !sameRoot(t.Path, root, real) {
				continue
			}
			if t.Files == nil {
				if f.Scope == perm.SourceManaged {
					return true
				}
				legacy = f.Path
				continue
			}
			if !read {
				// The files the hooks name from the working directory
				// too: they run there (ProjectFiles).
				now, readErr = ProjectFiles(root, home, s.Workspace.Cwd)
				read = true
				s.trustPaths = trustPaths(root, now, nil)
			}
			if readErr != nil {
				continue
			}
			diff := Changed(root, t.Files, now)
			// What Changed read of t.Files is followed too.
			s.trustPaths = trustPaths(root, now, t.Files)
			if len(diff) == 0 {
				return true
			}
			for _, c := range diff {
				changed = appendUnique(changed, c)
			}
		}
	}
	again := fmt.Sprintf("until you review it and trust it again (`gen trust %s`, or --trust for one run), %s are ignored", root, TrustCovers)
	switch {
	case len(changed) > 0:
		slices.Sort(changed)
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: the project's configuration changed since you trusted it (%s), so it is not trusted: %s", root, strings.Join(changed, ", "), again))
	case readErr != nil:
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: the project's configuration cannot be checked against your trust (%v), so it is not trusted: %s", root, readErr, again))
	case legacy != "":
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: the project %s was trusted before gen recorded which configuration a trust covers, so it is not trusted: %s", legacy, root, again))
	default:
		return false
	}
	s.TrustStale, s.TrustChanged = true, changed
	return false
}

// UserPath is the user settings file under home.
func UserPath(home string) string { return filepath.Join(home, ".gen", "settings.json") }

// disabledBy names the highest-precedence file that disables bypass mode.
func (s *Settings) disabledBy() string {
	for _, f := range s.Files {
		if f.DisableBypass {
			return f.Path
		}
	}
	return ""
}

// ModeAllowed reports whether a person may switch the main loop to m. It is
// false for modes that are not main-loop modes (explore, unknown names),
// for bypassPermissions when DisableBypass is set and for auto when
// DisableAuto is set, so Shift+Tab skips them.
func (s *Settings) ModeAllowed(m perm.Mode) bool {
	if !slices.Contains(perm.MainLoopModes, m) {
		return false
	}
	return (m != perm.ModeBypass || !s.DisableBypass) && (m != perm.ModeAuto || !s.DisableAuto)
}

// autoDisabledBy names the highest-precedence file that disables auto mode.
func (s *Settings) autoDisabledBy() string {
	for _, f := range s.Files {
		if f.DisableAuto {
			return f.Path
		}
	}
	return ""
}

// resolveDir makes a directory named in settings or a flag absolute
// (workspace.Dir: "~" and "~/x" are under home, other relative paths under
// base).
var resolveDir = workspace.Dir

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// toolsHidden returns the built-in tools a --tools list leaves out, as
// Claude Code reads it: tool names; "default" alone for all of them;
// nothing (or "") for none. A name gen does not know is an
// error; one of Claude Code's tools gen lacks is left out with a warning,
// and Task, its old name for Agent, is Agent (perm.ParseListRule).
// MCP tools are not built-in: --tools leaves them as they are; nor are
// the mode switches capabilities (perm.ModeTools): it leaves them too, so
// a run in plan mode can still present its plan.
func toolsHidden(lists []string) (hidden, warnings []string, err error) {
	listed := map[string]bool{}
	all := false
	for _, t := range lists {
		if t == "" {
			continue
		}
		if t == "default" {
			all = true
			continue
		}
		r, left, err := perm.ParseListRule(t, perm.ToolList)
		switch {
		case left != "":
			warnings = append(warnings, "--tools: "+left)
		case err != nil || r.HasPattern || r.Tool == "MCP" || !slices.Contains(perm.Tools, r.Tool):
			return nil, nil, fmt.Errorf("--tools: unknown built-in tool %q (want names such as Bash, Read, Edit, or \"default\" for all)", t)
		default:
			listed[r.Tool] = true
		}
	}
	if all {
		if len(listed) > 0 {
			return nil, nil, errors.New(`--tools: "default" means every built-in tool; list no others with it`)
		}
		return nil, warnings, nil
	}
	for _, t := range perm.Tools {
		if t != "MCP" && !listed[t] && !slices.Contains(perm.ModeTools, t) {
			hidden = append(hidden, t)
		}
	}
	return hidden, warnings, nil
}
