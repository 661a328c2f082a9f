// Package offline is the embedded offline model: a deterministic stand-in
// for a language model that turns directive lines of the prompt into tool
// calls, one per turn, and finally reports what became of each call.
//
// It exists so that agents, permissions and tools can be exercised end to
// end without a network or an API key. The directives, one per line:
//
//	Run bash: CMD            Bash{command: CMD}
//	Read: PATH               Read{file_path: PATH}
//	Write PATH: TEXT         Write{file_path: PATH, content: TEXT}
//	Edit PATH: OLD => NEW    Edit{file_path: PATH, old_string: OLD, new_string: NEW}
//	Glob: PATTERN            Glob{pattern: PATTERN}
//	Grep: PATTERN            Grep{pattern: PATTERN}
//	Fetch: URL               WebFetch{url: URL}
//	Skill: NAME              Skill{skill: NAME}
//	Delegate TYPE: TASK      Agent{subagent_type: TYPE, prompt: TASK, description: TASK cut to 40 characters}
//	Call TOOL: JSON          TOOL with the JSON object as its arguments (MCP tools, meta-tools)
//
// Other lines are ignored. The final answer has one line per call:
//
//	RESULT: Bash(ls) -> ALLOWED
//	RESULT: Write(notes.txt) -> DENIED: <reason>
//	RESULT: Read(x) -> ERROR: <first line of the error>
package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
)

// New returns the offline model. It keeps no state between calls: what to
// do next is read from the conversation, so one model serves any number of
// concurrent runs.
func New() loop.Model { return model{} }

type model struct{}

// help lists the directive forms; it answers a prompt without directives.
const help = `No directives found. The offline model understands one directive per line:
  Run bash: CMD
  Read: PATH
  Write PATH: TEXT
  Edit PATH: OLD => NEW
  Glob: PATTERN
  Grep: PATTERN
  Fetch: URL
  Skill: NAME
  Delegate TYPE: TASK
  Call TOOL: JSON`

// descriptionLen bounds an Agent call's description, in characters.
const descriptionLen = 40

// Complete answers with the next directive's tool call, or with the final
// report once every directive has a tool result.
func (model) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	// In a conversation of several turns only the latest prompt counts,
	// with the tool results that answer it.
	at, ok := lastUser(req.Messages)
	if !ok {
		return loop.Response{}, fmt.Errorf("offline: the conversation has no user message")
	}
	calls := parse(req.Messages[at].Content)
	results := report(req.Messages[at:])
	earlier := len(report(req.Messages[:at]))

	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	switch n := len(results); {
	case len(calls) == 0:
		msg.Content = help
	case n >= len(calls):
		msg.Content = strings.Join(results, "\n")
	default:
		if n > 0 {
			msg.Content = results[n-1]
		}
		// Consecutive Delegate directives go out in one turn, so the
		// loop runs those subagents in parallel.
		end := n + 1
		for calls[n].tool == "Agent" && end < len(calls) && calls[end].tool == "Agent" {
			end++
		}
		for i, c := range calls[n:end] {
			args, err := json.Marshal(c.args)
			if err != nil {
				return loop.Response{}, fmt.Errorf("offline: encoding arguments for %s: %w", c.tool, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
				ID:       fmt.Sprintf("call_%d", earlier+n+i+1),
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.tool, Arguments: string(args)},
			})
		}
	}
	if req.OnText != nil {
		// Streamed as a server streams: a line at a time.
		for rest := msg.Content; rest != ""; {
			line, after, found := strings.Cut(rest, "\n")
			if found {
				line += "\n"
			}
			req.OnText(line)
			rest = after
		}
	}
	return loop.Response{Message: msg, Usage: usage(req.Messages, msg)}, nil
}

// lastUser returns the index of the latest user message.
func lastUser(msgs []openai.ChatCompletionMessage) (int, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == openai.ChatMessageRoleUser {
			return i, true
		}
	}
	return 0, false
}

// directive is one tool call the prompt asks for.
type directive struct {
	tool string
	args map[string]any
}

// parse returns the directives of prompt, in order.
func parse(prompt string) []directive {
	var ds []directive
	for line := range strings.Lines(prompt) {
		if d, ok := parseLine(strings.TrimSpace(line)); ok {
			ds = append(ds, d)
		}
	}
	return ds
}

