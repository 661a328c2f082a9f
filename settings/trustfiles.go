package settings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/textfile"
)

// TrustedProject is one entry of trustedProjects: a project root and, when
// the trust was recorded with them, the digests of the project's
// configuration files as they were when the user trusted it
// (ProjectFiles). The trust holds only while the files are unchanged.
// Files is nil for an entry written as a plain path: in managed settings
// that trusts the path whatever its files say (the organisation's
// decision); in the user settings it was recorded by a gen that did not
// record files, and trusts nothing until the user trusts the project again.
type TrustedProject struct {
	Path  string
	Files map[string]string
}

// Absent is the digest of a configuration file that does not exist, or of
// a configuration directory that holds no file.
const Absent = "absent"

// digestPrefix starts every digest of content.
const digestPrefix = "sha256:"

// TrustCovers names what a project's trust lets apply, for the warnings
// and help that explain trust.
const TrustCovers = "its hooks, MCP servers, commands' ! commands, sandbox opt-outs, allow rules, widening mode, additional directories and choice of agent"

// maxTrustFiles bounds the files ProjectFiles records: a configuration
// directory with more is an error, so trust cannot be recorded, rather
// than a walk without end at every start.
const maxTrustFiles = 4096

// trustFiles are the project files a trust covers, relative to the root:
// the project settings and .mcp.json. trustDirs are the directories whose
// every file it covers: the project agents (agent.Discover), skills
// (skill.Locations) and commands, whose ! commands run only in a trusted
// project (skill.Commands.CanShell): a command a `git pull` adds needs
// the project trusted again. A trust recorded before commands were
// covered still holds where the project has none (ChangedFiles).
var (
	trustFiles = []string{
		".gen/settings.json", ".gen/settings.local.json",
		".claude/settings.json", ".claude/settings.local.json",
		".mcp.json",
	}
	trustDirs = []string{".gen/agents", ".claude/agents", ".gen/skills", ".claude/skills", ".gen/commands", ".claude/commands"}
)

// userOwned reports whether the project file or directory rel is the
// user's own when the project root is the home directory: the shared
// settings, agents and skills there are the user scope's (settings,
// agent.Discover and skill.Locations read them once, as the user's), and
// gen writes the user settings itself, so they cannot be part of a trust.
func userOwned(rel string) bool {
	return rel != ".mcp.json" && !strings.HasSuffix(rel, ".local.json")
}

