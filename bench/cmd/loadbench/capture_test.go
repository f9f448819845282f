package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// representations answers like cardcat's compressed routes: a body in the
// coding Accept-Encoding asks for, a strong ETag per coding ("…-gz" for
// gzip), and a 304 only when If-None-Match names the tag of the
// representation it would send. It counts the answers that are not 304s
// (the ones cardcat's limiter counts).
func representations(counted *atomic.Int64) http.Handler {
	body := []byte(strings.Repeat(`{"id":"mtg_0011","name":"Card"}`, 64))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gz := strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
		tag := `"0123456789abcdef"`
		if gz {
			tag = `"0123456789abcdef-gz"`
		}
		w.Header().Set("Vary", "Accept-Encoding")
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		counted.Add(1)
		if !gz {
			w.Write(body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write(body)
		zw.Close()
	})
}

// TestGetSendsTheLineAsIs: get sends the headers of a paths-file line and no
// others, and returns the bytes as sent, as wrk does with paths.lua: the
// spot checks, the captured answers of the ceilings and the 304 scenario's
// ETags are of the requests wrk sends.
func TestGetSendsTheLineAsIs(t *testing.T) {
	var counted atomic.Int64
	srv := httptest.NewServer(representations(&counted))
	defer srv.Close()
	ctx := context.Background()

	a, err := get(ctx, srv.URL+"/c", "X-API-Key", "k")
	if err != nil {
		t.Fatal(err)
	}
	if tag := http.Header(a.Header).Get("ETag"); tag != `"0123456789abcdef"` {
		t.Errorf("plain line: ETag %s, want the identity tag (no Accept-Encoding sent)", tag)
	}

	a, err = get(ctx, pathLine(srv.URL+"/c", "Accept-Encoding", "gzip"), "X-API-Key", "k")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header(a.Header)
	if h.Get("ETag") != `"0123456789abcdef-gz"` || h.Get("Content-Encoding") != "gzip" || !bytes.HasPrefix(a.Body, []byte{0x1f, 0x8b}) {
		t.Errorf("gzip line: ETag %s, Content-Encoding %q, body %q...: want the gzip answer as sent",
			h.Get("ETag"), h.Get("Content-Encoding"), a.Body[:min(len(a.Body), 8)])
	}
}

// TestRevalidationLinesInWrk: the 304 scenario's lines, sent by wrk with
// paths.lua, are all answered 304 (none counted), and so are its spot checks.
func TestRevalidationLinesInWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed (Debian package wrk; make bench installs it): the 304 scenario's lines are not tested in wrk")
	}
	var counted atomic.Int64
	srv := httptest.NewServer(representations(&counted))
	defer srv.Close()
	ctx := context.Background()

	lines, err := revalidationLines(ctx, srv.URL, "k", []string{"/a", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	counted.Store(0) // revalidationLines' own requests are 200s
	paths := filepath.Join(t.TempDir(), "304.txt")
	if err := os.WriteFile(paths, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := wrkRun{Threads: 1, Connections: 4, Duration: time.Second, Script: "../../lua/paths.lua",
		URL: srv.URL, Paths: paths, Header: "X-API-Key", Value: "k"}
	res, _, err := w.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || counted.Load() != 0 {
		t.Errorf("wrk completed %d requests, %d of them not 304 (lines %q)", res.Requests, counted.Load(), lines)
	}
	for _, l := range lines {
		a, err := get(ctx, srv.URL+l, "X-API-Key", "k")
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != http.StatusNotModified {
			t.Errorf("spot check %q: %d, want 304", l, a.Status)
		}
	}
}

// TestPrime: prime asks every line once, with the key and the line's own
// header, and stops at the first answer that is not a 200.
func TestPrime(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] += r.Header.Get("X-API-Key") + " " + r.Header.Get("Accept-Encoding") + ";"
		mu.Unlock()
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	lines := encodingLines([]string{"/a", "/b", "/c", "/d", "/e"}, "br")
	if err := prime(context.Background(), srv.URL, "k", lines); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/a": "k br;", "/b": "k br;", "/c": "k br;", "/d": "k br;", "/e": "k br;"}
	if !maps.Equal(seen, want) {
		t.Errorf("asked %v, want each line once with its header: %v", seen, want)
	}
	if err := prime(context.Background(), srv.URL, "k", append(lines, "/missing")); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a 404 among the lines: %v, want an error naming it", err)
	}
}

// TestSampleIndicesFollowsTheMix: the search scenario's paths cycle through
// the query mix's six kinds, and the ceiling's answers must hold each kind
// in about its share (every 6th path gave 200 answers of one kind).
func TestSampleIndicesFollowsTheMix(t *testing.T) {
	const total, n, kinds = 1200, 200, 6
	idx := sampleIndices(total, n, 1)
	if len(idx) != n {
		t.Fatalf("%d indices, want %d", len(idx), n)
	}
	count := make([]int, kinds)
	for i, v := range idx {
		if v < 0 || v >= total || (i > 0 && v <= idx[i-1]) {
			t.Fatalf("index %d is %d: out of range or not after %d", i, v, idx[max(0, i-1)])
		}
		count[v%kinds]++
	}
	for k, c := range count {
		if c < n/kinds/2 || c > n/kinds*2 {
			t.Errorf("kind %d: %d of %d answers, want about %d (counts %v)", k, c, n, n/kinds, count)
		}
	}
	if got := sampleIndices(3, 200, 1); len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Errorf("3 paths, 200 wanted: %v, want all three", got)
	}
	if a, b := sampleIndices(total, n, 7), sampleIndices(total, n, 7); !slices.Equal(a, b) {
		t.Error("the same seed drew different indices")
	}
}

// TestSampleLines: the cardhot scenario's paths are exactly the card
// scenario's captured ones, and its own ceiling captures all of them, in the
// same order.
func TestSampleLines(t *testing.T) {
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = "/cards/" + strconv.Itoa(i)
	}
	hot := sampleLines(paths, 20, 3)
	idx := sampleIndices(len(paths), 20, 3)
	if len(hot) != 20 {
		t.Fatalf("%d lines, want 20", len(hot))
	}
	for i, j := range idx {
		if hot[i] != paths[j] {
			t.Errorf("line %d: %s, the capture asks for %s", i, hot[i], paths[j])
		}
	}
	if again := sampleIndices(len(hot), 20, 3); !slices.Equal(again, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
		t.Errorf("the hot scenario's ceiling captures %v, want every line in order", again)
	}
}
