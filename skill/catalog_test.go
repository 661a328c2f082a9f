package skill

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/tool"
)

// A project's skill or command that is broken or refused keeps its name:
// using it is an error naming the file, and the user's file of the same
// name does not stand in for it, for skills and commands alike.
func TestBrokenFileKeepsItsName(t *testing.T) {
	outside := t.TempDir()
	testtree.Write(t, outside, map[string]string{"secret": "---\nname: pdf\ndescription: d\n---\nTHE SECRET\n"})
	cases := []struct {
		name           string
		skill, command map[string]string // the project's files
		// file is the path, below the project, the error names.
		skillFile, commandFile string
		refuse                 string // a path below the project loc.Readable refuses
	}{{
		name:        "broken frontmatter",
		skill:       map[string]string{".gen/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: [\n---\nx\n"},
		command:     map[string]string{".gen/commands/pdf.md": "---\ndescription: x\n  model: y\n---\nbody\n"},
		skillFile:   ".gen/skills/pdf/SKILL.md",
		commandFile: ".gen/commands/pdf.md",
	}, {
		name:        "refused by the Read rules",
		skill:       map[string]string{".claude/skills/pdf/SKILL.md": skillFile("pdf", "Project.")},
		command:     map[string]string{".claude/commands/pdf.md": "Project.\n"},
		skillFile:   ".claude/skills/pdf/SKILL.md",
		commandFile: ".claude/commands/pdf.md",
		refuse:      ".claude",
	}, {
		name:        "link out of the project",
		skill:       map[string]string{".gen/skills/pdf/SKILL.md": "->" + filepath.Join(outside, "secret")},
		command:     map[string]string{".gen/commands/pdf.md": "->" + filepath.Join(outside, "secret")},
		skillFile:   ".gen/skills/pdf/SKILL.md",
		commandFile: ".gen/commands/pdf.md",
	}, {
		name:        "dangling link",
		skill:       map[string]string{".gen/skills/pdf/SKILL.md": "->missing"},
		command:     map[string]string{".gen/commands/pdf.md": "->missing"},
		skillFile:   ".gen/skills/pdf/SKILL.md",
		commandFile: ".gen/commands/pdf.md",
	}, {
		name:        "link loop",
		skill:       map[string]string{".gen/skills/pdf": "->pdf"},
		command:     map[string]string{".gen/commands/pdf.md": "->pdf.md"},
		skillFile:   ".gen/skills/pdf",
		commandFile: ".gen/commands/pdf.md",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, home := testtree.Dir(t), t.TempDir()
			testtree.Write(t, root, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			testtree.Write(t, root, tc.skill)
			testtree.Write(t, root, tc.command)
			testtree.Write(t, home, map[string]string{
				".gen/skills/pdf/SKILL.md": skillFile("pdf", "User PDF skill."),
				".gen/commands/pdf.md":     "User pdf.\n",
			})
			readable := func(p string) error {
				if tc.refuse != "" && strings.HasPrefix(p, filepath.Join(root, tc.refuse)) {
					return errors.New(p + " is refused")
				}
				return nil
			}
			skillPath, commandPath := filepath.Join(root, tc.skillFile), filepath.Join(root, tc.commandFile)

			set, err := Discover(root, home, nil, readable)
			if err == nil || !strings.Contains(err.Error(), skillPath) {
				t.Errorf("skills: error %v, want one naming %s", err, skillPath)
			}
			if len(set.All()) != 0 {
				t.Errorf("skills %v, want none: the user's pdf must not stand in", set.All())
			}
			if k, err := set.Get("pdf"); k != nil || err == nil || !strings.HasPrefix(err.Error(), `skill "pdf" is not offered: `) || !strings.Contains(err.Error(), skillPath) {
				t.Errorf("Get(pdf) = %v, %v; want the project file's error", k, err)
			}
			if _, err := NewTool(set).Run(context.Background(), tool.Call{Input: map[string]any{"skill": "pdf"}}); err == nil || !strings.Contains(err.Error(), skillPath) {
				t.Errorf("Skill(pdf): %v, want the project file's error", err)
			}
			if want := filepath.Join(home, ".gen", "skills", "pdf", "SKILL.md") + `: skill "pdf" is shadowed by `; !slices.ContainsFunc(set.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
				t.Errorf("skill warnings %q lack %q", set.Warnings, want)
			}

			cs, err := DiscoverCommands(root, home, nil, readable)
			if err == nil || !strings.Contains(err.Error(), commandPath) {
				t.Errorf("commands: error %v, want one naming %s", err, commandPath)
			}
			if len(cs.All()) != 0 {
				t.Errorf("commands %v, want none: the user's /pdf must not stand in", cs.All())
			}
			if c, _, err := cs.Find("/pdf"); c != nil || err == nil || !strings.HasPrefix(err.Error(), "command /pdf is not offered: ") || !strings.Contains(err.Error(), commandPath) {
				t.Errorf("Find(/pdf) = %v, %v; want the project file's error", c, err)
			}
			if want := filepath.Join(home, ".gen", "commands", "pdf.md") + ": command /pdf is shadowed by "; !slices.ContainsFunc(cs.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
				t.Errorf("command warnings %q lack %q", cs.Warnings, want)
			}
		})
	}
}

