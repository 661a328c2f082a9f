package cli

import (
	"os"
	"testing"

	"github.com/gen-run/gen/internal/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the test binary re-executed as a stdio MCP server
	os.Exit(m.Run())
}
