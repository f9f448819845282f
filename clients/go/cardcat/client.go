package cardcat

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// WithAPIKey sends key (pk_live_... or pk_test_...) as X-API-Key on every
// request of the client.
func WithAPIKey(key string) ClientOption {
	return WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("X-API-Key", key)
		return nil
	})
}

// RateLimit is what an answer's headers say of the caller's pool, after
// this request.
type RateLimit struct {
	LimitHour, RemainingHour int64
	LimitDay, RemainingDay   int64
	// RetryAfter is how long to wait before retrying: set on a 429 (and a
	// 503), zero otherwise.
	RetryAfter time.Duration
}

// RateLimitOf reads the X-RateLimit-* and Retry-After headers of an answer
// (resp.HTTPResponse.Header of a typed answer). It fails when one of the four
// X-RateLimit-* headers is missing or not a count: a server without rate
// limiting sends none.
func RateLimitOf(h http.Header) (RateLimit, error) {
	var rl RateLimit
	for _, f := range []struct {
		name string
		to   *int64
	}{
		{"X-RateLimit-Limit-Hour", &rl.LimitHour},
		{"X-RateLimit-Remaining-Hour", &rl.RemainingHour},
		{"X-RateLimit-Limit-Day", &rl.LimitDay},
		{"X-RateLimit-Remaining-Day", &rl.RemainingDay},
	} {
		n, err := strconv.ParseInt(h.Get(f.name), 10, 64)
		if err != nil || n < 0 {
			return RateLimit{}, fmt.Errorf("cardcat: header %s: %q is not a count", f.name, h.Get(f.name))
		}
		*f.to = n
	}
	if v := h.Get("Retry-After"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil || s < 0 {
			return RateLimit{}, fmt.Errorf("cardcat: header Retry-After: %q is not a number of seconds", v)
		}
		rl.RetryAfter = time.Duration(s) * time.Second
	}
	return rl, nil
}
