package bash

import (
	"path"
	"strings"
)

// mktempWrites returns the file (or directory, -d) mktemp (its words
// args) makes, as its template names it, X's and all: the template
// joined to -p's or --tmpdir='s directory, with --suffix's text added,
// or tmp.XXXXXXXXXX there with no template. dynamic is set where that
// is not known: a word not static, an option not known, a directory
// TMPDIR gives (no template and no directory named, -t, --tmpdir
// alone). -u (--dry-run) makes nothing.
func mktempWrites(args []Word) (ts []Word, dynamic bool) {
	var template, dir, suffix string
	haveTemplate, haveDir, dry, fromEnv := false, false, false, false
	operand := func(v string) bool {
		if haveTemplate {
			return false // mktemp refuses two
		}
		template, haveTemplate = v, true
		return true
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.Value
		next := func() (string, bool) {
			if i+1 >= len(args) || !args[i+1].Static {
				return "", false
			}
			i++
			return args[i].Value, true
		}
		switch {
		case !w.Static:
			return nil, true
		case v == "--":
			for _, o := range args[i+1:] {
				if !o.Static || !operand(o.Value) {
					return nil, true
				}
			}
			i = len(args)
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			var full string
			for _, l := range []string{"--directory", "--dry-run", "--quiet", "--suffix", "--tmpdir"} {
				if strings.HasPrefix(l, name) && len(name) > 2 {
					if full != "" {
						return nil, true // ambiguous
					}
					full = l
				}
			}
			switch full {
			case "--directory", "--quiet":
			case "--dry-run":
				dry = true
			case "--suffix":
				if !eq {
					var ok bool
					if val, ok = next(); !ok {
						return nil, true
					}
				}
				suffix = val
			case "--tmpdir":
				if eq {
					dir, haveDir = val, true
				} else {
					fromEnv = true
				}
			default:
				return nil, true
			}
		case optCluster(v):
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'd', 'q':
				case 'u':
					dry = true
				case 't':
					fromEnv = true // TMPDIR, if set, wins over -p
				case 'p':
					d := v[j+1:]
					if d == "" {
						var ok bool
						if d, ok = next(); !ok {
							return nil, true
						}
					}
					dir, haveDir = d, true
					j = len(v)
				default:
					return nil, true
				}
			}
		default:
			if !operand(v) {
				return nil, true
			}
		}
	}
	if dry {
		return nil, false
	}
	if !haveTemplate {
		template = "tmp.XXXXXXXXXX"
		fromEnv = fromEnv || !haveDir
	}
	if !path.IsAbs(template) && (fromEnv || haveDir) {
		if fromEnv || dir == "" {
			return nil, true
		}
		template = path.Join(dir, template)
	}
	return []Word{staticWord(template + suffix)}, false
}
