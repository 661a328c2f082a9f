package tool

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// runTask runs the task tool name over l.
func runTask(t *testing.T, l *TaskList, name string, in map[string]any) (string, error) {
	t.Helper()
	for _, tl := range NewTaskTools(l) {
		if tl.Name() == name {
			return tl.Run(context.Background(), Call{Input: in})
		}
	}
	t.Fatalf("no task tool %q", name)
	return "", nil
}

func TestTaskTools(t *testing.T) {
	type step struct {
		tool    string
		in      map[string]any
		want    string // the whole output; ignored when wantErr is set
		wantErr string
	}
	create := func(subject string) step {
		return step{tool: "TaskCreate", in: map[string]any{"subject": subject}}
	}
	tests := []struct {
		name  string
		steps []step
		final []Task // Snapshot afterwards
	}{
		{"empty list", []step{
			{tool: "TaskList", in: map[string]any{}, want: "No tasks yet.\n"},
			{tool: "TaskGet", in: map[string]any{"id": "1"}, wantErr: `TaskGet: no task has id "1": the task list is empty`},
		}, nil},
		{"ids count up from one", []step{
			{tool: "TaskCreate", in: map[string]any{"subject": "Write tests", "description": "table tests\nfor every tool"}, want: "Created task 1: Write tests\n"},
			{tool: "TaskCreate", in: map[string]any{"subject": "Fix bugs"}, want: "Created task 2: Fix bugs\n"},
			{tool: "TaskList", in: map[string]any{}, want: "1. [pending] Write tests\n2. [pending] Fix bugs\n(0 of 2 completed)\n"},
			{tool: "TaskGet", in: map[string]any{"id": "1"}, want: "Task 1 [pending]: Write tests\n\ntable tests\nfor every tool\n"},
			{tool: "TaskGet", in: map[string]any{"id": "2"}, want: "Task 2 [pending]: Fix bugs\n"},
		}, []Task{
			{ID: "1", Subject: "Write tests", Description: "table tests\nfor every tool", Status: TaskPending},
			{ID: "2", Subject: "Fix bugs", Status: TaskPending},
		}},
		{"status moves", []step{
			create("A"), create("B"),
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "status": "in_progress"}, want: "Updated task 1 (status pending → in_progress) [in_progress]: A\n"},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "status": "completed"}, want: "Updated task 1 (status in_progress → completed) [completed]: A\n"},
			{tool: "TaskList", in: map[string]any{}, want: "1. [completed] A\n2. [pending] B\n(1 of 2 completed)\n"},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "status": "pending"}, want: "Updated task 1 (status completed → pending) [pending]: A\n"},
		}, []Task{{ID: "1", Subject: "A", Status: TaskPending}, {ID: "2", Subject: "B", Status: TaskPending}}},
		{"subject and description change", []step{
			create("Old"),
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "subject": "New", "description": "d"}, want: "Updated task 1 (subject, description) [pending]: New\n"},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "description": ""}, want: "Updated task 1 (description) [pending]: New\n"},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "subject": "New", "status": "pending"}, want: "Task 1 unchanged [pending]: New\n"},
		}, []Task{{ID: "1", Subject: "New", Status: TaskPending}}},
		{"subject kept on one line", []step{
			{tool: "TaskCreate", in: map[string]any{"subject": "  two\nlines  "}, want: "Created task 1: two lines\n"},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "subject": "x\n2. [completed] forged"}, want: "Updated task 1 (subject) [pending]: x 2. [completed] forged\n"},
		}, []Task{{ID: "1", Subject: "x 2. [completed] forged", Status: TaskPending}}},
		{"failures change nothing", []step{
			create("A"),
			{tool: "TaskCreate", in: map[string]any{}, wantErr: `TaskCreate: missing required argument "subject"`},
			{tool: "TaskCreate", in: map[string]any{"subject": " \n "}, wantErr: "TaskCreate: the subject is empty"},
			{tool: "TaskCreate", in: map[string]any{"subject": 3.0}, wantErr: `TaskCreate: argument "subject" must be a string`},
			{tool: "TaskGet", in: map[string]any{}, wantErr: `TaskGet: missing required argument "id"`},
			{tool: "TaskGet", in: map[string]any{"id": "2"}, wantErr: `TaskGet: no task has id "2": ids run from 1 to 1 (see TaskList)`},
			{tool: "TaskGet", in: map[string]any{"id": "0"}, wantErr: `no task has id "0"`},
			{tool: "TaskGet", in: map[string]any{"id": "01"}, wantErr: `no task has id "01"`},
			{tool: "TaskGet", in: map[string]any{"id": "#1"}, wantErr: `no task has id "#1"`},
			{tool: "TaskUpdate", in: map[string]any{"id": "1"}, wantErr: "TaskUpdate: nothing to change: give status, subject or description"},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "status": "done"}, wantErr: `status must be pending, in_progress or completed, got "done"`},
			{tool: "TaskUpdate", in: map[string]any{"id": "1", "subject": ""}, wantErr: "TaskUpdate: the subject is empty"},
			{tool: "TaskUpdate", in: map[string]any{"id": "9", "status": "completed"}, wantErr: `TaskUpdate: no task has id "9"`},
			{tool: "TaskUpdate", in: map[string]any{"id": 1.0, "status": "completed"}, wantErr: `argument "id" must be a string`},
		}, []Task{{ID: "1", Subject: "A", Status: TaskPending}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l TaskList // the zero value is ready
			for i, s := range tt.steps {
				out, err := runTask(t, &l, s.tool, s.in)
				if s.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), s.wantErr) {
						t.Fatalf("step %d %s: error %v, want one containing %q", i, s.tool, err, s.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d %s: %v", i, s.tool, err)
				}
				if s.want != "" && out != s.want {
					t.Errorf("step %d %s: output\n%q\nwant\n%q", i, s.tool, out, s.want)
				}
			}
			if got := l.Snapshot(); !slices.Equal(got, tt.final) {
				t.Errorf("snapshot %+v, want %+v", got, tt.final)
			}
		})
	}
}