// A broken file shadowed by one of higher precedence hides nothing, but it
// is still an error naming it, for skills and commands alike.
func TestShadowedBrokenFileIsAnError(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"skills/.gen/pdf/SKILL.md":    skillFile("pdf", "Used."),
		"skills/.claude/pdf/SKILL.md": "---\nname: pdf\ndescription: [\n---\nx\n",
		"commands/.gen/pdf.md":        "Used.\n",
		"commands/.claude/pdf.md":     "---\ndescription: x\n  model: y\n---\nbody\n",
	})
	locs := func(kind string) []Location {
		return []Location{{Dir: filepath.Join(root, kind, ".gen"), Scope: ScopeProject}, {Dir: filepath.Join(root, kind, ".claude"), Scope: ScopeProject}}
	}
	set, err := Load(locs("skills")...)
	if broken := filepath.Join(root, "skills", ".claude", "pdf", "SKILL.md") + ":3: "; err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("skills: error %v, want one naming %s", err, broken)
	}
	if k, err := set.Get("pdf"); k == nil || k.Description != "Used." || err != nil {
		t.Errorf("Get(pdf) = %v, %v; want the .gen skill", k, err)
	}
	cs, err := LoadCommands(nil, locs("commands")...)
	if broken := filepath.Join(root, "commands", ".claude", "pdf.md") + ":3: "; err == nil || !strings.Contains(err.Error(), broken) || len(cs.Errors()) != 1 {
		t.Errorf("commands: error %v, want one naming %s", err, broken)
	}
	if c, _, err := cs.Find("/pdf"); c == nil || c.Body != "Used." || err != nil {
		t.Errorf("Find(/pdf) = %v, %v; want the .gen command", c, err)
	}
}

// A file is checked before it is read: one outside its tree, or one the
// Read rules refuse, is refused for that reason, never read (here, read
// far enough to find it is too large).
func TestConfinedBeforeRead(t *testing.T) {
	root, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
	big := func(path string) {
		t.Helper()
		f, err := os.Create(path)
		if err == nil {
			err = errors.Join(f.Truncate(2*textfile.Max), f.Close())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	big(filepath.Join(outside, "big"))
	testtree.Write(t, root, map[string]string{
		".git/HEAD":                "ref: refs/heads/main\n",
		".gen/skills/out/SKILL.md": "->" + filepath.Join(outside, "big"),
		".gen/commands/out.md":     "->" + filepath.Join(outside, "big"),
		".gen/skills/secret/.keep": "",
	})
	big(filepath.Join(root, ".gen/skills/secret/SKILL.md"))
	big(filepath.Join(root, ".gen/commands/secret.md"))
	readable := func(p string) error {
		if strings.Contains(p, "secret") {
			return errors.New(p + " is refused")
		}
		return nil
	}
	set, err := Discover(root, home, nil, readable)
	cs, cerr := DiscoverCommands(root, home, nil, readable)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"skill out", func() error { _, err := set.Get("out"); return err }(), "outside " + root},
		{"command out", func() error { _, _, err := cs.Find("/out"); return err }(), "outside " + root},
		{"skill secret", func() error { _, err := set.Get("secret"); return err }(), filepath.Join(root, ".gen/skills/secret/SKILL.md is refused")},
		{"command secret", func() error { _, _, err := cs.Find("/secret"); return err }(), filepath.Join(root, ".gen/commands/secret.md is refused")},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, tc.err, tc.want)
		}
	}
	if err := errors.Join(err, cerr); err == nil || strings.Contains(err.Error(), "byte limit") {
		t.Errorf("errors %v: a refused file was read", err)
	}
}
