package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/tui"
)

func newCommandsCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "commands",
		Short: "List the custom slash commands (.claude/commands and .gen/commands)",
	}
	f := &policyFlags{}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the custom slash commands: name, scope, arguments, description and where each is",
		Long: `List the custom slash commands of the project (.gen/commands,
.claude/commands) and of the user (~/.gen/commands, ~/.claude/commands).
NAME.md is /NAME and a/b.md is /a:b. A command shadowed by one of the same
name with higher precedence, or by a built-in command, is a warning; a
broken file is an error naming file and line, and the other commands are
still listed. A command with a ! shell command says so: it runs as a Bash
call the permission gate decides, when the command is invoked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := f.load(s.Err)
			if err != nil {
				return err
			}
			cmds, derr := discoverCommands(set)
			tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSCOPE\tARGUMENTS\tDESCRIPTION\tPATH")
			for _, c := range cmds.All() {
				desc := c.Description
				if c.Bang > 0 {
					desc += fmt.Sprintf(" (runs a ! command through the gate, line %d)", c.Bang)
				}
				fmt.Fprintf(tw, "/%s\t%s\t%s\t%s\t%s\n", c.Name, c.Scope, orNone(c.ArgumentHint), desc, c.Path)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, w := range cmds.Warnings {
				warnTo(s.Err, w)
			}
			if derr != nil {
				return usageErr(derr)
			}
			return nil
		},
	}
	list.Flags().StringVar(&f.cwd, "cwd", "", "working directory")
	cmd.AddCommand(list)
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// discoverCommands loads the custom slash commands of the workspace of
// set. The TUI's built-in command names are reserved everywhere, so that
// a name means the same in gen and in gen -p.
func discoverCommands(set *settings.Settings) (*skill.Commands, error) {
	ws := set.Workspace
	cmds, err := skill.DiscoverCommands(ws.Cwd, ws.Home, tui.Builtins(), promptReadable(set))
	if cmds != nil {
		cmds.Trusted = set.Trusted
		if set.NoSkillShell != "" {
			cmds.DisableShell("disableSkillShellExecution is set in " + set.NoSkillShell)
		}
	}
	return cmds, err
}

// commandPrompt returns the prompt gen agent run sends (expandCommand):
// the commands of set are discovered only when prompt starts with a
// slash. A command's ! commands do not run there: nobody could be asked
// about them, and the run has no session to run them in.
func commandPrompt(set *settings.Settings, prompt string, w io.Writer) (string, error) {
	if !strings.HasPrefix(prompt, "/") {
		return prompt, nil
	}
	cmds, _ := discoverCommands(set)
	return expandCommand(cmds, prompt, w, nil)
}

// expandCommand returns the prompt a headless run sends for prompt
// (skill.Commands.Expand): when it invokes one of cmds (/NAME ARGS), the
// command's expansion, after the command's warnings on w. Any other
// prompt, an unknown /name included, is sent as it is, as in Claude Code.
// A command that cannot be sent (a broken file, a ! command the gate
// refuses or that fails) is an error naming file and line. shell runs
// its ! commands.
func expandCommand(cmds *skill.Commands, prompt string, w io.Writer, shell skill.Shell) (string, error) {
	expanded, c, err := cmds.Expand(prompt, shell)
	switch {
	case err != nil:
		return "", err
	case c == nil:
		if lerr := errors.Join(cmds.Errors()...); lerr != nil && strings.HasPrefix(prompt, "/") {
			// The prompt may have meant a command that did not load.
			warnTo(w, lerr.Error())
		}
		return prompt, nil
	}
	for _, warn := range c.Warnings {
		warnTo(w, warn)
	}
	return expanded, nil
}
