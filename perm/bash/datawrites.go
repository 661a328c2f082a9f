package bash

import (
	"path"
	"strings"
)

// dataWriters are programs that write the files their input names: a
// patch's files, an archive's members. Each function is given the words
// after the program and returns what the program reads those names from
// ("patch", "archive") when the words may make it write them, "" when
// they certainly do not (a listing, a check, output to stdout only). A
// word that is not static may be any option: the program may write.
var dataWriters = map[string]func(args []Word) string{
	"tar":        tarWrites,
	"gtar":       tarWrites,
	"bsdtar":     tarWrites,
	"unzip":      unzipWrites,
	"cpio":       cpioWrites,
	"bsdcpio":    cpioWrites,
	"patch":      patchWrites,
	"gpatch":     patchWrites,
	"git":        gitDataWrites,
	"7z":         commandLetter("archive", "xe"),
	"7za":        commandLetter("archive", "xe"),
	"7zr":        commandLetter("archive", "xe"),
	"7zz":        commandLetter("archive", "xe"),
	"unrar":      commandLetter("archive", "xe"),
	"lha":        commandLetter("archive", "xe"),
	"lhasa":      commandLetter("archive", "xe"),
	"ar":         commandLetter("archive", "x"),
	"jar":        commandLetter("archive", "x"),
	"pax":        paxWrites,
	"dpkg-deb":   dpkgWrites,
	"dpkg":       dpkgWrites,
	"unar":       always("archive"),
	"uudecode":   always("encoded file"),
	"cabextract": cabWrites,
	"gzip":       gzipWrites(false),
	"pigz":       gzipWrites(false),
	"gunzip":     gzipWrites(true),
	"unpigz":     gzipWrites(true),
}

// DataWrites reports, for a command that writes files whose paths are
// named in data it reads (git apply, patch, tar x, unzip, cpio -i, git
// am), why the gate cannot know what it writes; "" if no reading of the
// command is such a writer.
func (c *Command) DataWrites() string {
	for _, v := range c.variants() {
		if len(v) == 0 || !v[0].Static {
			continue
		}
		prog := path.Base(v[0].Value)
		f, ok := dataWriters[prog]
		if !ok {
			continue
		}
		what := f(v[1:])
		if what == "" {
			continue
		}
		if prog == "git" && len(v) > 1 {
			prog += " " + v[1].Value
		}
		return prog + " writes the paths the " + what + " names, which the gate cannot see"
	}
	return ""
}

// dynamicWord reports a word that is not static: it may be any option.
func dynamicWord(args []Word) bool {
	for _, w := range args {
		if !w.Static {
			return true
		}
	}
	return false
}

func always(what string) func([]Word) string {
	return func([]Word) string { return what }
}

// tarArgLetters are the short options that take a value in GNU tar and
// bsdtar alike (tar is either): the rest of a cluster after one, or the
// next word, is its value. The letters only one of them reads a value
// for (GNU's -H, -L, -N, bsdtar's -s) are read as options: a value read
// so may only make the gate think tar extracts.
const tarArgLetters = "bCfITX"

// tarWrites: tar writes the members it extracts (x, -x, --extract,
// --get), except where they go to stdout only (-O, --to-stdout, without
// --to-command, which runs a program for each).
func tarWrites(args []Word) string {
	if dynamicWord(args) {
		return "archive"
	}
	extract, stdout, command := false, false, false
	skip := 0 // words that are the values of options before them
	for i, w := range args {
		v := w.Value
		if skip > 0 {
			skip--
			continue
		}
		if v == "--" {
			break // members follow
		}
		switch {
		case strings.HasPrefix(v, "--"):
			name := longName(v)
			extract = extract || abbrev(name, "--extract", 5) || abbrev(name, "--get", 4)
			stdout = stdout || name == "--to-stdout"
			command = command || abbrev(name, "--to-command", 6)
		case strings.HasPrefix(v, "-") || i == 0 && oldStyle(v):
			// A cluster (letters up to one that takes a value, which
			// the rest is), or the first word in the old style (xvf:
			// each letter an option).
			letters := strings.TrimPrefix(v, "-")
			if !strings.HasPrefix(v, "-") {
				// Old style: each option's value is a word of its own.
				for _, b := range []byte(letters) {
					if strings.IndexByte(tarArgLetters, b) >= 0 {
						skip++
					}
				}
			} else if k := strings.IndexAny(letters, tarArgLetters); k >= 0 {
				if k == len(letters)-1 {
					skip = 1 // -f ARCHIVE: the value is the next word
				}
				letters = letters[:k] // -fARCHIVE
			}
			extract = extract || strings.Contains(letters, "x")
			// Only a plain cluster says "to stdout" for certain: in
			// another, an O may be an argument (bsdtar -s).
			stdout = stdout || v == "-O" || strings.Trim(strings.TrimSuffix(strings.TrimPrefix(v, "-"), "f"), "xvzjJO") == "" && strings.Contains(v, "O")
		}
	}
	if extract && (!stdout || command) {
		return "archive"
	}
	return ""
}

// oldStyle reports a first word tar reads as options in the old style:
// letters and digits only (with any other byte tar refuses to run).
func oldStyle(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return v != ""
}

// unzipWrites: unzip extracts unless an option before the archive lists
// (-l, -v, -Z), tests (-t), prints (-p, -c) or shows the comment (-z).
func unzipWrites(args []Word) string {
	if dynamicWord(args) {
		return "archive"
	}
	for _, w := range args {
		v := w.Value
		if !strings.HasPrefix(v, "-") || v == "-" {
			break // the archive: options before it decide
		}
		if l := v[1:]; l != "" && strings.Trim(l, "lvtzZpcq") == "" && strings.ContainsAny(l, "lvtzZpc") {
			return ""
		}
	}
	return "archive"
}

