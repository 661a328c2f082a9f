package tool

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gen-run/gen/perm"
)

// policyGate is a Gate that decides with the real perm.Evaluate under a
// fixed policy, recording every URL it was asked about.
type policyGate struct {
	policy perm.Policy
	mu     sync.Mutex
	asked  []string
	ctxVal []any
}

type ctxKey struct{}

func (g *policyGate) Check(ctx context.Context, req perm.Request) perm.Result {
	g.mu.Lock()
	u, _ := req.Input["url"].(string)
	g.asked = append(g.asked, req.Tool+" "+u)
	g.ctxVal = append(g.ctxVal, ctx.Value(ctxKey{}))
	g.mu.Unlock()
	return perm.Evaluate(req, &g.policy)
}

// denyGate returns a gate whose policy has the deny rules given.
func denyGate(t *testing.T, rules ...string) *policyGate {
	t.Helper()
	dir := t.TempDir()
	// The test servers listen on loopback, which only an explicit rule
	// allows (issue 8).
	loopback := perm.Entry{Rule: perm.Rule{Tool: "WebFetch", Pattern: "domain:127.0.0.1", HasPattern: true}}
	g := &policyGate{policy: perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: dir, Root: dir}, Allow: []perm.Entry{loopback}}}
	for _, s := range rules {
		r, err := perm.ParseRule(s)
		must(t, err)
		g.policy.Deny = append(g.policy.Deny, perm.Entry{Rule: r, Source: perm.SourceUser, Origin: "test"})
	}
	return g
}

