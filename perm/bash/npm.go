package bash

import (
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// npm finds its command as npm 11's lib/utils/cmd-list.js deref does: a
// camelCase name in kebab-case, a command, an alias, or a unique prefix of
// a command or an alias (npm pub is npm publish), an alias resolved in
// turn. Its options may come before the command (npm --workspace x
// publish), and one not known may take the next word as its value.
var (
	npmCommands = lazy.Value[[]string]{New: func() []string {
		return []string{"access", "adduser", "approve-scripts", "audit", "bugs", "cache", "ci", "completion",
			"config", "dedupe", "deny-scripts", "deprecate", "diff", "dist-tag", "docs", "doctor", "edit", "exec",
			"explain", "explore", "find-dupes", "fund", "get", "help", "help-search", "init", "install",
			"install-ci-test", "install-scripts", "install-test", "link", "ll", "login", "logout", "ls", "org",
			"outdated", "owner", "pack", "ping", "pkg", "prefix", "profile", "prune", "publish", "query", "rebuild",
			"repo", "restart", "root", "run", "sbom", "search", "set", "shrinkwrap", "stage", "star", "stars",
			"start", "stop", "team", "test", "token", "trust", "undeprecate", "uninstall", "unpublish", "unstar",
			"update", "version", "view", "whoami"}
	}}
	npmAliases = lazy.Value[map[string]string]{New: func() map[string]string {
		return map[string]string{"author": "owner", "home": "docs", "issues": "bugs", "info": "view", "show": "view",
			"find": "search", "add": "install", "unlink": "uninstall", "remove": "uninstall", "rm": "uninstall",
			"r": "uninstall", "un": "uninstall", "rb": "rebuild", "list": "ls", "ln": "link", "create": "init",
			"i": "install", "it": "install-test", "cit": "install-ci-test", "u": "update", "up": "update",
			"c": "config", "s": "search", "se": "search", "tst": "test", "t": "test", "ddp": "dedupe", "v": "view",
			"run-script": "run", "clean-install": "ci", "clean-install-test": "install-ci-test", "x": "exec",
			"why": "explain", "la": "ll", "verison": "version", "ic": "ci", "innit": "init", "in": "install",
			"ins": "install", "inst": "install", "insta": "install", "instal": "install", "isnt": "install",
			"isnta": "install", "isntal": "install", "isntall": "install", "install-clean": "ci",
			"isntall-clean": "ci", "hlep": "help", "dist-tags": "dist-tag", "upgrade": "update", "udpate": "update",
			"rum": "run", "sit": "install-ci-test", "urn": "run", "ogr": "org", "add-user": "adduser"}
	}}
)

// npmCommandsFor returns the commands npm may run for the word c, broadly:
// every command c is, names by an alias or abbreviates (an ambiguous
// prefix too, which npm refuses: a deny rule may match more, never less).
func npmCommandsFor(c string) []string {
	if strings.ContainsAny(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		var b strings.Builder
		for _, r := range c {
			if r >= 'A' && r <= 'Z' {
				b.WriteByte('-')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		c = b.String()
	}
	if c == "" {
		return nil
	}
	cmds := npmCommands.Get()
	if slices.Contains(cmds, c) {
		return []string{c}
	}
	aliases := npmAliases.Get()
	if a, ok := aliases[c]; ok {
		return []string{a}
	}
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range cmds {
		if strings.HasPrefix(s, c) {
			add(s)
		}
	}
	for k, a := range aliases {
		if strings.HasPrefix(k, c) {
			add(a)
		}
	}
	slices.Sort(out)
	return out
}

// npmReadings returns an npm command line as npm may read it: with the
// options before its command left out and the command written in full.
// Each word after options only may be the command, unless an earlier
// word is (an option not known may take the next word as its value).
func npmReadings(words []Word) [][]Word {
	if len(words) < 2 || !words[0].Static || words[0].Value != "npm" {
		return nil
	}
	var out [][]Word
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !w.Static {
			break
		}
		if w.Value == "--" {
			break
		}
		if strings.HasPrefix(w.Value, "-") {
			continue
		}
		for _, c := range npmCommandsFor(w.Value) {
			if i == 1 && c == w.Value {
				continue // the command line as written
			}
			r := make([]Word, 0, len(words)-i+1)
			r = append(r, words[0], Word{Raw: c, Value: c, Static: true})
			out = append(out, append(r, words[i+1:]...))
		}
		prev := words[i-1]
		if i == 1 || !strings.HasPrefix(prev.Value, "-") || strings.Contains(prev.Value, "=") {
			break // w is the command: no option before it takes it
		}
	}
	return out
}
