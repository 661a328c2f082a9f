package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/internal/mcptest"
	"github.com/gen-run/gen/internal/proctest"
	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/settings"
)

// mcpConfig writes {"mcpServers": entries} to dir/name and returns its
// path; entries maps a server name to its JSON entry.
func mcpConfig(t *testing.T, dir, name string, entries map[string]string) string {
	t.Helper()
	var parts []string
	for n, e := range entries {
		parts = append(parts, fmt.Sprintf("%q: %s", n, e))
	}
	slices.Sort(parts)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`+strings.Join(parts, ", ")+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// events parses stream-json output into its lines.
func events(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		evs = append(evs, v)
	}
	return evs
}

// results returns the tool results of stream-json events as "TOOL ->
// OUTPUT", in order: each user event's tool_result block, named by the
// assistant tool_use block with the same id (Claude Code's shapes).
func results(evs []map[string]any) []string {
	blocks := func(e map[string]any) []map[string]any {
		msg, _ := e["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		var out []map[string]any
		for _, c := range content {
			if b, ok := c.(map[string]any); ok {
				out = append(out, b)
			}
		}
		return out
	}
	names := map[any]any{}
	var out []string
	for _, e := range evs {
		for _, b := range blocks(e) {
			switch {
			case e["type"] == "assistant" && b["type"] == "tool_use":
				names[b["id"]] = b["name"]
			case e["type"] == "user" && b["type"] == "tool_result":
				out = append(out, fmt.Sprintf("%s -> %s", names[b["tool_use_id"]], b["content"]))
			}
		}
	}
	return out
}

func gen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code     int
		out, err string
	}
	ch := make(chan res, 1)
	go func() {
		c, o, e := run(args...)
		ch <- res{c, o, e}
	}()
	select {
	case r := <-ch:
		return r.code, r.out, r.err
	case <-time.After(60 * time.Second):
		t.Fatalf("gen %v: still running after 60 s", args)
		panic("unreachable")
	}
}

// MCP tools reach the model over the wire as mcp__SERVER__TOOL with the
// server's schema, stdio and HTTP alike, and an allowed call runs.
func TestMCPToolsOnTheWire(t *testing.T) {
	dir := project(t)
	model := testmodel.New(t, offline.New())
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	cfg := mcpConfig(t, dir, "cfg.json", map[string]string{
		"local":  mcptest.StdioEntry("ok"),
		"remote": mcptest.HTTPEntry(mcptest.Serve(t, mcptest.Tools(nil))),
	})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--output-format", "stream-json", "--mcp-config", cfg,
		"--allowedTools", "mcp__local__echo", "--allowedTools", "mcp__remote", "--",
		`Call mcp__local__echo: {"text": "one"}`+"\n"+`Call mcp__remote__echo: {"text": "two"}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	var echo map[string]any
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Function.Name)
		if tl.Function.Name == "mcp__remote__echo" {
			b, _ := json.Marshal(tl.Function)
			json.Unmarshal(b, &echo)
		}
	}
	for _, want := range []string{"Read", "Bash", "mcp__local__echo", "mcp__local__pid", "mcp__remote__echo", "mcp__remote__crash"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools sent to the model lack %s: %v", want, names)
		}
	}
	params, _ := echo["parameters"].(map[string]any)
	props, _ := params["properties"].(map[string]any)
	if echo["description"] != "Echo the text back." || props["text"] == nil {
		t.Errorf("mcp__remote__echo on the wire: %v", echo)
	}
	evs := events(t, out)
	if got := results(evs); !slices.Equal(got, []string{"mcp__local__echo -> echo: one", "mcp__remote__echo -> echo: two"}) {
		t.Errorf("results = %q", got)
	}
	init := evs[0]
	tools, _ := init["tools"].([]any)
	if init["type"] != "system" || init["subtype"] != "init" || !slices.Contains(tools, any("mcp__remote__echo")) {
		t.Errorf("init = %v", init)
	}
	if sv, _ := json.Marshal(init["mcp_servers"]); string(sv) != `[{"name":"local","status":"connected"},{"name":"remote","status":"connected"}]` {
		t.Errorf("init mcp_servers = %s", sv)
	}
}

// Each rule form allows; without a rule a call is Ask, which is Deny
// headless (the readOnlyHint of echo changes nothing). Each deny form
// hides the tool from the model (policy.ShowsMCP) and a call of it is
// refused without reaching the server; package mcp's TestGuardedTool
// checks the gate's denial by each form for a tool that is called anyway.
func TestMCPRuleForms(t *testing.T) {
	dir := project(t)
	cfg := mcpConfig(t, dir, "cfg.json", map[string]string{"srv": mcptest.StdioEntry("ok")})
	call := `Call mcp__srv__echo: {"text": "x"}`
	cases := []struct {
		name  string
		rules []string
		code  int
		want  string
	}{
		{"no rule: Ask is Deny headless", nil, 3, "mcp__srv__echo -> DENIED: "},
		{"allow exact", []string{"--allowedTools", "mcp__srv__echo"}, 0, "mcp__srv__echo -> echo: x"},
		{"allow server", []string{"--allowedTools", "mcp__srv"}, 0, "mcp__srv__echo -> echo: x"},
		{"allow glob", []string{"--allowedTools", "MCP(mcp__srv__*)"}, 0, "mcp__srv__echo -> echo: x"},
		{"allow other tool", []string{"--allowedTools", "mcp__srv__pid"}, 3, "mcp__srv__echo -> DENIED: "},
		{"deny exact", []string{"--allowedTools", "mcp__srv", "--disallowedTools", "mcp__srv__echo"}, 0, `mcp__srv__echo -> ERROR: tool "mcp__srv__echo" is not available`},
		{"deny server", []string{"--allowedTools", "mcp__srv__echo", "--disallowedTools", "mcp__srv"}, 0, `mcp__srv__echo -> ERROR: tool "mcp__srv__echo" is not available`},
		{"deny glob", []string{"--allowedTools", "mcp__srv", "--disallowedTools", "MCP(mcp__srv__ec*)"}, 0, `mcp__srv__echo -> ERROR: tool "mcp__srv__echo" is not available`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg}, tc.rules...)
			code, out, errs := gen(t, append(args, "--", call)...)
			evs := events(t, out)
			got := results(evs)
			if code != tc.code || len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Fatalf("exit %d, results %q; want exit %d, %q\n%s", code, got, tc.code, tc.want, errs)
			}
			tools, _ := evs[0]["tools"].([]any)
			if hidden := strings.Contains(tc.want, "not available"); hidden == slices.Contains(tools, any("mcp__srv__echo")) {
				t.Errorf("init tools %v (echo should be hidden: %v)", tools, hidden)
			}
		})
	}
}

