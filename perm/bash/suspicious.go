package bash

import (
	"path"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gen-run/gen/internal/lazy"
)

// The Suspicious labels. They are stable: the engine and people read them.
const (
	labelNestedSubst   = "nested command substitution"
	labelControl       = "control character in command"
	labelZeroWidth     = "zero-width character in command"
	labelBidi          = "bidi control character in command"
	labelIFS           = "IFS manipulation"
	labelBackslash     = "backslash-obfuscated flag"
	labelProcEnviron   = "/proc environ access"
	labelUnparseable   = "unparseable nested shell string"
	labelDepth         = "nested shell strings too deep"
	labelDynamicName   = "dynamic command name"
	labelGlobName      = "glob in command name"
	labelTooWrapped    = "command too complex to normalise"
	labelSubscript     = "substitution in quoted array subscript"
	labelZshPrivilege  = "zsh privileged builtin " // + the builtin's name
	labelFormat        = "invisible format character in command"
	labelFiller        = "Hangul filler character in command"
	labelHash          = "hash -p rebinds a command name"
	labelFuncPath      = "function named like a path"
	labelEnable        = "enable changes which builtins run"
	labelAliases       = "alias expansion enabled"
	labelAliasVar      = "assignment to BASH_ALIASES or BASH_CMDS"
	labelPrompt        = "prompt expansion (${x@P}) runs the value's substitutions"
	labelRedirectTwice = "a >& redirect to a file whose name bash expands twice"
	labelCloseJoined   = "a >&- or <&- joined to the next word, which bash reads as a word of the command"
	labelShellOption   = "shell option that changes how bash reads the script"
	labelCompound      = "a declaration may give an array a value bash reads as a compound assignment, whose $(...) run"
	labelLocale        = "locale string $\"...\", whose text a message catalogue may replace"
)

// quietTransform reports whether ${x@op} runs nothing: every operator
// bash has but P, which expands the value as a prompt string, command
// substitutions included.
func quietTransform(op string) bool {
	return len(op) == 1 && strings.Contains("QEAaKkUuL", op)
}

// text checks the characters of shell source: invisible or control
// characters make what a person reviews differ from what runs. (Invalid
// UTF-8 never gets here: the parser rejects it.)
func (c *collector) text(src string) {
	if !c.script.tildePlus && strings.Contains(src, "~+") {
		c.script.tildePlus = true // Script.ReadsPWD
	}
	// Printable ASCII, tab and newline, nearly all there is, need no
	// look at their runes.
	i := 0
	for i < len(src) && (src[i] >= 0x20 && src[i] < 0x7f || src[i] == '\t' || src[i] == '\n') {
		i++
	}
	for _, r := range src[i:] {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			c.suspect(labelControl)
		case r >= 0x200b && r <= 0x200f || r >= 0x2060 && r <= 0x2064 || r == 0xfeff:
			c.suspect(labelZeroWidth)
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			c.suspect(labelBidi)
		case unicode.Is(unicode.Cf, r) || r >= 0xe0000 && r <= 0xe007f:
			c.suspect(labelFormat) // soft hyphen, tag characters, ...
		case r == 0x3164 || r == 0x115f || r == 0x1160 || r == 0xffa0:
			c.suspect(labelFiller) // renders as nothing, yet is a letter
		}
	}
}

// word checks one word anywhere in the tree (arguments, assignment
// values, redirect targets, patterns).
// u is w unquoted already, or nil.
func (c *collector) word(w *syntax.Word, u *Word, st *walkState) {
	if len(w.Parts) == 0 {
		return
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && backslashFlag(lit.Value) {
		c.suspect(labelBackslash)
	}
	for _, p := range w.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok && dq.Dollar {
			// Bash reads $"..." through gettext with the domain in
			// TEXTDOMAIN from TEXTDOMAINDIR, which the script, its
			// environment or a file written before may set: the text
			// as written is one reading of it, not the one that runs
			// ($"ls" runs curl with a catalogue that says so).
			c.suspect(labelLocale)
		}
	}
	if u == nil {
		uw := unquote(w)
		u = &uw
	}
	if u.Static && substInSubscript(u.Value) {
		// Builtins that take variable names (unset, read, printf -v,
		// declare, [[ -v ]]) evaluate a subscript as arithmetic, which
		// runs substitutions: unset 'a[$(id)]' runs id.
		c.suspect(labelSubscript)
	}
	// A word that is not static is read as written, which is part of
	// src: without "/proc/" or "environ" in src it cannot match, and
	// skipping it keeps deeply nested words from being scanned once per
	// enclosing word.
	switch {
	case u.Static:
		if readsEnviron(u.Value, !u.Glob) {
			c.suspect(labelProcEnviron)
		}
	case st.mayReadEnviron():
		if readsEnviron(sourceText(st.src, w), false) {
			c.suspect(labelProcEnviron)
		}
	}
}

