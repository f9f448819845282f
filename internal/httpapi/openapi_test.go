package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/httpapi/openapitest"
	"github.com/cardcat/cardcat/internal/mcpserver"
)

// The OpenAPI document's tests: it loads and validates as OpenAPI 3.1; it
// lists exactly the routes the mux serves; its examples are the sample's
// golden answers; it passes the linter. Every golden answer is checked
// against it by checkGolden (server_test.go).

var (
	checkerOnce sync.Once
	checker     *openapitest.Checker
	checkerErr  error
)

// answerChecker checks answers against the document of a test server. The
// test servers mostly have no rate limiter, hence no X-RateLimit-* headers:
// the end-to-end tests of cmd/cardcat check those on every answer.
func answerChecker(tb testing.TB) *openapitest.Checker {
	tb.Helper()
	checkerOnce.Do(func() {
		s, err := New(Config{}, testDeps(nil))
		if err != nil {
			checkerErr = err
			return
		}
		checker, checkerErr = openapitest.New(s.openapiBody, openapitest.AllowNoLimiter())
	})
	if checkerErr != nil {
		tb.Fatal(checkerErr)
	}
	return checker
}

// checkAnswer checks an answer against the document's operation of r.
func checkAnswer(t *testing.T, r *http.Request, w *httptest.ResponseRecorder) {
	t.Helper()
	if err := answerChecker(t).Check(r, w.Code, w.Header(), w.Body.Bytes()); err != nil {
		t.Error(err)
	}
}

func mustTestServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := New(Config{}, testDeps(nil))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestOpenAPIDocument(t *testing.T) {
	s := mustTestServer(t)
	w := get(s.Handler(), "/openapi.json", "X-API-Key", "")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET /openapi.json: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	checkAnswer(t, requestOfRecorder(t, w), w)
	doc, err := openapitest.Load(w.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() || doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://api.cardcat.test" {
		t.Errorf("servers %v, want the public URL", doc.Servers)
	}
	if doc.Info.Version != "v1.2.3-test" {
		t.Errorf("info.version %q, want the server's", doc.Info.Version)
	}
	// Public routes are marked so, paid routes so.
	for _, rt := range s.table {
		path := rt.Path
		if !rt.ServedPrefixed(s.deps.Games) {
			path = strings.TrimPrefix(path, "/{game}") // the base game's only
		}
		op := doc.Paths.Value(path).Get
		public := op.Security != nil && len(*op.Security) == 0
		if public != (rt.Access == apiref.Public) {
			t.Errorf("%s: security %v for access %d", rt.Path, op.Security, rt.Access)
		}
		if paid, _ := op.Extensions["x-paid"].(bool); paid != rt.Paid() {
			t.Errorf("%s: x-paid %v, want %v", rt.Path, op.Extensions["x-paid"], rt.Paid())
		}
		if rt.Paid() && (op.Responses.Status(http.StatusForbidden) == nil || !strings.Contains(op.Description, "Paid")) {
			t.Errorf("%s: a paid route without its 403 or its sentence", rt.Path)
		}
	}
}

func requestOfRecorder(t *testing.T, w *httptest.ResponseRecorder) *http.Request {
	t.Helper()
	r, ok := requestOf.Load(w)
	if !ok {
		t.Fatal("no request recorded")
	}
	return r.(*http.Request)
}

