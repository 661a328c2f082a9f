package tool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
)

func TestBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	env, dir := testEnv(t)
	tests := []struct {
		name    string
		in      map[string]any
		want    string // exact result, or a regexp when it starts with ^
		wantErr string
		// gone names a file in which the command writes the pid of a
		// process that must not outlive the call.
		gone string
	}{
		{name: "stdout and exit code", in: map[string]any{"command": "echo hello"}, want: "hello\nexit code: 0\n"},
		{name: "non-zero exit is a result", in: map[string]any{"command": "echo out; exit 3"}, want: "out\nexit code: 3\n"},
		{name: "stderr is combined in order", in: map[string]any{"command": "echo one; echo two >&2; echo three"}, want: "one\ntwo\nthree\nexit code: 0\n"},
		{name: "no output", in: map[string]any{"command": "true"}, want: "(no output)\nexit code: 0\n"},
		{name: "missing final newline is added", in: map[string]any{"command": "printf abc"}, want: "abc\nexit code: 0\n"},
		{name: "runs in the working directory", in: map[string]any{"command": "pwd -P"}, want: dir + "\nexit code: 0\n"},
		// With stdin open, cat would wait until the timeout kills it.
		{name: "stdin is empty", in: map[string]any{"command": "cat; echo done", "timeout": 60000.0}, want: "done\nexit code: 0\n"},
		{name: "no controlling terminal", in: map[string]any{"command": "if ( : </dev/tty ) 2>/dev/null; then echo tty; else echo notty; fi"}, want: "notty\nexit code: 0\n"},
		{name: "killed by a signal", in: map[string]any{"command": "kill -KILL $$"}, want: "(no output)\nkilled by signal killed\n"},
		// The sleep must die with the group, not merely lose its pipe.
		{name: "timeout kills a child that ignores SIGTERM", in: map[string]any{"command": `echo started; sh -c 'trap "" TERM; echo $$ > child.pid; exec sleep 300'`, "timeout": 300.0},
			want: "started\nkilled after timeout 300ms\n", gone: "child.pid"},
		{name: "background leftovers are killed", in: map[string]any{"command": "sleep 300 & echo $! > bg.pid; echo bg"}, want: "bg\nexit code: 0\n", gone: "bg.pid"},
		{name: "bash syntax error", in: map[string]any{"command": "if then"}, want: `^(?s)bash: -c: .*syntax error.*\nexit code: 2\n$`},
		{name: "timeout over 10 minutes", in: map[string]any{"command": "true", "timeout": 600001.0}, wantErr: "timeout must be between 1 and 600000 milliseconds"},
		{name: "zero timeout", in: map[string]any{"command": "true", "timeout": 0.0}, wantErr: "timeout must be between"},
		{name: "fractional timeout", in: map[string]any{"command": "true", "timeout": 1.5}, wantErr: `argument "timeout" must be an integer`},
		{name: "empty command", in: map[string]any{"command": "  "}, wantErr: "empty command"},
		{name: "missing command", in: map[string]any{}, wantErr: `missing required argument "command"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, env, "Bash", tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tt.want, "^") {
				if !regexp.MustCompile(tt.want).MatchString(got) {
					t.Fatalf("got %q, want match for %s", got, tt.want)
				}
			} else if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if tt.gone != "" {
				waitGone(t, filepath.Join(dir, tt.gone))
			}
		})
	}
	t.Run("process that leaves the group cannot hold the call", func(t *testing.T) {
		if _, err := exec.LookPath("setsid"); err != nil {
			t.Skip("setsid not installed")
		}
		// The pause lets setsid leave the group before bash exits.
		got, err := call(t, env, "Bash", map[string]any{"command": "setsid sleep 300 & echo $! > escaped.pid; sleep 0.3; echo x"})
		if err != nil || got != "x\nexit code: 0\n" {
			t.Fatalf("got %q, %v", got, err)
		}
		// The escaped process is killed by the marker sweep.
		waitGone(t, filepath.Join(dir, "escaped.pid"))
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "sk-secret")
		t.Setenv("GEN_TEST_VISIBLE", "yes")
		t.Setenv("GEN_SEARCH_URL", "https://search.example/?key=secret")
		got, err := call(t, env, "Bash", map[string]any{"command": `echo "key=$OPENAI_API_KEY$GEN_SEARCH_URL visible=$GEN_TEST_VISIBLE prompt=$GIT_TERMINAL_PROMPT"`})
		if want := "key= visible=yes prompt=0\nexit code: 0\n"; err != nil || got != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	})
	t.Run("cancellation kills the command", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		pidFile := filepath.Join(dir, "cancel.pid")
		go func() {
			waitFor(t, pidFile) // the command is running
			cancel()
		}()
		_, err := callCtx(ctx, t, env, "Bash", map[string]any{"command": `sh -c 'trap "" TERM; echo $$ > cancel.pid; exec sleep 300'`})
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("err = %v, want cancellation", err)
		}
		waitGone(t, pidFile)
	})
	t.Run("output cap keeps head and tail", func(t *testing.T) {
		got, err := call(t, env, "Bash", map[string]any{"command": "printf HEAD; head -c 100000 /dev/zero | tr '\\0' x; printf TAIL"})
		if err != nil {
			t.Fatal(err)
		}
		body, status, _ := strings.Cut(got, "\nexit code")
		if status != ": 0\n" {
			t.Fatalf("status %q", status)
		}
		if !strings.HasPrefix(body, "HEAD") || !strings.HasSuffix(body, "TAIL") {
			t.Fatalf("head or tail lost: %.20q … %.20q", body, body[len(body)-20:])
		}
		if len(body) > maxBashOutput {
			t.Fatalf("output %d bytes, over the %d cap", len(body), maxBashOutput)
		}
		half := (maxBashOutput - markerRoom) / 2
		want := fmt.Sprintf("\n… %d bytes omitted …\n", 100008-2*half)
		if !strings.Contains(body, want) {
			t.Fatalf("marker %q not found in the middle", want)
		}
	})
}

func TestCapWriter(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"fits", 64 + 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 64 + 10, []string{"0123456789"}, "0123456789"},
		{"one over", 64 + 10, []string{"0123456789", "X"}, "01234\n… 1 bytes omitted …\n6789X"},
		{"many small writes", 64 + 10, strings.Split(strings.Repeat("ab", 50), ""), "ababa\n… 90 bytes omitted …\nbabab"},
		{"one big write", 64 + 10, []string{strings.Repeat("a", 1000) + "ZZZZZ"}, "aaaaa\n… 995 bytes omitted …\nZZZZZ"},
		{"cuts move to rune boundaries", 64 + 10, []string{"aaaaé" + strings.Repeat("-", 20) + "éxxxx"}, "aaaa\n… 24 bytes omitted …\nxxxx"},
		{"invalid UTF-8 replaced", 64 + 10, []string{"a\xffb"}, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &capWriter{max: tt.max}
			for _, s := range tt.writes {
				w.Write([]byte(s))
			}
			got := w.String()
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Fatal("invalid UTF-8")
			}
		})
	}
}

// A process that leaves the command's process group (setsid) does not
// outlive the call, and a command that finished in time is not reported
// as timed out because such a process held its output open.
func TestBashEscapedSession(t *testing.T) {
	env, dir := testEnv(t)
	out, err := call(t, env, "Bash", map[string]any{
		"command": "setsid sh -c 'sleep 300' & echo $! > pid; sleep 0.2; echo done",
		"timeout": float64(60000),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "done\n") || !strings.HasSuffix(out, "exit code: 0\n") {
		t.Errorf("output %q, want done and exit code 0", out)
	}
	waitGone(t, filepath.Join(dir, "pid"))
}

// hangGuard bounds the polling helpers below: long enough for a loaded CI
// machine, short enough that a broken kill fails instead of hanging.
const hangGuard = 60 * time.Second

// waitFor polls until file holds a whole line (a redirect creates the
// file before the command writes to it), and fails t if it has not after
// hangGuard.
func waitFor(t *testing.T, file string) {
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%s never appeared", file)
}

// waitGone fails t unless the process whose pid the command wrote to
// pidFile is gone (or a zombie awaiting its reaper) within hangGuard.
func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	pid := strings.TrimSpace(readFile(t, pidFile))
	if pid == "" {
		t.Fatalf("%s is empty", pidFile)
	}
	deadline := time.Now().Add(hangGuard)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s outlived the call: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A repository's own core.fsmonitor does not run on an (auto-allowed)
// git status.
func TestBashGitFsmonitorOff(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	env, dir := testEnv(t)
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	pwned := filepath.Join(dir, "pwned")
	if out, err := exec.Command("git", "-C", dir, "config", "core.fsmonitor", "touch "+pwned).CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	out, err := call(t, env, "Bash", map[string]any{"command": "git status --short"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("core.fsmonitor ran: %s", out)
	}
}

// git status, which the gate allows as read-only, refreshes and rewrites
// .git/index when a tracked file's stat data changed; run without the
// sandbox (which would keep the index read-only), it must leave the
// index as it was: Bash turns git's optional locks off.
func TestBashGitStatusLeavesIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	env, dir := testEnv(t)
	t.Setenv("GIT_OPTIONAL_LOCKS", "1") // gen's own value does not reach commands
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	tracked := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(tracked, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("commit", "-q", "-m", "a")
	// Same contents, another modification time: the index's stat data
	// for a.txt is stale, which git status would write back.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(tracked, later, later); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	res := perm.Result{Decision: perm.Allow, Sandbox: sandbox.None}
	out, err := bashTool{env}.Run(context.Background(), Call{Input: map[string]any{"command": "git status --short"}, Decision: Decision{Result: res}})
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	fa, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) || !fa.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("git status rewrote .git/index: %s", out)
	}
}

// Without bash on PATH (Windows without Git for Windows or WSL), the Bash
// tool says it is unavailable instead of failing obscurely.
func TestBashUnavailableWithoutBashOnPath(t *testing.T) {
	env, _ := testEnv(t)
	t.Setenv("PATH", t.TempDir())
	_, err := call(t, env, "Bash", map[string]any{"command": "echo hi"})
	if err == nil || !strings.Contains(err.Error(), "Bash unavailable: no bash found on PATH") {
		t.Fatalf("err = %v, want Bash unavailable", err)
	}
}

// TestBashEnvAsTheGateAssumes: commands run with the environment the
// gate's analysis assumes (bash.CommandEnv), whatever gen's own holds. A
// PATH entry "." or one in the workspace would run the repository's own
// ls where the gate allowed ls; CDPATH would take `cd etc` to /etc;
// BASHOPTS=dotglob would make `*` name .env.
func TestBashEnvAsTheGateAssumes(t *testing.T) {
	env, dir := testEnv(t)
	pwned := filepath.Join(dir, "pwned")
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"ls", "ownprog", "bin/ls"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\ntouch "+pwned+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "."+string(filepath.ListSeparator)+filepath.Join(dir, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	t.Setenv("CDPATH", "/")
	t.Setenv("BASHOPTS", "dotglob")

	for _, c := range []struct{ command, absent, present string }{
		{"ls", "", ""},
		{"cd etc && pwd", "/etc\n", ""},
		{"echo *", ".hidden", "ownprog"},
		{"ownprog", "", `commands run without these PATH entries: ["." "` + filepath.Join(dir, "bin") + `"]`},
	} {
		out, err := call(t, env, "Bash", map[string]any{"command": c.command})
		if err != nil {
			t.Fatalf("%s: %v", c.command, err)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("%s ran the repository's own program: %s", c.command, out)
		}
		if c.absent != "" && strings.Contains(out, c.absent) {
			t.Errorf("%s: output holds %q: %s", c.command, c.absent, out)
		}
		if !strings.Contains(out, c.present) {
			t.Errorf("%s: output lacks %q: %s", c.command, c.present, out)
		}
	}
}

// TestBashRefusesWorkspaceShell: gen starts bash through its own PATH, so
// a bash inside the workspace that PATH finds first is refused.
func TestBashRefusesWorkspaceShell(t *testing.T) {
	env, dir := testEnv(t)
	if err := os.WriteFile(filepath.Join(dir, "bash"), []byte("#!/bin/sh\ntouch "+filepath.Join(dir, "pwned")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	_, err := call(t, env, "Bash", map[string]any{"command": "echo hi"})
	if err == nil || !strings.Contains(err.Error(), "is in the workspace") {
		t.Fatalf("err = %v, want the workspace's bash refused", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("the workspace's bash ran")
	}
}

// TestBashSourcesNoStartupFiles: bash -c runs no startup file, as the
// gate's analysis assumes, wherever gen was started. A bash built with
// SSH_SOURCE_BASHRC (Debian's, Ubuntu's) runs /etc/bash.bashrc and
// ~/.bashrc before the command when SSH_CLIENT is set and SHLVL is unset
// or 0, which is how `ssh host gen -p ...` starts gen: a .bashrc that
// puts "." or node_modules/.bin on PATH, or defines a function ls, ran
// before every command the gate judged.
func TestBashSourcesNoStartupFiles(t *testing.T) {
	env, _ := testEnv(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo BASHRC-RAN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("SSH_CLIENT", "192.0.2.1 50000 22")
	t.Setenv("SSH2_CLIENT", "192.0.2.1 50000 22")
	t.Setenv("SHLVL", "0")
	out, err := call(t, env, "Bash", map[string]any{"command": "echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "BASHRC-RAN") {
		t.Errorf("~/.bashrc ran before the command:\n%s", out)
	}
}
