package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
)

const (
	defaultSearchResults = 5
	maxSearchResults     = 20
	// maxSearchBody caps the search endpoint's answer.
	maxSearchBody = 1 << 20
	// maxSnippetRunes caps one result's snippet.
	maxSnippetRunes = 500
)

// errSearchNotConfigured is what every WebSearch call returns when no
// endpoint is set.
var errSearchNotConfigured = errors.New("WebSearch is not configured: set GEN_SEARCH_URL to a search endpoint (see README)")

// SearchEndpointFromEnv returns the search endpoint configured in the
// environment variable GEN_SEARCH_URL, "" when unset.
func SearchEndpointFromEnv() string { return strings.TrimSpace(os.Getenv("GEN_SEARCH_URL")) }

// NewWebSearch returns the WebSearch tool, which asks a search service
// at endpoint. gen ships no search engine; any service (or a small
// adapter in front of one) that speaks this protocol works:
//
//	GET <endpoint>?q=<query>&n=<max_results>
//
// with q and n added to whatever query parameters endpoint already has
// (an API key, say), answered with status 200 and a JSON body of at most
// 1 MiB:
//
//	{"results": [{"title": "…", "url": "…", "snippet": "…"}, …]}
//
// An answer without a "results" array is an error, not an empty result.
// At most n results are shown, as a numbered list. Redirects are followed
// only within the endpoint's host.
//
// With an empty endpoint every call fails, telling the model the tool is
// not configured. client is not modified; a copy with a 30 s Timeout (when
// it has none) is used, and nil means a default client.
func NewWebSearch(endpoint string, client *http.Client) Tool {
	c := httpClient(client)
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if !strings.EqualFold(req.URL.Hostname(), via[0].URL.Hostname()) {
			return fmt.Errorf("the search endpoint redirected to another host (%s), which WebSearch does not follow", req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return webSearch{endpoint: strings.TrimSpace(endpoint), client: c}
}

type webSearch struct {
	endpoint string
	client   *http.Client
}

func (webSearch) Name() string { return "WebSearch" }

// searchResult is one entry of the endpoint's answer.
type searchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

func (s webSearch) Run(ctx context.Context, call Call) (string, error) {
	in := call.Input
	const name = "WebSearch"
	if s.endpoint == "" {
		return "", errSearchNotConfigured
	}
	query, err := requiredString(name, in, "query")
	if err != nil {
		return "", err
	}
	query = strings.TrimSpace(query)
	if query == "" {
		return "", fmt.Errorf("%s: the query is empty", name)
	}
	n, ok, err := intArg(name, in, "max_results")
	if err != nil {
		return "", err
	}
	if !ok {
		n = defaultSearchResults
	} else if n < 1 || n > maxSearchResults {
		return "", fmt.Errorf("%s: max_results must be between 1 and %d, got %d", name, maxSearchResults, n)
	}
	u, err := webURL(s.endpoint)
	if err != nil {
		return "", fmt.Errorf("%s: GEN_SEARCH_URL: %w", name, err)
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("n", strconv.FormatInt(n, 10))
	u.RawQuery = q.Encode()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	// Errors name the endpoint without its query: it may hold a key.
	where := "search endpoint " + u.Scheme + "://" + u.Host + u.Path
	resp, err := s.client.Do(req)
	if err != nil {
		return "", httpError(name, where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s answered %s", name, where, resp.Status)
	}
	body, cut, err := readCapped(resp.Body, maxSearchBody)
	if err != nil {
		return "", httpError(name, where, err)
	}
	if cut {
		return "", fmt.Errorf("%s: %s answered more than %d MiB", name, where, maxSearchBody>>20)
	}
	var ans struct {
		Results *[]searchResult `json:"results"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return "", fmt.Errorf("%s: %s did not answer the expected JSON {\"results\": [...]}: %w", name, where, err)
	}
	if ans.Results == nil {
		return "", fmt.Errorf("%s: %s answered JSON without a \"results\" array", name, where)
	}
	results := *ans.Results
	if len(results) == 0 {
		return fmt.Sprintf("No results for %q.\n", query), nil
	}
	results = results[:min(len(results), int(n))]
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q:\n\n", query)
	for i, r := range results {
		title := oneLine(r.Title)
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, title)
		if u := oneLine(r.URL); u != "" {
			fmt.Fprintf(&b, "   %s\n", u)
		}
		if sn, _ := capRunes(oneLine(r.Snippet), maxSnippetRunes, " …"); sn != "" {
			fmt.Fprintf(&b, "   %s\n", sn)
		}
	}
	return b.String(), nil
}
