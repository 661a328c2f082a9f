package tests

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes is the most a package of gen's own may allocate in its
// init. Go runs the init of every linked package on every start, so a
// table built there (a map literal, a set, a compiled regexp or spec)
// costs every command, gen --version included, whether or not it looks
// at the table. Such tables are built on first use instead
// (internal/lazy, internal/lazyre). The smallest map literal allocates
// more than this; a sentinel from errors.New allocates nothing (the
// compiler lays it out in the binary).
const maxInitBytes = 128

// initLine is a line of GODEBUG=inittrace=1's report: the package, then
// the bytes and allocations of its init.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestInitAllocatesNothing runs gen --version with GODEBUG=inittrace=1
// and holds the init of each package of gen's own module (and of
// gen.internal/quietterm) to maxInitBytes. It counts allocations, which
// do not vary between runs, never time.
func TestInitAllocatesNothing(t *testing.T) {
	tmp := t.TempDir()
	bin := buildGen(t, tmp)
	cmd := exec.Command(bin, "--version")
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "GODEBUG=inittrace=1"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gen --version: %v\n%s", err, stderr.String())
	}
	seen, ours := 0, 0
	for line := range strings.Lines(stderr.String()) {
		m := initLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
		if m == nil {
			continue
		}
		seen++
		pkg := m[1]
		if !strings.HasPrefix(pkg, "github.com/gen-run/gen/") && !strings.HasPrefix(pkg, "gen.internal/") {
			continue
		}
		ours++
		bytes, _ := strconv.Atoi(m[2])
		if bytes > maxInitBytes {
			t.Errorf("package %s allocates %s bytes in %s allocations at init, over %d: build its tables on first use (internal/lazy, internal/lazyre)",
				pkg, m[2], m[3], maxInitBytes)
		}
	}
	// Packages with nothing to initialise are not reported at all, but
	// the runtime's line and cli's (its init adds the --version template
	// function) always are: without them the report was not read.
	if seen == 0 || ours == 0 {
		t.Fatalf("read %d init lines, %d of gen's packages, from gen's stderr:\n%s", seen, ours, stderr.String())
	}
}
