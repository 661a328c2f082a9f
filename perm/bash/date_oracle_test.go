//go:build linux

package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDateStringOracle holds date's spec to what GNU date 9.1 reads while
// parsing a date string: a leading TZ="NAME" loads the time zone file
// NAME names, here a copy of Asia/Kathmandu (+05:45) in the test's
// directory, by absolute path and by a path climbing out of
// /usr/share/zoneinfo. A date string whose time date reads in that zone
// loaded the file, a read the gate does not check: such a command line
// must not be read-only.
func TestDateStringOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs date")
	}
	if _, err := exec.LookPath("date"); err != nil {
		t.Skip("date is not installed")
	}
	zone, err := os.ReadFile("/usr/share/zoneinfo/Asia/Kathmandu")
	if err != nil {
		t.Skip("no time zone database")
	}
	dir := t.TempDir()
	if out, _ := runAudit(t, dir, []string{"date", "--version"}); !strings.Contains(out, "(GNU coreutils) 9.1") {
		t.Skipf("date is not the version its spec was checked against: %.60q", out)
	}
	tz := filepath.Join(dir, "tz")
	if err := os.WriteFile(tz, zone, 0o644); err != nil {
		t.Fatal(err)
	}
	climb := "../../.." + tz
	const when = "2020-01-01 00:00"
	plain, _ := runAudit(t, dir, []string{"date", "-d", when, "+%s"})
	loaded := 0
	for _, s := range []string{
		`TZ="` + tz + `" ` + when,
		`  TZ="` + climb + `" ` + when,
		"\tTZ=\"" + climb + "\"" + when,
		`TZ="` + strings.ReplaceAll(climb, "/", `\/`) + `" ` + when,
		when,
		`TZ=` + tz + ` ` + when,
	} {
		for _, args := range [][]string{{"-d", s}, {"--date=" + s}, {"-d" + s}, {"--da", s}} {
			out, _ := runAudit(t, dir, append([]string{"date"}, append(args, "+%s")...))
			if out == plain || strings.Contains(out, "invalid date") {
				continue
			}
			loaded++
			src := "date " + quoteString(args[0])
			if len(args) > 1 {
				src += " " + quoteString(args[1])
			}
			if _, ok := mustParse(t, src+" +%s").Commands[0].Reads(); ok {
				t.Errorf("%s: date read its time in the zone file (%q, not %q); the spec says it is read-only", src, out, plain)
			}
		}
	}
	if loaded == 0 {
		t.Error("date loaded no zone file: the probe is broken")
	}
}
