package perm

import (
	"strings"
	"testing"
)

func webReq(u string) Request { return Request{Tool: "WebFetch", Input: map[string]any{"url": u}} }

// TestWebFetchAddresses checks issue 8 section 2: IP literals in any form
// are normalised before domain rules match, and internal addresses are
// never a safe read.
func TestWebFetchAddresses(t *testing.T) {
	f := newFixture(t)
	denyLocal := deny("WebFetch(domain:127.0.0.1)")
	cases := []evalCase{
		// Every spelling of 127.0.0.1 is 127.0.0.1 to a deny rule.
		{"deny: dotted", denyLocal, webReq("http://127.0.0.1/"), Deny, 1, ""},
		{"deny: short form 127.1", denyLocal, webReq("http://127.1/"), Deny, 1, ""},
		{"deny: one decimal number", denyLocal, webReq("http://2130706433/"), Deny, 1, ""},
		{"deny: hex number", denyLocal, webReq("http://0x7f000001/"), Deny, 1, ""},
		{"deny: octal part", denyLocal, webReq("http://0177.0.0.1/"), Deny, 1, ""},
		{"deny: hex parts", denyLocal, webReq("http://0x7f.0x0.0x0.0x1:8080/"), Deny, 1, ""},
		{"deny: IPv4-mapped IPv6", denyLocal, webReq("http://[::ffff:127.0.0.1]/"), Deny, 1, ""},
		{"deny: IPv4-mapped IPv6 hex", denyLocal, webReq("http://[::ffff:7f00:1]/"), Deny, 1, ""},
		{"deny: IPv4-compatible IPv6", denyLocal, webReq("http://[::127.0.0.1]/"), Deny, 1, ""},
		{"deny: NAT64", denyLocal, webReq("http://[64:ff9b::7f00:1]/"), Deny, 1, ""},

		// Internal addresses are not a safe read: Ask, in every spelling.
		{"internal: loopback", nil, webReq("http://127.1:9000/admin"), Ask, 7, "loopback, link-local or private address: 127.0.0.1"},
		{"internal: cloud metadata", nil, webReq("http://169.254.169.254/latest/meta-data/"), Ask, 7, "169.254.169.254"},
		{"internal: metadata as a number", nil, webReq("http://2852039166/"), Ask, 7, "169.254.169.254"},
		{"internal: private", nil, webReq("http://10.1.2.3/"), Ask, 7, "10.1.2.3"},
		{"internal: private 192.168", nil, webReq("http://0300.0250.1.1/"), Ask, 7, "192.168.1.1"},
		{"internal: IPv6 loopback", nil, webReq("http://[::1]/"), Ask, 7, "::1"},
		{"internal: IPv6 link-local with zone", nil, webReq("http://[fe80::1%25eth0]/"), Ask, 7, "fe80::1"},
		{"internal: unspecified", nil, webReq("http://0.0.0.0:8080/"), Ask, 7, "0.0.0.0"},
		{"internal: zero as number", nil, webReq("http://0/"), Ask, 7, "0.0.0.0"},
		{"internal: localhost", nil, webReq("http://localhost:3000/"), Ask, 7, "localhost"},
		{"internal: sub.localhost", nil, webReq("http://a.localhost/"), Ask, 7, "a.localhost"},
		{"internal: shared address space", nil, webReq("http://100.100.100.200/"), Ask, 7, ""},
		{"internal: headless denies", func(p *Policy) { p.NoPrompt = true }, webReq("http://127.1/"), Deny, 8, "loopback"},
		{"internal: explicit allow rule", allow("WebFetch(domain:127.0.0.1)"), webReq("http://0x7f000001/"), Allow, 6, ""},
		{"internal: localhost allow rule", allow("WebFetch(domain:localhost)"), webReq("http://localhost:3000/"), Allow, 6, ""},
		{"public address is a safe read", nil, webReq("http://93.184.215.14/"), Allow, 7, ""},
		{"public name is a safe read", nil, webReq("https://go.dev/doc"), Allow, 7, ""},
		{"number that is no address is a name", nil, webReq("http://99999999999/"), Allow, 7, ""},

		// A name with empty labels (a trailing dot too many, a doubled
		// or leading dot) is the name without them to every rule and
		// check, as a resolver or proxy that tidies it would reach it;
		// and a dotted address with a trailing dot is that address.
		{"empty labels: trailing dots", deny("WebFetch(domain:example.com)"), webReq("http://example.com../"), Deny, 1, ""},
		{"empty labels: doubled dot", deny("WebFetch(domain:example.com)"), webReq("http://example..com/"), Deny, 1, ""},
		{"empty labels: leading dot", deny("WebFetch(domain:example.com)"), webReq("http://.example.com/"), Deny, 1, ""},
		{"empty labels: localhost", nil, webReq("http://localhost../"), Ask, 7, "localhost"},
		{"trailing dot: short form", nil, webReq("http://127.1./"), Ask, 7, "127.0.0.1"},
		{"trailing dot: hex parts", denyLocal, webReq("http://0x7f.1./"), Deny, 1, ""},
		{"trailing dot: metadata number", nil, webReq("http://2852039166./"), Ask, 7, "169.254.169.254"},
		{"full-width digits: hex", denyLocal, webReq("http://\uff10x7f.1/"), Deny, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if tc.pol != nil {
				tc.pol(p)
			}
			got := Evaluate(tc.req, p)
			if got.Decision != tc.want || got.Step != tc.step || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Evaluate(%v) = %v step %d %q; want %v step %d containing %q",
					tc.req.Input, got.Decision, got.Step, got.Reason, tc.want, tc.step, tc.reason)
			}
		})
	}
}
