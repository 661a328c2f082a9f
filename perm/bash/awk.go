package bash

import (
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// awkSpec holds the options every awk (gawk, mawk, the one true awk,
// busybox's and toybox's) reads alike and that only set data: -F fs and
// -v name=value. Any other option is unknown, so the command line is not
// verified: gawk's -f/--file, -e/--source, -E/--exec, -i/--include and
// -l/--load read or load code, -d, -o and -p write files, -D reads
// commands from stdin, and mawk's -W exec runs a file.
var awkSpec = optSpec{args: "Fv", strict: true, exact: true}

// AwkCode is awkCode for the arguments of each reading of c whose deny
// form is its program word, a space and tail (FormArgs). A form made
// otherwise (one whose words no reading holds) cannot be read: so it
// says.
func (c *Command) AwkCode(tail string) string {
	readings := c.FormArgs(tail)
	if readings == nil {
		return "arguments the gate cannot read"
	}
	for _, args := range readings {
		if why := awkCode(args); why != "" {
			return why
		}
	}
	return ""
}

// FormArgs returns the arguments of each reading of c whose deny form
// (raw, value or quoted, as AppendDenyForms joins it) is its program
// word, a space and tail: the words the form was made of, which its text
// does not keep apart (a quoted word with a space in it reads as two);
// nil when no reading made it.
func (c *Command) FormArgs(tail string) [][]Word {
	var out [][]Word
	for _, v := range c.variants() {
		if len(v) > 0 && formTail(v[1:], tail) {
			out = append(out, v[1:])
		}
	}
	return out
}

// formTail reports whether words joined as a deny form joins them, raw,
// by value or quoted, is tail.
func formTail(words []Word, tail string) bool {
	return join(words, rawText) == tail || join(words, valueText) == tail || join(words, quotedText) == tail
}

// AwkCodeOf is awkCode, for callers that hold the words themselves.
func AwkCodeOf(args []Word) string { return awkCode(args) }

// awkCode reports why an awk command line, the words after the program
// name, may run code or touch files the gate cannot see, or "" when it is
// verified: every word static, options only -F and -v (to a variable
// awkAssignable accepts), a program awkProgram accepts, and operands that
// are files or such assignments, none of which may be taken for an
// option (toybox's awk reads options after operands).
func awkCode(args []Word) string {
	for _, w := range args {
		if !w.Static {
			return "argument " + w.Raw + " is not static"
		}
	}
	opts, n, err := awkSpec.parse(args)
	if err != nil {
		return "option " + args[n].Value + " outside the verified set"
	}
	for _, o := range opts {
		if o.opt == "-v" {
			if why := awkAssignment(o.val); why != "" {
				return why
			}
		}
	}
	if n >= len(args) {
		return "without a program"
	}
	if why := awkProgram(args[n].Value); why != "" {
		return "program " + why
	}
	for _, w := range args[n+1:] {
		if why := awkOperand(w); why != "" {
			return why
		}
	}
	return ""
}

// awkAssignment checks the value of -v: name=value, the name one
// awkVariable accepts. The value is data.
func awkAssignment(a string) string {
	name, _, ok := strings.Cut(a, "=")
	if !ok || !isAwkName(name) {
		return "-v " + a + " is not an assignment"
	}
	if why := awkVariable(name); why != "" {
		return "-v assigns " + why
	}
	return ""
}

// awkOperand checks an operand after the program: a file name, or an
// assignment awk makes when it reaches it (name=value), whose name must
// be one awkVariable accepts. A word that is, or may be once globbed, an
// option is not verified: toybox's awk takes options after operands.
func awkOperand(w Word) string {
	v := w.Value
	if strings.HasPrefix(v, "-") && v != "-" {
		return "operand " + v + " may be an option"
	}
	if w.Glob {
		// Only a pattern with a directory before its first wildcard
		// names files that can be neither options nor assignments.
		lit := v[:strings.IndexAny(v+"*", "*?[")]
		if !strings.Contains(lit, "/") {
			return "operand " + v + " may match an option or an assignment"
		}
	}
	if name, _, ok := strings.Cut(v, "="); ok && isAwkName(name) {
		if why := awkVariable(name); why != "" {
			return "operand assigns " + why
		}
	}
	return ""
}

// isAwkName reports whether s is an awk identifier.
func isAwkName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLabelChar(s[i]) {
			return false
		}
	}
	return true
}