// A server that never answers initialize is reported on stderr and in the
// init event, naming it, and the run goes on without it; a server that
// crashes mid-call fails that call only; servers are stopped and reaped
// with the run.
func TestMCPRobustness(t *testing.T) {
	dir := project(t)
	t.Setenv("MCP_TIMEOUT", "5000") // long enough for the other servers to start on a loaded machine
	cfg := mcpConfig(t, dir, "cfg.json", map[string]string{
		"mute":  mcptest.StdioEntry("silent"),
		"srv":   mcptest.StdioEntry("ok"),
		"other": mcptest.StdioEntry("ok"),
	})
	prompt := "Call mcp__other__pid: {}\nCall mcp__srv__crash: {}\nCall mcp__srv__echo: {\"text\": \"after\"}\nRead: a.txt"
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg, "--allowedTools", "mcp__srv", "--allowedTools", "mcp__other", "--", prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, `MCP server "mute": no answer within 5s`) || !strings.Contains(errs, "goes on without its tools") {
		t.Errorf("stderr does not report the silent server: %s", errs)
	}
	evs := events(t, out)
	var mute map[string]any
	for _, s := range evs[0]["mcp_servers"].([]any) {
		if m := s.(map[string]any); m["name"] == "mute" {
			mute = m
		}
	}
	if mute["status"] != "failed" || !strings.Contains(fmt.Sprint(mute["error"]), `MCP server "mute"`) {
		t.Errorf("init event: mute = %v", mute)
	}
	got := results(evs)
	if len(got) != 4 || !strings.HasPrefix(got[1], "mcp__srv__crash -> ERROR: ") || !strings.HasPrefix(got[2], "mcp__srv__echo -> ERROR: ") || !strings.HasPrefix(got[3], "Read -> ") {
		t.Errorf("results = %q", got)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(got[0], "mcp__other__pid -> "))
	if err != nil {
		t.Fatalf("pid result %q", got[0])
	}
	if proctest.Alive(pid) {
		t.Errorf("server process %d outlived the run", pid)
	}
}