// webServer serves the fixture pages of the WebFetch tests on 127.0.0.1
// and counts requests by path.
type webServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func (s *webServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func newWebServer(t *testing.T) *webServer {
	t.Helper()
	s := &webServer{hits: map[string]int{}}
	mux := http.NewServeMux()
	page := func(path, ctype, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if ctype == "" {
				w.Header()["Content-Type"] = nil // no header, no sniffing by the server
			} else {
				w.Header().Set("Content-Type", ctype)
			}
			fmt.Fprint(w, body)
		})
	}
	page("/html", "text/html; charset=utf-8",
		`<html><head><title>T</title><script>evil()</script></head><body><h1>Title</h1><p>Hello <a href="/next">next page</a> and <b>bold</b>.</p></body></html>`)
	page("/text", "text/plain; charset=utf-8", "line one\nline two\n")
	page("/json", "application/json", `{"a": [1, 2], "b": "<x>"}`)
	page("/problem", "application/problem+json", `{"title": "oops"}`)
	page("/png", "image/png", "\x89PNG\r\n\x1a\n")
	page("/octet", "application/octet-stream", "data")
	page("/sniffed", "", "<!DOCTYPE html><html><body><p>sniffed <i>page</i></p></body></html>")
	page("/latin1", "text/plain; charset=ISO-8859-1", "caf\xe9\n")
	page("/badutf8", "text/plain", "ok \xff\xfe end\n")
	page("/empty", "text/plain", "")
	page("/big", "text/plain", strings.Repeat("é", 150_000))
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 32<<10) + "\n")
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		// /redirect?to=URL
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		// /chain/N redirects N more times, then lands on /text.
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			http.Redirect(w, r, "/text", http.StatusMovedPermanently)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "the secret")
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestWebFetch(t *testing.T) {
	srv := newWebServer(t)
	base := srv.URL // http://127.0.0.1:PORT
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	must(t, err)
	localhost := "http://localhost:" + port

	tests := []struct {
		name    string
		url     string
		prompt  string
		want    []string // substrings of the output
		notWant []string
		wantErr string // substring of the error; "" means success
		denied  bool   // the error must satisfy IsDenied
		asked   int    // how many redirect checks the gate must see
	}{
		{name: "html becomes markdown", url: base + "/html",
			want:    []string{"URL: " + base + "/html\n", "Content-Type: text/html\n", "# Title", "Hello [next page](" + base + "/next) and **bold**."},
			notWant: []string{"<h1>", "evil()", "Redirected from"}},
		{name: "plain text as is", url: base + "/text",
			want: []string{"Content-Type: text/plain\n\nline one\nline two\n"}},
		{name: "json as is", url: base + "/json",
			want: []string{`{"a": [1, 2], "b": "<x>"}`}},
		{name: "json suffix type as is", url: base + "/problem",
			want: []string{`{"title": "oops"}`, "application/problem+json"}},
		{name: "missing content type is sniffed", url: base + "/sniffed",
			want: []string{"Content-Type: text/html", "sniffed *page*"}, notWant: []string{"<p>"}},
		{name: "latin1 decoded", url: base + "/latin1", want: []string{"café"}},
		{name: "invalid utf8 replaced", url: base + "/badutf8", want: []string{"ok \uFFFD end"}},
		{name: "empty body", url: base + "/empty", want: []string{"(the response body is empty)"}},
		{name: "prompt echoed on one line", url: base + "/text", prompt: "find\nthe version",
			want: []string{"Prompt: find the version\n"}},
		{name: "image refused", url: base + "/png",
			wantErr: "content type image/png is not text, HTML or JSON"},
		{name: "octet stream refused", url: base + "/octet",
			wantErr: "content type application/octet-stream is not text"},
		{name: "not found", url: base + "/missing", wantErr: "/missing: the server answered 404 Not Found"},
		{name: "server error", url: base + "/fail", wantErr: "the server answered 500 Internal Server Error"},
		{name: "file scheme", url: "file:///etc/passwd", wantErr: `has scheme "file": only http and https`},
		{name: "ftp scheme", url: "ftp://127.0.0.1/x", wantErr: "only http and https"},
		{name: "no scheme", url: "example.com/page", wantErr: "is not an absolute URL"},
		{name: "no host", url: "http:///x", wantErr: "has no host"},
		{name: "unparsable", url: "http://[::1", wantErr: "is not a valid URL"},

		{name: "allowed redirect is followed", url: base + "/redirect?to=/text", asked: 1,
			want: []string{"URL: " + base + "/text\n", "Redirected from: " + base + "/redirect?to=/text\n", "line one"}},
		{name: "redirect to denied host stops", url: base + "/redirect?to=" + localhost + "/secret", asked: 1, denied: true,
			wantErr: "WebFetch: redirect to " + localhost + "/secret denied: tool WebFetch is blocked by deny rule WebFetch(domain:localhost) (user)"},
		{name: "denied host deep in a chain", url: base + "/redirect?to=" + base + "/redirect%3Fto%3D" + localhost + "/secret", asked: 2, denied: true,
			wantErr: "redirect to " + localhost + "/secret denied"},
		{name: "redirect to other scheme", url: base + "/redirect?to=ftp://127.0.0.1/x", wantErr: "redirect to ftp://127.0.0.1/x refused: only http and https"},
		{name: "ten redirects followed", url: base + "/chain/9", asked: 10, want: []string{"URL: " + base + "/text\n"}},
		{name: "eleven redirects refused", url: base + "/chain/10", asked: 10, wantErr: "stopped after 10 redirects"},

		{name: "body capped at 5 MiB", url: base + "/endless",
			want: []string{"[response truncated: only the first 5 MiB were read]", "[output truncated at 100000 characters]"}},
		{name: "output capped at 100000 characters", url: base + "/big",
			want: []string{"ééé", "[output truncated at 100000 characters]"}, notWant: []string{"response truncated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := denyGate(t, "WebFetch(domain:localhost)")
			wf := NewWebFetch(g, nil)
			in := map[string]any{"url": tt.url}
			if tt.prompt != "" {
				in["prompt"] = tt.prompt
			}
			ctx := context.WithValue(context.Background(), ctxKey{}, tt.name)
			out, err := wf.Run(ctx, Call{Input: in})
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("no error; output:\n%.500s", out)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %q does not contain %q", err, tt.wantErr)
				}
				if IsDenied(err) != tt.denied {
					t.Errorf("IsDenied = %v, want %v", IsDenied(err), tt.denied)
				}
			} else if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output does not contain %q:\n%.2000s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output contains %q:\n%.2000s", w, out)
				}
			}
			if n := utf8.RuneCountInString(out); n > maxFetchOutput {
				t.Errorf("output is %d characters, over %d", n, maxFetchOutput)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if len(g.asked) != tt.asked {
				t.Errorf("gate asked %d times, want %d: %q", len(g.asked), tt.asked, g.asked)
			}
			for i, v := range g.ctxVal {
				if v != tt.name {
					t.Errorf("gate call %d got context value %v: the request's context was not passed", i, v)
				}
			}
		})
	}
	if n := srv.count("/secret"); n != 0 {
		t.Errorf("the denied redirect target was requested %d times", n)
	}
}

func TestWebFetchGateLess(t *testing.T) {
	srv := newWebServer(t)
	wf := NewWebFetch(nil, nil)
	if _, err := wf.Run(context.Background(), Call{Input: map[string]any{"url": srv.URL + "/text"}}); err != nil {
		t.Fatalf("a fetch without redirects needs no gate: %v", err)
	}
	_, err := wf.Run(context.Background(), Call{Input: map[string]any{"url": srv.URL + "/redirect?to=/text"}})
	if err == nil || !IsDenied(err) || !strings.Contains(err.Error(), "no permission gate") {
		t.Fatalf("redirect without a gate: got %v, want a denial", err)
	}
}

