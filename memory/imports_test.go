package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

func TestImportsOf(t *testing.T) {
	text := "See @docs/a.md and @b.md.\n" +
		"mail me@example.com, or @\n" +
		"\t@tabbed `@span.md` ``x @double.md` y`` @after-span\n" +
		"```sh\n@fenced.md\n``\n@still-fenced.md\n````\n@after-fence.md\n" +
		"~~~\n@tilde-fenced.md\n```\n@tilde-still.md\n~~~\n" +
		"    ```\n@indented-is-no-fence.md\n"
	var got []string
	for _, r := range importsOf(text) {
		got = append(got, fmt.Sprintf("%d:%s", r.line, r.path))
	}
	want := []string{"1:docs/a.md", "1:b.md.", "3:tabbed", "3:after-span", "9:after-fence.md", "16:indented-is-no-fence.md"}
	if !slices.Equal(got, want) {
		t.Errorf("importsOf = %q, want %q", got, want)
	}
}

// A memory file's imports follow it in the prompt, each once, in the
// order they are met, relative to the file that imports them, up to five
// hops; what is only text (a name that is no file, a code span, a fenced
// block) is not imported.
func TestImports(t *testing.T) {
	ws := tree(t)
	root := ws.Root
	write(t, filepath.Join(root, "CLAUDE.md"), "Rules: @docs/style.md, ping @alice.\n`@docs/span.md`\n```\n@docs/fenced.md\n```\nAgain @docs/style.md @CLAUDE.md @docs")
	write(t, filepath.Join(root, "docs", "style.md"), "Use tabs. @../rules/a.md")
	write(t, filepath.Join(root, "rules", "a.md"), "Rule A. @b.md")
	write(t, filepath.Join(root, "rules", "b.md"), "Rule B. @a.md @../docs/style.md")
	write(t, filepath.Join(root, "docs", "span.md"), "SPAN")
	write(t, filepath.Join(root, "docs", "fenced.md"), "FENCED")
	got, warns, err := SystemPrompt(readAll(ws), day)
	if err != nil || len(warns) > 0 {
		t.Fatalf("error %v, warnings %q", err, warns)
	}
	claude := filepath.Join(root, "CLAUDE.md")
	want := "# Project memory (" + claude + ")\n" +
		"Rules: @docs/style.md, ping @alice.\n`@docs/span.md`\n```\n@docs/fenced.md\n```\nAgain @docs/style.md @CLAUDE.md @docs\n\n" +
		"# Project memory: imported by " + claude + ":6 (" + filepath.Join(root, "docs", "style.md") + ")\nUse tabs. @../rules/a.md\n\n" +
		"# Project memory: imported by " + filepath.Join(root, "docs", "style.md") + ":1 (" + filepath.Join(root, "rules", "a.md") + ")\nRule A. @b.md\n\n" +
		"# Project memory: imported by " + filepath.Join(root, "rules", "a.md") + ":1 (" + filepath.Join(root, "rules", "b.md") + ")\nRule B. @a.md @../docs/style.md"
	if !strings.HasSuffix(got, want) {
		t.Errorf("prompt:\n%s\n\nwant it to end with:\n%s", got, want)
	}
	for _, not := range []string{"SPAN", "FENCED"} {
		if strings.Contains(got, not) {
			t.Errorf("prompt holds %s", not)
		}
	}

	// Five hops are followed; the sixth is left out with a warning.
	ws = tree(t)
	write(t, filepath.Join(ws.Root, "AGENTS.md"), "@h1.md")
	for i := 1; i <= 6; i++ {
		write(t, filepath.Join(ws.Root, fmt.Sprintf("h%d.md", i)), fmt.Sprintf("HOP%d @h%d.md", i, i+1))
	}
	got, warns, err = SystemPrompt(readAll(ws), day)
	if err != nil || !strings.Contains(got, "HOP5") || strings.Contains(got, "HOP6") {
		t.Fatalf("error %v, prompt:\n%s", err, got)
	}
	wantWarn := "memory: " + filepath.Join(ws.Root, "h5.md") + ":1: @h6.md is not imported: imports are followed 5 hops from the memory file"
	if !slices.Equal(warns, []string{wantWarn}) {
		t.Errorf("warnings %q, want %q", warns, wantWarn)
	}
}

