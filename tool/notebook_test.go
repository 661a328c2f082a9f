package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jupyter lays out compact notebook JSON the way Jupyter writes it: one
// space of indentation and a final newline.
func jupyter(t *testing.T, compact string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), "", " "); err != nil {
		t.Fatalf("fixture: %v\n%s", err, compact)
	}
	return b.String() + "\n"
}

// nbDoc assembles a notebook from compact cell JSON. Top-level keys are
// not in Jupyter's order, and there is an unknown one, to show that both
// survive.
func nbDoc(cells ...string) string {
	return `{"metadata":{"kernelspec":{"name":"python3"}},"cells":[` + strings.Join(cells, ",") +
		`],"x_unknown":{"b":1,"a":2},"nbformat":4,"nbformat_minor":5}`
}

const (
	cellIntro = `{"cell_type":"markdown","id":"intro","metadata":{"tags":["a"]},"source":["# Title\n","Some <b>text</b> & more"]}`
	cellCalc  = `{"cell_type":"code","execution_count":3,"id":"calc","metadata":{},"outputs":[{"name":"stdout","output_type":"stream","text":["2\n"]}],"source":["print(1 + 1)"]}`
	cellRaw   = `{"cell_type":"raw","id":"r1","metadata":{},"source":"raw text","zz_custom":1.50}`
)

func nbEditIn(kv ...any) map[string]any {
	in := map[string]any{"notebook_path": "nb.ipynb"}
	for i := 0; i < len(kv); i += 2 {
		in[kv[i].(string)] = kv[i+1]
	}
	return in
}

