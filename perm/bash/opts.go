package bash

import (
	"errors"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"
)

// optSpec describes the command-line options of one program, in getopt
// style: short options cluster ("-fd"), a short option's argument may be
// attached ("-n5") or the next word, long options take "=value" or the next
// word, and "--" ends the options.
type optSpec struct {
	flags string // short options without an argument
	args  string // short options with an argument
	// attached are short options whose argument is only the rest of
	// their word, if any: getopt's optional argument (perl -i.bak).
	attached string
	// octal are short options whose argument is the octal digits right
	// after them, the rest of the word being more options (perl -l0n).
	octal    string
	long     []string // long options without an argument (an "=value" is kept)
	longArgs []string // long options with an argument
	// permute lets options follow operands, as GNU getopt does; without
	// it the first operand ends the options (wrappers: what follows is a
	// command line of its own).
	permute bool
	// strict makes an unknown option an error instead of a flag.
	strict bool
	// exact makes a long option known only when written in full: an
	// abbreviation is unknown (with strict, an error).
	exact bool
}

// arg is one parsed argument: an option (opt set) or an operand.
type arg struct {
	opt    string // "-f" or "--force" with abbreviations resolved; "" for an operand
	val    string // the option's argument or the operand's value
	hasVal bool
	word   *Word // the word val came from when it is a whole word, for Tilde
}

var (
	errDynamic = errors.New("option word is not static")
	errUnknown = errors.New("unknown option")
)

// parse splits words into options and operands. It returns the arguments in
// order and the index of the first word it did not consume: len(words) when
// permuting, else the first operand (or the word after "--"). It stops with
// errDynamic at a word that is not static where an option or operand is
// due, since that word may be either, and with errUnknown at an unknown
// option when strict. An option's argument may be dynamic.
//
// Before an argument is appended, out gets room for one per word left
// (slices.Grow, a no-op while there is room): one allocation, where
// growing as needed made one per doubling.
func (s *optSpec) parse(words []Word) ([]arg, int, error) {
	var out []arg
	for i := 0; i < len(words); i++ {
		w := &words[i]
		if !w.Static {
			return out, i, errDynamic
		}
		v := w.Value
		switch {
		case v == "--":
			if !s.permute {
				return out, i + 1, nil
			}
			out = slices.Grow(out, len(words)-i-1)
			for j := i + 1; j < len(words); j++ {
				if !words[j].Static {
					return out, j, errDynamic
				}
				out = append(out, arg{val: words[j].Value, hasVal: true, word: &words[j]})
			}
			return out, len(words), nil
		case len(v) < 2 || v[0] != '-':
			if !s.permute {
				return out, i, nil
			}
			out = append(slices.Grow(out, len(words)-i), arg{val: v, hasVal: true, word: w})
			continue
		}
		out = slices.Grow(out, len(words)-i)
		var (
			used int
			err  error
		)
		if strings.HasPrefix(v, "--") {
			out, used, err = s.parseLong(out, v, words[i+1:])
		} else {
			out, used, err = s.parseShort(out, v, words[i+1:])
		}
		if err != nil {
			return out, i, err
		}
		i += used
	}
	return out, len(words), nil
}

// parseLong parses the long option v and appends it to out; next are the
// words after it. It returns how many of them it consumed.
func (s *optSpec) parseLong(out []arg, v string, next []Word) ([]arg, int, error) {
	name, val, hasVal := strings.Cut(v[2:], "=")
	full, takesArg, known := s.lookupLong(name)
	if !known {
		if s.strict {
			return out, 0, errUnknown
		}
		return append(out, arg{opt: longOpt(v, name), val: val, hasVal: hasVal}), 0, nil
	}
	a := arg{opt: longOpt(v, full), val: val, hasVal: hasVal}
	if !takesArg || hasVal {
		return append(out, a), 0, nil
	}
	if len(next) == 0 {
		return append(out, a), 0, nil // missing argument: the program will fail
	}
	// A dynamic argument is still the option's argument: consume it so
	// that what follows is parsed (`sudo -u $user rm -rf /`). Its value
	// stays empty; callers that need values reject dynamic words first.
	a.val, a.hasVal, a.word = next[0].Value, true, &next[0]
	return append(out, a), 1, nil
}

// longOpt returns "--" + name, without a copy when the word v starts so.
func longOpt(v, name string) string {
	if len(v) >= 2+len(name) && v[2:2+len(name)] == name {
		return v[:2+len(name)]
	}
	return "--" + name
}

// lookupLong resolves name, which may be an unambiguous abbreviation as
// getopt_long allows (getoptLong; each name is an option of its own).
func (s *optSpec) lookupLong(name string) (full string, takesArg, known bool) {
	if name == "" {
		return "", false, false
	}
	if s.exact {
		if slices.Contains(s.longArgs, name) {
			return name, true, true
		}
		return name, false, slices.Contains(s.long, name)
	}
	full, _, known = getoptLong(name, func(yield func(string, string) bool) {
		for _, list := range [2][]string{s.long, s.longArgs} {
			for _, l := range list {
				if !yield(l, l) {
					return
				}
			}
		}
	})
	return full, known && slices.Contains(s.longArgs, full), known
}

