package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/atomicfile/atomicfiletest"
	"github.com/gen-run/gen/internal/textfile"
)

// helperEnv, when set in the environment of the test binary, makes it add
// the rules it names (path, then rules, separated by newlines) and exit
// instead of running tests: the child processes of TestAddRuleConcurrent.
const helperEnv = "GEN_SETTINGS_TEST_ADDRULE"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		lockTimeout = contentionTimeout
		parts := strings.Split(v, "\n")
		for _, rule := range parts[1:] {
			if err := AddRule(parts[0], "allow", rule); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	// Claude Code's user settings directory, if the developer's shell
	// sets one, is not the tests' home.
	os.Unsetenv(ClaudeConfigEnv)
	os.Exit(m.Run())
}

// contentionTimeout is lockTimeout in the tests of many writers and
// their child processes: they test that no rule is lost, not the bound,
// which the queue of thousands of synced writes may reach on a loaded
// machine (it did, at a load of 8).
const contentionTimeout = 10 * time.Minute

func TestAddRule(t *testing.T) {
	tests := []struct {
		name     string
		existing *string // nil: no file
		list     string
		rule     string
		remove   bool
		want     string // file content afterwards; "" = file absent
		wantErr  string // with {path} for the settings file
	}{
		{
			name: "creates the file and its parents",
			list: "allow", rule: "Read",
			want: "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\"\n    ]\n  }\n}\n",
		},
		{
			name:     "keeps every other key, in order, and appends",
			existing: ptr(`{"model": "x", "permissions": {"deny": ["Edit"], "defaultMode": "auto", "allow": ["Read"], "x": 1}, "hooks": {"a": [1, 2.50, null]}}`),
			list:     "allow", rule: "Bash(a && b > c)",
			want: `{
  "model": "x",
  "permissions": {
    "deny": [
      "Edit"
    ],
    "defaultMode": "auto",
    "allow": [
      "Read",
      "Bash(a && b > c)"
    ],
    "x": 1
  },
  "hooks": {
    "a": [
      1,
      2.50,
      null
    ]
  }
}
`,
		},
		{
			name:     "adds the list when permissions lacks it",
			existing: ptr(`{"permissions": {"allow": ["Read"]}}`),
			list:     "deny", rule: "WebFetch",
			want: "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\"\n    ],\n    \"deny\": [\n      \"WebFetch\"\n    ]\n  }\n}\n",
		},
		{
			name:     "adds permissions when the file lacks it",
			existing: ptr(`{"model": "m"}`),
			list:     "ask", rule: "Bash",
			want: "{\n  \"model\": \"m\",\n  \"permissions\": {\n    \"ask\": [\n      \"Bash\"\n    ]\n  }\n}\n",
		},
		{
			name:     "an empty file counts as an empty object",
			existing: ptr("  \n"),
			list:     "allow", rule: "Read",
			want: "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\"\n    ]\n  }\n}\n",
		},
		{
			name:     "a rule already present is a no-op that leaves the bytes alone",
			existing: ptr(`{"permissions":{"allow":["Read","Edit"]}}`),
			list:     "allow", rule: "Edit",
			want: `{"permissions":{"allow":["Read","Edit"]}}`,
		},
		{
			name:     "invalid JSON is reported and left alone",
			existing: ptr("{\n  \"permissions\": {,\n}"),
			list:     "allow", rule: "Read",
			want:    "{\n  \"permissions\": {,\n}",
			wantErr: `{path}:2:19: invalid character ',' looking for beginning of object key string`,
		},
		{
			name:     "a list of the wrong type is reported and left alone",
			existing: ptr(`{"permissions": {"allow": "Read"}}`),
			list:     "allow", rule: "Edit",
			want:    `{"permissions": {"allow": "Read"}}`,
			wantErr: `{path}: permissions.allow must be an array of strings`,
		},
		{
			name:     "a null list is the wrong type",
			existing: ptr(`{"permissions": {"deny": null}}`),
			list:     "deny", rule: "Edit",
			want:    `{"permissions": {"deny": null}}`,
			wantErr: `{path}: permissions.deny must be an array of strings`,
		},
		{
			name:     "permissions of the wrong type",
			existing: ptr(`{"permissions": []}`),
			list:     "deny", rule: "Edit",
			want:    `{"permissions": []}`,
			wantErr: `{path}: permissions must be an object`,
		},
		{
			name:     "top level of the wrong type",
			existing: ptr(`[]`),
			list:     "deny", rule: "Edit",
			want:    `[]`,
			wantErr: `{path}:1: settings must be a JSON object`,
		},
		{
			name:     "duplicate permissions key",
			existing: ptr(`{"permissions": {}, "permissions": {}}`),
			list:     "deny", rule: "Edit",
			want:    `{"permissions": {}, "permissions": {}}`,
			wantErr: `{path}: duplicate key "permissions" in settings`,
		},
		{
			name: "unknown list",
			list: "permit", rule: "Read",
			wantErr: `settings: unknown rule list "permit" (want allow, ask or deny)`,
		},
		{
			name: "malformed rule is refused before touching the file",
			list: "allow", rule: "Bash(",
			wantErr: `adding to {path}: malformed rule "Bash(": missing closing parenthesis`,
		},
		{
			name:     "remove every occurrence and keep the rest",
			existing: ptr(`{"permissions": {"allow": ["Read", "Edit", "Read"], "deny": ["Read"]}}`),
			list:     "allow", rule: "Read", remove: true,
			want: "{\n  \"permissions\": {\n    \"allow\": [\n      \"Edit\"\n    ],\n    \"deny\": [\n      \"Read\"\n    ]\n  }\n}\n",
		},
		{
			name:     "remove the last rule leaves an empty list",
			existing: ptr(`{"permissions": {"ask": ["Bash"]}}`),
			list:     "ask", rule: "Bash", remove: true,
			want: "{\n  \"permissions\": {\n    \"ask\": []\n  }\n}\n",
		},
		{
			name:     "remove a malformed rule",
			existing: ptr(`{"permissions": {"deny": ["Bash(", "Edit"]}}`),
			list:     "deny", rule: "Bash(", remove: true,
			want: "{\n  \"permissions\": {\n    \"deny\": [\n      \"Edit\"\n    ]\n  }\n}\n",
		},
		{
			name:     "remove a rule that is absent leaves the bytes alone",
			existing: ptr(`{"permissions":{"deny":["Edit"]}}`),
			list:     "deny", rule: "Read", remove: true,
			want: `{"permissions":{"deny":["Edit"]}}`,
		},
		{
			name: "remove from a missing file does not create it",
			list: "deny", rule: "Read", remove: true,
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a", ".gen", "settings.json")
			if tt.existing != nil {
				writeFile(t, path, *tt.existing)
			}
			var err error
			if tt.remove {
				err = RemoveRule(path, tt.list, tt.rule)
			} else {
				err = AddRule(path, tt.list, tt.rule)
			}
			wantErr := strings.ReplaceAll(tt.wantErr, "{path}", path)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != wantErr):
				t.Fatalf("error:\n got %v\nwant %s", err, wantErr)
			}
			got, rerr := os.ReadFile(path)
			if tt.want == "" {
				if rerr == nil {
					t.Fatalf("file was created: %q", got)
				}
				return
			}
			if rerr != nil {
				t.Fatal(rerr)
			}
			if string(got) != tt.want {
				t.Errorf("file:\n got %s\nwant %s", got, tt.want)
			}
			// No temporary files are left behind.
			ents, _ := os.ReadDir(filepath.Dir(path))
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestAddRuleMissingDirectoryForRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	if err := RemoveRule(filepath.Join(dir, "settings.json"), "allow", "Read"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("RemoveRule created the directory")
	}
}

func TestAddRuleKeepsModeAndSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "settings.json")
	writeFile(t, real, `{}`)
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := AddRule(link, "deny", "Read(./.env)"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced by a file")
	}
	fi, err = os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(real)
	if !strings.Contains(string(data), `"Read(./.env)"`) {
		t.Errorf("rule not written through the link: %s", data)
	}
}

func TestAddRuleThenLoad(t *testing.T) {
	l := newLayout(t)
	for _, step := range []struct{ list, rule string }{
		{"allow", "Bash(npm test)"}, {"deny", "Read(./.env)"}, {"ask", "Bash(git push *)"},
	} {
		if err := AddRule(l.local, step.list, step.rule); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Trust: true})
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{entries(s.Allow), entries(s.Deny), entries(s.Ask)}
	want := [][]string{
		{"local:Bash(npm test)@" + l.local},
		{"local:Read(./.env)@" + l.local},
		{"local:Bash(git push *)@" + l.local},
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("got %q, want %q", got[i], want[i])
		}
	}
}

// TestAddRuleConcurrent has goroutines of this process and child processes
// add distinct rules to one file at once; a lost update would drop a rule.
func TestAddRuleConcurrent(t *testing.T) {
	testAddRuleConcurrent(t, 6, 6, 4)
}

// TestAddRuleContention is the load under which a polled lock starved
// writers ("still held after 10s"): 20 goroutines and 5 processes adding
// 100 rules each at once. Not one write may fail, and the lock leaves no
// file behind.
func TestAddRuleContention(t *testing.T) {
	if testing.Short() {
		t.Skip("2,500 synced writes")
	}
	path := testAddRuleConcurrent(t, 20, 5, 100)
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(path) {
			t.Errorf("left next to the settings file: %s", e.Name())
		}
	}
}

