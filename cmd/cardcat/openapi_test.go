package main

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/httpapi/openapitest"
)

// Every answer of a real server in these tests (get, checkedClient) is
// checked against the OpenAPI document that server serves at /openapi.json:
// the operation of its request, its status, its headers (the X-RateLimit-*
// headers included: serve always has a limiter) and its body.

var checkers sync.Map // base URL → *openapitest.Checker

// checkerOf loads the document of the server at base once.
func checkerOf(t *testing.T, base string) *openapitest.Checker {
	t.Helper()
	if c, ok := checkers.Load(base); ok {
		return c.(*openapitest.Checker)
	}
	resp, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/openapi.json: %d %v", base, resp.StatusCode, err)
	}
	c, err := openapitest.New(doc)
	if err != nil {
		t.Fatalf("%s/openapi.json: %v", base, err)
	}
	checkers.Store(base, c)
	return c
}

func baseURL(req *http.Request) string { return req.URL.Scheme + "://" + req.URL.Host }

// checkAnswer checks one answer against its server's document.
func checkAnswer(t *testing.T, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	if err := checkerOf(t, baseURL(req)).Check(req, resp.StatusCode, resp.Header, body); err != nil {
		t.Error(err)
	}
}

// checkedClient is a client whose answers from the server at base are
// checked; it may be used off the test goroutine (a mismatch is t.Errorf).
func checkedClient(t *testing.T, base string) *http.Client {
	t.Helper()
	c := checkerOf(t, strings.TrimSuffix(base, "/"))
	return &http.Client{Transport: &openapitest.Transport{Checker: c, Report: func(err error) { t.Error(err) }}}
}
