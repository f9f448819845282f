package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// answer is one captured HTTP answer, as bench/cmd/ceiling reads it.
type answer struct {
	Status int                 `json:"status"`
	Header map[string][]string `json:"header"`
	Body   []byte              `json:"body"`
}

var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

// get sends one GET with an optional header and reads the whole answer.
func get(ctx context.Context, url, header, value string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return answer{}, err
	}
	if header != "" {
		req.Header.Set(header, value)
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

// captureAnswers fetches n answers of paths (spread over the list) for a ceiling.
func captureAnswers(ctx context.Context, base string, paths []string, header, value string, n int) ([]answer, error) {
	n = min(n, len(paths))
	out := make([]answer, 0, n)
	for i := range n {
		a, err := get(ctx, base+paths[i*len(paths)/n], header, value)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
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
