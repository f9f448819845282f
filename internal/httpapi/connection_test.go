package httpapi

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/mcpserver"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/web"
)

// connAnswer is what TestConnectionRequestObject compares of an answer:
// everything a caller sees but the Date and the request id when the server
// made one, and the access log's entry.
type connAnswer struct {
	Status  int
	Header  http.Header
	Body    string
	Logged  AccessEntry
	IDGiven bool // the X-Request-Id was the one sent
}

// TestConnectionRequestObject: the requests of one keep-alive connection,
// one after the other, reuse the request object its ConnContext made, and
// each answer and access-log entry is the one a request with an object of
// its own gets (the same sequence in process): no id, key, account, tag,
// count or path value of one request reaches the next. Once answered, a
// request's context holds no state.
func TestConnectionRequestObject(t *testing.T) {
	type step struct{ headers []string }
	// headers as do takes them; "X-Request-Id" "" asks the server for one.
	steps := []step{
		{[]string{"X-API-Key", keyA1, "X-Request-Id", "conn-1"}},
		{[]string{"X-API-Key", "", "X-Request-Id", ""}},                            // 401, no account
		{[]string{"X-API-Key", keyA1, "If-None-Match", "TAG", "X-Request-Id", ""}}, // 304 of the first
		{[]string{"X-API-Key", keyB, "Accept-Encoding", "gzip", "X-Request-Id", "conn-4"}},
		{[]string{"X-API-Key", keyB, "X-Request-Id", "conn-5"}},            // page 1: no query of the last
		{[]string{"X-API-Key", "pk_test_short", "X-Request-Id", "conn-6"}}, // malformed: 401
		{[]string{"X-API-Key", keyA1, "X-Request-Id", "conn-last"}},
	}
	targets := []string{cardPath, cardPath, cardPath, "/dbs/sets/FB01?limit=2&page=2", "/dbs/sets/FB01", "/dbs/sets", "/nope"}

	newServer := func() (*Server, func() []AccessEntry) {
		lim := memory.New(memory.Options{})
		t.Cleanup(func() { lim.Close() })
		var mu sync.Mutex
		var entries []AccessEntry
		deps := testDeps(mustView(t, mustFixture(t)))
		deps.Auth, deps.Limiter = newLimitAuth(), lim
		deps.AccessLog = func(e AccessEntry) {
			mu.Lock()
			defer mu.Unlock()
			e.Time, e.Duration, e.Remote = testNow, 0, ""
			entries = append(entries, e)
		}
		s, err := New(Config{}, deps)
		if err != nil {
			t.Fatal(err)
		}
		return s, func() []AccessEntry { mu.Lock(); defer mu.Unlock(); return slices.Clone(entries) }
	}
	answerOf := func(status int, h http.Header, body string, e AccessEntry, sentID string) connAnswer {
		h = h.Clone()
		given := sentID != "" && h.Get("X-Request-Id") == sentID
		if sentID == "" && h.Get("X-Request-Id") == "" || sentID != "" && !given {
			t.Errorf("X-Request-Id %q for the id %q sent", h.Get("X-Request-Id"), sentID)
		}
		if !given {
			e.RequestID = "" // the server's own: differs between the two servers
		}
		h.Del("X-Request-Id")
		h.Del("Date")
		h.Del("Content-Length") // net/http's own, on the wire only, where the handler set none
		return connAnswer{Status: status, Header: h, Body: body, Logged: e, IDGiven: given}
	}
	headersOf := func(i int, tag string) []string {
		hs := slices.Clone(steps[i].headers)
		for k := 1; k < len(hs); k += 2 {
			if hs[k] == "TAG" {
				hs[k] = tag
			}
		}
		return hs
	}
	sentID := func(hs []string) string {
		for k := 0; k+1 < len(hs); k += 2 {
			if hs[k] == "X-Request-Id" {
				return hs[k+1]
			}
		}
		return ""
	}

	// In process: every request has an object of its own.
	s, logged := newServer()
	var want []connAnswer
	var tag string
	for i, target := range targets {
		hs := headersOf(i, tag)
		w := do(s.Handler(), http.MethodGet, target, hs...)
		if i == 0 {
			tag = w.Header().Get("ETag")
		}
		want = append(want, answerOf(w.Code, w.Header(), w.Body.String(), logged()[i], sentID(hs)))
	}
	if want[2].Status != http.StatusNotModified || want[1].Logged.Account != "" || want[0].Logged.Account != "1" {
		t.Fatalf("the sequence does not test what it should: %+v", want)
	}
	// A body past net/http's 4 kB buffer, which it writes in two parts: the
	// connection (web.OneWriteListener) sends them in one.
	if n := len(want[4].Body); n <= 4<<10 {
		t.Fatalf("the set page is %d bytes; want one over 4 kB", n)
	}

	// Over one connection of a server whose ConnContext gives it its
	// request object.
	s, logged = newServer()
	ka := dialKeepAlive(t, s)
	for i, target := range targets {
		hs := headersOf(i, tag)
		r := httptest.NewRequest(http.MethodGet, target, nil)
		for k := 0; k+1 < len(hs); k += 2 {
			if hs[k+1] != "" {
				r.Header.Set(hs[k], hs[k+1])
			}
		}
		resp, body := ka.do(r)
		// An answer sent whole leaves before its handler returns and logs it.
		entries := logged()
		for deadline := time.Now().Add(5 * time.Second); len(entries) <= i && time.Now().Before(deadline); entries = logged() {
			time.Sleep(time.Millisecond)
		}
		if len(entries) <= i {
			t.Fatalf("request %d (%s): not logged after 5s", i+1, target)
		}
		got := answerOf(resp.StatusCode, resp.Header, body, entries[i], sentID(hs))
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("request %d (%s) on the connection (-in process +on the connection):\n%s", i+1, target, diff)
		}
	}
	conns := ka.conns
	if len(conns) != 1 || conns[0].active.Load() || conns[0].req.st.id != "conn-last" {
		t.Fatalf("connections %d; want one, whose object served the last request and is free again", len(conns))
	}

	// /mcp, whose SDK runs goroutines of its own, gets an object of its own
	// on the same connection.
	r := httptest.NewRequest(http.MethodPost, mcpPath, strings.NewReader(mcpserver.ListTools))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("X-API-Key", keyA1)
	r.Header.Set("X-Request-Id", "conn-mcp")
	resp, _ := ka.do(r)
	entries := logged()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Request-Id") != "conn-mcp" ||
		entries[len(entries)-1].RequestID != "conn-mcp" || entries[len(entries)-1].Account != "1" {
		t.Errorf("POST /mcp on the connection: %d, id %q, logged %+v", resp.StatusCode, resp.Header.Get("X-Request-Id"), entries[len(entries)-1])
	}
	if conns[0].active.Load() || conns[0].req.st.id != "conn-last" {
		t.Errorf("POST /mcp used the connection's object (its last id %q)", conns[0].req.st.id)
	}

	// A context kept past its request reads no state.
	r = httptest.NewRequest(http.MethodGet, cardPath, nil).WithContext(s.ConnContext(context.Background(), nil))
	r.Header.Set("X-API-Key", keyA1)
	s.Handler().ServeHTTP(httptest.NewRecorder(), r)
	if st := stateOf(r.Context()); st != nil {
		t.Errorf("after its answer the request's context still has state: %+v", st)
	}
	if _, ok := CallerFrom(r.Context()); ok || requestID(r.Context()) != "" {
		t.Errorf("after its answer the request's context has a caller (%v) or the id %q", ok, requestID(r.Context()))
	}
}

