// Package gitconfig reads git configuration files the way git itself
// does, so that what gen concludes from one (a repository's aliases, the
// files it includes, where its hooks are) is what git will act on.
//
// The syntax is git's (git-config(1), "CONFIGURATION FILE"): an entry may
// follow its section header on the same line; a value's double quotes may
// open and close anywhere in it; "#" and ";" start a comment outside
// quotes; \\, \", \n, \t and \b are escapes and a backslash at the end of
// a line continues the value on the next; any other escape, an unclosed
// quote or header, or a key that does not start with a letter makes the
// file one git refuses ("bad config line N"), and Parse returns an error
// naming that line.
package gitconfig

import (
	"fmt"
	"os/user"
	"path/filepath"
	"strings"
)

// Entry is one variable of a configuration file.
type Entry struct {
	// Section is the section's name, lower-cased.
	Section string
	// Subsection is the quoted part of the header ([includeIf
	// "gitdir:~/src/"]) as written, or the lower-cased rest of an old
	// [section.subsection] header; "" for none.
	Subsection string
	// Key is the variable's name, lower-cased.
	Key string
	// Value is the value with quotes, escapes and comments taken out, and
	// NoValue marks a variable written without "=" (a boolean true).
	Value   string
	NoValue bool
	// Line is the line the variable starts on, from 1.
	Line int
}

// Name is the entry's name as git config --list prints it:
// section.subsection.key, or section.key.
func (e Entry) Name() string {
	if e.Section == "" {
		return e.Key // a variable before any header
	}
	if e.Subsection == "" {
		return e.Section + "." + e.Key
	}
	return e.Section + "." + e.Subsection + "." + e.Key
}

// Parse returns the entries of the configuration text data in order. On a
// line git would refuse it returns the entries before it and an error
// naming the line.
func Parse(data []byte) ([]Entry, error) {
	const bom = "\xef\xbb\xbf" // skipped, as git does; a part of one is refused
	n := 0
	for n < len(bom) && n < len(data) && data[n] == bom[n] {
		n++
	}
	p := parser{data: data[n:], line: 1}
	if n > 0 && n < len(bom) {
		p.next()
		p.nl = false // git names the line of the character after it
		return nil, p.bad()
	}
	return p.entries()
}

type parser struct {
	data []byte
	pos  int
	// line is the line of the next character; nl is set when the last
	// one read ended a line (or the text).
	line int
	nl   bool
	eof  bool
}