func TestWebFetchClient(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slowbody" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "start")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-block:
		}
	}))
	defer srv.Close()
	defer close(block)

	t.Run("timeout waiting for headers", func(t *testing.T) {
		client := &http.Client{Timeout: 200 * time.Millisecond}
		_, err := NewWebFetch(denyGate(t), client).Run(context.Background(), Call{Input: map[string]any{"url": srv.URL + "/hang"}})
		if err == nil || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("got %v, want a timeout", err)
		}
		if client.CheckRedirect != nil {
			t.Error("the caller's client was modified")
		}
	})
	t.Run("timeout reading the body", func(t *testing.T) {
		client := &http.Client{Timeout: 200 * time.Millisecond}
		_, err := NewWebFetch(denyGate(t), client).Run(context.Background(), Call{Input: map[string]any{"url": srv.URL + "/slowbody"}})
		if err == nil || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("got %v, want a timeout", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := NewWebFetch(denyGate(t), nil).Run(ctx, Call{Input: map[string]any{"url": srv.URL + "/hang"}})
		if err == nil || !strings.Contains(err.Error(), "context canceled") || strings.Contains(err.Error(), "timed out") {
			t.Fatalf("got %v, want cancellation", err)
		}
	})
	t.Run("default timeout", func(t *testing.T) {
		if c := httpClient(nil); c.Timeout != defaultHTTPTimeout {
			t.Errorf("default client timeout %v", c.Timeout)
		}
		if c := httpClient(&http.Client{Timeout: time.Second}); c.Timeout != time.Second {
			t.Errorf("caller's timeout not kept: %v", c.Timeout)
		}
	})
	t.Run("caller's redirect policy still applies", func(t *testing.T) {
		srv := newWebServer(t)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return fmt.Errorf("caller says no")
		}}
		_, err := NewWebFetch(denyGate(t), client).Run(context.Background(), Call{Input: map[string]any{"url": srv.URL + "/redirect?to=/text"}})
		if err == nil || !strings.Contains(err.Error(), "caller says no") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestCapRunes(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		limit int
		want  string
		cut   bool
	}{
		{"short", "abc", 5, "abc", false},
		{"exact", "abcde", 5, "abcde", false},
		{"cut with note", "abcdefgh", 6, "abcd[]", true},
		{"multibyte", "ééééé", 4, "éé[]", true},
		{"note longer than limit", "abcdef", 1, "[]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := capRunes(tt.s, tt.limit, "[]")
			if got != tt.want || cut != tt.cut {
				t.Errorf("capRunes(%q, %d) = %q, %v; want %q, %v", tt.s, tt.limit, got, cut, tt.want, tt.cut)
			}
		})
	}
}

// TestWebFetchPublicOnly: a fetch the gate allowed only as a public read
// (perm.Result.PublicOnly) does not connect to an internal address,
// whatever name resolved to it; one a rule allowed does. Each redirect hop
// connects as its own decision says.
func TestWebFetchPublicOnly(t *testing.T) {
	srv := newWebServer(t)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	must(t, err)
	public := Decision{perm.Result{Decision: perm.Allow, PublicOnly: true}}
	byRule := Decision{perm.Result{Decision: perm.Allow, Step: 6}}
	wf := NewWebFetch(denyGate(t), nil)
	for _, u := range []string{srv.URL + "/text", "http://localhost:" + port + "/text"} {
		_, err := wf.Run(context.Background(), Call{Input: map[string]any{"url": u}, Decision: public})
		if err == nil || !strings.Contains(err.Error(), "refused to connect to 127.0.0.1") {
			t.Errorf("public read of %s: err = %v, want the connection refused", u, err)
		}
		if out, err := wf.Run(context.Background(), Call{Input: map[string]any{"url": u}, Decision: byRule}); err != nil || !strings.Contains(out, "line one") {
			t.Errorf("fetch of %s a rule allowed: %v %q", u, err, out)
		}
	}

	// A redirect to a name the gate takes for public (this machine's
	// own), allowed as a public read, is refused when the name resolves
	// to an internal address.
	host, err := os.Hostname()
	must(t, err)
	addrs, err := net.LookupHost(host)
	if err != nil || len(addrs) == 0 {
		t.Skipf("this machine's name %q does not resolve: %v", host, err)
	}
	if a, err := netip.ParseAddr(addrs[0]); err != nil || !perm.InternalAddr(a) {
		t.Skipf("this machine's name %q resolves to %v, not an internal address", host, addrs)
	}
	target := "http://" + net.JoinHostPort(host, port) + "/text"
	_, err = wf.Run(context.Background(), Call{Input: map[string]any{"url": srv.URL + "/redirect?to=" + url.QueryEscape(target)}, Decision: byRule})
	if err == nil || !strings.Contains(err.Error(), "refused to connect to") {
		t.Errorf("redirect to %s: err = %v, want the connection refused", target, err)
	}
}