// A project's .mcp.json starts only in a trusted project; gen mcp list
// shows servers, sources, status and tools.
func TestMCPProjectTrustAndList(t *testing.T) {
	dir := project(t)
	mcpConfig(t, dir, ".mcp.json", map[string]string{"proj": mcptest.StdioEntry("ok")})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--allowedTools", "mcp__proj", "--", `Call mcp__proj__echo: {"text": "x"}`)
	if code != 0 || !strings.Contains(errs, "ignoring project MCP servers") || strings.Count(errs, "ignoring project MCP servers") != 1 || !strings.Contains(out, "not available") {
		t.Errorf("untrusted: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = gen(t, "-p", "--cwd", dir, "--trust", "--model", "offline", "--output-format", "stream-json", "--allowedTools", "mcp__proj", "--", `Call mcp__proj__echo: {"text": "x"}`)
	if got := results(events(t, out)); code != 0 || !slices.Equal(got, []string{"mcp__proj__echo -> echo: x"}) {
		t.Errorf("trusted: exit %d, %q\n%s", code, got, errs)
	}

	code, out, errs = gen(t, "mcp", "list", "--cwd", dir)
	if code != 0 || !strings.Contains(out, "proj") || !strings.Contains(out, "untrusted") {
		t.Errorf("list untrusted: exit %d\n%s\n%s", code, out, errs)
	}
	user := filepath.Join(dir, ".gen", "settings.json") // HOME is dir: this is the user file
	if err := os.WriteFile(user, []byte(`{"mcpServers": {"mine": `+mcptest.StdioEntry("ok")+`, "dead": {"command": "/nonexistent/server"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = gen(t, "mcp", "list", "--cwd", dir, "--trust", "--mcp-config", `{"mcpServers": {"inline": `+mcptest.StdioEntry("ok")+`}}`)
	for _, want := range []string{
		"NAME", "inline  cli", "mine    user (" + user + ")", "connected", "mcp__mine__echo, mcp__mine__hang, mcp__mine__pid",
		"proj    project (" + filepath.Join(dir, ".mcp.json") + ")", `dead: MCP server "dead": starting /nonexistent/server`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s\n%s", want, out, errs)
		}
	}
	if code != 0 {
		t.Errorf("list: exit %d", code)
	}
	// A bad entry is an error naming file and line.
	if err := os.WriteFile(user, []byte("{\n\"mcpServers\": {\n  \"x\": {\"command\": \"a\", \"url\": \"b\"}}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = gen(t, "mcp", "list", "--cwd", dir)
	if code != 2 || !strings.Contains(errs, user+":3:") {
		t.Errorf("bad settings: exit %d, %s", code, errs)
	}
}

// A relative --mcp-config file is taken from the directory gen was
// started in, not from --cwd (readJSONFlag): the project's file of the
// same name would start its servers without the project's trust. One
// that is not there is a usage error naming the flag and the file, before
// a run waits for a prompt.
func TestMCPConfigRelative(t *testing.T) {
	dir := project(t)
	shell := t.TempDir()
	// Servers whose command does not exist: listed, never started.
	mcpConfig(t, shell, "cfg.json", map[string]string{"fromshell": `{"command": "/nonexistent/fromshell"}`})
	mcpConfig(t, dir, "cfg.json", map[string]string{"fromproject": `{"command": "/nonexistent/fromproject"}`})
	mcpConfig(t, dir, "only.json", map[string]string{"onlyproject": `{"command": "/nonexistent/onlyproject"}`})
	t.Chdir(shell)
	code, out, errs := gen(t, "mcp", "list", "--cwd", dir, "--strict-mcp-config", "--mcp-config", "cfg.json")
	if code != 0 || !strings.Contains(out, "fromshell") || strings.Contains(out, "fromproject") {
		t.Errorf("mcp list --cwd %s --mcp-config cfg.json: exit %d\n%s%s\nwant the servers of %s only", dir, code, out, errs, filepath.Join(shell, "cfg.json"))
	}
	want := "--mcp-config " + filepath.Join(shell, "only.json") + ": no such file or directory (a relative name is taken from the directory gen was started in)"
	for _, args := range [][]string{
		{"mcp", "list", "--cwd", dir, "--mcp-config", "only.json"},
		{"-p", "--cwd", dir, "--model", "offline", "--mcp-config", "only.json", "--", "Read: a.txt"},
	} {
		code, _, errs := gen(t, args...)
		if code != ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("gen %q: exit %d, stderr %s\nwant exit %d with %q", args, code, errs, ExitUsage, want)
		}
	}
}

// A .mcp.json that is a dangling link is an error naming it, not "no
// project servers", as a settings file that is one is.
func TestMCPDanglingConfig(t *testing.T) {
	dir := project(t)
	link := filepath.Join(dir, ".mcp.json")
	if err := os.Symlink("servers.json", link); err != nil {
		t.Fatal(err)
	}
	want := link + " is a symbolic link to a file that does not exist"
	for _, args := range [][]string{
		{"mcp", "list", "--cwd", dir},
		{"mcp", "list", "--cwd", dir, "--trust"},
		{"-p", "--cwd", dir, "--model", "offline", "--", "Read: a.txt"},
	} {
		code, _, errs := gen(t, args...)
		if code == 0 || !strings.Contains(errs, want) {
			t.Errorf("gen %q: exit %d, stderr %s\nwant an error with %q", args, code, errs, want)
		}
	}
	// --strict-mcp-config does not read .mcp.json.
	if code, _, errs := gen(t, "mcp", "list", "--cwd", dir, "--strict-mcp-config"); code != 0 {
		t.Errorf("--strict-mcp-config: exit %d, %s", code, errs)
	}
}

// writeAgent writes an agent definition into the project.
func writeAgent(t *testing.T, dir, name, front string) {
	t.Helper()
	path := filepath.Join(dir, ".gen", "agents", name+".md")
	if err := os.WriteFile(path, []byte("---\nname: "+name+"\ndescription: test agent "+name+"\n"+front+"---\nDo what you are told.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// delegateProject is a project with an approver HTTP server configured as
// server "perm" in cfg.json, answering with answer.
func delegateProject(t *testing.T, answer func(mcptest.Request) string) (dir, cfg string, ap *mcptest.Approver) {
	dir = project(t)
	ap = &mcptest.Approver{Answer: answer}
	cfg = mcpConfig(t, dir, "cfg.json", map[string]string{
		"perm": mcptest.HTTPEntry(mcptest.Serve(t, ap.Server())),
		"srv":  mcptest.StdioEntry("ok"),
	})
	return dir, cfg, ap
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// The permission-prompt tool answers what gen -p would have denied: its
// allow runs the call, its deny denies with its message, it is never asked
// about a call the policy denies, and a failing tool means Deny.
func TestDelegateHeadless(t *testing.T) {
	answer := `{"behavior":"allow"}`
	dir, cfg, ap := delegateProject(t, func(r mcptest.Request) string {
		if r.Input["command"] == "touch fails" {
			return ""
		}
		if r.Input["command"] == "touch refused" {
			return `{"behavior":"deny","message":"not this one"}`
		}
		return answer
	})
	prompt := strings.Join([]string{
		"Run bash: touch allowed.txt",
		"Run bash: touch refused",
		"Run bash: touch denied-by-rule.txt",
		"Run bash: touch fails",
		`Call mcp__srv__echo: {"text": "via delegate"}`,
	}, "\n")
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--disallowedTools", "Bash(touch denied*)", "--permission-prompt-tool", "mcp__perm__approve", prompt)
	got := results(events(t, out))
	if code != 3 || len(got) != 5 {
		t.Fatalf("exit %d, %q\n%s", code, got, errs)
	}
	if !strings.HasPrefix(got[0], "Bash -> (no output)") || !exists(dir, "allowed.txt") {
		t.Errorf("allowed: %q", got[0])
	}
	if !strings.Contains(got[1], "DENIED: denied by the permission-prompt tool mcp__perm__approve: not this one") {
		t.Errorf("deny answer: %q", got[1])
	}
	if !strings.Contains(got[2], "DENIED: ") || !strings.Contains(got[2], "deny rule Bash(touch denied*)") || exists(dir, "denied-by-rule.txt") {
		t.Errorf("deny rule: %q", got[2])
	}
	if !strings.Contains(got[3], "DENIED: permission-prompt tool mcp__perm__approve failed") {
		t.Errorf("failing tool: %q", got[3])
	}
	if got[4] != "mcp__srv__echo -> echo: via delegate" {
		t.Errorf("MCP tool through the delegate: %q", got[4])
	}
	var asked []string
	for _, c := range ap.Calls() {
		asked = append(asked, c.ToolName+" "+fmt.Sprint(c.Input["command"])+" "+c.ToolUseID+" agent="+c.Agent)
	}
	want := []string{"Bash touch allowed.txt call_1 agent=", "Bash touch refused call_2 agent=", "Bash touch fails call_4 agent=", "mcp__srv__echo <nil> call_5 agent="}
	if !slices.Equal(asked, want) {
		t.Errorf("the delegate was asked\n%q\nwant\n%q", asked, want)
	}
}

// updatedInput is a new call: a rewrite into a denied command is denied;
// a rewrite that is allowed runs instead of the original.
func TestDelegateUpdatedInputHeadless(t *testing.T) {
	dir, cfg, _ := delegateProject(t, func(r mcptest.Request) string {
		switch r.Input["command"] {
		case "touch a.out":
			return `{"behavior":"allow","updatedInput":{"command":"rm -rf a.txt"}}`
		case "touch b.out":
			return `{"behavior":"allow","updatedInput":{"command":"touch rewritten.txt"}}`
		}
		return `{"behavior":"allow"}`
	})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--disallowedTools", "Bash(rm:*)", "--permission-prompt-tool", "mcp__perm__approve", "Run bash: touch a.out\nRun bash: touch b.out")
	got := results(events(t, out))
	if code != 3 || len(got) != 2 {
		t.Fatalf("exit %d, %q\n%s", code, got, errs)
	}
	if !strings.Contains(got[0], "rewritten call is denied") || !exists(dir, "a.txt") {
		t.Errorf("rewrite to rm: %q", got[0])
	}
	if !exists(dir, "rewritten.txt") || exists(dir, "b.out") {
		t.Errorf("rewrite to touch rewritten.txt: %q; rewritten %v, original %v", got[1], exists(dir, "rewritten.txt"), exists(dir, "b.out"))
	}
}

// "Always allow" answers hold for the rest of the run for the agent that
// got them only: the main loop and two subagents, each asked once for its
// own calls.
func TestDelegateSessionRulesPerAgentHeadless(t *testing.T) {
	always := `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"session"}]}`
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return always })
	writeAgent(t, dir, "alpha", "mode: default\n")
	writeAgent(t, dir, "beta", "mode: default\n")
	prompt := strings.Join([]string{
		"Run bash: touch m1",
		"Delegate alpha: Run bash: touch a1",
		"Run bash: touch m2",
		"Delegate beta: Run bash: touch b1",
		"Run bash: touch m3",
		"Delegate alpha: Run bash: touch a2",
	}, "\n")
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--permission-prompt-tool", "mcp__perm__approve", prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, f := range []string{"m1", "a1", "m2", "b1", "m3", "a2"} {
		if !exists(dir, f) {
			t.Errorf("%s was not made", f)
		}
	}
	var asked []string
	for _, c := range ap.Calls() {
		if c.ToolName == "Bash" { // the main loop's Agent calls are asked about too
			asked = append(asked, fmt.Sprintf("%s:%s", c.Agent, c.Input["command"]))
		}
	}
	if want := []string{":touch m1", "alpha:touch a1", "beta:touch b1"}; !slices.Equal(asked, want) {
		t.Errorf("the delegate was asked %q, want %q", asked, want)
	}
}

// gen agent run: the agent sees an MCP tool only if its allow_tools name
// it, and it asks the delegate under its own name.
func TestAgentRunMCP(t *testing.T) {
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return `{"behavior":"allow"}` })
	writeAgent(t, dir, "tooled", "mode: default\nallow_tools:\n  - mcp__srv__echo\n")
	writeAgent(t, dir, "plain", "mode: default\n")
	echo := `Call mcp__srv__echo: {"text": "x"}`
	code, out, errs := gen(t, "agent", "run", "--cwd", dir, "--type", "tooled", "--output-format", "stream-json", "--mcp-config", cfg, "--prompt", echo)
	evs := events(t, out)
	got := results(evs)
	if code != 0 || len(got) != 1 || got[0] != "mcp__srv__echo -> echo: x" {
		t.Fatalf("tooled: exit %d, %q\n%s", code, got, errs)
	}
	if tools, _ := evs[0]["tools"].([]any); !slices.Contains(tools, any("mcp__srv__echo")) || slices.Contains(tools, any("mcp__srv__pid")) {
		t.Errorf("tooled init tools: %v", tools)
	}
	code, out, errs = gen(t, "agent", "run", "--cwd", dir, "--type", "plain", "--output-format", "stream-json", "--mcp-config", cfg,
		"--permission-prompt-tool", "mcp__perm__approve", "--prompt", echo+"\nRun bash: touch t.txt")
	got = results(events(t, out))
	if code != 0 || len(got) != 2 || !strings.Contains(got[0], "is not available") || !exists(dir, "t.txt") {
		t.Errorf("plain: exit %d, %q\n%s", code, got, errs)
	}
	calls := ap.Calls()
	if len(calls) != 1 || calls[0].Agent != "plain" || calls[0].Input["command"] != "touch t.txt" {
		t.Errorf("delegate calls: %+v", calls)
	}
}

// Progressive disclosure: over the threshold the model sees the built-ins
// and the two meta-tools; a loaded group's schemas are sent from the next
// turn; loading allows nothing.
func TestMCPProgressiveDisclosure(t *testing.T) {
	dir := project(t)
	model := testmodel.New(t, offline.New())
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("GEN_MODEL", "test-model")
	t.Setenv("GEN_MCP_TOOL_THRESHOLD", "16")
	cfg := mcpConfig(t, dir, "cfg.json", map[string]string{"srv": mcptest.StdioEntry("ok")})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--output-format", "stream-json", "--mcp-config", cfg, "--",
		"Call ListToolGroups: {}\n"+`Call LoadToolGroup: {"group": "srv"}`+"\n"+`Call mcp__srv__echo: {"text": "x"}`)
	got := results(events(t, out))
	if code != 3 || len(got) != 3 || !strings.Contains(got[0], "srv: 4 tools (crash, echo, hang, pid)") || !strings.Contains(got[2], "DENIED: ") {
		t.Fatalf("exit %d, %q\n%s", code, got, errs)
	}
	names := func(i int) []string {
		var out []string
		for _, tl := range model.Requests()[i].Tools {
			out = append(out, tl.Function.Name)
		}
		return out
	}
	first, third := names(0), names(2)
	if !slices.Contains(first, "ListToolGroups") || !slices.Contains(first, "LoadToolGroup") || slices.Contains(first, "mcp__srv__echo") || !slices.Contains(first, "Bash") {
		t.Errorf("first turn tools: %v", first)
	}
	if !slices.Contains(third, "mcp__srv__echo") || !slices.Contains(third, "mcp__srv__pid") {
		t.Errorf("tools after loading: %v", third)
	}
}

// Seed 001's command line with claude replaced by gen: --verbose,
// variadic --allowedTools and the prompt after --. A headless agent whose
// tool calls the policy would ask about is answered by the orchestrator's
// permission-prompt tool instead of hanging or being denied, and the
// stream is Claude Code's, with the MCP servers in the init event.
func TestSeed001CommandLine(t *testing.T) {
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return `{"behavior":"allow"}` })
	code, out, errs := gen(t, "--print", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--verbose",
		"--mcp-config", cfg, "--permission-mode", "acceptEdits",
		"--allowedTools", "mcp__srv__echo", "Bash(git status)",
		"--permission-prompt-tool", "mcp__perm__approve", "--",
		"Write notes.txt: hi\n"+`Call mcp__srv__echo: {"text": "x"}`+"\nRun bash: git status\nRun bash: touch x.txt")
	evs := events(t, out)
	got := results(evs)
	if code != 0 || len(got) != 4 || !exists(dir, "notes.txt") || !exists(dir, "x.txt") {
		t.Fatalf("exit %d, %q\n%s", code, got, errs)
	}
	if got[1] != "mcp__srv__echo -> echo: x" {
		t.Errorf("allowed MCP call: %q", got[1])
	}
	if calls := ap.Calls(); len(calls) != 1 || calls[0].Input["command"] != "touch x.txt" {
		t.Errorf("the delegate was asked %+v; want only about touch x.txt", calls)
	}
	init, last := evs[0], evs[len(evs)-1]
	if init["type"] != "system" || init["subtype"] != "init" || init["permissionMode"] != "acceptEdits" || init["session_id"] == "" {
		t.Errorf("init = %v", init)
	}
	if sv, _ := json.Marshal(init["mcp_servers"]); string(sv) != `[{"name":"perm","status":"connected"},{"name":"srv","status":"connected"}]` {
		t.Errorf("init mcp_servers = %s", sv)
	}
	if last["type"] != "result" || last["subtype"] != "success" || last["session_id"] != init["session_id"] {
		t.Errorf("result = %v", last)
	}
}

// --mcp-config is variadic like Claude Code's: one flag takes several
// values, each a file or a JSON string, up to the next flag or --. A
// prompt it took by mistake names no file: a usage error that says so,
// before anything waits for stdin.
func TestMCPConfigVariadic(t *testing.T) {
	dir := project(t)
	a := mcpConfig(t, dir, "a.json", map[string]string{"a": mcptest.StdioEntry("ok")})
	inline := `{"mcpServers": {"b": ` + mcptest.StdioEntry("ok") + `}}`
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json",
		"--mcp-config", a, inline, "--allowedTools", "mcp__a", "mcp__b", "--",
		"Call mcp__a__echo: {\"text\": \"1\"}\nCall mcp__b__echo: {\"text\": \"2\"}")
	evs := events(t, out)
	if got := results(evs); code != 0 || !slices.Equal(got, []string{"mcp__a__echo -> echo: 1", "mcp__b__echo -> echo: 2"}) {
		t.Fatalf("exit %d, %q\n%s", code, got, errs)
	}
	if sv, _ := json.Marshal(evs[0]["mcp_servers"]); string(sv) != `[{"name":"a","status":"connected"},{"name":"b","status":"connected"}]` {
		t.Errorf("init mcp_servers = %s", sv)
	}

	// The prompt taken as a configuration; stdin is a pipe nobody writes
	// to, which would hang a run that waited for it.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard: waiting ends in exit 1
	defer cancel()
	var stdout, stderr strings.Builder
	code = Run(ctx, []string{"-p", "--cwd", dir, "--model", "offline", "--mcp-config", a, "Read: a.txt"},
		Streams{In: pr, Out: &stdout, Err: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), "--mcp-config") || !strings.Contains(stderr.String(), "Read: a.txt") || !strings.Contains(stderr.String(), "end the list with --") {
		t.Errorf("prompt taken by --mcp-config: exit %d\n%s", code, stderr.String())
	}
}

// --permission-prompt-tool must name a configured server's tool, and is
// for headless runs only.
func TestPermissionPromptToolErrors(t *testing.T) {
	dir, cfg, _ := delegateProject(t, func(mcptest.Request) string { return `{"behavior":"allow"}` })
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "--permission-prompt-tool", "approve", "x"}, "want an MCP tool name"},
		{[]string{"-p", "--permission-prompt-tool", "mcp__nope__approve", "x"}, `no MCP server "nope" is configured`},
		{[]string{"-p", "--permission-prompt-tool", "mcp__perm__nope", "x"}, `MCP server "perm" has no such tool (it has mcp__perm__approve)`},
	} {
		code, _, errs := gen(t, append([]string{"--cwd", dir, "--model", "offline", "--mcp-config", cfg}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errs)
		}
	}
	var errb strings.Builder
	code := Run(t.Context(), []string{"--cwd", dir, "--mcp-config", cfg, "--permission-prompt-tool", "mcp__perm__approve"},
		Streams{In: strings.NewReader(""), Out: &errb, Err: &errb, InTerminal: true})
	if code != 2 || !strings.Contains(errb.String(), "for headless runs") {
		t.Errorf("interactive: exit %d, %s", code, errb.String())
	}
}

// gen agent batch starts the MCP servers once and shares them: a task's
// agent sees the MCP tools its allow_tools name, and the permission-prompt
// tool answers for every task; but an "always allow" answer holds for the
// task that got it only, never for the next task of the same agent.
func TestBatchMCPDelegatePerTask(t *testing.T) {
	always := `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"session"}]}`
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return always })
	writeAgent(t, dir, "alpha", "mode: default\n")
	writeAgent(t, dir, "tooled", "mode: default\nallow_tools:\n  - mcp__srv__echo\n")
	in := writeTasks(t, dir,
		task("t1", "alpha", "Run bash: touch one1\nRun bash: touch one2"),
		task("t2", "alpha", "Run bash: touch two1"),
		task("echo", "tooled", `Call mcp__srv__echo: {"text": "shared"}`),
	)
	code, out, errs := gen(t, "agent", "batch", in, "--concurrency", "1", "--mcp-config", cfg, "--permission-prompt-tool", "mcp__perm__approve")
	res := parseResults(t, []byte(out))
	if code != ExitOK || len(res) != 3 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, f := range []string{"one1", "one2", "two1"} {
		if !exists(dir, f) {
			t.Errorf("%s was not made", f)
		}
	}
	if r := res["echo"]; r.ExitCode != ExitOK || !strings.Contains(r.Result, "mcp__srv__echo() -> ALLOWED") {
		t.Errorf("echo: %+v", r)
	}
	var asked []string
	for _, c := range ap.Calls() {
		asked = append(asked, fmt.Sprintf("%s:%s", c.Agent, c.Input["command"]))
	}
	// t1's second touch is allowed by t1's session rule; t2 is asked anew.
	if want := []string{"alpha:touch one1", "alpha:touch two1"}; !slices.Equal(asked, want) {
		t.Errorf("the delegate was asked %q, want %q", asked, want)
	}
	if strings.Contains(errs, "goes on without its tools") {
		t.Errorf("a server failed: %s", errs)
	}
}

// A project's MCP server stops when the project's trust stops holding
// while gen runs: the user's hook changes .mcp.json after the first
// call (as a git pull in another terminal would), and the next call fails
// with why, said once on stderr too.
func TestMCPStopsWhenTrustLapses(t *testing.T) {
	dir := project(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	mcpJSON := mcpConfig(t, dir, ".mcp.json", map[string]string{"proj": mcptest.StdioEntry("ok")})
	hook := fmt.Sprintf(`{"hooks": {"PostToolUse": [{"matcher": "mcp__proj__echo", "hooks": [{"type": "command", "command": "printf ' ' >> %s"}]}]}}`, mcpJSON)
	if err := os.MkdirAll(filepath.Join(home, ".gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gen", "settings.json"), []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := gen(t, "trust", dir); code != 0 {
		t.Fatalf("gen trust: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--allowedTools", "mcp__proj", "--",
		`Call mcp__proj__echo: {"text": "one"}`+"\n"+`Call mcp__proj__echo: {"text": "two"}`+"\n"+`Call mcp__proj__echo: {"text": "three"}`)
	stopped := fmt.Sprintf(`MCP server "proj" stopped: the project %s is not trusted any more (changed since you trusted it: .mcp.json)`, dir)
	got := results(events(t, out))
	if len(got) != 3 || got[0] != "mcp__proj__echo -> echo: one" || !strings.Contains(got[1], stopped) || !strings.Contains(got[2], stopped) {
		t.Errorf("exit %d, results %q, want the second and third to say %q\n%s", code, got, stopped, errs)
	}
	if n := strings.Count(errs, stopped); n != 1 {
		t.Errorf("stderr says it %d times, want once:\n%s", n, errs)
	}
}

// A server that a deniedMcpServers list added while gen runs refuses is
// stopped before its next call too, as a lapsed trust stops a project's
// server: here the user's settings gain the list after the first call
// (a PostToolUse hook puts the new file in place).
func TestMCPStopsWhenDenyListAddsIt(t *testing.T) {
	dir := project(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := mcpConfig(t, dir, "mcp.json", map[string]string{"srv": mcptest.StdioEntry("ok")})
	user := filepath.Join(home, ".gen", "settings.json")
	hook := fmt.Sprintf(`"hooks": {"PostToolUse": [{"matcher": "mcp__srv__echo", "hooks": [{"type": "command", "command": "cp %s.denied %s"}]}]}`, user, user)
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("{"+hook+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user+".denied", []byte(`{"deniedMcpServers": [{"serverName": "srv"}], `+hook+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg, "--allowedTools", "mcp__srv", "--",
		`Call mcp__srv__echo: {"text": "one"}`+"\n"+`Call mcp__srv__echo: {"text": "two"}`)
	stopped := `MCP server "srv" stopped: ` + cfg + `: denied by deniedMcpServers in ` + user
	got := results(events(t, out))
	if len(got) != 2 || got[0] != "mcp__srv__echo -> echo: one" || !strings.Contains(got[1], stopped) {
		t.Errorf("exit %d, results %q, want the second to say %q\n%s", code, got, stopped, errs)
	}
}

// The permission-prompt tool is never asked about a call outside the
// agent's allow_tools, even one a bypass-immune check asks about (rm -rf
// here): its "allow" would run what the agent may not do at all.
func TestDelegateNeverAskedOutsideAllowTools(t *testing.T) {
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return `{"behavior":"allow"}` })
	writeAgent(t, dir, "reader", "mode: default\nallow_tools:\n  - Read\n  - Bash(git diff*)\n")
	if err := os.MkdirAll(filepath.Join(dir, "victim"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := writeTasks(t, dir, task("rm", "reader", "Run bash: git diff && rm -rf victim"))
	code, out, errs := gen(t, "agent", "batch", in, "--mcp-config", cfg, "--permission-prompt-tool", "mcp__perm__approve")
	res := parseResults(t, []byte(out))
	r := res["rm"]
	if code != ExitDenied || !strings.Contains(r.Result, "DENIED: destructive command") {
		t.Errorf("exit %d, %+v\n%s", code, r, errs)
	}
	if !exists(dir, "victim") {
		t.Error("victim was removed")
	}
	if calls := ap.Calls(); len(calls) != 0 {
		t.Errorf("the delegate was asked: %+v", calls)
	}
}

// A --mcp-config file is read once, when the flags are checked: the
// servers that start are the ones checked, whoever writes the file later.
func TestMCPConfigReadOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"first": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &mcpFlags{configs: []string{file}, strict: true}
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"second": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	set := &settings.Settings{Trusted: true}
	set.Workspace.Root = dir
	servers, _, err := mcpServers(set, f, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := servers["first"]; !ok || len(servers) != 1 {
		t.Errorf("servers = %v, want the checked file's first", servers)
	}
}

// Claude Code's approvals of .mcp.json servers narrow what the project's
// trust starts: disabledMcpjsonServers never starts a server, and where
// enabledMcpjsonServers lists servers only those start, unless
// enableAllProjectMcpServers is set. They are about .mcp.json only: a
// user's server of a listed name starts.
func TestMCPJSONApprovals(t *testing.T) {
	dir := project(t)
	ok := mcptest.StdioEntry("ok")
	mcpConfig(t, dir, ".mcp.json", map[string]string{"a": ok, "b": ok, "c": ok})
	user := filepath.Join(dir, ".gen", "settings.json") // HOME is dir: this is the user file
	write := func(path, json string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(dir, ".claude", "settings.local.json")
	write(local, `{"enabledMcpjsonServers": ["a", "b"], "disabledMcpjsonServers": ["b", "d"]}`)
	write(user, `{"mcpServers": {"d": `+ok+`}}`)
	mcpJSON := filepath.Join(dir, ".mcp.json")
	list := func() string {
		t.Helper()
		code, out, errs := gen(t, "mcp", "list", "--cwd", dir, "--trust")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		return out + errs
	}
	started := func(out, name string) bool {
		return strings.Contains(out, "mcp__"+name+"__echo")
	}
	out := list()
	for _, want := range []string{
		mcpJSON + `: ignoring MCP server "b": disabled by disabledMcpjsonServers in ` + local,
		mcpJSON + `: ignoring MCP server "c": not in enabledMcpjsonServers`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if !started(out, "a") || started(out, "b") || started(out, "c") || !started(out, "d") {
		t.Errorf("want a and d started, not b or c:\n%s", out)
	}
	// gen mcp list says they were refused, not that the project is
	// untrusted.
	if n := regexp.MustCompile(`(?m)^[bc] +project .* refused +-$`).FindAllString(out, -1); len(n) != 2 || strings.Contains(out, "untrusted") {
		t.Errorf("want b and c listed as refused, %q:\n%s", n, out)
	}

	write(user, `{"mcpServers": {"d": `+ok+`}, "enableAllProjectMcpServers": true}`)
	out = list()
	if !started(out, "a") || started(out, "b") || !started(out, "c") || !started(out, "d") {
		t.Errorf("enableAllProjectMcpServers: want a, c and d started, not b:\n%s", out)
	}

	// They only narrow the project's trust: an untrusted project's
	// servers stay off, whatever its files approve.
	write(filepath.Join(dir, ".claude", "settings.json"), `{"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["c"]}`)
	code, out, errs := gen(t, "mcp", "list", "--cwd", dir)
	if code != 0 || started(out, "a") || started(out, "c") || !strings.Contains(out+errs, "untrusted") {
		t.Errorf("untrusted: exit %d\n%s\n%s", code, out, errs)
	}

	// A bad list is an error naming the file and line.
	write(local, "{\n\"disabledMcpjsonServers\": [\"b\", 3]}")
	code, _, errs = gen(t, "mcp", "list", "--cwd", dir, "--trust")
	if code != 2 || !strings.Contains(errs, local+":2:") || !strings.Contains(errs, "disabledMcpjsonServers[1] must be the non-empty name of a server in .mcp.json") {
		t.Errorf("bad list: exit %d, %s", code, errs)
	}
}

// The permission-prompt tool answers within the PreToolUse hooks, not
// around them: its rewrite of an allowed touch into rm goes through the
// user's hook that refuses rm, and a hook's ask about a Read goes to the
// tool (which denies it), not to a policy that would allow it.
func TestDelegateHeldToPreToolUseHeadless(t *testing.T) {
	dir, cfg, ap := delegateProject(t, func(r mcptest.Request) string {
		if r.Input["command"] == "touch a.out" {
			return `{"behavior":"allow","updatedInput":{"command":"rm a.txt"}}`
		}
		if r.ToolName == "Read" {
			return `{"behavior":"deny","message":"no reading now"}`
		}
		return `{"behavior":"allow"}`
	})
	home := t.TempDir()
	t.Setenv("HOME", home)
	guard := filepath.Join(home, "guard.sh")
	script := `#!/bin/sh
in=$(cat)
case "$in" in
*'"rm '*) echo "no rm here" >&2; exit 2 ;;
*'"Read"'*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}' ;;
esac
`
	settings := `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + guard + `"}]}]}}`
	if err := os.WriteFile(guard, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gen", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--permission-prompt-tool", "mcp__perm__approve", "Run bash: touch a.out\nRead: a.txt")
	got := results(events(t, out))
	if code != 3 || len(got) != 2 {
		t.Fatalf("exit %d, %q\n%s", code, got, errs)
	}
	if !strings.Contains(got[0], "denied by a PreToolUse hook: no rm here") || !exists(dir, "a.txt") {
		t.Errorf("rewrite to rm: %q; a.txt there: %v", got[0], exists(dir, "a.txt"))
	}
	if !strings.Contains(got[1], "no reading now") {
		t.Errorf("the hook's ask about Read: %q", got[1])
	}
	// The touch, the rm it became (a new call, which asks), the Read.
	if n := len(ap.Calls()); n != 3 {
		t.Errorf("the tool was asked %d times, want 3", n)
	}
}

// A deny with "interrupt": true stops the agent after the round of calls
// it came in, as a hook's interrupt does: the model gets no further turn
// to try something else.
func TestDelegateInterruptStops(t *testing.T) {
	dir, cfg, _ := delegateProject(t, func(mcptest.Request) string {
		return `{"behavior":"deny","message":"stop everything","interrupt":true}`
	})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "json", "--mcp-config", cfg,
		"--permission-prompt-tool", "mcp__perm__approve", "Run bash: touch a.out")
	var res struct {
		NumTurns int `json:"num_turns"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, errs)
	}
	if res.NumTurns != 1 || exists(dir, "a.out") || !strings.Contains(errs, "mcp__perm__approve stopped the agent: stop everything") {
		t.Errorf("exit %d, %d turns, a.out made: %v\n%s\n%s", code, res.NumTurns, exists(dir, "a.out"), out, errs)
	}
}

// A subagent's delegate interrupt stops that subagent: it gets no turn
// after the denied call, so it has no answer to give.
func TestDelegateInterruptStopsSubagent(t *testing.T) {
	dir, cfg, _ := delegateProject(t, func(r mcptest.Request) string {
		if r.ToolName == "Agent" {
			return `{"behavior":"allow"}`
		}
		return `{"behavior":"deny","message":"stop everything","interrupt":true}`
	})
	writeAgent(t, dir, "alpha", "mode: default\n")
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--permission-prompt-tool", "mcp__perm__approve", "Delegate alpha: Run bash: touch a1")
	// The subagent's denied call, then the Agent call's result: an
	// empty answer, and the denial.
	got := results(events(t, out))
	if len(got) != 2 || !strings.HasPrefix(got[1], "Agent -> \n") || strings.Contains(got[1], "RESULT: Bash") || exists(dir, "a1") {
		t.Errorf("exit %d, %q\n%s", code, got, errs)
	}
}

// The permission-prompt tool is gen's, not the model's: it is not among
// the run's tools, and the model's call of it is refused without the
// tool being called, while the server's other tools stay.
func TestDelegateNotTheModels(t *testing.T) {
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return `{"behavior":"allow"}` })
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--permission-prompt-tool", "mcp__perm__approve",
		`Call mcp__perm__approve: {"tool_name": "Bash", "input": {"command": "touch a.out"}}`)
	evs := events(t, out)
	tools, _ := evs[0]["tools"].([]any)
	if slices.Contains(tools, any("mcp__perm__approve")) || !slices.Contains(tools, any("mcp__srv__echo")) {
		t.Errorf("the run's tools: %v", tools)
	}
	if n := len(ap.Calls()); n != 0 {
		t.Errorf("the model's call reached the permission-prompt tool (%d calls); exit %d\n%s\n%s", n, code, out, errs)
	}
}

// A subagent never asks where its parent may not: under a main loop in
// dontAsk mode, a subagent of mode default runs in dontAsk too, so its
// calls that would ask are denied without the permission-prompt tool (or
// a PermissionRequest hook) being consulted, as the main loop's are.
func TestDelegateNotAskedUnderDontAskParent(t *testing.T) {
	dir, cfg, ap := delegateProject(t, func(mcptest.Request) string { return `{"behavior":"allow"}` })
	writeAgent(t, dir, "alpha", "mode: default\n")
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--permission-mode", "dontAsk", "--allowedTools", "Agent",
		"--permission-prompt-tool", "mcp__perm__approve", "Delegate alpha: Run bash: touch a1")
	if exists(dir, "a1") || len(ap.Calls()) != 0 {
		t.Errorf("exit %d: a1 made %v, the tool was asked %v\n%s\n%s", code, exists(dir, "a1"), ap.Calls(), out, errs)
	}
}

// An agent's tools list names the MCP tools it has: run as the main loop
// (--agent), it has no other, whatever a rule allows.
func TestAgentToolsListLimitsMCP(t *testing.T) {
	dir := project(t)
	cfg := mcpConfig(t, dir, "cfg.json", map[string]string{"srv": mcptest.StdioEntry("ok")})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--agents", `{"lead": {"description": "d", "prompt": "p", "tools": "Read, mcp__srv__echo"}}`, "--agent", "lead",
		"--allowedTools", "mcp__srv", "--", "Call mcp__srv__pid: {}\n"+`Call mcp__srv__echo: {"text": "x"}`)
	if code == 2 {
		t.Fatalf("usage: %s", errs)
	}
	got := results(events(t, out))
	if len(got) != 2 || !strings.Contains(got[0], `mcp__srv__pid -> ERROR: tool "mcp__srv__pid" is not available`) || got[1] != "mcp__srv__echo -> echo: x" {
		t.Errorf("exit %d, %q\n%s\n%s", code, got, out, errs)
	}
}

// A project's local settings file (.gen/settings.local.json, a file of
// the project's tree) does not replace the user's server of the same
// name, as the project's .mcp.json does not: the user's rules for their
// server (an allow of mcp__srv) must not cover one the project brought.
func TestLocalServerDoesNotShadowUsers(t *testing.T) {
	dir := project(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	ap := &mcptest.Approver{Answer: func(mcptest.Request) string { return `{"behavior":"allow"}` }}
	for path, body := range map[string]string{
		filepath.Join(home, ".gen", "settings.json"):      `{"permissions": {"allow": ["mcp__srv"]}, "mcpServers": {"srv": ` + mcptest.StdioEntry("ok") + `}}`,
		filepath.Join(dir, ".gen", "settings.local.json"): `{"mcpServers": {"srv": ` + mcptest.HTTPEntry(mcptest.Serve(t, ap.Server())) + `}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := gen(t, "-p", "--cwd", dir, "--trust", "--model", "offline", "--output-format", "stream-json", `Call mcp__srv__echo: {"text": "x"}`)
	if got := results(events(t, out)); len(got) != 1 || got[0] != "mcp__srv__echo -> echo: x" {
		t.Errorf("exit %d, %q\n%s", code, got, errs)
	}
}

// A deny rule with a pattern on an MCP tool, whose calls have none to
// match, is refused rather than denying nothing.
func TestMCPDenyRuleWithPatternRefused(t *testing.T) {
	dir := project(t)
	cfg := mcpConfig(t, dir, "cfg.json", map[string]string{"srv": mcptest.StdioEntry("ok")})
	code, out, errs := gen(t, "-p", "--cwd", dir, "--model", "offline", "--output-format", "stream-json", "--mcp-config", cfg,
		"--allowedTools", "mcp__srv", "--disallowedTools", "mcp__srv__echo(*)", "--", `Call mcp__srv__echo: {"text": "x"}`)
	if code != 2 || strings.Contains(out, "echo: x") || !strings.Contains(errs, "mcp__srv__echo takes no pattern") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}
