package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
)

// Imports, as in Claude Code's memory files: a word "@path" (at the start
// of a line or after white space, outside code spans and fenced code
// blocks) that names a file imports it. A relative path is relative to
// the file that imports it, and "~/" is the home directory. Imported files
// import in turn, up to maxImportHops hops from the memory file. A word
// that names no file ("@alice", "@v1.2") is text, not an import.
//
// Unlike the memory file's own name, an import's name comes from the
// file's text, which a cloned repository writes: it could name
// ~/.ssh/id_rsa, or a .env the user's rules keep from the model. So an
// import must resolve inside the tree of its memory (the project root for
// the project memory, the home directory for the user's; unlike Claude
// Code, a project memory cannot import files from the home directory), be
// a regular file of at most MaxFile bytes, and a Read of it must be
// allowed outright under rules: no deny or ask rule covers it. An import
// that fails any of these is left out with a warning naming the importing
// file, its line and why.

// maxImportHops is how far imports are followed from a memory file, as in
// Claude Code.
const maxImportHops = 5

// maxImported bounds the text one memory file's imports add: all of it is
// sent with every model request.
const maxImported = 4 * MaxFile

// imported is one file an import brought in.
type imported struct {
	path, text string
	// by is the importing file and line, "file:line".
	by string
}

// importer follows the imports of one memory file.
type importer struct {
	rules *perm.Policy
	// tree is the directory every import must resolve inside.
	tree string
	// files are the files imported, each once, in the order their
	// imports are met (depth first).
	files []imported
	seen  map[string]bool // real paths imported, and the memory file's
	size  int
	// warned are the paths (cleaned, links not followed) a warning was
	// given for: a file that names one refused file thousands of times
	// gets one warning, not a screenful.
	warned   map[string]bool
	warnings []string
}

// follow imports what the file at path, holding text, imports, hop hops
// from the memory file.
func (im *importer) follow(path, text string, hop int) {
	if im.seen == nil {
		im.seen = map[string]bool{}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			im.seen[real] = true
		}
	}
	for _, ref := range importsOf(text) {
		at := fmt.Sprintf("%s:%d", path, ref.line)
		p := ref.path
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(im.rules.Workspace.Home, p[1:])
		case !filepath.IsAbs(p):
			p = filepath.Join(filepath.Dir(path), p)
		}
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue // names no file: text, not an import
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || im.seen[real] {
			continue
		}
		if hop > maxImportHops {
			im.warn(p, at, ref.path, fmt.Sprintf("imports are followed %d hops from the memory file", maxImportHops))
			continue
		}
		if why := im.refusal(p); why != "" {
			im.warn(p, at, ref.path, why)
			continue
		}
		// Read the file the checks resolved p to: p's links are not
		// followed a second time, to where they might lead by now.
		data, err := textfile.Read(real, MaxFile)
		if err != nil {
			im.warn(p, at, ref.path, err.Error())
			continue
		}
		if im.size+len(data) > maxImported {
			im.warn(p, at, ref.path, fmt.Sprintf("a memory file's imports may add at most %d bytes", maxImported))
			continue
		}
		im.seen[real] = true
		im.size += len(data)
		t := strings.TrimSpace(string(data))
		im.files = append(im.files, imported{path: p, text: t, by: at})
		im.follow(p, t, hop+1)
	}
}

// refusal says why the file p may not be imported, "" when it may.
func (im *importer) refusal(p string) string {
	if err := inside(p, im.tree); err != nil {
		return fmt.Sprintf("it is outside %s, the tree of the memory that imports it", im.tree)
	}
	res := perm.Evaluate(perm.Request{Tool: "Read", Input: map[string]any{"file_path": p}}, im.rules)
	if res.Decision != perm.Allow {
		return fmt.Sprintf("a Read of it is %s: %s", res.Decision, res.Reason)
	}
	return ""
}

// warn says why the import ref at "file:line" at, of the file p, is left
// out, unless a warning about p was given already.
func (im *importer) warn(p, at, ref, why string) {
	if im.warned[p] {
		return
	}
	if im.warned == nil {
		im.warned = map[string]bool{}
	}
	im.warned[p] = true
	im.warnings = append(im.warnings, fmt.Sprintf("memory: %s: @%s is not imported: %s", at, ref, why))
}

// importRef is an @path word of a memory file and its line.
type importRef struct {
	path string
	line int
}

// importsOf returns the @path words of text, in order: those at the start
// of a line or after white space, outside fenced code blocks (``` or ~~~)
// and code spans.
func importsOf(text string) []importRef {
	var refs []importRef
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), f[:1])) == "":
				fence = "" // a closing fence: as long, and nothing after it
			}
			continue
		}
		if fence != "" || !strings.Contains(line, "@") {
			continue
		}
		line = withoutCodeSpans(line)
		for j := 0; j < len(line); j++ {
			if line[j] != '@' || j > 0 && !isSpace(line[j-1]) {
				continue
			}
			k := j + 1
			for k < len(line) && !isSpace(line[k]) {
				k++
			}
			if k > j+1 {
				refs = append(refs, importRef{path: line[j+1 : k], line: i + 1})
			}
			j = k
		}
	}
	return refs
}

// fenceOf returns the fence a line opens or closes (three or more ` or ~
// after at most three spaces), "" when it is not one.
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return ""
	}
	return t[:n]
}

// withoutCodeSpans returns line with each code span (a run of backticks,
// what it holds and the same run closing it) blanked out.
func withoutCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := i
		for n < len(b) && b[n] == '`' {
			n++
		}
		tick := line[i:n]
		end := strings.Index(line[n:], tick)
		if end < 0 {
			i = n
			continue
		}
		stop := n + end + len(tick)
		for k := i; k < stop; k++ {
			b[k] = ' '
		}
		i = stop
	}
	return string(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
