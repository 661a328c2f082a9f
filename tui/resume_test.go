package tui

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
)

// resumedEngine is an engine that continues an earlier conversation.
type resumedEngine struct {
	*fakeEngine
	history []openai.ChatCompletionMessage
}

func (r resumedEngine) History() []openai.ChatCompletionMessage { return r.history }

// A resumed conversation (--resume, --continue) is shown again before the
// prompt: the person sees what the model sees.
func TestReplayResumed(t *testing.T) {
	eng := resumedEngine{newFakeEngine(), []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "list the files"},
		{Role: openai.ChatMessageRoleUser, Name: loop.ContextName, Content: "Today is a holiday."},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "Bash", Arguments: `{"command":"ls"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: "a.txt\nb.txt"},
		{Role: openai.ChatMessageRoleAssistant, Content: "There are two files."},
	}}
	var printed []string
	m := newModel(t.Context(), eng, newStyles(nil))
	m.print = func(s string) { printed = append(printed, s) }
	m.replay()
	got := strings.Join(printed, "\n")
	for _, want := range []string{"> list the files", "⎿ a hook added: Today is a holiday.", `● Bash {"command":"ls"}`, "There are two files.", "(resumed: 5 earlier messages)"} {
		if !strings.Contains(got, want) {
			t.Errorf("replay lacks %q:\n%s", want, got)
		}
	}
	// What a hook added to a prompt is not shown as the person's words.
	if strings.Contains(got, "> Today") {
		t.Errorf("a hook's context replayed as a prompt:\n%s", got)
	}
	if strings.Contains(got, "a.txt") {
		t.Errorf("tool output replayed:\n%s", got)
	}
	// A new conversation prints nothing.
	printed = nil
	m = newModel(t.Context(), newFakeEngine(), newStyles(nil))
	m.print = func(s string) { printed = append(printed, s) }
	if m.replay(); len(printed) != 0 {
		t.Errorf("fresh session printed %q", printed)
	}
}

// A resumed conversation is shown sanitized, as the live transcript is:
// an escape the model wrote (a file it read may have asked for one) must
// not reach the terminal, which it could clear, retitle or write the
// clipboard of.
func TestReplaySanitized(t *testing.T) {
	const esc = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J"
	eng := resumedEngine{newFakeEngine(), []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "look" + esc},
		{Role: openai.ChatMessageRoleAssistant, Content: "done" + esc, ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "Bash" + esc, Arguments: `{"command":"` + esc + `"}`}}}},
	}}
	var printed []string
	m := newModel(t.Context(), eng, newStyles(nil))
	m.print = func(s string) { printed = append(printed, s) }
	m.replay()
	got := strings.Join(printed, "\n")
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("replay printed a control character:\n%q", got)
	}
	for _, want := range []string{`done\u{1b}]52;c;`, `look\u{1b}`} {
		if !strings.Contains(got, want) {
			t.Errorf("replay lacks %q:\n%q", want, got)
		}
	}
}
