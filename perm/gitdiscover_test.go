package perm

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
)

// TestDiscoverAsGit holds discoverRepos to git's own discovery: built in
// a repository (outer), each layout is started in, and the repositories
// the gate judges must be the ones it names, among them the one git uses
// (git rev-parse --absolute-git-dir) whenever git finds one. A layout git
// surely takes for a repository, or surely not, is one repository or
// none; one it may take either way is judged both ways.
func TestDiscoverAsGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outer := filepath.Join(base, "outer")
	if out, err := exec.Command(gitBin, "init", "-q", outer).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	const hex = "0123456789abcdef0123456789abcdef01234567"
	type layout struct {
		files map[string]string // path → contents; "/" ending: a directory; "->x": a link to x
		start string
		want  []string // the git directories judged, relative to the case's directory ("^" is outer/.git)
		// fatal: git stops with an error (an invalid .git file).
		fatal bool
	}
	bare := func(head string) map[string]string {
		return map[string]string{"r/HEAD": head, "r/objects/": "", "r/refs/": ""}
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		m = clone(m)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := map[string]layout{
		"ref":                        {files: bare("ref: refs/heads/main\n"), start: "r", want: []string{"r"}},
		"ref without a space":        {files: bare("ref:refs/x"), start: "r", want: []string{"r"}},
		"ref after tabs and newline": {files: bare("ref:\t\n refs/x"), start: "r", want: []string{"r"}},
		"object id":                  {files: bare(hex + "\n"), start: "r", want: []string{"r"}},
		"object id in capitals":      {files: bare(strings.ToUpper(hex)), start: "r", want: []string{"r"}},
		"longer object id":           {files: bare(hex + hex), start: "r", want: []string{"r"}},
		"link into refs":             {files: with(bare("->refs/heads/main")), start: "r", want: []string{"r"}},
		"from a subdirectory":        {files: with(bare("ref: refs/x"), "r/sub/", ""), start: "r/sub", want: []string{"r"}},
		// Partly a repository: judged, and git's walk goes on.
		"space before ref":      {files: bare(" ref: refs/x"), start: "r", want: []string{"r", "^"}},
		"ref outside refs/":     {files: bare("ref: heads/x"), start: "r", want: []string{"r", "^"}},
		"short object id":       {files: bare(hex[:39] + "g"), start: "r", want: []string{"r", "^"}},
		"junk":                  {files: bare("junk\n"), start: "r", want: []string{"r", "^"}},
		"link outside refs":     {files: bare("->heads/main"), start: "r", want: []string{"r", "^"}},
		"HEAD a directory":      {files: map[string]string{"r/HEAD/": "", "r/objects/": "", "r/refs/": ""}, start: "r", want: []string{"r", "^"}},
		"objects a file":        {files: map[string]string{"r/HEAD": "ref: refs/x", "r/objects": "", "r/refs/": ""}, start: "r", want: []string{"r", "^"}},
		"no refs":               {files: map[string]string{"r/HEAD": "ref: refs/x", "r/objects/": ""}, start: "r", want: []string{"r", "^"}},
		"the exploit's layout":  {files: map[string]string{"r/HEAD": "junk", "r/objects": "", "r/refs": ""}, start: "r", want: []string{"r", "^"}},
		"a HEAD file alone":     {files: map[string]string{"r/HEAD": "ref: refs/heads/main"}, start: "r", want: []string{"^"}},
		"objects and refs only": {files: map[string]string{"r/objects/": "", "r/refs/": ""}, start: "r", want: []string{"^"}},
		// .git directories and files.
		"empty .git directory":      {files: map[string]string{"w/.git/": ""}, start: "w", want: []string{"w/.git", "^"}},
		".git directory":            {files: map[string]string{"w/.git/HEAD": "ref: refs/x", "w/.git/objects/": "", "w/.git/refs/": ""}, start: "w", want: []string{"w/.git"}},
		".git file":                 {files: with(bare("ref: refs/x"), "w/.git", "gitdir: ../r\n"), start: "w", want: []string{"r"}},
		".git file, CRLF":           {files: with(bare("ref: refs/x"), "w/.git", "gitdir: ../r\r\n"), start: "w", want: []string{"r"}},
		".git file, absolute":       {files: with(bare("ref: refs/x"), "w/.git", "gitdir: $/r"), start: "w", want: []string{"r"}},
		".git file, trailing space": {files: with(bare("ref: refs/x"), "r /HEAD", "ref: refs/x", "r /objects/", "", "r /refs/", "", "w/.git", "gitdir: ../r \n"), start: "w", want: []string{"r "}},
		".git file without a space": {files: with(bare("ref: refs/x"), "w/.git", "gitdir:../r"), start: "w", fatal: true},
		".git file, junk":           {files: map[string]string{"w/.git": "junk"}, start: "w", fatal: true},
		".git file, no repository":  {files: map[string]string{"w/.git": "gitdir: ../nothere"}, start: "w", fatal: true},
		"worktree": {files: with(bare("ref: refs/x"), "g/HEAD", "ref: refs/x", "g/commondir", "../r\n", "w/.git", "gitdir: ../g\n"),
			start: "w", want: []string{"g"}},
		"worktree, commondir with a trailing space": {files: with(bare("ref: refs/x"), "g/HEAD", "ref: refs/x", "g/commondir", "../r \n", "w/.git", "gitdir: ../g\n"),
			start: "w", fatal: true},
		// A link is followed before git walks up.
		"start through a link": {files: with(bare("ref: refs/x"), "r/sub/", "", "l", "->r/sub"), start: "l", want: []string{"r"}},
	}
	if runtime.GOOS == "linux" {
		cases["objects a program"] = layout{files: map[string]string{"r/HEAD": "ref: refs/x", "r/objects": "#!", "r/refs/": ""}, start: "r", want: []string{"r"}}
	}
	for name, lc := range cases {
		t.Run(name, func(t *testing.T) {
			dir, err := os.MkdirTemp(outer, "case")
			if err != nil {
				t.Fatal(err)
			}
			files := make(map[string]string, len(lc.files))
			for p, body := range lc.files {
				files[p] = strings.ReplaceAll(body, "$", dir)
			}
			testtree.Write(t, dir, files)
			for p, body := range lc.files {
				if body == "#!" { // a program
					if err := os.Chmod(filepath.Join(dir, p), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			start := filepath.Join(dir, lc.start)
			cmd := exec.Command(gitBin, "-C", start, "rev-parse", "--absolute-git-dir")
			// The environment the Bash tool gives commands has none of
			// the variables that choose a repository (bash.CommandEnv).
			cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") })
			cmd.Env = append(cmd.Env, "GIT_CEILING_DIRECTORIES="+base)
			out, err := cmd.CombinedOutput()
			gitDir := strings.TrimSuffix(string(out), "\n")
			if (err != nil) != lc.fatal {
				t.Fatalf("git: %v %s (fatal %v)", err, out, lc.fatal)
			}
			c := &call{}
			repos, why := c.discoverRepos(start)
			if why != "" {
				t.Fatalf("discoverRepos: %s", why)
			}
			var got []string
			for _, r := range repos {
				rel, _ := filepath.Rel(dir, r.gitDir)
				if r.gitDir == filepath.Join(outer, ".git") {
					rel = "^"
				}
				got = append(got, rel)
			}
			if !slices.Equal(got, lc.want) {
				t.Errorf("repositories judged = %q, want %q (git uses %s)", got, lc.want, gitDir)
			}
			if err == nil && !slices.ContainsFunc(repos, func(r gitRepo) bool { return r.gitDir == gitDir }) {
				t.Errorf("git uses %s, which the gate does not judge (%q)", gitDir, got)
			}
		})
	}
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
