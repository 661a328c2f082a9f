package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Question is one multiple-choice question for the person running gen.
type Question struct {
	Question    string
	Header      string // a very short label, for UIs with little room
	Options     []Option
	MultiSelect bool
}

// Option is one choice of a Question.
type Option struct {
	Label       string
	Description string
}

// Asker puts questions to a person and waits for the answers. It must
// return exactly one answer per question, in order: the chosen label, the
// chosen labels joined by ", " for a MultiSelect question, or the
// person's own words. It must give up when ctx is done.
type Asker interface {
	AskQuestions(ctx context.Context, qs []Question) ([]string, error)
}

// errNoAsker is what AskUserQuestion returns where nobody can be asked.
var errNoAsker = errors.New("AskUserQuestion is not available in headless runs: decide yourself or say what you need in your answer")

const (
	minQuestions, maxQuestions = 1, 4
	minOptions, maxOptions     = 2, 4
)

// NewAskUserQuestion returns the AskUserQuestion tool, which asks a through
// a. A nil a (headless runs, subagents) makes every call fail with a
// message telling the model to carry on without an answer. The result
// has one line per question: "Q: <question> → A: <answer>".
func NewAskUserQuestion(a Asker) Tool { return askUser{a} }

type askUser struct{ a Asker }

func (askUser) Name() string { return "AskUserQuestion" }

func (t askUser) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "AskUserQuestion"
	if t.a == nil {
		return "", errNoAsker
	}
	qs, err := questionsArg(in)
	if err != nil {
		return "", err
	}
	answers, err := t.a.AskQuestions(ctx, qs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(answers) != len(qs) {
		return "", fmt.Errorf("%s: got %d answers to %d questions", name, len(answers), len(qs))
	}
	var b strings.Builder
	for i, q := range qs {
		a := oneLine(answers[i])
		if a == "" {
			a = "(no answer)"
		}
		fmt.Fprintf(&b, "Q: %s → A: %s\n", oneLine(q.Question), a)
	}
	return b.String(), nil
}

// questionsArg reads and checks the questions argument: 1 to 4 questions,
// each with a question and 2 to 4 options with distinct, non-empty labels.
func questionsArg(in map[string]any) ([]Question, error) {
	const name = "AskUserQuestion"
	raw, ok := in["questions"]
	if !ok || raw == nil {
		return nil, fmt.Errorf("%s: missing required argument %q", name, "questions")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: argument %q must be an array, got %T", name, "questions", raw)
	}
	if len(list) < minQuestions || len(list) > maxQuestions {
		return nil, fmt.Errorf("%s: ask %d to %d questions at a time, not %d", name, minQuestions, maxQuestions, len(list))
	}
	qs := make([]Question, len(list))
	for i, rq := range list {
		m, ok := rq.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: questions[%d] must be an object, got %T", name, i, rq)
		}
		where := fmt.Sprintf("questions[%d]", i)
		at := name + ": " + where // prefix of the argument readers' errors
		q := &qs[i]
		var err error
		if q.Question, err = requiredString(at, m, "question"); err != nil {
			return nil, err
		}
		if strings.TrimSpace(q.Question) == "" {
			return nil, fmt.Errorf("%s: %s: the question is empty", name, where)
		}
		if q.Header, _, err = stringArg(at, m, "header"); err != nil {
			return nil, err
		}
		if q.MultiSelect, err = boolArg(at, m, "multi_select"); err != nil {
			return nil, err
		}
		ro, ok := m["options"].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s: options must be an array of 2 to 4 choices", name, where)
		}
		if len(ro) < minOptions || len(ro) > maxOptions {
			return nil, fmt.Errorf("%s: %s: give %d to %d options, not %d", name, where, minOptions, maxOptions, len(ro))
		}
		seen := make(map[string]bool)
		for j, r := range ro {
			om, ok := r.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s.options[%d] must be an object, got %T", name, where, j, r)
			}
			oat := fmt.Sprintf("%s.options[%d]", at, j)
			var o Option
			if o.Label, err = requiredString(oat, om, "label"); err != nil {
				return nil, err
			}
			if o.Description, _, err = stringArg(oat, om, "description"); err != nil {
				return nil, err
			}
			label := oneLine(o.Label)
			o.Label = label
			if label == "" {
				return nil, fmt.Errorf("%s: %s.options[%d]: the label is empty", name, where, j)
			}
			if seen[label] {
				return nil, fmt.Errorf("%s: %s: two options are labelled %q", name, where, label)
			}
			seen[label] = true
			q.Options = append(q.Options, o)
		}
	}
	return qs, nil
}
