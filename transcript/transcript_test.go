package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func TestNewIDIsAUUID(t *testing.T) {
	a, b := NewID(), NewID()
	if err := CheckID(a); err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two IDs are equal: %s", a)
	}
	if a[14] != '4' || !strings.ContainsRune("89ab", rune(a[19])) {
		t.Errorf("%s is not a version 4 UUID", a)
	}
}

func TestCheckIDRefusesPaths(t *testing.T) {
	for _, id := range []string{"", "../../etc/passwd", "abc", "0B5C3B52-7A43-4C44-9F7E-2D1F5D8F6A10", "0b5c3b52-7a43-4c44-9f7e-2d1f5d8f6a10/x"} {
		if CheckID(id) == nil {
			t.Errorf("CheckID(%q) = nil", id)
		}
	}
}

func TestProjectDirNaming(t *testing.T) {
	for _, tt := range []struct{ project, want string }{
		{"/home/a/repo", "-home-a-repo"},
		{"/Users/x/my.app", "-Users-x-my-app"},
		{`C:\Users\x`, "C--Users-x"},
	} {
		if got := filepath.Base(ProjectDir("/h", tt.project)); got != tt.want {
			t.Errorf("ProjectDir(%q) = %s, want %s", tt.project, got, tt.want)
		}
	}
	if got := Path("/h", "/r", "id"); got != filepath.Join("/h", ".gen", "projects", "-r", "id.jsonl") {
		t.Errorf("Path = %s", got)
	}
}

func TestAppendLoadRoundTrip(t *testing.T) {
	home := t.TempDir()
	id := NewID()
	path := Path(home, "/p", id)
	turn1 := []openai.ChatCompletionMessage{
		{Role: "user", Content: "Read: a.txt"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "Read", Arguments: `{"file_path":"a.txt"}`}}}},
		{Role: "tool", ToolCallID: "call_1", Content: "hello"},
		{Role: "assistant", Content: "done"},
	}
	if err := Append(path, Meta{SessionID: id, Cwd: "/p"}, turn1); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, Meta{SessionID: id, Cwd: "/p"}, []openai.ChatCompletionMessage{{Role: "user", Content: "again"}}); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[1].ToolCalls[0].ID != "call_1" || got[2].ToolCallID != "call_1" || got[4].Content != "again" {
		t.Fatalf("loaded %+v", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v, want 0600", fi.Mode().Perm())
	}
}

// Concurrent appends never interleave inside a line.
func TestAppendConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			msg := openai.ChatCompletionMessage{Role: "user", Content: strings.Repeat(string(rune('a'+i)), 10000)}
			if err := Append(path, Meta{SessionID: "x"}, []openai.ChatCompletionMessage{msg, msg}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 16 {
		t.Fatalf("%d messages, want 16", len(got))
	}
}

// A write that failed part way (a full disk) leaves the start of a line;
// the session goes on, and its transcript must still load: the lines
// appended later are whole, and the torn one is skipped.
func TestAppendAfterTornWrite(t *testing.T) {
	for _, first := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		msg := func(s string) []openai.ChatCompletionMessage {
			return []openai.ChatCompletionMessage{{Role: "user", Content: s}}
		}
		want := []string{"after"}
		if !first {
			if err := Append(path, Meta{SessionID: "x", Cwd: "/p"}, msg("before")); err != nil {
				t.Fatal(err)
			}
			want = []string{"before", "after"}
		}
		// What a failed write leaves: the first bytes of an entry, cut
		// inside a string.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(`{"type":"user","sessionId":"x","cwd":"/p","message":{"role":"user","content":"lo`); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := Append(path, Meta{SessionID: "x", Cwd: "/p"}, msg("after")); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatalf("torn first line %v: %v", first, err)
		}
		var texts []string
		for _, m := range got {
			texts = append(texts, m.Content)
		}
		if !slices.Equal(texts, want) {
			t.Errorf("torn first line %v: loaded %q, want %q", first, texts, want)
		}
		if in, err := In(path, "/p"); err != nil || !in {
			t.Errorf("torn first line %v: In = %v, %v; want true", first, in, err)
		}
		if in, err := In(path, "/q"); err != nil || in {
			t.Errorf("torn first line %v: In(/q) = %v, %v; want false", first, in, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A torn last line is skipped.
	torn := write("torn.jsonl", `{"type":"user","message":{"role":"user","content":"hi"}}`+"\n"+`{"type":"assi`)
	if got, err := Load(torn); err != nil || len(got) != 1 {
		t.Errorf("torn: %v, %v", got, err)
	}
	// A bad line in the middle names its line.
	bad := write("bad.jsonl", `{"type":"user","message":{"role":"user","content":"hi"}}`+"\nnot json\n")
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Errorf("bad line: %v", err)
	}
	// Two objects on one line are not a line a write left torn.
	two := write("two.jsonl", `{"type":"user","message":{"role":"user","content":"hi"}} {"type":"user"}`+"\n")
	if _, err := Load(two); err == nil || !strings.Contains(err.Error(), "two.jsonl:1:") {
		t.Errorf("two objects: %v", err)
	}
	role := write("role.jsonl", `{"message":{"role":"wizard","content":"hi"}}`+"\n")
	if _, err := Load(role); err == nil || !strings.Contains(err.Error(), `"wizard"`) {
		t.Errorf("bad role: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.jsonl")); err == nil || !strings.Contains(err.Error(), "no session transcript") {
		t.Errorf("missing: %v", err)
	}
}