// ProjectFiles returns the digests of the configuration files of the
// project at root that its trust covers, by path relative to root (with
// slashes): each of the project settings files and .mcp.json, "sha256:"
// and the hex digest of its content or Absent; and every file under the
// project's agent and skill directories, or the directory itself as
// Absent when it holds no file; and every file inside root the project's
// hooks and MCP servers name (codeDigests). A link is followed; a link that leads
// nowhere, or to a directory, is recorded by its target. When root is
// home, the files that are the user's (userOwned) are left out. A file that
// cannot be read is an error: what is not known cannot be trusted.
//
// Hooks and stdio MCP servers run in the working directory, which may be
// any directory of the project: the files they name are read from root
// and from each of dirs (the working directory of the run that checks or
// records the trust), so that `sh scripts/check.sh` run from sub/ is
// sub/scripts/check.sh, and a trust recorded for scripts/check.sh does
// not cover it.
func ProjectFiles(root, home string, dirs ...string) (map[string]string, error) {
	isHome := sameDir(root, home)
	files := make(map[string]string)
	for _, rel := range trustFiles {
		if isHome && userOwned(rel) {
			continue
		}
		d, err := fileDigest(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		files[rel] = d
	}
	for _, rel := range trustDirs {
		if isHome && userOwned(rel) {
			continue
		}
		if err := dirDigests(root, rel, files); err != nil {
			return nil, err
		}
	}
	if err := codeDigests(root, home, isHome, files, dirs); err != nil {
		return nil, err
	}
	return files, nil
}

// trustPaths returns the absolute paths of the files ProjectFiles gave
// (relative to root), of those of a trust entry Changed compared
// (recorded; nil for none), and of the directories whose files it
// records: a file made there changes the directory.
func trustPaths(root string, files, recorded map[string]string) []string {
	out := make([]string, 0, len(files)+len(recorded)+len(trustDirs))
	for rel := range files {
		out = append(out, filepath.Join(root, filepath.FromSlash(rel)))
	}
	for rel := range recorded {
		if validTrustPath(rel) {
			out = append(out, filepath.Join(root, filepath.FromSlash(rel)))
		}
	}
	for _, rel := range trustDirs {
		out = append(out, filepath.Join(root, filepath.FromSlash(rel)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// codeDigests adds to files the digest of every file inside root that
// the project's hooks or MCP servers name (hook.Config.Files,
// serverFiles), read from root and from each of dirs as the working
// directory, by its path relative to root: a hook script or server a
// `git pull` changed runs new code outside the gate, so the project needs
// trusting again. A file that cannot be parsed adds nothing here (loading
// it fails).
func codeDigests(root, home string, isHome bool, files map[string]string, dirs []string) error {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	cwds := []string{real}
	for _, d := range dirs {
		// As the root: the files are compared with links resolved.
		if r, err := filepath.Abs(d); err == nil {
			d = r
		}
		r, err := filepath.EvalSymlinks(d)
		if rel, rerr := filepath.Rel(real, r); err != nil || rerr != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue // not a directory of the project: its runs have another root
		}
		if !slices.Contains(cwds, r) {
			cwds = append(cwds, r)
		}
	}
	var code []string
	for _, rel := range trustFiles {
		if isHome && userOwned(rel) {
			continue
		}
		// Read as the loaders read it: fileDigest records a link to
		// /dev/zero or a FIFO by its type, and reading one here would
		// exhaust the memory or hang the start of every run.
		data, err := textfile.Read(filepath.Join(root, filepath.FromSlash(rel)), textfile.Max)
		if err != nil {
			continue // fileDigest reported what matters
		}
		for _, cwd := range cwds {
			code = append(code, hook.Follow(serverFiles(nil, data, cwd, home), cwd, real, home)...) // as MCPFiles does
		}
		var top struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		if rel == ".mcp.json" || json.Unmarshal(data, &top) != nil || top.Hooks == nil {
			continue
		}
		if cfg, err := hook.Parse(rel, top.Hooks); err == nil {
			for _, cwd := range cwds {
				code = append(code, cfg.Files(cwd, real, home)...)
			}
		}
	}
	code = append(code, agentHookFiles(root, real, home, files, cwds)...)
	for _, f := range code {
		r, err := filepath.Rel(real, f)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			continue // outside the project: not the repository's code
		}
		if files[filepath.ToSlash(r)], err = fileDigest(f); err != nil {
			return err
		}
	}
	return nil
}

// agentHookFiles returns the files the hooks of the project's agents name
// (agent.Definition.Hooks, which run while the agent runs; hook.Config.Files
// with each of cwds as the working directory and real, the project root,
// as the project directory): the agent files among files (dirDigests
// recorded them), read again. A file that does not parse adds nothing
// here (loading it fails).
func agentHookFiles(root, real, home string, files map[string]string, cwds []string) []string {
	var out []string
	for rel := range files {
		if !strings.HasSuffix(rel, ".md") || !strings.HasPrefix(rel, ".gen/agents/") && !strings.HasPrefix(rel, ".claude/agents/") {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		data, err := textfile.Read(p, textfile.Max)
		if err != nil || !bytes.Contains(data, []byte("hooks:")) {
			continue
		}
		if d, err := agent.Parse(p, data); err == nil && !d.Hooks.Empty() {
			for _, cwd := range cwds {
				out = append(out, d.Hooks.Files(cwd, real, home)...)
			}
		}
	}
	return out
}

// sameDir reports whether a and b are one directory.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// dirDigests adds to files the digest of every file under root/rel, by
// its path relative to root, or rel as Absent when there is none. A
// subdirectory reached through a link is not entered (the loaders do not
// enter it either); the link is recorded by its target.
func dirDigests(root, rel string, files map[string]string) error {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		files[rel] = Absent
		return nil
	case err != nil:
		return fmt.Errorf("settings: %w", err)
	case !fi.IsDir():
		d, err := fileDigest(abs)
		files[rel] = d
		return err
	}
	n := 0
	err = fs.WalkDir(os.DirFS(abs), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		if n++; n > maxTrustFiles {
			return fmt.Errorf("more than %d files: too many to record for trust", maxTrustFiles)
		}
		d, err := fileDigest(filepath.Join(abs, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		files[path.Join(rel, p)] = d
		return nil
	})
	if err != nil {
		return fmt.Errorf("settings: %s: %w", abs, err)
	}
	if n == 0 {
		files[rel] = Absent
	}
	return nil
}

// fileDigest is the digest of the file at p: "sha256:" and the hex SHA-256
// of its content, Absent when there is nothing at p. A link that leads
// nowhere or to a directory is a digest of its target's name; another
// file that is not a regular file (a FIFO, a device) is a digest of its
// type, and is never opened for reading, so it cannot block.
func fileDigest(p string) (string, error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if target, lerr := os.Readlink(p); lerr == nil {
			return digest([]byte("link to " + target)), nil
		}
		return Absent, nil
	}
	if err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	if fi.IsDir() {
		target, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("settings: %s is a directory", p)
		}
		return digest([]byte("link to " + target)), nil
	}
	if !fi.Mode().IsRegular() {
		return digest([]byte("special file " + fi.Mode().Type().String())), nil
	}
	// Opened without blocking and checked once open (textfile.Open), so
	// that a file replaced by a FIFO since the Stat cannot hang it.
	f, err := textfile.Open(p)
	if err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	return digestPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// digest is the digest of content data.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return digestPrefix + hex.EncodeToString(sum[:])
}

// contentDigest is the digest fileDigest gives a regular file with data,
// or Absent for nil (a file that does not exist).
func contentDigest(data []byte) string {
	if data == nil {
		return Absent
	}
	return digest(data)
}

// validDigest reports whether d is a digest ProjectFiles can give.
func validDigest(d string) bool {
	if d == Absent {
		return true
	}
	hexPart, ok := strings.CutPrefix(d, digestPrefix)
	if !ok || len(hexPart) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

// validTrustPath reports whether rel can be a key of ProjectFiles: a clean
// relative path with slashes that stays inside the root.
func validTrustPath(rel string) bool {
	return rel != "" && !path.IsAbs(rel) && path.Clean(rel) == rel && rel != "." && rel != ".." &&
		!strings.HasPrefix(rel, "../") && !strings.Contains(rel, `\`)
}

// ChangedFiles returns the paths whose digest in now differs from the one
// in trusted, sorted: changed, created or removed files. A path missing on
// one side and Absent on the other is unchanged: a directory recorded as
// Absent that now holds files is reported by its files, and a file a
// later gen covers that does not exist was not changed.
func ChangedFiles(trusted, now map[string]string) []string {
	var changed []string
	for rel, d := range now {
		was, ok := trusted[rel]
		if ok && was != d || !ok && d != Absent {
			changed = append(changed, rel)
		}
	}
	for rel, was := range trusted {
		if _, ok := now[rel]; !ok && was != Absent {
			changed = append(changed, rel)
		}
	}
	slices.Sort(changed)
	return changed
}

// Changed is ChangedFiles of the project at root: trusted recorded, now
// its files as they are (ProjectFiles). A file trusted records that now
// does not list, with content (a script a hook names from another
// working directory than this run's, when the trust was recorded there),
// is compared as it is now: unchanged, it runs nothing new here; gone,
// changed or unreadable, it is a change, as it would be in now.
func Changed(root string, trusted, now map[string]string) []string {
	var filled map[string]string
	for rel, was := range trusted {
		if _, ok := now[rel]; ok || was == Absent || !validTrustPath(rel) {
			continue
		}
		if filled == nil {
			filled = maps.Clone(now)
		}
		d, err := fileDigest(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			d = "unreadable"
		}
		filled[rel] = d
	}
	if filled == nil {
		filled = now
	}
	return ChangedFiles(trusted, filled)
}

// sameRoot reports whether the recorded trust path t names root, whose
// links resolve to real, comparing with links resolved on both sides.
func sameRoot(t, root, real string) bool {
	if t == root || t == real {
		return true
	}
	r, err := filepath.EvalSymlinks(t)
	return err == nil && r == real
}

// realPath is p with its links resolved, or p when they cannot be.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
