package perm

import (
	"path"
	"strings"
	"testing"
)

// TestRedTeamProcLinks: a process's links under /proc lead to the
// command's files, not the gate's (procTargets). Was Allow in
// bypassPermissions mode: the gate followed its own /proc/self/cwd (the
// directory the test, or gen, started in) and could not read the links of
// another process.
func TestRedTeamProcLinks(t *testing.T) {
	f := newFixture(t)
	env := all(deny("Read(./.env)"), mode(ModeBypass))
	secrets := all(deny("Read(./secrets/**)"), mode(ModeBypass))
	ssh := all(deny("Read(~/.ssh/**)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"proc: self cwd", env, bashReq("cat /proc/self/cwd/.env"), Deny, 1},
		{"proc: self cwd after cd", env, bashReq("cd src && cat /proc/self/cwd/../.env"), Deny, 1},
		{"proc: self cwd after cd, directory", secrets, bashReq("cd src && cat /proc/self/cwd/../secrets/k"), Deny, 1},
		{"proc: thread-self cwd", env, bashReq("cat /proc/thread-self/cwd/.env"), Deny, 1},
		{"proc: task cwd", env, bashReq("cat /proc/self/task/1/cwd/.env"), Deny, 1},
		{"proc: /dev/fd leads to self", env, bashReq("cd src && cat /dev/fd/../cwd/../.env"), Deny, 1},
		{"proc: cd into self cwd", env, bashReq("cd src; cd /proc/self/cwd; cat ../.env"), Deny, 1},
		{"proc: root within root", env, bashReq("cat /proc/self/root/proc/self/cwd/.env"), Deny, 1},
		{"proc: another process's root", ssh, bashReq("cat /proc/999/root" + f.home + "/.ssh/id"), Deny, 1},
		{"proc: another process's task root", ssh, bashReq("cat /proc/1/task/1/root" + f.home + "/.ssh/id"), Deny, 1},
		{"proc: another process's cwd", env, bashReq("cat /proc/999/cwd/.env"), Deny, 1},
		{"proc: another process's cwd, not denied", env, bashReq("cat /proc/999/cwd/x"), Ask, 2},
		{"proc: another process's descriptor", env, bashReq("cat /proc/999/fd/3"), Ask, 2},
		{"proc: own stdin", env, bashReq("cat /dev/stdin"), Allow, 3},
		{"proc: own status", env, bashReq("cat /proc/self/status /proc/cpuinfo"), Allow, 3},
		{"proc: self cwd, not denied", env, bashReq("cat /proc/self/cwd/src/a.go"), Allow, 3},
	})
}

// joinedHasProc, which spares resolveNow a string per path, answers as
// the test of the joined path it stands for.
func TestJoinedHasProc(t *testing.T) {
	dirs := []string{"/", "/a", "/pro", "/a/proc", "/proc", "/x/pro/", "/a/b/c", "//"}
	ps := []string{"", "proc", "proc/self/root", "c/x", "a/proc", "a//proc/1", "x", ".", "../proc", "pro", "roc", "/proc"}
	for _, d := range dirs {
		for _, p := range ps {
			if got, want := joinedHasProc(d, p), strings.Contains(d+"/"+p, "/proc"); got != want {
				t.Errorf("joinedHasProc(%q, %q) = %v, want %v", d, p, got, want)
			}
		}
	}
}

// joinAt, which spares procWalk a string per element, answers as
// path.Join, whether or not src spells the join before part.
func TestJoinAt(t *testing.T) {
	for _, c := range []struct {
		cur, src string
	}{
		{"/", "/tmp"}, {"/", "//tmp"}, {"/", "tmp"}, {"/", "x/tmp"},
		{"/a", "/a/tmp"}, {"/a", "/ab/tmp"}, {"/a", "/b/tmp"}, {"/a", "/a//tmp"}, {"/a/b", "/a/b/tmp"},
		{"/a/b", "/a/c/tmp"}, {"/a", "a/tmp"}, {"/a", "/a/./tmp"}, {"/x/y", "/x/y/z/../tmp"},
	} {
		start := strings.LastIndex(c.src, "tmp")
		if got, want := joinAt(c.cur, "tmp", c.src, start), path.Join(c.cur, "tmp"); got != want {
			t.Errorf("joinAt(%q, tmp, %q, %d) = %q, want %q", c.cur, c.src, start, got, want)
		}
	}
}
