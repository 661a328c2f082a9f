package tool

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// TestGrepSwapAfterCheck: a file Grep's filter let through is replaced
// by a symbolic link to a denied file between the check and the open
// (a background command racing the walk). Grep must not show the denied
// file's content.
func TestGrepSwapAfterCheck(t *testing.T) {
	for _, start := range []string{"", "notes", "d"} {
		env, dir := testEnv(t)
		files(t, dir, map[string]string{".env": "KEYX\n", "notes": "plain\n", "d/notes": "plain\n", "secret/notes": "KEYX\n"})
		denied := func(p string) bool {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return true
			}
			return real == filepath.Join(dir, ".env") || strings.HasPrefix(real, filepath.Join(dir, "secret"))
		}
		// The walk checks a file twice (as it lists it and as it opens
		// it); the swap follows the last check.
		last := map[string]int{"": 2, "notes": 1, "d": 2}[start]
		calls := map[string]int{}
		env.CanRead = func(tool, p string) bool {
			if denied(p) {
				return false
			}
			if calls[p]++; calls[p] != last {
				return true
			}
			// The swap, right after the check allowed p.
			switch p {
			case filepath.Join(dir, "notes"):
				os.Remove(p)
				if err := os.Symlink(".env", p); err != nil {
					t.Fatal(err)
				}
			case filepath.Join(dir, "d", "notes"):
				os.RemoveAll(filepath.Join(dir, "d"))
				if err := os.Symlink("secret", filepath.Join(dir, "d")); err != nil {
					t.Fatal(err)
				}
			}
			return true
		}
		out, err := call(t, env, "Grep", map[string]any{"pattern": "KEYX", "path": start})
		if strings.Contains(out, "KEYX") {
			t.Errorf("Grep path %q shows a denied file swapped in after the check:\n%s", start, out)
		}
		_ = err
	}
}

// TestReadForeignMountNamespace: /proc/PID/root of a process in another
// mount namespace leads into that namespace's tree, though its link
// reads "/". There a bind mount can put any file at a path that looks
// inside the workspace: the gate must not judge the path as the host's.
func TestReadForeignMountNamespace(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	env, dir := testEnv(t)
	files(t, dir, map[string]string{"secrets/k": "KEYX\n", "pub/k": "plain\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-Urm", "--propagation", "private", "sh", "-c",
		`mount --bind "$1/secrets" "$1/pub" && echo ready && exec sleep 600`, "sh", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("unshare:", err)
	}
	defer cmd.Wait()
	defer cancel()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Skip("no private mount namespace here")
	}
	p := fmt.Sprintf("/proc/%d/root%s/pub/k", cmd.Process.Pid, dir)
	r, err := perm.ParseRule("Read(./secrets/**)")
	if err != nil {
		t.Fatal(err)
	}
	pol := perm.Policy{Mode: perm.ModeBypass, Workspace: env.Workspace, Deny: []perm.Entry{{Rule: r, Source: perm.SourceProject}}}
	res := perm.Evaluate(perm.Request{Tool: "Read", Input: map[string]any{"file_path": p}}, &pol)
	// Grep's walk filter judges each file it finds there the same way.
	env.CanRead = walkFilter(func() perm.Policy { return pol })
	if out, _ := call(t, env, "Grep", map[string]any{"pattern": "KEYX", "path": fmt.Sprintf("/proc/%d/root%s", cmd.Process.Pid, dir)}); strings.Contains(out, "KEYX") {
		t.Errorf("Grep through the other namespace shows a Read-denied file:\n%s", out)
	}
	// A command reading it is asked too.
	if b := perm.Evaluate(perm.Request{Tool: "Bash", Input: map[string]any{"command": "cat " + p}}, &pol); b.Decision != perm.Ask || b.Step != 2 {
		t.Errorf("cat %s: %v step %d (%s), want Ask step 2", p, b.Decision, b.Step, b.Reason)
	}
	if res.Decision != perm.Allow {
		if res.Decision != perm.Ask || res.Step != 2 {
			t.Errorf("Read %s: %v step %d, want Ask step 2", p, res.Decision, res.Step)
		}
		return
	}
	text, err := readTool{env}.Run(context.Background(), Call{Input: map[string]any{"file_path": p}, Decision: Decision{Result: res}})
	if strings.Contains(text, "KEYX") {
		t.Errorf("Read %s was allowed (step %d: %s, path %s) and showed a Read-denied file:\n%s", p, res.Step, res.Reason, res.Path, text)
	} else {
		t.Errorf("Read %s was allowed (step %d: %s, path %s): the gate judged another namespace's file as the host's (read: %q, %v)", p, res.Step, res.Reason, res.Path, text, err)
	}
}

