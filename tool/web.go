package tool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// defaultHTTPTimeout bounds one WebFetch or WebSearch request, from
// connecting to the last byte of the body.
const defaultHTTPTimeout = 30 * time.Second

// userAgent identifies the web tools to the servers they talk to.
const userAgent = "gen (+https://github.com/gen-run/gen)"

// httpClient returns a copy of c, or a new client when c is nil, whose
// Timeout is set (defaultHTTPTimeout when c has none): no web request may
// wait forever. The caller's client is never modified.
func httpClient(c *http.Client) *http.Client {
	var cp http.Client
	if c != nil {
		cp = *c
	}
	if cp.Timeout <= 0 {
		cp.Timeout = defaultHTTPTimeout
	}
	return &cp
}

// webURL parses raw as an absolute http or https URL with a host.
func webURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid URL: %w", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("%q is not an absolute URL: give it with http:// or https://", raw)
	default:
		return nil, fmt.Errorf("%q has scheme %q: only http and https URLs can be fetched", raw, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host", raw)
	}
	return u, nil
}

// readCapped reads r to its end or to limit bytes, whichever comes first,
// and reports whether there was more. Reading stops at limit, so an
// endless body costs no more than limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}

// httpError turns an error from a request to u into a message for the
// model, naming the timeout when it was one.
func httpError(tool string, u string, err error) error {
	// A *url.Error repeats the method and URL; keep what it wraps.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if !errors.Is(err, context.Canceled) &&
		(errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%s: %s: timed out: %w", tool, u, err)
	}
	return fmt.Errorf("%s: %s: %w", tool, u, err)
}

// capRunes returns s cut to at most limit runes in total, the note
// included when a cut is made, and whether it cut.
func capRunes(s string, limit int, note string) (string, bool) {
	if utf8.RuneCountInString(s) <= limit {
		return s, false
	}
	keep := max(limit-utf8.RuneCountInString(note), 0)
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + note, true
		}
		n++
	}
	return s + note, true
}

// oneLine collapses runs of white space (newlines included) to one space,
// so text from a server cannot forge lines of the tool's own output.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
