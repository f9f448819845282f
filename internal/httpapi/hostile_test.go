package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alertsapi"
	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/mcpserver"
	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
)

// hostileRequest is one line of testdata/hostile.txt.
type hostileRequest struct {
	line    int
	method  string
	target  string
	headers [][2]string
}

func (h hostileRequest) String() string {
	return fmt.Sprintf("hostile.txt:%d %s %.120q", h.line, h.method, h.target)
}

var repeatRe = regexp.MustCompile(`\{([^{}*]+)\*(\d+)\}`)

// expandHostile replaces the placeholders of a field of hostile.txt.
func expandHostile(s string) string {
	s = strings.NewReplacer("{key}", keyUltra, "{goku}", catalog.TCGCardID("dbs", 535600),
		"{cm}", catalog.CMCardID("dbs", 13, 700001)).Replace(s)
	return repeatRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := repeatRe.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[2])
		return strings.Repeat(sub[1], n)
	})
}

// loadHostile reads testdata/hostile.txt.
func loadHostile(tb testing.TB) []hostileRequest {
	tb.Helper()
	b, err := os.ReadFile("testdata/hostile.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var out []hostileRequest
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		for j, f := range fields {
			if strings.HasPrefix(f, `"`) {
				u, err := strconv.Unquote(f)
				if err != nil {
					tb.Fatalf("hostile.txt:%d: field %d: %v", i+1, j+1, err)
				}
				f = u
			}
			fields[j] = expandHostile(f)
		}
		if len(fields) < 2 {
			tb.Fatalf("hostile.txt:%d: want method, target and headers separated by tabs", i+1)
		}
		req := hostileRequest{line: i + 1, method: fields[0], target: fields[1]}
		for _, h := range fields[2:] {
			name, value, ok := strings.Cut(h, ":")
			if !ok {
				tb.Fatalf("hostile.txt:%d: header %q without a colon", i+1, h)
			}
			req.headers = append(req.headers, [2]string{name, strings.TrimPrefix(value, " ")})
		}
		out = append(out, req)
	}
	return out
}

// hostilePayloads go into every path wildcard and query parameter of every
// route, one at a time.
var hostilePayloads = []string{
	"' OR '1'='1", "1; DROP TABLE cards;--", `" UNION SELECT key_hash FROM api_keys --`, "%' AND SLEEP(5)--",
	"<script>alert(1)</script>", `"><img src=x onerror=alert(1)>`, "../../../../etc/passwd", "..\\..\\win.ini",
	"\x00", "a\x00b", "\xff\xfe", "\r\nSet-Cookie: x=1", "${jndi:ldap://evil/a}", "{{7*7}}", "\u202egoku",
	strings.Repeat("A", 4096), "", " ", "-1", "0", "99999999999999999999999999", "1e309", "NaN", "🃏🃏",
}

// hostileMCPBodies are POSTed to /mcp with a valid key: not JSON, not one
// message, messages of the wrong types, and tool calls with hostile
// arguments.
var hostileMCPBodies = []string{
	"", " ", "garbage", "\x00", "\xef\xbb\xbf" + mcpserver.ListTools, "{", "}", "[[[[", `"`, "null", "true", "-0", "1e999",
	mcpserver.ListTools + " trailing", mcpserver.ListTools + mcpserver.ListTools, `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\x00",
	`[]`, `[` + mcpserver.ListTools + `]`, `[1,2,3]`, `[` + strings.Repeat(mcpserver.ListTools+",", 100) + mcpserver.ListTools + `]`,
	`{}`, `{"jsonrpc":2.0}`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":[],"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `{"jsonrpc":"2.0","id":-1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 10000) + `","method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`, `{"jsonrpc":"2.0","id":1,"method":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"method":"tools/call\u0000"}`,
	`{"jsonrpc":"2.0","id":1,"method":"TOOLS/LIST"}`, `{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}`, `{"jsonrpc":"2.0","id":1,"method":"__proto__"}`,
	`{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping","method":"nope"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat(`{"a":`, 999) + `1` + strings.Repeat(`}`, 1000) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"sampling":"yes","elicitation":[]},"clientInfo":{"name":{},"icons":"x"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.0.0","capabilities":{"experimental":{"x":[[[1]]]}},"clientInfo":{"name":"x","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_card","arguments":{"game":"dbs","id":"../../../etc/passwd"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_cards","arguments":{"game":"dbs","q":"' OR 1=1--"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_set_cards","arguments":{"game":"dbs","set":"<script>alert(1)</script>","limit":1e999}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":{"$ne":null}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sets","arguments":"game=dbs"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":"dbs"},"inputResponses":{"x":5}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":"dbs"},"inputResponses":[]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":"dbs"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + strings.Repeat("x", 5000) + `"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":["debug"]}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":{}}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":"half"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_card\",\"arguments\":{\"game\":\"dbs\",\"id\":\"\xff\xfe\"}}}",
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sets","arguments":{"game":"dbs"}}}`,
}

