package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestREADMEQuickStart runs the README's first command, the shipped
// code-reviewer agent on the offline model from this checkout, as a new
// user would (an empty home, no model endpoint), and checks that it prints
// what the README says it prints: the same lines on stderr and stdout, and
// exit status 3. A change to gen's output or to the agent file that the
// README does not follow fails here.
func TestREADMEQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gen")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the README's command line")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const goRun = "go run ./cmd/gen "
	var command string
	var want []string // the documented output, after the command
	for line := range strings.Lines(string(readme)) {
		line = strings.TrimRight(line, "\n")
		if command == "" {
			if strings.HasPrefix(line, "    "+goRun+"agent run --type code-reviewer") {
				command = strings.TrimPrefix(line, "    ")
			}
			continue
		}
		if text, ok := strings.CutPrefix(line, "    "); ok {
			want = append(want, text)
		} else if line != "" && len(want) > 0 {
			break
		}
	}
	if command == "" || len(want) == 0 || want[len(want)-1] != "exit status 3" {
		t.Fatalf("README.md: no quick-start command and output ending in exit status 3 (command %q, output %q)", command, want)
	}
	want = want[:len(want)-1] // go run's own line

	bin := buildGen(t, t.TempDir())
	cmd := exec.Command("bash", "-c", strings.Replace(command, goRun, bin+" ", 1))
	cmd.Dir = root
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("exit: %v, want status 3\nstderr:\n%s", err, stderr.String())
	}
	// The README shows the checkout as /path/to/gen.
	got := strings.ReplaceAll(stderr.String()+stdout.String(), root, "/path/to/gen")
	if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); !slices.Equal(lines, want) {
		t.Errorf("the README's quick start prints\n%s\nbut README.md says\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
