package cli

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// errParsed stops a command once its flags are parsed: these tests check
// parsing apart from behaviour (the run functions have tests of their own).
var errParsed = errors.New("parsed")

// execute runs cmd on args with its output discarded.
func execute(cmd *cobra.Command, args []string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

func TestAgentRunFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    runOptions
		wantErr string
	}{
		{args: []string{"--type", "reviewer", "--prompt", "go"},
			want: runOptions{typ: "reviewer", prompt: "go", format: "text"}},
		{args: []string{"--type=r", "--prompt=p", "--model", "m", "--max-turns", "3", "--output-format", "json", "--no-stream", "--verbose", "--append-system-prompt", "be brief", "--cwd", "/w", "--disallowedTools", "Bash(curl:*)", "--disallowedTools", "WebFetch", "--trust"},
			want: runOptions{policyFlags: policyFlags{cwd: "/w", disallowed: []string{"Bash(curl:*)", "WebFetch"}, trust: true},
				typ: "r", prompt: "p", model: "m", maxTurns: 3, format: "json", noStream: true, verbose: true, appendSystem: "be brief"}},
		{args: []string{"--prompt", "go"}, wantErr: `required flag(s) "type" not set`},
		{args: []string{"--type", "r", "--prompt", "p", "extra"}, wantErr: `unknown command "extra"`},
		{args: []string{"--type", "r", "--prompt", "p", "--max-turns", "x"}, wantErr: `invalid argument "x" for "--max-turns"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *runOptions
			cmd := newAgentRunCmd(Streams{Out: io.Discard, Err: io.Discard}, func(o *runOptions) error { got = o; return errParsed })
			err := execute(cmd, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if !errors.Is(err, errParsed) || got == nil {
				t.Fatalf("err = %v: the run function was not reached", err)
			}
			got.mcpFlags = mcpFlags{}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("options\n got %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

func TestPermissionsCheckFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantArgs []string
		check    func(o *checkOptions) bool
		wantErr  string
	}{
		{args: []string{"check", "Bash(ls)"}, wantArgs: []string{"Bash(ls)"},
			check: func(o *checkOptions) bool { return o.whatIf && !o.json && o.agent == "" }},
		{args: []string{"check", "--json", "--headless", "--agent", "explore", "--mode", "acceptEdits", "Read(a)"}, wantArgs: []string{"Read(a)"},
			check: func(o *checkOptions) bool {
				return o.json && o.headless && o.agent == "explore" && o.mode == "acceptEdits"
			}},
		{args: []string{"check", "--input", `{"command":"ls"}`, "Bash"}, wantArgs: []string{"Bash"},
			check: func(o *checkOptions) bool { return o.input == `{"command":"ls"}` }},
		{args: []string{"check", "--batch", "calls.jsonl"}, wantArgs: []string{},
			check: func(o *checkOptions) bool { return o.batch == "calls.jsonl" }},
		{args: []string{"check"}, wantErr: "accepts 1 arg(s), received 0"},
		{args: []string{"check", "--batch", "f", "Bash(ls)"}, wantErr: `unknown command "Bash(ls)"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *checkOptions
			var gotArgs []string
			cmd := newPermissionsCmd(Streams{Out: io.Discard, Err: io.Discard}, func(o *checkOptions, args []string) error {
				got, gotArgs = o, args
				return errParsed
			})
			err := execute(cmd, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if !errors.Is(err, errParsed) || got == nil {
				t.Fatalf("err = %v: the run function was not reached", err)
			}
			if !tc.check(got) || !reflect.DeepEqual(append([]string{}, gotArgs...), tc.wantArgs) {
				t.Errorf("options %+v, args %q", *got, gotArgs)
			}
		})
	}
}
