package memory_test

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
)

// An account's pool and a client IP's guard bucket, as the HTTP middleware
// uses them. The key prefixes keep the two kinds of pool apart.
func Example() {
	l := memory.New(memory.Options{})
	defer l.Close()
	ctx := context.Background()
	now := time.Date(2025, 3, 14, 13, 59, 30, 0, time.UTC)

	free := ratelimit.Limits{Hour: 100, Day: 1000}
	for range 100 {
		l.Take(ctx, "acct:42", free, now)
	}
	r, _ := l.Take(ctx, "acct:42", free, now)
	fmt.Printf("101st: allowed=%v hourly=%d/%d/%d Retry-After=%ds\n",
		r.Allowed, r.Hour.Limit, r.Hour.Used, r.Hour.Remaining, int64(math.Ceil(r.RetryAfter.Seconds())))

	guard := ratelimit.Limits{Hour: 1000, Day: 24 * 1000}
	r, _ = l.Take(ctx, "ip:192.0.2.7", guard, now)
	fmt.Printf("guard: allowed=%v remaining-hour=%d remaining-day=%d\n", r.Allowed, r.Hour.Remaining, r.Day.Remaining)
	// Output:
	// 101st: allowed=false hourly=100/100/0 Retry-After=30s
	// guard: allowed=true remaining-hour=999 remaining-day=23999
}