// TestConnectionRemembersKey: a keep-alive connection's requests are
// authenticated through the key its connection remembers (account.KeyMemo)
// by the real Authenticator, and still answer as the keys in the store say:
// another key on the same connection is its own account, a plan change and a
// revocation apply at the key directory's next refresh.
func TestConnectionRemembersKey(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	newKey := func(plan account.Plan) (*account.Account, *account.Key, string) {
		acc := &account.Account{Email: string(plan) + "@example.test", Plan: plan}
		if err := st.CreateAccount(ctx, acc); err != nil {
			t.Fatal(err)
		}
		key, err := account.NewKey(false)
		if err != nil {
			t.Fatal(err)
		}
		k := &account.Key{AccountID: acc.ID, Hash: account.HashKey(key), Prefix: account.DisplayPrefix(key)}
		if err := st.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		return acc, k, key
	}
	accA, keyRefA, keyA := newKey(account.Free)
	accB, _, keyB := newKey(account.Coffee)
	dir, err := account.NewDirectory(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	lim := memory.New(memory.Options{})
	t.Cleanup(func() { lim.Close() })
	var mu sync.Mutex
	var accounts []string
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Now = time.Now
	deps.Auth, deps.Limiter = account.NewAuthenticator(dir, nil), lim
	deps.AccessLog = func(e AccessEntry) { mu.Lock(); accounts = append(accounts, e.Account); mu.Unlock() }
	s, err := New(Config{}, deps)
	if err != nil {
		t.Fatal(err)
	}
	ka := dialKeepAlive(t, s)
	idA, idB := strconv.FormatInt(accA.ID, 10), strconv.FormatInt(accB.ID, 10)
	check := func(key string, status int, hourLimit, acc string) {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, cardPath, nil)
		r.Header.Set("X-API-Key", key)
		resp, _ := ka.do(r)
		mu.Lock()
		logged := accounts[len(accounts)-1]
		mu.Unlock()
		if resp.StatusCode != status || resp.Header.Get("X-RateLimit-Limit-Hour") != hourLimit || logged != acc {
			t.Errorf("%d, hourly limit %s, account %q logged; want %d, %s, %q", resp.StatusCode,
				resp.Header.Get("X-RateLimit-Limit-Hour"), logged, status, hourLimit, acc)
		}
		if len(ka.conns) != 1 {
			t.Fatalf("%d connections, want one", len(ka.conns))
		}
	}
	check(keyA, http.StatusOK, "100", idA)
	check(keyA, http.StatusOK, "100", idA)
	if !ka.conns[0].keys.Remembers(keyA) {
		t.Error("the connection does not remember the key its requests sent")
	}
	check(keyB, http.StatusOK, "1000", idB)
	check(keyA, http.StatusOK, "100", idA)

	// A's account upgraded: its next request after the refresh has Ultra's limits.
	accA.Plan = account.Ultra
	if err := st.UpdateAccount(ctx, accA); err != nil {
		t.Fatal(err)
	}
	check(keyA, http.StatusOK, "100", idA) // the directory has not seen it yet
	if err := dir.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check(keyA, http.StatusOK, "7000", idA)

	// A's key revoked: refused on the connection that remembered it.
	if err := st.RevokeKey(ctx, keyRefA.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := dir.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check(keyA, http.StatusUnauthorized, "1000", "") // counted in the guard bucket of the client's address
	check(keyB, http.StatusOK, "1000", idB)
}

// keepAlive is one keep-alive connection to s, served as serve serves it:
// through web.OneWriteListener, its ConnContext giving the connection its
// request object (conns: those made, one per connection).
type keepAlive struct {
	t     *testing.T
	conn  net.Conn
	br    *bufio.Reader
	conns []*connRequest
}

func dialKeepAlive(t *testing.T, s *Server) *keepAlive {
	t.Helper()
	ka := &keepAlive{t: t}
	srv := httptest.NewUnstartedServer(s.Handler())
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		ctx = s.ConnContext(ctx, c)
		ka.conns = append(ka.conns, ctx.(*connRequest))
		return ctx
	}
	srv.Listener = web.OneWriteListener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ka.conn, ka.br = conn, bufio.NewReader(conn)
	return ka
}

// do sends r on the connection and returns its answer and body.
func (ka *keepAlive) do(r *http.Request) (*http.Response, string) {
	ka.t.Helper()
	if err := r.Write(ka.conn); err != nil {
		ka.t.Fatal(err)
	}
	resp, err := http.ReadResponse(ka.br, r)
	if err != nil {
		ka.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}