// substInSubscript reports a "$(" or "`" after a "[" with no "]" between
// them: a command substitution in an array subscript.
func substInSubscript(s string) bool {
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			return false
		}
		s = s[i+1:]
		seg := s
		end := strings.IndexByte(s, ']')
		if end >= 0 {
			seg = s[:end]
		}
		if strings.Contains(seg, "$(") || strings.IndexByte(seg, '`') >= 0 {
			return true
		}
		if end < 0 {
			return false
		}
		s = s[end+1:]
	}
}

// backslashFlag reports an option word written with backslash escapes
// (`\-rf`, `-\r\f`): it means the same as the plain flag and only serves
// to slip past text matching.
func backslashFlag(lit string) bool {
	if strings.IndexByte(lit, '\\') < 0 {
		return false
	}
	if strings.HasPrefix(lit, `\-`) {
		return true
	}
	if !strings.HasPrefix(lit, "-") {
		return false
	}
	for i := 1; i+1 < len(lit); i++ {
		if lit[i] == '\\' && isASCIILetter(rune(lit[i+1])) {
			return true
		}
	}
	return false
}

// readsEnviron reports a reference to a process environment file under
// /proc (/proc/self/environ, /proc/1/environ, /proc/$$/environ) or a path
// whose last element is "environ". A /proc path that is not exact
// (globbed or built from expansions) counts too: it may name one.
func readsEnviron(text string, exact bool) bool {
	if !strings.Contains(text, "environ") {
		return !exact && strings.Contains(text, "/proc/") // the common case, in one look
	}
	if i := strings.Index(text, "/proc/"); i >= 0 {
		if !exact || strings.Contains(text[i:], "environ") {
			return true
		}
	}
	return path.Base(text) == "environ"
}

// zshPrivileged are zsh builtins (most from zsh modules) that give raw
// file, socket or pseudo-terminal access past any command-name check.
var zshPrivileged = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"zmodload": true, "zsocket": true, "ztcp": true, "zpty": true,
		"zf_rm": true, "zf_mv": true, "zf_ln": true, "zf_chmod": true,
		"zf_chown": true, "zf_mkdir": true, "zf_rmdir": true,
		"sysopen": true, "syswrite": true, "sysread": true,
	}
}}

// command checks one simple command: its leading assignments and every
// reading of it.
func (c *collector) command(cmd *Command) {
	for _, a := range cmd.Assigns {
		c.noteAssign(a)
	}
	c.checkReadings(cmd.variants())
}

// arithArgs notes the commands that evaluate what the script may set as
// arithmetic with no arithmetic in the source to show it: declare -i
// (typeset -i, local -i) makes every later assignment of the variable
// arithmetic, and test -v reads its operand's subscript as arithmetic.
// Either may apply to any variable (arithAny).
func (c *collector) arithArgs(prog string, args []Word) {
	for _, a := range args {
		if !a.Static {
			continue
		}
		switch {
		case (prog == "declare" || prog == "typeset" || prog == "local") && ClusterHas(a.Value, 'i'),
			(prog == "test" || prog == "[") && a.Value == "-v":
			c.script.arithAny = true
			return
		}
	}
}

// checkReadings checks readings of a command. Constant propagation calls
// it again with only the readings it adds.
func (c *collector) checkReadings(vs [][]Word) {
	for _, v := range vs {
		// The program of every reading: `$r -rf /`, `sudo $(echo rm)`,
		// `{rm,-rf,/}` and `/bin/r? x` run what no rule can name.
		switch {
		case len(v) == 0:
			continue
		case !v[0].Static:
			c.suspect(labelDynamicName)
			continue
		case v[0].Glob:
			c.suspect(labelGlobName)
			continue
		}
		prog := path.Base(v[0].Value)
		args := v[1:]
		c.arithArgs(prog, args)
		switch {
		case prog == "hash" && hasShort(args, 'p', "pt"):
			c.suspect(labelHash)
		case prog == "enable" && len(args) > 0:
			c.suspect(labelEnable)
		case prog == "shopt" && hasWord(args, "expand_aliases"):
			c.suspect(labelAliases)
		case declarers.Get()[prog]:
			c.noteDeclaration(prog, args)
		case prog == "mapfile" || prog == "readarray" || prog == "read" && hasShort(args, 'a', "dinNptu"):
			c.compound.arraysAny = true // the array it fills (read -a y, mapfile y)
		case prog == "set" || prog == "shopt":
			if o := unquietOptions(prog, args); o != "" {
				c.suspect(labelShellOption)
			}
		}
		if zshPrivileged.Get()[prog] {
			c.suspect(labelZshPrivilege + prog)
		}
		if setters.Get()[prog] || broadWrappers.Get()[prog].assigns {
			c.noteSetArgs(prog, v)
		}
	}
}