// hostileServer is the API on the fixture with everything a deployment
// serves: keys (the paid test accounts), the in-process limiter, the docs
// site and images from a fake source.
func hostileServer(t *testing.T) (*Server, http.Handler) {
	t.Helper()
	lim := memory.New(memory.Options{})
	t.Cleanup(func() { lim.Close() })
	st, err := fileblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cdn := newFakeCDN(t)
	img, err := images.New(images.Config{
		SourceURL:    cdn.srv.URL + "/product/{productId}_in_1000x1000.jpg",
		FetchTimeout: 2 * time.Second,
	}, st, images.WithClock(func() time.Time { return testNow }))
	if err != nil {
		t.Fatal(err)
	}
	deps := paidDeps(mustView(t, mustFixture(t)))
	deps.Limiter, deps.Docs, deps.Images = lim, cardcat.Docs(), img
	// Every route of four games, every payload: more than a plan's hour.
	deps.Auth = roomyAuth{deps.Auth}
	// Price history and alerts from a real store: any 5xx of either is a failure here.
	db := historyStore(t)
	deps.History, deps.Alerts = db, &alertsapi.Handler{Store: db}
	s, err := New(Config{GuardPerHour: 1 << 30}, deps)
	if err != nil {
		t.Fatal(err)
	}
	return s, s.Handler()
}

// TestHostileRequests replays testdata/hostile.txt and, generated from the
// route table, every hostile payload in every path wildcard and query
// parameter of every route and every method on every route: in process
// and, for the corpus, over a real server. No answer is a 5xx; every error
// the API writes is JSON {error, message}; afterwards the goroutines are
// back to where they were and the heap has not grown past a bound.
func TestHostileRequests(t *testing.T) {
	corpus := loadHostile(t)
	s, h := hostileServer(t)
	srv := httptest.NewServer(h)

	// Warm up what is built once (prices by set, docs pages), then measure.
	for _, req := range corpus {
		if r, ok := hostileHTTPRequest(req); ok {
			h.ServeHTTP(httptest.NewRecorder(), r)
		}
	}
	goroutines, heap := settle()

	t.Run("corpus in process", func(t *testing.T) {
		statuses := map[int]int{}
		for _, req := range corpus {
			r, ok := hostileHTTPRequest(req)
			if !ok {
				continue // net/http refuses its request line: sent over the wire below
			}
			w, _ := serveChecked(t, h, r)
			statuses[w.Code]++
		}
		t.Logf("%d of %d requests, statuses %v", sum(statuses), len(corpus), statuses)
	})
	t.Run("corpus over the wire", func(t *testing.T) {
		statuses := map[int]int{}
		for _, req := range corpus {
			statuses[sendRaw(t, srv.Listener.Addr().String(), req)]++
		}
		t.Logf("%d requests, statuses %v (0: refused by net/http in plain text)", len(corpus), statuses)
	})
	t.Run("MCP bodies", func(t *testing.T) {
		for i, body := range hostileMCPBodies {
			desc := fmt.Sprintf("POST /mcp hostileMCPBodies[%d] %.100q", i, body)
			r := httptest.NewRequest(http.MethodPost, mcpPath, strings.NewReader(body))
			r.Header.Set("X-API-Key", keyUltra)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			checkMCPAnswer(t, desc, w.Code, w.Header(), w.Body.Bytes())

			r, _ = http.NewRequest(http.MethodPost, srv.URL+mcpPath, strings.NewReader(body))
			r.Header = http.Header{"X-Api-Key": {keyUltra}, "Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			resp, err := srv.Client().Do(r)
			if err != nil {
				t.Fatalf("%s over the wire: %v", desc, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			checkMCPAnswer(t, desc+" over the wire", resp.StatusCode, resp.Header, b)
		}
	})
	t.Run("every route, every parameter", func(t *testing.T) {
		n := 0
		for _, target := range hostileTargets(s) {
			r, ok := newRawRequest(http.MethodGet, target)
			if !ok {
				continue
			}
			r.Header.Set("X-API-Key", keyUltra)
			if w, _ := serveChecked(t, h, r); w.Code == http.StatusTooManyRequests {
				t.Fatalf("GET %.200s: 429 after %d requests: the test outgrew the Ultra quota", target, n)
			}
			n++
		}
		t.Logf("%d requests", n)
	})
	t.Run("every method", func(t *testing.T) {
		for _, sr := range s.served {
			_, path, _ := strings.Cut(sr.Pattern, " ")
			path = strings.NewReplacer("{set}", "23401", "{id}", catalog.TCGCardID("dbs", 535600),
				"{page}", "nope", "{file}", "nope").Replace(path)
			for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "FOO"} {
				r, ok := newRawRequest(m, path)
				if !ok {
					t.Fatalf("%s %s: not a request", m, path)
				}
				r.Header.Set("X-API-Key", keyUltra)
				r.Header.Set("Origin", "https://x.example")
				serveChecked(t, h, r)
			}
		}
	})

	srv.CloseClientConnections()
	srv.Close()
	// One more request in process keeps the server (and its caches) alive
	// until the heap is measured.
	defer runtime.KeepAlive(h)
	g, hp := settle()
	for deadline := time.Now().Add(5 * time.Second); g > goroutines && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		g, hp = settle()
	}
	if g > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before the hostile requests, %d after:\n%s", goroutines, g, buf[:runtime.Stack(buf, true)])
	}
	const heapBound = 16 << 20
	if hp > heap+heapBound {
		t.Errorf("heap: %d bytes before the hostile requests, %d after a GC: grew more than %d", heap, hp, heapBound)
	}
	t.Logf("goroutines %d -> %d, heap %d KiB -> %d KiB", goroutines, g, heap>>10, hp>>10)
}

