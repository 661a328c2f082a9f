package perm

import (
	"os"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/perm/bash"
)

// mention is a path a command's words may name, whatever the program: an
// operand, an option's value (--opt=VALUE, -oVALUE, -o VALUE), an
// assignment's value, an @file, or a path-looking token inside a code
// string (python3 -c "open('.env')", sed '1r secrets/key').
//
// The gate cannot know what an unknown program does with a word, so every
// such reading is checked: against Read deny rules (Deny), Edit deny rules
// and sensitive paths (Deny or bypass-immune Ask, unless a verified spec
// says the program only reads its arguments) and the workspace boundary
// (never auto-allowed outside it).
type mention struct {
	// word is the text that names the path, as the command has it.
	word string
	t    target
	// fold is t lower-cased once a rule needs it (deny rules match it
	// too): a mention is matched against many rules.
	fold foldCache
	// weak marks readings that are likely not paths (the tail of a short
	// option cluster, -xvfFILE; the part after "REV:"): they are checked
	// against Read deny rules only, so that `git add config.env` is not a
	// sensitive .env.
	weak bool
}

// maxMentions bounds the readings checked per command, and
// maxReadingBytes the text of those one word yields (a:a:a:... reads as
// every suffix after a ":"). A command with more is unsure: it cannot be
// allowed past a Read deny rule.
const (
	maxMentions     = 2048
	maxReadingBytes = 1 << 20
)

// codeSeparators split a word holding code (python3 -c "open('x')") into
// the tokens that may be paths.
const codeSeparators = " \t\n\r'\"()[]{}<>;|&!$`,\\^"

// wordClass marks the bytes readings looks for: sepByte for
// codeSeparators, and valueByte for "=" and ":", which may start a value
// (of=FILE, REV:PATH). All are ASCII, and no byte of a multi-byte UTF-8
// character is, so bytes can be tested one at a time.
var wordClass = func() (t [256]uint8) {
	for i := range len(codeSeparators) {
		t[codeSeparators[i]] = sepByte
	}
	t['='], t[':'] = valueByte, valueByte
	return t
}()

const (
	sepByte   = 1
	valueByte = 2
)

// hasClass reports whether s holds a byte of one of the classes in mask.
func hasClass(s string, mask uint8) bool {
	for i := 0; i < len(s); i++ {
		if wordClass[s[i]]&mask != 0 {
			return true
		}
	}
	return false
}

// reading is a candidate path text and whether it is weak.
type reading struct {
	text string
	weak bool
}

// maxCluster bounds the short-option clusters whose every tail is read as
// a possible value (-xvfFILE); a longer one makes the readings unsure.
const maxCluster = 128

// readings appends to out every text in the static word value v that may
// name a path. Option words (-x...) are not themselves paths; their values
// are. unsure reports a cluster too long to read every way.
func readings(out []reading, v string) (_ []reading, unsure bool) {
	// Most words have nothing to take apart: they are read as they are.
	if v != "" && v[0] != '-' && v[0] != '@' && !hasClass(v, sepByte|valueByte) {
		return append(out, reading{text: v}), false
	}
	return allReadings(out, v)
}

