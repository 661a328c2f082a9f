package perm

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gen-run/gen/internal/gitconfig"
	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm/bash"
)

// gitSafeKeys are repository configuration keys (section.key, lower case,
// with any subsection left out) that cannot make git run a program or read
// files elsewhere. A repository whose configuration sets any other key
// (core.pager, diff.*.textconv, filter.*, include.path, alias.*, ...) makes
// no git command read-only: only the keys git writes itself on init and
// clone, and common settings that only select behaviour, are listed.
// remote.*.promisor and extensions.partialClone are left out: in a
// partial clone git log -p, git show, git diff and git blame fetch the
// objects they miss from the promisor remote (git fetch, over the
// network, then index-pack writing a pack in .git/objects).
var gitSafeKeys = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true, "core.logallrefupdates": true,
		"core.ignorecase": true, "core.precomposeunicode": true, "core.symlinks": true, "core.autocrlf": true,
		"core.eol": true, "core.safecrlf": true, "core.quotepath": true, "core.abbrev": true, "core.compression": true,
		"core.commentchar": true, "core.checkstat": true, "core.trustctime": true, "core.untrackedcache": true,
		"core.preloadindex": true, "core.multipackindex": true, "core.commitgraph": true, "core.sparsecheckout": true,
		"core.sparsecheckoutcone": true, "core.splitindex": true,
		"remote.url": true, "remote.fetch": true, "remote.pushurl": true, "remote.push": true, "remote.tagopt": true,
		"remote.prune": true, "remote.mirror": true, "remote.partialclonefilter": true,
		"branch.remote": true, "branch.merge": true, "branch.rebase": true, "branch.pushremote": true,
		"branch.description": true, "user.name": true, "user.email": true, "pull.rebase": true, "pull.ff": true,
		"push.default": true, "push.autosetupremote": true, "fetch.prune": true, "init.defaultbranch": true,
		"merge.conflictstyle": true, "diff.renames": true, "diff.algorithm": true, "diff.colormoved": true,
		"diff.mnemonicprefix": true, "diff.noprefix": true, "color.ui": true, "column.ui": true, "log.date": true,
		"log.decorate": true, "status.showuntrackedfiles": true, "status.short": true, "status.branch": true,
		"submodule.url": true, "submodule.active": true, "lfs.repositoryformatversion": true,
		"extensions.objectformat": true, "extensions.worktreeconfig": true,
		"gc.auto": true, "rerere.enabled": true, "i18n.commitencoding": true, "protocol.version": true,
	}
}}

// gitRepoCode returns why a repository git may use, started in dir (or
// the one gitDir names), could make a read-only git command run a program
// or read elsewhere: "KEY in FILE", or "" if its configuration, and that
// of every submodule checked out in it, sets only verified keys, or there
// is no repository. workTree reports a command that names its work tree
// (--work-tree): its submodules are then not found.
func (c *call) gitRepoCode(dir, gitDir string, workTree bool) string {
	repos, why := c.gitReposFor(dir, gitDir)
	if why != "" {
		return why
	}
	for _, r := range repos {
		root := r.root
		if workTree {
			root = ""
		}
		if why := c.repoCode(r.gitDir, root, 0); why != "" {
			return why
		}
	}
	return ""
}

// repoCode is gitRepoCode for the repository in gitDir whose work tree is
// root ("" if not known), depth submodules deep.
func (c *call) repoCode(gitDir, root string, depth int) string {
	files, why := c.configFiles(gitDir)
	if why != "" {
		return why
	}
	for _, f := range files {
		if k := c.gitConfig(f).unsafe; k != "" {
			return k + " in " + f
		}
	}
	if why := c.hooksCode(gitDir, root); why != "" {
		return why
	}
	return c.submoduleCode(root, gitDir, depth)
}

