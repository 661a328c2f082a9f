package schema

import (
	"slices"

	"github.com/gen-run/gen/internal/lazy"
)

// jsonType is a JSON Schema primitive type name.
type jsonType string

const (
	tString  jsonType = "string"
	tInteger jsonType = "integer"
	tBoolean jsonType = "boolean"
	tArray   jsonType = "array"
	tObject  jsonType = "object"
)

// param is one node of a tool's parameter schema. Only the fields that make
// sense for typ are used.
type param struct {
	name     string // key in the parent object; "" for array items and the root
	typ      jsonType
	desc     string
	required bool // in the parent object

	nonEmpty bool     // string: minLength 1
	enum     []string // string: allowed values

	minimum, maximum *int // integer bounds, inclusive

	items              *param // array element
	minItems, maxItems int    // array length; maxItems 0 means unbounded

	props []*param // object properties, in presentation order
}

// toolDef is one catalog entry.
type toolDef struct {
	name   string
	desc   string
	params *param // typ tObject
}

func intp(n int) *int { return &n }

func object(props ...*param) *param { return &param{typ: tObject, props: props} }

// prop looks up the object property called name.
func (p *param) prop(name string) *param {
	for _, c := range p.props {
		if c.name == name {
			return c
		}
	}
	return nil
}

// jsonSchema renders p as a JSON Schema value. Objects are closed
// (additionalProperties false) at every level so a misspelt key is an error
// rather than a silently ignored option.
func (p *param) jsonSchema() map[string]any {
	m := map[string]any{"type": string(p.typ)}
	if p.desc != "" {
		m["description"] = p.desc
	}
	switch p.typ {
	case tString:
		if p.nonEmpty {
			m["minLength"] = 1
		}
		if len(p.enum) > 0 {
			m["enum"] = slices.Clone(p.enum)
		}
	case tInteger:
		if p.minimum != nil {
			m["minimum"] = *p.minimum
		}
		if p.maximum != nil {
			m["maximum"] = *p.maximum
		}
	case tArray:
		m["items"] = p.items.jsonSchema()
		if p.minItems > 0 {
			m["minItems"] = p.minItems
		}
		if p.maxItems > 0 {
			m["maxItems"] = p.maxItems
		}
	case tObject:
		props := make(map[string]any, len(p.props))
		var req []string
		for _, c := range p.props {
			props[c.name] = c.jsonSchema()
			if c.required {
				req = append(req, c.name)
			}
		}
		m["properties"] = props
		if len(req) > 0 {
			m["required"] = req
		}
		m["additionalProperties"] = false
	}
	return m
}

// Upper bounds the tools also enforce themselves (package tool does not
// trust that its input was validated).
const (
	maxGrepResults = 1000
	maxBashTimeout = 600000 // milliseconds: 10 minutes
)