// The names an awk program may use, by what they are. Every awk's
// special variables are written in capitals: a name without a lower-case
// letter is accepted only from awkVars, so ARGV, ARGC, ENVIRON, PROCINFO,
// SYMTAB, FUNCTAB and any variable a later awk adds are not. CONVFMT and
// OFMT are left out: some awks hand them to the C library's printf as
// they are.
var (
	// awkKeywords are the keywords every awk knows alike (gawk's switch,
	// case, default, BEGINFILE, ENDFILE and nextfile, and func, are
	// variables in some awks: a "/" after them is read two ways).
	awkKeywords = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return setOf("BEGIN END function if else while for do break continue next exit return delete in print printf")
	}}
	// awkPure are the built-in functions that compute a value and touch
	// nothing outside the program.
	awkPure = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return setOf("length substr index split sub gsub match sprintf tolower toupper int sqrt exp log sin cos atan2 rand srand")
	}}
	// awkVars are the special variables that only describe or shape the
	// records and fields.
	awkVars = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return setOf("NR NF FNR FS OFS RS ORS SUBSEP RSTART RLENGTH FILENAME")
	}}
	// awkReserved are the other keywords and built-in functions of gawk,
	// mawk, the one true awk and busybox's awk: getline, system, close
	// and fflush reach outside the program, and the rest are not
	// verified. A name here is never taken for a user's variable.
	awkReserved = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return setOf("getline system close fflush func nextfile switch case default " +
			"and or xor compl lshift rshift strftime systime mktime gensub patsplit asort asorti isarray typeof " +
			"strtonum bindtextdomain dcgettext dcngettext mkbool")
	}}
)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// awkVariable reports why name may not be assigned or used as a variable
// (a reserved name or a special variable not in awkVars), or "".
func awkVariable(name string) string {
	switch {
	case awkVars.Get()[name]:
		return ""
	case awkKeywords.Get()[name] || awkPure.Get()[name] || awkReserved.Get()[name]:
		return "the built-in " + name
	case strings.ToLower(name) != name && strings.ToUpper(name) == name:
		return "the special variable " + name
	}
	return ""
}

// awkProgram reports why an awk program may run a command, read or write
// a file or reach the environment, or "" when every token of it is from
// the verified subset: literals, fields, user variables and those awkVars
// holds, operators (no "|"), the keywords in awkKeywords, calls of the
// functions in awkPure and of the program's own functions, and print and
// printf not redirected. A ">" from a print or printf keyword to the end
// of its statement (";", "}" or a newline that ends a statement) counts
// as a redirection: a comparison there is not verified either. Where
// awks may split the program into tokens differently (a "/" that is a
// division to one and a regular expression to another) it is not
// verified.
func awkProgram(src string) string {
	toks, why := awkTokens(src)
	if why != "" {
		return why
	}
	funcs, why := awkFunctions(toks)
	if why != "" {
		return why
	}
	inPrint := false
	for i, t := range toks {
		switch t.kind {
		case awkName:
			if why := awkNameUse(toks, i, funcs); why != "" {
				return why
			}
			if t.text == "print" || t.text == "printf" {
				inPrint = true
			}
		case awkNewline:
			if i > 0 && endsOperand(toks[i-1]) {
				inPrint = false
			}
		case awkOp:
			switch t.text {
			case ";", "}":
				inPrint = false
			case ">", ">>", ">=":
				if inPrint {
					return "redirects print or printf"
				}
			case "/", "/=":
				// A function's name before "/" (length /x/) leaves it
				// to each awk whether a regular expression follows.
				if p := toks[i-1]; p.kind == awkName && (awkPure.Get()[p.text] || funcs[p.text]) {
					return "has a \"/\" after " + p.text + " that awks read differently"
				}
			}
		}
	}
	return ""
}

