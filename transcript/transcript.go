// Package transcript names and stores the conversations of gen sessions:
// every run has a session ID (a random UUID), and its messages are kept,
// one JSON line per message, in ~/.gen/projects/<project>/<id>.jsonl,
// where <project> is the project's absolute path with every character
// other than a letter or digit replaced by '-' (Claude Code's naming, so
// /home/a/repo is -home-a-repo). --resume and --continue load them back.
// It sits on nothing but the model's message type.
package transcript

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/workspace"
)

// MaxLine is the longest transcript line Load accepts (one message).
const MaxLine = 64 << 20

// ErrNone is returned by Latest when the project has no transcript.
var ErrNone = errors.New("no earlier session in this project")

var idPattern = lazyre.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// NewID returns a new session ID: a random (version 4) UUID.
func NewID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// CheckID reports whether id is a session ID (a lower-case UUID). Only
// such IDs become file names, so --resume cannot name a path.
func CheckID(id string) error {
	if !idPattern.Get().MatchString(id) {
		return fmt.Errorf("session ID %q is not a UUID (such as %s)", id, "0b5c3b52-7a43-4c44-9f7e-2d1f5d8f6a10")
	}
	return nil
}

// ProjectDir is the directory that holds the transcripts of the project
// at the absolute path project, under home.
func ProjectDir(home, project string) string {
	name := []byte(project)
	for i, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			name[i] = '-'
		}
	}
	return filepath.Join(home, ".gen", "projects", string(name))
}

// Path is the transcript file of session id in project.
func Path(home, project, id string) string {
	return filepath.Join(ProjectDir(home, project), id+".jsonl")
}

// Entry is one line of a transcript: one message of the conversation.
// Its shape follows Claude Code's transcript lines where they agree
// (type, sessionId, cwd, timestamp, message).
type Entry struct {
	// Type is the message's role (user, assistant or tool), or
	// "session" for the line Create starts a transcript with, which has
	// no message.
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd,omitempty"`
	// Agent, AgentSource and AgentBy are the Agent record's fields.
	Agent       string                        `json:"agent,omitempty"`
	AgentSource string                        `json:"agentSource,omitempty"`
	AgentBy     string                        `json:"agentBy,omitempty"`
	Timestamp   time.Time                     `json:"timestamp"`
	Message     *openai.ChatCompletionMessage `json:"message,omitempty"`
}

// Agent is what a transcript records of the agent its main loop ran as
// (--agent, or the settings' agent key), for a resumed session to run
// as again.
type Agent struct {
	// Name is the agent's name; "" for none.
	Name string
	// Source is where its definition came from (agent.Definition.Source:
	// project, user, cli or builtin).
	Source string
	// By is what chose it: "--agent", or the settings file (and line)
	// whose agent key did.
	By string
}

// Meta is what each entry Append writes records besides its message.
type Meta struct {
	SessionID, Cwd string
	Agent          Agent
}

// entry returns the entry of msg (nil: the "session" line) under meta.
func (meta Meta) entry(msg *openai.ChatCompletionMessage, now time.Time) Entry {
	e := Entry{Type: "session", SessionID: meta.SessionID, Cwd: meta.Cwd, Timestamp: now, Message: msg,
		Agent: meta.Agent.Name, AgentSource: meta.Agent.Source, AgentBy: meta.Agent.By}
	if msg != nil {
		e.Type = msg.Role
	}
	return e
}