// settle runs the GC and returns the goroutine count and the live heap.
func settle() (goroutines int, heap uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}

// hostileHTTPRequest is the in-process request of a corpus line, or false
// when net/http would refuse its request line before any handler.
func hostileHTTPRequest(req hostileRequest) (*http.Request, bool) {
	r, ok := newRawRequest(req.method, req.target)
	if !ok {
		return nil, false
	}
	for _, hd := range req.headers {
		// In process the values reach the handler as they are (CR, LF,
		// NUL included), as from a client that does not check them.
		r.Header[http.CanonicalHeaderKey(hd[0])] = append(r.Header[http.CanonicalHeaderKey(hd[0])], hd[1])
	}
	if u, err := url.Parse(req.target); err == nil && u.Host != "" {
		r.Host = u.Host
	}
	for _, hd := range req.headers {
		if strings.EqualFold(hd[0], "Host") {
			r.Host = hd[1]
		}
	}
	return r, true
}

// sendRaw writes a corpus line as raw bytes on a new connection and checks
// the answer. net/http's own refusals of a malformed request (400, 431)
// are plain text by design, written before any handler runs; any other
// error must be the API's JSON.
func sendRaw(t *testing.T, addr string, req hostileRequest) (status int) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	b.WriteString(req.method + " " + req.target + " HTTP/1.1\r\n")
	hasHost := false
	for _, hd := range req.headers {
		hasHost = hasHost || strings.EqualFold(hd[0], "Host")
		b.WriteString(hd[0] + ": " + hd[1] + "\r\n")
	}
	if !hasHost {
		b.WriteString("Host: api.cardcat.test\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatalf("%v: write: %v", req, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: req.method})
	if err != nil {
		t.Errorf("%v: no HTTP answer: %v", req, err)
		return -1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") &&
		(strings.HasPrefix(string(body), "400 Bad Request") || strings.HasPrefix(string(body), "431 Request Header Fields Too Large")) {
		return 0 // net/http's own answer to a request it cannot parse
	}
	checkSafeAnswer(t, req.String()+" over the wire", resp.StatusCode, resp.Header, body, req.method == http.MethodHead)
	return resp.StatusCode
}

func sum(m map[int]int) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}

// hostileTargets are GET targets made from the route table: each payload
// in each path wildcard (the others valid) and in each query parameter,
// alone and duplicated before and after a valid value.
func hostileTargets(s *Server) []string {
	valid := map[string]string{"set": "23401", "id": catalog.TCGCardID("dbs", 535600), "page": "overview", "file": "nope"}
	var out []string
	for _, sr := range s.served {
		_, path, _ := strings.Cut(sr.Pattern, " ")
		if sr.Game == "mtg" {
			valid["id"] = catalog.TCGCardID("mtg", 541300)
		} else {
			valid["id"] = catalog.TCGCardID("dbs", 535600)
		}
		wildcards := regexp.MustCompile(`\{(\w+)\}`).FindAllStringSubmatch(path, -1)
		fill := func(hostile, payload string) string {
			return regexp.MustCompile(`\{(\w+)\}`).ReplaceAllStringFunc(path, func(m string) string {
				name := m[1 : len(m)-1]
				if name == hostile {
					return url.PathEscape(payload)
				}
				return valid[name]
			})
		}
		for _, w := range wildcards {
			for _, p := range hostilePayloads {
				out = append(out, fill(w[1], p))
			}
		}
		base := fill("", "")
		var queryParams []string
		if sr.Route != nil {
			for _, p := range sr.Route.Op.Params {
				if p.In == "query" {
					queryParams = append(queryParams, p.Name)
				}
			}
		}
		for _, name := range queryParams {
			for _, p := range hostilePayloads {
				v := url.QueryEscape(p)
				out = append(out, base+"?"+name+"="+v, base+"?"+name+"=1&"+name+"="+v, base+"?"+name+"="+v+"&"+name+"=1")
			}
		}
	}
	return out
}

// roomyAuth is an authenticator whose callers have room for every request
// the hostile test sends.
type roomyAuth struct{ Authenticator }

func (a roomyAuth) Authenticate(ctx context.Context, key string) (account.Caller, error) {
	c, err := a.Authenticator.Authenticate(ctx, key)
	c.Limits = ratelimit.Limits{Hour: 1 << 30, Day: 1 << 30}
	return c, err
}
