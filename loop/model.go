// Package loop runs the agentic loop: it sends the conversation and the
// visible tool schemas to a Model, runs the tool calls the model asks for
// (each behind the permission gate), feeds the results back as tool
// messages, and repeats until the model gives a final answer. It sits on
// tool (tool.Set runs each call behind the gate and hands back the
// decision) and knows no tool by name: whether calls run in parallel is a
// property a tool declares (tool.Parallel), and what a tool reports beyond
// its text (tool.Report) is added to the Outcome.
//
// Model implementations live in subpackages: loop/chat speaks the
// OpenAI-compatible chat-completions API, loop/offline is the embedded,
// deterministic offline model.
package loop

import (
	"context"

	openai "github.com/sashabaranov/go-openai"
)

// Model produces the next assistant message for a conversation.
// Implementations must honour ctx cancellation and be safe for concurrent use.
type Model interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Request is one model turn.
type Request struct {
	Messages []openai.ChatCompletionMessage
	// Tools are the tool schemas the model may call (already filtered).
	Tools []openai.Tool
	// OnText, if set, receives assistant text as it streams in.
	OnText func(delta string)
}

// Response is the assistant's reply for one turn.
type Response struct {
	// Message has Role assistant, and Content and/or ToolCalls.
	Message openai.ChatCompletionMessage
	Usage   openai.Usage
}