// gitReadHooks are the hooks git 2.39 runs only for commands that write
// (commit, merge, rebase, am, checkout, push, receive, gc --auto,
// send-email, git-p4) or, for fsmonitor-watchman, only where
// core.fsmonitor names it (GitOverrides turns that off): none runs for
// a command of the read-only subset. It is an allowlist: any other file
// in a hooks directory makes no git command read-only. git status, git
// diff and git describe --dirty write a refreshed index, and
// post-index-change runs after every index write; reference-transaction
// runs for any ref update.
var gitReadHooks = lazy.Value[map[string]bool]{New: func() map[string]bool {
	m := map[string]bool{}
	for _, h := range strings.Fields("applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit " +
		"prepare-commit-msg commit-msg post-commit pre-rebase post-checkout post-merge pre-push pre-receive " +
		"update proc-receive post-receive post-update push-to-checkout pre-auto-gc post-rewrite " +
		"sendemail-validate fsmonitor-watchman p4-changelist p4-prepare-changelist p4-post-changelist p4-pre-submit") {
		m[h] = true
	}
	return m
}}

// maxHookEntries bounds the entries of a hooks directory hooksCode reads.
const maxHookEntries = 256

// hooksCode returns why git may run a hook of the repository whose git
// directory is gitDir (and work tree root, "" if not known) for a
// read-only command: a file in a hooks directory (gitDir's, its common
// directory's, or one core.hooksPath in the system's or the user's
// configuration names) that gitReadHooks does not list and that is not a
// sample; "" if none. The repository's own core.hooksPath is an unsafe
// key already.
func (c *call) hooksCode(gitDir, root string) string {
	dirs := []string{filepath.Join(gitDir, "hooks")}
	if common, ok := c.commonDir(gitDir); ok && common != gitDir {
		dirs = append(dirs, filepath.Join(common, "hooks"))
	}
	paths, why := c.userHooksPaths()
	if why != "" {
		return why
	}
	for _, written := range paths {
		p, ok := gitconfig.ExpandPath(written, c.ws.Home)
		switch {
		case !ok:
			return "the hooks git runs are not known: core.hooksPath " + written + " cannot be resolved"
		case filepath.IsAbs(p):
		case root == "":
			return "core.hooksPath " + p + " is relative to a work tree that is not known"
		default:
			p = filepath.Join(root, p)
		}
		dirs = append(dirs, p)
	}
	for _, d := range dirs {
		entries, err := textfile.ReadDir(d)
		switch {
		case os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR):
			continue // git finds no hook there
		case err != nil:
			return "cannot read the hooks directory " + d
		case len(entries) > maxHookEntries:
			return "the hooks directory " + d + " holds too many entries to check"
		}
		for _, e := range entries {
			if n := e.Name(); !gitReadHooks.Get()[n] && !strings.HasSuffix(n, ".sample") {
				return "hook " + filepath.Join(d, n) + " may run for a read-only command"
			}
		}
	}
	return ""
}

// userHooksPaths returns the core.hooksPath values of the system's and
// the user's git configuration and the files they include, as written;
// why says they are not known.
func (c *call) userHooksPaths() (paths []string, why string) {
	files, unread := c.userGitConfigs()
	if unread != "" {
		return nil, "the hooks git runs are not known: " + unread
	}
	seen := map[string]bool{}
	for i := 0; i < len(files); i++ {
		f := files[i]
		if seen[f] {
			continue
		}
		seen[f] = true
		if len(seen) > maxGitIncludes {
			return nil, "the hooks git runs are not known: " + f + " includes too many files"
		}
		cfg := c.gitConfig(f)
		if cfg.unread {
			return nil, "the hooks git runs are not known: " + f + " cannot be read"
		}
		inc, why := c.includedConfigs(f, cfg.includes)
		if why != "" {
			return nil, "the hooks git runs are not known: " + why + " cannot be read"
		}
		files = slices.Insert(files, i+1, inc...)
		paths = append(paths, cfg.hooksPaths...)
	}
	return paths, ""
}

