package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// answer is one captured HTTP answer, as bench/cmd/ceiling reads it.
type answer struct {
	Status int                 `json:"status"`
	Header map[string][]string `json:"header"`
	Body   []byte              `json:"body"`
}

// client sends what wrk sends: net/http's own Accept-Encoding: gzip would get
// the gzip representation and its ETag ("…-gz"), which wrk, asking for none,
// never matches (the 304 scenario's requests were then counted 200s).
var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}

// get sends one GET with an optional header and reads the whole answer, as
// sent (no Accept-Encoding unless the line has one, a body never decoded).
// url may end in a paths file's own header ("\tName\tvalue", pathLine).
func get(ctx context.Context, url, header, value string) (answer, error) {
	url, lineHeader, lineValue := splitPathLine(url)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{}, err
	}
	if header != "" {
		req.Header.Set(header, value)
	}
	if lineHeader != "" {
		req.Header.Set(lineHeader, lineValue)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	h := resp.Header.Clone()
	h.Del("Date") // net/http writes its own
	return answer{Status: resp.StatusCode, Header: h, Body: body}, nil
}

// prime asks base every path line once (two at a time: the server has a
// core), with the key, and wants each a 200.
func prime(ctx context.Context, base, key string, lines []string) error {
	var (
		next  atomic.Int64
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for range 2 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(lines); i = int(next.Add(1) - 1) {
				a, err := get(ctx, base+lines[i], "X-API-Key", key)
				if err == nil && a.Status != http.StatusOK {
					err = fmt.Errorf("GET %s: %d", lines[i], a.Status)
				}
				if err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					next.Store(int64(len(lines))) // both stop
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// captureAnswers fetches n answers of paths for a ceiling, one drawn at
// random (seeded) from each of n equal stretches of the list.
func captureAnswers(ctx context.Context, base string, paths []string, header, value string, n int, seed uint64) ([]answer, error) {
	out := make([]answer, 0, min(n, len(paths)))
	for _, p := range sampleLines(paths, n, seed) {
		a, err := get(ctx, base+p, header, value)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// sampleLines are n of paths, drawn by sampleIndices: the ones
// captureAnswers asks for. A scenario of them has its ceiling's cards (and
// its own ceiling captures all of them).
func sampleLines(paths []string, n int, seed uint64) []string {
	idx := sampleIndices(len(paths), n, seed)
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = paths[j]
	}
	return out
}

// sampleIndices picks n of the indices 0..total-1 (all when n >= total), one
// at random from each of n equal stretches. Not every total/n-th: the query
// mix's list cycles through its six kinds, so that the 200 answers of 1,200
// queries were all of one kind (one-word searches). Their size happened to
// be near the mix's at 1M (the report's bytes per answer now checks it), but
// nothing made it so.
func sampleIndices(total, n int, seed uint64) []int {
	n = min(n, total)
	rng := rand.New(rand.NewPCG(seed, uint64(total)))
	idx := make([]int, n)
	for i := range idx {
		lo, hi := i*total/n, (i+1)*total/n
		idx[i] = lo + rng.IntN(hi-lo)
	}
	return idx
}

// answerSizes returns the mean body size and the mean size of the header
// block ("Name: value\r\n" lines, Date included as net/http writes it).
func answerSizes(as []answer) (body, header float64) {
	for _, a := range as {
		body += float64(len(a.Body))
		h := len("HTTP/1.1 200 OK\r\n") + len("Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n") + 2
		for k, vs := range a.Header {
			for _, v := range vs {
				h += len(k) + 2 + len(v) + 2
			}
		}
		header += float64(h)
	}
	n := float64(max(1, len(as)))
	return body / n, header / n
}

func writeAnswers(path string, as []answer) error {
	b, err := json.Marshal(as)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// rateRemaining returns the X-RateLimit-Remaining-Hour a keyed GET reports,
// and false when the server sends no rate-limit headers (no limiter).
func rateRemaining(ctx context.Context, url, key string) (int64, bool, error) {
	a, err := get(ctx, url, "X-API-Key", key)
	if err != nil {
		return 0, false, err
	}
	v := http.Header(a.Header).Get("X-RateLimit-Remaining-Hour")
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("X-RateLimit-Remaining-Hour %q: %w", v, err)
	}
	return n, true, nil
}

// A line of a paths file is a request path, or a path, a tab, a header name,
// a tab and its value: a header of that request alone (the 304 scenario's
// If-None-Match), which paths.lua sends besides the run's key.
func pathLine(path, header, value string) string { return path + "\t" + header + "\t" + value }

// splitPathLine undoes pathLine; a plain path has no header.
func splitPathLine(line string) (path, header, value string) {
	path, rest, ok := strings.Cut(line, "\t")
	if !ok {
		return line, "", ""
	}
	header, value, _ = strings.Cut(rest, "\t")
	return path, header, value
}

// revalidationLines are paths with the If-None-Match of their current answer,
// asked of cardcat once with the key: the 304 scenario's requests.
func revalidationLines(ctx context.Context, base, key string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		a, err := get(ctx, base+p, "X-API-Key", key)
		if err != nil {
			return nil, err
		}
		tag := http.Header(a.Header).Get("ETag")
		if a.Status != http.StatusOK || tag == "" {
			return nil, fmt.Errorf("GET %s: %d with ETag %q; the 304 scenario needs a 200 with an ETag", p, a.Status, tag)
		}
		out = append(out, pathLine(p, "If-None-Match", tag))
	}
	return out, nil
}