// catalog is every built-in tool, in the order the model is shown them.
var catalog = lazy.Value[[]*toolDef]{New: func() []*toolDef {
	return []*toolDef{
		{
			name: "Read",
			desc: "Read a text file. Output is numbered like `cat -n` (line number, tab, text). " +
				"By default the first 2000 lines are returned; use offset (1-based line) and limit to read other windows. " +
				"Lines longer than 2000 characters are truncated. Files over 256 KiB must be read in windows. " +
				"Binary files are refused. Read a file before you Edit or overwrite it with Write.",
			params: object(
				&param{name: "file_path", typ: tString, required: true, nonEmpty: true,
					desc: "Path of the file, absolute or relative to the working directory."},
				&param{name: "offset", typ: tInteger, minimum: intp(1),
					desc: "1-based line number to start reading at."},
				&param{name: "limit", typ: tInteger, minimum: intp(1),
					desc: "Maximum number of lines to return (default 2000)."},
			),
		},
		{
			name: "Glob",
			desc: "Find files by name with a glob pattern (`*` matches within one path segment, `**` across directories, `{a,b}` alternatives). " +
				"Returns matching file paths, sorted, at most 1000. " +
				"Version-control, dependency and cache directories (.git, node_modules, .venv, ...) are skipped.",
			params: object(
				&param{name: "pattern", typ: tString, required: true, nonEmpty: true,
					desc: "Glob pattern such as `**/*.go` or `src/**/test_*.py`."},
				&param{name: "path", typ: tString,
					desc: "Directory to search from (default: the working directory)."},
			),
		},
		{
			name: "Grep",
			desc: "Search file contents with a regular expression (Go RE2 syntax; no look-around or back-references). " +
				"Prints matching lines as `path:line:text`. Binary files, files over 1 MiB, .gitignored files and " +
				"version-control and dependency directories are skipped.",
			params: object(
				&param{name: "pattern", typ: tString, required: true, nonEmpty: true,
					desc: "Regular expression to search for."},
				&param{name: "path", typ: tString,
					desc: "File or directory to search (default: the working directory)."},
				&param{name: "glob", typ: tString,
					desc: "Only search files whose path matches this glob, such as `*.go` or `src/**/*.ts`."},
				&param{name: "case_insensitive", typ: tBoolean,
					desc: "Match regardless of letter case."},
				&param{name: "max_results", typ: tInteger, minimum: intp(1), maximum: intp(maxGrepResults),
					desc: "Maximum number of matching lines to return (default 200)."},
			),
		},
		{
			name: "Write",
			desc: "Create a file or replace its whole content. Parent directories are created. " +
				"An existing file must have been Read first in this session and not changed since. " +
				"Prefer Edit for changing part of a file.",
			params: object(
				&param{name: "file_path", typ: tString, required: true, nonEmpty: true,
					desc: "Path of the file, absolute or relative to the working directory."},
				&param{name: "content", typ: tString, required: true,
					desc: "The complete new content of the file."},
			),
		},
		{
			name: "Edit",
			desc: "Replace exact text in a file. old_string must occur in the file exactly as given (including indentation) " +
				"and, unless replace_all is set, exactly once: include enough surrounding lines to make it unique. " +
				"The file must have been Read first in this session and not changed since.",
			params: object(
				&param{name: "file_path", typ: tString, required: true, nonEmpty: true,
					desc: "Path of the file, absolute or relative to the working directory."},
				&param{name: "old_string", typ: tString, required: true, nonEmpty: true,
					desc: "The exact text to replace."},
				&param{name: "new_string", typ: tString, required: true,
					desc: "The replacement text; must differ from old_string."},
				&param{name: "replace_all", typ: tBoolean,
					desc: "Replace every occurrence instead of requiring exactly one."},
			),
		},
		{
			name: "Bash",
			desc: "Run a command with `bash -c` in the working directory. stdin is empty and there is no terminal, " +
				"so interactive programs fail rather than wait. Combined stdout and stderr is returned (long output keeps " +
				"its beginning and end) together with the exit code. Processes left running when the command finishes " +
				"or times out are killed.",
			params: object(
				&param{name: "command", typ: tString, required: true, nonEmpty: true,
					desc: "The shell command to run."},
				&param{name: "timeout", typ: tInteger, minimum: intp(1), maximum: intp(maxBashTimeout),
					desc: "Timeout in milliseconds (default 120000, at most 600000)."},
				&param{name: "description", typ: tString,
					desc: "A few words saying what the command does, shown to the user."},
				&param{name: "dangerouslyDisableSandbox", typ: tBoolean,
					desc: "Run the command without the kernel sandbox. Only when the sandbox blocked a write or network access the task needs: the user must approve every such call, and it is refused where nobody can approve."},
			),
		},
		{
			name: "WebFetch",
			desc: "Fetch a web page over HTTP(S) and return its content: HTML converted to markdown, text and JSON as they are. " +
				"At most 100,000 characters are returned; every redirect is checked against the permission rules.",
			params: object(
				&param{name: "url", typ: tString, required: true, nonEmpty: true,
					desc: "Absolute http:// or https:// URL."},
				&param{name: "prompt", typ: tString,
					desc: "What you want to learn from the page; it is echoed above the content, which is returned in full (not summarised)."},
			),
		},
		{
			name: "WebSearch",
			desc: "Search the web and return result titles, URLs and snippets.",
			params: object(
				&param{name: "query", typ: tString, required: true, nonEmpty: true,
					desc: "The search query."},
				&param{name: "max_results", typ: tInteger, minimum: intp(1), maximum: intp(20),
					desc: "Maximum number of results (default 5)."},
			),
		},
		{
			name: "NotebookEdit",
			desc: "Edit a Jupyter notebook (.ipynb) cell: replace its source, insert a new cell, or delete it. " +
				"Identify the cell by cell_id or by 0-based cell_index. Inserting adds the cell after the identified " +
				"one, or at the start when none is given.",
			params: object(
				&param{name: "notebook_path", typ: tString, required: true, nonEmpty: true,
					desc: "Path of the .ipynb file, absolute or relative to the working directory."},
				&param{name: "cell_index", typ: tInteger, minimum: intp(0),
					desc: "0-based index of the cell."},
				&param{name: "cell_id", typ: tString,
					desc: "ID of the cell."},
				&param{name: "new_source", typ: tString,
					desc: "New cell source (required for replace and insert)."},
				&param{name: "cell_type", typ: tString, enum: []string{"code", "markdown"},
					desc: "Cell type (required for insert)."},
				&param{name: "edit_mode", typ: tString, required: true, enum: []string{"replace", "insert", "delete"},
					desc: "What to do with the cell."},
			),
		},
		{
			name: "TaskCreate",
			desc: "Add a task to this session's task list, to plan and track multi-step work. Returns the new task's id.",
			params: object(
				&param{name: "subject", typ: tString, required: true, nonEmpty: true,
					desc: "Short imperative title."},
				&param{name: "description", typ: tString,
					desc: "Details: what done looks like."},
			),
		},
		{
			name: "TaskGet",
			desc: "Show one task from the task list.",
			params: object(
				&param{name: "id", typ: tString, required: true, nonEmpty: true,
					desc: "The task id."},
			),
		},
		{
			name:   "TaskList",
			desc:   "List all tasks with their ids and statuses.",
			params: object(),
		},
		{
			name: "TaskUpdate",
			desc: "Change a task's status, subject or description. Mark a task in_progress when you start it and completed when it is done.",
			params: object(
				&param{name: "id", typ: tString, required: true, nonEmpty: true,
					desc: "The task id."},
				&param{name: "status", typ: tString, enum: []string{"pending", "in_progress", "completed"},
					desc: "New status."},
				&param{name: "subject", typ: tString, nonEmpty: true,
					desc: "New title."},
				&param{name: "description", typ: tString,
					desc: "New details."},
			),
		},
		{
			name: "AskUserQuestion",
			desc: "Ask the user one to four multiple-choice questions and wait for the answers. " +
				"Use it when a decision needs their preference; the user may also answer in their own words.",
			params: object(
				&param{name: "questions", typ: tArray, required: true, minItems: 1, maxItems: 4,
					desc: "The questions to ask.",
					items: object(
						&param{name: "question", typ: tString, required: true, nonEmpty: true,
							desc: "The full question."},
						&param{name: "header", typ: tString,
							desc: "A very short label for the question."},
						&param{name: "options", typ: tArray, required: true, minItems: 2, maxItems: 4,
							desc: "The choices.",
							items: object(
								&param{name: "label", typ: tString, required: true, nonEmpty: true,
									desc: "The choice as shown."},
								&param{name: "description", typ: tString,
									desc: "What choosing it means."},
							)},
						&param{name: "multi_select", typ: tBoolean,
							desc: "Allow choosing more than one option."},
					)},
			),
		},
		{
			name: "Agent",
			desc: "Start a subagent of the given type on a self-contained task and return its final report. " +
				"The subagent does not see this conversation, so the prompt must include everything it needs.",
			params: object(
				&param{name: "subagent_type", typ: tString, required: true, nonEmpty: true,
					desc: "Name of the agent definition to run."},
				&param{name: "prompt", typ: tString, required: true, nonEmpty: true,
					desc: "The complete task for the subagent."},
				&param{name: "description", typ: tString, required: true, nonEmpty: true,
					desc: "A 3-5 word summary of the task, shown to the user."},
			),
		},
	}
}}

