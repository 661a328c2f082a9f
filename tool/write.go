package tool

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gen-run/gen/internal/atomicfile"
)

// maxEditFile is the largest file Edit loads into memory.
const maxEditFile = 64 << 20

type writeTool struct{ env *Env }

func (writeTool) Name() string { return "Write" }

// Run replaces or creates a file atomically. An existing file must be the
// one this run last read or wrote (see Env).
func (t writeTool) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "Write"
	env := t.env
	p, err := requiredString(name, in, "file_path")
	if err != nil {
		return "", err
	}
	content, err := requiredString(name, in, "content")
	if err != nil {
		return "", err
	}
	abs, err := env.checkedAbs(call.Decision, name, p)
	if err != nil {
		return "", err
	}
	env.writeMu.Lock()
	defer env.writeMu.Unlock()
	root, rel, err := env.openRoot(name, abs)
	if err != nil {
		return "", err
	}
	defer root.Close()

	mode, exists, err := existing(env, name, root, rel, abs)
	if err != nil {
		return "", err
	}
	if exists {
		_, cur, err := readState(ctx, root, rel)
		if err != nil {
			return "", env.describe(name, abs, err)
		}
		if err := env.checkFresh(name, abs, cur); err != nil {
			return "", err
		}
	} else {
		mode = 0o644
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return "", fmt.Errorf("%s: creating the parent directories of %s: %w", name, env.display(abs), err)
			}
		}
	}
	st, err := atomicWrite(root, rel, []byte(content), mode, checkedDir(call.Decision))
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", name, env.display(abs), err)
	}
	env.remember(abs, st)
	verb := "Wrote"
	if !exists {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%d bytes)\n", verb, env.display(abs), len(content)), nil
}

type editTool struct{ env *Env }

func (editTool) Name() string { return "Edit" }

// Run replaces old_string with new_string in a file the run has read and
// writes the result atomically.
func (t editTool) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "Edit"
	env := t.env
	p, err := requiredString(name, in, "file_path")
	if err != nil {
		return "", err
	}
	oldS, err := requiredString(name, in, "old_string")
	if err != nil {
		return "", err
	}
	newS, err := requiredString(name, in, "new_string")
	if err != nil {
		return "", err
	}
	all, err := boolArg(name, in, "replace_all")
	if err != nil {
		return "", err
	}
	if oldS == "" {
		return "", fmt.Errorf("%s: old_string is empty: give the exact text to replace (use Write to create a file)", name)
	}
	if oldS == newS {
		return "", fmt.Errorf("%s: old_string and new_string are identical, so the edit would change nothing", name)
	}
	abs, err := env.checkedAbs(call.Decision, name, p)
	if err != nil {
		return "", err
	}
	return env.modify(ctx, call.Decision, name, abs, " (use Write to create a file)", func(data []byte) ([]byte, string, error) {
		content := string(data)
		n := strings.Count(content, oldS)
		switch {
		case n == 0:
			return nil, "", fmt.Errorf("%s: old_string was not found in %s; it must match the file exactly, including white space and indentation", name, env.display(abs))
		case n > 1 && !all:
			return nil, "", fmt.Errorf("%s: old_string occurs %d times in %s; include more surrounding lines to make it unique, or set replace_all to replace every occurrence", name, n, env.display(abs))
		}
		if all {
			content = strings.ReplaceAll(content, oldS, newS)
		} else {
			content = strings.Replace(content, oldS, newS, 1)
		}
		unit := "occurrence"
		if n != 1 {
			unit = "occurrences"
		}
		return []byte(content), fmt.Sprintf("Edited %s: replaced %d %s\n", env.display(abs), n, unit), nil
	})
}

