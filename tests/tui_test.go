package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop/offline"
)

// TestTUIApprovalUnderTmux is the manual main-loop scenario of the
// permissions design, automated: the real gen binary runs its TUI in a
// tmux pane on the offline model, with Bash(echo *) and Bash(ls *)
// allowed in .gen/settings.local.json.
//
//  0. Those rules need the project's trust: gen asks first, and "y"
//     records it.
//  1. A compound command whose every part is allowed runs without asking.
//  2. One with an unallowed part opens the approval dialog; "Always allow"
//     with the prefilled rule saves Bash(cat /etc/hosts) next to the two
//     rules already there, and the call runs.
//  3. The same command then runs without asking.
func TestTUIApprovalUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds gen and drives it in tmux")
	}
	bin := buildGen(t, t.TempDir())
	// Once on the embedded offline model, once with gen talking to the
	// same model over the OpenAI wire format on a local test server.
	t.Run("offline", func(t *testing.T) { tmuxScenario(t, bin, nil) })
	t.Run("http", func(t *testing.T) {
		srv := testmodel.New(t, offline.New())
		tmuxScenario(t, bin, []string{"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=test", "GEN_MODEL=test-model"})
	})
}

// tmuxScenario runs the scenario with gen built at bin; modelEnv, if set,
// points gen at a model endpoint.
func tmuxScenario(t *testing.T, bin string, modelEnv []string) {
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{filepath.Join(project, ".git"), filepath.Join(project, ".gen"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settingsFile := filepath.Join(project, ".gen", "settings.local.json")
	if err := os.WriteFile(settingsFile, []byte(`{"permissions": {"allow": ["Bash(echo *)", "Bash(ls *)"]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tm := startTmux(t, tmp, project, home, bin, modelEnv)
	// The project's allow rules need its trust: gen asks once, first.
	tm.waitFor("the first-use trust prompt", func(s string) bool {
		return strings.Contains(s, "settings.local.json") && strings.Contains(s, "Trust this project?")
	})
	tm.typeLine("y")
	tm.waitFor("the TUI to start", func(s string) bool { return strings.Contains(s, "shift+tab to cycle") })
	wantModel := "model offline"
	if modelEnv != nil {
		wantModel = "model test-model"
	}
	tm.waitFor("the status line to name the model", func(s string) bool { return strings.Contains(s, wantModel) })

	// 1. Every subcommand is allowed: no dialog.
	const allowed = "echo hi && ls /tmp"
	tm.typeLine("Run bash: " + allowed)
	tm.waitFor("the allowed call to run", func(s string) bool {
		return strings.Contains(s, "● Bash("+allowed+")  ✓ allowed") &&
			strings.Contains(s, "RESULT: Bash("+allowed+") -> ALLOWED")
	})

	// 2. cat /etc/hosts has no allow rule: the dialog opens.
	const asked = "echo hi && cat /etc/hosts"
	tm.typeLine("Run bash: " + asked)
	tm.dialogOK = true
	// Keys are ignored for a moment after a dialog opens (type-ahead must
	// not answer it): answer once the dialog says it takes them.
	tm.waitFor("the approval dialog to take keys", func(s string) bool {
		return strings.Contains(s, "Permission needed: Bash") && strings.Contains(s, "   "+asked) &&
			strings.Contains(s, "3. Always allow") && !strings.Contains(s, "Wait a moment")
	})
	tm.keys("3")
	tm.waitFor("the Always allow editor with the prefilled rule", func(s string) bool {
		return strings.Contains(s, "Always allow: these rules will be saved") && strings.Contains(s, "> Bash(cat /etc/hosts)")
	})
	tm.keys("Enter")
	tm.waitFor("the approved call to run", func(s string) bool {
		return strings.Count(s, "RESULT: Bash("+asked+") -> ALLOWED") == 1 && !strings.Contains(s, "Permission needed")
	})
	tm.dialogOK = false

	var saved struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	data, err := os.ReadFile(settingsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatalf("%s is no longer valid JSON: %v\n%s", settingsFile, err, data)
	}
	for _, rule := range []string{"Bash(echo *)", "Bash(ls *)", "Bash(cat /etc/hosts)"} {
		if !slices.Contains(saved.Permissions.Allow, rule) {
			t.Errorf("%s lacks the allow rule %s:\n%s", settingsFile, rule, data)
		}
	}

	// 3. The saved rule covers the command now: it runs without a dialog.
	tm.typeLine("Run bash: " + asked)
	tm.waitFor("the call to run again without asking", func(s string) bool {
		return strings.Count(s, "RESULT: Bash("+asked+") -> ALLOWED") == 2
	})
}

// buildGen builds the gen command into dir once, from the module root.
func buildGen(t *testing.T, dir string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build gen with")
	}
	bin := filepath.Join(dir, "gen")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/gen")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gen: %v\n%s", err, out)
	}
	return bin
}

// tmux drives one session on a tmux server of its own.
type tmux struct {
	t              *testing.T
	socket, target string
	// dialogOK is false where an approval dialog must not appear.
	dialogOK bool
}

// startTmux starts gen in a 220x60 tmux pane, in project, with a
// hermetic environment: home as HOME and no model endpoint, so the
// embedded offline model answers, unless modelEnv names one. The server is killed when t ends.
func startTmux(t *testing.T, tmp, project, home, bin string, modelEnv []string) *tmux {
	t.Helper()
	name := fmt.Sprintf("gen-tui-%d", time.Now().UnixNano())
	// The socket lives in tmp: a server of our own, unaffected by (and
	// not affecting) any tmux the developer runs.
	tm := &tmux{t: t, socket: filepath.Join(tmp, "tmux.sock"), target: name}

	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"OPENAI_BASE_URL=",
		"OPENAI_API_KEY=",
		"GEN_MODEL=",
	}
	env = append(env, modelEnv...)
	// The pane stays open after gen exits, so that a crash can be read.
	script := fmt.Sprintf("%s; echo \"[gen exited with status $?]\"; sleep 600", shellQuote(bin))
	cmd := exec.Command("tmux", "-S", tm.socket, "-f", "/dev/null", "new-session", "-d",
		"-s", name, "-x", "220", "-y", "60", "-c", project, "sh", "-c", script)
	cmd.Env = env
	cmd.Dir = project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", tm.socket, "kill-server").Run()
	})
	return tm
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen returns the pane's text, with its scrollback.
func (tm *tmux) screen() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-t", tm.target, "-S", "-2000")
}

// keys sends tmux key names (Enter, Escape, C-c) or plain characters.
func (tm *tmux) keys(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", tm.target}, keys...)...)
}

// typeLine types text literally and presses Enter.
func (tm *tmux) typeLine(text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", tm.target, "-l", text)
	tm.keys("Enter")
}

// waitFor polls the pane until cond holds, for at most 60 seconds. It
// fails at once if gen exited, or if an approval dialog shows where none
// may.
func (tm *tmux) waitFor(what string, cond func(screen string) bool) {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, "[gen exited with status") {
			tm.t.Fatalf("gen exited while waiting for %s:\n%s", what, s)
		}
		if !tm.dialogOK && strings.Contains(s, "Permission needed") {
			tm.t.Fatalf("an approval dialog appeared while waiting for %s:\n%s", what, s)
		}
		if cond(s) {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after 15s waiting for %s; the pane shows:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
