package bash

import (
	"slices"
	"strings"
	"testing"
)

// TestCommandEnv: the variables that change how bash reads a command are
// left out, and so is every PATH entry that is relative or in the
// workspace; everything else is kept as it was, in order.
func TestCommandEnv(t *testing.T) {
	inWS := func(d string) bool { return d == "/ws" || strings.HasPrefix(d, "/ws/") }
	env := []string{
		"HOME=/home/u", "CDPATH=/", "GLOBIGNORE=*", "BASHOPTS=dotglob", "SHELLOPTS=noglob",
		"POSIXLY_CORRECT=1", "BASH_ENV=/tmp/x", "ENV=/tmp/y", "EXECIGNORE=*", "LANG=C.UTF-8",
		"SSH_CLIENT=192.0.2.1 50000 22", "SSH2_CLIENT=192.0.2.1 50000 22",
		"GIT_DIR=/tmp/r", "GIT_WORK_TREE=/tmp", "GIT_COMMON_DIR=/tmp/c", "GIT_OBJECT_DIRECTORY=/tmp/o", "GIT_INDEX_FILE=/tmp/i",
		"PATH=.:/usr/bin::bin:/ws/bin:/opt/x/bin:node_modules/.bin:~/bin",
	}
	got, dropped := CommandEnv(env, inWS)
	want := []string{"HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin:/opt/x/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("env = %q, want %q", got, want)
	}
	if want := []string{".", "", "bin", "/ws/bin", "node_modules/.bin", "~/bin"}; !slices.Equal(dropped, want) {
		t.Errorf("dropped = %q, want %q", dropped, want)
	}
	if got, dropped := CommandEnv([]string{"PATH=/usr/bin:/bin"}, inWS); !slices.Equal(got, []string{"PATH=/usr/bin:/bin"}) || dropped != nil {
		t.Errorf("a clean PATH changed: %q, dropped %q", got, dropped)
	}
}
