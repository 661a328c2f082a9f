package perm

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/workspace"
)

// What cp, mv, install and ln write is not only the destination they
// name: in a directory a source lands at DIR/basename(source), with its
// whole tree when it is a directory (cp -r, mv), and a link it makes
// leads every later path through it somewhere else. The gate judges each
// of those paths as a write (placeWrites), and resolves every path the
// script names through the links it makes too (viaMade).

// maxPlaced bounds the paths the trees a call copies or moves may put in
// place that the gate enumerates; past it, what lands is not known.
const maxPlaced = 4096

// placing is one placement (bash.Command.Placements) of the command part
// owner-1.
type placing struct {
	owner int
	p     bash.Placement
}

// placed is a path a placement writes and, when it makes a link there,
// where the link leads (absolute, or relative to the link's directory).
type placed struct {
	path, to string
}

// treeEntry is a file inside a directory a command copies or moves.
type treeEntry struct {
	rel    string // its path from the top of the tree
	link   string // a symbolic link's target
	isLink bool
}

// treeAnswer is the memoised listing of a tree: its entries, or why they
// are not known.
type treeAnswer struct {
	entries []treeEntry
	why     string
}

// placings returns the placements of every command of s, and of each
// one's git alias expanded (aliased, by command).
func placings(s *bash.Script, aliased [][]*bash.Command) []placing {
	var out []placing
	for i, cmd := range s.Commands {
		for _, p := range cmd.Placements() {
			out = append(out, placing{owner: i + 1, p: p})
		}
		// A git alias places what its expansion does (m = mv a b).
		for _, a := range aliased[i] {
			for _, p := range a.Placements() {
				out = append(out, placing{owner: i + 1, p: p})
			}
		}
	}
	return out
}

// makeLinks records the links the placements make, so that every path the
// script names is also resolved through them (viaMade), and adds where
// the directories the script may be in lead through them to its bases.
// single: the script is one command, so a destination's kind is what it
// is now.
//
// A link's place is its directory resolved, then its name: what
// workspace.FollowLinksWith asks about. A link made in a directory that
// another made link leads to is found there too (one round).
func (c *call) makeLinks(pls []placing, single bool) {
	var links []placed
	for _, pl := range pls {
		c.place(pl, single, c.resolveShell, func(w placed) {
			if w.to != "" {
				links = append(links, w)
			}
		})
	}
	if len(links) == 0 {
		return
	}
	c.made = make(map[string][]string, len(links))
	for _, l := range links {
		c.addMade(c.linkPlace(l.path), l.to)
	}
	for _, l := range links {
		dir, name := filepath.Split(l.path)
		vs, _ := c.viaMade(dir)
		for _, v := range vs {
			c.addMade(workspace.Clean(v+"/"+name), l.to)
		}
	}
	// A directory the script may be in (cd zz) is also where it leads
	// through the links: git there finds that repository.
	for _, b := range c.bases[:len(c.bases):len(c.bases)] {
		vs, sure := c.viaMade(b)
		c.cdUnsure = c.cdUnsure || !sure
		for _, v := range vs {
			if !slices.Contains(c.bases, v) {
				c.bases = append(c.bases, v)
			}
		}
		if len(c.bases) > maxBases {
			c.cdUnsure = true
			break
		}
	}
	c.shells.reset() // answers given before the links were known
}

// addMade records a link at the resolved place at leading to to.
func (c *call) addMade(at, to string) {
	for _, t := range c.made[at] {
		if t == to {
			return
		}
	}
	c.made[at] = append(c.made[at], to)
}

// linkPlace is where FollowLinksWith finds a link at the clean absolute
// path p: its directory resolved, then its name.
func (c *call) linkPlace(p string) string {
	dir, name := filepath.Split(p)
	return workspace.Clean(c.realPath(workspace.Clean(dir)) + "/" + name)
}

// maxVia bounds the ways through made links viaMade follows for one path
// (each made link on the way is taken and not taken), and maxHops the
// links it follows on one way.
const (
	maxVia  = 64
	maxHops = 40
)