// Append adds msgs to the transcript at path, creating it (and its
// directory, private to the user) if needed. Each message is one line,
// and all of them go to the file in one write to a file opened for
// appending, so concurrent writers never interleave within a line and a
// reader never sees half a message unless the write itself failed. A
// write that failed part way (a full disk) or was cut by a crash leaves a
// torn last line; the next Append ends it first, so that the new lines
// stay lines of their own and the session can still be loaded (Load
// skips a torn line).
func Append(path string, meta Meta, msgs []openai.ChatCompletionMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	var buf []byte
	now := time.Now().UTC()
	for i := range msgs {
		b, err := json.Marshal(meta.entry(&msgs[i], now))
		if err != nil {
			return fmt.Errorf("transcript %s: %w", path, err)
		}
		buf = append(append(buf, b...), '\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if torn(f) {
		// Written before the torn line's rest, the new first line would
		// be glued to it, and Load would refuse the whole session. (A
		// concurrent write still under way may look torn too: the extra
		// newline then makes a blank line, which Load skips.)
		buf = append([]byte{'\n'}, buf...)
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return fmt.Errorf("transcript %s: %w", path, err)
	}
	return f.Close()
}

// torn reports whether the file f does not end with a newline: a write to
// it failed or was cut short by a crash.
func torn(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	var last [1]byte
	_, err = f.ReadAt(last[:], fi.Size()-1)
	return err == nil && last[0] != '\n'
}

// Create makes the transcript at path, which must not exist yet, with
// msgs (none or more) in it: the start of a session whose ID was given
// (--session-id) or that goes on from another's conversation (a fork).
// Of two runs that would start one session, only one succeeds; the
// other's error satisfies errors.Is(err, fs.ErrExist).
//
// Its first line is a "session" entry with no message: it records the
// session's cwd (In) and agent (LoadAgent) even if no turn ever ends.
// Create returns the size of what it wrote, for Discard.
func Create(path string, meta Meta, msgs []openai.ChatCompletionMessage) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, fmt.Errorf("transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("transcript: %w", err)
	}
	b, err := json.Marshal(meta.entry(nil, time.Now().UTC()))
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Append(path, meta, msgs)
	}
	var fi os.FileInfo
	if err == nil {
		fi, err = os.Stat(path)
	}
	if err != nil {
		return 0, fmt.Errorf("transcript %s: %w", path, err)
	}
	return fi.Size(), nil
}

// Discard removes the transcript at path that Create made, size bytes
// long, when it still is: nothing was added to it since, so the session
// it started never got a turn, and it would only stand in the way (the
// newest session --continue picks, an ID --session-id may not name
// again). It reports whether it removed the file; one that grew is kept,
// whatever it holds. (A writer that appends between the size check and
// the removal, another run resuming the session in that instant, would
// lose its lines; nothing else writes to a session that has no turn.)
func Discard(path string, size int64) (bool, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, fmt.Errorf("transcript: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		return false, nil
	}
	if err := os.Remove(path); err != nil {
		return false, fmt.Errorf("transcript: %w", err)
	}
	return true, nil
}

// Load reads the conversation of the transcript at path (LoadAgent).
func Load(path string) ([]openai.ChatCompletionMessage, error) {
	msgs, _, err := LoadAgent(path)
	return msgs, err
}

// LoadAgent reads the conversation of the transcript at path, and the
// agent its main loop ran as: the one the last entry that names one
// records (an entry written by a gen that recorded none does not undo
// it). A line that is not a transcript entry is an error naming path
// and line, except a torn one, which is skipped (nextEntry). System
// messages are not part of a transcript and are skipped, so the caller
// supplies the system prompt of the resumed run.
func LoadAgent(path string) (msgs []openai.ChatCompletionMessage, agent Agent, err error) {
	f, err := textfile.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Agent{}, fmt.Errorf("no session transcript %s", path)
		}
		return nil, Agent{}, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	n := 0
	for {
		e, err := nextEntry(r, path, &n)
		if errors.Is(err, io.EOF) {
			return msgs, agent, nil
		}
		if err != nil {
			return nil, Agent{}, err
		}
		if e.Agent != "" {
			agent = Agent{Name: e.Agent, Source: e.AgentSource, By: e.AgentBy}
		}
		if e.Type == "session" && e.Message == nil {
			continue
		}
		if e.Message == nil {
			return nil, Agent{}, fmt.Errorf("%s:%d: an entry of type %q without a message", path, n, e.Type)
		}
		switch e.Message.Role {
		case openai.ChatMessageRoleUser, openai.ChatMessageRoleAssistant, openai.ChatMessageRoleTool:
			msgs = append(msgs, *e.Message)
		case openai.ChatMessageRoleSystem:
		default:
			return nil, Agent{}, fmt.Errorf("%s:%d: message role %q", path, n, e.Message.Role)
		}
	}
}