func TestLatest(t *testing.T) {
	home := t.TempDir()
	if _, err := Latest(home, "/p"); err != ErrNone {
		t.Fatalf("empty: %v", err)
	}
	old, recent := NewID(), NewID()
	for _, id := range []string{old, recent} {
		if err := Append(Path(home, "/p", id), Meta{SessionID: id}, []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(Path(home, "/p", old), past, past); err != nil {
		t.Fatal(err)
	}
	// Files that are not transcripts are ignored.
	if err := os.WriteFile(filepath.Join(ProjectDir(home, "/p"), "notes.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Latest(home, "/p"); err != nil || got != recent {
		t.Errorf("Latest = %s, %v; want %s", got, err, recent)
	}
	// A newer session that got no turn (its run was killed before it
	// could be discarded) holds nothing to continue: it does not hide
	// the last real one. One whose line is broken is taken, for loading
	// it to say why.
	unused := NewID()
	if _, err := Create(Path(home, "/p", unused), Meta{SessionID: unused, Cwd: "/p"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := Latest(home, "/p"); err != nil || got != recent {
		t.Errorf("Latest with a newer session that got no turn = %s, %v; want %s", got, err, recent)
	}
	if err := os.WriteFile(Path(home, "/p", unused), []byte("{\"type\":\"session\"}\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Latest(home, "/p"); err != nil || got != unused {
		t.Errorf("Latest with a newer broken transcript = %s, %v; want %s", got, err, unused)
	}
	if _, err := Latest(home, "/other"); err != ErrNone {
		t.Errorf("other project: %v", err)
	}
}

// /a/b-c and /a/b/c share one transcript directory (ProjectDir): Latest
// and In tell their sessions apart by the cwd the transcript records.
func TestProjectsSharingADirectory(t *testing.T) {
	home := t.TempDir()
	if ProjectDir(home, "/a/b-c") != ProjectDir(home, "/a/b/c") {
		t.Fatal("the two projects no longer share a directory; this test is moot")
	}
	mine, theirs := NewID(), NewID()
	msg := []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}
	if err := Append(Path(home, "/a/b-c", mine), Meta{SessionID: mine, Cwd: "/a/b-c/sub"}, msg); err != nil {
		t.Fatal(err)
	}
	if err := Append(Path(home, "/a/b/c", theirs), Meta{SessionID: theirs, Cwd: "/a/b/c"}, msg); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(Path(home, "/a/b-c", mine), past, past); err != nil {
		t.Fatal(err)
	}
	// The newer transcript is the other project's.
	if got, err := Latest(home, "/a/b-c"); err != nil || got != mine {
		t.Errorf("Latest(/a/b-c) = %s, %v; want %s", got, err, mine)
	}
	if got, err := Latest(home, "/a/b/c"); err != nil || got != theirs {
		t.Errorf("Latest(/a/b/c) = %s, %v; want %s", got, err, theirs)
	}
	for _, tc := range []struct {
		id, project string
		want        bool
	}{{mine, "/a/b-c", true}, {mine, "/a/b/c", false}, {theirs, "/a/b/c", true}, {theirs, "/a/b-c", false}} {
		if got, err := In(Path(home, tc.project, tc.id), tc.project); err != nil && tc.want || got != tc.want {
			t.Errorf("In(%s, %s) = %v, %v; want %v", tc.id, tc.project, got, err, tc.want)
		}
	}
}

// Create makes a new transcript once: a second Create of the same path
// fails with fs.ErrExist and leaves the first's lines alone. Its first
// line records the cwd and the agent, so a session that never ran a turn
// still resumes as its agent, in its project only.
func TestCreateOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", NewID()+".jsonl")
	rev := Agent{Name: "rev", Source: "user", By: "--agent"}
	msgs := []openai.ChatCompletionMessage{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}
	if _, err := Create(path, Meta{SessionID: "x", Cwd: "/p", Agent: rev}, msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, Meta{SessionID: "x"}, msgs); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create = %v, want fs.ErrExist", err)
	}
	got, agent, err := LoadAgent(path)
	if err != nil || len(got) != 2 || agent != rev {
		t.Errorf("LoadAgent = %d messages, agent %+v, %v", len(got), agent, err)
	}
	empty := filepath.Join(t.TempDir(), NewID()+".jsonl")
	if _, err := Create(empty, Meta{SessionID: "y", Cwd: "/a/b/c", Agent: rev}, nil); err != nil {
		t.Fatal(err)
	}
	if got, agent, err := LoadAgent(empty); err != nil || len(got) != 0 || agent != rev {
		t.Errorf("a new session without a turn: %d messages, agent %+v, %v; want none and its agent", len(got), agent, err)
	}
	if mine, _ := In(empty, "/a/b/c"); !mine {
		t.Error("a new session without a turn is not its project's")
	}
	if theirs, _ := In(empty, "/a/b-c"); theirs {
		t.Error("a new session without a turn is taken as another project's")
	}
	// A later entry that records no agent (an older gen's) does not undo
	// the agent; one that names another does.
	if err := Append(empty, Meta{SessionID: "y"}, msgs[:1]); err != nil {
		t.Fatal(err)
	}
	if _, agent, _ := LoadAgent(empty); agent != rev {
		t.Errorf("after an entry without an agent: %+v, want %+v", agent, rev)
	}
	other := Agent{Name: "other", Source: "project", By: "--agent"}
	if err := Append(empty, Meta{SessionID: "y", Agent: other}, msgs[:1]); err != nil {
		t.Fatal(err)
	}
	if _, agent, _ := LoadAgent(empty); agent != other {
		t.Errorf("after an entry naming another agent: %+v, want %+v", agent, other)
	}
}

// Discard removes a transcript Create made only while it is as Create
// left it: a session that never got a turn. One a turn was added to is
// kept.
func TestDiscard(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}
	for _, forked := range [][]openai.ChatCompletionMessage{nil, msgs} {
		path := filepath.Join(t.TempDir(), NewID()+".jsonl")
		size, err := Create(path, Meta{SessionID: "x", Cwd: "/p"}, forked)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != size {
			t.Fatalf("Create returned size %d, the file is %v (%v)", size, fi, err)
		}
		kept := filepath.Join(t.TempDir(), NewID()+".jsonl")
		keptSize, err := Create(kept, Meta{SessionID: "y", Cwd: "/p"}, forked)
		if err != nil {
			t.Fatal(err)
		}
		if err := Append(kept, Meta{SessionID: "y"}, msgs[:1]); err != nil {
			t.Fatal(err)
		}
		if gone, err := Discard(path, size); !gone || err != nil {
			t.Errorf("%d forked: Discard of an untouched transcript = %v, %v", len(forked), gone, err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%d forked: the untouched transcript is still there: %v", len(forked), err)
		}
		if gone, err := Discard(kept, keptSize); gone || err != nil {
			t.Errorf("%d forked: Discard of a transcript with a turn = %v, %v; want it kept", len(forked), gone, err)
		}
		if got, err := Load(kept); err != nil || len(got) != len(forked)+1 {
			t.Errorf("%d forked: the kept transcript holds %d messages, %v", len(forked), len(got), err)
		}
	}
}

// A transcript that is a named pipe (made where transcripts live by a
// command the sandbox did not confine, or by mistake) is an error naming
// it for --resume and --continue, never a wait for a writer that does not
// come.
func TestTranscriptFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// Each check reports what is wrong, "" when the FIFO was refused.
	refused := func(what string, err error) string {
		if err == nil || !strings.Contains(err.Error(), "not a regular file but a named pipe") {
			return fmt.Sprintf("%s: %v, want the named pipe refused", what, err)
		}
		return ""
	}
	done := make(chan string, 3)
	go func() {
		_, _, err := LoadAgent(path)
		done <- refused("LoadAgent", err)
	}()
	go func() {
		_, err := In(path, "/")
		done <- refused("In", err)
	}()
	go func() {
		if empty(path) {
			done <- "empty: a FIFO counts as an empty transcript"
			return
		}
		done <- ""
	}()
	for range 3 {
		select {
		case problem := <-done:
			if problem != "" {
				t.Error(problem)
			}
		case <-time.After(time.Minute):
			// No writer ever comes: a blocking open never returns.
			t.Fatal("reading a FIFO transcript blocked")
		}
	}
}
