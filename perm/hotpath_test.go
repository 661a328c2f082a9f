package perm

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gen-run/gen/workspace"
)

// The hot path's hand-written scanners against the definitions they
// replace: each must answer exactly what the slower form answers.

// mentionSplitRe is the definition of appendMentionWords' separators.
var mentionSplitRe = regexp.MustCompile("[\\s;|&()<>'\"`$={}\\[\\],!@:\\\\%^#]+")

// versionRe is the definition of isVersion.
var versionRe = regexp.MustCompile(`^[-.]?[0-9][0-9.]*$`)

// opaqueRef is opaque without its program check: every form read.
func opaqueRef(f string) string { return opaqueOne(f, specialPath, argsOfForm(f)) }

var hotSeeds = []string{
	"awk '{system(x)}'", "gawk -f x", "xargs sh", "parallel python3", "sed -e 'w x'", "/bin/bash -s", "python3 -c x",
	". /dev/stdin", "source <(x)", "node\u00a0-e x", "\u0085grep -r x", "grep -R x .", "git log -p", "tar czf a .", "find -L .",
	"  rg x", "cp -r a b", "ls -la", "@f", "a=b", "HEAD:x", "-ofile", "--o=x", "--", "-xvfF", "x y", "/a:b",
	"", ";", ";;", "a", " a ", "a;b", "git -c x=y log", "python3 -c \"open('.env')\"",
	"a\vb", "a\fb\rc\n", "x=$(y)`z`", "[a],{b}", "é;ü", "\xff;\xfe", "a\t\tb  ", "-1.2", ".3", "-", "3..", "1a",
	"/p/.git/x", "/p/.GIT", "/p/x.git", "/p/.config/gcloud/k", "/p/.github/workflows", "/h/.ENV.local", "/p/a/.ssh",
	"/etc", "/etc/", "/etc/../tmp", "//etc/x", "/usr/lib", "/usr2", "/var/spool/cronx", "/var/spool/cron/a",
	"etc", "/dev/null", "/dev/sda", "/./proc/1", "/bin/../sbin",
}

func checkHotEquivalence(t *testing.T, s string) {
	t.Helper()
	if got, want := splitMention(s, nil), mentionSplitRe.Split(s, -1); !slices.Equal(got, want) {
		t.Errorf("splitMention(%q) = %q, want %q", s, got, want)
	}
	forms := []string{s, "x " + s, s + ";"}
	// Appended after words already there, in a block too small to hold
	// them: the lists returned must still be each form's words.
	block, lists := make([]string, 1, 2), make([][]string, 1, 1)
	words, _, _ := appendMentionWords(forms, block, lists)
	if len(words) != len(forms) {
		t.Fatalf("appendMentionWords(%q) returned %d lists", forms, len(words))
	}
	for i, ws := range words {
		if want := mentionSplitRe.Split(forms[i], -1); !slices.Equal(ws, want) {
			t.Errorf("appendMentionWords(%q)[%d] = %q, want %q", forms, i, ws, want)
		}
	}
	rs, rsUnsure := readings(nil, s)
	all, allUnsure := allReadings(nil, s)
	if !slices.Equal(rs, all) || rsUnsure != allUnsure {
		t.Errorf("readings(%q) = %v, %v; want %v, %v", s, rs, rsUnsure, all, allUnsure)
	}
	if got, want := isVersion(s), versionRe.MatchString(s); got != want {
		t.Errorf("isVersion(%q) = %v, want %v", s, got, want)
	}
	want := ""
	if fs := strings.Fields(s); len(fs) > 0 {
		want = fs[0]
	}
	if got := firstField(s); got != want {
		t.Errorf("firstField(%q) = %q, want %q", s, got, want)
	}
	if got, want := opaque([]string{s}, specialPath, argsOfForm(s)), opaqueRef(s); got != want {
		t.Errorf("opaque(%q) = %q, want %q", s, got, want)
	}
	if got, want := recursionOf(s, nil), recursionOfForm(strings.Fields(s)); got != want {
		t.Errorf("recursionOf(%q) = %+v, want %+v", s, got, want)
	}
	if got, want := sensitivePath(s), sensitivePathRef(s); got != want {
		t.Errorf("sensitivePath(%q) = %q, want %q", s, got, want)
	}
}

// sensitivePathRef is sensitivePath as first written, with
// workspace.Within.
func sensitivePathRef(p string) string {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return ""
	}
	for _, d := range systemDirs {
		if workspace.Within(p, d) {
			return d + "/"
		}
	}
	lower := foldCase(filepath.ToSlash(p))
	for _, d := range sensitiveDirs {
		if hasSegments(lower, d) {
			return d + "/"
		}
	}
	base := foldCase(filepath.Base(p))
	for _, f := range sensitiveFiles {
		if base == f || (f == ".env" && strings.HasPrefix(base, ".env.")) {
			return base
		}
	}
	return ""
}