// allReadings is readings taking every word apart. Each text is taken
// apart once (seen), so that option clusters nested in values
// (-a-a-a...) cost at most maxCluster readings each, not exponentially
// many; past maxCluster only the value the clustered options end in is
// read. At maxMentions readings in out, or maxReadingBytes of text from
// v, it stops, unsure.
func allReadings(out []reading, v string) (_ []reading, unsure bool) {
	seen := map[string]bool{}
	size, full := 0, false // the text of the readings of v so far; past a bound
	// read appends s as a reading, unless a bound is passed.
	read := func(s string, weak bool) bool {
		if len(out) >= maxMentions || size+len(s) > maxReadingBytes {
			full, unsure = true, true // too many to read: the rest is not read
			return false
		}
		out = append(out, reading{text: s, weak: weak})
		size += len(s)
		return true
	}
	var add func(s string, weak, split bool)
	add = func(s string, weak, split bool) {
		if s == "" || s == "-" || s == "--" || full {
			return
		}
		if prev, ok := seen[s]; ok && (!prev || weak) {
			return // already read at least as strongly
		}
		seen[s] = weak
		if split && hasClass(s, sepByte) {
			// The whole word may be a file name with spaces; its tokens
			// may be paths inside code.
			if !read(s, weak) {
				return
			}
			for start, i := 0, 0; i <= len(s); i++ {
				if i == len(s) || wordClass[s[i]]&sepByte != 0 {
					if i > start {
						add(s[start:i], weak, false)
					}
					start = i + 1
				}
			}
			return
		}
		switch {
		case strings.HasPrefix(s, "--"):
			if _, val, ok := strings.Cut(s, "="); ok {
				add(val, weak, false)
			}
			return
		case strings.HasPrefix(s, "-"):
			// -oVALUE: the value follows the option letter; in a
			// cluster (-xvfFILE) it may follow any of them.
			if len(s) <= 2 {
				return
			}
			if len(s) > maxCluster {
				// Too long to read every way. Its value is read, past
				// the options chained in front of it (-a-a-...-aFILE),
				// as reading each in turn would.
				unsure = true
				val := s[2:]
				for len(val) > maxCluster && val[0] == '-' && !strings.HasPrefix(val, "--") {
					val = val[2:]
				}
				add(val, weak, false)
				return
			}
			add(s[2:], weak, false)
			for i := 3; i < len(s); i++ {
				add(s[i:], true, false)
			}
			return
		}
		if !read(s, weak) {
			return
		}
		if rest, ok := strings.CutPrefix(s, "@"); ok {
			add(rest, weak, false) // curl -d @file
		}
		if _, val, ok := strings.Cut(s, "="); ok {
			add(val, weak, false) // of=FILE, VAR=FILE
		}
		if i := strings.IndexByte(s, ':'); i > 0 && !strings.HasPrefix(s, "/") {
			add(s[i+1:], true, false) // git show REV:PATH
		}
	}
	add(v, false, true)
	return out, unsure
}

// mentionsOf returns every path the words and assignments of a command
// part may name, resolved from each directory the command may run in. For
// a glob word it adds every file the glob matches now; only a glob in the
// last segment is expanded (one directory read), and unsure reports a
// deeper one, a relative path after a cd to a computed directory, a word
// known only at run time that may name a file to its program
// (bash.UncheckedOperand), or more than maxMentions readings. The targets
// of links the command makes count, from the links' directories
// (bash.LinkTargets).
func (c *call) mentionsOf(pt *part) (ms []mention, unsure bool) {
	if pt.mentionsDone {
		return pt.mentions, pt.mentionsUnsure
	}
	pt.mentionsDone = true
	// texts is per-call scratch: the readings are copied into mentions.
	texts := c.readScratch[:0]
	// static adds the readings of the static word w, the i-th.
	static := func(w bash.Word, i int) {
		if w.Value == "" {
			return
		}
		start := len(texts)
		var unsure bool
		texts, unsure = readings(texts, w.Value)
		pt.mentionsUnsure = pt.mentionsUnsure || unsure
		for k := start; k < len(texts); k++ {
			r := &texts[k]
			// The program word is a path when it runs a file
			// (./secrets/run.sh reads it); only Read deny rules judge
			// it, so `cp` is not the file ./cp.
			r.weak = r.weak || i == 0
			if strings.HasPrefix(r.text, "~") && !w.Tilde {
				r.text = "./" + r.text // a quoted ~ is a literal name
			}
		}
		if i > 0 && w.Glob && !strings.HasPrefix(w.Value, "-") {
			c.globMentions(pt, w)
		}
	}
	// A word known only at run time may name any file to a program that
	// may read one; ln's link targets are read from the link's
	// directory.
	pt.mentionsUnsure = pt.mentionsUnsure || pt.cmd.UncheckedOperand()
	for _, p := range pt.cmd.LinkTargets() {
		texts = append(texts, reading{text: p})
	}
	for i, w := range pt.cmd.Words {
		if w.Static {
			static(w, i)
			continue
		}
		// Its literal parts may still name a denied path ("$X"/.env,
		// a=( .env )): Read deny rules judge them.
		start := len(texts)
		var unsure bool
		texts, unsure = readings(texts, w.Raw)
		for k := start; k < len(texts); k++ {
			texts[k].weak = true
		}
		pt.mentionsUnsure = pt.mentionsUnsure || unsure
		// The words a brace expansion makes (.{env,x}) are the
		// command's arguments as surely as static ones.
		if i > 0 {
			for _, b := range w.Braces {
				static(b, i)
			}
		}
	}
	for _, a := range pt.cmd.Assigns {
		text := a.Value
		if !a.Static {
			text = a.Raw
		}
		start := len(texts)
		var unsure bool
		texts, unsure = readings(texts, text)
		pt.mentionsUnsure = pt.mentionsUnsure || unsure
		for k := start; k < len(texts); k++ {
			texts[k].weak = texts[k].weak || !a.Static
		}
	}
	c.readScratch = texts[:0]
	// The scratch keeps no text from call to call (its strings point
	// into the script): what this part used is cleared when done.
	defer clear(texts)
	if len(texts) > maxMentions {
		pt.mentionsUnsure = true
		texts = texts[:maxMentions]
	}
	// A relative reading names a path from every base directory.
	n := len(texts) * max(len(c.bases), 1)
	if pt.mentions == nil {
		pt.mentions = c.mentionSlice(n)
	} else {
		pt.mentions = slices.Grow(pt.mentions, n)
	}
	for _, r := range texts {
		ts, ok := c.shellTargets(r.text)
		if !ok {
			pt.mentionsUnsure = true
		}
		for _, t := range ts {
			pt.mentions = append(pt.mentions, mention{word: r.text, t: t, weak: r.weak})
		}
	}
	return pt.mentions, pt.mentionsUnsure
}