func TestNotebookEdit(t *testing.T) {
	orig := nbDoc(cellIntro, cellCalc, cellRaw)
	tests := []struct {
		name string
		in   map[string]any
		// want is the notebook afterwards as compact JSON; NEWID stands
		// for the id the tool generated.
		want    string
		wantMsg string
	}{
		{name: "replace markdown by id",
			in:      nbEditIn("edit_mode", "replace", "cell_id", "intro", "new_source", "New\ntext"),
			want:    nbDoc(`{"cell_type":"markdown","id":"intro","metadata":{"tags":["a"]},"source":["New\n","text"]}`, cellCalc, cellRaw),
			wantMsg: "Replaced the source of markdown cell 0 (id intro) in nb.ipynb (3 cells now)\n"},
		{name: "replace with the same source changes nothing",
			in:   nbEditIn("edit_mode", "replace", "cell_index", 0.0, "new_source", "# Title\nSome <b>text</b> & more"),
			want: orig},
		{name: "replace code clears outputs",
			in:      nbEditIn("edit_mode", "replace", "cell_index", 1.0, "new_source", "print(2)\n"),
			want:    nbDoc(cellIntro, `{"cell_type":"code","execution_count":null,"id":"calc","metadata":{},"outputs":[],"source":["print(2)\n"]}`, cellRaw),
			wantMsg: "Replaced the source of code cell 1 (id calc)"},
		{name: "replace with both id and index naming the cell",
			in:   nbEditIn("edit_mode", "replace", "cell_index", 1.0, "cell_id", "calc", "new_source", "x"),
			want: nbDoc(cellIntro, `{"cell_type":"code","execution_count":null,"id":"calc","metadata":{},"outputs":[],"source":["x"]}`, cellRaw)},
		{name: "replace code as markdown",
			in:      nbEditIn("edit_mode", "replace", "cell_id", "calc", "cell_type", "markdown", "new_source", "*now prose*"),
			want:    nbDoc(cellIntro, `{"cell_type":"markdown","id":"calc","metadata":{},"source":["*now prose*"]}`, cellRaw),
			wantMsg: "markdown cell 1 (id calc) (was a code cell) in nb.ipynb (3 cells now)\n"},
		{name: "replace raw as code",
			in:      nbEditIn("edit_mode", "replace", "cell_index", 2.0, "cell_type", "code", "new_source", "1"),
			want:    nbDoc(cellIntro, cellCalc, `{"cell_type":"code","id":"r1","metadata":{},"source":["1"],"zz_custom":1.50,"execution_count":null,"outputs":[]}`),
			wantMsg: "(was a raw cell)"},
		{name: "replace with empty source",
			in:   nbEditIn("edit_mode", "replace", "cell_id", "intro", "new_source", ""),
			want: nbDoc(`{"cell_type":"markdown","id":"intro","metadata":{"tags":["a"]},"source":[]}`, cellCalc, cellRaw)},
		{name: "insert code at the start",
			in:      nbEditIn("edit_mode", "insert", "cell_type", "code", "new_source", "import os\nos.getcwd()"),
			want:    nbDoc(`{"cell_type":"code","execution_count":null,"id":"NEWID","metadata":{},"outputs":[],"source":["import os\n","os.getcwd()"]}`, cellIntro, cellCalc, cellRaw),
			wantMsg: "Inserted code cell 0 (id NEWID) in nb.ipynb (4 cells now)\n"},
		{name: "insert markdown after a cell id",
			in:      nbEditIn("edit_mode", "insert", "cell_id", "calc", "cell_type", "markdown", "new_source", "## Next"),
			want:    nbDoc(cellIntro, cellCalc, `{"cell_type":"markdown","id":"NEWID","metadata":{},"source":["## Next"]}`, cellRaw),
			wantMsg: "Inserted markdown cell 2 (id NEWID)"},
		{name: "insert after the last index appends",
			in:   nbEditIn("edit_mode", "insert", "cell_index", 2.0, "cell_type", "markdown", "new_source", "end"),
			want: nbDoc(cellIntro, cellCalc, cellRaw, `{"cell_type":"markdown","id":"NEWID","metadata":{},"source":["end"]}`)},
		{name: "delete by id",
			in:      nbEditIn("edit_mode", "delete", "cell_id", "calc"),
			want:    nbDoc(cellIntro, cellRaw),
			wantMsg: "Deleted code cell 1 (id calc) in nb.ipynb (2 cells now)\n"},
		{name: "delete by index ignores new_source",
			in:   nbEditIn("edit_mode", "delete", "cell_index", 0.0, "new_source", "ignored"),
			want: nbDoc(cellCalc, cellRaw)},
		{name: "delete the last cell",
			in:   nbEditIn("edit_mode", "delete", "cell_index", 2.0),
			want: nbDoc(cellIntro, cellCalc)},
	}
	idRE := regexp.MustCompile(`\(id ([0-9a-f]{8})\)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			path := filepath.Join(dir, "nb.ipynb")
			files(t, dir, map[string]string{"nb.ipynb": jupyter(t, orig)})
			must(t, os.Chmod(path, 0o600))
			if _, err := call(t, env, "Read", rd("nb.ipynb")); err != nil {
				t.Fatal(err)
			}
			msg, err := NewNotebookEdit(env).Run(context.Background(), Call{Input: tt.in})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := tt.want
			wantMsg := tt.wantMsg
			if strings.Contains(want, "NEWID") {
				m := idRE.FindStringSubmatch(msg)
				if m == nil {
					t.Fatalf("message %q names no new id", msg)
				}
				if strings.Contains(orig, `"`+m[1]+`"`) {
					t.Fatalf("new id %s is already taken", m[1])
				}
				want = strings.ReplaceAll(want, "NEWID", m[1])
				wantMsg = strings.ReplaceAll(wantMsg, "NEWID", m[1])
			}
			if !strings.Contains(msg, wantMsg) {
				t.Errorf("message %q does not contain %q", msg, wantMsg)
			}
			if got, w := readFile(t, path), jupyter(t, want); got != w {
				t.Errorf("notebook:\n%s\nwant:\n%s", got, w)
			}
			fi, err := os.Stat(path)
			must(t, err)
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the file's 0600 kept", fi.Mode().Perm())
			}
			assertNoTemp(t, dir)
			// The run knows the file it wrote: Edit works without a new Read.
			if _, err := call(t, env, "Edit", ed("nb.ipynb", `"nbformat": 4`, `"nbformat": 4`+" ")); err != nil {
				t.Errorf("editing the notebook after NotebookEdit: %v", err)
			}
		})
	}
}

func TestNotebookEditStyles(t *testing.T) {
	// nbformat 4.4 (no cell ids), sources as strings, compact JSON with no
	// final newline: all of it kept.
	const old = `{"nbformat":4,"nbformat_minor":4,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"source":"a = 1\nb = 2","outputs":[],"execution_count":null}]}`
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"insert without an id",
			nbEditIn("edit_mode", "insert", "cell_index", 0.0, "cell_type", "markdown", "new_source", "two\nlines\n"),
			`{"nbformat":4,"nbformat_minor":4,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"source":"a = 1\nb = 2","outputs":[],"execution_count":null},{"cell_type":"markdown","metadata":{},"source":"two\nlines\n"}]}`},
		{"replace keeps a string source",
			nbEditIn("edit_mode", "replace", "cell_index", 0.0, "new_source", "<c> & d"),
			`{"nbformat":4,"nbformat_minor":4,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"source":"<c> & d","outputs":[],"execution_count":null}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			files(t, dir, map[string]string{"nb.ipynb": old})
			_, err := call(t, env, "Read", rd("nb.ipynb"))
			must(t, err)
			msg, err := NewNotebookEdit(env).Run(context.Background(), Call{Input: tt.in})
			must(t, err)
			if strings.Contains(msg, "(id ") {
				t.Errorf("message %q names an id in a notebook without ids", msg)
			}
			if got := readFile(t, filepath.Join(dir, "nb.ipynb")); got != tt.want {
				t.Errorf("notebook:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestNotebookEditFailures(t *testing.T) {
	good := jupyter(t, nbDoc(cellIntro, cellCalc, cellRaw))
	empty := jupyter(t, `{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}`)
	tests := []struct {
		name    string
		file    string // content of nb.ipynb; "" for none
		noRead  bool   // skip the Read before the edit
		before  func(t *testing.T, dir string)
		in      map[string]any
		wantErr string
	}{
		{name: "no such cell id", file: good, in: nbEditIn("edit_mode", "replace", "cell_id", "nope", "new_source", "x"),
			wantErr: `NotebookEdit: nb.ipynb: no cell has id "nope"`},
		{name: "index out of range", file: good, in: nbEditIn("edit_mode", "delete", "cell_index", 3.0),
			wantErr: "cell_index 3 is out of range: the notebook has 3 cells (0 to 2)"},
		{name: "negative index", file: good, in: nbEditIn("edit_mode", "delete", "cell_index", -1.0),
			wantErr: "cell_index must be 0 or more, got -1"},
		{name: "fractional index", file: good, in: nbEditIn("edit_mode", "delete", "cell_index", 1.5),
			wantErr: `argument "cell_index" must be an integer`},
		{name: "index and id disagree", file: good, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0, "cell_id", "calc"),
			wantErr: `cell_id "calc" is cell 1, not cell_index 0`},
		{name: "empty cell id", file: good, in: nbEditIn("edit_mode", "delete", "cell_id", ""),
			wantErr: "cell_id is empty"},
		{name: "empty notebook has no cell to delete", file: empty, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "cell_index 0 is out of range: the notebook has no cells"},
		{name: "insert into empty notebook by index", file: empty,
			in:      nbEditIn("edit_mode", "insert", "cell_index", 0.0, "cell_type", "code", "new_source", "x"),
			wantErr: "(to insert at the start, give neither cell_id nor cell_index)"},
		{name: "insert needs cell type", file: good, in: nbEditIn("edit_mode", "insert", "new_source", "x"),
			wantErr: "cell_type (code or markdown) is required to insert a cell"},
		{name: "insert needs source", file: good, in: nbEditIn("edit_mode", "insert", "cell_type", "code"),
			wantErr: "new_source is required to insert a cell"},
		{name: "replace needs source", file: good, in: nbEditIn("edit_mode", "replace", "cell_index", 0.0),
			wantErr: "new_source is required to replace a cell"},
		{name: "replace needs a cell", file: good, in: nbEditIn("edit_mode", "replace", "new_source", "x"),
			wantErr: "say which cell to replace with cell_id or cell_index"},
		{name: "delete needs a cell", file: good, in: nbEditIn("edit_mode", "delete"),
			wantErr: "say which cell to delete"},
		{name: "unknown cell type", file: good, in: nbEditIn("edit_mode", "insert", "cell_type", "raw", "new_source", "x"),
			wantErr: `cell_type must be code or markdown, got "raw"`},
		{name: "unknown edit mode", file: good, in: nbEditIn("edit_mode", "append", "new_source", "x"),
			wantErr: `edit_mode must be replace, insert or delete, got "append"`},
		{name: "missing edit mode", file: good, in: nbEditIn("cell_index", 0.0),
			wantErr: `missing required argument "edit_mode"`},

		{name: "not read in this run", file: good, noRead: true,
			in: nbEditIn("edit_mode", "delete", "cell_index", 0.0), wantErr: "has not been read in this session: read the file first"},
		{name: "changed since read", file: good,
			before: func(t *testing.T, dir string) {
				must(t, os.WriteFile(filepath.Join(dir, "nb.ipynb"), []byte(empty), 0o644))
			},
			in: nbEditIn("edit_mode", "delete", "cell_index", 0.0), wantErr: "file changed since it was read; read it again"},
		{name: "does not exist", noRead: true, in: nbEditIn("edit_mode", "insert", "cell_type", "code", "new_source", "x"),
			wantErr: "nb.ipynb does not exist; NotebookEdit only edits existing notebooks"},
		{name: "not an ipynb file", file: good, noRead: true,
			in:      map[string]any{"notebook_path": "nb.json", "edit_mode": "delete", "cell_index": 0.0},
			wantErr: "nb.json is not a notebook: the file name must end in .ipynb"},
		{name: "a directory", noRead: true,
			before:  func(t *testing.T, dir string) { must(t, os.Mkdir(filepath.Join(dir, "nb.ipynb"), 0o755)) },
			in:      nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "is a directory"},
		{name: "a symbolic link", file: good, noRead: true,
			before:  func(t *testing.T, dir string) { must(t, os.Symlink("nb.ipynb", filepath.Join(dir, "link.ipynb"))) },
			in:      map[string]any{"notebook_path": "link.ipynb", "edit_mode": "delete", "cell_index": 0.0},
			wantErr: "link.ipynb is a symbolic link"},

		{name: "invalid json", file: `{"cells": [`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "nb.ipynb is not a notebook: invalid JSON at byte 11"},
		{name: "json array", file: `[1, 2]`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "nb.ipynb is not a notebook: not a JSON object"},
		{name: "json null", file: `null`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "is not a notebook: not a JSON object"},
		{name: "null cells", file: `{"nbformat": 4, "cells": null}`, in: nbEditIn("edit_mode", "insert", "cell_type", "code", "new_source", "x"),
			wantErr: `no cell list: "cells" is null`},
		{name: "nbformat a string", file: `{"nbformat": "4", "cells": []}`, in: nbEditIn("edit_mode", "insert", "cell_type", "code", "new_source", "x"),
			wantErr: "no nbformat version"},
		{name: "nbformat 3", file: `{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}`,
			in: nbEditIn("edit_mode", "delete", "cell_index", 0.0), wantErr: "it is nbformat 3; only nbformat 4 notebooks can be edited"},
		{name: "no nbformat", file: `{"cells": []}`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: `no nbformat version: missing "nbformat"`},
		{name: "no cells", file: `{"nbformat": 4, "nbformat_minor": 5}`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: `no cell list: missing "cells"`},
		{name: "cells not a list", file: `{"nbformat": 4, "cells": {}}`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "no cell list"},
		{name: "cell without type", file: `{"nbformat": 4, "cells": [{"source": "x"}]}`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "cell 0 has no cell_type"},
		{name: "cell not an object", file: `{"nbformat": 4, "cells": ["x"]}`, in: nbEditIn("edit_mode", "delete", "cell_index", 0.0),
			wantErr: "cell 0: not a JSON object"},
		{name: "duplicate key", file: `{"nbformat": 4, "cells": [], "nbformat": 4}`, in: nbEditIn("edit_mode", "insert", "cell_type", "code", "new_source", "x"),
			wantErr: `key "nbformat" appears twice`},
		{name: "duplicate key in a cell", file: `{"nbformat": 4, "cells": [{"cell_type": "code", "id": "a", "id": "b"}]}`,
			in: nbEditIn("edit_mode", "delete", "cell_id", "a"), wantErr: `cell 0: key "id" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			if tt.file != "" {
				files(t, dir, map[string]string{"nb.ipynb": tt.file, "nb.json": tt.file})
			}
			if tt.before != nil && tt.noRead {
				tt.before(t, dir)
			}
			if !tt.noRead {
				_, err := call(t, env, "Read", rd("nb.ipynb"))
				must(t, err)
			}
			if tt.before != nil && !tt.noRead {
				tt.before(t, dir)
			}
			var before []byte
			if fi, err := os.Lstat(filepath.Join(dir, "nb.ipynb")); err == nil && fi.Mode().IsRegular() {
				before, _ = os.ReadFile(filepath.Join(dir, "nb.ipynb"))
			}
			out, err := NewNotebookEdit(env).Run(context.Background(), Call{Input: tt.in})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q (output %q)", err, tt.wantErr, out)
			}
			if !strings.HasPrefix(err.Error(), "NotebookEdit: ") {
				t.Errorf("error %q does not name the tool", err)
			}
			if before != nil {
				if after, _ := os.ReadFile(filepath.Join(dir, "nb.ipynb")); !bytes.Equal(before, after) {
					t.Errorf("a failed edit changed the notebook")
				}
			}
			assertNoTemp(t, dir)
		})
	}
}