// awkNameUse checks the name toks[i]: a keyword, a verified built-in,
// a call of one of the program's functions (funcs), or a variable.
func awkNameUse(toks []awkTok, i int, funcs map[string]bool) string {
	name := toks[i].text
	if awkKeywords.Get()[name] || awkPure.Get()[name] || funcs[name] {
		return ""
	}
	if why := awkVariable(name); why != "" {
		return "uses " + why
	}
	if i+1 < len(toks) && toks[i+1].text == "(" && !toks[i+1].space {
		return "calls " + name + ", which it does not define"
	}
	return ""
}

// awkFunctions returns the names of the functions the program defines,
// each a name awkVariable accepts.
func awkFunctions(toks []awkTok) (map[string]bool, string) {
	funcs := map[string]bool{}
	for i, t := range toks {
		if t.kind != awkName || t.text != "function" {
			continue
		}
		if i+1 >= len(toks) || toks[i+1].kind != awkName {
			return nil, "has a function without a name"
		}
		name := toks[i+1].text
		if awkKeywords.Get()[name] {
			return nil, "defines a function named " + name
		}
		if why := awkVariable(name); why != "" {
			return nil, "defines " + why
		}
		funcs[name] = true
	}
	return funcs, ""
}

// endsOperand reports whether t may end an expression, after which a
// newline ends the statement (after an operator, "," or "(" awks go on
// to the next line).
func endsOperand(t awkTok) bool {
	switch t.kind {
	case awkName, awkNumber, awkString, awkRegex:
		return true
	case awkOp:
		return t.text == ")" || t.text == "]" || t.text == "++" || t.text == "--"
	}
	return false
}

type awkKind uint8

const (
	awkName awkKind = iota + 1
	awkNumber
	awkString
	awkRegex
	awkNewline
	awkOp
)

// awkTok is one token of an awk program.
type awkTok struct {
	kind awkKind
	text string
	// space reports white space, a comment or a continued line before
	// the token: a user function's call has none before its "(".
	space bool
}

// awkOps are the operators and punctuation of the verified subset,
// longest first where one starts another. "|" (a pipe or a coprocess)
// and "&" alone are not among them; neither are "@" (gawk's directives
// and indirect calls), "`", "'", "." or a backslash other than one that
// continues a line.
var awkOps = []string{
	"&&", "||", "==", "<=", ">=", "!=", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", ">>",
	"+", "-", "*", "/", "%", "^", "!", ">", "<", "~", "?", ":", ",", ";", "{", "}", "(", ")", "[", "]", "$", "=",
}

// awkTokens splits an awk program into tokens, or says why it cannot.
func awkTokens(s string) ([]awkTok, string) {
	var toks []awkTok
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		start := i
		var kind awkKind
		switch {
		case c == ' ' || c == '\t':
			i++
			space = true
			continue
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
			space = true
			continue
		case c == '#':
			// A comment ends at the newline, continued or not: where an
			// awk reads a continued comment on, this reads code.
			for i < len(s) && s[i] != '\n' {
				i++
			}
			space = true
			continue
		case c == '\n':
			i++
			kind = awkNewline
		case c == '"':
			end, ok := awkQuoted(s, i)
			if !ok {
				return nil, "has a string that does not end on its line"
			}
			i, kind = end, awkString
		case c == '/' && regexNext(toks):
			if why := regexAfter(toks); why != "" {
				return nil, why
			}
			end, why := awkRegexEnd(s, i)
			if why != "" {
				return nil, why
			}
			i, kind = end, awkRegex
		case c == '_' || isASCIILetter(rune(c)):
			for i < len(s) && isLabelChar(s[i]) {
				i++
			}
			kind = awkName
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i = awkNumberEnd(s, i)
			kind = awkNumber
		default:
			op := awkOperator(s[i:])
			if op == "" {
				return nil, "has " + quoteString(string(c)) + " outside the verified subset"
			}
			i += len(op)
			kind = awkOp
		}
		toks = append(toks, awkTok{kind: kind, text: s[start:i], space: space})
		space = false
	}
	return toks, ""
}

