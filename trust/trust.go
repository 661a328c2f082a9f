// Package trust decides whether a project may run code of its own before
// the permission gate sees a tool call: project hooks, project MCP servers
// and a project's sandbox opt-out. A cloned repository must not get these
// for free, so they need the user's trust, given once per project root:
//
//   - by the interactive prompt on first use (Ask),
//   - by `gen trust [DIR]` (Trust),
//   - by --trust for one headless run (settings.Options.Trust; not recorded).
//
// Trust is recorded in the user settings (~/.gen/settings.json, top-level
// "trustedProjects"), written atomically under the settings lock, with the
// digests of the project's configuration files (settings.ProjectFiles: its
// settings, .mcp.json, agents and skills, and the files its hooks name). It
// holds while they are
// unchanged: after a `git pull` or a command that wrote one of them, the
// project is untrusted, with a warning naming the files, until the user
// trusts it again. gen's own writes to a trusted project's settings keep
// the digests current (settings.KeepTrust). A project's own settings
// cannot grant trust. Without trust, a project's settings keep
// their permission rules and the modes that ask at least as much as default
// (dontAsk); a mode that asks less (acceptEdits, auto, bypassPermissions)
// and additionalDirectories, which widen the workspace and what the kernel
// sandbox lets commands write, are ignored with a warning (settings.Load).
package trust

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/workspace"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/settings"
)

// Root returns the project root trust is given to for dir: the root
// settings uses (nearest ancestor of the path as written with .gen or
// .git), absolute, then with symlinks resolved so that a link to a project
// is the same project. The root is found before links are resolved, as
// settings finds it: found after, a directory reached through a link
// could name another project (an ancestor of the link's target) than the
// one settings loads and the trust prompt shows.
func Root(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("trust: %s is not a directory", abs)
	}
	home, _ := os.UserHomeDir()
	real, err := filepath.EvalSymlinks(workspace.ProjectRoot(abs, home))
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return real, nil
}

// Trust records the project containing dir as trusted in the user settings
// under home, with its configuration files as they are now, and returns
// its root. Trusting a project again records its files anew. The files
// its hooks and servers name are read from the root, from dir and from
// each of from inside the project (`gen trust`'s own working directory):
// they run in the working directory (settings.ProjectFiles).
func Trust(home, dir string, from ...string) (string, error) {
	root, err := Root(dir)
	if err != nil {
		return "", err
	}
	files, err := settings.ProjectFiles(root, home, append([]string{dir}, from...)...)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	if err := settings.AddTrustedProject(settings.UserPath(home), root, files); err != nil {
		return "", err
	}
	return root, nil
}

// IsTrusted reports whether the user settings under home record the
// project containing dir as trusted, with its configuration files as
// they are now. A user settings file that cannot be read or parsed is an
// error, never "trusted".
func IsTrusted(home, dir string) (bool, error) {
	root, err := Root(dir)
	if err != nil {
		return false, err
	}
	path := settings.UserPath(home)
	data, err := textfile.Read(path, textfile.Max)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trust: %s: %w", path, err)
	}
	entries, err := settings.TrustedProjects(path, data)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Files == nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(e.Path); e.Path != root && (err != nil || real != root) {
			continue
		}
		now, err := settings.ProjectFiles(root, home, dir)
		if err != nil {
			return false, fmt.Errorf("trust: %w", err)
		}
		if len(settings.Changed(root, e.Files, now)) == 0 {
			return true, nil
		}
	}
	return false, nil
}

// Feature is project code that needs trust.
type Feature string

// The features that run before the gate.
const (
	Hooks      Feature = "hooks"
	MCPServers Feature = "MCP servers"
	SandboxOff Feature = "sandbox opt-out"
)

// Refusal returns the warning to print, once, when a project that is not
// trusted asks for feature f in file; "" when set is trusted and the
// feature may be used. Callers that load project hooks, MCP servers or
// sandbox settings skip them when this is not "".
func Refusal(set *settings.Settings, f Feature, file string) string {
	if set.Trusted {
		return ""
	}
	return set.Refusal(string(f), file)
}

// Pending returns the files of set's project that ask for code to run
// before any tool call is checked (project hooks, project MCP servers, a
// sandbox opt-out), or for a widening the settings ignore (allow rules, a
// mode that runs calls without asking, additional directories:
// settings.File.Widens; a project agent's allow_tools or mode:
// agent.Definition.Widens; a project agent's hooks), while the project is not trusted; nil when it
// is trusted or asks for none. mcpJSON is the project's .mcp.json, "" if
// it has none; agents are the agents the project may use.
func Pending(set *settings.Settings, mcpJSON string, agents []*agent.Definition) []string {
	if set.Trusted {
		return nil
	}
	var files []string
	if mcpJSON != "" {
		files = append(files, mcpJSON)
	}
	for _, f := range set.Files {
		if !f.Project() {
			continue
		}
		if (!f.Hooks.Empty() && !set.ManagedHooksOnly) || f.MCPServers != nil || f.Sandbox.Widens() || f.Widens() {
			files = append(files, f.Path)
		}
	}
	for _, d := range agents {
		if d.Source == agent.SourceProject && (d.Widens() || !d.Hooks.Empty() && !set.ManagedHooksOnly) {
			files = append(files, d.Path)
		}
	}
	return files
}

