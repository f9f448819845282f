package livetest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitBulkListing: the wait goes on while the listing lacks a file (a
// 200 without it, then 304s for the same listing) and ends when it lists
// them all; it gives up when ctx ends, saying what it saw last.
func TestWaitBulkListing(t *testing.T) {
	var requests, conditional int
	ready := 4 // the listing is complete from the 4th request on
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if r.Header.Get("X-API-Key") != "key" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		files, tag := `[{"name":"cards.jsonl.gz"}]`, `"partial"`
		if requests >= ready {
			files, tag = `[{"name":"cards.jsonl.gz"},{"name":"prices.csv.gz"}]`, `"whole"`
		}
		if r.Header.Get("If-None-Match") == tag {
			conditional++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", tag)
		fmt.Fprintf(w, `{"success":true,"files":%s}`, files)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if last, ok := waitBulkListing(ctx, srv.URL, "key"); !ok {
		t.Fatalf("waitBulkListing gave up: %s", last)
	}
	if requests != ready || conditional != ready-2 {
		t.Errorf("%d requests, %d of them 304, want %d and %d", requests, conditional, ready, ready-2)
	}

	requests, ready = 0, 1000
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if last, ok := waitBulkListing(ctx, srv.URL, "key"); ok || !strings.Contains(last, `["cards.jsonl.gz"]`) {
		t.Errorf("waitBulkListing of a listing never complete: %v, last %q", ok, last)
	}

	// ctx ends in the middle of a request: what the server said last is
	// kept, not the deadline's error. The first request must have answered
	// by then: a second, where a busy machine took 300 ms (a flake). A
	// server of its own, so that a request of the wait above, cancelled but
	// reaching the server late, is not counted as this one's first (it made
	// the first request the slow one once in CI).
	var slowRequests atomic.Int32
	slowSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slowRequests.Add(1) > 1 {
			time.Sleep(2 * time.Second)
		}
		w.Header().Set("ETag", `"partial"`)
		fmt.Fprint(w, `{"success":true,"files":[{"name":"cards.jsonl.gz"}]}`)
	}))
	defer slowSrv.Close()
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if last, ok := waitBulkListing(ctx, slowSrv.URL, "key"); ok || !strings.Contains(last, `["cards.jsonl.gz"]`) {
		t.Errorf("waitBulkListing ended during a request: %v, last %q", ok, last)
	}
}
