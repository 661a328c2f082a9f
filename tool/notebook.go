package tool

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// NewNotebookEdit returns the NotebookEdit tool, which replaces, inserts
// or deletes one cell of a Jupyter notebook (nbformat 4, .ipynb).
//
// It has the write safety of Write and Edit: the notebook must exist and
// be exactly as this run last read or wrote it, it is opened through the
// same os.Root, and it is replaced atomically. Everything the edit does
// not touch is kept: unknown keys of the notebook and of every cell, key
// order, and each value's text (numbers are not reformatted). The file is
// re-indented with the indentation it had (one space, as Jupyter writes,
// when it cannot be told).
//
// A new code cell gets "outputs": [] and "execution_count": null;
// replacing a code cell's source clears its outputs and execution count,
// since they belong to the old source. A new cell gets a fresh id when
// the notebook's nbformat_minor is 5 or more (where ids are required).
func NewNotebookEdit(env *Env) Tool { return notebookEdit{env} }

type notebookEdit struct{ env *Env }

func (notebookEdit) Name() string { return "NotebookEdit" }

// nbEdit is a NotebookEdit call's arguments.
type nbEdit struct {
	mode      string // replace, insert or delete
	index     int64
	hasIndex  bool
	id        string
	hasID     bool
	source    string
	hasSource bool
	cellType  string
}

func (t notebookEdit) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "NotebookEdit"
	env := t.env
	p, err := requiredString(name, in, "notebook_path")
	if err != nil {
		return "", err
	}
	e, err := nbArgs(in)
	if err != nil {
		return "", err
	}
	abs, err := env.checkedAbs(call.Decision, name, p)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(filepath.Ext(abs), ".ipynb") {
		return "", fmt.Errorf("%s: %s is not a notebook: the file name must end in .ipynb (use Edit for other files)", name, env.display(abs))
	}
	return env.modify(ctx, call.Decision, name, abs, "; NotebookEdit only edits existing notebooks", func(data []byte) ([]byte, string, error) {
		nb, err := parseNotebook(data)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s is not a notebook: %w", name, env.display(abs), err)
		}
		msg, err := nb.apply(e)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s: %w", name, env.display(abs), err)
		}
		out, err := nb.encode()
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s: %w", name, env.display(abs), err)
		}
		return out, fmt.Sprintf("%s in %s (%d cells now)\n", msg, env.display(abs), len(nb.cells)), nil
	})
}

// nbArgs reads and checks the arguments other than the path.
func nbArgs(in map[string]any) (nbEdit, error) {
	const name = "NotebookEdit"
	var e nbEdit
	var err error
	if e.mode, err = requiredString(name, in, "edit_mode"); err != nil {
		return e, err
	}
	if e.index, e.hasIndex, err = intArg(name, in, "cell_index"); err != nil {
		return e, err
	}
	if e.id, e.hasID, err = stringArg(name, in, "cell_id"); err != nil {
		return e, err
	}
	if e.source, e.hasSource, err = stringArg(name, in, "new_source"); err != nil {
		return e, err
	}
	if e.cellType, _, err = stringArg(name, in, "cell_type"); err != nil {
		return e, err
	}
	switch e.cellType {
	case "", "code", "markdown":
	default:
		return e, fmt.Errorf("%s: cell_type must be code or markdown, got %q", name, e.cellType)
	}
	if e.hasIndex && e.index < 0 {
		return e, fmt.Errorf("%s: cell_index must be 0 or more, got %d", name, e.index)
	}
	if e.hasID && e.id == "" {
		return e, fmt.Errorf("%s: cell_id is empty", name)
	}
	switch e.mode {
	case "replace":
		if !e.hasSource {
			return e, fmt.Errorf("%s: new_source is required to replace a cell", name)
		}
	case "insert":
		if e.cellType == "" {
			return e, fmt.Errorf("%s: cell_type (code or markdown) is required to insert a cell", name)
		}
		if !e.hasSource {
			return e, fmt.Errorf("%s: new_source is required to insert a cell", name)
		}
	case "delete":
	default:
		return e, fmt.Errorf("%s: edit_mode must be replace, insert or delete, got %q", name, e.mode)
	}
	if e.mode != "insert" && !e.hasIndex && !e.hasID {
		return e, fmt.Errorf("%s: say which cell to %s with cell_id or cell_index", name, e.mode)
	}
	return e, nil
}

