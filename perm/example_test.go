package perm_test

import (
	"fmt"

	"github.com/gen-run/gen/perm"
)

func ExampleEvaluate() {
	rule := func(s string) perm.Entry {
		r, err := perm.ParseRule(s)
		if err != nil {
			panic(err)
		}
		return perm.Entry{Rule: r, Source: perm.SourceProject}
	}
	p := &perm.Policy{
		Mode:      perm.ModeDefault,
		Workspace: perm.Workspace{Cwd: "/work/p", Root: "/work/p", Home: "/home/u"},
		Allow:     []perm.Entry{rule("Bash(npm run *)")},
		Deny:      []perm.Entry{rule("Bash(curl:*)")},
	}
	for _, cmd := range []string{
		"npm run build",                      // covered by the allow rule
		"npm run build && npm publish",       // one part is not covered
		"sudo /usr/bin/c'ur'l https://x.org", // every normalised form is checked
		"npm run build && rm -rf node_modules",
	} {
		r := perm.Evaluate(perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}, p)
		fmt.Printf("%s: %s (step %d: %s)\n", cmd, r.Decision, r.Step, r.Reason)
	}
	// Output:
	// npm run build: allow (step 6: allowed by rule Bash(npm run *) (project))
	// npm run build && npm publish: ask (step 7: Bash requires approval in default mode (not read-only: program npm has no read-only spec))
	// sudo /usr/bin/c'ur'l https://x.org: deny (step 1: tool Bash is blocked by deny rule Bash(curl:*) (project))
	// npm run build && rm -rf node_modules: ask (step 2: destructive command)
}

func ExampleParseRule() {
	for _, s := range []string{"Bash(git diff*)", "Read(./src/**)", "WebFetch(github.com)", "Bash("} {
		r, err := perm.ParseRule(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("tool %s, pattern %q\n", r.Tool, r.Pattern)
	}
	// Output:
	// tool Bash, pattern "git diff*"
	// tool Read, pattern "./src/**"
	// malformed rule "WebFetch(github.com)": WebFetch patterns are domain:HOST or domain:*.HOST
	// malformed rule "Bash(": missing closing parenthesis
}