// cpioWrites: cpio writes what it extracts (-i, --extract) unless it
// only lists (-t, --list), and what it copies (-p, --pass-through).
func cpioWrites(args []Word) string {
	if dynamicWord(args) {
		return "archive"
	}
	extract, pass, list := false, false, false
	for _, w := range args {
		v := w.Value
		switch {
		case v == "--":
		case strings.HasPrefix(v, "--"):
			name := longName(v)
			extract = extract || abbrev(name, "--extract", 4)
			pass = pass || abbrev(name, "--pass-through", 5)
			list = list || name == "--list"
		case strings.HasPrefix(v, "-"):
			letters := v[1:]
			if k := strings.IndexAny(letters, "CEFHIMOR"); k >= 0 {
				letters = letters[:k]
			}
			extract = extract || strings.Contains(letters, "i")
			pass = pass || strings.Contains(letters, "p")
			list = list || strings.Contains(v[1:], "t") && strings.Trim(v[1:], "itvdmun") == ""
		}
	}
	if pass || extract && !list {
		return "archive"
	}
	return ""
}

// patchWrites: patch writes the files the patch names unless --dry-run.
func patchWrites(args []Word) string {
	if dynamicWord(args) {
		return "patch"
	}
	for _, w := range args {
		if w.Value == "--" {
			break
		}
		if strings.HasPrefix(w.Value, "--") && abbrev(longName(w.Value), "--dry-run", 4) {
			return ""
		}
	}
	return "patch"
}

// gitDataWrites: git apply writes the files its patch names unless it
// only checks or summarises it (--check, --stat, --numstat, --summary
// without --apply); git am writes those of its mailbox's patches,
// unless it only shows the current one.
func gitDataWrites(args []Word) string {
	if len(args) == 0 || !args[0].Static {
		return ""
	}
	rest := args[1:]
	switch args[0].Value {
	case "apply":
		if dynamicWord(rest) {
			return "patch"
		}
		report, apply := false, false
		for _, w := range rest {
			switch name := longName(w.Value); {
			case w.Value == "--":
			case name == "--check", name == "--stat", name == "--numstat", name == "--summary":
				report = true
			case strings.HasPrefix(name, "--") && abbrev(name, "--apply", 4):
				apply = true
			}
		}
		if report && !apply {
			return ""
		}
		return "patch"
	case "am":
		if dynamicWord(rest) {
			return "patch"
		}
		for _, w := range rest {
			if longName(w.Value) == "--show-current-patch" {
				return ""
			}
		}
		return "patch"
	}
	return ""
}

// commandLetter is a program whose first operand is a command (7z x,
// unrar e, ar x, jar xf): those holding a letter of extract extract.
func commandLetter(what, extract string) func([]Word) string {
	return func(args []Word) string {
		for _, w := range args {
			if !w.Static {
				return what
			}
			v := w.Value
			if strings.HasPrefix(v, "--") {
				continue
			}
			if strings.ContainsAny(strings.TrimPrefix(v, "-"), extract) {
				return what
			}
			if !strings.HasPrefix(v, "-") {
				return "" // the command: it does not extract
			}
		}
		return ""
	}
}

// paxWrites: pax reads an archive into files with -r (and copies with
// -rw).
func paxWrites(args []Word) string {
	for _, w := range args {
		if !w.Static || strings.HasPrefix(w.Value, "-") && !strings.HasPrefix(w.Value, "--") && strings.Contains(w.Value, "r") {
			return "archive"
		}
	}
	return ""
}

// dpkgWrites: dpkg-deb (and dpkg) extract a package's files with -x, -X,
// -R, -e and their long names; dpkg installs them with -i and --unpack.
func dpkgWrites(args []Word) string {
	for _, w := range args {
		if !w.Static {
			return "package"
		}
		switch longName(w.Value) {
		case "-x", "-X", "-R", "-e", "-i", "--extract", "--vextract", "--raw-extract", "--control", "--install", "--unpack":
			return "package"
		}
	}
	return ""
}

// cabWrites: cabextract extracts unless it lists (-l), tests (-t) or
// pipes (-p).
func cabWrites(args []Word) string {
	for _, w := range args {
		switch {
		case !w.Static:
			return "archive"
		case w.Value == "-l", w.Value == "-t", w.Value == "-p", w.Value == "--list", w.Value == "--test", w.Value == "--pipe":
			return ""
		}
	}
	return "archive"
}

// gzipWrites: decompressing with -N (--name) writes the file under the
// name the compressed file stores, unless to stdout (-c) or only testing
// or listing (-t, -l).
func gzipWrites(gunzip bool) func([]Word) string {
	return func(args []Word) string {
		decompress, name, quiet := gunzip, false, false
		for _, w := range args {
			v := w.Value
			switch {
			case !w.Static:
				return "compressed file"
			case v == "--":
			case strings.HasPrefix(v, "--"):
				n := longName(v)
				decompress = decompress || abbrev(n, "--decompress", 4) || abbrev(n, "--uncompress", 4)
				name = name || abbrev(n, "--name", 4)
				quiet = quiet || n == "--stdout" || n == "--to-stdout" || n == "--test" || n == "--list"
			case strings.HasPrefix(v, "-"):
				letters := v[1:]
				if k := strings.IndexAny(letters, "Sbp"); k >= 0 {
					letters = letters[:k] // pigz -b, -p and -S take a value
				}
				decompress = decompress || strings.Contains(letters, "d")
				name = name || strings.Contains(letters, "N")
				quiet = quiet || strings.ContainsAny(letters, "ctl")
			}
		}
		if decompress && name && !quiet {
			return "compressed file"
		}
		return ""
	}
}
