package tool

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"

	"github.com/gen-run/gen/perm"
)

const (
	// maxFetchBody is how much of a response body WebFetch reads.
	maxFetchBody = 5 << 20
	// maxFetchOutput caps WebFetch's result, in characters (runes).
	maxFetchOutput = 100_000
	// maxRedirects is how many redirects one fetch follows.
	maxRedirects = 10
	// maxPromptEcho caps the prompt echoed at the top of the result.
	maxPromptEcho = 1000
)

// NewWebFetch returns the WebFetch tool: an HTTP GET of an http or https
// URL whose answer comes back as text. HTML is converted to markdown,
// text/* and JSON are returned as they are, other content types are
// refused. At most 5 MiB of a body is read and at most 100,000 characters
// returned; both cuts are marked in the output.
//
// The gate that guards the tool checks the URL the model asked for, but a
// server can redirect anywhere, so every redirect target is checked
// against g as if the model had asked for it, and the fetch stops at the
// first target g does not allow (or after 10 redirects). A nil g allows no
// redirect.
//
// client is not modified; a copy is used, with a 30 s Timeout when it has
// none. A nil client is a default client with that timeout.
//
// The prompt argument is not interpreted: no model runs inside the tool.
// It is echoed at the top of the result so the content stays attached to
// the question it was fetched for.
//
// A fetch the gate allowed only as a public read (perm.Result.PublicOnly)
// does not connect to an address perm.InternalAddr names, whatever name
// resolved to it (dialGuard).
func NewWebFetch(g Gate, client *http.Client) Tool {
	return webFetch{client: httpClient(client), gate: g}
}

// checkRedirect decides whether a fetch may follow a redirect to req, and
// returns the gate's decision on it.
func checkRedirect(g Gate, req *http.Request, via []*http.Request) (perm.Result, error) {
	target := req.URL.String()
	if len(via) > maxRedirects {
		return perm.Result{}, fmt.Errorf("stopped after %d redirects (the last one to %s)", maxRedirects, target)
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return perm.Result{}, fmt.Errorf("redirect to %s refused: only http and https URLs can be fetched", target)
	}
	res := perm.Result{Decision: perm.Deny, Reason: "there is no permission gate to check it against"}
	if g != nil {
		res = g.Check(req.Context(), perm.Request{Tool: "WebFetch", Input: map[string]any{"url": target}})
	}
	if res.Decision != perm.Allow {
		return res, &RedirectDeniedError{URL: target, Result: res}
	}
	return res, nil
}

// fetchClient returns the client for one fetch decided by res: f's, with
// redirects checked against the gate, and, for a public read, its
// connections guarded. A client whose transport is not an *http.Transport
// cannot be guarded: a public read through it is refused.
func (f webFetch) fetchClient(res perm.Result) (*http.Client, error) {
	c := *f.client
	guard := &dialGuard{}
	guard.publicOnly.Store(res.PublicOnly)
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		hop, err := checkRedirect(f.gate, req, via)
		if err != nil {
			return err
		}
		// Each hop connects as its own decision allows.
		guard.publicOnly.Store(hop.PublicOnly)
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	t, ok := base.(*http.Transport)
	switch {
	case ok:
		c.Transport = guard.transport(t)
	case res.PublicOnly:
		return nil, errors.New("this client's connections cannot be checked for internal addresses")
	}
	return &c, nil
}

// dialGuard refuses connections to internal addresses (perm.InternalAddr)
// while publicOnly is set, checking the address a name resolved to, just
// before connecting. A request through a proxy is not checked: the proxy
// resolves the name (the gate's check of the host still applies).
type dialGuard struct {
	publicOnly, viaProxy atomic.Bool
}

// transport returns a copy of t that dials through g.
func (g *dialGuard) transport(t *http.Transport) *http.Transport {
	t = t.Clone()
	if proxy := t.Proxy; proxy != nil {
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			u, err := proxy(req)
			g.viaProxy.Store(u != nil)
			return u, err
		}
	}
	d := &net.Dialer{Timeout: defaultHTTPTimeout, KeepAlive: 30 * time.Second, Control: g.control}
	t.DialContext = d.DialContext
	t.DialTLSContext = nil
	// Every hop of a fetch dials afresh, so each is checked as its own
	// decision says.
	t.DisableKeepAlives = true
	return t
}

