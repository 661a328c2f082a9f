package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/tool"
)

// scripted is a loop.Model that answers the user's prompt with the tool
// calls it holds, verbatim (raw JSON argument strings, as a real model
// would send them), and then ends the turn. Subagents it is handed to end
// at once.
type scripted struct{ calls []rtCall }

type rtCall struct{ tool, args string }

func (m scripted) Complete(_ context.Context, req loop.Request) (loop.Response, error) {
	msgs := req.Messages
	last := msgs[len(msgs)-1]
	if last.Role != openai.ChatMessageRoleUser || !strings.HasPrefix(msgs[0].Content, DefaultSystem) {
		return loop.Response{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "done"}}, nil
	}
	var tcs []openai.ToolCall
	for i, c := range m.calls {
		tcs = append(tcs, openai.ToolCall{
			ID:       fmt.Sprintf("call_%d", i+1),
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.tool, Arguments: c.args},
		})
	}
	return loop.Response{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: tcs}}, nil
}

// rtEnv is one attack's world: a project (root) with a home directory and
// a directory outside both (out), all under one temporary base, and a web
// server on 127.0.0.1 that records every request it gets.
type rtEnv struct {
	base, root, home, out string
	port                  string
	srv                   *httptest.Server
	mu                    sync.Mutex
	hits                  []string // request paths, in order
}

func (e *rtEnv) hit(path string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, h := range e.hits {
		if h == path {
			return true
		}
	}
	return false
}

// expand fills in {ROOT}, {HOME}, {OUT}, {BASE} and {PORT}. In JSON
// arguments the values are plain paths without characters JSON escapes.
func (e *rtEnv) expand(s string) string {
	return strings.NewReplacer("{ROOT}", e.root, "{HOME}", e.home, "{OUT}", e.out, "{BASE}", e.base, "{PORT}", e.port).Replace(s)
}

// rtResult is what happened to one tool call.
type rtResult struct {
	decided  bool
	decision perm.Result
	output   string
	isError  bool
	denied   bool
}

// ran reports whether the gate allowed the call and the tool ran without
// an error.
func (r rtResult) ran() bool { return r.decided && r.decision.Decision == perm.Allow && !r.isError }

type redRow struct {
	name string
	// files are created in the project (path → content); out/... paths
	// go to the outside directory instead.
	files map[string]string
	// settings is .gen/settings.json, with {ROOT} etc. expanded.
	settings string
	mode     perm.Mode
	setup    func(t *testing.T, e *rtEnv)
	calls    []rtCall
	// check asserts on the effect; res holds one entry per call.
	check func(t *testing.T, e *rtEnv, res []rtResult)
}

const (
	secret    = "TOPSECRET-4711"
	denyEnv   = `{"permissions":{"deny":["Read(./.env)","Read(./protected/**)"]}}`
	denyEdits = `{"permissions":{"deny":["Edit(./protected/**)"]}}`
	denyLocal = `{"permissions":{"deny":["WebFetch(domain:localhost)"]}}`
	// allowWeb is a realistic policy: every fetch allowed, one host not.
	allowWeb  = `{"permissions":{"allow":["WebFetch"],"deny":["WebFetch(domain:localhost)"]}}`
	denyLoop4 = `{"permissions":{"deny":["WebFetch(domain:127.0.0.1)"]}}`
	notebook  = `{"cells":[{"cell_type":"code","source":["x = 1\n"],"metadata":{},"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":4}` + "\n"
)

// Checks shared by the rows.

// refused: the call did not run (the gate refused it, or it failed) and
// nothing of the secret reached the model.
func refused(t *testing.T, _ *rtEnv, res []rtResult) {
	t.Helper()
	last := res[len(res)-1]
	if last.ran() {
		t.Errorf("call ran: decision %v (%s), output %q", last.decision.Decision, last.decision.Reason, last.output)
	}
	noSecret(t, nil, res)
}

// gateDenied: the gate itself refused the last call.
func gateDenied(t *testing.T, e *rtEnv, res []rtResult) {
	t.Helper()
	last := res[len(res)-1]
	if !last.denied || last.decision.Decision == perm.Allow {
		t.Errorf("gate did not deny: decision %v (%s), output %q", last.decision.Decision, last.decision.Reason, last.output)
	}
	noSecret(t, e, res)
}