// Ask asks the person at the terminal whether to trust the project
// containing dir, the working directory, and records the answer when it
// is yes, with the project's configuration files as they were when the
// question was asked (those its hooks name from dir too). Only "y" or
// "yes" trusts; end of input, an error or ctx ending is no. It must only
// be called where a person can answer (never headless).
func Ask(ctx context.Context, in io.Reader, out io.Writer, home, dir string) (bool, error) {
	root, err := Root(dir)
	if err != nil {
		return false, err
	}
	files, err := settings.ProjectFiles(root, home, dir)
	if err != nil {
		return false, fmt.Errorf("trust: %w", err)
	}
	fmt.Fprintf(out, "gen: %s has project hooks, MCP servers, sandbox settings or permission settings that need your trust.\nTrust this project? Only trust code you have reviewed. [y/N] ", root)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(in).ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case a := <-answer:
		if a != "y" && a != "yes" {
			return false, nil
		}
	}
	if err := settings.AddTrustedProject(settings.UserPath(home), root, files); err != nil {
		return false, err
	}
	return true, nil
}

// RunnableHooks returns the hooks of set that may run: all of set.Hooks
// when the project is trusted; otherwise the project and local scopes'
// hooks are dropped, with one warning (Refusal) per file that has some.
// Managed and user hooks are the user's own and always run (unless
// managed settings allow only managed hooks, which settings applied).
func RunnableHooks(set *settings.Settings) (hook.Config, []string) {
	if set.Trusted {
		return set.Hooks, nil
	}
	var warns []string
	for _, f := range set.Files {
		if f.Project() && !f.Hooks.Empty() && !set.ManagedHooksOnly {
			warns = append(warns, Refusal(set, Hooks, f.Path))
		}
	}
	return set.Hooks.Filter(func(s perm.Source) bool { return !s.Project() }), warns
}

// AgentHooks returns the hooks of agent d that may run under set while d
// runs (agent.Definition.Hooks, besides the session's), and the warning
// to print when there are some that may not: a project's agent's hooks
// run code before the gate sees a call, as its settings hooks do, so they
// need the project's trust; under allowManagedHooksOnly or a
// disableAllHooks no agent's hooks run, except, where only the command
// line turned hooks off (settings.Settings.UserGuards), a user agent's
// PreToolUse and PermissionRequest hooks as guards, which only refuse.
// A user's agent's hooks are the user's own. The hooks carry
// perm.SourceAgent.
func AgentHooks(set *settings.Settings, d *agent.Definition) (hook.Config, string) {
	if d.Hooks.Empty() {
		return hook.Config{}, ""
	}
	if set.ManagedHooksOnly {
		msg := fmt.Sprintf("%s: ignoring the agent's hooks: %s", d.Path, set.HooksOff)
		if set.UserGuards && d.Source == agent.SourceUser {
			return d.Hooks.Guards().WithSource(perm.SourceAgent), msg + " (its PreToolUse and PermissionRequest hooks still run, only to refuse)"
		}
		return hook.Config{}, msg
	}
	if d.Source == agent.SourceProject {
		if msg := Refusal(set, Hooks, d.Path); msg != "" {
			return hook.Config{}, msg
		}
	}
	return d.Hooks.WithSource(perm.SourceAgent), ""
}

// LiveAgentHooks returns what gives, at each event, the hooks of agent d
// that may run (AgentHooks) under live's settings as they are then,
// starting from set; while the settings cannot be loaded, a project
// agent's run no more than the project's settings hooks do (LiveHooks),
// and a user agent's under set. A nil live keeps to set.
func LiveAgentHooks(live *settings.Live, set *settings.Settings, d *agent.Definition) func() hook.Config {
	return func() hook.Config {
		s := set
		if live != nil {
			cur, err := live.Current()
			if err != nil && d.Source == agent.SourceProject {
				return hook.Config{}
			}
			if err == nil {
				s = cur
			}
		}
		c, _ := AgentHooks(s, d)
		return c
	}
}

// LiveHooks returns a runner of the hooks that may run under live's
// settings as they are at each event (RunnableHooks), starting from set,
// the settings live gave last: hooks follow the settings as permission
// rules do. live follows the files a project's trust covers, so a project
// whose hook script changed while gen runs (a `git pull` in another
// terminal) stops running its hooks at the next event, as it would at the
// next start; and the hooks that run are always those whose files the
// policy guards (policy.Main). While the settings cannot be loaded, the
// hooks of the last settings that loaded run, the project's left out.
// warn gets each warning once.
func LiveHooks(live *settings.Live, set *settings.Settings, warn func(string)) *hook.Runner {
	var (
		mu   sync.Mutex
		last = set
		cfg  hook.Config // RunnableHooks(last), once worked out
		have bool
		seen = map[string]bool{}
	)
	say := func(ws ...string) {
		for _, w := range ws {
			if !seen[w] && warn != nil {
				warn(w)
			}
			seen[w] = true
		}
	}
	current := func() hook.Config {
		s, err := live.Current()
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			say(fmt.Sprintf("project hooks are not run while the settings cannot be loaded: %v", err))
			return last.Hooks.Filter(func(s perm.Source) bool { return !s.Project() })
		}
		if have && s == last {
			return cfg // Live loaded nothing new
		}
		if last.Trusted && !s.Trusted && len(s.TrustChanged) > 0 {
			say(fmt.Sprintf("%s: the project's configuration changed since you trusted it (%s)", s.Workspace.Root, strings.Join(s.TrustChanged, ", ")))
		}
		var warns []string
		last, have = s, true
		cfg, warns = RunnableHooks(s)
		say(warns...)
		return cfg
	}
	current()
	return &hook.Runner{Current: current, ProjectDir: set.Workspace.Root}
}
