package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gen-run/gen/internal/frontmatter"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/internal/textfile"
)

// Command is a custom slash command, Claude Code's .claude/commands/*.md:
// a markdown file whose body is a prompt, with optional frontmatter. The
// file NAME.md is the command /NAME; a/b.md is /a:b.
//
// A command is text a person sends as their prompt: its allowed-tools are
// not granted (a warning says so), its `!` commands run only as Bash
// calls the permission gate decides (Expand's shell), and its @path
// references stay as they are, for the model to read through the gate.
type Command struct {
	// Name is what follows the slash: "review", "frontend:component".
	Name string
	Meta
	// ArgumentHint says what arguments the command takes, for /help.
	ArgumentHint string
	// Bang is the file line of the first of Claude Code's `!` shell
	// lines in the body, 0 when there is none.
	Bang int
}

// commandInformational are the frontmatter keys of a Claude Code command
// that gen accepts without acting on them.
var commandInformational = []string{"name"}

// bangCommand is Claude Code's syntax for a shell command run while the
// prompt is built, whose output takes its place.
var bangCommand = lazyre.MustCompile("!`[^`]+`")

// ParseCommand parses the command file at path, whose content is data;
// name is the command's name. Its frontmatter is optional. Errors name
// path:line.
func ParseCommand(path, name string, data []byte) (*Command, error) {
	// Claude Code reads "argument-hint: [pr-number] [priority]", which
	// strict YAML rejects, as text.
	doc, recovered, err := frontmatter.ParseOptionalLenient(path, data, "a command file", "description", "argument-hint")
	if err != nil {
		return nil, err
	}
	c := &Command{Name: name, Meta: Meta{Path: path, Body: doc.Body, Warnings: recovered}}
	for _, f := range doc.Fields {
		if err := c.field(doc, f.Key, f.Value); err != nil {
			return nil, err
		}
	}
	if !doc.Has("description") {
		// As in Claude Code: the prompt's first line.
		first, _, _ := strings.Cut(c.Body, "\n")
		c.Description = cut(strings.TrimSpace(first), maxDescription)
	}
	if loc := bangCommand.Get().FindStringIndex(c.Body); loc != nil {
		c.Bang = doc.BodyLine + strings.Count(c.Body[:loc[0]], "\n")
	}
	if c.Body == "" {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: empty body: the command has no prompt", path, max(doc.Open, 1)))
	}
	return c, nil
}

func (c *Command) field(doc *frontmatter.Doc, k, v *yaml.Node) error {
	ok, err := c.Meta.field(doc, k, v)
	switch {
	case err != nil:
		return err
	case ok && k.Value == "allowed-tools" && len(c.AllowedTools) > 0:
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: allowed-tools are not granted: gen's permission rules decide every call the command leads to", doc.Path, doc.Line(k)))
	case ok && k.Value == "model":
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: model %q is ignored: the session's model answers the command", doc.Path, doc.Line(k), c.Model))
	case ok:
	case k.Value == "argument-hint":
		c.ArgumentHint, err = argumentHint(doc, v)
	default:
		c.unknown(doc, k, commandInformational)
	}
	return err
}

// argumentHint reads argument-hint: a string, or the list YAML makes of
// Claude Code's "argument-hint: [message]", shown as it was written.
func argumentHint(doc *frontmatter.Doc, v *yaml.Node) (string, error) {
	if v.Kind == yaml.ScalarNode {
		return doc.Text("argument-hint", v)
	}
	if v.Kind != yaml.SequenceNode {
		return "", doc.Errorf(v, "argument-hint must be a string")
	}
	var parts []string
	for _, el := range v.Content {
		el = frontmatter.Resolve(el)
		if el.Kind != yaml.ScalarNode {
			return "", doc.Errorf(el, "argument-hint must be a string")
		}
		parts = append(parts, "["+el.Value+"]")
	}
	return strings.Join(parts, " "), nil
}

// placeholder is what Expand replaces: $ARGUMENTS and $1, $2, ...
var placeholder = lazyre.MustCompile(`\$(ARGUMENTS|[1-9][0-9]*)`)

