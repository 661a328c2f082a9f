package bash

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// codeVarNames are environment variables whose value a program runs as
// code or loads code from: shells (BASH_ENV, ENV, PS4, PROMPT_COMMAND),
// the dynamic linker (LD_*), pagers and editors, git, and interpreters.
var codeVarNames = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"LESSOPEN": true, "LESSCLOSE": true, "LESSKEYIN": true, "LESSKEY": true, "LESSKEY_CONTENT": true,
		"PAGER": true, "MANPAGER": true, "GIT_PAGER": true, "SYSTEMD_PAGER": true,
		"GIT_EXTERNAL_DIFF": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_ASKPASS": true,
		"SSH_ASKPASS": true, "GIT_PROXY_COMMAND": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
		"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_COMMON_DIR": true,
		"GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true, "GIT_CONFIG_GLOBAL": true,
		"GIT_CONFIG_SYSTEM": true, "GIT_ATTR_SOURCE": true,
		"BASH_ENV": true, "ENV": true, "PS4": true, "PS0": true, "PS1": true, "PROMPT_COMMAND": true,
		"SHELLOPTS": true, "BASHOPTS": true, "BASH_LOADABLES_PATH": true, "EXECIGNORE": true,
		"PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "PYTHONINSPECT": true,
		"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "PERL5DB": true, "RUBYOPT": true, "RUBYLIB": true,
		"NODE_OPTIONS": true, "NODE_PATH": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true,
		"EDITOR": true, "VISUAL": true, "BROWSER": true, "TERMINFO": true, "PATH": true, "IFS": true,
		"GCONV_PATH": true, "LOCPATH": true, "HOSTALIASES": true, "RESOLV_HOST_CONF": true, "MALLOC_CHECK_": true,
	}
}}

// CodeVar reports whether an environment variable carries code: a
// program runs its value, or loads a program or library it names
// (LD_PRELOAD, BASH_FUNC_f%%, GIT_CONFIG_KEY_0, PAGER, ...).
func CodeVar(name string) bool {
	return codeVarNames.Get()[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "BASH_FUNC_") ||
		strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(name, "DYLD_")
}

// declarers are builtins whose NAME=value arguments set variables.
var declarers = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"export": true, "declare": true, "typeset": true, "local": true, "readonly": true}
}}

// CodeAssigns returns the code-carrying variables (CodeVar) the command
// sets (Command.assignments): in an assignment before it, as an argument
// of env, sudo and other wrappers that take NAME=value, or of export,
// declare and friends, in any of its readings. Each is returned once, as
// NAME.
func (c *Command) CodeAssigns() []string {
	var out []string
	c.assignments(func(a Assign) {
		if CodeVar(a.Name) && !hasString(out, a.Name) {
			out = append(out, a.Name)
		}
	})
	return out
}

func hasString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// startUnset are the environment variables the analysis takes to be
// unset when bash starts a command, because each changes how bash reads
// or runs the command line: cd's search path (CDPATH: cd etc would go to
// /etc), what a glob matches (GLOBIGNORE; dotglob or nocaseglob through
// BASHOPTS: cat * would read .env), shell options (SHELLOPTS), POSIX mode
// and GNU programs' option parsing, in which an option after an operand
// is a file (POSIXLY_CORRECT), files bash runs first (BASH_ENV, ENV) and
// the programs PATH lookup skips (EXECIGNORE), SSH_CLIENT and
// SSH2_CLIENT (with either set and SHLVL unset or 0, as `ssh host gen`
// starts gen, a bash built with SSH_SOURCE_BASHRC, Debian's among them,
// runs /etc/bash.bashrc and ~/.bashrc before the command: a PATH or a
// function set there changes what runs); and those that choose the
// repository git uses, or what of it, where the gate looks for it from
// the directory git starts in (perm's discoverRepos): GIT_DIR,
// GIT_WORK_TREE, GIT_COMMON_DIR (whose config git reads),
// GIT_OBJECT_DIRECTORY (which makes a directory without objects a
// repository to git) and GIT_INDEX_FILE (whose submodules git visits).
var startUnset = []string{"CDPATH", "GLOBIGNORE", "BASHOPTS", "SHELLOPTS", "POSIXLY_CORRECT", "BASH_ENV", "ENV", "EXECIGNORE",
	"SSH_CLIENT", "SSH2_CLIENT",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE"}

// CommandEnv returns env (NAME=value pairs) as the analysis assumes a
// command starts with: without startUnset, and with PATH holding only
// absolute directories that inWorkspace does not place in the workspace.
// A program named by a bare word (ls) is then never a file of the
// repository: with a PATH entry "", ".", "bin" or "node_modules/.bin"
// (relative to the command's directory), or one inside the workspace, a
// cloned repository's own ls would run where the gate allowed ls. It also
// returns the PATH entries it left out.
func CommandEnv(env []string, inWorkspace func(dir string) bool) (out, dropped []string) {
	out = make([]string, 0, len(env))
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if runtime.GOOS == "windows" {
			name = strings.ToUpper(name) // Path is PATH there
		}
		switch {
		case slices.Contains(startUnset, name):
			continue
		case name == "PATH":
			var dirs []string
			for _, d := range filepath.SplitList(val) {
				if filepath.IsAbs(d) && !inWorkspace(d) {
					dirs = append(dirs, d)
				} else {
					dropped = append(dropped, d)
				}
			}
			kv = "PATH=" + strings.Join(dirs, string(filepath.ListSeparator))
		}
		out = append(out, kv)
	}
	return out, dropped
}
