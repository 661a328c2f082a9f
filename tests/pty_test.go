package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestNoTerminalQueriesOutsideTheTUI runs non-interactive commands with a
// pseudo-terminal on stdin, stdout and stderr whose other end never
// answers, as under `script -qc` or a CI runner with a tty. Nothing but
// the interactive TUI may touch the terminal: no query (ESC ] 11 ; ? for
// the background colour, ESC [ 6 n for the cursor) may be written, and
// JSON output must parse.
func TestNoTerminalQueriesOutsideTheTUI(t *testing.T) {
	tmp := t.TempDir()
	bin := buildGen(t, tmp)
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		json bool // stdout is one JSON document
	}{
		{"permissions check", []string{"permissions", "check", "--json", "Bash(ls)"}, true},
		{"print", []string{"-p", "Run bash: echo hi"}, false},
		{"print json", []string{"-p", "--output-format", "json", "Run bash: echo hi"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runUnderSilentPty(t, bin, tmp, home, tc.args...)
			if i := bytes.IndexByte(out, 0x1b); i >= 0 {
				t.Fatalf("gen %s wrote an escape sequence to the terminal at byte %d: %q", strings.Join(tc.args, " "), i, out)
			}
			if tc.json {
				var v any
				// The terminal turns \n into \r\n.
				if err := json.Unmarshal(bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n")), &v); err != nil {
					t.Fatalf("output is not JSON: %v\n%q", err, out)
				}
			}
		})
	}
}

// runUnderSilentPty runs bin with args in dir as the foreground process of
// a new pseudo-terminal's session, reads everything it writes, and never
// writes a byte back.
func runUnderSilentPty(t *testing.T, bin, dir, home string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color", // a terminal that could answer queries; CI is unset
	}
	// stderr apart, so that warnings do not mix with the JSON on stdout.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	read := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(ptmx) // ends with EIO once the child has exited
		read <- b
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("waiting for gen: %v", err)
		}
	case <-time.After(60 * time.Second): // hang guard only
		cmd.Process.Kill()
		t.Fatalf("gen %s did not exit", strings.Join(args, " "))
	}
	select {
	case b := <-read:
		return b
	case <-time.After(60 * time.Second):
		t.Fatal("the terminal's output did not end")
		return nil
	}
}