// An import's name comes from the file's text, which a cloned repository
// writes: what a Read by the model could not do without asking is left
// out, with a warning naming the file, the line and why.
func TestImportRefused(t *testing.T) {
	ws := tree(t)
	root := ws.Root
	write(t, filepath.Join(ws.Home, ".ssh", "id_rsa"), "PRIVATE KEY")
	write(t, filepath.Join(ws.Home, "notes.md"), "HOME NOTES")
	write(t, filepath.Join(root, ".env"), "API_KEY=hunter2")
	write(t, filepath.Join(root, "docs", "denied.md"), "DENIED TEXT")
	write(t, filepath.Join(root, "big.md"), strings.Repeat("x", MaxFile+1))
	if err := os.Symlink(filepath.Join(ws.Home, "notes.md"), filepath.Join(root, "linked.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "ok.md"), "FINE")
	write(t, filepath.Join(root, "AGENTS.md"), "@~/.ssh/id_rsa\n@"+filepath.Join(ws.Home, "notes.md")+"\n@.env\n@docs/denied.md\n@big.md\n@linked.md\n@ok.md")
	agents := filepath.Join(root, "AGENTS.md")
	pol := readAll(ws, "Read(/"+filepath.Join(root, ".env")+")")
	ask, _ := perm.ParseRule("Read(/" + filepath.Join(root, "docs") + "/**)")
	pol.Ask = append(pol.Ask, perm.Entry{Rule: ask, Source: perm.SourceUser})
	got, warns, err := SystemPrompt(pol, day)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"PRIVATE KEY", "HOME NOTES", "hunter2", "DENIED TEXT", "xxxx"} {
		if strings.Contains(got, secret) {
			t.Errorf("prompt holds %q:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "FINE") {
		t.Errorf("the allowed import is missing:\n%s", got)
	}
	outside := "it is outside " + root + ", the tree of the memory that imports it"
	for i, want := range []string{
		agents + ":1: @~/.ssh/id_rsa is not imported: " + outside,
		agents + ":2: @" + filepath.Join(ws.Home, "notes.md") + " is not imported: " + outside,
		agents + ":3: @.env is not imported: a Read of it is deny: ",
		agents + ":4: @docs/denied.md is not imported: a Read of it is deny: ask rule ",
		agents + ":5: @big.md is not imported: ",
		agents + ":6: @linked.md is not imported: " + outside,
	} {
		if i >= len(warns) || !strings.HasPrefix(warns[i], "memory: "+want) {
			t.Errorf("warning %d = %q, want it to start with %q", i, at(warns, i), want)
		}
	}
	if len(warns) != 6 {
		t.Errorf("%d warnings, want 6: %q", len(warns), warns)
	}

	// The user's memory imports from the home directory, not from the
	// project.
	ws = tree(t)
	write(t, filepath.Join(ws.Home, ".claude", "CLAUDE.md"), "@notes/style.md @"+filepath.Join(ws.Root, "p.md"))
	write(t, filepath.Join(ws.Home, ".claude", "notes", "style.md"), "USER STYLE")
	write(t, filepath.Join(ws.Root, "p.md"), "PROJECT FILE")
	got, warns, err = SystemPrompt(readAll(ws), day)
	if err != nil || !strings.Contains(got, "USER STYLE") || strings.Contains(got, "PROJECT FILE") || len(warns) != 1 {
		t.Errorf("user memory: error %v, warnings %q, prompt:\n%s", err, warns, got)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// A refused file named many times (each mention costs a cloned repository
// a few bytes) is warned about once, at its first mention.
func TestImportRefusedOnce(t *testing.T) {
	ws := tree(t)
	write(t, filepath.Join(ws.Root, ".env"), "API_KEY=hunter2")
	write(t, filepath.Join(ws.Root, "AGENTS.md"), "@.env\n"+strings.Repeat("@.env @./.env ", 1000))
	got, warns, err := SystemPrompt(readAll(ws, "Read(/"+filepath.Join(ws.Root, ".env")+")"), day)
	if err != nil || strings.Contains(got, "hunter2") {
		t.Fatalf("error %v, prompt:\n%s", err, got)
	}
	want := "memory: " + filepath.Join(ws.Root, "AGENTS.md") + ":1: @.env is not imported: a Read of it is deny: "
	if len(warns) != 1 || !strings.HasPrefix(warns[0], want) {
		t.Errorf("%d warnings, want one starting %q: %.300q", len(warns), want, warns)
	}
}