// Shell runs a command's `!` command and returns its output. Callers
// give one that makes it a Bash call the permission gate decides, as the
// model's would be (session.Session.Shell).
type Shell func(command string) (string, error)

// ShellError is a `!` command that stopped an expansion: the gate
// refused it (Err is then a permission denial), or it could not run or
// failed. Unlike the other errors of Expand, it is not one of the command
// as written or invoked but of running it, which callers report as the
// outcome of the turn the prompt was for.
type ShellError struct {
	// Command is the ! command as the file writes it.
	Command string
	Err     error
}

func (e *ShellError) Error() string { return fmt.Sprintf("!`%s`: %v", e.Command, e.Err) }
func (e *ShellError) Unwrap() error { return e.Err }

// Expand returns the prompt the command sends for args, the text typed
// after its name: $ARGUMENTS becomes args, $1, $2, ... its words, split as
// a shell would (quotes keep spaces together; a missing one is empty).
// With no placeholder in the body, non-empty args are appended after a
// blank line as "ARGUMENTS: args", as Claude Code does. Arguments are
// substituted once: a "$1" they contain stays as it is.
//
// Each `!` command of the body (!`git status`) is replaced by its output,
// as in Claude Code: shell runs it, in the body's order, as its file
// writes it (arguments are not put into it, and the text of arguments or
// of an output is never run). A command that fails or is refused stops
// the expansion with an error naming it (a *ShellError, wrapped with the
// file and line): the prompt without that output would be a different
// prompt from the one its author wrote. With a nil
// shell (nothing can run it here), a command with a `!` command is an
// error.
func (c *Command) Expand(args string, shell Shell) (string, error) {
	if c.Bang > 0 && shell == nil {
		return "", &frontmatter.Error{Path: c.Path, Line: c.Bang, Err: fmt.Errorf("its `!` commands cannot run here (/%s is not sent)", c.Name)}
	}
	// The body is text, then a `!` command, then text...: outputs take
	// the commands' places after the text has its arguments.
	var texts, outputs []string
	prev := 0
	locs := bangCommand.Get().FindAllStringIndex(c.Body, -1)
	for _, loc := range locs {
		cmd := c.Body[loc[0]+2 : loc[1]-1]
		out, err := shell(cmd)
		if err != nil {
			// Bang is the line of the first; this one is below it.
			line := c.Bang + strings.Count(c.Body[locs[0][0]:loc[0]], "\n")
			return "", &frontmatter.Error{Path: c.Path, Line: line, Err: fmt.Errorf("%w (/%s is not sent)", &ShellError{Command: cmd, Err: err}, c.Name)}
		}
		texts = append(texts, c.Body[prev:loc[0]])
		outputs = append(outputs, strings.TrimRight(out, "\n"))
		prev = loc[1]
	}
	texts = append(texts, c.Body[prev:])
	args = strings.TrimSpace(args)
	var words []string
	var werr error
	split := false
	found := false
	substitute := func(p string) string {
		found = true
		if p == "$ARGUMENTS" {
			return args
		}
		if !split {
			words, werr = splitArgs(args)
			split = true
		}
		n, _ := strconv.Atoi(p[1:])
		if n > len(words) {
			return ""
		}
		return words[n-1]
	}
	var b strings.Builder
	for i, t := range texts {
		b.WriteString(placeholder.Get().ReplaceAllStringFunc(t, substitute))
		if i < len(outputs) {
			b.WriteString(outputs[i])
		}
	}
	prompt := b.String()
	if werr != nil {
		return "", fmt.Errorf("/%s: %w", c.Name, werr)
	}
	if !found {
		prompt = withArguments(prompt, args)
	}
	if strings.TrimSpace(prompt) == "" {
		return "", fmt.Errorf("/%s: %s has an empty body and no arguments were given: there is no prompt to send", c.Name, c.Path)
	}
	return prompt, nil
}

// withArguments appends non-empty args to a body that has no placeholder
// for them, as Claude Code does for skills and commands.
func withArguments(body, args string) string {
	if args == "" {
		return body
	}
	return body + "\n\nARGUMENTS: " + args
}

