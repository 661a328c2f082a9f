package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/trust"
)

func newTrustCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project's hooks, MCP servers and sandbox settings",
		Long: `Trust the project containing DIR (default: the current directory).

A project's hooks, MCP servers and sandbox opt-out run code before any tool
call is checked, so gen ignores them (with a warning) until you trust the
project. Trust is recorded in ~/.gen/settings.json under "trustedProjects".
Permission rules and modes in project settings apply without trust. For one
headless run, pass --trust instead.`,
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
			root, err := trust.Trust(home, dir)
			if err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(s.Out, "trusted %s\n", root)
			return nil
		},
	}
}