func noSecret(t *testing.T, _ *rtEnv, res []rtResult) {
	t.Helper()
	for i, r := range res {
		if strings.Contains(r.output, secret) {
			t.Errorf("call %d leaked protected content:\n%s", i+1, r.output)
		}
	}
}

// notListed: no protected file name appears in a listing.
func notListed(t *testing.T, e *rtEnv, res []rtResult) {
	t.Helper()
	for i, r := range res {
		if strings.Contains(r.output, "secret.txt") || strings.Contains(r.output, "~notes") || strings.Contains(r.output, ".env") {
			t.Errorf("call %d listed a protected file:\n%s", i+1, r.output)
		}
	}
}

// notFetched: the server never got /secret.
func notFetched(t *testing.T, e *rtEnv, res []rtResult) {
	t.Helper()
	if e.hit("/secret") {
		t.Errorf("the server was asked for /secret although the host is denied; gate: %v (%s); output %q",
			res[len(res)-1].decision.Decision, res[len(res)-1].decision.Reason, res[len(res)-1].output)
	}
	noSecret(t, e, res)
}

// unchanged returns a check that path (relative to the project, or
// absolute) still holds want.
func unchanged(path, want string) func(*testing.T, *rtEnv, []rtResult) {
	return func(t *testing.T, e *rtEnv, res []rtResult) {
		t.Helper()
		p := e.expand(path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.root, p)
		}
		got, err := os.ReadFile(p)
		if err != nil && want != "" {
			t.Errorf("%s: %v", path, err)
		}
		if string(got) != want {
			t.Errorf("%s was changed to %q; last call: %v (%s) %q", path, got, res[len(res)-1].decision.Decision, res[len(res)-1].decision.Reason, res[len(res)-1].output)
		}
	}
}

func absent(path string) func(*testing.T, *rtEnv, []rtResult) {
	return func(t *testing.T, e *rtEnv, res []rtResult) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(e.root, path)); err == nil {
			t.Errorf("%s was created; last call: %v (%s) %q", path, res[len(res)-1].decision.Decision, res[len(res)-1].decision.Reason, res[len(res)-1].output)
		}
	}
}

func both(fs ...func(*testing.T, *rtEnv, []rtResult)) func(*testing.T, *rtEnv, []rtResult) {
	return func(t *testing.T, e *rtEnv, res []rtResult) {
		t.Helper()
		for _, f := range fs {
			f(t, e, res)
		}
	}
}

func symlink(target, link string) func(*testing.T, *rtEnv) {
	return func(t *testing.T, e *rtEnv) {
		t.Helper()
		if err := os.Symlink(e.expand(target), filepath.Join(e.root, link)); err != nil {
			t.Fatal(err)
		}
	}
}

func call(tool, args string) []rtCall { return []rtCall{{tool, args}} }

// readThen reads path first (Write and Edit need it) and then makes c.
func readThen(path string, c rtCall) []rtCall {
	return []rtCall{{"Read", `{"file_path":"` + path + `"}`}, c}
}