// notebook is a parsed nbformat 4 notebook.
type notebook struct {
	top   *object   // the whole document; its "cells" is rewritten from cells on encode
	cells []*object // in order
	// idCells says whether new cells need an id (nbformat 4.5 and later).
	idCells bool
	// lines says whether sources are written as a list of lines (as
	// Jupyter does) rather than one string.
	lines  bool
	indent string // "" for compact JSON
	final  bool   // whether the file ended in a newline
}

func parseNotebook(data []byte) (*notebook, error) {
	top := new(object)
	if err := json.Unmarshal(data, top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("invalid JSON at byte %d: %w", se.Offset, err)
		}
		return nil, err
	}
	var major, minor int
	if err := top.get("nbformat", &major); err != nil {
		return nil, fmt.Errorf("no nbformat version: %w", err)
	}
	if major != 4 {
		return nil, fmt.Errorf("it is nbformat %d; only nbformat 4 notebooks can be edited", major)
	}
	if top.has("nbformat_minor") {
		if err := top.get("nbformat_minor", &minor); err != nil {
			return nil, err
		}
	}
	var raws []json.RawMessage
	if err := top.get("cells", &raws); err != nil {
		return nil, fmt.Errorf("no cell list: %w", err)
	}
	if raws == nil {
		return nil, errors.New(`no cell list: "cells" is null`)
	}
	nb := &notebook{top: top, idCells: minor >= 5, lines: true, final: bytes.HasSuffix(data, []byte("\n"))}
	nb.indent = detectIndent(data)
	styled := false
	for i, raw := range raws {
		c := new(object)
		if err := json.Unmarshal(raw, c); err != nil {
			return nil, fmt.Errorf("cell %d: %w", i, err)
		}
		if !c.has("cell_type") {
			return nil, fmt.Errorf("cell %d has no cell_type", i)
		}
		if src, ok := c.vals["source"]; ok && !styled {
			styled = true
			nb.lines = bytes.HasPrefix(bytes.TrimSpace(src), []byte("["))
		}
		nb.cells = append(nb.cells, c)
	}
	return nb, nil
}

