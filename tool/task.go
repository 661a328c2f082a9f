package tool

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// TaskStatus is where a task stands.
type TaskStatus string

// The task statuses.
const (
	TaskPending    TaskStatus = "pending"
	TaskInProgress TaskStatus = "in_progress"
	TaskCompleted  TaskStatus = "completed"
)

// Task is one entry of a TaskList.
type Task struct {
	ID          string // "1", "2", … in order of creation
	Subject     string
	Description string
	Status      TaskStatus
}

// maxTasks bounds a TaskList, so a model stuck in a loop cannot grow it
// without end.
const maxTasks = 1000

// TaskList is the task list of one session, which the Task tools edit and
// a UI shows. The zero value is an empty list. It is safe for concurrent
// use. Tasks are never removed; ids are never reused.
type TaskList struct {
	mu    sync.Mutex
	tasks []Task // tasks[i].ID == strconv.Itoa(i+1)
}

// Snapshot returns a copy of the tasks in order of creation.
func (l *TaskList) Snapshot() []Task {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Task(nil), l.tasks...)
}

// lookup returns the index of the task with id; l.mu must be held.
func (l *TaskList) lookup(tool, id string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(id))
	if err != nil || n < 1 || n > len(l.tasks) || strconv.Itoa(n) != strings.TrimSpace(id) {
		if len(l.tasks) == 0 {
			return 0, fmt.Errorf("%s: no task has id %q: the task list is empty", tool, id)
		}
		return 0, fmt.Errorf("%s: no task has id %q: ids run from 1 to %d (see TaskList)", tool, id, len(l.tasks))
	}
	return n - 1, nil
}

// NewTaskTools returns the tools TaskCreate, TaskGet, TaskList and
// TaskUpdate, all working on l, which must not be nil.
func NewTaskTools(l *TaskList) []Tool {
	if l == nil {
		panic("tool: NewTaskTools with a nil *TaskList")
	}
	return []Tool{taskCreate{l}, taskGet{l}, taskLister{l}, taskUpdate{l}}
}

type taskCreate struct{ l *TaskList }

func (taskCreate) Name() string { return "TaskCreate" }

func (t taskCreate) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "TaskCreate"
	subject, err := taskSubject(name, in, true)
	if err != nil {
		return "", err
	}
	desc, _, err := stringArg(name, in, "description")
	if err != nil {
		return "", err
	}
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tasks) >= maxTasks {
		return "", fmt.Errorf("%s: the task list is full (%d tasks); update existing tasks instead", name, maxTasks)
	}
	task := Task{ID: strconv.Itoa(len(l.tasks) + 1), Subject: subject, Description: desc, Status: TaskPending}
	l.tasks = append(l.tasks, task)
	return fmt.Sprintf("Created task %s: %s\n", task.ID, task.Subject), nil
}

type taskGet struct{ l *TaskList }

func (taskGet) Name() string { return "TaskGet" }

func (t taskGet) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "TaskGet"
	id, err := requiredString(name, in, "id")
	if err != nil {
		return "", err
	}
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	i, err := l.lookup(name, id)
	if err != nil {
		return "", err
	}
	task := l.tasks[i]
	s := fmt.Sprintf("Task %s [%s]: %s\n", task.ID, task.Status, task.Subject)
	if d := strings.TrimSpace(task.Description); d != "" {
		s += "\n" + d + "\n"
	}
	return s, nil
}

type taskLister struct{ l *TaskList }

func (taskLister) Name() string { return "TaskList" }

func (t taskLister) Run(ctx context.Context, _ Call) (string, error) {
	tasks := t.l.Snapshot()
	if len(tasks) == 0 {
		return "No tasks yet.\n", nil
	}
	var b strings.Builder
	done := 0
	for _, task := range tasks {
		fmt.Fprintf(&b, "%s. [%s] %s\n", task.ID, task.Status, task.Subject)
		if task.Status == TaskCompleted {
			done++
		}
	}
	fmt.Fprintf(&b, "(%d of %d completed)\n", done, len(tasks))
	return b.String(), nil
}

type taskUpdate struct{ l *TaskList }

func (taskUpdate) Name() string { return "TaskUpdate" }

func (t taskUpdate) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "TaskUpdate"
	id, err := requiredString(name, in, "id")
	if err != nil {
		return "", err
	}
	status, hasStatus, err := stringArg(name, in, "status")
	if err != nil {
		return "", err
	}
	if hasStatus {
		switch TaskStatus(status) {
		case TaskPending, TaskInProgress, TaskCompleted:
		default:
			return "", fmt.Errorf("%s: status must be pending, in_progress or completed, got %q", name, status)
		}
	}
	subject, err := taskSubject(name, in, false)
	if err != nil {
		return "", err
	}
	desc, hasDesc, err := stringArg(name, in, "description")
	if err != nil {
		return "", err
	}
	if !hasStatus && subject == "" && !hasDesc {
		return "", fmt.Errorf("%s: nothing to change: give status, subject or description", name)
	}
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	i, err := l.lookup(name, id)
	if err != nil {
		return "", err
	}
	task := &l.tasks[i]
	var changed []string
	if hasStatus && TaskStatus(status) != task.Status {
		changed = append(changed, fmt.Sprintf("status %s → %s", task.Status, status))
		task.Status = TaskStatus(status)
	}
	if subject != "" && subject != task.Subject {
		changed = append(changed, "subject")
		task.Subject = subject
	}
	if hasDesc && desc != task.Description {
		changed = append(changed, "description")
		task.Description = desc
	}
	if len(changed) == 0 {
		return fmt.Sprintf("Task %s unchanged [%s]: %s\n", task.ID, task.Status, task.Subject), nil
	}
	return fmt.Sprintf("Updated task %s (%s) [%s]: %s\n", task.ID, strings.Join(changed, ", "), task.Status, task.Subject), nil
}

// taskSubject returns the subject argument on one line; present but blank
// is an error, and so is absent when required.
func taskSubject(tool string, in map[string]any, required bool) (string, error) {
	s, ok, err := stringArg(tool, in, "subject")
	if err != nil {
		return "", err
	}
	if !ok && !required {
		return "", nil
	}
	s = oneLine(s)
	if s == "" {
		if !ok {
			return "", fmt.Errorf("%s: missing required argument %q", tool, "subject")
		}
		return "", fmt.Errorf("%s: the subject is empty", tool)
	}
	return s, nil
}
