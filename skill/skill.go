// Package skill reads Agent Skills — directories holding a SKILL.md whose
// frontmatter names and describes the skill and whose body holds its
// instructions — and provides the Skill tool that loads them. It also
// reads custom slash commands (Command), markdown prompts a person
// invokes, which share the skills' frontmatter, locations and precedence.
//
//	.gen/skills/pdf/SKILL.md
//	---
//	name: pdf
//	description: Extract text and tables from PDF files.
//	allowed-tools: Read, Bash(pdftotext:*)
//	---
//	Run scripts/extract.sh on the file...
//
// A skill never changes what an agent may do: its allowed-tools are only
// reported (see Skill.AllowedTools), and loading one is a tool call the
// permission gate decides like any other (Skill(name) and Skill(prefix:*)
// rules).
package skill

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/internal/frontmatter"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// Skill is one skill.
type Skill struct {
	Name string
	Meta
	// Dir is the skill's directory (absolute): files the instructions
	// refer to are relative to it.
	Dir string
}

// Meta is what skills and slash commands share: the frontmatter keys
// both have, the body and where the file is.
type Meta struct {
	Description string
	// AllowedTools are the tools the file says it needs. They never widen
	// the agent's policy: gen shows a skill's to the model and the user,
	// and the gate decides every call as it would without them.
	AllowedTools []perm.Rule
	// Model is the model the file asks for; informational.
	Model string
	// DisableModelInvocation hides a skill from the Skill tool: only a
	// person may invoke it.
	DisableModelInvocation bool
	// Body is the instructions (a command's prompt).
	Body string
	// Path is the file.
	Path string
	// Scope is where the file was found: project, additional or user.
	Scope Scope
	// Warnings are problems that did not stop parsing (unknown keys).
	Warnings []string
}

// validName is what a skill name may look like (the Agent Skills format):
// lower-case letters, digits and single hyphens, at most 64 characters.
// Names appear in Skill(name) rules.
var validName = lazyre.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

const (
	maxName        = 64
	maxDescription = 1024
)

// informational are the frontmatter keys Claude Code defines that gen
// accepts without acting on them.
var informational = []string{"license", "metadata", "version", "user-invocable", "argument-hint", "when_to_use", "context", "agent"}

// Parse parses the SKILL.md at path, whose content is data. dirName is the
// name of the directory holding it, which the skill's name must equal.
// Errors name path:line.
func Parse(path, dirName string, data []byte) (*Skill, error) {
	doc, err := frontmatter.Parse(path, data, "a SKILL.md file")
	if err != nil {
		return nil, err
	}
	s := &Skill{Meta: Meta{Path: path, Body: doc.Body}}
	for _, f := range doc.Fields {
		if err := s.field(doc, f.Key, f.Value); err != nil {
			return nil, err
		}
	}
	// As in Claude Code, name defaults to the directory's name and
	// description to the first paragraph of the instructions.
	if !doc.Has("name") {
		if len(dirName) > maxName || !validName.Get().MatchString(dirName) {
			return nil, &frontmatter.Error{Path: path, Line: max(doc.Open, 1), Err: fmt.Errorf("no name, and the skill's directory %q is not a valid one: set name, or rename the directory to at most %d lower-case letters, digits and single hyphens", dirName, maxName)}
		}
		s.Name = dirName
	}
	if !doc.Has("description") {
		if s.Description = firstParagraph(s.Body, maxDescription); s.Description == "" {
			return nil, doc.Missing("description")
		}
	}
	if s.Name != dirName {
		return nil, &frontmatter.Error{Path: path, Line: doc.Open, Err: fmt.Errorf("name %q does not match the skill's directory %q", s.Name, dirName)}
	}
	if s.Body == "" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: empty body: the skill has no instructions", path, doc.Open))
	}
	return s, nil
}

func (s *Skill) field(doc *frontmatter.Doc, k, v *yaml.Node) error {
	if ok, err := s.Meta.field(doc, k, v); ok {
		return err
	}
	switch k.Value {
	case "name":
		var err error
		if s.Name, err = doc.Text(k.Value, v); err != nil {
			return err
		}
		if len(s.Name) > maxName || !validName.Get().MatchString(s.Name) {
			return doc.Errorf(v, "invalid name %q: use at most %d lower-case letters, digits and single hyphens", s.Name, maxName)
		}
	case "hooks":
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: hooks in a skill are not run by gen", doc.Path, doc.Line(k)))
	case "context":
		// Claude Code's context: fork runs the skill in a subagent (of
		// the type agent names, such as the read-only Explore), whose
		// tools bound what its instructions lead to. gen has no such
		// fork: the instructions go to the agent that loads the skill,
		// with its tools and rules, which must be said.
		if v.Kind == yaml.ScalarNode && v.Value == "fork" {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: context: fork is not honoured: the skill's instructions are followed by the agent that loads it, with that agent's tools and rules, not in a subagent of their own", doc.Path, doc.Line(k)))
		}
	default:
		s.unknown(doc, k, informational)
	}
	return nil
}

// field parses the keys skills and commands share; ok is false for any
// other key.
func (m *Meta) field(doc *frontmatter.Doc, k, v *yaml.Node) (ok bool, err error) {
	switch k.Value {
	case "description":
		if m.Description, err = doc.Text(k.Value, v); err != nil {
			return true, err
		}
		if len(m.Description) > maxDescription {
			return true, doc.Errorf(v, "description is %d characters long, over the limit of %d", len(m.Description), maxDescription)
		}
	case "allowed-tools":
		// They are only shown, never enforced: Claude Code's tools gen
		// does not have are left out.
		var left []string
		m.AllowedTools, left, err = doc.Rules(k.Value, v, perm.AllowList)
		m.Warnings = append(m.Warnings, left...)
	case "model":
		m.Model, err = doc.Text(k.Value, v)
	case "disable-model-invocation":
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
			return true, doc.Errorf(v, "disable-model-invocation must be true or false")
		}
		m.DisableModelInvocation = v.Value == "true"
	default:
		return false, nil
	}
	return true, err
}

// unknown warns about key k unless it is one of known, which gen accepts
// without acting on them.
func (m *Meta) unknown(doc *frontmatter.Doc, k *yaml.Node, known []string) {
	if !slices.Contains(known, k.Value) {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s:%d: unknown key %q", doc.Path, doc.Line(k), k.Value))
	}
}

// firstParagraph returns the first paragraph of body, its lines joined by
// spaces, cut to at most limit bytes on a character boundary.
func firstParagraph(body string, limit int) string {
	var words []string
	for line := range strings.Lines(strings.TrimLeft(body, "\r\n\t ")) {
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		words = append(words, line)
	}
	return cut(strings.Join(words, " "), limit)
}

// cut cuts p to at most limit bytes on a character boundary.
func cut(p string, limit int) string {
	if len(p) > limit {
		// A character the limit falls inside is left out whole; bytes
		// that are no UTF-8 before it stay as they are.
		i := limit
		for i > 0 && !utf8.RuneStart(p[i]) {
			i--
		}
		p = p[:i]
	}
	return p
}

// allowedList renders s.AllowedTools, "" when there are none.
func (s *Skill) allowedList() string {
	var b strings.Builder
	for i, r := range s.AllowedTools {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}
