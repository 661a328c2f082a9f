package cli

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// variadicFlags are the flags that take every following argument up to
// the next flag or "--", as Claude Code's (commander.js) do: the rule
// lists, each value of which is a comma- or space-separated list of rules
// (splitRuleList), and --mcp-config, each value of which is one file or
// one JSON string (mcpFlags.readConfigs).
var variadicFlags = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"--allowedTools": true, "--allowed-tools": true,
		"--disallowedTools": true, "--disallowed-tools": true,
		"--mcp-config": true,
	}
}}

// flagAliases are the kebab-case spellings Claude Code also accepts.
var flagAliases = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"allowed-tools":    "allowedTools",
		"disallowed-tools": "disallowedTools",
	}
}}

// debugFilter is what a --debug filter looks like: category names
// (a letter or digit, then letters, digits, "_" and "-", as Claude
// Code's "1p"), each perhaps negated, separated by commas. A flag
// ("--type") is never one.
var debugFilter = lazyre.MustCompile(`^\s*!?[A-Za-z0-9][A-Za-z0-9_-]*(\s*,\s*!?[A-Za-z0-9][A-Za-z0-9_-]*)*\s*$`)

// normalizeFlag maps the aliases to the flags they stand for.
func normalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := flagAliases.Get()[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// expandVariadic rewrites the variadic flags into one --flag=value per
// value, as Claude Code (commander.js) reads them: "--allowedTools Read
// Edit PROMPT" takes PROMPT as a third rule, which then fails to parse as
// a rule, and "--mcp-config cfg.json PROMPT" takes it as a second
// configuration, which names no file (usage errors, never a run with a
// rule or a server nobody meant). The list ends at the next argument that starts with
// "-", at "--", or with the "--allowedTools=VALUE" form, which takes one
// value. Arguments after "--" are left alone.
func expandVariadic(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--debug" && i+1 < len(args) && debugFilter.Get().MatchString(args[i+1]) {
			// Claude Code's --debug takes an optional filter
			// ("hooks", "api,!file") from the next argument.
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		if !variadicFlags.Get()[a] {
			out = append(out, a)
			continue
		}
		j := i + 1
		for ; j < len(args) && !strings.HasPrefix(args[j], "-"); j++ {
			out = append(out, a+"="+args[j])
		}
		if j == i+1 {
			out = append(out, a) // no value: pflag says so
		}
		i = j - 1
	}
	return out
}

// splitRuleList splits one --allowedTools value into rules: commas and
// white space outside parentheses separate them, so
// "Read,Bash(git log:*) Edit" is three rules and "Bash(a, b)" one. An
// empty rule between two commas ("Read,,Edit") or at either end of a
// comma is kept, so that it fails to parse rather than vanish, and so is
// a value that holds no rule ("" or blanks). The YAML
// form of rule lists (frontmatter.SplitRules) splits on commas only.
func splitRuleList(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		depth int
		comma = true // at the start, as after a comma: "," alone is an empty rule
	)
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			comma = false
		}
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && r == ',':
			if cur.Len() == 0 && comma {
				out = append(out, "")
			}
			flush()
			comma = true
			continue
		case depth == 0 && unicode.IsSpace(r):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() == 0 && comma {
		// A trailing comma, or a value with no rule at all
		// (--disallowedTools ''), which must not deny nothing silently.
		out = append(out, "")
	}
	flush()
	return out
}

// splitRuleLists applies splitRuleList to every value of a flag.
func splitRuleLists(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, splitRuleList(v)...)
	}
	return out
}

// checkRules parses the --allowedTools and --disallowedTools rules, so
// that a prompt the variadic list took (gen -p --allowedTools Read "fix
// it") is reported as such, before anything waits for a prompt.
func (f *policyFlags) checkRules() error {
	for _, fl := range []struct {
		name   string
		values []string
		kind   perm.ListKind
	}{{"--allowedTools", f.allowed, perm.AllowList}, {"--disallowedTools", f.disallowed, perm.DenyList}} {
		for _, r := range splitRuleLists(fl.values) {
			// A rule the list leaves out is warned about by
			// settings.Load.
			if _, _, err := perm.ParseListRule(r, fl.kind); err != nil {
				return usageErr(fmt.Errorf("%s: %w\n(%s takes every argument up to the next flag, as in Claude Code: put the prompt before it, or end the list with --)", fl.name, err, fl.name))
			}
		}
	}
	return nil
}

// checkPositional refuses what must not become a silent agent run: a word
// that is no command (a typo such as "permisions"), and several words
// without -p. A prompt given without -p is one quoted argument.
func checkPositional(root *cobra.Command, print bool, args []string) error {
	if print || len(args) == 0 {
		return nil
	}
	first := args[0]
	if sugg := root.SuggestionsFor(first); len(sugg) > 0 {
		return usageErr(fmt.Errorf("unknown command %q for %q\n\nDid you mean this?\n\t%s\n\n(to run a prompt headless: gen -p %q)", first, root.Name(), strings.Join(sugg, "\n\t"), strings.Join(args, " ")))
	}
	if len(args) > 1 {
		return usageErr(fmt.Errorf("%d arguments without -p: give the prompt as one quoted argument with -p (gen -p %q), or see gen --help for the commands", len(args), strings.Join(args, " ")))
	}
	if isWord(first) {
		return usageErr(fmt.Errorf("unknown command %q for %q (to run it as a prompt: gen -p %q; see gen --help for the commands)", first, root.Name(), first))
	}
	return nil
}

// isWord reports whether s looks like a command name: one word of
// lower-case letters, digits and dashes.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// groupRun makes a command that only groups subcommands refuse an unknown
// subcommand (a usage error with suggestions) instead of printing its help
// and succeeding; without arguments it prints its help.
func groupRun(cmd *cobra.Command) {
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if sugg := cmd.SuggestionsFor(args[0]); len(sugg) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(sugg, "\n\t")
		}
		return usageErr(fmt.Errorf("%s\n\nRun '%s --help' for the commands", msg, cmd.CommandPath()))
	}
}

// nonEmptyFlags are the flags whose empty value ("$ID" unset) would
// otherwise act as if the flag had not been given: a new session where
// one was to be resumed, no --settings scope, a what-if against the real
// managed settings. Given empty, on any command, they are usage errors
// (noEmpty). Flags whose empty value means something (--tools "",
// --setting-sources "") are not among them.
var nonEmptyFlags = []string{
	"resume", "session-id", "cwd", "model", "agent", "main-agent", "fallback-model",
	"managed-settings", "input", "settings", "system-prompt-file", "append-system-prompt-file",
}

// noEmpty refuses the nonEmptyFlags cmd was given with an empty value.
// It is the root's PersistentPreRunE, so it checks every command.
func noEmpty(cmd *cobra.Command, _ []string) error {
	for _, name := range nonEmptyFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() == "" {
			return usageErr(fmt.Errorf("--%s: empty value", name))
		}
	}
	return nil
}
