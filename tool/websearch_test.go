package tool

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestWebSearch(t *testing.T) {
	var (
		mu   sync.Mutex
		last url.Values // query of the last request to /search
	)
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.URL.Query()
		mu.Unlock()
		q := r.URL.Query().Get("q")
		var n int
		fmt.Sscan(r.URL.Query().Get("n"), &n)
		switch q {
		case "nothing":
			fmt.Fprint(w, `{"results": []}`)
			return
		case "too many":
			// The endpoint ignores n: the tool must cut.
			n = 30
		case "messy":
			fmt.Fprint(w, `{"results": [{"title": "Two\nlines", "url": "https://a.example/\n2. forged", "snippet": "`+strings.Repeat("s", 600)+`"}, {"title": "", "url": "", "snippet": ""}]}`)
			return
		}
		var rs []string
		for i := 1; i <= n; i++ {
			rs = append(rs, fmt.Sprintf(`{"title": "Result %d for %s", "url": "https://r%d.example/", "snippet": "Snippet %d.", "extra": true}`, i, q, i, i))
		}
		fmt.Fprintf(w, `{"results": [%s], "total": 99}`, strings.Join(rs, ","))
	})
	mux.HandleFunc("/noresults", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"items": []}`) })
	mux.HandleFunc("/nullresults", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"results": null}`) })
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<html>sorry</html>`) })
	mux.HandleFunc("/wrongshape", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"results": {"title": "x"}}`) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results": [{"title": "`+strings.Repeat("x", 2<<20)+`"}]}`)
	})
	mux.HandleFunc("/limited", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/search?"+r.URL.RawQuery, http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/search", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name      string
		endpoint  string
		in        map[string]any
		want      string // the whole output, when not ""
		contains  []string
		wantErr   string
		wantQuery url.Values // expected query of the request, when not nil
	}{
		{name: "default five results", endpoint: srv.URL + "/search", in: map[string]any{"query": "go generics"},
			contains:  []string{"Results for \"go generics\":\n\n1. Result 1 for go generics\n   https://r1.example/\n   Snippet 1.\n", "5. Result 5", "\n\n"},
			wantQuery: url.Values{"q": {"go generics"}, "n": {"5"}}},
		{name: "max results passed on", endpoint: srv.URL + "/search", in: map[string]any{"query": "x", "max_results": 2.0},
			want:      "Results for \"x\":\n\n1. Result 1 for x\n   https://r1.example/\n   Snippet 1.\n2. Result 2 for x\n   https://r2.example/\n   Snippet 2.\n",
			wantQuery: url.Values{"q": {"x"}, "n": {"2"}}},
		{name: "endpoint parameters kept", endpoint: srv.URL + "/search?key=k1&lang=en", in: map[string]any{"query": "a&b=c"},
			wantQuery: url.Values{"q": {"a&b=c"}, "n": {"5"}, "key": {"k1"}, "lang": {"en"}}},
		{name: "endpoint q and n overridden", endpoint: srv.URL + "/search?q=old&n=99", in: map[string]any{"query": "new", "max_results": 1.0},
			wantQuery: url.Values{"q": {"new"}, "n": {"1"}}},
		{name: "more results than asked are cut", endpoint: srv.URL + "/search", in: map[string]any{"query": "too many", "max_results": 3.0},
			contains: []string{"3. Result 3"}},
		{name: "no results", endpoint: srv.URL + "/search", in: map[string]any{"query": "nothing"},
			want: "No results for \"nothing\".\n"},
		{name: "server text cannot forge lines", endpoint: srv.URL + "/search", in: map[string]any{"query": "messy"},
			contains: []string{"1. Two lines\n   https://a.example/ 2. forged\n   " + strings.Repeat("s", 498) + " …\n2. (untitled)\n"}},
		{name: "same-host redirect followed", endpoint: srv.URL + "/moved", in: map[string]any{"query": "x", "max_results": 1.0},
			contains: []string{"1. Result 1 for x"}},

		{name: "not configured", endpoint: "", in: map[string]any{"query": "x"},
			wantErr: "WebSearch is not configured: set GEN_SEARCH_URL to a search endpoint (see README)"},
		{name: "blank endpoint not configured", endpoint: "  ", in: map[string]any{"query": "x"},
			wantErr: "WebSearch is not configured"},
		{name: "endpoint not http", endpoint: "file:///srv/search", in: map[string]any{"query": "x"},
			wantErr: "GEN_SEARCH_URL: \"file:///srv/search\" has scheme \"file\""},
		{name: "empty query", endpoint: srv.URL + "/search", in: map[string]any{"query": "  "}, wantErr: "the query is empty"},
		{name: "missing query", endpoint: srv.URL + "/search", in: map[string]any{}, wantErr: `missing required argument "query"`},
		{name: "max results too big", endpoint: srv.URL + "/search", in: map[string]any{"query": "x", "max_results": 21.0},
			wantErr: "max_results must be between 1 and 20, got 21"},
		{name: "max results zero", endpoint: srv.URL + "/search", in: map[string]any{"query": "x", "max_results": 0.0},
			wantErr: "max_results must be between 1 and 20, got 0"},
		{name: "max results fractional", endpoint: srv.URL + "/search", in: map[string]any{"query": "x", "max_results": 2.5},
			wantErr: "must be an integer"},
		{name: "missing results field", endpoint: srv.URL + "/noresults", in: map[string]any{"query": "x"},
			wantErr: `answered JSON without a "results" array`},
		{name: "null results field", endpoint: srv.URL + "/nullresults", in: map[string]any{"query": "x"},
			wantErr: `without a "results" array`},
		{name: "not json", endpoint: srv.URL + "/html", in: map[string]any{"query": "x"},
			wantErr: "did not answer the expected JSON"},
		{name: "results not an array", endpoint: srv.URL + "/wrongshape", in: map[string]any{"query": "x"},
			wantErr: "did not answer the expected JSON"},
		{name: "answer too big", endpoint: srv.URL + "/huge", in: map[string]any{"query": "x"},
			wantErr: "answered more than 1 MiB"},
		{name: "http error status", endpoint: srv.URL + "/limited?key=SECRET", in: map[string]any{"query": "x"},
			wantErr: "search endpoint " + srv.URL + "/limited answered 429 Too Many Requests"},
		{name: "redirect to another host refused", endpoint: srv.URL + "/away", in: map[string]any{"query": "x"},
			wantErr: "redirected to another host (elsewhere.invalid)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			last = nil
			mu.Unlock()
			out, err := NewWebSearch(tt.endpoint, nil).Run(context.Background(), Call{Input: tt.in})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q (output %q)", err, tt.wantErr, out)
				}
				if strings.Contains(err.Error(), "SECRET") {
					t.Errorf("error shows the endpoint's query: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.want != "" && out != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", out, tt.want)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out, c) {
					t.Errorf("output does not contain %q:\n%s", c, out)
				}
			}
			if n := strings.Count(out, "\n   https://"); tt.in["max_results"] != nil && n > int(tt.in["max_results"].(float64)) {
				t.Errorf("%d results shown, more than max_results", n)
			}
			if tt.wantQuery != nil {
				mu.Lock()
				got := last
				mu.Unlock()
				if got.Encode() != tt.wantQuery.Encode() {
					t.Errorf("endpoint got query %q, want %q", got.Encode(), tt.wantQuery.Encode())
				}
			}
		})
	}
}

func TestSearchEndpointFromEnv(t *testing.T) {
	t.Setenv("GEN_SEARCH_URL", " https://search.example/api \n")
	if got := SearchEndpointFromEnv(); got != "https://search.example/api" {
		t.Errorf("got %q", got)
	}
	t.Setenv("GEN_SEARCH_URL", "")
	if got := SearchEndpointFromEnv(); got != "" {
		t.Errorf("got %q", got)
	}
}
