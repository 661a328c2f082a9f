package subagent

import (
	"testing"

	"github.com/gen-run/gen/internal/sandboxtest"
)

// The test binary is the sandbox helper of the Bash calls its tests run.
func TestMain(m *testing.M) { sandboxtest.Main(m) }