// checkStarMatch compares starMatch with doublestar.Match for a pattern
// starPattern accepts.
func checkStarMatch(t *testing.T, pat, q string) {
	t.Helper()
	rest, globstar, ok := starPattern(pat)
	if !ok {
		return
	}
	want, err := doublestar.Match(pat, q)
	if err != nil {
		t.Fatalf("starPattern accepted %q, which doublestar rejects: %v", pat, err)
	}
	if got := starMatch(rest, q, globstar); got != want {
		t.Errorf("starMatch(%q, %q) = %v, doublestar.Match says %v", pat, q, got, want)
	}
	var pp pathPattern
	pp.setStar(pat)
	if got := pp.starMatch(q); got != want {
		t.Errorf("pathPattern{%q}.starMatch(%q) = %v, doublestar.Match says %v", pat, q, got, want)
	}
}

var starSeeds = [][2]string{
	{"/a/**", "/a"}, {"/a/**", "/a/"}, {"/a/**", "/a/b/c"}, {"/a/*", "/a/"}, {"*", ""}, {"/a/**", "/a//b"},
	{"/a/**", "/ab"}, {"*.pem", ".pem"}, {"*.pem", "x.pem.pem"}, {"/a/*/b", "/a//b"}, {"/**", "/"}, {"/**", ""}, {"/**", "x"},
	{"/a/**", "/a/b/"}, {"a*b", "a/b"}, {"/a/*", "/a"}, {"/a/b*", "/a/b/"}, {"/r/.env.*", "/r/.env.local"},
	{"*a*b*", "xaybz"}, {"**", "a/b"}, {"a/**/b", "a/x/b"}, {"/é*", "/é\xff"}, {"\xff*", "\xff"}, {"/x/**/", "/x/y"}, {"a*", "a"}, {"*a", "ba/a"}, {"a*a", "a"}, {"a*a", "aa"}, {"/s/**", "/s"}, {"/s/**", "/sx"}, {"/**", "//"},
}

// checkLiteralMatch compares literalMatch with the ancestor walk of
// match for clean absolute paths.
func checkLiteralMatch(t *testing.T, lit, p string) {
	t.Helper()
	if strings.ContainsAny(lit, `*?[{\`) || workspace.Clean(p) != p || !strings.HasPrefix(p, "/") {
		return
	}
	for _, broad := range []bool{false, true} {
		want := false
		for q := p; ; q = filepath.Dir(q) {
			if q == lit {
				want = true
				break
			}
			if !broad || q == "/" {
				break
			}
		}
		if got := literalMatch(lit, p, broad); got != want {
			t.Errorf("literalMatch(%q, %q, %v) = %v, want %v", lit, p, broad, got, want)
		}
	}
}

func FuzzLiteralMatch(f *testing.F) {
	for _, c := range [][2]string{{"/", "/a"}, {"/a", "/a"}, {"/a", "/ab"}, {"/a", "/a/b"}, {"/a/", "/a/b"}, {"/a//b", "/a/b/c"}, {"a", "/a"}, {"", "/"}, {"/a/b", "/a"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(checkLiteralMatch)
}

func TestStarMatch(t *testing.T) {
	for _, c := range starSeeds {
		checkStarMatch(t, c[0], c[1])
	}
}

func FuzzStarMatch(f *testing.F) {
	for _, c := range starSeeds {
		f.Add(c[0], c[1])
	}
	f.Fuzz(checkStarMatch)
}

func TestSensitiveDirsStartWithDot(t *testing.T) {
	for _, d := range sensitiveDirs {
		if !strings.HasPrefix(d, ".") {
			t.Errorf("sensitive directory %q does not start with \".\": sensitivePath's filter would miss it", d)
		}
	}
}

// TestSensitiveListsLowerCase: sensitivePath compares lower-cased paths,
// so an entry with upper case would never match (.config/Code/User did
// not).
func TestSensitiveListsLowerCase(t *testing.T) {
	for _, e := range append(slices.Clone(sensitiveDirs), sensitiveFiles...) {
		if strings.ToLower(e) != e {
			t.Errorf("%q is not lower case: sensitivePath never matches it", e)
		}
	}
	for _, p := range []string{"/home/u/.config/Code/User/settings.json", "/home/u/.CONFIG/code/user/tasks.json", "/w/.GIT/config", "/w/.Env.local", "/w/Jenkinsfile"} {
		if sensitivePath(p) == "" {
			t.Errorf("%s is not sensitive", p)
		}
	}
}

func TestHotPathEquivalence(t *testing.T) {
	for _, s := range hotSeeds {
		checkHotEquivalence(t, s)
	}
}

func FuzzHotPathEquivalence(f *testing.F) {
	for _, s := range hotSeeds {
		f.Add(s)
	}
	f.Fuzz(checkHotEquivalence)
}