// awkOperator returns the operator s starts with, or "".
func awkOperator(s string) string {
	for _, op := range awkOps {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// regexNext reports whether a "/" after toks starts a regular
// expression: where an operand is due, as every awk decides, not after
// one (a name that is not a keyword, a literal, ")" or "]").
func regexNext(toks []awkTok) bool {
	if len(toks) == 0 {
		return true
	}
	t := toks[len(toks)-1]
	switch t.kind {
	case awkName:
		return awkKeywords.Get()[t.text]
	case awkNumber, awkString, awkRegex:
		return false
	case awkOp:
		return t.text != ")" && t.text != "]"
	}
	return true
}

// regexAfter rejects a regular expression where awks may read a "/"
// otherwise: after "$", "++" or "--" (an operand due or not).
func regexAfter(toks []awkTok) string {
	if len(toks) == 0 {
		return ""
	}
	switch t := toks[len(toks)-1]; t.text {
	case "$", "++", "--":
		return "has a \"/\" after " + t.text + " that awks read differently"
	}
	return ""
}

// awkQuoted returns the end of the string starting at s[i] (a '"'): past
// its closing quote, with backslash escapes, on one line.
func awkQuoted(s string, i int) (int, bool) {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
			if i < len(s) && s[i] == '\n' {
				return 0, false
			}
		case '\n':
			return 0, false
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// awkRegexEnd returns the end of the regular expression starting at s[i]
// (a '/'): past the first "/" that is neither escaped nor inside a
// bracket expression. So that every awk ends it there, whether its
// lexer knows bracket expressions or not, a "/" inside one (as the
// widest reading of it has it) is refused, and so is "/=" (an operator
// to some awks) and a newline.
func awkRegexEnd(s string, i int) (int, string) {
	if strings.HasPrefix(s[i:], "/=") {
		return 0, "has a regular expression starting with \"=\" that awks read differently"
	}
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
			if i >= len(s) || s[i] == '\n' {
				return 0, "has a regular expression that does not end on its line"
			}
		case '\n':
			return 0, "has a regular expression that does not end on its line"
		case '/':
			return i + 1, ""
		case '[':
			end, ok := awkBracketEnd(s, i)
			if !ok {
				return 0, "has a bracket expression that awks may end differently"
			}
			i = end - 1
		}
	}
	return 0, "has a regular expression that does not end"
}

// awkBracketEnd returns the end of the bracket expression starting at
// s[i] (a '['), past its "]", read as widely as an awk may read it: a
// backslash escapes the next character, "]" first (or after "^") is a
// member, and "[:", "[." and "[=" open a class that ends at ":]", ".]"
// or "=]". It is false for a "/" or a newline anywhere inside.
func awkBracketEnd(s string, i int) (int, bool) {
	i++
	if i < len(s) && s[i] == '^' {
		i++
	}
	if i < len(s) && s[i] == ']' {
		i++
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '/' || c == '\n':
			return 0, false
		case c == '\\':
			i++
			if i >= len(s) || s[i] == '/' || s[i] == '\n' {
				return 0, false
			}
		case c == ']':
			return i + 1, true
		case c == '[' && i+1 < len(s) && strings.IndexByte(":.=", s[i+1]) >= 0:
			end := string(s[i+1]) + "]"
			j := strings.Index(s[i+2:], end)
			if j < 0 || strings.ContainsAny(s[i+2:i+2+j], "/\\\n") {
				return 0, false
			}
			i += 2 + j + 1
		}
	}
	return 0, false
}

// awkNumberEnd returns the end of the number starting at s[i]: digits
// and dots, then an exponent if digits follow its "e".
func awkNumberEnd(s string, i int) int {
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for i = j; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			}
		}
	}
	return i
}