// nextEntry returns the entry on the next line of r that holds one, *n
// counting the lines read; io.EOF when there is none. Blank lines and
// torn ones are skipped: a last line without its newline (one a crash cut
// short), or a line whose JSON ends early (the part a failed write left,
// which the next Append ended with a newline). Other errors name path
// and line.
func nextEntry(r *bufio.Reader, path string, n *int) (Entry, error) {
	for {
		*n++
		line, err := readLine(r)
		if errors.Is(err, io.EOF) {
			return Entry{}, io.EOF
		}
		if err != nil {
			return Entry{}, fmt.Errorf("%s:%d: %w", path, *n, err)
		}
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		e, err := decode(line)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			continue
		}
		if err != nil {
			return Entry{}, fmt.Errorf("%s:%d: %w", path, *n, err)
		}
		return e, nil
	}
}

// decode reads one transcript line. A line holding only the start of a
// JSON value, which a failed write left, is io.ErrUnexpectedEOF.
func decode(line []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimRight(line, "\r\n")))
	if err := dec.Decode(&e); err != nil {
		return Entry{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Entry{}, fmt.Errorf("more after the JSON object")
	}
	return e, nil
}

// readLine returns the next whole line of r, newline included, at most
// MaxLine bytes. A line without a newline at the end of r is io.EOF.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case len(line) > MaxLine:
			return nil, fmt.Errorf("line longer than %d MiB", MaxLine>>20)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return line, err
	}
}

// In reports whether the transcript at path was written in project: its
// first entry's cwd is project or a directory below it. ProjectDir gives
// /a/b-c and /a/b/c one directory, so the file's place does not tell. A
// transcript whose first entry records no cwd, or that has none, is taken
// as project's. Blank and torn lines are skipped, as Load skips them.
func In(path, project string) (bool, error) {
	f, err := textfile.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	n := 0
	e, err := nextEntry(bufio.NewReader(f), path, &n)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return e.Cwd == "" || workspace.Within(e.Cwd, project), nil
}

// Latest returns the ID of the most recently written transcript of
// project (one In it) that holds a message, or ErrNone. One that holds
// none is a session that never got a turn, left behind by a run killed
// before the end that would have discarded it (Discard): there is
// nothing to continue in it, and it must not hide the last real session.
func Latest(home, project string) (string, error) {
	dir := ProjectDir(home, project)
	ents, err := textfile.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNone
	}
	if err != nil {
		return "", err
	}
	type candidate struct {
		id string
		t  time.Time
	}
	var cs []candidate
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || CheckID(id) != nil || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			cs = append(cs, candidate{id, fi.ModTime()})
		}
	}
	// Newest first; the greater ID first among equal times.
	slices.SortFunc(cs, func(a, b candidate) int {
		if c := b.t.Compare(a.t); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	for _, c := range cs {
		path := filepath.Join(dir, c.id+".jsonl")
		if in, err := In(path, project); err == nil && in && !empty(path) {
			return c.id, nil
		}
	}
	return "", ErrNone
}

// empty reports whether the transcript at path holds no message: only
// the line Create starts it with, or nothing. One that cannot be read,
// or holds a line that is not an entry, is not: loading it reports why.
func empty(path string) bool {
	f, err := textfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	n := 0
	for {
		e, err := nextEntry(r, path, &n)
		switch {
		case errors.Is(err, io.EOF):
			return true
		case err != nil || e.Message != nil:
			return false
		}
	}
}