// TestRedTeamToolSurface makes tool calls a model controls completely and
// compares what the gate checked with what the tool did. Every row runs in
// a headless session (Ask becomes Deny), mostly in bypassPermissions or
// acceptEdits mode, so that a deny rule is the only thing between the
// model and the effect. Rows marked FAILS are open bypasses.
func TestRedTeamToolSurface(t *testing.T) {
	envFiles := map[string]string{".env": secret + "\n", "protected/secret.txt": secret + "\n", "a.txt": "hello\n"}
	outFiles := map[string]string{"out/secret.txt": secret + "\n", "out/~notes.txt": secret + "\n"}
	globDenyOut := `{"permissions":{"deny":["Glob(/{OUT}/**)","Grep(/{OUT}/**)"]}}`

	rows := []redRow{
		// --- Read: path spellings of a denied file -------------------
		{name: "Read/plain denied path", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":".env"}`), check: gateDenied},
		{name: "Read/dot-dot through a missing directory", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"nope/../.env"}`), check: gateDenied},
		{name: "Read/trailing slash and dot segments", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"./protected/./secret.txt/"}`), check: gateDenied},
		{name: "Read/absolute path", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"{ROOT}/.env"}`), check: gateDenied},
		{name: "Read/through home: ~/../proj/.env", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"~/../proj/.env"}`), check: gateDenied},
		{name: "Read/~user form is a relative name, not a home", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"~root/../.env"}`), check: gateDenied},
		{name: "Read/symlink to denied file", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: symlink("{ROOT}/.env", "innocent.txt"), calls: call("Read", `{"file_path":"innocent.txt"}`), check: gateDenied},
		{name: "Read/symlinked directory into denied tree", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: symlink("{ROOT}/protected", "pub"), calls: call("Read", `{"file_path":"pub/secret.txt"}`), check: gateDenied},
		{name: "Read/symlink then dot-dot (kernel order)", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: func(t *testing.T, e *rtEnv) {
				if err := os.MkdirAll(filepath.Join(e.root, "protected/sub"), 0o755); err != nil {
					t.Fatal(err)
				}
				symlink("{ROOT}/protected/sub", "lnk")(t, e)
			},
			calls: call("Read", `{"file_path":"lnk/../secret.txt"}`), check: refused},
		{name: "Read/NUL byte in path", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":".env\u0000"}`), check: refused},
		{name: "Read/fullwidth dot is another file name", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"\uff0eenv"}`), check: refused},
		{name: "Read/duplicate JSON keys: gate and tool see the last", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"a.txt","file_path":".env"}`), check: gateDenied},
		{name: "Read/alias path is normalised before the gate", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"path":".env"}`), check: gateDenied},
		{name: "Read/canonical key plus conflicting alias is refused", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"a.txt","path":".env"}`), check: refused},
		{name: "Read/array path is refused", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":[".env"]}`), check: refused},
		{name: "Read/object path is refused", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":{"path":".env"}}`), check: refused},
		{name: "Read/very long path", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Read", `{"file_path":"`+strings.Repeat("x/../", 2000)+`.env"}`), check: refused},
		{name: "Read/FIFO does not hang", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: func(t *testing.T, e *rtEnv) {
				if err := syscall.Mkfifo(filepath.Join(e.root, "fifo"), 0o644); err != nil {
					t.Skip("mkfifo:", err)
				}
			},
			calls: call("Read", `{"file_path":"fifo"}`), check: refused},

		// --- Grep ------------------------------------------------------
		{name: "Grep/walk of the project skips Read-denied files", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Grep", `{"pattern":"TOPSECRET"}`), check: noSecret},
		{name: "Grep/glob naming the denied file", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Grep", `{"pattern":"TOPSECRET","path":".","glob":".env"}`), check: noSecret},
		{name: "Grep/path is the denied file", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Grep", `{"pattern":"TOPSECRET","path":".env"}`), check: gateDenied},
		{name: "Grep/path is a symlink to the denied file", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: symlink("{ROOT}/.env", "innocent"), calls: call("Grep", `{"pattern":"TOPSECRET","path":"innocent"}`), check: gateDenied},
		{name: "Grep/path is a symlinked directory into the denied tree", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: symlink("{ROOT}/protected", "pub"), calls: call("Grep", `{"pattern":"TOPSECRET","path":"pub"}`), check: gateDenied},
		{name: "Grep/walk does not follow a symlink to the denied file", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			setup: symlink("{ROOT}/.env", "innocent"), calls: call("Grep", `{"pattern":"TOPSECRET","path":"."}`), check: noSecret},
		{name: "Grep/outside the workspace is asked (headless: denied)", files: outFiles, mode: perm.ModeDefault,
			calls: call("Grep", `{"pattern":"TOPSECRET","path":"../out"}`), check: gateDenied},
		// Was a bypass: a Grep(path) deny rule is checked against the "path" argument only; a walk from a parent directory searches the denied tree (CanRead consults Read rules only).
		{name: "Grep/deny rule on a subtree, walk from its parent", files: envFiles, settings: `{"permissions":{"deny":["Grep(./protected/**)"]}}`, mode: perm.ModeBypass,
			calls: call("Grep", `{"pattern":"TOPSECRET","path":"."}`),
			check: func(t *testing.T, e *rtEnv, res []rtResult) {
				if strings.Contains(res[0].output, "protected/secret.txt") {
					t.Errorf("Grep searched protected/ although Grep(./protected/**) is denied:\n%s", res[0].output)
				}
			}},

		// --- Glob ------------------------------------------------------
		{name: "Glob/project-wide listing hides Read-denied files", files: envFiles, settings: denyEnv, mode: perm.ModeBypass,
			calls: call("Glob", `{"pattern":"**/*"}`), check: notListed},
		{name: "Glob/dot-dot pattern outside the workspace is asked (headless: denied)", files: outFiles, mode: perm.ModeDefault,
			calls: call("Glob", `{"pattern":"../out/*"}`), check: both(gateDenied, notListed)},
		{name: "Glob/absolute pattern into a Glob-denied directory", files: outFiles, settings: globDenyOut, mode: perm.ModeBypass,
			calls: call("Glob", `{"pattern":"{OUT}/*"}`), check: both(gateDenied, notListed)},
		{name: "Glob/path argument into a Glob-denied directory", files: outFiles, settings: globDenyOut, mode: perm.ModeBypass,
			calls: call("Glob", `{"pattern":"*","path":"{OUT}"}`), check: both(gateDenied, notListed)},
		{name: "Glob/walk does not follow a directory symlink out", files: outFiles, mode: perm.ModeDefault,
			setup: symlink("{OUT}", "door"), calls: call("Glob", `{"pattern":"**/*.txt"}`), check: notListed},
		// Was a bypass: perm.literalPrefix (perm/call.go:148) stops at the first backslash, so the gate checks the cwd; doublestar.SplitPattern treats "\*" as a literal and the tool walks Clean(cwd+"/*/../../out") = the denied directory (tool/glob.go:126).
		{name: "Glob/escaped metacharacter hides a dot-dot escape from the gate", files: outFiles, settings: globDenyOut, mode: perm.ModeBypass,
			calls: call("Glob", `{"pattern":"\\*/../../out/*"}`), check: notListed},
		// Was a bypass: the gate ignores "path" for every pattern starting with "~" (perm/call.go:139) but the tool only for "~" and "~/" (tool/glob.go:120), so "~*" is checked in the cwd and walked in path.
		{name: "Glob/tilde-prefixed pattern: gate ignores path, tool walks it", files: outFiles, settings: globDenyOut, mode: perm.ModeBypass,
			calls: call("Glob", `{"pattern":"~*","path":"{OUT}"}`), check: notListed},
		// Was a bypass: a Glob(path) deny rule is checked against the walk's start directory only; files below it are filtered by CanRead, which consults Read rules only.
		{name: "Glob/deny rule on a subtree, walk from its parent", files: envFiles, settings: `{"permissions":{"deny":["Glob(./protected/**)"]}}`, mode: perm.ModeBypass,
			calls: call("Glob", `{"pattern":"**/*.txt"}`), check: notListed},

		// --- Write / Edit / NotebookEdit ------------------------------
		{name: "Write/into a denied tree", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			calls: call("Write", `{"file_path":"protected/new.txt","content":"x"}`), check: both(gateDenied, absent("protected/new.txt"))},
		{name: "Write/dot-dot through a missing directory", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			calls: call("Write", `{"file_path":"nope/../protected/new.txt","content":"x"}`), check: both(gateDenied, absent("protected/new.txt"), absent("nope"))},
		{name: "Write/through a symlinked directory", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			setup: symlink("{ROOT}/protected", "pub"),
			calls: call("Write", `{"file_path":"pub/new.txt","content":"x"}`), check: both(gateDenied, absent("protected/new.txt"))},
		{name: "Write/over a symlink to a denied file", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			setup: symlink("{ROOT}/protected/secret.txt", "lnk"),
			calls: readThen("a.txt", rtCall{"Write", `{"file_path":"lnk","content":"x"}`}), check: unchanged("protected/secret.txt", secret+"\n")},
		{name: "Write/dangling symlink to a denied path is not created through", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			setup: symlink("{ROOT}/protected/new.txt", "dangling"),
			calls: call("Write", `{"file_path":"dangling","content":"x"}`), check: both(refused, absent("protected/new.txt"))},
		{name: "Write/dangling symlink out of the workspace", files: envFiles, mode: perm.ModeAcceptEdits,
			setup: symlink("{OUT}/planted.txt", "dangling"),
			calls: call("Write", `{"file_path":"dangling","content":"x"}`), check: both(refused, unchanged("{OUT}/planted.txt", ""))},
		{name: "Write/to a directory", files: envFiles, mode: perm.ModeAcceptEdits,
			calls: call("Write", `{"file_path":"protected","content":"x"}`), check: both(refused, unchanged("protected/secret.txt", secret+"\n"))},
		{name: "Write/to a FIFO does not hang or replace it", files: envFiles, mode: perm.ModeAcceptEdits,
			setup: func(t *testing.T, e *rtEnv) {
				if err := syscall.Mkfifo(filepath.Join(e.root, "fifo"), 0o644); err != nil {
					t.Skip("mkfifo:", err)
				}
			},
			calls: call("Write", `{"file_path":"fifo","content":"x"}`),
			check: func(t *testing.T, e *rtEnv, res []rtResult) {
				refused(t, e, res)
				if fi, err := os.Lstat(filepath.Join(e.root, "fifo")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
					t.Errorf("fifo was replaced: %v %v", fi, err)
				}
			}},
		{name: "Write/to a device outside the workspace (headless)", files: envFiles, mode: perm.ModeAcceptEdits,
			calls: call("Write", `{"file_path":"/dev/null","content":"x"}`), check: gateDenied},
		{name: "Write/outside the workspace (headless)", files: envFiles, mode: perm.ModeAcceptEdits,
			calls: call("Write", `{"file_path":"../out/new.txt","content":"x"}`), check: both(gateDenied, unchanged("{OUT}/new.txt", ""))},
		{name: "Write/NUL byte in path", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			calls: call("Write", `{"file_path":"protected/secret.txt\u0000","content":"x"}`), check: both(refused, unchanged("protected/secret.txt", secret+"\n"))},
		{name: "Edit/denied file via alias keys", files: envFiles, settings: denyEdits, mode: perm.ModeAcceptEdits,
			calls: call("Edit", `{"file":"protected/secret.txt","old":"TOPSECRET","new":"x"}`), check: both(gateDenied, unchanged("protected/secret.txt", secret+"\n"))},
		{name: "Edit/replace_all with empty old_string is refused", files: envFiles, mode: perm.ModeAcceptEdits,
			calls: readThen("a.txt", rtCall{"Edit", `{"file_path":"a.txt","old_string":"","new_string":"x","replace_all":true}`}), check: both(refused, unchanged("a.txt", "hello\n"))},
		{name: "Edit/replace_all as a string is refused", files: envFiles, mode: perm.ModeAcceptEdits,
			calls: readThen("a.txt", rtCall{"Edit", `{"file_path":"a.txt","old_string":"l","new_string":"L","replace_all":"true"}`}), check: both(refused, unchanged("a.txt", "hello\n"))},
		// Was a bypass: a Write(...) deny rule governs only the Write tool (perm/rulematch.go:74, pathRuleApplies), so Edit rewrites the file the rule protects.
		{name: "Edit/file protected by a Write deny rule", files: envFiles, settings: `{"permissions":{"deny":["Write(./protected/**)"]}}`, mode: perm.ModeAcceptEdits,
			calls: readThen("protected/secret.txt", rtCall{"Edit", `{"file_path":"protected/secret.txt","old_string":"TOPSECRET-4711","new_string":"owned"}`}),
			check: unchanged("protected/secret.txt", secret+"\n")},
		{name: "NotebookEdit/denied notebook via file_path alias", files: map[string]string{"protected/n.ipynb": notebook}, settings: denyEdits, mode: perm.ModeAcceptEdits,
			calls: readThen("protected/n.ipynb", rtCall{"NotebookEdit", `{"file_path":"protected/n.ipynb","edit_mode":"delete","cell_index":0}`}),
			check: unchanged("protected/n.ipynb", notebook)},
		{name: "NotebookEdit/both notebook_path and file_path are refused", files: map[string]string{"protected/n.ipynb": notebook, "ok.ipynb": notebook}, settings: denyEdits, mode: perm.ModeAcceptEdits,
			calls: readThen("ok.ipynb", rtCall{"NotebookEdit", `{"notebook_path":"ok.ipynb","file_path":"protected/n.ipynb","edit_mode":"delete","cell_index":0}`}),
			check: both(refused, unchanged("protected/n.ipynb", notebook), unchanged("ok.ipynb", notebook))},
		{name: "NotebookEdit/symlink to a denied notebook", files: map[string]string{"protected/n.ipynb": notebook}, settings: denyEdits, mode: perm.ModeAcceptEdits,
			setup: symlink("{ROOT}/protected/n.ipynb", "pub.ipynb"),
			calls: readThen("pub.ipynb", rtCall{"NotebookEdit", `{"notebook_path":"pub.ipynb","edit_mode":"delete","cell_index":0}`}),
			check: unchanged("protected/n.ipynb", notebook)},
		{name: "NotebookEdit/symlink to an allowed notebook is not written through", files: map[string]string{"real.ipynb": notebook}, mode: perm.ModeAcceptEdits,
			setup: symlink("{ROOT}/real.ipynb", "pub.ipynb"),
			calls: readThen("pub.ipynb", rtCall{"NotebookEdit", `{"notebook_path":"pub.ipynb","edit_mode":"delete","cell_index":0}`}),
			check: func(t *testing.T, e *rtEnv, res []rtResult) {
				unchanged("real.ipynb", notebook)(t, e, res)
				if fi, err := os.Lstat(filepath.Join(e.root, "pub.ipynb")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the symlink was replaced by a file: %v %v", fi, err)
				}
			}},

		// --- WebFetch ---------------------------------------------------
		{name: "WebFetch/denied host", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://localhost:{PORT}/secret","prompt":"p"}`), check: both(gateDenied, notFetched)},
		{name: "WebFetch/denied host under a bare WebFetch allow (default mode)", settings: allowWeb, mode: perm.ModeDefault,
			calls: call("WebFetch", `{"url":"http://localhost:{PORT}/secret","prompt":"p"}`), check: both(gateDenied, notFetched)},
		{name: "WebFetch/other host under a bare WebFetch allow runs (control)", settings: allowWeb, mode: perm.ModeDefault,
			calls: call("WebFetch", `{"url":"http://127.0.0.1:{PORT}/ok","prompt":"p"}`),
			check: func(t *testing.T, e *rtEnv, res []rtResult) {
				if !res[0].ran() || !e.hit("/ok") {
					t.Errorf("control fetch did not run: %v %q", res[0].decision.Decision, res[0].output)
				}
			}},
		{name: "WebFetch/upper-case host", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"HTTP://LOCALHOST:{PORT}/secret","prompt":"p"}`), check: both(gateDenied, notFetched)},
		{name: "WebFetch/userinfo spelling the allowed host", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://127.0.0.1:{PORT}@localhost:{PORT}/secret","prompt":"p"}`), check: both(gateDenied, notFetched)},
		{name: "WebFetch/leading space", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"  http://localhost:{PORT}/secret","prompt":"p"}`), check: both(gateDenied, notFetched)},
		{name: "WebFetch/backslash authority", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://127.0.0.1:{PORT}\\@localhost:{PORT}/secret","prompt":"p"}`), check: notFetched},
		{name: "WebFetch/percent-encoded host", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://local%68ost:{PORT}/secret","prompt":"p"}`), check: notFetched},
		{name: "WebFetch/file scheme", files: envFiles, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"file://{ROOT}/.env","prompt":"p"}`), check: refused},
		{name: "WebFetch/data scheme", mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"data:text/plain;base64,VE9QU0VDUkVULTQ3MTE=","prompt":"p"}`), check: refused},
		{name: "WebFetch/gopher scheme", mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"gopher://127.0.0.1:{PORT}/_GET%20/secret","prompt":"p"}`), check: both(refused, notFetched)},
		{name: "WebFetch/redirect from an allowed host to a denied one", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://127.0.0.1:{PORT}/to?u=http://localhost:{PORT}/secret","prompt":"p"}`), check: notFetched},
		// Was a bypass: the gate matches the host as written, lower-cased (perm/match.go:65), but net/http maps it with IDNA UTS #46 before dialling, so fullwidth "ｌｏｃａｌｈｏｓｔ" connects to localhost.
		{name: "WebFetch/fullwidth IDN host maps to the denied host", settings: allowWeb, mode: perm.ModeDefault,
			calls: call("WebFetch", `{"url":"http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{PORT}/secret","prompt":"p"}`), check: notFetched},
		// Was a bypass: same root cause; IDNA mapping deletes the soft hyphen U+00AD.
		{name: "WebFetch/soft hyphen inside the denied host", settings: allowWeb, mode: perm.ModeDefault,
			calls: call("WebFetch", `{"url":"http://local\u00adhost:{PORT}/secret","prompt":"p"}`), check: notFetched},
		// Was a bypass: same root cause, reached through a redirect the tool re-checks with the same host matcher (tool/webfetch.go:62).
		{name: "WebFetch/redirect to a fullwidth spelling of the denied host", settings: allowWeb, mode: perm.ModeDefault,
			calls: call("WebFetch", `{"url":"http://127.0.0.1:{PORT}/to?u=http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{PORT}/secret","prompt":"p"}`), check: notFetched},
		// Was a bypass: an IPv4-mapped IPv6 literal is compared as text (perm/match.go:65); the kernel connects it to 127.0.0.1.
		{name: "WebFetch/IPv4-mapped IPv6 literal of a denied IP", settings: denyLoop4, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://[::ffff:127.0.0.1]:{PORT}/secret","prompt":"p"}`), check: notFetched},
		{name: "WebFetch/denied IP literal", settings: denyLoop4, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":"http://127.0.0.1:{PORT}/secret","prompt":"p"}`), check: both(gateDenied, notFetched)},
		{name: "WebFetch/url given as an array", settings: denyLocal, mode: perm.ModeBypass,
			calls: call("WebFetch", `{"url":["http://localhost:{PORT}/secret"],"prompt":"p"}`), check: both(refused, notFetched)},

		// --- Agent --------------------------------------------------------
		{name: "Agent/denied type", settings: `{"permissions":{"deny":["Agent(Explore)"]}}`, mode: perm.ModeBypass,
			calls: call("Agent", `{"subagent_type":"Explore","description":"d","prompt":"p"}`), check: gateDenied},
		{name: "Agent/denied type in another case does not run it", settings: `{"permissions":{"deny":["Agent(Explore)"]}}`, mode: perm.ModeBypass,
			calls: call("Agent", `{"subagent_type":"explore","description":"d","prompt":"p"}`), check: refused},
		{name: "Agent/denied type with a trailing space does not run it", settings: `{"permissions":{"deny":["Agent(Explore)"]}}`, mode: perm.ModeBypass,
			calls: call("Agent", `{"subagent_type":"Explore ","description":"d","prompt":"p"}`), check: refused},
		{name: "Agent/glob metacharacters in the type", settings: `{"permissions":{"deny":["Agent(Explore)"]}}`, mode: perm.ModeBypass,
			calls: call("Agent", `{"subagent_type":"Explor?","description":"d","prompt":"p"}`), check: refused},
	}

	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			e := newRTEnv(t, row)
			res := runRow(t, e, row)
			if len(res) != len(row.calls) {
				t.Fatalf("got %d results for %d calls", len(res), len(row.calls))
			}
			row.check(t, e, res)
		})
	}
}

