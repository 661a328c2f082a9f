package bash

import (
	"strings"
)

// sedOpts are GNU sed's options. -i has an optional attached suffix; as a
// flag, any cluster holding it still shows "-i".
var sedOpts = optSpec{
	flags: "nrEsuzi",
	args:  "elf",
	long: []string{"quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data",
		"posix", "debug", "sandbox", "follow-symlinks", "in-place"},
	longArgs: []string{"expression", "file", "line-length"},
	permute:  true,
}

// sedReadOnly accepts sed only in print mode (-n) with no in-place edit,
// no script file (its text cannot be checked) and a script without any
// command that writes, reads another file or runs a program.
func sedReadOnly(words []Word) ([]string, bool) {
	args, _, err := sedOpts.parse(words)
	if err != nil {
		return nil, false
	}
	var (
		quiet    bool
		scripts  []string
		operands []arg
	)
	for _, a := range args {
		switch {
		case a.opt == "":
			operands = append(operands, a)
		case a.opt == "-n" || a.opt == "--quiet" || a.opt == "--silent":
			quiet = true
		case a.opt == "-e" || a.opt == "--expression":
			scripts = append(scripts, a.val)
		case a.opt == "-i" || a.opt == "-f" || a.opt == "--file" || abbrev(a.opt, "--in-place", 4):
			return nil, false
		}
	}
	if scripts == nil {
		if len(operands) == 0 {
			return nil, false
		}
		scripts, operands = []string{operands[0].val}, operands[1:]
	}
	// sed joins -e scripts with newlines; check them the way it reads them.
	if !quiet || !sedPrintOnly(strings.Join(scripts, "\n")) {
		return nil, false
	}
	var paths []string
	for _, a := range operands {
		paths = append(paths, pathOf(a))
	}
	return paths, true
}

// sedPrintOnly reports whether a sed script is made only of commands that
// print or edit the pattern space: no w, W, r, R or e command, and no w or
// e flag on s. Anything it does not understand makes it false.
func sedPrintOnly(s string) bool {
	p := &sedScanner{s: s}
	for {
		p.skip(" \t\n;")
		if p.done() {
			return true
		}
		if !p.address() {
			return false
		}
		p.skip(" \t")
		if p.peek() == ',' {
			p.i++
			p.skip(" \t")
			if !p.address() {
				return false
			}
		}
		p.skip(" \t!")
		if p.done() || !p.command() {
			return false
		}
	}
}

type sedScanner struct {
	s string
	i int
}

func (p *sedScanner) done() bool { return p.i >= len(p.s) }

func (p *sedScanner) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedScanner) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedScanner) digits() { p.skip("0123456789") }

// toEnd moves past the rest of the line, or up to a ";" if semi is set.
func (p *sedScanner) toEnd(semi bool) {
	for !p.done() && p.s[p.i] != '\n' && !(semi && p.s[p.i] == ';') {
		p.i++
	}
}

// address reads one optional address: N, N~S, $, +N, ~N, /re/ or \cREc,
// the last two with I and M flags.
func (p *sedScanner) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' {
			p.i++
			p.digits()
		}
	case c == '$':
		p.i++
	case c == '+' || c == '~':
		p.i++
		p.digits()
	case c == '/':
		p.i++
		if !p.delimited('/') {
			return false
		}
		p.skip("IM")
	case c == '\\':
		if p.i+1 >= len(p.s) {
			return false
		}
		d := p.s[p.i+1]
		p.i += 2
		if !p.delimited(d) {
			return false
		}
		p.skip("IM")
	}
	return true
}

// delimited moves past text ending in an unescaped delimiter d. Like GNU
// sed it does not treat bracket expressions specially.
func (p *sedScanner) delimited(d byte) bool {
	if d == '\n' || d == '\\' {
		return false
	}
	for ; !p.done(); p.i++ {
		switch p.s[p.i] {
		case '\\':
			p.i++
		case d:
			p.i++
			return true
		case '\n':
			return false
		}
	}
	return false
}

// command reads one command with its arguments.
func (p *sedScanner) command() bool {
	c := p.s[p.i]
	p.i++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		p.skip(" \t")
		p.digits()
	case ':', 'b', 't', 'T', 'v':
		p.skip(" \t")
		p.toEnd(true)
	case '#':
		p.toEnd(false)
	case 'a', 'i', 'c':
		p.text()
	case 's':
		return p.substitute()
	case 'y':
		if p.done() {
			return false
		}
		d := p.s[p.i]
		p.i++
		return p.delimited(d) && p.delimited(d)
	default:
		return false // w, W, r, R, e, or not a command
	}
	return true
}

// text moves past the text of a, i or c: the rest of the line, and the
// following lines while a line ends in a backslash.
func (p *sedScanner) text() {
	for !p.done() {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '\n':
			return
		}
		p.i++
	}
}

// substitute reads s/re/repl/flags and rejects the w and e flags.
func (p *sedScanner) substitute() bool {
	if p.done() {
		return false
	}
	d := p.s[p.i]
	p.i++
	if !p.delimited(d) || !p.delimited(d) {
		return false
	}
	for !p.done() {
		switch c := p.s[p.i]; {
		case strings.IndexByte("gpiImM0123456789", c) >= 0:
			p.i++
		case c == ';' || c == '\n' || c == '}' || c == ' ' || c == '\t' || c == '#':
			return true
		default:
			return false // w file, e, or not a flag
		}
	}
	return true
}

// SedPrintOnly reports whether a sed script only prints or edits the
// pattern space: no command that writes or reads a file or runs a program.
// Anything it does not understand makes it false.
func SedPrintOnly(script string) bool { return sedPrintOnly(script) }
