package session

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/perm"
)

// maxPreview bounds the size of a diff preview, in bytes of either side.
const maxPreview = 1 << 20

// Preview renders the change an Edit or Write call would make as a unified
// diff ("" for other tools, or when the change cannot be computed, e.g. the
// old string does not occur: the tool will report that itself).
func Preview(ws perm.Workspace, req perm.Request) string {
	path, _ := req.Input["file_path"].(string)
	if path == "" {
		return ""
	}
	abs := ws.Abs(path)
	var before string
	// A file that is not there is created; one that is not a regular
	// file, or too large, is not shown (a FIFO is not waited on).
	switch b, err := textfile.Read(abs, maxPreview); {
	case err == nil:
		before = string(b)
	case !errors.Is(err, fs.ErrNotExist):
		return ""
	}
	var after string
	switch req.Tool {
	case "Write":
		after, _ = req.Input["content"].(string)
	case "Edit":
		old, _ := req.Input["old_string"].(string)
		repl, _ := req.Input["new_string"].(string)
		all, _ := req.Input["replace_all"].(bool)
		if old == "" || !strings.Contains(before, old) {
			return ""
		}
		n := 1
		if all {
			n = -1
		}
		after = strings.Replace(before, old, repl, n)
	default:
		return ""
	}
	if len(after) > maxPreview {
		return ""
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        lines(before),
		B:        lines(after),
		FromFile: "a/" + path,
		ToFile:   "b/" + path,
		Context:  3,
	})
	if err != nil {
		return ""
	}
	return diff
}

// lines splits s into lines that keep their "\n" (difflib.SplitLines would
// add a phantom empty last line, which shows in hunk headers).
func lines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	} else {
		ls[len(ls)-1] += "\n"
	}
	return ls
}