// detectIndent returns the indentation unit of a JSON document: the white
// space starting its second line, or "" when it is on one line.
func detectIndent(data []byte) string {
	i := bytes.IndexByte(bytes.TrimRight(data, " \t\r\n"), '\n')
	if i < 0 {
		return ""
	}
	rest := data[i+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	if n == 0 {
		return " "
	}
	return string(rest[:n])
}

// find returns the index of the cell e names. Given both cell_id and
// cell_index, they must name the same cell.
func (nb *notebook) find(e nbEdit) (int, error) {
	idx := -1
	if e.hasID {
		for i, c := range nb.cells {
			var id string
			if c.get("id", &id) == nil && id == e.id {
				idx = i
				break
			}
		}
		if idx < 0 {
			return 0, fmt.Errorf("no cell has id %q", e.id)
		}
	}
	if e.hasIndex {
		if e.index >= int64(len(nb.cells)) {
			if len(nb.cells) == 0 {
				return 0, fmt.Errorf("cell_index %d is out of range: the notebook has no cells", e.index)
			}
			return 0, fmt.Errorf("cell_index %d is out of range: the notebook has %d cells (0 to %d)", e.index, len(nb.cells), len(nb.cells)-1)
		}
		if idx >= 0 && int64(idx) != e.index {
			return 0, fmt.Errorf("cell_id %q is cell %d, not cell_index %d; give one of them", e.id, idx, e.index)
		}
		idx = int(e.index)
	}
	return idx, nil
}

// apply makes the edit and describes it.
func (nb *notebook) apply(e nbEdit) (string, error) {
	var at int
	if e.mode == "insert" && !e.hasID && !e.hasIndex {
		at = -1 // before the first cell
	} else {
		var err error
		if at, err = nb.find(e); err != nil {
			if e.mode == "insert" {
				err = fmt.Errorf("%w (to insert at the start, give neither cell_id nor cell_index)", err)
			}
			return "", err
		}
	}
	switch e.mode {
	case "delete":
		desc := nb.describe(at)
		nb.cells = append(nb.cells[:at], nb.cells[at+1:]...)
		return "Deleted " + desc, nil
	case "insert":
		c := &object{}
		c.set("cell_type", e.cellType)
		if e.cellType == "code" {
			c.set("execution_count", nil)
		}
		if nb.idCells {
			c.set("id", nb.newID())
		}
		c.set("metadata", struct{}{})
		if e.cellType == "code" {
			c.set("outputs", []any{})
		}
		c.set("source", nb.source(e.source))
		at++
		nb.cells = append(nb.cells[:at], append([]*object{c}, nb.cells[at:]...)...)
		return "Inserted " + nb.describe(at), nil
	}
	// replace
	c := nb.cells[at]
	var was string
	if err := c.get("cell_type", &was); err != nil {
		return "", fmt.Errorf("cell %d: %w", at, err)
	}
	now := was
	if e.cellType != "" {
		now = e.cellType
	}
	c.set("source", nb.source(e.source))
	switch {
	case now == "code":
		// The outputs and count belong to the old source. Only markdown
		// cells may have attachments.
		c.set("cell_type", now)
		c.set("execution_count", nil)
		c.set("outputs", []any{})
		c.del("attachments")
	case was == "code":
		c.set("cell_type", now)
		c.del("execution_count")
		c.del("outputs")
	default:
		c.set("cell_type", now)
	}
	msg := "Replaced the source of " + nb.describe(at)
	if now != was {
		msg += fmt.Sprintf(" (was a %s cell)", was)
	}
	return msg, nil
}

// describe names cell i for the model: "code cell 2 (id abc)".
func (nb *notebook) describe(i int) string {
	c := nb.cells[i]
	var typ, id string
	c.get("cell_type", &typ)
	s := fmt.Sprintf("%s cell %d", typ, i)
	if c.get("id", &id) == nil && id != "" {
		s += fmt.Sprintf(" (id %s)", id)
	}
	return s
}

// source returns s in the notebook's source style.
func (nb *notebook) source(s string) any {
	if !nb.lines {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// newID returns a cell id no cell of nb has.
func (nb *notebook) newID() string {
	for {
		var b [4]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		taken := false
		for _, c := range nb.cells {
			var have string
			if c.get("id", &have) == nil && have == id {
				taken = true
			}
		}
		if !taken {
			return id
		}
	}
}

// encode returns the notebook as JSON in its original layout.
func (nb *notebook) encode() ([]byte, error) {
	cells := make([]json.RawMessage, len(nb.cells))
	for i, c := range nb.cells {
		b, err := c.MarshalJSON()
		if err != nil {
			return nil, err
		}
		cells[i] = b
	}
	nb.top.set("cells", cells)
	compact, err := nb.top.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if nb.indent == "" {
		out.Write(compact)
	} else if err := json.Indent(&out, compact, "", nb.indent); err != nil {
		return nil, err
	}
	if nb.final {
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// object is a JSON object that keeps its keys in order and its values as
// they were written, so that re-encoding it changes nothing but layout.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// UnmarshalJSON decodes a JSON object. A key given twice is an error: which
// one a reader honours is not defined, so guessing could change meaning.
func (o *object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not a JSON object")
	}
	o.keys, o.vals = nil, make(map[string]json.RawMessage)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		k := tok.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, dup := o.vals[k]; dup {
			return fmt.Errorf("key %q appears twice", k)
		}
		o.keys = append(o.keys, k)
		o.vals[k] = v
	}
	_, err = dec.Token() // the closing brace
	return err
}

// MarshalJSON encodes o compactly, keys in order. HTML characters are not
// escaped, so cell text stays as it was written.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeJSON(&b, k); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

func (o *object) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// get decodes the value of k into v; a missing key is an error.
func (o *object) get(k string, v any) error {
	raw, ok := o.vals[k]
	if !ok {
		return fmt.Errorf("missing %q", k)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%q: %w", k, err)
	}
	return nil
}

// set gives k the value v, appending k when it is new.
func (o *object) set(k string, v any) {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		panic(fmt.Sprintf("tool: encoding %q: %v", k, err)) // only called with encodable values
	}
	if o.vals == nil {
		o.vals = make(map[string]json.RawMessage)
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = b.Bytes()
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, have := range o.keys {
		if have == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}
