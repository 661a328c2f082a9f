package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"
)

// debugCategories are the categories --debug can show in gen.
var debugCategories = []string{"hooks"}

// debugFlag is --debug [FILTER], Claude Code's flag: debug output on
// stderr for the categories FILTER names ("hooks", "api,hooks", "!file";
// all of them without one). gen has one category, hooks; a filter naming
// others is a warning, not an error, so that a Claude Code command line
// still runs.
type debugFlag struct {
	filter string
	set    bool
}

func (f *debugFlag) String() string { return f.filter }
func (f *debugFlag) Set(v string) error {
	f.filter, f.set = v, true
	return nil
}
func (f *debugFlag) Type() string { return "filter" }

func (f *debugFlag) register(fl *pflag.FlagSet) {
	fl.Var(f, "debug", `headless: debug output on stderr, for the categories of an optional filter (Claude Code's, e.g. "hooks" or "api,hooks"; gen has hooks): each hook that runs, how it ended, how long it took and the start of its output`)
	fl.Lookup("debug").NoOptDefVal = "all"
}

// hooks returns what takes the hooks' debug lines, writing them to w;
// nil when the filter leaves hooks out or the flag was not given.
// Categories gen does not have are said on errw.
func (f *debugFlag) hooks(w, errw io.Writer) func(string) {
	if !f.set {
		return nil
	}
	// As Claude Code reads a filter: the categories it names, or all but
	// those it negates when it names none.
	var named, negated, unknown []string
	for c := range strings.SplitSeq(f.filter, ",") {
		c = strings.TrimSpace(c)
		name, not := strings.CutPrefix(c, "!")
		switch {
		case c == "all":
			named = append(named, debugCategories...)
		case not:
			negated = append(negated, name)
		default:
			named = append(named, name)
		}
		if c != "all" && !not && !slices.Contains(debugCategories, name) {
			unknown = append(unknown, c)
		}
	}
	show := slices.Contains(named, "hooks") || len(named) == 0
	show = show && !slices.Contains(negated, "hooks")
	if len(unknown) > 0 {
		fmt.Fprintf(errw, "gen: warning: --debug: gen has no debug output for %s (it has: %s)\n", strings.Join(unknown, ", "), strings.Join(debugCategories, ", "))
	}
	if !show {
		return nil
	}
	// Parallel subagents' hooks log at once: one line at a time.
	var mu sync.Mutex
	return func(line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, "[debug] hooks:", line)
	}
}
