package cli

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// stringsVar defines a repeatable string flag: each use adds one value,
// and the first replaces the default. It is pflag's StringArrayVar (the
// same type name, text and slice methods) without its cost at every
// start: pflag renders each such flag's default through a csv.Writer
// with a 4 KB buffer when the flag is defined, and gen defines a dozen
// of them on every run, whatever the command.
func stringsVar(fl *pflag.FlagSet, p *[]string, name string, value []string, usage string) {
	*p = value
	f := fl.VarPF(&stringsValue{value: p}, name, "", usage)
	if len(value) == 0 {
		// Help shows no default for an empty list: pflag knows "[]" as
		// empty only for its own types, and "" for any.
		f.DefValue = ""
	}
}

// stringsValue is the pflag.Value (and pflag.SliceValue) of stringsVar.
type stringsValue struct {
	value   *[]string
	changed bool
}

func (s *stringsValue) Set(val string) error {
	if !s.changed {
		*s.value = []string{val}
		s.changed = true
	} else {
		*s.value = append(*s.value, val)
	}
	return nil
}

func (s *stringsValue) Append(val string) error {
	*s.value = append(*s.value, val)
	return nil
}

func (s *stringsValue) Replace(val []string) error {
	*s.value = append([]string(nil), val...)
	return nil
}

func (s *stringsValue) GetSlice() []string { return append([]string{}, *s.value...) }

// Type is pflag's name for the type, so that help text and
// FlagSet.GetStringArray treat the flag as theirs.
func (s *stringsValue) Type() string { return "stringArray" }

// String is "[v1,v2]", each value quoted as CSV, as pflag writes it.
func (s *stringsValue) String() string {
	if len(*s.value) == 0 {
		return "[]"
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(*s.value)
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}