func parseLine(line string) (directive, bool) {
	simple := []struct{ prefix, tool, key string }{
		{"Run bash:", "Bash", "command"},
		{"Read:", "Read", "file_path"},
		{"Glob:", "Glob", "pattern"},
		{"Grep:", "Grep", "pattern"},
		{"Fetch:", "WebFetch", "url"},
		{"Skill:", "Skill", "skill"},
	}
	for _, s := range simple {
		if rest, ok := strings.CutPrefix(line, s.prefix); ok {
			return directive{s.tool, map[string]any{s.key: strings.TrimSpace(rest)}}, true
		}
	}
	// The named forms split at the first ": ", so the text after it may
	// contain colons; the name before it may not.
	named := func(prefix string) (name, text string, ok bool) {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			return "", "", false
		}
		name, text, ok = strings.Cut(rest, ": ")
		if !ok {
			// "Write PATH:" with no text.
			name, ok = strings.CutSuffix(rest, ":")
		}
		name = strings.TrimSpace(name)
		return name, text, ok && name != ""
	}
	if path, text, ok := named("Write "); ok {
		return directive{"Write", map[string]any{"file_path": path, "content": text}}, true
	}
	if path, text, ok := named("Edit "); ok {
		// Without " => " the line is not a directive: guessing a
		// replacement could destroy text.
		old, repl, found := strings.Cut(text, " => ")
		if !found {
			// "OLD =>" (the trailing space was trimmed): delete OLD.
			old, found = strings.CutSuffix(text, " =>")
		}
		if !found {
			return directive{}, false
		}
		return directive{"Edit", map[string]any{"file_path": path, "old_string": old, "new_string": repl}}, true
	}
	if typ, task, ok := named("Delegate "); ok {
		task = strings.TrimSpace(task)
		return directive{"Agent", map[string]any{
			"subagent_type": typ,
			"prompt":        task,
			"description":   truncate(task, descriptionLen),
		}}, true
	}
	if name, text, ok := named("Call "); ok {
		// Arguments that are not one JSON object make the line no
		// directive, as a malformed Edit does.
		var args map[string]any
		if json.Unmarshal([]byte(strings.TrimSpace(text)), &args) != nil || args == nil {
			return directive{}, false
		}
		return directive{name, args}, true
	}
	return directive{}, false
}

// truncate cuts s to at most n characters, never inside a UTF-8 sequence.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// report returns one RESULT line per tool result in the conversation, in
// order, describing the call it answers.
func report(msgs []openai.ChatCompletionMessage) []string {
	calls := map[string]openai.FunctionCall{}
	var lines []string
	for _, m := range msgs {
		switch m.Role {
		case openai.ChatMessageRoleAssistant:
			for _, tc := range m.ToolCalls {
				calls[tc.ID] = tc.Function
			}
		case openai.ChatMessageRoleTool:
			fn := calls[m.ToolCallID]
			lines = append(lines, fmt.Sprintf("RESULT: %s(%s) -> %s", fn.Name, shortArgs(fn.Name, fn.Arguments), outcome(m.Content)))
		}
	}
	return lines
}

// shortArgs picks the argument that says what a call was about.
func shortArgs(name, arguments string) string {
	var in map[string]any
	if json.Unmarshal([]byte(arguments), &in) != nil {
		return "?"
	}
	return perm.Specifier(name, in)
}

func outcome(content string) string {
	first, _, _ := strings.Cut(content, "\n")
	if reason, ok := strings.CutPrefix(first, "DENIED: "); ok {
		return "DENIED: " + reason
	}
	if strings.HasPrefix(first, "ERROR: ") {
		return first
	}
	return "ALLOWED"
}

// usage counts words: deterministic, and roughly proportional to tokens.
func usage(msgs []openai.ChatCompletionMessage, reply openai.ChatCompletionMessage) openai.Usage {
	var u openai.Usage
	for _, m := range msgs {
		u.PromptTokens += words(m)
	}
	u.CompletionTokens = words(reply)
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func words(m openai.ChatCompletionMessage) int {
	n := len(strings.Fields(m.Content))
	for _, tc := range m.ToolCalls {
		n += 1 + len(strings.Fields(tc.Function.Arguments))
	}
	return n
}