// TestOpenAPIRoutes: the document and the mux cannot drift. Every pattern
// the mux serves is a path and method of the document; every path of the
// document, for each game of its enum, reaches the mux's pattern of that
// route (and not the 404); every endpoint GET / lists is a path.
func TestOpenAPIRoutes(t *testing.T) {
	s := mustTestServer(t)
	doc, err := openapitest.Load(s.openapiBody)
	if err != nil {
		t.Fatal(err)
	}
	docPath := func(sr servedRoute) string {
		p := strings.TrimPrefix(sr.Pattern, sr.Route.Method()+" ")
		if g, ok := s.deps.Games.Get(sr.Game); ok && !g.Base {
			p = "/{game}" + strings.TrimPrefix(p, "/"+sr.Game)
		} // the base game's routes are paths of their own, unprefixed
		return strings.TrimSuffix(p, "{$}")
	}
	servedPaths := map[string]bool{}
	for _, sr := range s.served {
		p := docPath(sr)
		servedPaths[p] = true
		item := doc.Paths.Value(p)
		if item == nil || item.GetOperation(sr.Route.Method()) == nil {
			t.Errorf("the mux serves %s; the document has no %s %s", sr.Pattern, sr.Route.Method(), p)
		}
	}

	games := doc.Components.Parameters["game"].Value.Schema.Value.Enum
	var codes []string
	for _, g := range s.deps.Games.All() {
		if !g.Base {
			codes = append(codes, g.Code)
		}
	}
	if fmt.Sprint(games) != fmt.Sprint(codes) {
		t.Errorf("the {game} enum is %v, the registry's prefixed games %v", games, codes)
	}
	sample := strings.NewReplacer("{set}", "FB01", "{id}", "dbs_0000000000000000")
	for p, item := range doc.Paths.Map() {
		if p == mcpPath {
			// The MCP endpoint (internal/mcpserver): JSON-RPC over POST, registered beside
			// the table, so not in s.served; the one path that is not GET.
			_, pattern := s.mux.Handler(httptest.NewRequest(http.MethodPost, mcpPath, nil))
			if len(item.Operations()) != 1 || item.Post == nil || pattern != mcpPath {
				t.Errorf("%s: operations %v, the mux's pattern %q; want POST only, served", p, item.Operations(), pattern)
			}
			continue
		}
		if !servedPaths[p] {
			t.Errorf("the document has %s, which the mux does not serve", p)
		}
		for method := range item.Operations() {
			if method != http.MethodGet {
				t.Errorf("%s %s: the API answers GET only", method, p)
			}
		}
		targets := []string{p}
		if strings.HasPrefix(p, "/{game}/") {
			targets = nil
			for _, g := range games {
				targets = append(targets, strings.Replace(p, "{game}", g.(string), 1))
			}
		}
		for _, target := range targets {
			r := httptest.NewRequest(http.MethodGet, sample.Replace(target), nil)
			_, pattern := s.mux.Handler(r)
			found := slices.IndexFunc(s.served, func(sr servedRoute) bool { return sr.Mux == pattern })
			if found < 0 || docPath(s.served[found]) != p {
				t.Errorf("GET %s reaches the pattern %q, not the document's %s", r.URL.Path, pattern, p)
			}
		}
	}

	var root struct {
		Endpoints map[string]struct{ Path string }
	}
	if err := json.Unmarshal(s.rootBody[apiref.DataUnknown], &root); err != nil {
		t.Fatal(err)
	}
	for label, e := range root.Endpoints {
		p := regexp.MustCompile(`:(\w+)`).ReplaceAllString(e.Path, "{$1}")
		if doc.Paths.Value(p) == nil {
			t.Errorf("GET / lists %s at %s, which is not a path of the document", label, e.Path)
		}
	}
	for _, label := range []string{"openapi", "docs", "llms", "mcp"} {
		if _, ok := root.Endpoints[label]; !ok {
			t.Errorf("GET / does not list %s", label)
		}
	}
}

