package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/trust"
)

func newTrustCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project's hooks, MCP servers and sandbox settings",
		Long: `Trust the project containing DIR (default: the current directory).

A project's hooks, MCP servers and sandbox opt-out run code before any tool
call is checked, and its allow rules, a widening mode, additional
directories and the agent its settings choose for the main loop widen what
runs without asking, so gen ignores them (with a warning) until you trust
the project. Deny and ask rules apply without
trust. Trust is recorded in ~/.gen/settings.json under "trustedProjects",
with a digest of each of the project's configuration files (.gen/ and
.claude/ settings, .mcp.json, agents and skills): when one changes (a git
pull, a command that wrote it), the project is untrusted until you review
it and run gen trust again. For one headless run, pass --trust instead.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			home, err := os.UserHomeDir()
			if err != nil {
				return usageErr(err)
			}
			// From where the command runs too: `gen trust ROOT` typed
			// in a subdirectory, as the warnings there say, must cover
			// what the hooks run from there.
			var from []string
			if wd, err := os.Getwd(); err == nil {
				from = append(from, wd)
			}
			root, err := trust.Trust(home, dir, from...)
			if err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(s.Out, "trusted %s\n", root)
			return nil
		},
	}
}

// offerTrust is the trust prompt on first use: in a terminal, for a
// project that is not trusted and asks for code to run before any tool
// call is checked (trust.Pending), or whose configuration changed since
// the person trusted it (settings.Settings.TrustStale). It reports whether
// the person trusted it (recorded in the user settings, which the caller
// then reloads). Headless runs never ask: they use --trust or `gen trust`.
func offerTrust(ctx context.Context, set *settings.Settings, agents *agentsFlag, s Streams) (bool, error) {
	if set.Trusted {
		return false, nil
	}
	mcpJSON := filepath.Join(set.Workspace.Root, ".mcp.json")
	if _, err := os.Stat(mcpJSON); err != nil {
		mcpJSON = ""
	}
	// Agents that do not load are reported where they are used; here
	// they ask for nothing, nor does a project's that --agents replaces.
	var defs []*agent.Definition
	if cat, err := agents.discover(set); err == nil {
		defs = cat.All()
	}
	files := trust.Pending(set, mcpJSON, defs)
	if len(files) == 0 && !set.TrustStale {
		return false, nil
	}
	if set.TrustStale {
		changed := "its trust was recorded by an older gen or its files cannot be read"
		if len(set.TrustChanged) > 0 {
			changed = "changed: " + strings.Join(set.TrustChanged, ", ")
		}
		fmt.Fprintf(s.Err, "gen: the project's configuration is not what you trusted (%s)\n", changed)
	}
	if len(files) > 0 {
		fmt.Fprintf(s.Err, "gen: the project asks to run code of its own or to widen permissions: %s\n", strings.Join(files, ", "))
	}
	return trust.Ask(ctx, s.In, s.Err, set.Workspace.Home, set.Workspace.Cwd)
}
