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
var debugCategories = []string{"api", "hooks"}

// debugFlag is --debug [FILTER], Claude Code's flag: debug output on
// stderr for the categories FILTER names ("hooks", "api,hooks", "!file";
// all of them without one). gen has two categories, api and hooks; a
// filter naming others is a warning, not an error, so that a Claude Code
// command line still runs.
type debugFlag struct {
	filter string
	set    bool
	// mu keeps lines whole, shared by the loggers of every category:
	// parallel subagents log at once. logger makes it, at set-up.
	mu *sync.Mutex
}

func (f *debugFlag) String() string { return f.filter }
func (f *debugFlag) Set(v string) error {
	f.filter, f.set = v, true
	return nil
}
func (f *debugFlag) Type() string { return "filter" }

func (f *debugFlag) register(fl *pflag.FlagSet) {
	fl.Var(f, "debug", `headless: debug output on stderr, for the categories of an optional filter (Claude Code's, e.g. "hooks" or "api,hooks"; gen has api and hooks): each model request's attempts, and each hook that runs, how it ended, how long it took and the start of its output`)
	fl.Lookup("debug").NoOptDefVal = "all"
}

// parse reads the filter as Claude Code does: names are compared
// without case and empty ones dropped; no names means every category;
// only names, those; only negated names, every category but those; a mix
// of both, every category. unknown are the names (not negated) gen
// lacks.
func (f *debugFlag) parse() (show map[string]bool, unknown []string) {
	var named, negated []string
	for c := range strings.SplitSeq(strings.ToLower(f.filter), ",") {
		c = strings.TrimSpace(c)
		name, not := strings.CutPrefix(c, "!")
		switch {
		case name == "":
			continue
		case c == "all":
			named = append(named, debugCategories...)
			continue
		case not:
			negated = append(negated, name)
		default:
			named = append(named, name)
		}
		if !slices.Contains(debugCategories, name) && !not {
			unknown = append(unknown, name)
		}
	}
	show = map[string]bool{}
	for _, c := range debugCategories {
		switch {
		case len(named) > 0 && len(negated) > 0, len(named) == 0 && len(negated) == 0:
			show[c] = true
		case len(named) > 0:
			show[c] = slices.Contains(named, c)
		default:
			show[c] = !slices.Contains(negated, c)
		}
	}
	return show, unknown
}

// warn says on errw which categories the filter names that gen lacks.
func (f *debugFlag) warn(errw io.Writer) {
	if !f.set {
		return
	}
	if _, unknown := f.parse(); len(unknown) > 0 {
		fmt.Fprintf(errw, "gen: warning: --debug: gen has no debug output for %s (it has: %s)\n", strings.Join(unknown, ", "), strings.Join(debugCategories, ", "))
	}
}

// logger returns what takes category's debug lines, writing them to w;
// nil when the flag was not given or its filter leaves category out.
func (f *debugFlag) logger(category string, w io.Writer) func(string) {
	if !f.set {
		return nil
	}
	if show, _ := f.parse(); !show[category] {
		return nil
	}
	if f.mu == nil {
		f.mu = new(sync.Mutex)
	}
	mu, prefix := f.mu, "[debug] "+category+":"
	return func(line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, prefix, line)
	}
}
