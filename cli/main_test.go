package cli

import (
	"testing"

	"github.com/gen-run/gen/internal/mcptest"
	"github.com/gen-run/gen/internal/sandboxtest"
)

// The test binary is also a stdio MCP server and the sandbox helper of the
// Bash calls its tests run, when re-executed as one.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	sandboxtest.Main(m)
}