func TestTaskListSnapshotIsACopy(t *testing.T) {
	var l TaskList
	_, err := runTask(t, &l, "TaskCreate", map[string]any{"subject": "A"})
	must(t, err)
	snap := l.Snapshot()
	snap[0].Subject = "changed"
	if got := l.Snapshot()[0].Subject; got != "A" {
		t.Errorf("changing a snapshot changed the list: %q", got)
	}
}

func TestTaskListFull(t *testing.T) {
	var l TaskList
	for i := range maxTasks {
		if _, err := runTask(t, &l, "TaskCreate", map[string]any{"subject": fmt.Sprint("t", i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := runTask(t, &l, "TaskCreate", map[string]any{"subject": "one more"})
	if err == nil || !strings.Contains(err.Error(), "the task list is full (1000 tasks)") {
		t.Fatalf("got %v", err)
	}
}

func TestTaskListConcurrent(t *testing.T) {
	var l TaskList
	tools := NewTaskTools(&l)
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			out, err := tools[0].Run(context.Background(), Call{Input: map[string]any{"subject": "x"}})
			if err != nil {
				t.Error(err)
				return
			}
			id := strings.TrimSuffix(strings.TrimPrefix(out, "Created task "), ": x\n")
			if _, err := tools[3].Run(context.Background(), Call{Input: map[string]any{"id": id, "status": "completed"}}); err != nil {
				t.Error(err)
			}
			tools[2].Run(context.Background(), Call{Input: map[string]any{}})
			l.Snapshot()
		})
	}
	wg.Wait()
	snap := l.Snapshot()
	if len(snap) != n {
		t.Fatalf("%d tasks, want %d", len(snap), n)
	}
	for i, task := range snap {
		if task.ID != fmt.Sprint(i+1) || task.Status != TaskCompleted {
			t.Errorf("task %d: %+v", i, task)
		}
	}
}

func TestNewTaskToolsNames(t *testing.T) {
	var got []string
	for _, tl := range NewTaskTools(new(TaskList)) {
		got = append(got, tl.Name())
	}
	if want := []string{"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewTaskTools(nil) did not panic")
		}
	}()
	NewTaskTools(nil)
}
