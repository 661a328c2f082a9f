package perm

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRedTeamFiles collects attacks on the file tools' decisions (Read,
// Edit, Write, NotebookEdit, Glob, Grep): path forms that name a denied
// file without matching the rule as written, and rules that silently
// matched nothing.
func TestRedTeamFiles(t *testing.T) {
	f := newFixture(t)
	base := filepath.Dir(f.root)
	// The workspace and home as the user reached them: through symbolic
	// links (macOS /tmp → /private/tmp, a home on an automount, cd
	// through a link), so rules are anchored at the named directories.
	plink, hlink := filepath.Join(base, "plink"), filepath.Join(base, "hlink")
	for link, dest := range map[string]string{plink: f.root, hlink: f.home} {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{f.root + "/lockdir", f.home + "/.ssh"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	linked := func(p *Policy) { p.Workspace = Workspace{Cwd: plink, Root: plink, Home: hlink} }
	nb := func(p string) Request {
		return Request{Tool: "NotebookEdit", Input: map[string]any{"notebook_path": p}}
	}
	grep := func(p string) Request { return Request{Tool: "Grep", Input: map[string]any{"pattern": "k", "path": p}} }

	// Enough rules that the deny list is indexed by path segment.
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("Read(./pad%d/**)", i))
	}
	indexed := func(rs ...string) func(*Policy) { return deny(slices.Concat(many, rs)...) }

	cases := []redCase{
		{"indexed: linked cwd real path", all(linked, indexed("Read(./secrets/**)")), fileReq("Read", f.root+"/secrets/k"), Deny, 1},
		{"indexed: linked cwd, anchor only", all(linked, indexed("Read(./*)")), fileReq("Read", f.root+"/x.pem"), Deny, 1},
		{"indexed: upper path", indexed("Read(./secrets/**)"), fileReq("Read", "SECRETS/k"), Deny, 1},
		{"indexed: long s path", indexed("Read(./secrets/**)"), fileReq("Read", "\u017fecrets/k"), Deny, 1},
		{"indexed: long s bash", indexed("Read(./secrets/**)"), bashReq("cat \u017fecrets/k"), Deny, 1},
		{"indexed: upper basename", indexed("Read(*.pem)"), fileReq("Read", "X.PEM"), Deny, 1},
		{"indexed: trailing slash", indexed("Read(./secrets/)"), fileReq("Read", "secrets/k"), Deny, 1},

		// A rule anchored at a directory reached through a link must
		// match the file by its real path too.
		{"linked cwd: real path of denied file", all(linked, deny("Read(./secrets/**)")), fileReq("Read", f.root+"/secrets/k"), Deny, 1},
		{"linked cwd: named path of denied file", all(linked, deny("Read(./secrets/**)")), fileReq("Read", plink+"/secrets/k"), Deny, 1},
		{"linked root: real path, bypass", all(linked, deny("Edit(/src/**)"), mode(ModeBypass)), fileReq("Write", f.root+"/src/a.go"), Deny, 1},
		{"linked home: real path, bypass", all(linked, deny("Read(~/.ssh/**)"), mode(ModeBypass)), fileReq("Read", f.home+"/.ssh/id"), Deny, 1},
		{"linked cwd: grep real dir", all(linked, deny("Read(./secrets/**)")), grep(f.root + "/secrets"), Deny, 1},
		{"linked cwd: notebook real path", all(linked, deny("Edit(./src/**)"), mode(ModeAcceptEdits)), nb(f.root + "/src/n.ipynb"), Deny, 1},
		{"linked cwd: ask rule real path", all(linked, ask("Read(./src/**)")), fileReq("Read", f.root+"/src/a.go"), Ask, 5},
		// An allow rule stays narrow: it names the directory as written.
		{"linked cwd: allow not widened", all(linked, allow("Edit(./src/**)")), fileReq("Edit", f.root+"/src/a.go"), Ask, 7},

		// A pattern ending in "/" names a directory (gitignore): denying
		// it denies what is in it, however the path is written.
		{"trailing slash: read in dir", deny("Read(./secrets/)"), fileReq("Read", "secrets/k"), Deny, 1},
		{"trailing slash: dir itself", deny("Read(./secrets/)"), grep("secrets"), Deny, 1},
		{"trailing slash: edit new file", all(deny("Edit(./lockdir/)"), mode(ModeAcceptEdits)), fileReq("Write", "lockdir/new/x"), Deny, 1},
		{"trailing slash: home", all(deny("Read(~/.ssh/)"), mode(ModeBypass)), fileReq("Read", "~/.ssh/id"), Deny, 1},
		{"trailing slash: root relative", all(deny("Edit(/lockdir/)"), mode(ModeBypass)), nb("lockdir/n.ipynb"), Deny, 1},
		{"trailing slash: absolute", all(deny("Read(//"+f.outside[1:]+"/)"), mode(ModeBypass)), fileReq("Read", "link/data"), Deny, 1},
		{"trailing slash: bash cat", deny("Read(./secrets/)"), bashReq("cat secrets/k"), Deny, 1},
		{"trailing slash: ask", ask("Read(./secrets/)"), fileReq("Read", "secrets/k"), Ask, 5},
		// An allow rule ending in "/" is not widened to the files below.
		{"trailing slash: allow stays narrow", all(allow("Edit(./src/)")), fileReq("Edit", "src/a.go"), Ask, 7},

		// On a case-insensitive file system (macOS, Windows, casefold
		// directories) another case names the same file.
		{"case: upper path", deny("Read(./secrets/**)"), fileReq("Read", "SECRETS/k"), Deny, 1},
		{"case: upper rule", all(deny("Read(./.ENV)"), mode(ModeBypass)), fileReq("Read", ".env"), Deny, 1},
		{"case: edit mixed", all(deny("Edit(./Lockdir/**)"), mode(ModeAcceptEdits)), fileReq("Write", "lockDIR/new"), Deny, 1},
		{"case: basename rule", deny("Read(*.pem)"), fileReq("Read", "X.PEM"), Deny, 1},
		{"case: home", all(deny("Read(~/.ssh/**)"), mode(ModeBypass)), fileReq("Read", "~/.SSH/id"), Deny, 1},
		{"case: grep dir", deny("Read(./secrets/**)"), grep("Secrets"), Deny, 1},
		{"case: bash cat", deny("Read(./secrets/**)"), bashReq("cat SECRETS/k"), Deny, 1},
		{"case: ask", ask("Read(./secrets/**)"), fileReq("Read", "SECRETS/k"), Ask, 5},
		// Letters strings.ToLower leaves alone that such a file system
		// folds: ſ (long s) is s, ı (dotless i) is i.
		{"case: long s read", deny("Read(./secrets/**)"), fileReq("Read", "\u017fecrets/k"), Deny, 1},
		{"case: long s bash cat", deny("Read(./secrets/**)"), bashReq("cat \u017fecrets/k"), Deny, 1},
		{"case: long s upper rule", all(deny("Read(./.SSH/**)"), mode(ModeBypass)), bashReq("cat .\u017f\u017fh/k"), Deny, 1},
		{"case: dotless i sensitive", mode(ModeAcceptEdits), fileReq("Write", ".g\u0131t/config"), Ask, 2},
		{"case: long s sensitive bash", mode(ModeAcceptEdits), bashReq("echo x > .v\u017fcode/settings.json"), Ask, 2},
		// An allow rule keeps to the case it was written in.
		{"case: allow stays narrow", allow("Edit(./src/**)"), fileReq("Edit", "SRC/a.go"), Ask, 7},

		// A NUL byte names no file: such a path is malformed, never
		// allowed.
		{"nul in write path", mode(ModeAcceptEdits), fileReq("Write", "src/x\x00"), Ask, 2},
		{"nul in read path", allow("Read(./src/**)"), fileReq("Read", "src/a.go\x00"), Ask, 2},
		{"nul in grep path", nil, grep("src\x00"), Ask, 2},
		{"nul in glob pattern", nil, Request{Tool: "Glob", Input: map[string]any{"pattern": "src/*\x00"}}, Ask, 2},

		// Glob walks its search path made absolute joined with the
		// pattern's literal part: "~" then "../outside" is the home's
		// sibling, not "./outside" (filepath.Join("~", "../outside")),
		// which the gate judged while the tool walked the sibling.
		{"glob: dot-dot out of a home-relative path", nil, Request{Tool: "Glob", Input: map[string]any{"pattern": "../outside/*", "path": "~"}}, Ask, 7},
		{"glob: dot-dot out of a home-relative path, deny", deny("Read(/" + f.outside + "/**)"), Request{Tool: "Glob", Input: map[string]any{"pattern": "../outside/*", "path": "~"}}, Deny, 1},
	}
	runRed(t, f, cases)
}