// next returns the next character, with "\r\n" read as "\n" and the end
// of the text as a final "\n" (eof set), as git's get_next_char does.
func (p *parser) next() byte {
	if p.pos >= len(p.data) {
		if !p.eof {
			p.eof = true
			p.line++
		}
		p.nl = true
		return '\n'
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	p.nl = c == '\n'
	if p.nl {
		p.line++
	}
	return c
}

func (p *parser) entries() ([]Entry, error) {
	var out []Entry
	section, sub, comment := "", "", false
	for {
		start := p.line
		c := p.next()
		switch {
		case c == '\n':
			if p.eof {
				return out, nil
			}
			comment = false
			continue
		case comment || isSpace(c):
			continue
		case c == '#' || c == ';':
			comment = true
			continue
		case c == '[':
			var ok bool
			if section, sub, ok = p.header(); !ok {
				return out, p.bad()
			}
			continue
		case !isAlpha(c):
			return out, p.bad()
		}
		e := Entry{Section: section, Subsection: sub, Line: start}
		key := []byte{lower(c)}
		for {
			c = p.next()
			if p.eof || !isKeyChar(c) {
				break
			}
			key = append(key, lower(c))
		}
		e.Key = string(key)
		for c == ' ' || c == '\t' {
			c = p.next()
		}
		switch {
		case c == '\n':
			e.NoValue = true
		case c != '=':
			return out, p.bad()
		default:
			v, ok := p.value()
			if !ok {
				return out, p.bad()
			}
			e.Value = v
		}
		out = append(out, e)
	}
}

// bad is git's error for the line of the character last read (a newline
// is its line's last).
func (p *parser) bad() error {
	line := p.line
	if p.nl {
		line--
	}
	return fmt.Errorf("bad config line %d", line)
}

// header reads a section header after its "[": [name], [name.sub] or
// [name "sub"].
func (p *parser) header() (section, sub string, ok bool) {
	var name []byte
	for {
		c := p.next()
		switch {
		case p.eof:
			p.nl = false // git names the line after the last
			return "", "", false
		case c == ']':
			if len(name) == 0 {
				return "", "", false
			}
			s, old, dotted := strings.Cut(string(name), ".")
			// git names a variable of [a.] "a..key", and one of [.b]
			// ".b.key": refused here.
			return s, old, s != "" && (!dotted || old != "")
		case isSpace(c):
			// [name "sub"], and [name.old "sub"] (the subsection
			// old.sub); git takes [ "sub"] and [name ""] too, refused
			// here.
			if len(name) == 0 {
				return "", "", false
			}
			s, old, dotted := strings.Cut(string(name), ".")
			sub, ok := p.quotedHeader(c)
			if dotted {
				sub = old + "." + sub
			}
			return s, sub, ok && s != "" && sub != ""
		case !isKeyChar(c) && c != '.':
			return "", "", false
		}
		name = append(name, lower(c))
	}
}

// quotedHeader reads the rest of a [name "sub"] header from the space c
// that follows name, and returns sub.
func (p *parser) quotedHeader(c byte) (string, bool) {
	for isSpace(c) {
		if c == '\n' {
			return "", false
		}
		c = p.next()
	}
	if c != '"' {
		return "", false
	}
	var sub []byte
	for {
		c := p.next()
		if c == '\n' {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				return "", false
			}
		}
		sub = append(sub, c)
	}
	if p.next() != ']' {
		p.nl = false // git names the line after the header
		return "", false
	}
	return string(sub), true
}

// value reads a value after its "=", to the end of its last line. Each
// blank outside quotes inside the value is one space; blanks before and
// after it are dropped.
func (p *parser) value() (string, bool) {
	var v []byte
	quote, comment, spaces := false, false, 0
	for {
		c := p.next()
		if c == '\n' {
			return string(v), !quote
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(v) > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue // a continued line (at the end, the value ends)
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
		case '"':
			quote = !quote
			continue
		case 0:
			return "", false // git reads a NUL as the end of its string
		}
		v = append(v, c)
	}
}

// isSpace is git's isspace: its own, which knows no \v or \f.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func isAlpha(c byte) bool { return 'a' <= lower(c) && lower(c) <= 'z' }

func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ExpandPath is a path-valued variable's value p as git expands it
// (interpolate_path): "~" and "~/..." under home, "~USER/..." under that
// user's home directory. ok is false where gen cannot tell what git makes
// of it: an unknown user, no home, or git's install prefix (%(prefix)/).
func ExpandPath(p, home string) (_ string, ok bool) {
	if strings.HasPrefix(p, "%(prefix)/") {
		return "", false
	}
	name, rest, ok := strings.Cut(strings.TrimPrefix(p, "~"), "/")
	if !strings.HasPrefix(p, "~") {
		return p, true
	}
	dir := home
	if name != "" {
		u, err := user.Lookup(name)
		if err != nil {
			return "", false
		}
		dir = u.HomeDir
	}
	if dir == "" {
		return "", false
	}
	if !ok {
		return dir, true
	}
	return filepath.Join(dir, rest), true
}

// IncludePath is the file that the value p of an include.path or
// includeIf.*.path variable in the configuration file from names:
// ExpandPath's, relative to from's directory unless absolute.
func IncludePath(p, from, home string) (string, bool) {
	p, ok := ExpandPath(p, home)
	if ok && !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return p, ok
}