// globMentions adds the files a glob word matches now (globMatches), from
// every directory the gate knows the command may run in; the command is
// unsure when they may not be all.
func (c *call) globMentions(pt *part, w bash.Word) {
	ms, sure := c.globMatches(shellPath(w))
	pt.mentionsUnsure = pt.mentionsUnsure || !sure
	for _, m := range ms {
		pt.mentions = append(pt.mentions, mention{word: m, t: c.target(m)})
	}
}

// maxGlobSegments bounds the path elements holding glob characters that
// globMatches expands (each is one directory read per match before it).
const maxGlobSegments = 3

// hasGlobMeta reports whether s holds a glob character (*, ? or [). It is
// strings.ContainsAny(s, "*?["), byte by byte: globDeny asks it of every
// form of every command, most of them a few bytes long.
func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// globSegments counts the elements of p that hold glob characters.
func globSegments(p string) int {
	n := 0
	for _, e := range strings.Split(p, "/") {
		if hasGlobMeta(e) {
			n++
		}
	}
	return n
}

// exists reports whether p names a file (a link, dangling or not, counts).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// statOnly are programs whose operands are only looked up, never read or
// written: a sensitive directory named to them is not touched.
var statOnly = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"cd": true, "pushd": true, "popd": true, "test": true, "[": true, "[[": true}
}}

// onlyReads reports whether a command part is verified to only read its
// arguments (a read-only command whose option spec is complete, or a
// program that only looks paths up), so that naming a sensitive or
// Edit-denied path does not touch it.
func (pt *part) onlyReads() bool {
	if pt.readOnly {
		return true
	}
	name, ok := pt.cmd.Name()
	return ok && statOnly.Get()[name]
}

// sensitiveMention returns the first strong mention of a command that is a
// sensitive path, with its label, unless the command only reads.
func (c *call) sensitiveMention(pt *part) (word, label string) {
	if pt.onlyReads() {
		return "", ""
	}
	ms, _ := c.mentionsOf(pt)
	for _, m := range ms {
		if m.weak || harmlessDevice(m.t.abs) || !m.t.isSensitive() {
			continue
		}
		if l := sensitive(m.t); l != "" {
			return m.word, l
		}
	}
	return "", ""
}

// harmlessDevice reports the device files commands name without risk
// (diff /dev/null x, dd if=/dev/zero).
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// outsideMention returns the first strong mention of a command that names
// an existing file outside the workspace, or "". A read-only command that
// names one is never auto-allowed, even where its spec does not say the
// word is a path (echo ~/.ssh/id_rsa is harmless, but the gate does not
// guess). Files that do not exist cannot be read, and writes are checked
// as write parts.
func (c *call) outsideMention(pt *part) string {
	ms, _ := c.mentionsOf(pt)
	for _, m := range ms {
		if m.weak || harmlessDevice(m.t.abs) || inWorkspace(c.ws, m.t) {
			continue
		}
		if exists(m.t.abs) || exists(m.t.real) {
			return m.word
		}
	}
	return ""
}

// mentionMatch returns the first mention of a command a path rule covers,
// broadly: Read rules are checked against every reading, Edit and Write
// rules against strong ones of commands that do not only read.
func (c *call) mentionMatch(cr *crule, pt *part) (mention, bool) {
	r := cr.Rule
	ms, _ := c.mentionsOf(pt)
	if r.Tool != "Read" && pt.onlyReads() {
		return mention{}, false
	}
	for i := range ms {
		m := &ms[i] // its fold cache is kept for the next rule
		if r.Tool != "Read" && m.weak {
			continue
		}
		if !r.HasPattern || targetMatchFold(cr.path, m.t, &m.fold, true) {
			return *m, true
		}
	}
	return mention{}, false
}