// modify is the read-modify-write of an existing file that Edit and
// NotebookEdit share: under the write lock, through the os.Root, the file
// must exist (missing says what to do instead) and be the one this run
// last read or wrote; change turns its content into the new content and
// the result message, and the new content is written atomically.
func (env *Env) modify(ctx context.Context, d Decision, name, abs, missing string, change func([]byte) ([]byte, string, error)) (string, error) {
	env.writeMu.Lock()
	defer env.writeMu.Unlock()
	root, rel, err := env.openRoot(name, abs)
	if err != nil {
		return "", err
	}
	defer root.Close()
	mode, exists, err := existing(env, name, root, rel, abs)
	if err != nil {
		return "", err
	}
	if !exists {
		return "", fmt.Errorf("%s: %s does not exist%s", name, env.display(abs), missing)
	}
	data, cur, err := readState(ctx, root, rel)
	if err != nil {
		return "", env.describe(name, abs, err)
	}
	if err := env.checkFresh(name, abs, cur); err != nil {
		return "", err
	}
	out, msg, err := change(data)
	if err != nil {
		return "", err
	}
	st, err := atomicWrite(root, rel, out, mode, checkedDir(d))
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", name, env.display(abs), err)
	}
	env.remember(abs, st)
	return msg, nil
}

// existing reports whether rel exists as a regular file and its permission
// bits. Anything else at the path is an error: a directory cannot be
// written, and a symbolic link is refused rather than replaced by a plain
// file (the atomic rename would swap out the link itself) or written
// through (its target is a path the gate was never asked about).
func existing(env *Env, tool string, root *os.Root, rel, abs string) (fs.FileMode, bool, error) {
	fi, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, env.describe(tool, abs, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := root.Readlink(rel)
		return 0, false, fmt.Errorf("%s: %s is a symbolic link (to %s); write the target path instead", tool, env.display(abs), target)
	case fi.IsDir():
		return 0, false, fmt.Errorf("%s: %s is a directory, not a file", tool, env.display(abs))
	case !fi.Mode().IsRegular():
		return 0, false, fmt.Errorf("%s: %s is not a regular file", tool, env.display(abs))
	}
	return fi.Mode().Perm(), true, nil
}

// readState reads the whole regular file rel and returns its content and
// state.
func readState(ctx context.Context, root *os.Root, rel string) ([]byte, fileState, error) {
	f, fi, err := openRegular(root, rel)
	if err != nil {
		return nil, fileState{}, err
	}
	defer f.Close()
	if fi.Size() > maxEditFile {
		return nil, fileState{}, fmt.Errorf("file is %d bytes, larger than the %d MiB that Write and Edit handle", fi.Size(), maxEditFile>>20)
	}
	data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, maxEditFile+1))
	if err != nil {
		return nil, fileState{}, err
	}
	return data, contentState(fi, data), nil
}

// contentState is the state of a file with information fi and content
// data.
func contentState(fi fs.FileInfo, data []byte) fileState {
	st := stateOf(fi)
	if st.size <= hashLimit {
		st.hashed, st.sum = true, sha256.Sum256(data)
	}
	return st
}

// atomicWrite replaces rel with data through atomicfile.Write (a synced
// temporary file renamed over rel, so a reader sees the old content or the
// new, and the temporary files of writers killed mid-write are swept), in
// the directory handle of rel's parent: every name is then one component
// relative to a handle verified to be wantDir, so nothing can redirect the
// write. It returns the state of the new file.
func atomicWrite(root *os.Root, rel string, data []byte, mode fs.FileMode, wantDir string) (fileState, error) {
	dir, base := filepath.Split(rel)
	d := root
	if dir != "" {
		sub, err := root.OpenRoot(filepath.Clean(dir))
		if err != nil {
			return fileState{}, err
		}
		defer sub.Close()
		d = sub
	}
	check := func(f *os.File) error {
		if wantDir == "" {
			return nil
		}
		// The temp file's descriptor names the directory d really is.
		got, known, err := openedPath(f)
		switch {
		case err != nil:
			return fmt.Errorf("cannot tell which directory the file would be written in (%v), so it is not written", err)
		case known && filepath.Dir(got) != wantDir:
			return fmt.Errorf("the directory is now %s, not %s that the permission check allowed (a symbolic link changed); nothing was written", filepath.Dir(got), wantDir)
		}
		return nil
	}
	fi, err := atomicfile.Write(d, base, data, mode, check)
	if err != nil {
		return fileState{}, err
	}
	return contentState(fi, data), nil
}

// checkedDir is the directory of the file the gate checked for this call,
// or "" if it named none.
func checkedDir(d Decision) string {
	if p := d.Path; p != "" {
		return filepath.Dir(p)
	}
	return ""
}