// TestWriteBeyondPathMax: a path longer than PATH_MAX names nothing to
// open(2), so the gate stops following links there; the tools open
// through an os.Root, component by component, where it still works. A
// link past that length into a .git directory (a repository nested deep
// in the workspace) must not let acceptEdits write a hook, though the
// descriptor check cannot read so long a path back.
func TestWriteBeyondPathMax(t *testing.T) {
	env, dir := testEnv(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	long := strings.Repeat("d", 250)
	var parts []string
	for range 18 {
		parts = append(parts, long)
	}
	deep := filepath.Join(parts...)
	if err := root.MkdirAll(filepath.Join(deep, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := root.Symlink(".git", filepath.Join(deep, "gl")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, deep, "gl", "hooks", "pre-commit")
	pol := perm.Policy{Mode: perm.ModeAcceptEdits, Workspace: env.Workspace}
	in := map[string]any{"file_path": p, "content": "#!/bin/sh\necho pwned\n"}
	res := perm.Evaluate(perm.Request{Tool: "Write", Input: in}, &pol)
	if res.Decision != perm.Ask || res.Step != 2 {
		t.Errorf("Write %s…/gl/hooks/pre-commit: %v step %d (%s), want Ask step 2: the gate cannot follow the link", dir, res.Decision, res.Step, res.Reason)
	}
	// The tool, given an Allow, still refuses.
	res = perm.Result{Decision: perm.Allow, Path: p}
	_, err = writeTool{env}.Run(context.Background(), Call{Input: in, Decision: Decision{Result: res}})
	if _, serr := root.Stat(filepath.Join(deep, ".git", "hooks", "pre-commit")); serr == nil {
		t.Errorf("Write %s…/gl/hooks/pre-commit was allowed (step %d: %s) and wrote the nested repository's hook (err %v)", dir, res.Step, res.Reason, err)
	}
}

// TestBashWriteBeyondPathMax: bash reaches a directory deeper than
// PATH_MAX by one cd after another, and writes there relative to it; the
// gate, which follows no links past PATH_MAX, judged DEEP/gl/hooks/x
// (gl -> .git) as a plain file.
func TestBashWriteBeyondPathMax(t *testing.T) {
	env, dir := testEnv(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var parts []string
	for range 18 {
		parts = append(parts, strings.Repeat("d", 250))
	}
	deep := filepath.Join(parts...)
	if err := root.MkdirAll(filepath.Join(deep, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := root.Symlink(".git", filepath.Join(deep, "gl")); err != nil {
		t.Fatal(err)
	}
	pol := perm.Policy{Mode: perm.ModeAcceptEdits, Workspace: env.Workspace}
	cmd := "cd " + filepath.Join(parts[:9]...) + " && cd " + filepath.Join(parts[9:]...) + " && echo x > gl/hooks/pre-commit"
	if res := perm.Evaluate(perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}, &pol); res.Decision != perm.Ask || res.Step != 2 {
		t.Errorf("cd …/d && cd …/d && echo x > gl/hooks/pre-commit: %v step %d (%s), want Ask step 2", res.Decision, res.Step, res.Reason)
	}
}