func (g *dialGuard) control(_, address string, _ syscall.RawConn) error {
	if !g.publicOnly.Load() || g.viaProxy.Load() {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	if perm.InternalAddr(a) {
		return fmt.Errorf("refused to connect to %s: the name resolved to a loopback, link-local or private address, which only an allow rule or your approval may fetch", a)
	}
	return nil
}

// RedirectDeniedError is returned by WebFetch when the gate refused a
// redirect target. It wraps a *DeniedError, so IsDenied reports true.
type RedirectDeniedError struct {
	URL    string
	Result perm.Result
}

func (e *RedirectDeniedError) Error() string {
	return fmt.Sprintf("redirect to %s denied: %s", e.URL, e.Result.Reason)
}

func (e *RedirectDeniedError) Unwrap() error { return &DeniedError{Result: e.Result} }

type webFetch struct {
	client *http.Client
	gate   Gate
}

func (webFetch) Name() string { return "WebFetch" }

func (f webFetch) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "WebFetch"
	raw, err := requiredString(name, in, "url")
	if err != nil {
		return "", err
	}
	prompt, _, err := stringArg(name, in, "prompt")
	if err != nil {
		return "", err
	}
	u, err := webURL(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, text/*;q=0.8")
	client, err := f.fetchClient(call.Decision.Result)
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", name, u.String(), err)
	}
	resp, err := client.Do(req)
	if err != nil {
		var rd *RedirectDeniedError
		if errors.As(err, &rd) {
			return "", fmt.Errorf("%s: %w", name, rd)
		}
		return "", httpError(name, u.String(), err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("%s: %s: the server answered %s", name, final, resp.Status)
	}
	body, cut, err := readCapped(resp.Body, maxFetchBody)
	if err != nil {
		return "", httpError(name, final, err)
	}
	media, params := mediaType(resp.Header.Get("Content-Type"), body)
	html := media == "text/html" || media == "application/xhtml+xml"
	if !html && !isTextual(media) {
		return "", fmt.Errorf("%s: %s: content type %s is not text, HTML or JSON, so it cannot be shown", name, final, media)
	}
	text := decodeText(body, params["charset"])
	if html {
		md, err := htmltomarkdown.ConvertString(text, converter.WithDomain(final), converter.WithContext(ctx))
		if err != nil {
			return "", fmt.Errorf("%s: %s: converting the HTML to markdown: %w", name, final, err)
		}
		text = md
	}

	var head strings.Builder
	fmt.Fprintf(&head, "URL: %s\n", final)
	if final != u.String() {
		fmt.Fprintf(&head, "Redirected from: %s\n", u.String())
	}
	fmt.Fprintf(&head, "Content-Type: %s\n", media)
	if p, _ := capRunes(oneLine(prompt), maxPromptEcho, " …"); p != "" {
		fmt.Fprintf(&head, "Prompt: %s\n", p)
	}
	head.WriteString("\n")
	if strings.TrimSpace(text) == "" {
		text = "(the response body is empty)"
	}
	text = strings.TrimRight(text, "\n") + "\n"
	tail := ""
	if cut {
		tail = fmt.Sprintf("\n[response truncated: only the first %d MiB were read]\n", maxFetchBody>>20)
	}
	// The content gives way, so the header and the notes always fit.
	budget := maxFetchOutput - utf8.RuneCountInString(head.String()) - utf8.RuneCountInString(tail)
	text, _ = capRunes(text, budget, fmt.Sprintf("\n[output truncated at %d characters]\n", maxFetchOutput))
	return head.String() + text + tail, nil
}

// mediaType returns the lower-case media type and parameters of a
// Content-Type header, sniffing body when the header is missing or
// unparsable.
func mediaType(header string, body []byte) (string, map[string]string) {
	if header != "" {
		if m, params, err := mime.ParseMediaType(header); err == nil {
			return strings.ToLower(m), params
		}
	}
	m, params, _ := mime.ParseMediaType(http.DetectContentType(body))
	return m, params
}

// isTextual reports whether media is returned as it is: text/* or JSON.
func isTextual(media string) bool {
	return strings.HasPrefix(media, "text/") ||
		media == "application/json" || strings.HasSuffix(media, "+json")
}

// decodeText returns body as UTF-8. ISO-8859-1 is decoded (each byte is
// the code point of the same number); every other charset is taken as
// UTF-8, with invalid bytes replaced (a character cut in two by the body
// cap among them), since the model needs valid text.
func decodeText(body []byte, charset string) string {
	switch strings.ToLower(charset) {
	case "iso-8859-1", "latin1", "iso_8859-1", "l1":
		r := make([]rune, len(body))
		for i, c := range body {
			r[i] = rune(c)
		}
		return string(r)
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}
