package settings

import (
	"slices"
	"time"
)

// API is the "api" object of a settings file: how gen talks to the model
// server. Zero fields are unset. Example:
//
//	"api": {"timeout": "10m", "streamIdleTimeout": "60s", "stream": false}
type API struct {
	// Timeout bounds one request attempt, the whole answer included
	// (api.timeout, a Go duration; GEN_API_TIMEOUT overrides it).
	Timeout time.Duration
	// StreamIdleTimeout bounds the silence of a streamed answer
	// (api.streamIdleTimeout; GEN_STREAM_IDLE_TIMEOUT overrides it).
	StreamIdleTimeout time.Duration
	// Stream is api.stream: false asks for whole answers instead of
	// server-sent events (--no-stream and GEN_NO_STREAM=1 do the same).
	// nil when unset.
	Stream *bool
}

// apiKeys are the keys known inside "api".
var apiKeys = []string{"timeout", "streamIdleTimeout", "stream"}

// api parses the "api" object v into f.API. Unknown keys and malformed
// values are errors (file:line): a timeout that silently did not apply
// could hang a run the user meant to bound.
func (p *parser) api(f *File, v *value) error {
	if v.Kind != kindObject {
		return p.errAt(v.Off, "api must be an object")
	}
	fields, err := p.unique(v, "api.")
	if err != nil {
		return err
	}
	for _, m := range v.Members {
		if !slices.Contains(apiKeys, m.Key) {
			return p.errAt(m.Off, "unknown key %q in api (want timeout, streamIdleTimeout or stream)", m.Key)
		}
	}
	for _, d := range []struct {
		key string
		dst *time.Duration
	}{{"timeout", &f.API.Timeout}, {"streamIdleTimeout", &f.API.StreamIdleTimeout}} {
		fv, ok := fields[d.key]
		if !ok {
			continue
		}
		t, err := time.ParseDuration(fv.Str)
		if fv.Kind != kindString || err != nil || t <= 0 {
			return p.errAt(fv.Off, "api.%s must be a positive duration such as \"90s\" or \"5m\"", d.key)
		}
		*d.dst = t
	}
	if fv, ok := fields["stream"]; ok {
		if fv.Kind != kindBool {
			return p.errAt(fv.Off, "api.stream must be true or false")
		}
		b := fv.Boolean
		f.API.Stream = &b
	}
	return nil
}

// mergeAPI sets s.API from the files, each key from the highest-precedence
// file that sets it. An untrusted project's timeouts are ignored with a
// warning: a cloned repository could otherwise lift the bound on every
// wait for the model server ("2562047h") and hang a headless run.
func (s *Settings) mergeAPI() {
	for i := len(s.Files) - 1; i >= 0; i-- {
		f := &s.Files[i]
		a := f.API
		if (a.Timeout != 0 || a.StreamIdleTimeout != 0) && s.untrusted(*f) {
			s.Warnings = append(s.Warnings, s.Refusal("api timeouts", f.Path))
			a.Timeout, a.StreamIdleTimeout = 0, 0
		}
		if a.Timeout != 0 {
			s.API.Timeout = a.Timeout
		}
		if a.StreamIdleTimeout != 0 {
			s.API.StreamIdleTimeout = a.StreamIdleTimeout
		}
		if a.Stream != nil {
			s.API.Stream = a.Stream
		}
	}
}
