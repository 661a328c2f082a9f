package gitconfig

import "strings"

// GitDir returns the path that the text of a .git file names, as git
// reads it (read_gitfile_gently): what follows "gitdir: " to the end of
// the text, less the line ends closing it, relative to the file's
// directory unless absolute. ok is false for text git refuses. A NUL in
// the path ends it for git: such a path is not returned either.
func GitDir(text string) (string, bool) {
	p, found := strings.CutPrefix(text, "gitdir: ")
	return pointerPath(p, found)
}

// CommonDir returns the path that the text of a git directory's commondir
// file names, as git reads it (get_common_dir_noenv): the text less the
// line ends closing it, relative to the git directory unless absolute.
func CommonDir(text string) (string, bool) { return pointerPath(text, true) }

func pointerPath(p string, found bool) (string, bool) {
	p = strings.TrimRight(p, "\r\n")
	return p, found && p != "" && strings.IndexByte(p, 0) < 0
}