// testAddRuleConcurrent runs goroutines and procs child processes adding
// perWorker rules each to one settings file, checks that every rule
// arrived, and returns the file's path.
func testAddRuleConcurrent(t *testing.T, goroutines, procs, perWorker int) string {
	t.Helper()
	defer func(old time.Duration) { lockTimeout = old }(lockTimeout)
	lockTimeout = contentionTimeout
	path := filepath.Join(t.TempDir(), ".gen", "settings.json")
	writeFile(t, path, `{"keep": true}`)
	var want []string
	rules := func(kind string, w int) []string {
		var rs []string
		for i := range perWorker {
			rs = append(rs, fmt.Sprintf("Bash(echo %s%d-%d)", kind, w, i))
		}
		want = append(want, rs...)
		return rs
	}
	var cmds []*exec.Cmd
	for w := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join(append([]string{path}, rules("p", w)...), "\n"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*perWorker)
	for w := range goroutines {
		rs := rules("g", w)
		wg.Go(func() {
			for _, r := range rs {
				if err := AddRule(path, "allow", r); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v: %s", err, cmd.Stderr)
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Keep        bool
		Permissions struct{ Allow []string }
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("file is not valid JSON after concurrent writes: %v\n%s", err, data)
	}
	if !got.Keep {
		t.Error("the other key was lost")
	}
	slices.Sort(want)
	have := slices.Clone(got.Permissions.Allow)
	slices.Sort(have)
	if !slices.Equal(have, want) {
		t.Errorf("rules after concurrent adds: %d, want %d\nmissing or extra: got %q", len(have), len(want), have)
	}
	return path
}

// TestAddRuleSweepsDeadWritersTemp: a writer killed mid-write leaves its
// temporary file; the next rule written to the directory removes it.
func TestAddRuleSweepsDeadWritersTemp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".gen")
	path := filepath.Join(dir, "settings.local.json")
	stale := filepath.Join(dir, atomicfiletest.DeadTempName(t, "settings.local.json"))
	writeFile(t, stale, `{"half": `)
	if err := AddRule(path, "allow", "Bash(ls)"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the dead writer's temporary file is still there: %v", err)
	}
}

// TestAddRuleRefusesDanglingLink: a settings file that is a link to a
// missing file (a dotfiles link whose target is not there yet) was
// replaced by a regular file, so the link was gone and the dotfiles never
// saw the rule. Load refuses such a file; so does a write, naming it,
// and leaves the link as it was.
func TestAddRuleRefusesDanglingLink(t *testing.T) {
	for name, write := range map[string]func(link string) error{
		"AddRule":           func(link string) error { return AddRule(link, "allow", "Read") },
		"AddTrustedProject": func(link string) error { return AddTrustedProject(link, "/p", map[string]string{}) },
	} {
		dir := t.TempDir()
		target := filepath.Join(dir, "dotfiles", "settings.json")
		link := filepath.Join(dir, ".gen", "settings.json")
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		err := write(link)
		if err == nil || !strings.Contains(err.Error(), link+" is a symbolic link to a file that does not exist") {
			t.Errorf("%s: %v, want an error naming the link", name, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced (%v)", name, err)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s: the target was created", name)
		}
	}
}

// TestWriteKeepsUnderLoadLimit: trust records piling up (a CI job that
// trusts each fresh checkout) grew ~/.gen/settings.json past the size
// Load reads, and from then on every gen refused to start. A write whose
// result Load would refuse is refused instead, and the file stays.
func TestWriteKeepsUnderLoadLimit(t *testing.T) {
	l := newLayout(t)
	old := fmt.Sprintf(`{"pad": %q}`, strings.Repeat("x", textfile.Max-20))
	writeFile(t, l.user, old)
	err := AddTrustedProject(l.user, l.root, map[string]string{"GEN.md": "sha256:00"})
	if err == nil || !strings.Contains(err.Error(), l.user) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("AddTrustedProject over the limit: %v, want an error naming the file", err)
	}
	if data, _ := os.ReadFile(l.user); string(data) != old {
		t.Error("the file changed")
	}
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed}); err != nil {
		t.Errorf("the settings no longer load: %v", err)
	}
}
