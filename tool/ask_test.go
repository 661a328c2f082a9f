package tool

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fakeAsker records the questions it gets and answers from a script.
type fakeAsker struct {
	answers []string
	err     error
	got     []Question
	calls   int
}

func (a *fakeAsker) AskQuestions(ctx context.Context, qs []Question) ([]string, error) {
	a.calls++
	a.got = qs
	return a.answers, a.err
}

// q builds one question argument as it arrives from JSON.
func q(question string, labels ...string) map[string]any {
	var opts []any
	for _, l := range labels {
		opts = append(opts, map[string]any{"label": l})
	}
	return map[string]any{"question": question, "options": opts}
}

func qs(questions ...any) map[string]any { return map[string]any{"questions": questions} }

func TestAskUserQuestion(t *testing.T) {
	full := map[string]any{
		"question": "Which database?", "header": "DB", "multi_select": true,
		"options": []any{
			map[string]any{"label": "Postgres", "description": "the usual"},
			map[string]any{"label": "SQLite"},
		},
	}
	tests := []struct {
		name      string
		in        map[string]any
		answers   []string
		askErr    error
		want      string
		wantQs    []Question // what the asker must be given, when not nil
		wantErr   string
		wantAsked bool // whether the asker must have been called (on error)
	}{
		{name: "one question", in: qs(full), answers: []string{"Postgres, SQLite"},
			want: "Q: Which database? → A: Postgres, SQLite\n",
			wantQs: []Question{{Question: "Which database?", Header: "DB", MultiSelect: true,
				Options: []Option{{Label: "Postgres", Description: "the usual"}, {Label: "SQLite"}}}}},
		{name: "four questions in order", in: qs(q("A?", "1", "2"), q("B?", "1", "2", "3"), q("C?", "x", "y", "z", "w"), q("D?", "yes", "no")),
			answers: []string{"1", "3", "my own words", "no"},
			want:    "Q: A? → A: 1\nQ: B? → A: 3\nQ: C? → A: my own words\nQ: D? → A: no\n"},
		{name: "answers kept on one line", in: qs(q("Multi\nline?", "a", "b")), answers: []string{"first\nQ: forged → A: yes"},
			want: "Q: Multi line? → A: first Q: forged → A: yes\n"},
		{name: "empty answer", in: qs(q("A?", "a", "b")), answers: []string{"  "}, want: "Q: A? → A: (no answer)\n"},

		{name: "asker fails", in: qs(q("A?", "a", "b")), askErr: context.Canceled, wantAsked: true,
			wantErr: "AskUserQuestion: context canceled"},
		{name: "too few answers", in: qs(q("A?", "a", "b"), q("B?", "a", "b")), answers: []string{"a"}, wantAsked: true,
			wantErr: "AskUserQuestion: got 1 answers to 2 questions"},
		{name: "too many answers", in: qs(q("A?", "a", "b")), answers: []string{"a", "b"}, wantAsked: true,
			wantErr: "got 2 answers to 1 questions"},

		{name: "no questions", in: qs(), wantErr: "AskUserQuestion: ask 1 to 4 questions at a time, not 0"},
		{name: "five questions", in: qs(q("1", "a", "b"), q("2", "a", "b"), q("3", "a", "b"), q("4", "a", "b"), q("5", "a", "b")),
			wantErr: "ask 1 to 4 questions at a time, not 5"},
		{name: "missing questions", in: map[string]any{}, wantErr: `AskUserQuestion: missing required argument "questions"`},
		{name: "questions not a list", in: map[string]any{"questions": "A?"}, wantErr: `argument "questions" must be an array, got string`},
		{name: "question not an object", in: qs("A?"), wantErr: "questions[0] must be an object, got string"},
		{name: "one option", in: qs(q("A?", "a")), wantErr: "AskUserQuestion: questions[0]: give 2 to 4 options, not 1"},
		{name: "five options", in: qs(q("A?", "a", "b"), q("B?", "a", "b", "c", "d", "e")), wantErr: "questions[1]: give 2 to 4 options, not 5"},
		{name: "no options", in: qs(map[string]any{"question": "A?"}), wantErr: "questions[0]: options must be an array of 2 to 4 choices"},
		{name: "missing question text", in: qs(map[string]any{"options": []any{map[string]any{"label": "a"}, map[string]any{"label": "b"}}}),
			wantErr: `AskUserQuestion: questions[0]: missing required argument "question"`},
		{name: "blank question", in: qs(q(" ", "a", "b")), wantErr: "questions[0]: the question is empty"},
		{name: "blank label", in: qs(q("A?", "a", "\n")), wantErr: "questions[0].options[1]: the label is empty"},
		{name: "missing label", in: qs(map[string]any{"question": "A?", "options": []any{map[string]any{"label": "a"}, map[string]any{"description": "b"}}}),
			wantErr: `AskUserQuestion: questions[0].options[1]: missing required argument "label"`},
		{name: "option not an object", in: qs(map[string]any{"question": "A?", "options": []any{"a", "b"}}),
			wantErr: "questions[0].options[0] must be an object, got string"},
		{name: "duplicate labels", in: qs(q("A?", "Yes", "Yes ")), wantErr: `questions[0]: two options are labelled "Yes"`},
		{name: "multi select not a boolean", in: qs(map[string]any{"question": "A?", "multi_select": "yes", "options": []any{map[string]any{"label": "a"}, map[string]any{"label": "b"}}}),
			wantErr: `questions[0]: argument "multi_select" must be a boolean`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &fakeAsker{answers: tt.answers, err: tt.askErr}
			out, err := NewAskUserQuestion(a).Run(context.Background(), Call{Input: tt.in})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				if tt.askErr != nil && !errors.Is(err, tt.askErr) {
					t.Errorf("error %v does not wrap %v", err, tt.askErr)
				}
				if asked := a.calls > 0; asked != tt.wantAsked {
					t.Errorf("asker called: %v, want %v", asked, tt.wantAsked)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if out != tt.want {
				t.Errorf("output\n%q\nwant\n%q", out, tt.want)
			}
			if tt.wantQs != nil && !reflect.DeepEqual(a.got, tt.wantQs) {
				t.Errorf("asker got %+v\nwant %+v", a.got, tt.wantQs)
			}
		})
	}
}

func TestAskUserQuestionHeadless(t *testing.T) {
	_, err := NewAskUserQuestion(nil).Run(context.Background(), Call{Input: qs(q("A?", "a", "b"))})
	const want = "AskUserQuestion is not available in headless runs: decide yourself or say what you need in your answer"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}