// viaMade returns where the absolute path p leads once the links the
// script makes are there, in each way that passes through one of them
// (the link made, or not yet: either may hold when the path is used), with
// every other link resolved as it is now; none when no way passes through
// one. sure is false when there were too many ways to follow.
func (c *call) viaMade(p string) (out []string, sure bool) {
	sure = true
	walks := 0
	// A way that comes back to where it took a made link, with the same
	// path left, goes round a loop (which the kernel ends with ELOOP).
	seen := map[string]bool{}
	var walk func(cur string, rest []string, hops int, made bool)
	walk = func(cur string, rest []string, hops int, made bool) {
		if walks++; walks > maxVia {
			sure = false
			return
		}
		for len(rest) > 0 {
			part := rest[0]
			rest = rest[1:]
			switch part {
			case "", ".":
				continue
			case "..":
				cur = filepath.Dir(cur)
				continue
			}
			parent := cur
			if cur != "/" {
				cur += "/"
			}
			cur += part
			if hops >= maxHops {
				continue
			}
			for _, to := range c.made[cur] {
				from := parent
				if filepath.IsAbs(to) {
					from = "/"
				}
				next := append(strings.Split(to, "/"), rest...)
				if k := from + "\x00" + strings.Join(next, "/"); !seen[k] {
					seen[k] = true
					walk(from, next, hops+1, true)
				}
			}
			if dest, ok := c.link(cur); ok {
				hops++
				cur = parent
				if filepath.IsAbs(dest) {
					cur = "/"
				}
				rest = append(strings.Split(dest, "/"), rest...)
			}
		}
		if made {
			out = append(out, cur)
		}
	}
	walk("/", strings.Split(p, "/"), 0, false)
	return out, sure
}

// throughMade adds to ts, the targets of the shell path p, where p leads
// through the links the script makes, from every directory the script may
// be in; ok is false where those ways are too many to follow.
func (c *call) throughMade(p string, ts []target, ok bool) ([]target, bool) {
	var raws []string
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		raws = append(raws, c.ws.Home+p[1:])
	case filepath.IsAbs(p):
		raws = append(raws, p)
	default:
		for _, b := range c.bases {
			raws = append(raws, b+"/"+p)
		}
	}
	for _, raw := range raws {
		vs, sure := c.viaMade(raw)
		ok = ok && sure
	next:
		for _, v := range vs {
			t := c.target(v)
			for _, o := range ts {
				if o.abs == t.abs && o.real == t.real {
					continue next
				}
			}
			ts = append(ts, t)
		}
	}
	return ts, ok
}

// placeWrites adds a write part for every path the placements put in
// place, and an unsure one (at least Ask, at step 2) for each placement
// whose paths are not all known: a source the script makes (not there
// yet), a tree too large to enumerate, a source or destination find
// fills in. It keeps the trees and glob directories the placements read
// for writtenTrees.
func (c *call) placeWrites(pls []placing, single bool) {
	var copied []placedTree
	for _, pl := range pls {
		c.writer = pl.owner
		why := c.place(pl, single, c.shellTargets, func(w placed) {
			c.placedN++
			c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", path: c.target(w.path), owner: pl.owner})
		})
		if why == "" && c.placedN > maxPlaced {
			why = fmt.Sprintf("the command puts more than %d files in place, too many to check", maxPlaced)
		}
		if why != "" {
			c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", dynamic: true, why: why})
		}
		// A glob matches what is in its directory as the command runs,
		// a tree copied or moved holds what is in it then.
		for _, w := range pl.p.Sources {
			if w.Glob {
				ts, _ := c.shellTargets(path.Dir(shellPath(w)))
				for _, t := range ts {
					copied = append(copied, placedTree{t, pl.owner, w.Value})
				}
				continue
			}
			if !pl.p.Tree {
				continue
			}
			ts, _ := c.shellTargets(shellPath(w))
			for _, t := range ts {
				if ok, dir := c.stat(t.real); ok && dir {
					copied = append(copied, placedTree{t, pl.owner, w.Value})
				}
			}
		}
	}
	c.writer = 0
	c.copied = copied
}

// placedTree is a tree a command (owner) copies or moves, named by word.
type placedTree struct {
	t     target
	owner int
	word  string
}

