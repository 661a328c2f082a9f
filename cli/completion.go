package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
)

// prepareCompletion sets up for args what cobra's completion needs, and
// only that: the flag completion functions when args ask for completions,
// and cobra's completion command (five commands with their flags, which
// cobra builds at every run) only when args may run or list it (help).
// Keeping it for any argument that could mean help is harmless.
func prepareCompletion(root *cobra.Command, args []string) {
	if completing(args) {
		registerCompletions(root)
		return
	}
	root.CompletionOptions.DisableDefaultCmd = !slices.ContainsFunc(args, func(a string) bool {
		return a == "completion" || a == "help" || strings.HasPrefix(a, "-") && strings.Contains(a, "h")
	})
}

// completing reports whether args ask for completions: the shell scripts
// of gen completion run gen __complete (or __completeNoDesc) with the
// words typed so far. Only then are the completion functions registered.
func completing(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// registerCompletions teaches shell completion (gen completion
// bash|zsh|fish|powershell, which cobra provides) the values of gen's
// flags: agent names, permission modes, tool names and formats.
func registerCompletions(root *cobra.Command) {
	var modes []string
	for _, m := range perm.MainLoopModes {
		modes = append(modes, string(m))
	}
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	byFlag := map[string]cobra.CompletionFunc{
		"permission-mode": fixed(modes...),
		"mode":            fixed(append(modes, string(perm.ModeExplore))...),
		"allowedTools":    fixed(perm.Tools...),
		"disallowedTools": fixed(perm.Tools...),
		"output-format":   fixed("text", "json", "stream-json"),
		"input-format":    fixed(inputText, inputStreamJSON),
		"type":            completeAgents,
		"agent":           completeAgents,
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for name, fn := range byFlag {
			if cmd.Flags().Lookup(name) != nil {
				_ = cmd.RegisterFlagCompletionFunc(name, fn)
			}
		}
		if cmd.CommandPath() == "gen agent show" {
			cmd.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return completeAgents(c, args, toComplete)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeAgents lists the agents of the project in --cwd (or the
// current directory), with their descriptions.
func completeAgents(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cwd, _ := cmd.Flags().GetString("cwd")
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cwd, _ = filepath.Abs(cwd)
	cat, err := agent.Discover(cwd, "")
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, d := range cat.All() {
		out = append(out, cobra.CompletionWithDesc(d.Name, d.Description))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