// configFiles returns the configuration files git reads in the git
// directory gitDir: its config and config.worktree, and the config of
// its common directory (a worktree's main repository); why says the
// common directory is not known.
func (c *call) configFiles(gitDir string) (files []string, why string) {
	files = []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	common, ok := c.commonDir(gitDir)
	switch {
	case !ok:
		return nil, "cannot read " + filepath.Join(gitDir, "commondir")
	case common != gitDir:
		files = append(files, filepath.Join(common, "config"))
	}
	return files, ""
}

// gitReposFor returns the repositories git may use started in dir
// (discoverRepos), or the one gitDir names (relative to dir) with dir as
// its work tree (git's rule); why says the gate cannot tell which.
func (c *call) gitReposFor(dir, gitDir string) ([]gitRepo, string) {
	if gitDir == "" {
		repos, why := c.discoverRepos(dir)
		if why != "" {
			why = "the repository git uses from " + dir + " is not known: " + why
		}
		return repos, why
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = dir + "/" + gitDir
	}
	return []gitRepo{{c.realPath(gitDir), c.realPath(dir)}}, ""
}

// gitAliases returns the aliases the configuration of the repository
// whose git directory is gitDir defines: name → value, not to be
// modified. unread names a configuration file that could not be read
// whole (too large, not a regular file): its aliases are unknown.
func (c *call) gitAliases(gitDir string) (aliases map[string]string, unread string) {
	files, why := c.configFiles(gitDir)
	if why != "" {
		return nil, why
	}
	// git reads the system's and the user's configuration first: an
	// alias there (p = push, x = !rm -rf ...) is one too.
	user, unread := c.userGitConfigs()
	files = append(user, files...)
	seen := map[string]bool{}
	var named map[string]string // [alias "NAME"] command = VALUE
	for i := 0; i < len(files); i++ {
		f := files[i]
		if seen[f] {
			continue
		}
		seen[f] = true
		cfg := c.gitConfig(f)
		if cfg.unread && unread == "" {
			unread = f
		}
		// The files it includes (include.path, and includeIf's whatever
		// the condition) are read after it, so that their aliases win,
		// as they do over the lines before the include.
		if len(cfg.includes) > 0 {
			if len(seen) > maxGitIncludes {
				return aliases, f
			}
			inc, why := c.includedConfigs(f, cfg.includes)
			if why != "" && unread == "" {
				unread = why
			}
			files = slices.Insert(files, i+1, inc...)
		}
		switch {
		case len(cfg.aliases) == 0:
		case len(aliases) == 0:
			aliases = cfg.aliases
		default:
			merged := maps.Clone(aliases)
			maps.Copy(merged, cfg.aliases)
			aliases = merged
		}
		if len(cfg.named) > 0 {
			if named == nil {
				named = map[string]string{}
			}
			maps.Copy(named, cfg.named)
		}
	}
	if len(named) == 0 {
		return aliases, unread
	}
	// Newer git (2026) also takes [alias "NAME"] command = VALUE, NAME
	// compared case-sensitively; here, as the others, without case. Two
	// definitions that meet so with different values make the aliases
	// unknown: which one git runs depends on their order and case.
	aliases = maps.Clone(aliases)
	if aliases == nil {
		aliases = map[string]string{}
	}
	for _, name := range slices.Sorted(maps.Keys(named)) {
		k, v := strings.ToLower(name), named[name]
		if old, ok := aliases[k]; ok && old != v && unread == "" {
			unread = "the alias " + name + ", defined twice with different values"
		}
		aliases[k] = v
	}
	return aliases, unread
}

// gitStart returns the directory a git command whose -C directories are
// dirs starts in, run in base, and the --git-dir it names (gitDir, ""
// if none) relative to that. Each -C is a chdir: joined as written, so
// that a ".." after a link is resolved where the link leads, as the
// kernel does (discoverRepos and gitReposFor resolve the links).
func (c *call) gitStart(base string, dirs []string, gitDir string) (start, dir string) {
	start = base
	for _, d := range dirs {
		start = chdirTo(c, start, d)
	}
	if gitDir == "" {
		return start, ""
	}
	return start, chdirTo(c, start, gitDir)
}