// writtenTrees adds an unsure part for a tree a command copies or moves,
// or a directory a glob it places reads, that another part of the script
// writes in (a redirect, a writer's operand): what lands is then not what
// the gate listed.
func (c *call) writtenTrees() {
	for _, tr := range c.copied {
		for i := range c.parts {
			pt := &c.parts[i]
			if pt.kind != kindWrite || pt.dynamic || pt.owner == tr.owner {
				continue
			}
			if within(pt.path.abs, tr.t.abs) || within(pt.path.real, tr.t.real) {
				why := "the command writes in " + tr.word + ", which it also puts in place: what lands cannot be checked"
				c.parts = append(c.parts, part{kind: kindWrite, tool: "Bash", dynamic: true, why: why})
				return
			}
		}
	}
}

// place calls emit for every path the placement pl puts in place,
// resolving shell paths with resolve; it returns why they are not all
// known ("" if they are).
func (c *call) place(pl placing, single bool, resolve func(string) ([]target, bool), emit func(placed)) string {
	p := &pl.p
	if p.Unsure != "" {
		return p.Unsure
	}
	// A destination relative to a directory that is not known is a
	// dynamic write of its own (Writes); the ones known are judged.
	dests, _ := resolve(shellPath(p.Dest))
	for _, w := range p.Sources {
		srcs, why := c.sources(w, resolve)
		if why != "" {
			return why
		}
		for _, src := range srcs {
			name := path.Base(src.text)
			if strings.HasPrefix(src.text, "~") || filepath.IsAbs(src.text) && name == "/" {
				name = filepath.Base(src.t.abs)
			}
			// stage/. puts what is in stage in place.
			contents := name == "." || name == ".."
			for _, dt := range dests {
				if dt.abs == "/dev/null" {
					continue // as pathParts: nothing lands there
				}
				into, onto := c.destKind(p, dt, single)
				var why string
				switch {
				case into && !contents:
					why = c.placeAt(p, dt.abs+"/"+name, src, emit)
				case into && p.Link == bash.Copies:
					why = c.placeIn(p, dt.abs, src, emit)
				}
				if why == "" && onto {
					why = c.placeAt(p, dt.abs, src, emit)
				}
				if why == "" && p.Parents {
					rel := src.text
					if strings.HasPrefix(rel, "~") {
						rel = src.t.abs
					}
					// Not cleaned where rel climbs: the kernel follows
					// a link the destination is before its "..", so
					// cp --parents ../x self/ (self a link to "..")
					// writes beside where self leads (target resolves
					// it so).
					root := dt.abs + "/" + rel
					if !hasDotDot("/" + rel) {
						root = workspace.Clean(root)
					}
					why = c.placeAt(p, root, src, emit)
				}
				if why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// source is a file a placement puts in place: its target, and the text
// the command names it by (a glob's match as the shell gives it).
type source struct {
	t    target
	text string
}

// sources returns the files the source word w names: a glob's matches
// now, which must be all it may match.
func (c *call) sources(w bash.Word, resolve func(string) ([]target, bool)) ([]source, string) {
	sp := shellPath(w)
	var out []source
	if !w.Glob {
		ts, _ := resolve(sp)
		for _, t := range ts {
			out = append(out, source{t, sp})
		}
		return out, ""
	}
	ms, sure := c.globMatches(sp)
	if !sure {
		return nil, "the files the glob " + w.Value + " matches may not be all the command puts in place"
	}
	for _, m := range ms {
		text := m
		if !filepath.IsAbs(sp) && !strings.HasPrefix(sp, "~") {
			for _, b := range c.bases {
				if rel, ok := strings.CutPrefix(m, b+"/"); ok {
					text = rel
					break
				}
			}
		}
		out = append(out, source{c.target(m), text})
	}
	return out, ""
}

// destKind says how a placement takes its destination dt: as a directory
// its sources land in (into), as the path itself (onto), or both where
// which is known only as the script runs. A script of one command finds
// the destination as it is now.
func (c *call) destKind(p *bash.Placement, dt target, single bool) (into, onto bool) {
	switch {
	case p.Into:
		return true, false
	case p.Onto:
		return false, true
	case !single:
		return true, true
	}
	ok, dir := c.stat(dt.real)
	return ok && dir, !(ok && dir)
}

// placeAt emits root, where the source src lands (as a link where the
// placement makes one, or where src is one), its backup, and what lands
// under it.
func (c *call) placeAt(p *bash.Placement, root string, src source, emit func(placed)) string {
	to := ""
	switch p.Link {
	case bash.SymLinks:
		// What the link holds is the source as named, read from the
		// link's directory; ln -r makes it lead where the source is.
		to = src.text
		if p.Relative || strings.HasPrefix(to, "~") {
			to = src.t.abs
		}
	case bash.HardLinks:
		to = src.t.abs
	default:
		if v := c.lstat(src.t.abs); v.ok && !src.followed() {
			to = v.s // a link is copied or moved as a link
		}
	}
	emit(placed{root, to})
	if suffix := backupSuffix(p); suffix != "" {
		emit(placed{root + suffix, ""})
	}
	return c.placeIn(p, root, src, emit)
}

// followed reports a source named so that the kernel follows it when it
// is a link (stage/self/, stage/self/.): what it leads to is placed.
func (src source) followed() bool {
	return strings.HasSuffix(src.text, "/") || strings.HasSuffix(src.text, "/.") || strings.HasSuffix(src.text, "/..") || src.text == "." || src.text == ".."
}

// placeIn emits what lands under root from the source src: for a tree
// placement of a directory, each file in it (a link in it as a link).
func (c *call) placeIn(p *bash.Placement, root string, src source, emit func(placed)) string {
	if !p.Tree {
		return ""
	}
	st := src.t
	v := c.lstat(st.abs)
	switch {
	case !v.exists:
		return "the command copies or moves " + st.abs + ", which is not there yet: what lands cannot be checked"
	case v.ok && !p.Deref && !src.followed():
		return "" // a link: placeAt emitted it as one
	}
	if ok, dir := c.stat(st.real); !ok || !dir {
		return ""
	}
	a := c.tree(st.real)
	if a.why != "" {
		return a.why
	}
	suffix := backupSuffix(p)
	for _, e := range a.entries {
		to := ""
		switch {
		case p.Link != bash.Copies:
			to = st.abs + "/" + e.rel
		case e.isLink && p.Deref:
			return "the command follows the links in " + st.abs + ": what lands cannot be checked"
		case e.isLink:
			to = e.link
		}
		emit(placed{root + "/" + e.rel, to})
		if suffix != "" {
			emit(placed{root + "/" + e.rel + suffix, ""})
		}
	}
	return ""
}

// backupSuffix is what a placement that backs up an existing destination
// appends to its name: -S's suffix, else "~" ("" without a backup). The
// environment's SIMPLE_BACKUP_SUFFIX is not known.
func backupSuffix(p *bash.Placement) string {
	switch {
	case !p.Backup:
		return ""
	case p.SuffixSet:
		return p.Suffix
	}
	return "~"
}

// tree lists the tree at the resolved directory dir without following the
// links in it, memoised for the call; past maxPlaced entries it is not
// known.
func (c *call) tree(dir string) treeAnswer {
	if a, ok := c.treeMemo[dir]; ok {
		return a
	}
	var a treeAnswer
	var walk func(rel string) bool
	walk = func(rel string) bool {
		ents, err := textfile.ReadDir(filepath.Join(dir, rel))
		if err != nil {
			a.why = "the command copies or moves " + filepath.Join(dir, rel) + ", which cannot be listed: what lands cannot be checked"
			return false
		}
		for _, e := range ents {
			if len(a.entries) >= maxPlaced {
				a.why = fmt.Sprintf("the command copies or moves %s, which holds more than %d files, too many to check", dir, maxPlaced)
				return false
			}
			r := e.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			te := treeEntry{rel: r}
			if e.Type()&os.ModeSymlink != 0 {
				te.isLink = true
				te.link, _ = os.Readlink(filepath.Join(dir, r))
			}
			a.entries = append(a.entries, te)
			if e.IsDir() && !walk(r) {
				return false
			}
		}
		return true
	}
	if !walk("") {
		a.entries = nil
	}
	if c.treeMemo == nil {
		c.treeMemo = make(map[string]treeAnswer, 2)
	}
	c.treeMemo[dir] = a
	return a
}
