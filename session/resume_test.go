package session

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop/offline"
)

// A resumed session sends its history after the system prompt (with the
// appended text), and OnTurn receives exactly the messages a turn added.
func TestHistoryAppendSystemAndOnTurn(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "hello\n"})
	srv := testmodel.New(t, offline.New())
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "earlier question"},
		{Role: openai.ChatMessageRoleAssistant, Content: "earlier answer"},
	}
	var turns [][]openai.ChatCompletionMessage
	s := newSession(t, root, home, srv.Model(false), nil, func(c *Config) {
		c.System = "SYSTEM"
		c.AppendSystem = "APPENDED"
		c.History = history
		c.OnTurn = func(msgs []openai.ChatCompletionMessage) error {
			turns = append(turns, msgs)
			return nil
		}
	})
	if _, err := s.Submit(context.Background(), "Read: a.txt", nil, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	msgs := reqs[0].Messages
	if len(msgs) != 4 || !strings.HasPrefix(msgs[0].Content, "SYSTEM\n\n") || !strings.HasSuffix(msgs[0].Content, "\n\nAPPENDED") || msgs[1].Content != "earlier question" || msgs[2].Content != "earlier answer" || msgs[3].Content != "Read: a.txt" {
		t.Fatalf("first request messages: %+v", msgs)
	}
	if len(turns) != 1 || len(turns[0]) != 4 || turns[0][0].Content != "Read: a.txt" || turns[0][3].Role != openai.ChatMessageRoleAssistant {
		t.Fatalf("OnTurn got %+v", turns)
	}
}