func newRTEnv(t *testing.T, row redRow) *rtEnv {
	t.Helper()
	files := map[string]string{}
	out := map[string]string{}
	for p, c := range row.files {
		if rest, ok := strings.CutPrefix(p, "out/"); ok {
			out[rest] = c
		} else {
			files[p] = c
		}
	}
	root, home := project(t, files)
	e := &rtEnv{base: filepath.Dir(root), root: root, home: home}
	e.out = filepath.Join(e.base, "out")
	if err := os.MkdirAll(e.out, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range out {
		if err := os.WriteFile(filepath.Join(e.out, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.hits = append(e.hits, r.URL.Path)
		e.mu.Unlock()
		if r.URL.Path == "/to" {
			http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, secret)
	}))
	t.Cleanup(e.srv.Close)
	e.port = e.srv.URL[strings.LastIndexByte(e.srv.URL, ':')+1:]
	if row.settings != "" {
		p := filepath.Join(root, ".gen", "settings.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.expand(row.settings)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if row.setup != nil {
		row.setup(t, e)
	}
	return e
}

// runRow runs the row's calls as one assistant message in a headless
// session and returns what happened to each.
func runRow(t *testing.T, e *rtEnv, row redRow) []rtResult {
	t.Helper()
	var calls []rtCall
	for _, c := range row.calls {
		args := e.expand(c.args)
		if !json.Valid([]byte(args)) && !strings.Contains(row.name, "invalid JSON") {
			t.Fatalf("row arguments are not JSON: %s", args)
		}
		calls = append(calls, rtCall{c.tool, args})
	}
	s, err := New(Config{
		// The rows' settings are the user's own: the project is trusted.
		Settings: settings.Options{Cwd: e.root, Home: e.home, ManagedPath: filepath.Join(e.home, "no-managed.json"), Mode: string(row.mode), Trust: true},
		Model:    scripted{calls: calls},
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	byID := map[string]*rtResult{}
	var order []string
	get := func(id string) *rtResult {
		r, ok := byID[id]
		if !ok {
			r = &rtResult{}
			byID[id] = r
			order = append(order, id)
		}
		return r
	}
	onEvent := func(ev loop.Event) {
		if ev.Parent != "" {
			return // a subagent's own calls
		}
		mu.Lock()
		defer mu.Unlock()
		switch ev.Kind {
		case loop.EventDecision:
			r := get(ev.CallID)
			r.decided, r.decision = true, ev.Result
		case loop.EventToolResult:
			r := get(ev.CallID)
			r.output, r.isError, r.denied = ev.Output, ev.IsError, ev.Denied
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := s.Submit(ctx, "go", onEvent, nil); err != nil {
		t.Fatalf("Submit: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var res []rtResult
	for _, id := range order {
		res = append(res, *byID[id])
	}
	return res
}

// A repository's memory file linked to a file the user keeps from Read
// (AGENTS.md -> .env under Read(./.env)) does not put that file in the
// system prompt: the session refuses to start, naming the memory file.
// Without the rule the same link is read.
func TestMemoryLinkToDeniedFile(t *testing.T) {
	root, home := project(t, map[string]string{".env": "API_KEY=hunter2"})
	if err := os.Symlink(".env", filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Settings: settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "no-managed.json")},
		Model:    scripted{},
	}
	if _, err := New(cfg); err != nil {
		t.Fatalf("no deny rule: %v", err)
	}
	if err := settings.AddRule(settings.UserPath(home), "deny", "Read(./.env)"); err != nil {
		t.Fatal(err)
	}
	_, err := New(cfg)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "AGENTS.md")) || !strings.Contains(err.Error(), "Read(./.env)") {
		t.Fatalf("New = %v; want the memory file refused, naming it and the rule", err)
	}
}

// TestSearchHidesSessionDenied: a deny rule added to the session (a
// PermissionRequest hook's updatedPermissions, an approver's answer)
// hides files from Glob and Grep as it denies Read, and Bash's sandbox
// hides them too: the search tools' filter is the gate's policy with the
// rules added to it, not the settings' alone.
func TestSearchHidesSessionDenied(t *testing.T) {
	root, home := project(t, map[string]string{"secrets/k": "KEYX\n", "src/a": "plain\n"})
	s := newSession(t, root, home, offline.New(), nil, nil)
	tools := s.box.Tools()
	r, err := perm.ParseRule("Read(./secrets/**)")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.gate.AddRules(gate.Rules{Deny: []perm.Rule{r}}); err != nil {
		t.Fatal(err)
	}
	if res := s.Check(context.Background(), perm.Request{Tool: "Read", Input: map[string]any{"file_path": "secrets/k"}}); res.Decision != perm.Deny {
		t.Fatalf("Read secrets/k: %v, want Deny", res.Decision)
	}
	for _, tl := range tools {
		var in map[string]any
		switch tl.Name() {
		case "Grep":
			in = map[string]any{"pattern": "KEYX"}
		case "Glob":
			in = map[string]any{"pattern": "**"}
		default:
			continue
		}
		out, err := tl.Run(context.Background(), tool.Call{Input: in})
		if err != nil {
			t.Fatalf("%s: %v", tl.Name(), err)
		}
		if strings.Contains(out, "KEYX") || strings.Contains(out, "secrets/k") {
			t.Errorf("%s shows a file a session deny rule covers:\n%s", tl.Name(), out)
		}
		if tl.Name() == "Glob" && !strings.Contains(out, "src/a") {
			t.Errorf("Glob hides everything:\n%s", out)
		}
	}
	if hidden := s.env.Confine().Hidden; !slices.ContainsFunc(hidden, func(h string) bool { return strings.Contains(h, "secrets") }) {
		t.Errorf("the sandbox hides %q, not the session's denied secrets", hidden)
	}
}
