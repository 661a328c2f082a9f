package bash

import (
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// compressor is how a compression program names the files it writes: a
// file compressed gets a suffix, one decompressed loses it, and the input
// is removed either way unless kept.
type compressor struct {
	decompress bool     // it decompresses unless told otherwise (gunzip)
	suffixes   []string // what decompressing takes off a name
	suffix     string   // what compressing adds
}

var compressors = lazy.Value[map[string]compressor]{New: func() map[string]compressor {
	gz := []string{".gz", ".z", "-gz", "-z", "_z", ".tgz", ".taz"}
	bz := []string{".bz2", ".bz", ".tbz2", ".tbz"}
	xz := []string{".xz", ".lzma", ".txz", ".tlz"}
	zst := []string{".zst", ".tzst"}
	return map[string]compressor{
		"gzip": {suffixes: gz, suffix: ".gz"}, "gunzip": {decompress: true, suffixes: gz},
		"pigz": {suffixes: gz, suffix: ".gz"}, "unpigz": {decompress: true, suffixes: gz},
		"bzip2": {suffixes: bz, suffix: ".bz2"}, "bunzip2": {decompress: true, suffixes: bz},
		"pbzip2": {suffixes: bz, suffix: ".bz2"}, "lbzip2": {suffixes: bz, suffix: ".bz2"},
		"xz": {suffixes: xz, suffix: ".xz"}, "unxz": {decompress: true, suffixes: xz},
		"lzma": {suffixes: xz, suffix: ".lzma"}, "unlzma": {decompress: true, suffixes: xz},
		"pixz": {suffixes: xz, suffix: ".xz"},
		"zstd": {suffixes: zst, suffix: ".zst"}, "unzstd": {decompress: true, suffixes: zst},
		"pzstd": {suffixes: zst, suffix: ".zst"}, "zstdmt": {suffixes: zst, suffix: ".zst"},
		"lz4": {suffixes: []string{".lz4"}, suffix: ".lz4"}, "unlz4": {decompress: true, suffixes: []string{".lz4"}},
		"brotli": {suffixes: []string{".br"}, suffix: ".br"}, "unbrotli": {decompress: true, suffixes: []string{".br"}},
		"compress": {suffixes: []string{".Z"}, suffix: ".Z"}, "uncompress": {decompress: true, suffixes: []string{".Z"}},
		"lzip": {suffixes: []string{".lz", ".tlz"}, suffix: ".lz"}, "lzop": {suffixes: []string{".lzo", ".tzo"}, suffix: ".lzo"},
	}
}}

// compressWrites returns the files a compression program (compressors)
// given args writes or removes: each operand (removed, and lz4's second
// operand is its output), the name it compresses to or decompresses to,
// and the value of an option that names the output (-o, --output). dynamic
// is set when they cannot be named: a word not static, a recursive run, a
// suffix set by an option. A run that writes to stdout, tests or lists
// writes nothing.
func compressWrites(prog string, args []Word) (targets []Word, dynamic bool, ok bool) {
	cz, ok := compressors.Get()[prog]
	if !ok {
		return nil, false, false
	}
	decompress := cz.decompress
	var operands []Word
	ended := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			return nil, true, true
		}
		v := w.Value
		switch {
		case ended || v == "-" || !strings.HasPrefix(v, "-"):
			operands = append(operands, w)
			continue
		case v == "--":
			ended = true
			continue
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			switch {
			case name == "stdout" || name == "to-stdout" || name == "test" || name == "list":
				return nil, false, true
			case name == "decompress" || name == "uncompress":
				decompress = true
			case name == "compress" || name == "z":
				decompress = false
			case name == "name" && dataWriters.Get()[prog] != nil:
				return nil, false, true // the stored name: DataWrites
			case name == "recursive" || name == "suffix" || name == "name":
				return nil, true, true
			case name == "output" || name == "output-file":
				out, last, ok := optValue(args, i, val, hasVal)
				if !ok || !out.Static {
					return nil, true, true
				}
				i = last
				targets = append(targets, staticWord(out.Value))
			}
			continue
		}
		// A cluster of short options; one that takes a value ends it.
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c', 't', 'l':
				return nil, false, true
			case 'd':
				decompress = true
			case 'z':
				decompress = false
			case 'N':
				if dataWriters.Get()[prog] != nil {
					return nil, false, true // the stored name: DataWrites
				}
				return nil, true, true
			case 'r', 'S':
				return nil, true, true
			case 'o':
				out, last, ok := optValue(args, i, v[j+1:], j+1 < len(v))
				if !ok || !out.Static {
					return nil, true, true
				}
				i = last
				targets = append(targets, staticWord(out.Value))
				j = len(v)
			}
		}
	}
	for _, o := range operands {
		if o.Value == "-" {
			continue
		}
		targets = append(targets, o)
		if !decompress {
			targets = append(targets, staticWord(o.Value+cz.suffix))
			continue
		}
		for _, s := range cz.suffixes {
			if base, cut := strings.CutSuffix(o.Value, s); cut && base != "" && !strings.HasSuffix(base, "/") {
				if tarSuffixes.Get()[s] {
					base += ".tar" // a.tgz is a.tar compressed
				}
				targets = append(targets, staticWord(base))
			}
		}
	}
	return targets, false, true
}

// tarSuffixes are the suffixes that stand for ".tar" and one of the above.
var tarSuffixes = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{".tgz": true, ".taz": true, ".tbz2": true, ".tbz": true, ".txz": true, ".tlz": true, ".tzst": true, ".tzo": true}
}}

// staticWord is the static word whose value is s.
func staticWord(s string) Word { return Word{Raw: s, Value: s, Static: true} }