// exitPlan is the ExitPlanMode tool. It is not in catalog: only the main
// loop in plan mode offers it (package session), so Names and Visible
// leave it out while Get, Normalize and Validate know it. Its input is
// Claude Code's: the plan, and the allowedPrompts models trained on
// Claude Code send with it.
var exitPlan = lazy.Value[*toolDef]{New: func() *toolDef {
	return &toolDef{
		name: "ExitPlanMode",
		desc: "Present your plan to the user for approval and, if they approve, leave plan mode. " +
			"In plan mode you may only read and search; call this when the plan is complete: what you will change, where, and how you will check it. " +
			"If the user rejects the plan, keep planning with their feedback.",
		params: object(
			&param{name: "plan", typ: tString, required: true, nonEmpty: true,
				desc: "The plan, in Markdown, as the user will read it."},
			// Claude Code's prompt-based permissions: gen shows them to
			// the person with the plan and grants nothing from them
			// (package session).
			&param{name: "allowedPrompts", typ: tArray,
				desc: "Optional: the commands the plan will need to run, each described by what it does (\"run tests\", \"install dependencies\"). " +
					"They are shown to the user with the plan; they allow nothing: every command is still checked, and asked about, as usual.",
				items: object(
					&param{name: "tool", typ: tString, required: true, enum: []string{"Bash"},
						desc: "The tool the commands run in."},
					&param{name: "prompt", typ: tString, required: true, nonEmpty: true,
						desc: "What the commands do, in a few words."},
				)},
		),
	}
}}

// enterPlan is the EnterPlanMode tool. It is not in catalog: only an
// interactive main loop offers it, outside plan mode (package session).
var enterPlan = lazy.Value[*toolDef]{New: func() *toolDef {
	return &toolDef{
		name: "EnterPlanMode",
		desc: "Ask the user to switch the session to plan mode before a non-trivial change: " +
			"several reasonable approaches, unclear requirements, or a change across many files. " +
			"In plan mode you only read and search, then present a plan with ExitPlanMode for the user to approve. " +
			"Skip it for simple, clear tasks. The user may decline: then go on in the current mode.",
		params: object(),
	}
}}

// skill is the Skill tool. It is not in catalog: a run offers it only when
// skills exist, with a description that lists them (package skill builds
// it from Desc), so Names and Visible leave it out while Get, Normalize
// and Validate know it.
var skill = lazy.Value[*toolDef]{New: func() *toolDef {
	return &toolDef{
		name: "Skill",
		desc: "Load a skill: instructions for a specialised task, and the directory of files they refer to. " +
			"When a task matches one of the skills below, call this tool with its name before starting, then follow the instructions it returns.",
		params: object(
			&param{name: "skill", typ: tString, required: true, nonEmpty: true,
				desc: "Name of the skill, as listed."},
			&param{name: "args", typ: tString,
				desc: "Optional arguments for the skill."},
		),
	}
}}
