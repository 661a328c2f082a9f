package perm

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/perm/bash"
)

var (
	shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "fish": true, "csh": true, "tcsh": true, "busybox": true}
	// interpreters and the options that pass them code inline.
	interpreters = map[string][]string{
		"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
		"perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "-p", "--eval", "--print"}, "nodejs": {"-e", "-p", "--eval", "--print"},
		"deno": {"eval"}, "bun": {"-e", "--eval"}, "php": {"-r"}, "lua": {"-e"}, "luajit": {"-e"}, "Rscript": {"-e"},
		"osascript": {"-e"}, "awk": nil, "gawk": nil, "tclsh": nil, "jshell": nil,
		"pwsh": {"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}, "powershell": {"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"},
		"julia": {"-e", "--eval", "-E", "--print"}, "R": {"-e"}, "emacs": {"--eval", "-eval"},
		"gdb": {"-ex", "--eval-command", "-iex", "--init-eval-command"}, "vim": {"-c", "--cmd"}, "nvim": {"-c", "--cmd"},
	}
)

// opaque reports whether a command, in any of its normalised forms, runs
// code the gate cannot read: a shell reading its commands from stdin (a
// pipe or a heredoc), or an interpreter given code inline (python -c,
// perl -e, node -e) or on stdin. Deny rules cannot see inside such code,
// so while Bash deny or ask rules exist it is at least Ask. Running a
// script file (bash x.sh, python3 x.py) is not opaque: it is the
// project's code, like make or npm run.
func opaque(forms []string) string {
	for _, f := range forms {
		if !opaqueProg(filepath.Base(firstField(f))) {
			continue // opaqueForm would find nothing
		}
		if s := opaqueForm(strings.Fields(f)); s != "" {
			return s
		}
	}
	return ""
}

// opaqueForm is opaque for one form, split into fields.
func opaqueForm(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	prog := filepath.Base(fields[0])
	args := fields[1:]
	if prog == "xargs" || prog == "parallel" {
		// Its input becomes the arguments, or with -I the code, of
		// whatever it runs: a shell or interpreter there is opaque.
		for _, a := range args {
			if b := filepath.Base(a); shells[b] || interpreters[b] != nil {
				return prog + " feeding " + b
			}
		}
		return ""
	}
	if prog == "source" || prog == "." || shells[prog] || interpreters[prog] != nil {
		// A program read from a pipe or a process substitution.
		for _, a := range args {
			if strings.HasPrefix(a, "<(") || a == "/dev/stdin" || strings.HasPrefix(a, "/dev/fd/") || strings.HasPrefix(a, "/proc/self/fd/") {
				return prog + " reading code from " + a
			}
		}
	}
	if prog == "sed" {
		return sedCode(args)
	}
	if shells[prog] {
		if readsStdin(args, "-c") {
			return prog + " reading commands from stdin"
		}
		return ""
	}
	inline, ok := interpreters[prog]
	if !ok {
		return ""
	}
	for _, a := range args {
		for _, o := range inline {
			if a == o || (len(o) == 2 && o[0] == '-' && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], rune(o[1]))) {
				return prog + " " + o + " code"
			}
		}
	}
	if prog == "awk" || prog == "gawk" {
		// An awk program runs commands through system(), pipes and
		// getline, and writes files through redirections.
		rest := strings.Join(args, " ")
		if strings.Contains(rest, "system") || strings.ContainsAny(rest, "|>") || strings.Contains(rest, "getline") || slices.Contains(args, "-f") {
			return prog + " program that runs commands or writes files"
		}
		return ""
	}
	if readsStdin(args, "") {
		return prog + " reading code from stdin"
	}
	return ""
}

// opaqueProg reports whether opaque looks at a form run by prog.
func opaqueProg(prog string) bool {
	switch prog {
	case "xargs", "parallel", "source", ".", "sed":
		return true
	}
	_, interp := interpreters[prog] // awk is one with no inline option
	return interp || shells[prog]
}

// readsStdin reports whether a shell or interpreter invoked with args reads
// its program from stdin: no operand (other than "-"), or -s. cmdOpt is
// the option that instead passes code inline (already parsed elsewhere).
func readsStdin(args []string, cmdOpt string) bool {
	for _, a := range args {
		switch {
		case a == "-s" || a == "-":
			return true
		case cmdOpt != "" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], cmdOpt[1:]):
			return false // bash -c / -lc: its string is parsed recursively
		case !strings.HasPrefix(a, "-"):
			return false // a script file
		}
	}
	return true
}

// sedCode reports a sed command line whose script may write or read files
// or run programs (the e command, s///e, w, r), or cannot be read (-f).
func sedCode(args []string) string {
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return "sed script file"
		case a == "-e" || a == "--expression":
			explicit = true
			if i+1 < len(args) && !bash.SedPrintOnly(args[i+1]) {
				return "sed script that runs or writes"
			}
			i++
		case strings.HasPrefix(a, "--expression="):
			explicit = true
			if !bash.SedPrintOnly(strings.TrimPrefix(a, "--expression=")) {
				return "sed script that runs or writes"
			}
		case a == "-l" || a == "--line-length":
			i++
		case strings.HasPrefix(a, "-"):
		case !explicit:
			if !bash.SedPrintOnly(a) {
				return "sed script that runs or writes"
			}
			return ""
		}
	}
	return ""
}