// TestOpenAPIStartup: what the document costs at start: its size, and the
// time to render it (logged; measured in bench/README.md, not asserted).
func TestOpenAPIStartup(t *testing.T) {
	s := mustTestServer(t)
	start := time.Now()
	const n = 20
	for range n {
		if _, err := apiref.OpenAPI(s.ref); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("/openapi.json: %d bytes, rendered in %v; /llms.txt: %d bytes", len(s.openapiBody), time.Since(start)/n, len(s.llmsBody))
}

// The examples of the document are the sample's golden answers
// (sample_{game}_{what}), lists cut to their first exampleItems items.
// go test ./internal/httpapi -update rewrites internal/apiref/openapi_examples.json.
const exampleItems = 3

// optionalExamples are in the sample of some games only (a set code shared
// by two sets with products: Dragon Ball Super's and Magic's).
var optionalExamples = map[string]bool{"set_code_shared": true}

// surfaceExamples are the examples of the routes of surfaces of their own
// (surface.go), the golden answers of their packages' tests, whole.
var surfaceExamples = []struct{ file, op, name, summary string }{
	{"../alertsapi/testdata/golden/alerts_list.json", "listAlerts", "alerts",
		"An account's alerts: above with a webhook, evaluated; below, fired, to its webhook and by email; a move, paused, never evaluated; a Cardmarket one without a price that emails only"},
}

var sampleExamples = []struct{ what, op, name, summary string }{
	{"sets", "listSets", "", "the sets"},
	{"set_cards", "getSetCards", "", "the newest set's first products"},
	{"set_code_shared", "getSetCards", "disambiguation", "a set code two sets share"},
	{"card", "getCard", "", "a card"},
	{"search", "searchCards", "", "a search by that card's name"},
	{"card_by_tcgplayer", "getCardByTCGplayerProduct", "", "the first linked card, by its TCGplayer productId"},
	{"card_by_cardmarket", "getCardByCardmarketProduct", "", "the same card, by its Cardmarket idProduct"},
	{"bulk", "listBulkFiles", "", "the bulk files of the sample's catalogue version"},
	{"cards", "getCards", "", "a batch: that linked card, the newest set's first card, the linked card again by its Cardmarket id (answered once), an unknown id"},
	{"changes", "listChanges", "", "the changes after one version: two cards' prices moved, one card removed"},
	{"prices", "getSetPrices", "", "the prices of a set"},
	{"statistics", "getSetStatistics", "", "the statistics of the set with the most cards"},
	{"statistics_foil", "getSetStatistics", "foil", "the same, variant=foil"},
	{"completion_value", "getSetCompletionValue", "", "the completion value of the set with the most cards"},
	{"history", "getCardHistory", "", "a week of one card's TCGplayer prices (days=7)"},
	{"trending", "getTrendingSets", "", "the trending sets"},
	{"top_cards_price_tcg", "getTopCards", "price_tcg", "the most expensive cards on TCGplayer"},
	{"top_cards_price_cm", "getTopCards", "price_cm", "the most expensive cards on Cardmarket (source=cm)"},
	{"top_cards_growth", "getTopCards", "growth", "the fastest-growing cards (metric=growth)"},
}

func TestOpenAPIExamples(t *testing.T) {
	s := mustTestServer(t)
	ex := map[string]map[string]map[string]json.RawMessage{}
	used := map[string]bool{}
	for _, g := range s.deps.Games.All() {
		for _, se := range sampleExamples {
			golden := "sample_" + g.Code + "_" + se.what
			b, err := os.ReadFile(filepath.Join("testdata", "golden", golden+".json"))
			if errors.Is(err, fs.ErrNotExist) && optionalExamples[se.what] && g.Code != "dbs" && g.Code != "mtg" {
				continue
			}
			if err != nil {
				t.Fatalf("%v (run go test ./internal/httpapi -update)", err)
			}
			used[golden] = true
			var answer struct {
				Status int
				Body   json.RawMessage
			}
			if err := json.Unmarshal(b, &answer); err != nil {
				t.Fatal(err)
			}
			value, err := cutLists(answer.Body, exampleItems)
			if err != nil {
				t.Fatal(err)
			}
			name := g.Code
			if se.name != "" {
				name += "_" + se.name
			}
			summary := g.Name + ": " + se.summary + " (the bundled sample; lists cut to " + itoa(exampleItems) + " items)"
			example, err := json.Marshal(struct {
				Summary string          `json:"summary"`
				Value   json.RawMessage `json:"value"`
			}{summary, value})
			if err != nil {
				t.Fatal(err)
			}
			status := itoa(answer.Status)
			op := se.op
			if g.Base { // the base game's own operation (pkmListSets)
				op = g.Code + strings.ToUpper(op[:1]) + op[1:]
			}
			if ex[op] == nil {
				ex[op] = map[string]map[string]json.RawMessage{}
			}
			if ex[op][status] == nil {
				ex[op][status] = map[string]json.RawMessage{}
			}
			ex[op][status][name] = example
		}
	}
	for _, se := range surfaceExamples {
		b, err := os.ReadFile(se.file)
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Status int
			Body   json.RawMessage
		}
		if err := json.Unmarshal(b, &answer); err != nil {
			t.Fatal(err)
		}
		example, err := json.Marshal(struct {
			Summary string          `json:"summary"`
			Value   json.RawMessage `json:"value"`
		}{se.summary, answer.Body})
		if err != nil {
			t.Fatal(err)
		}
		ex[se.op] = map[string]map[string]json.RawMessage{itoa(answer.Status): {se.name: example}}
	}
	goldens, _ := filepath.Glob(filepath.Join("testdata", "golden", "sample_*.json"))
	for _, f := range goldens {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !used[name] {
			t.Errorf("%s is not an example of the document: add it to sampleExamples", name)
		}
	}
	got, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const examplesFile = "../apiref/openapi_examples.json" // embedded by apiref
	if *update {
		if err := os.WriteFile(examplesFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	embedded, err := os.ReadFile(examplesFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(embedded), string(got)); diff != "" {
		t.Errorf("openapi_examples.json is stale: run go test ./internal/httpapi -update (-embedded +golden):\n%s", diff)
	}
}

// cutLists rewrites a JSON value with every array cut to its first n
// items, keeping the order of object keys.
func cutLists(in []byte, n int) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var out bytes.Buffer
	var value func() error
	value = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				out.WriteByte('{')
				for i := 0; dec.More(); i++ {
					key, err := dec.Token()
					if err != nil {
						return err
					}
					if i > 0 {
						out.WriteByte(',')
					}
					kb, _ := json.Marshal(key)
					out.Write(kb)
					out.WriteByte(':')
					if err := value(); err != nil {
						return err
					}
				}
				out.WriteByte('}')
			case '[':
				out.WriteByte('[')
				for i := 0; dec.More(); i++ {
					if i >= n {
						// Read and drop the rest of the list.
						var skip json.RawMessage
						if err := dec.Decode(&skip); err != nil {
							return err
						}
						continue
					}
					if i > 0 {
						out.WriteByte(',')
					}
					if err := value(); err != nil {
						return err
					}
				}
				out.WriteByte(']')
			}
			_, err := dec.Token() // the closing delimiter
			return err
		default:
			b, err := json.Marshal(tok)
			if err != nil {
				return err
			}
			out.Write(b)
			return nil
		}
	}
	if err := value(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// TestOpenAPILint runs Redocly's linter on the document, with the rules of
// tools/openapi-lint/redocly.yaml. .ci/run installs the linter and names it
// in CARDCAT_TEST_OPENAPI_LINT.
func TestOpenAPILint(t *testing.T) {
	lint := os.Getenv("CARDCAT_TEST_OPENAPI_LINT")
	if lint == "" {
		t.Skip("CARDCAT_TEST_OPENAPI_LINT is not set: the OpenAPI linter is not run (.ci/run installs it from tools/openapi-lint and sets it)")
	}
	config, err := filepath.Abs(filepath.Join("..", "..", "tools", "openapi-lint", "redocly.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := mustTestServer(t)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, s.openapiBody, "", "  "); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, pretty.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lint, "lint", "--config", config, "--format", "stylish", file)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s lint: %v\n%s", lint, err, out)
	}
	if regexp.MustCompile(`You have \d+ warnings?`).Match(out) {
		t.Errorf("the linter warns (fix the document, or relax the rule in redocly.yaml with the reason):\n%s", out)
	}
}

// TestLLMsTxt: /llms.txt is plain text, public, and has a line for every
// route of the table and the links to the document and the docs.
func TestLLMsTxt(t *testing.T) {
	s := mustTestServer(t)
	w := get(s.Handler(), "/llms.txt", "X-API-Key", "")
	checkAnswer(t, requestOfRecorder(t, w), w)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET /llms.txt: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	body, _ := io.ReadAll(w.Body)
	text := string(body)
	for _, rt := range s.table {
		path := rt.Path
		if !rt.ServedPrefixed(s.deps.Games) {
			path = strings.TrimPrefix(path, "/{game}") // the base game's only
		}
		if !strings.Contains(text, "\n- GET "+path+": ") && !strings.Contains(text, "\n- GET "+path+" (") {
			t.Errorf("/llms.txt has no line for GET %s", path)
		}
	}
	for _, tool := range mcpserver.Tools {
		if !strings.Contains(text, "`"+tool.Name+"`") {
			t.Errorf("/llms.txt does not name the MCP tool %s", tool.Name)
		}
	}
	for _, want := range []string{"https://api.cardcat.test/openapi.json", "https://api.cardcat.test/docs", "X-API-Key", "Retry-After", "429",
		"POST https://api.cardcat.test/mcp"} {
		if !strings.Contains(text, want) {
			t.Errorf("/llms.txt does not say %q", want)
		}
	}
	lines := strings.Split(text, "\n")
	sort.Slice(lines, func(i, j int) bool { return len(lines[i]) > len(lines[j]) })
	t.Logf("/llms.txt: %d bytes, %d lines, the longest %d characters", len(body), strings.Count(text, "\n"), len(lines[0]))
}

// TestOpenAPIPublicAnswers: the public routes' answers, the docs page's
// 200, 304 and 404 included, match the document.
func TestOpenAPIPublicAnswers(t *testing.T) {
	h := docsHandler(t)
	for _, target := range []string{"/", "/games", "/health", "/openapi.json", "/llms.txt", "/docs"} {
		w := get(h, target, "X-API-Key", "")
		if w.Code != http.StatusOK {
			t.Errorf("GET %s: %d", target, w.Code)
		}
		checkAnswer(t, requestOfRecorder(t, w), w)
		if etag := w.Header().Get("ETag"); etag != "" {
			w := get(h, target, "X-API-Key", "", "If-None-Match", etag)
			if w.Code != http.StatusNotModified {
				t.Errorf("GET %s with its ETag: %d", target, w.Code)
			}
			checkAnswer(t, requestOfRecorder(t, w), w)
		}
	}
	w := get(fixtureHandler(t), "/docs", "X-API-Key", "") // a server without docs
	if w.Code != http.StatusNotFound {
		t.Errorf("GET /docs without docs: %d", w.Code)
	}
	checkAnswer(t, requestOfRecorder(t, w), w)
}
