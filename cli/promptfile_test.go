package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// systemServer is an OpenAI-compatible server that answers "ok" and
// records the system message of each request.
func systemServer(t *testing.T) func() []string {
	t.Helper()
	var mu sync.Mutex
	var systems []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, m := range req.Messages {
			if m.Role == "system" {
				systems = append(systems, m.Content)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return systems
	}
}

// --system-prompt-file and --append-system-prompt-file are Claude Code's
// flags of those names: the prompt text read from a file. A file that is
// missing, empty or not text, or one given beside its text flag, is a
// usage error naming the flag.
func TestPromptFileFlags(t *testing.T) {
	dir := project(t)
	files := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	system := write("system.md", "You are the release bot.\n")
	extra := write("extra.md", "Answer in French.\n")
	systems := systemServer(t)

	code, _, errs := run("-p", "--no-stream", "--cwd", dir, "--system-prompt-file", system, "--append-system-prompt-file", extra, "hello")
	got := systems()
	if code != ExitOK || len(got) != 1 || !strings.HasPrefix(got[0], "You are the release bot.") || !strings.HasSuffix(strings.TrimSpace(got[0]), "Answer in French.") {
		t.Fatalf("gen -p: exit %d, system prompts %q\n%s", code, got, errs)
	}
	code, _, errs = run("agent", "run", "--no-stream", "--cwd", dir, "--type", "test-perm", "--prompt", "hello", "--append-system-prompt-file", extra)
	if got := systems(); code != ExitOK || len(got) != 2 || !strings.HasSuffix(strings.TrimSpace(got[1]), "Answer in French.") {
		t.Fatalf("gen agent run: exit %d, system prompts %q\n%s", code, got, errs)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--system-prompt", "S", "--system-prompt-file", system}, "--system-prompt and --system-prompt-file exclude each other"},
		{[]string{"--append-system-prompt", "A", "--append-system-prompt-file", extra}, "exclude each other"},
		{[]string{"--system-prompt-file", filepath.Join(files, "none.md")}, "--system-prompt-file " + filepath.Join(files, "none.md") + ": no such file"},
		{[]string{"--system-prompt-file", write("empty.md", " \n")}, "the file is empty"},
		{[]string{"--append-system-prompt-file", write("bin", "\xff\xfe")}, "not UTF-8 text"},
		{[]string{"--append-system-prompt-file", files}, "not a regular file"},
		{[]string{"--system-prompt-file", ""}, "--system-prompt-file: empty value"},
		{[]string{"--settings", ""}, "--settings: empty value"},
	} {
		code, _, errs := run(append(append([]string{"-p", "--cwd", dir}, tc.args...), "hello")...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %q; want a usage error saying %q", tc.args, code, errs, tc.want)
		}
	}
	if n := len(systems()); n != 2 {
		t.Errorf("a refused flag still reached the model (%d requests)", n)
	}
}

// --debug api says how each request to the model endpoint went.
func TestDebugAPI(t *testing.T) {
	dir := project(t)
	systemServer(t)
	code, _, errs := run("-p", "--no-stream", "--cwd", dir, "--debug", "api", "hello")
	if code != ExitOK || !strings.Contains(errs, `[debug] api: POST http://127.0.0.1:`) || !strings.Contains(errs, `/v1/chat/completions, model "test-model", attempt 1: ok after`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if code, _, errs := run("-p", "--no-stream", "--cwd", dir, "--debug", "hooks", "hello"); code != ExitOK || strings.Contains(errs, "[debug] api") {
		t.Errorf("--debug hooks: exit %d, stderr %q; want no api lines", code, errs)
	}
}

// A flag given an empty value ("$ID" unset) is a usage error naming it,
// never the same as no flag: a new session where one was to be resumed,
// or a what-if against the real managed settings.
func TestEmptyFlagValues(t *testing.T) {
	dir := project(t)
	for _, args := range [][]string{
		{"-p", "--cwd", dir, "--resume=", "hi"},
		{"-p", "--cwd", dir, "--session-id=", "hi"},
		{"-p", "--cwd", dir, "--agent=", "hi"},
		{"-p", "--cwd=", "hi"},
		{"permissions", "check", "--cwd", dir, "--managed-settings=", "Read(a.txt)"},
		{"permissions", "check", "--cwd", dir, "--main-agent=", "Read(a.txt)"},
		{"agent", "run", "--type", "test-perm", "--prompt", "x", "--cwd="},
		{"skills", "list", "--cwd="},
	} {
		var name string
		for _, a := range args {
			if strings.HasSuffix(a, "=") {
				name = strings.TrimSuffix(a, "=")
			}
		}
		if code, _, errs := run(args...); code != ExitUsage || !strings.Contains(errs, name+": empty value") {
			t.Errorf("%q: exit %d, %q; want a usage error naming %s", args, code, errs, name)
		}
	}
}
