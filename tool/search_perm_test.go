package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// TestSearchHidesDenied runs Glob and Grep under a real policy
// (walkFilter, as Toolbox wires it): no pattern, search path or link
// shows a Read-denied file's name or content.
func TestSearchHidesDenied(t *testing.T) {
	env, dir := testEnv(t)
	files(t, dir, map[string]string{
		"secrets/k": "KEYX\n", "secrets/d/k2": "KEYX\n", ".env": "KEYX\n",
		"trail/f": "KEYX\n", "src/a": "plain\n",
	})
	for link, dest := range map[string]string{"lsec": "secrets", "src/lk": "../secrets/k", "src/ld": "../secrets"} {
		if err := os.Symlink(dest, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	// The workspace as the user reached it: through a link to dir.
	plink := filepath.Join(t.TempDir(), "plink")
	if err := os.Symlink(dir, plink); err != nil {
		t.Fatal(err)
	}
	env.Workspace = perm.Workspace{Cwd: plink, Root: plink, Home: t.TempDir()}
	var deny []perm.Entry
	for _, s := range []string{"Read(./secrets/**)", "Read(./.env)", "Read(./trail/)"} {
		r, err := perm.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		deny = append(deny, perm.Entry{Rule: r, Source: perm.SourceProject})
	}
	p := perm.Policy{Mode: perm.ModeDefault, Deny: deny, Workspace: env.Workspace}
	env.CanRead = walkFilter(func() perm.Policy { return p })

	for _, in := range []map[string]any{
		{"pattern": "**"}, {"pattern": "**/k"}, {"pattern": "**/k2"}, {"pattern": "ls[e]c/*"},
		{"pattern": "*/../secrets/k"}, {"pattern": "*/../lsec/k"}, {"pattern": "src/*"},
		{"pattern": "src/l[d]/**"}, {"pattern": "{secrets,x}/**"}, {"pattern": "t[r]ail/*"},
		{"pattern": "**", "path": dir}, {"pattern": dir + "/**"},
	} {
		out, err := call(t, env, "Glob", in)
		if err != nil {
			t.Fatalf("Glob %v: %v", in, err)
		}
		for _, leak := range []string{"k", "k2", ".env", "f", "lk"} {
			for _, line := range strings.Split(out, "\n") {
				if filepath.Base(line) == leak {
					t.Errorf("Glob %v lists %s:\n%s", in, line, out)
				}
			}
		}
	}
	for _, in := range []map[string]any{
		{"pattern": "KEYX"}, {"pattern": "KEYX", "path": "src"}, {"pattern": "KEYX", "path": dir},
	} {
		out, err := call(t, env, "Grep", in)
		if err != nil {
			t.Fatalf("Grep %v: %v", in, err)
		}
		if strings.Contains(out, "KEYX") {
			t.Errorf("Grep %v shows denied content:\n%s", in, out)
		}
	}
	// The plain file is still found: the filter is not hiding everything.
	if out, _ := call(t, env, "Glob", map[string]any{"pattern": "**", "path": dir}); !strings.Contains(out, "src/a") {
		t.Errorf("Glob ** does not list src/a:\n%s", out)
	}
}

// TestGrepIgnoreHonoursDenied: the .gitignore Grep honours is a file it
// reads, and one it may not read (a link to a Read-denied file, which a
// cloned repository can ship) is not used: its lines were ignore rules,
// so which files Grep skipped told what the denied file holds.
func TestGrepIgnoreHonoursDenied(t *testing.T) {
	env, dir := testEnv(t)
	files(t, dir, map[string]string{".env": "hit.txt\n", "hit.txt": "needle\n", "secrets/.gitignore": "deep.txt\n"})
	if err := os.Symlink(".env", filepath.Join(dir, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	var deny []perm.Entry
	for _, s := range []string{"Read(./.env)", "Read(./secrets/.gitignore)"} {
		r, err := perm.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		deny = append(deny, perm.Entry{Rule: r, Source: perm.SourceProject})
	}
	p := perm.Policy{Mode: perm.ModeDefault, Deny: deny, Workspace: env.Workspace}
	env.CanRead = walkFilter(func() perm.Policy { return p })
	out, err := call(t, env, "Grep", map[string]any{"pattern": "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "hit.txt") {
		t.Errorf("Grep skipped hit.txt, which only the Read-denied .env (through .gitignore, a link to it) names:\n%s", out)
	}
	files(t, dir, map[string]string{"secrets/deep.txt": "needle\n"})
	out, err = call(t, env, "Grep", map[string]any{"pattern": "needle", "path": "secrets"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "deep.txt") {
		t.Errorf("Grep skipped secrets/deep.txt, which only the Read-denied secrets/.gitignore names:\n%s", out)
	}
}