// TestFoldCase: foldCase gives every letter of a case orbit one form,
// those strings.ToLower leaves as they are too.
func TestFoldCase(t *testing.T) {
	for in, want := range map[string]string{
		"/P/SECRETS": "/p/secrets", "\u017fecret\u017f": "secrets", "\u0131": "i", "\u0130": "i", "\u212a": "k",
		"\u03c2\u03a3": "\u03c3\u03c3", "S\u00c9": "s\u00e9", "\u00df": "\u00df", "/p/a.b": "/p/a.b",
	} {
		if got := foldCase(in); got != want {
			t.Errorf("foldCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFoldMatch checks broad targetMatchFold, given the lower-cased
// target or not, against matching every form as it is and lower-cased, over patterns and
// paths in mixed case, with non-ASCII letters (whose lower case may have
// another length) and at the edges of the directory prefix.
func TestFoldMatch(t *testing.T) {
	patterns := []string{"/p/secrets/**", "/p/Secrets/**", "/p/.env", "/p/.ENV", "*.pem", "*.PEM", "/p/Sé/x", "/p/sé/**",
		"/p/İ/**", "/p/a*/k", "/p/dir/", "/P/**",
		"/p/a-long-directory-name/Sé/.env", "/p/a-long-directory-name/é/**", "/p/a-long-directory-name-é/x",
		"/p/A-Long-Directory-Name/Secrets/**", "/p/A-Long-Directory-Name/Secrets/.env",
		// Literals before a final "/**" at the edges: the root, a
		// directory-only pattern, dots, upper case only, a star before it.
		"/**", "/p/**/", "/p/secrets/**/", "/p/.Env/**", "/p/A.B-C_D/**", "/P/SECRETS/**", "/p/*/**", "/p/s*/**"}
	paths := []string{"/p/secrets/k", "/p/SECRETS/k", "/P/secrets", "/p/secret", "/p/.env", "/p/.Env", "/p/x.PEM",
		"/p/x.pem", "/p/SÉ/x", "/p/sé/x", "/p/Sé/x", "/p/i̇/k", "/p/İ/k", "/p/AB/k", "/p/dir", "/p/DIR/f", "/p", "/P", "/",
		"/q/secrets/k", "/p/secrets", "/p/Secrets", "/p/.ENV/x", "/p/.envx", "/p/./.ENV", "/p/./.ENV/x", "/p/x/../.Env", "/p/.Env/..",
		"/p/SÉ", "/p/sé", "/p//.Env", "p/.env", "",
		"/p/a-long-directory-name/SÉ/.ENV", "/p/A-LONG-directory-name/sé/.env", "/p/a-long-directory-name/sé/.env",
		"/p/a-long-directory-name/É/k", "/p/a-long-directory-name-É/x", "/p/a-long-directory-name-é/X",
		"/p/A-Long-Directory-Name/Secrets/k", "/p/a-long-directory-name/secrets/k", "/p/A-LONG-DIRECTORY-NAME/SECRETS/.ENV",
		"/p/A-Long-Directory-Name/Other/k", "/p/A-Long-Directory-Name/Secrets/.Env", "/p/A-Long-Directory-Name/Secrets",
		"/p/A-Long-Directory-Name/SecretX/k", "/p/A-Long-Directory-Name/SecretX",
		"/p/a.b-c_d", "/p/A.B-C_D/x", "/p/a.b-c_dx", "/p/.ENV/k/l", "/p/secrets/", "/p/secrets/./k", "/p/secrets/../k",
		"/p/\u017fecrets/k", "/p/.\u0131/x", "/p/\u212a", "/p/a-long-directory-name/\u017fecrets/k"}
	naive := func(pp pathPattern, tg target) bool {
		for _, p := range tg.forms() {
			if pp.match(p, true) {
				return true
			}
		}
		fp := pp
		if pp.folded != nil {
			fp = *pp.folded
		}
		for _, p := range tg.forms() {
			lp := foldCase(p)
			if (lp != p || pp.folded != nil) && fp.match(lp, true) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, pat := range patterns {
		if strings.HasPrefix(pat, "/") {
			pat = "/" + pat // "//" starts an absolute pattern
		}
		pp := compileAnchored(Workspace{Cwd: "/w", Root: "/w", Home: "/h"}, pat)
		for _, a := range paths {
			for _, r := range paths {
				tg := target{abs: a, real: r}
				var fc foldCache
				want := naive(pp, tg)
				if got := targetMatchFold(pp, tg, nil, true); got != want {
					t.Errorf("targetMatchFold(%q, {%q %q}) = %v, lower-casing every form gives %v", pat, a, r, got, want)
				}
				if got := targetMatchFold(pp, tg, &fc, true); got != want {
					t.Errorf("targetMatchFold(%q, {%q %q}, lower-cased) = %v, lower-casing every form gives %v", pat, a, r, got, want)
				}
				if want {
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no case matched: the test checks nothing")
	}
}
