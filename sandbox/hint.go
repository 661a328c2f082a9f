package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// deniedMarkers are the error texts of EROFS, EACCES and EPERM as
// programs print them, lower-cased.
var deniedMarkers = []string{"read-only file system", "permission denied", "operation not permitted", "eacces", "eperm", "erofs"}

// networkWords suggest a failed line is about the network.
var networkWords = []string{"/dev/tcp/", "/dev/udp/", "socket", "connect", "resolve", "network", "Network", "host", "Host", "EAI_"}

// Hint returns a note for the model when a command that exited with
// exitCode under spec failed in a way the sandbox likely caused: its
// output reports EROFS, EACCES or EPERM on a path it may not read, on one
// outside the writable roots or inside a carve-out, or on the network
// where spec has none. It returns "" for success, for profile None, and
// when every path named in the failing lines is one the profile lets the
// command write (the failure is then the file system's own).
func Hint(spec Spec, output string, exitCode int) string {
	if exitCode == 0 || spec.Profile == None {
		return ""
	}
	var blocked, unread []string
	network, unexplained := false, false
	for line := range strings.Lines(output) {
		if !containsAny(strings.ToLower(line), deniedMarkers) {
			continue
		}
		if !spec.Network && containsAny(line, networkWords) {
			network = true
			continue
		}
		found := false
		if p := spec.unreadIn(line); p != "" {
			unread = append(unread, p)
			continue
		}
		for _, p := range linePaths(line, spec.Cwd) {
			found = true
			if spec.Profile == ReadOnly || !spec.writable(p) || spec.protected(p) {
				blocked = append(blocked, p)
			}
		}
		// Only a read-only mount reports EROFS, and inside the writable
		// roots only the carve-outs are read-only mounts.
		if !found || strings.Contains(strings.ToLower(line), "read-only file system") {
			unexplained = true
		}
	}
	switch {
	case len(unread) > 0:
		return fmt.Sprintf("sandbox: the %s profile blocked reading %s: a command allowed because it only reads may not read the home directories outside the workspace. Do not retry the same command; if it must read there, ask the user to allow the command by a rule or to add the path to sandbox.filesystem.allowRead.", spec.Profile, unread[0])
	case len(blocked) > 0:
		return fmt.Sprintf("sandbox: the %s profile blocked a write to %s. Do not retry the same command; if the write is needed, ask the user for a wider profile (or for the path in sandbox.filesystem.allowWrite).", spec.Profile, blocked[0])
	case network:
		return fmt.Sprintf("sandbox: the %s profile has no network access. Do not retry; if the command needs the network, ask the user to allow it.", spec.Profile)
	case unexplained:
		return fmt.Sprintf("sandbox: the command ran under the %s profile, which may have blocked it. Do not retry the same command; if it needs more access, ask the user for a wider profile.", spec.Profile)
	}
	return ""
}

// unreadIn returns the first word of line that names, once its links are
// resolved, an existing path s may not read; "" if none, or where s
// confines no reads.
func (s Spec) unreadIn(line string) string {
	if len(s.Readable) == 0 {
		return ""
	}
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, pathTrim)
		if w == "" {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(s.Cwd, w)
		}
		if real, err := filepath.EvalSymlinks(w); err == nil && !s.readable(real) {
			return w
		}
	}
	return ""
}

// pathTrim are the quotes and punctuation around a path in an error line.
const pathTrim = "'\"`‘’“”:,()"

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// linePaths returns the paths an error line names, absolute (relative ones
// resolved against cwd). A path is a word, with quotes and punctuation
// around it stripped, that contains a "/" or was quoted.
func linePaths(line, cwd string) []string {
	var out []string
	for _, w := range strings.Fields(line) {
		quoted := strings.ContainsAny(w[:1], "'\"`‘“")
		w = strings.Trim(w, pathTrim)
		if w == "" || !quoted && !strings.Contains(w, "/") || strings.Contains(w, "://") {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(cwd, w)
		}
		out = append(out, filepath.Clean(w))
	}
	return out
}
