package memory

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/perm"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree makes a project (with .git) and a home directory; cwd is a
// subdirectory of the project.
func tree(t *testing.T) perm.Workspace {
	t.Helper()
	tmp := t.TempDir()
	ws := perm.Workspace{Root: filepath.Join(tmp, "proj"), Home: filepath.Join(tmp, "home")}
	ws.Cwd = filepath.Join(ws.Root, "src")
	for _, d := range []string{filepath.Join(ws.Root, ".git"), ws.Cwd, ws.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// readAll is policy.Memory without settings rules: every Read allowed,
// plus deny rules given as text.
func readAll(ws perm.Workspace, deny ...string) *perm.Policy {
	p := &perm.Policy{Mode: perm.ModeDefault, Workspace: ws, NoPrompt: true,
		Allow: []perm.Entry{{Rule: perm.Rule{Tool: "Read", Pattern: "//**", HasPattern: true}, Source: perm.SourceBuiltin}}}
	for _, d := range deny {
		r, err := perm.ParseRule(d)
		if err != nil {
			panic(err)
		}
		p.Deny = append(p.Deny, perm.Entry{Rule: r, Source: perm.SourceUser})
	}
	return p
}

var day = time.Date(2026, 3, 14, 23, 30, 0, 0, time.UTC)

func TestSystemPrompt(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // relative to the temp dir: proj/..., home/...
		want  []string          // in this order
		not   []string
	}{
		{
			name: "environment only",
			want: []string{"# Environment\nWorking directory: {cwd}\nProject root: {root}\nGit repository: yes\nPlatform: " + runtime.GOOS + "\nToday's date: 2026-03-14"},
			not:  []string{"memory"},
		},
		{
			name:  "AGENTS.md wins over CLAUDE.md",
			files: map[string]string{"proj/AGENTS.md": "Use tabs.\n", "proj/CLAUDE.md": "Use spaces.\n"},
			want:  []string{"# Project memory ({root}/AGENTS.md)\nUse tabs."},
			not:   []string{"Use spaces."},
		},
		{
			name:  "CLAUDE.md when there is no AGENTS.md",
			files: map[string]string{"proj/CLAUDE.md": "Run make test.\n"},
			want:  []string{"# Project memory ({root}/CLAUDE.md)\nRun make test."},
		},
		{
			name:  ".claude/CLAUDE.md last",
			files: map[string]string{"proj/.claude/CLAUDE.md": "Hidden memory.\n"},
			want:  []string{"# Project memory ({root}/.claude/CLAUDE.md)\nHidden memory."},
		},
		{
			name:  "user memory before project memory; ~/.gen/AGENTS.md wins over ~/.claude/CLAUDE.md",
			files: map[string]string{"home/.gen/AGENTS.md": "I like short answers.", "home/.claude/CLAUDE.md": "old", "proj/AGENTS.md": "Project rule."},
			want:  []string{"# User memory ({home}/.gen/AGENTS.md)\nI like short answers.", "# Project memory ({root}/AGENTS.md)\nProject rule."},
			not:   []string{"old"},
		},
		{
			name:  "a memory file in cwd is not the project's",
			files: map[string]string{"proj/src/AGENTS.md": "not me"},
			not:   []string{"not me"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := tree(t)
			base := filepath.Dir(ws.Root)
			for p, c := range tt.files {
				write(t, filepath.Join(base, p), c)
			}
			got, _, err := SystemPrompt(readAll(ws), day)
			if err != nil {
				t.Fatal(err)
			}
			r := strings.NewReplacer("{cwd}", ws.Cwd, "{root}", ws.Root, "{home}", ws.Home)
			at := 0
			for _, w := range tt.want {
				w = r.Replace(w)
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("prompt lacks (in order) %q:\n%s", w, got)
				}
				at += i + len(w)
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("prompt has %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestSystemPromptNoGit(t *testing.T) {
	dir := t.TempDir()
	got, _, err := SystemPrompt(readAll(perm.Workspace{Cwd: dir, Root: dir, Home: filepath.Join(dir, "nohome")}), day)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Git repository: no\n") || strings.Contains(got, "Project root:") {
		t.Errorf("prompt:\n%s", got)
	}
}

func TestSystemPromptErrors(t *testing.T) {
	t.Run("too large", func(t *testing.T) {
		ws := tree(t)
		p := filepath.Join(ws.Root, "AGENTS.md")
		write(t, p, strings.Repeat("x", MaxFile+1))
		_, _, err := SystemPrompt(readAll(ws), day)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "limit") {
			t.Fatalf("error = %v, want one naming %s and the limit", err, p)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		ws := tree(t)
		p := filepath.Join(ws.Root, "CLAUDE.md")
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		_, _, err := SystemPrompt(readAll(ws), day)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("error = %v, want one naming %s", err, p)
		}
	})
	t.Run("a link out of the project", func(t *testing.T) {
		ws := tree(t)
		secret := filepath.Join(ws.Home, ".ssh", "id_rsa")
		write(t, secret, "PRIVATE KEY")
		p := filepath.Join(ws.Root, "AGENTS.md")
		if err := os.Symlink(secret, p); err != nil {
			t.Fatal(err)
		}
		got, _, err := SystemPrompt(readAll(ws), day)
		if err == nil || !strings.Contains(err.Error(), p+" is a link to") || strings.Contains(got, "PRIVATE") {
			t.Fatalf("error = %v, prompt %q; want the link refused", err, got)
		}
	})
	t.Run("a dangling link", func(t *testing.T) {
		ws := tree(t)
		p := filepath.Join(ws.Root, "AGENTS.md")
		if err := os.Symlink(filepath.Join(ws.Root, "gone.md"), p); err != nil {
			t.Fatal(err)
		}
		if _, _, err := SystemPrompt(readAll(ws), day); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("error = %v, want one naming %s", err, p)
		}
	})
	t.Run("a link to a file a deny rule keeps from Read", func(t *testing.T) {
		// A repository ships AGENTS.md -> .env; the user keeps .env from
		// the model with Read(./.env).
		ws := tree(t)
		write(t, filepath.Join(ws.Root, ".env"), "API_KEY=hunter2")
		p := filepath.Join(ws.Root, "AGENTS.md")
		if err := os.Symlink(".env", p); err != nil {
			t.Fatal(err)
		}
		got, _, err := SystemPrompt(readAll(ws, "Read(/"+filepath.Join(ws.Root, ".env")+")"), day)
		if err == nil || !strings.Contains(err.Error(), p+" is not read into the prompt") || !strings.Contains(err.Error(), "deny rule") || strings.Contains(got, "hunter2") {
			t.Fatalf("error = %v, prompt %q; want the file refused, naming the rule", err, got)
		}
		// The same file with no rule against it is read.
		if got, _, err := SystemPrompt(readAll(ws), day); err != nil || !strings.Contains(got, "hunter2") {
			t.Fatalf("without a deny rule: prompt %q, error %v", got, err)
		}
	})
	t.Run("a memory file itself denied", func(t *testing.T) {
		ws := tree(t)
		write(t, filepath.Join(ws.Home, ".gen", "AGENTS.md"), "private notes")
		got, _, err := SystemPrompt(readAll(ws, "Read(~/.gen/**)"), day)
		if err == nil || strings.Contains(got, "private notes") {
			t.Fatalf("error = %v, prompt %q; want the user memory refused", err, got)
		}
	})
	t.Run("an ask rule keeps out a linked file, not the memory file itself", func(t *testing.T) {
		ws := tree(t)
		write(t, filepath.Join(ws.Root, "AGENTS.md"), "Project rules.")
		pol := readAll(ws)
		ask, _ := perm.ParseRule("Read")
		pol.Ask = append(pol.Ask, perm.Entry{Rule: ask, Source: perm.SourceUser})
		if got, _, err := SystemPrompt(pol, day); err != nil || !strings.Contains(got, "Project rules.") {
			t.Fatalf("a bare Read ask rule: prompt %q, error %v; want the memory file read", got, err)
		}
		write(t, filepath.Join(ws.Root, "notes.md"), "hunter2")
		p := filepath.Join(ws.Root, "AGENTS.md")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("notes.md", p); err != nil {
			t.Fatal(err)
		}
		got, _, err := SystemPrompt(pol, day)
		if err == nil || !strings.Contains(err.Error(), p+" is not read into the prompt") || strings.Contains(got, "hunter2") {
			t.Fatalf("AGENTS.md linked to a file an ask rule covers: error %v, prompt %q; want refused", err, got)
		}
	})
	t.Run("a link inside the project is fine", func(t *testing.T) {
		ws := tree(t)
		write(t, filepath.Join(ws.Root, "docs", "agents.md"), "Linked rules.")
		if err := os.Symlink(filepath.Join("docs", "agents.md"), filepath.Join(ws.Root, "AGENTS.md")); err != nil {
			t.Fatal(err)
		}
		got, _, err := SystemPrompt(readAll(ws), day)
		if err != nil || !strings.Contains(got, "Linked rules.") {
			t.Fatalf("prompt %q, error %v", got, err)
		}
	})
}

func TestProjectRootAtHomeReadsClaudeMemoryOnce(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "once only")
	got, _, err := SystemPrompt(readAll(perm.Workspace{Cwd: home, Root: home, Home: home}), day)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "once only"); n != 1 {
		t.Errorf("memory included %d times:\n%s", n, got)
	}
}
