package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is gen's version from the build information: the module
// version for `go install ...@v1.2.3`, else "(devel)", followed by the
// VCS revision when the build recorded one.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if v == "(devel)" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + dirty
	}
	return v
}

// versionTemplate prints gen --version. It calls Version (as the template
// function genVersion) only when the version is printed: reading the
// build information parses a line per module, which every start would
// otherwise pay for.
const versionTemplate = "gen {{genVersion}}\n"

func init() { cobra.AddTemplateFunc("genVersion", Version) }

func newVersionCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gen's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(s.Out, "gen", Version())
			return err
		},
	}
}
