package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/memory"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
)

func newSkillsCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List the skills agents can load with the Skill tool",
	}
	f := &policyFlags{}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the skills: name, scope, description and where each is",
		Long: `List the skills of the project (.gen/skills, .claude/skills), of the
additional directories (only their .gen/skills) and of the user
(~/.gen/skills, ~/.claude/skills). A skill shadowed by one of the same name
with higher precedence is a warning; a broken SKILL.md is an error naming
file and line, and the other skills are still listed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := f.load(s.Err)
			if err != nil {
				return err
			}
			skills, derr := discoverSkills(set)
			tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSCOPE\tDESCRIPTION\tPATH")
			for _, k := range skills.All() {
				desc := k.Description
				if k.DisableModelInvocation {
					desc += " (not offered to the model)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, k.Scope, desc, k.Path)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, w := range skills.Warnings {
				warnTo(s.Err, w)
			}
			if derr != nil {
				return usageErr(derr)
			}
			return nil
		},
	}
	list.Flags().StringVar(&f.cwd, "cwd", "", "working directory")
	stringsVar(list.Flags(), &f.addDirs, "add-dir", nil, "additional directory whose .gen/skills to read (repeatable)")
	cmd.AddCommand(list)
	return cmd
}

// loadSkills discovers the skills of a run under set; problems are
// warnings.
func loadSkills(set *settings.Settings, warn func(string)) *skill.Set {
	skills, err := discoverSkills(set)
	if err != nil {
		warn(err.Error())
	}
	for _, w := range skills.Warnings {
		warn(w)
	}
	return skills
}

// promptReadable is the check a skill's or a command's file passes before
// its text may reach the model (memory.Readable): the Read rules of set.
func promptReadable(set *settings.Settings) func(path string) error {
	main := policy.Main(set, policy.Runtime{})
	read := policy.Memory(&main)
	return memory.Readable(&read)
}

// discoverSkills discovers the skills of set's workspace; none where
// managed settings lock the skills surface (strictPluginOnlyCustomization),
// which a warning says.
func discoverSkills(set *settings.Settings) (*skill.Set, error) {
	ws := set.Workspace
	if why := set.LockedBy("skills"); why != "" {
		return skill.DiscoverLocked(ws.Cwd, ws.Home, ws.Dirs, why), nil
	}
	return skill.Discover(ws.Cwd, ws.Home, ws.Dirs, promptReadable(set))
}
