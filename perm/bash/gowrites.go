package bash

import (
	"slices"
	"strings"
)

// goToolWrites returns what gofmt, goimports and go (prog, its words
// args) write: gofmt -w and goimports -w rewrite every file (and every
// directory's files) they are given, and -cpuprofile (goimports'
// -memprofile too) names a file; go's -o and its test profiles name
// files (go build -o, go test -c -o, -coverprofile, -outputdir), and go
// env -w and -u write the user's go env file. ok is false for another
// program. dynamic is set where that is not known: a word not static,
// a flag not known.
func goToolWrites(prog string, args []Word) (ts []Word, dynamic, ok bool) {
	switch prog {
	case "gofmt", "goimports":
		ts, dynamic = goFmtWrites(prog, args)
		return ts, dynamic, true
	case "go":
		ts, dynamic = goCmdWrites(args)
		return ts, dynamic, true
	}
	return nil, false, false
}

// goFlag splits a word the flag package reads as a flag ("-w", "--w",
// "-o=x") into its name and its value after "="; flag is false for an
// operand ("-" and "--" included).
func goFlag(v string) (name, val string, eq, flag bool) {
	if len(v) < 2 || v[0] != '-' || v == "--" {
		return "", "", false, false
	}
	name = strings.TrimPrefix(v[1:], "-")
	name, val, eq = strings.Cut(name, "=")
	return name, val, eq, name != ""
}

// goFmtWrites: gofmt's and goimports' flags (the flag package: they
// end at the first operand or "--"), -w's operands and the profile
// files.
func goFmtWrites(prog string, args []Word) (ts []Word, dynamic bool) {
	var bools, valued, outs []string
	switch prog {
	case "gofmt":
		bools, valued, outs = []string{"d", "e", "l", "s", "w", "h", "help"}, []string{"r"}, []string{"cpuprofile"}
	default:
		bools = []string{"d", "e", "l", "w", "v", "format-only", "h", "help"}
		valued, outs = []string{"local", "srcdir", "memrate"}, []string{"cpuprofile", "memprofile", "trace"}
	}
	write := false
	var operands []Word
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			return ts, true
		}
		if w.Value == "--" {
			i++
			break
		}
		name, val, eq, flag := goFlag(w.Value)
		if !flag {
			break
		}
		switch {
		case slices.Contains(bools, name):
			if name == "w" {
				write = !eq || !goFalse(val)
			}
		case slices.Contains(valued, name), slices.Contains(outs, name):
			v := Word{Raw: val, Value: val, Static: true}
			if !eq {
				if i+1 >= len(args) {
					return ts, false // the flag package refuses it
				}
				i++
				v = args[i]
			}
			if slices.Contains(outs, name) {
				if !v.Static {
					return ts, true
				}
				ts = append(ts, v)
			}
		default:
			return ts, true // a flag not known
		}
	}
	operands = args[min(i, len(args)):]
	if !write {
		return ts, false
	}
	for _, o := range operands {
		if !o.Static {
			return ts, true
		}
		ts = append(ts, o)
	}
	return ts, false
}

// goFalse reports a value strconv.ParseBool reads as false.
func goFalse(v string) bool {
	switch v {
	case "0", "f", "F", "false", "FALSE", "False":
		return true
	}
	return false
}

// goCmdWrites: go's output flags wherever they stand (go test reads
// flags after its packages too, and a test binary's -test. ones), and go
// env -w and -u's file.
func goCmdWrites(args []Word) (ts []Word, dynamic bool) {
	if len(args) > 0 && args[0].Static && args[0].Value == "env" {
		for _, w := range args[1:] {
			if !w.Static {
				return ts, true
			}
			if name, _, _, flag := goFlag(w.Value); flag && (name == "w" || name == "u") {
				ts = append(ts, Word{Raw: "~/.config/go/env", Value: "~/.config/go/env", Static: true, Tilde: true})
				return ts, false
			}
		}
		return ts, false
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			dynamic = true
			continue
		}
		name, val, eq, flag := goFlag(w.Value)
		if !flag {
			continue
		}
		switch strings.TrimPrefix(name, "test.") {
		case "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir",
			"fuzzcachedir", "debug-actiongraph", "debug-trace":
		default:
			continue
		}
		v := Word{Raw: val, Value: val, Static: true}
		if !eq {
			if i+1 >= len(args) {
				continue
			}
			i++
			v = args[i]
		}
		if !v.Static {
			dynamic = true
			continue
		}
		ts = append(ts, v)
	}
	return ts, dynamic
}
