package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A broken agent file does not hide the others: gen agent list prints the
// rest, names the broken file and line on stderr and exits 1; running the
// broken agent is an error naming the file and line.
func TestAgentListWithBrokenFile(t *testing.T) {
	dir := project(t)
	broken := filepath.Join(dir, ".claude", "agents", "deployer.md")
	for p, c := range map[string]string{
		broken: "---\nname: deployer\ndescription: Ships it.\npermissionMode: yolo\n---\nYou deploy.\n",
		filepath.Join(dir, ".claude", "agents", "reviewer.md"): "---\nname: reviewer\ndescription: Reviews code: bugs first.\ncolor: blue\n---\nYou review.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantErr := broken + `:4: unknown mode "yolo"`

	code, out, errs := run("agent", "list", "--cwd", dir)
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	for _, name := range []string{"test-perm", "reviewer", "Explore"} {
		if !strings.Contains(out, name) {
			t.Errorf("list lacks %s:\n%s", name, out)
		}
	}
	if !strings.Contains(errs, "gen: error: "+wantErr) || !strings.Contains(errs, `reviewer.md:3: description has an unquoted ": "`) {
		t.Errorf("stderr:\n%s", errs)
	}
	if strings.Contains(errs, "color") {
		t.Errorf("color is warned about:\n%s", errs)
	}

	code, _, errs = run("agent", "run", "--cwd", dir, "--type", "deployer", "--prompt", "x", "--model", "offline")
	if code != ExitUsage || !strings.Contains(errs, wantErr) {
		t.Errorf("run broken: exit %d, stderr:\n%s", code, errs)
	}
	code, _, errs = run("agent", "run", "--cwd", dir, "--type", "reviewer", "--prompt", "Read: a.txt", "--model", "offline")
	if code != ExitOK {
		t.Errorf("run reviewer: exit %d, stderr:\n%s", code, errs)
	}
}
