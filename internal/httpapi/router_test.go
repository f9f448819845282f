package httpapi

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestRouterAgreesWithMux: for the API's every pattern, the router's tree
// dispatches a GET to the pattern ServeMux would, with the same path
// values, on every route's path with its wildcards filled from a
// vocabulary of the patterns' own segments and ids, and on random paths
// of those segments; and it takes every route's path itself (the fast path
// is used), leaving only what it must to the ServeMux.
func TestRouterAgreesWithMux(t *testing.T) {
	s, err := New(Config{}, testDeps(mustView(t, mustFixture(t))))
	if err != nil {
		t.Fatal(err)
	}
	// The same patterns on a router whose handlers say which pattern and
	// which values they were given.
	type got struct {
		pattern string
		values  string
	}
	var last got
	rt := newRouter()
	vocab := []string{"x", "dbs_0123456789abcdef", "pkm_00000000000000ff", "123", "0", "history", "image", "last",
		"tcgplayer", "cardmarket", "mcp", "assets", "a.b", "Ünï", "-1", strings.Repeat("z", 300)}
	for _, p := range s.mux.patterns {
		rt.Handle(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var vals []string
			for seg := range strings.SplitSeq(strings.TrimPrefix(p, "GET "), "/") {
				if name, ok := wildcardName(seg); ok {
					vals = append(vals, name+"="+pathValue(r, name))
				}
			}
			last = got{p, strings.Join(vals, "&")}
		}))
		for seg := range strings.SplitSeq(strings.TrimPrefix(p, "GET "), "/") {
			if _, wild := wildcardName(seg); !wild && seg != "" && seg != "{$}" && !slices.Contains(vocab, seg) {
				vocab = append(vocab, seg)
			}
		}
	}
	if len(rt.patterns) < 50 {
		t.Fatalf("only %d patterns registered", len(rt.patterns))
	}
	serve := func(h http.Handler, path string) got {
		last = got{}
		h.ServeHTTP(httptest.NewRecorder(), withState(httptest.NewRequest(http.MethodGet, path, nil)))
		return last
	}
	check := func(path string) (fast bool) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		var vals [maxPathValues]pathParam
		m, _ := rt.match(r, &vals)
		want := serve(rt.mux, path)
		if m == nil {
			return false
		}
		if g := serve(rt, path); g != want {
			t.Errorf("GET %s: the tree gives %+v, ServeMux %+v", path, g, want)
		}
		if _, p := rt.Handler(r); p != want.pattern {
			t.Errorf("GET %s: Handler says %q, ServeMux dispatches to %q", path, p, want.pattern)
		}
		return true
	}

	// Every GET route's own paths go the fast way and agree.
	routes := 0
	for _, p := range rt.patterns {
		path, ok := strings.CutPrefix(p, "GET ")
		if !ok {
			continue
		}
		path = strings.TrimSuffix(path, "{$}")
		for _, v := range vocab {
			filled := path
			for seg := range strings.SplitSeq(path, "/") {
				if _, wild := wildcardName(seg); wild {
					filled = strings.Replace(filled, seg, v, 1)
				}
			}
			if !check(filled) && filled == path {
				t.Errorf("GET %s (pattern %q) is left to ServeMux", filled, p)
			}
		}
		routes++
	}
	// Random paths of the vocabulary's segments: where the tree answers,
	// it agrees.
	rng := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for range 100_000 {
		segs := make([]string, 1+rng.IntN(5))
		for i := range segs {
			segs[i] = vocab[rng.IntN(len(vocab))]
		}
		if check("/" + strings.Join(segs, "/")) {
			fast++
		}
	}
	t.Logf("%d GET patterns; %d of 100,000 random paths dispatched by the tree", routes, fast)
	if fast == 0 {
		t.Error("no random path took the tree")
	}

	// What the tree leaves to ServeMux: other methods, escapes, unclean paths.
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/mcp"}, {http.MethodHead, "/dbs/sets"}, {http.MethodGet, "/dbs/cards/a%2Fb"},
		{http.MethodGet, "/dbs//sets"}, {http.MethodGet, "/dbs/sets/"}, {http.MethodGet, "/dbs/./sets"}, {http.MethodGet, "/mcp"},
	} {
		var vals [maxPathValues]pathParam
		if m, _ := rt.match(httptest.NewRequest(c.method, c.path, nil), &vals); m != nil {
			t.Errorf("%s %s: the tree takes it (pattern %q); ServeMux should", c.method, c.path, m.pattern)
		}
	}
}

// BenchmarkRouter: dispatching the hot routes' GETs (a card, a set page, a
// search, an unknown path) to a handler that reads its path value, by the
// router's tree and by the ServeMux alone, on the API's patterns.
func BenchmarkRouter(b *testing.B) {
	s, err := New(Config{}, testDeps(mustView(b, mustFixture(b))))
	if err != nil {
		b.Fatal(err)
	}
	rt := newRouter()
	n := 0
	for _, p := range s.mux.patterns {
		rt.Handle(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n += len(pathValue(r, "id")) }))
	}
	var reqs []*http.Request
	for _, p := range []string{"/dbs/cards/dbs_0123456789abcdef", "/cards/pkm_0123456789abcdef", "/op/sets/OP01",
		"/dbs/search", "/mtg/sets/123/statistics", "/dbs/nothing/here"} {
		reqs = append(reqs, withState(httptest.NewRequest(http.MethodGet, p, nil)))
	}
	w := &sink{h: http.Header{}}
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"Tree", rt}, {"ServeMux", rt.mux}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := *reqs[i%len(reqs)] // a fresh request: ServeMux sets path values on it
				c.h.ServeHTTP(w, &r)
				i++
			}
		})
	}
}

// withState gives r the request state withRequest gives every request.
func withState(r *http.Request) *http.Request {
	return r.WithContext(&request{Context: r.Context()})
}