// chdirTo is the directory a chdir to d (a path a command names) from
// base leads to, joined as written; "" is base itself (git -C "").
func chdirTo(c *call, base, d string) string {
	switch {
	case d == "":
		return base
	case d == "~", strings.HasPrefix(d, "~/"):
		return resolvePath(c.ws, d)
	case filepath.IsAbs(d):
		return d
	}
	return base + "/" + d
}

// repoAliasForms returns the deny forms of a git command with the aliases
// of its repository expanded, for every directory it may start in, and
// the shell code of a "!" alias it runs ("" if none). A configuration
// that cannot be read whole counts as shell code: its aliases are not
// known. Computed once per part.
func (c *call) repoAliasForms(pt *part) (forms []string, shell string) {
	if pt.aliasesDone {
		return pt.aliasForms, pt.aliasShell
	}
	pt.aliasesDone = true
	dirs, gitDir, isGit := pt.cmd.GitStart()
	if !isGit {
		return nil, ""
	}
	if o := pt.cmd.GitConfigUnseen(); o != "" {
		shell = "its aliases are not known: " + o + " sets configuration the gate cannot read"
	}
	for _, b := range c.bases {
		repos, why := c.gitReposFor(c.gitStart(b, dirs, gitDir))
		if why != "" && shell == "" {
			shell = "its aliases are not known: " + why
		}
		for _, r := range repos {
			aliases, unread := c.gitAliases(r.gitDir)
			if unread != "" && shell == "" {
				shell = "the aliases of " + unread + " cannot be read"
			}
			if len(aliases) == 0 {
				continue
			}
			for _, w := range pt.cmd.Words[1:] {
				if v, ok := bash.GitAliasShell(aliases, w.Value); ok {
					shell = w.Value + " = " + v
				}
			}
			if s, ok := pt.cmd.GitShellAlias(aliases); ok && shell == "" {
				shell = s // through an alias the command gives (-c alias.z=x)
			}
			forms = append(forms, pt.cmd.WithGitAliases(aliases)...)
		}
	}
	pt.aliasForms, pt.aliasShell = forms, shell
	return forms, shell
}

// gitAliasedCommands returns a git command with its alias expanded: one
// it sets with -c, and one of the configuration of each repository it
// may use, from each directory the script may be in. A repository whose
// aliases cannot be known is repoAliasForms's to ask about.
func (c *call) gitAliasedCommands(cmd *bash.Command) []*bash.Command {
	dirs, gitDir, isGit := cmd.GitStart()
	if !isGit {
		return nil
	}
	out := cmd.GitAliasedCommands(nil)
	for _, b := range c.bases {
		repos, _ := c.gitReposFor(c.gitStart(b, dirs, gitDir))
		for _, r := range repos {
			if aliases, _ := c.gitAliases(r.gitDir); len(aliases) > 0 {
				out = append(out, cmd.GitAliasedCommands(aliases)...)
			}
		}
	}
	return out
}

// maxGitIncludes bounds the configuration files an alias lookup reads
// through includes: past it the aliases are not known.
const maxGitIncludes = 32

