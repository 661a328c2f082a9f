package settings

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gen-run/gen/cost"
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
	// Pricing is api.pricing: what each model's tokens cost, by model
	// name, for the result's total_cost_usd and --max-budget-usd. Merged
	// model by model, the highest-precedence file's price winning; an
	// untrusted project's prices are ignored (a price of 0 would lift the
	// user's budget).
	Pricing map[string]cost.Price
}

// apiKeys are the keys known inside "api".
var apiKeys = []string{"timeout", "streamIdleTimeout", "stream", "pricing"}

// priceKeys are the keys of one model's api.pricing entry, in US dollars
// per million tokens.
var priceKeys = []string{"input", "output", "cachedInput"}

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
			return p.errAt(m.Off, "unknown key %q in api (want timeout, streamIdleTimeout, stream or pricing)", m.Key)
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
	if fv, ok := fields["pricing"]; ok {
		prices, err := p.pricing(fv)
		if err != nil {
			return err
		}
		f.API.Pricing = prices
	}
	return nil
}

// pricing parses api.pricing: {"MODEL": {"input": 3, "output": 15,
// "cachedInput": 0.3}}, input and output required, every price a number
// of dollars per million tokens, not negative.
func (p *parser) pricing(v *value) (map[string]cost.Price, error) {
	if v.Kind != kindObject {
		return nil, p.errAt(v.Off, "api.pricing must be an object of prices by model name")
	}
	if _, err := p.unique(v, "api.pricing."); err != nil {
		return nil, err
	}
	out := make(map[string]cost.Price, len(v.Members))
	for _, m := range v.Members {
		where := "api.pricing." + m.Key
		if m.Key == "" {
			return nil, p.errAt(m.Off, "api.pricing: empty model name")
		}
		if m.Val.Kind != kindObject {
			return nil, p.errAt(m.Val.Off, "%s must be an object such as {\"input\": 3, \"output\": 15} (dollars per million tokens)", where)
		}
		fields, err := p.unique(m.Val, where+".")
		if err != nil {
			return nil, err
		}
		num := func(key string) (float64, bool, error) {
			fv, ok := fields[key]
			if !ok {
				return 0, false, nil
			}
			n, err := strconv.ParseFloat(fv.Str, 64)
			if fv.Kind != kindNumber || err != nil || n < 0 || math.IsInf(n, 0) {
				return 0, false, p.errAt(fv.Off, "%s.%s must be a number of dollars per million tokens, not negative", where, key)
			}
			return n, true, nil
		}
		for _, k := range m.Val.Members {
			if !slices.Contains(priceKeys, k.Key) {
				return nil, p.errAt(k.Off, "unknown key %q in %s (want input, output or cachedInput)", k.Key, where)
			}
		}
		var pr cost.Price
		for _, k := range []struct {
			key string
			dst *float64
		}{{"input", &pr.Input}, {"output", &pr.Output}} {
			n, ok, err := num(k.key)
			if err != nil {
				return nil, err
			}
			if !ok {
				// A missing price read as 0 would make the model free.
				return nil, p.errAt(m.Off, "%s needs %q", where, k.key)
			}
			*k.dst = n
		}
		c, has, err := num("cachedInput")
		if err != nil {
			return nil, err
		}
		if has {
			pr.CachedInput = &c
		}
		out[m.Key] = pr
	}
	return out, nil
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
		if len(a.Pricing) > 0 && s.untrusted(*f) {
			s.Warnings = append(s.Warnings, s.Refusal("api pricing", f.Path))
			continue
		}
		for model, pr := range a.Pricing {
			if s.API.Pricing == nil {
				s.API.Pricing = make(map[string]cost.Price)
			}
			s.API.Pricing[model] = pr
		}
	}
}
