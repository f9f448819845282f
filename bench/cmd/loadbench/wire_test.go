package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMeasureWire: the bytes of each coding over the pages of 200 cards,
// against the pages' identity bytes; a page of fewer cards is left out, and
// a request without Accept-Encoding is sent without one.
func TestMeasureWire(t *testing.T) {
	full := `{"cards":[` + strings.Repeat(`{"id":"x"},`, 199) + `{"id":"x"}]}`
	short := `{"cards":[{"id":"x"}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := full
		if r.URL.Path == "/dbs/sets/short" {
			body = short
		}
		switch ae := r.Header.Get("Accept-Encoding"); {
		case ae == "":
			w.Write([]byte(body))
		case strings.HasPrefix(ae, "gzip,"): // the browser's
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte(body[:100]))
		default:
			w.Header().Set("Content-Encoding", ae)
			w.Write([]byte(body[:len(ae)*100]))
		}
	}))
	defer srv.Close()
	got, err := measureWire(context.Background(), srv.URL, "k", []string{"/dbs/sets/a?limit=200", "/dbs/sets/short", "/dbs/sets/b?limit=200"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]wireRatio{
		"gzip":                    {Encoding: "gzip", Pages: 2, Identity: 2 * int64(len(full)), Wire: 800},
		"zstd":                    {Encoding: "zstd", Pages: 2, Identity: 2 * int64(len(full)), Wire: 800},
		"br":                      {Encoding: "br", Pages: 2, Identity: 2 * int64(len(full)), Wire: 400},
		"gzip, deflate, br, zstd": {Encoding: "br", Pages: 2, Identity: 2 * int64(len(full)), Wire: 200},
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for _, r := range got {
		w := want[r.Accept]
		w.Accept = r.Accept
		if r != w {
			t.Errorf("%+v, want %+v", r, w)
		}
	}
}