// splitArgs splits s into words as a shell would, without expanding
// anything: white space separates words, single quotes keep everything
// literal, double quotes keep spaces (a backslash escapes " and \ in
// them), and a backslash outside quotes escapes the next character.
func splitArgs(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote == '"' && ch == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			w.WriteByte(s[i])
		case quote != 0:
			w.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("the arguments have an unclosed %c quote: close it, or escape the %c with a backslash", quote, quote)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// Commands is the slash commands of a session by name. It is not modified
// after LoadCommands returns, so it is safe for concurrent use; its
// commands must not be modified either. A nil *Commands has none.
type Commands struct {
	catalog[*Command]
	// Trusted says the project (and the additional directories) may run
	// the ! commands of its commands: they are code from the repository,
	// as its hooks are, and need its trust (CanShell). The user's own
	// commands need none.
	Trusted bool
}

// ShellDisabled is what each `!` command of a command becomes where the
// settings' disableSkillShellExecution is set, as in Claude Code.
const ShellDisabled = "[shell command execution disabled by policy]"

// DisableShell puts ShellDisabled in place of every `!` command of cs,
// so that none runs, each command that had one with a warning naming its
// line and why (the settings that disable them), said when it is used.
// It is for the loader, before cs is shared.
func (cs *Commands) DisableShell(why string) {
	if cs == nil {
		return
	}
	for _, c := range cs.sorted {
		if c.Bang == 0 {
			continue
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: its ! commands do not run: %s", c.Path, c.Bang, why))
		c.Body = bangCommand.Get().ReplaceAllLiteralString(c.Body, ShellDisabled)
		c.Bang = 0
	}
}

// CanShell says why c's ! commands may not run, nil when they may: a
// command of the project's (or an additional directory's) runs them only
// in a trusted project.
func (cs *Commands) CanShell(c *Command) error {
	if c.Bang == 0 || c.Scope == ScopeUser || cs != nil && cs.Trusted {
		return nil
	}
	return &frontmatter.Error{Path: c.Path, Line: c.Bang, Err: fmt.Errorf("the project is not trusted, so its commands' ! commands do not run (trust it with gen trust, or --trust for one run; /%s is not sent)", c.Name)}
}

// All returns every command that can be invoked, sorted by name.
func (cs *Commands) All() []*Command {
	if cs == nil {
		return nil
	}
	return slices.Clone(cs.sorted)
}

// Errors returns the errors LoadCommands or DiscoverCommands returned
// joined: one per broken file or unreadable directory, each naming it, or
// the one that kept DiscoverCommands from finding the commands.
func (cs *Commands) Errors() []error {
	if cs == nil {
		return nil
	}
	return slices.Clone(cs.errs)
}

// Find returns the command line invokes ("/NAME" or "/NAME ARGS") and the
// trimmed argument text. It returns nil and no error when line names no
// command (it does not start with a slash, or the name is unknown or a
// built-in): then line is a prompt like any other. A name whose file is
// broken is an error naming file and line.
func (cs *Commands) Find(line string) (*Command, string, error) {
	rest, ok := strings.CutPrefix(line, "/")
	if !ok || cs == nil {
		return nil, "", nil
	}
	name, args := rest, ""
	if i := strings.IndexAny(rest, " \t\r\n"); i >= 0 {
		name, args = rest[:i], strings.TrimSpace(rest[i+1:])
	}
	c, err := cs.get(name)
	if err != nil {
		return nil, "", err
	}
	return c, args, nil
}

// Expand returns the prompt line sends, the one expansion step of the TUI
// and the headless runs: when line invokes one of cs ("/NAME ARGS"), the
// command's expansion (Command.Expand) and the command; else line itself
// and a nil command (a prompt that does not start with a slash, an unknown
// name, a built-in's). A command that cannot be sent (its file is broken
// or refused, a ! command fails or there is no shell to run it, its
// arguments do not split) is an error naming it.
func (cs *Commands) Expand(line string, shell Shell) (prompt string, c *Command, err error) {
	c, args, err := cs.Find(line)
	switch {
	case err != nil:
		return "", nil, err
	case c == nil:
		return line, nil, nil
	}
	if shell != nil {
		if err := cs.CanShell(c); err != nil {
			return "", nil, err
		}
	}
	if prompt, err = c.Expand(args, shell); err != nil {
		return "", nil, err
	}
	return prompt, c, nil
}

// DiscoverCommands loads the commands of CommandLocations(cwd, home),
// each file checked with readable (Location.Readable; nil checks none).
// builtin are names a command may not take (the TUI's own commands).
func DiscoverCommands(cwd, home string, builtin []string, readable func(path string) error) (*Commands, error) {
	locs, err := CommandLocations(cwd, home)
	if err != nil {
		return &Commands{catalog: catalog[*Command]{errs: []error{err}}}, err
	}
	for i := range locs {
		locs[i].Readable = readable
	}
	return LoadCommands(builtin, locs...)
}

// commands are the messages' names for commands.
var commands = kind{plural: "commands", label: func(name string) string { return "command /" + name }}

// LoadCommands reads the commands of locs, given highest precedence first;
// missing directories are skipped. A command whose name an earlier
// location took, or that is one of builtin, is left out with a warning; so
// is one whose name an earlier broken or refused file took, which Find
// then reports (the user's command does not stand in for the project's).
// A broken file does not hide the other commands: LoadCommands returns
// every command it could read, and an error joining one error per broken
// file, each naming file:line. The Commands is never nil.
func LoadCommands(builtin []string, locs ...Location) (*Commands, error) {
	cs := &Commands{catalog: *load(commands, builtin, locs, loadCommandDir)}
	return cs, errors.Join(cs.errs...)
}

// maxCommandDepth bounds how deep commands are looked for below a
// location: a symbolic link to a parent directory would otherwise loop.
const maxCommandDepth = 8

// validSegment is what a part of a command's name, a file or directory
// name, may look like: something a person can type after the slash.
var validSegment = lazyre.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// loadCommandDir reads the commands of one location and its
// subdirectories, in directory order: each markdown file claims a name.
// A directory that cannot be read claims none.
func loadCommandDir(r *reader, loc Location) []found[*Command] {
	dir, entries, err := readDir(loc.Dir)
	if err != nil || dir == "" {
		return nilOr[*Command](loc.Dir, err)
	}
	var out []found[*Command]
	var walk func(dir, prefix string, entries []os.DirEntry, depth int)
	walk = func(dir, prefix string, entries []os.DirEntry, depth int) {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue // hidden, as an editor's or the system's files are
			}
			path := filepath.Join(dir, e.Name())
			base := strings.TrimSuffix(e.Name(), ".md")
			f := found[*Command]{path: path}
			if base != e.Name() && validSegment.Get().MatchString(base) {
				f.name = prefix + base
			}
			fi, err := stat(path, e)
			switch {
			case err != nil:
				f.err = err
			case fi == nil, !fi.IsDir() && base == e.Name():
				continue // gone, or not a markdown file
			case !validSegment.Get().MatchString(base):
				f.err = fmt.Errorf("skill: %s is not a command: its name %q cannot be typed after a slash (use letters, digits, '-', '_' and '.')", path, base)
			case fi.IsDir() && depth >= maxCommandDepth:
				f.err = fmt.Errorf("skill: %s: commands are looked for at most %d directories deep", path, maxCommandDepth)
			case fi.IsDir():
				sub, err := textfile.ReadDir(path)
				if err != nil {
					out = append(out, found[*Command]{path: path, err: fmt.Errorf("skill: %w", err)})
					continue
				}
				walk(path, prefix+base+":", sub, depth+1)
				continue
			default:
				var data []byte
				if data, f.err = r.read(loc, path); f.err == nil {
					f.v, f.err = ParseCommand(path, f.name, data)
				}
			}
			out = append(out, f)
		}
	}
	walk(dir, "", entries, 0)
	return out
}