// getoptLong resolves the long option name as getopt_long does among the
// names cands yields, each with the option it names: the name equal to
// it, else the one option some of whose names start with it (names of one
// option count once). found is false for an unknown or ambiguous name,
// which the program refuses. name and the names are compared as they
// are, so both have their "--" or neither has.
func getoptLong[K comparable](name string, cands iter.Seq2[string, K]) (full string, opt K, found bool) {
	ambiguous := false
	for n, k := range cands {
		switch {
		case n == name:
			return n, k, true
		case !strings.HasPrefix(n, name) || found && k == opt:
		case found:
			ambiguous = true
		default:
			full, opt, found = n, k, true
		}
	}
	if ambiguous {
		var none K
		return "", none, false
	}
	return full, opt, found
}

// parseShort parses the short option cluster v and appends its options
// to out.
func (s *optSpec) parseShort(out []arg, v string, next []Word) ([]arg, int, error) {
	for j := 1; j < len(v); j++ {
		c := v[j]
		switch {
		case strings.IndexByte(s.args, c) >= 0:
			a := arg{opt: shortOpt(v, j)}
			if j+1 < len(v) {
				a.val, a.hasVal = v[j+1:], true
				return append(out, a), 0, nil
			}
			if len(next) == 0 {
				return append(out, a), 0, nil
			}
			a.val, a.hasVal, a.word = next[0].Value, true, &next[0] // dynamic too: see parseLong
			return append(out, a), 1, nil
		case strings.IndexByte(s.attached, c) >= 0:
			a := arg{opt: shortOpt(v, j), val: v[j+1:], hasVal: j+1 < len(v)}
			return append(out, a), 0, nil
		case strings.IndexByte(s.octal, c) >= 0:
			k := j + 1
			for k < len(v) && '0' <= v[k] && v[k] <= '7' {
				k++
			}
			out = append(out, arg{opt: shortOpt(v, j), val: v[j+1 : k], hasVal: k > j+1})
			j = k - 1
		case strings.IndexByte(s.flags, c) >= 0 || !s.strict:
			out = append(out, arg{opt: shortOpt(v, j)})
		default:
			return out, 0, errUnknown
		}
	}
	return out, 0, nil
}

// dashed holds "-" and each printable ASCII character, from " " on: the
// names of short options, which dash cuts from it without a copy.
const dashed = "- -!-\"-#-$-%-&-'-(-)-*-+-,---.-/-0-1-2-3-4-5-6-7-8-9-:-;-<-=->-?-@-A-B-C-D-E-F-G-H-I-J-K-L-M-N-O-P-Q-R-S-T-U-V-W-X-Y-Z-[-\\-]-^-_-`-a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-{-|-}-~"

// dash returns "-" followed by the byte c, cut from dashed when c is
// printable ASCII.
func dash(c byte) string {
	if c < ' ' || c > '~' {
		return "-" + string([]byte{c})
	}
	i := 2 * int(c-' ')
	return dashed[i : i+2]
}

// shortOpt returns "-" and the character of the byte v[j] of the cluster
// v (a byte past ASCII reads as the rune of that value, as it always has),
// without a copy for a cluster of one ASCII option.
func shortOpt(v string, j int) string {
	switch c := v[j]; {
	case c >= utf8.RuneSelf:
		return "-" + string(rune(c))
	case j == 1 && len(v) == 2:
		return v
	default:
		return dash(c)
	}
}

// abbrev reports whether the long option given (as "--name", without any
// "=value") could mean full: equal to it, or a prefix of it of at least
// min bytes. Rejection checks use it so that an ambiguous abbreviation the
// program might still accept is caught too.
func abbrev(given, full string, min int) bool {
	return given == full || len(given) >= min && strings.HasPrefix(full, given)
}

// LongAbbrev reports whether the word v is a long option (with or
// without "=value") getopt_long may take for full: full itself, or any
// prefix of it after "--", ambiguous ones included (--rec for
// --recursive, --creat for --create).
func LongAbbrev(v, full string) bool {
	return strings.HasPrefix(v, "--") && abbrev(longName(v), full, len("--x"))
}

// longName returns the "--name" part of a long option word.
func longName(v string) string {
	name, _, _ := strings.Cut(v, "=")
	return name
}

// optCluster reports whether v is a cluster of short options: "-" and
// at least one more character, not "--" ("-la", "-x", "-n5").
func optCluster(v string) bool { return len(v) > 1 && v[0] == '-' && v[1] != '-' }

// ClusterHas reports whether v is a cluster of short options that holds
// c ("-xe" holds x and e).
func ClusterHas(v string, c byte) bool {
	return optCluster(v) && strings.IndexByte(v[1:], c) >= 0
}

// optValue returns the value of the option args[i] names, for a reader
// that picks one option out of a command line: inline, when given (after
// "=", or the rest of a short-option cluster), else the next word, with
// the index of the last word it took; ok is false when there is no next
// word. The caller judges whether the value is static.
func optValue(args []Word, i int, inline string, given bool) (val Word, last int, ok bool) {
	switch {
	case given:
		return staticWord(inline), i, true
	case i+1 < len(args):
		return args[i+1], i + 1, true
	}
	return Word{}, i, false
}
