package settings

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadAPI(t *testing.T) {
	load := func(t *testing.T, user, project string, trust bool) (*Settings, error) {
		t.Helper()
		dir := t.TempDir()
		home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
		writeFile(t, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n")
		if user != "" {
			writeFile(t, filepath.Join(home, ".gen", "settings.json"), user)
		}
		if project != "" {
			writeFile(t, filepath.Join(proj, ".gen", "settings.json"), project)
		}
		return Load(Options{Cwd: proj, Home: home, ManagedPath: filepath.Join(dir, "none.json"), Trust: trust})
	}
	t.Run("an untrusted project's timeouts are ignored", func(t *testing.T) {
		s, err := load(t, `{"api": {"timeout": "3m"}}`, `{"api": {"timeout": "2562047h", "streamIdleTimeout": "2562047h", "stream": false}}`, false)
		if err != nil {
			t.Fatal(err)
		}
		if s.API.Timeout != 3*time.Minute || s.API.StreamIdleTimeout != 0 || s.API.Stream == nil || *s.API.Stream {
			t.Fatalf("API = %+v; want the user's timeout, no idle timeout, the project's stream", s.API)
		}
		if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "ignoring project api timeouts") {
			t.Errorf("warnings: %q; want one refusing the project's api timeouts", s.Warnings)
		}
	})
	t.Run("prices merge model by model; an untrusted project's are ignored", func(t *testing.T) {
		user := `{"api": {"pricing": {"big": {"input": 3, "output": 15, "cachedInput": 0.3}, "small": {"input": 1, "output": 2}}}}`
		project := `{"api": {"pricing": {"big": {"input": 0, "output": 0}, "new": {"input": 5, "output": 5}}}}`
		s, err := load(t, user, project, false)
		if err != nil {
			t.Fatal(err)
		}
		if big := s.API.Pricing["big"]; big.Input != 3 || big.CachedInput == nil || *big.CachedInput != 0.3 || len(s.API.Pricing) != 2 {
			t.Errorf("untrusted: pricing %+v; want the user's alone", s.API.Pricing)
		}
		if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "ignoring project api pricing") {
			t.Errorf("warnings: %q; want one refusing the project's pricing", s.Warnings)
		}
		s, err = load(t, user, project, true)
		if err != nil {
			t.Fatal(err)
		}
		if big, small := s.API.Pricing["big"], s.API.Pricing["small"]; big.Input != 0 || big.CachedInput != nil || small.Output != 2 || s.API.Pricing["new"].Input != 5 {
			t.Errorf("trusted: pricing %+v; want the project's big and new, the user's small", s.API.Pricing)
		}
	})
	t.Run("merged by precedence", func(t *testing.T) {
		s, err := load(t, `{"api": {"timeout": "3m", "streamIdleTimeout": "20s", "stream": true}}`, `{"api": {"streamIdleTimeout": "90s", "stream": false}}`, true)
		if err != nil {
			t.Fatal(err)
		}
		if s.API.Timeout != 3*time.Minute || s.API.StreamIdleTimeout != 90*time.Second || s.API.Stream == nil || *s.API.Stream {
			t.Fatalf("API = %+v", s.API)
		}
		if len(s.Warnings) != 0 {
			t.Errorf("warnings: %q", s.Warnings)
		}
	})
	for _, tt := range []struct{ name, project, want string }{
		{"unknown key", "{\n\"api\": {\"timeuot\": \"3m\"}}", `settings.json:2: unknown key "timeuot" in api`},
		{"not a duration", `{"api": {"timeout": "3 minutes"}}`, `settings.json:1: api.timeout must be a positive duration`},
		{"a number", `{"api": {"streamIdleTimeout": 60}}`, `api.streamIdleTimeout must be a positive duration`},
		{"negative", `{"api": {"timeout": "-1s"}}`, `api.timeout must be a positive duration`},
		{"stream not a bool", `{"api": {"stream": "no"}}`, `api.stream must be true or false`},
		{"not an object", `{"api": []}`, `api must be an object`},
		{"pricing not an object", `{"api": {"pricing": []}}`, `api.pricing must be an object of prices by model name`},
		{"a price not an object", `{"api": {"pricing": {"m": 3}}}`, `api.pricing.m must be an object`},
		{"a price without output", `{"api": {"pricing": {"m": {"input": 3}}}}`, `api.pricing.m needs "output"`},
		{"a negative price", `{"api": {"pricing": {"m": {"input": 3, "output": -1}}}}`, `api.pricing.m.output must be a number of dollars per million tokens, not negative`},
		{"a price as a string", `{"api": {"pricing": {"m": {"input": "3", "output": 1}}}}`, `api.pricing.m.input must be a number`},
		{"an unknown price key", `{"api": {"pricing": {"m": {"input": 3, "output": 1, "cached": 1}}}}`, `unknown key "cached" in api.pricing.m (want input, output or cachedInput)`},
		{"a model priced twice", "{\"api\": {\"pricing\": {\"m\": {\"input\": 3, \"output\": 1},\n\"m\": {\"input\": 0, \"output\": 0}}}}", `settings.json:2: duplicate key "api.pricing.m"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "", tt.project, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}
