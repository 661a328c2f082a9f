package perm

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// gitSafeKeys are repository configuration keys (section.key, lower case,
// with any subsection left out) that cannot make git run a program or read
// files elsewhere. A repository whose configuration sets any other key
// (core.pager, diff.*.textconv, filter.*, include.path, alias.*, ...) makes
// no git command read-only: only the keys git writes itself on init and
// clone, and common settings that only select behaviour, are listed.
var gitSafeKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true, "core.logallrefupdates": true,
	"core.ignorecase": true, "core.precomposeunicode": true, "core.symlinks": true, "core.autocrlf": true,
	"core.eol": true, "core.safecrlf": true, "core.quotepath": true, "core.abbrev": true, "core.compression": true,
	"core.commentchar": true, "core.checkstat": true, "core.trustctime": true, "core.untrackedcache": true,
	"core.preloadindex": true, "core.multipackindex": true, "core.commitgraph": true, "core.sparsecheckout": true,
	"core.sparsecheckoutcone": true, "core.splitindex": true,
	"remote.url": true, "remote.fetch": true, "remote.pushurl": true, "remote.push": true, "remote.tagopt": true,
	"remote.prune": true, "remote.mirror": true, "remote.promisor": true, "remote.partialclonefilter": true,
	"branch.remote": true, "branch.merge": true, "branch.rebase": true, "branch.pushremote": true,
	"branch.description": true, "user.name": true, "user.email": true, "pull.rebase": true, "pull.ff": true,
	"push.default": true, "push.autosetupremote": true, "fetch.prune": true, "init.defaultbranch": true,
	"merge.conflictstyle": true, "diff.renames": true, "diff.algorithm": true, "diff.colormoved": true,
	"diff.mnemonicprefix": true, "diff.noprefix": true, "color.ui": true, "column.ui": true, "log.date": true,
	"log.decorate": true, "status.showuntrackedfiles": true, "status.short": true, "status.branch": true,
	"submodule.url": true, "submodule.active": true, "lfs.repositoryformatversion": true,
	"extensions.objectformat": true, "extensions.worktreeconfig": true, "extensions.partialclone": true,
	"gc.auto": true, "rerere.enabled": true, "i18n.commitencoding": true, "protocol.version": true,
}

// gitRepoCode returns why the repository git would use, started in dir (or
// given by gitDir), could make a read-only git command run a program or
// read elsewhere: "KEY in FILE", or "" if its configuration sets only
// verified keys or there is no repository.
func gitRepoCode(dir, gitDir string) string {
	if gitDir == "" {
		gitDir = discoverGitDir(dir)
	} else if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	if gitDir == "" {
		return ""
	}
	files := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		files = append(files, filepath.Join(common, "config"))
	}
	for _, f := range files {
		if k := unsafeGitKey(f); k != "" {
			return k + " in " + f
		}
	}
	return ""
}

// gitAliases returns the aliases the configuration of the repository git
// would use (started in dir, or given by gitDir) defines: name → value.
func gitAliases(dir, gitDir string) map[string]string {
	if gitDir == "" {
		gitDir = discoverGitDir(dir)
	} else if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	if gitDir == "" {
		return nil
	}
	out := map[string]string{}
	for _, f := range []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		section := ""
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "[") {
				name, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
				section = strings.ToLower(name)
				continue
			}
			if k, v, ok := strings.Cut(line, "="); ok && section == "alias" {
				out[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	return out
}

// repoAliasForms returns the deny forms of a git command with the aliases
// of its repository expanded, for every directory it may start in, and
// the shell code of a "!" alias it runs ("" if none).
func (c *call) repoAliasForms(pt *part) (forms []string, shell string) {
	dirs, gitDir, isGit := pt.cmd.GitStart()
	if !isGit {
		return nil, ""
	}
	for _, b := range c.bases {
		start := b
		for _, d := range dirs {
			start = joinDir(c, start, d)
		}
		aliases := gitAliases(start, joinDir(c, start, gitDir))
		if len(aliases) == 0 {
			continue
		}
		for _, w := range pt.cmd.Words[1:] {
			if v, ok := aliases[w.Value]; ok && strings.HasPrefix(v, "!") {
				shell = w.Value + " = " + v
			}
		}
		forms = append(forms, pt.cmd.WithGitAliases(aliases)...)
	}
	return forms, shell
}

// discoverGitDir finds the repository git uses when started in dir, as
// git does: a .git directory or "gitdir:" file in dir or an ancestor, or
// an ancestor that is itself a (bare) repository.
func discoverGitDir(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return dotgit
			}
			if b, err := os.ReadFile(dotgit); err == nil {
				if p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					p = strings.TrimSpace(p)
					if !filepath.IsAbs(p) {
						p = filepath.Join(d, p)
					}
					return p
				}
			}
		}
		if isGitDir(d) {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// isGitDir reports a directory git takes for a repository: HEAD, objects/
// and refs/ in it.
func isGitDir(d string) bool {
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, p)); err != nil {
			return false
		}
	}
	return true
}

// unsafeGitKey returns the first key in the git config file f that is not
// in gitSafeKeys (or a line it cannot read), or "". A missing file is
// fine; an unreadable one is not.
func unsafeGitKey(f string) string {
	fh, err := os.Open(f)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		return "unreadable config"
	}
	defer fh.Close()
	section := ""
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "malformed section " + line
			}
			name, _, _ := strings.Cut(line[1:end], " ")
			name, _, _ = strings.Cut(name, ".") // [section.sub] is the old subsection form
			section = strings.ToLower(name)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !gitSafeKeys[section+"."+key] {
			return section + "." + key
		}
	}
	if sc.Err() != nil {
		return "unreadable config"
	}
	return ""
}
