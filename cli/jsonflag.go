package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/gen-run/gen/internal/textfile"
)

// readJSONFlag reads the value v of flag, one that takes, as Claude
// Code's --settings and --mcp-config do, either a JSON object written
// inline or the name of a file holding one. A value starting with "{"
// (after white space) is the JSON; any other is a file, read now. path
// names where data came from, for the errors of whoever parses it: the
// file's absolute path, or flag for inline JSON. An error names the flag
// and the file.
//
// A relative file name is taken from the directory gen was started in,
// not from --cwd. That is what Claude Code does (it has no --cwd: a
// command line moved from claude to gen must read the same files), what
// a shell user completing the name with Tab expects, and what keeps
// "--cwd ~/clone --settings ci.json" from loading the clone's ci.json at
// the trust of the user's own flags: a --settings file's allow rules
// count even in an untrusted project, and a --mcp-config file's servers
// start without the project's trust. An error for a missing relative
// file says so, for the user who meant the file under --cwd.
func readJSONFlag(flag, v string) (data []byte, path string, err error) {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		return []byte(v), flag, nil
	}
	if v == "" {
		return nil, "", fmt.Errorf("%s: empty value: give a file or a JSON object", flag)
	}
	return readFlagFile(flag, v)
}

// readFlagFile reads the file named by the value v of flag, a relative
// name taken from the directory gen was started in (see readJSONFlag),
// as a configuration file is read (textfile.Read). path is the file's
// absolute path. An error names the flag and the file.
func readFlagFile(flag, v string) (data []byte, path string, err error) {
	path, err = filepath.Abs(v)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", flag, v, err)
	}
	data, err = textfile.Read(path, textfile.Max)
	if err != nil {
		// The path is named once, in front, and the same way whatever
		// failed (a missing file, a directory, one too large).
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(v) {
			return nil, "", fmt.Errorf("%s %s: %w (a relative name is taken from the directory gen was started in)", flag, path, err)
		}
		return nil, "", fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return data, path, nil
}

// promptFlag returns the text of a prompt flag pair: text, the value of
// the flag textFlag itself, or the text of file, which the flag fileFlag
// names (--system-prompt and --system-prompt-file, say); the two exclude
// each other. The file must hold UTF-8 text, and some: an empty one
// would quietly stand for no flag at all.
func promptFlag(textFlag, text, fileFlag, file string) (string, error) {
	switch {
	case file == "": // not given: an empty value is refused (noEmpty)
		return text, nil
	case text != "":
		return "", fmt.Errorf("%s and %s exclude each other", textFlag, fileFlag)
	}
	data, path, err := readFlagFile(fileFlag, file)
	switch {
	case err != nil:
		return "", err
	case !utf8.Valid(data):
		return "", fmt.Errorf("%s %s: not UTF-8 text", fileFlag, path)
	case strings.TrimSpace(string(data)) == "":
		return "", fmt.Errorf("%s %s: the file is empty", fileFlag, path)
	}
	return string(data), nil
}