// userGitConfigs are the configuration files git reads before a
// repository's: the system's and the user's (~/.gitconfig, and
// ~/.config/git/config, which $XDG_CONFIG_HOME may move).
//
// Commands inherit gen's environment, so git's variables there count
// too: GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL name the files git reads
// instead of the default ones, which are still read (more aliases only
// broaden deny and ask rules); GIT_CONFIG_COUNT and GIT_CONFIG_PARAMETERS
// carry configuration of their own, and a relative file name is taken
// from a directory the gate does not follow: unread then says why the
// aliases are not known.
func (c *call) userGitConfigs() (files []string, unread string) {
	files = []string{"/etc/gitconfig"}
	if home := c.ws.Home; home != "" {
		files = append(files, filepath.Join(home, ".config/git/config"), filepath.Join(home, ".gitconfig"))
	}
	if xdg := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(xdg) {
		files = append(files, filepath.Join(xdg, "git/config"))
	}
	for _, v := range []string{"GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"} {
		switch f := os.Getenv(v); {
		case f == "" || f == os.DevNull: // git reads nothing for /dev/null
		case filepath.IsAbs(f):
			files = append(files, f)
		case unread == "":
			unread = "the file gen's environment names in " + v + " (" + f + ")"
		}
	}
	for _, v := range []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"} {
		if os.Getenv(v) != "" && unread == "" {
			unread = "the configuration gen's environment carries in " + v
		}
	}
	return files, unread
}

// includedConfigs returns the files the configuration file f includes,
// resolved as git resolves them (gitconfig.IncludePath); unread is the
// first include the gate cannot resolve (~USER/ of an unknown user), whose
// aliases are then not known.
func (c *call) includedConfigs(f string, includes []string) (out []string, unread string) {
	out = make([]string, 0, len(includes))
	for _, p := range includes {
		if q, ok := gitconfig.IncludePath(p, f, c.ws.Home); ok {
			out = append(out, q)
		} else if unread == "" {
			unread = p + " (included by " + f + ")"
		}
	}
	return out, unread
}

// gitConfig is what the gate needs of one git configuration file.
type gitConfig struct {
	// unsafe is the first key not in gitSafeKeys, a line the gate cannot
	// read, or "unreadable config"; "" for a missing file.
	unsafe string
	// aliases are the file's [alias] entries (nil if none), and named
	// its [alias "NAME"] command entries, by NAME as written.
	aliases, named map[string]string
	// includes are the paths of its include.path and includeIf.*.path
	// entries, as written.
	includes []string
	// hooksPaths are its core.hooksPath values, as written.
	hooksPaths []string
	// unread is set when git would read the file but the gate did not
	// read it whole (too large, not a regular file).
	unread bool
}

// maxGitConfig bounds the configuration files read: a larger one (or one
// that is not a regular file, such as a link to /dev/zero) is unreadable.
const maxGitConfig = 4 << 20

// gitConfig reads and parses the git configuration file f at most once
// per call; across calls through gitConfigs, which checks that the file
// is unchanged, or, in a batch, the call's Resolver (Resolver.configs),
// which keeps the answer for the batch as it keeps the file system's.
func (c *call) gitConfig(f string) gitConfig {
	if cfg, ok := c.configs[f]; ok {
		return cfg
	}
	r := c.resolver
	cfg, ok := gitConfig{}, false
	if r != nil {
		cfg, ok = r.configs[f]
	}
	if !ok {
		cfg = gitConfigs.load(f)
		if r != nil && cfg.entries() <= maxResolverConfigEntries {
			if len(r.configs) >= maxGitConfigs || r.configs == nil {
				r.configs = make(map[string]gitConfig)
			}
			r.configs[f] = cfg
		}
	}
	if c.configs == nil {
		c.configs = make(map[string]gitConfig, 2)
	}
	c.configs[f] = cfg
	return cfg
}

// maxResolverConfigEntries bounds the parsed configuration files a
// Resolver keeps: one with more aliases and paths than this is read again
// at each call, so that Resolver.configs stays small.
const maxResolverConfigEntries = 1024

// entries counts what cfg holds.
func (cfg gitConfig) entries() int {
	return len(cfg.aliases) + len(cfg.named) + len(cfg.includes) + len(cfg.hooksPaths)
}

func readGitConfig(f string) gitConfig {
	b, err := readRegular(f, maxGitConfig)
	switch {
	case os.IsNotExist(err):
		return gitConfig{}
	case err != nil:
		// git cannot use a file it cannot open either; one it would
		// read without end, or past the limit, has aliases unknown.
		return gitConfig{unsafe: "unreadable config", unread: errors.Is(err, errUnbounded)}
	}
	return parseGitConfig(b)
}

// parseGitConfig is what the gate needs of the configuration text b, read
// as git reads it (package gitconfig): its [alias] entries, name (lower
// case) → value, the paths its [include] and [includeIf "..."] sections
// name, its core.hooksPath values, and its first key not in gitSafeKeys.
// A line git refuses is unsafe; the entries before it still count.
func parseGitConfig(b []byte) gitConfig {
	es, err := gitconfig.Parse(b)
	var cfg gitConfig
	for _, e := range es {
		switch {
		case e.Section == "alias" && e.Subsection == "":
			if cfg.aliases == nil {
				cfg.aliases = map[string]string{}
			}
			cfg.aliases[e.Key] = e.Value
		case e.Section == "alias" && e.Key == "command":
			if cfg.named == nil {
				cfg.named = map[string]string{}
			}
			cfg.named[e.Subsection] = e.Value
		case (e.Section == "include" || e.Section == "includeif") && e.Key == "path" && e.Value != "":
			cfg.includes = append(cfg.includes, e.Value)
		case e.Section == "core" && e.Key == "hookspath" && e.Value != "":
			cfg.hooksPaths = append(cfg.hooksPaths, e.Value)
		}
		if k := e.Section + "." + e.Key; cfg.unsafe == "" && !gitSafeKeys.Get()[k] {
			cfg.unsafe = k
		}
	}
	if err != nil && cfg.unsafe == "" {
		cfg.unsafe = err.Error()
	}
	return cfg
}

// gitConfigs caches parsed configuration files across calls (and across
// Policies: the key is the file's path, and an entry is used only while
// the file is provably unchanged). It holds at most maxGitConfigs files.
var gitConfigs = &fileCache[gitConfig]{
	max: maxGitConfigs, maxSize: maxCachedConfig, read: readGitConfig,
}

// maxGitConfigs bounds gitConfigs: a workspace has a few repositories.
// Files larger than maxCachedConfig are read on every call instead, so
// the cache holds at most maxGitConfigs × maxCachedConfig bytes of text.
const (
	maxGitConfigs   = 256
	maxCachedConfig = 64 << 10
)

// fileCache maps a file's path to what was parsed from it (by read) and
// the identity (fileID) it had when it was read. It holds at most max
// files, each at most maxSize bytes.
type fileCache[T any] struct {
	max     int
	maxSize int64
	read    func(string) T
	mu      sync.Mutex
	m       map[string]cached[T]
}

type cached[T any] struct {
	id fileID
	v  T
}

// settleTime is how old a file's modification time must be for its parse
// to be kept: a file written again within the file system's timestamp
// granularity, at the same size, would otherwise look unchanged (git's
// "racily clean" problem). A later write gives a settled file a new
// modification time; setting that back changes the change time, which is
// part of the identity too.
const settleTime = 3 * time.Second

// load returns the parsed file f: the cached parse if a stat shows the
// same device, inode, size, modification and change times as when it was
// read, otherwise a fresh read (of a missing file too: read says what
// that means). The stat comes before the read, so a change during the
// read makes the next stat differ.
func (fc *fileCache[T]) load(f string) T {
	fi, err := os.Stat(f)
	id, ok := fileID{}, false
	if err == nil {
		id, ok = idOf(fi)
	}
	if !ok {
		return fc.read(f)
	}
	fc.mu.Lock()
	e, hit := fc.m[f]
	fc.mu.Unlock()
	if hit && e.id == id {
		return e.v
	}
	v := fc.read(f)
	if id.size <= fc.maxSize && id.mtime < time.Now().Add(-settleTime).UnixNano() {
		fc.mu.Lock()
		if len(fc.m) >= fc.max || fc.m == nil {
			fc.m = make(map[string]cached[T])
		}
		fc.m[f] = cached[T]{id: id, v: v}
		fc.mu.Unlock()
	}
	return v
}
