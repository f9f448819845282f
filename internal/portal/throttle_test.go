package portal

// The throttles of throttle.go under bursts (issue 24), on both limiters:
// the in-process one and, when CARDCAT_TEST_REDIS_URL is set, Redis.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
	"github.com/cardcat/cardcat/internal/ratelimit/memory"
	"github.com/cardcat/cardcat/internal/ratelimit/redis"
)

const redisURLVar = "CARDCAT_TEST_REDIS_URL"

// limiterKinds are the limiters the throttle tests run on; open skips the
// test when its backend is not configured.
var limiterKinds = []struct {
	name string
	open func(t *testing.T) ratelimit.Limiter
}{
	{"memory", func(*testing.T) ratelimit.Limiter { return memory.New(memory.Options{}) }},
	{"redis", openRedisLimiter},
}

// openRedisLimiter is the Redis limiter on the test Redis, under a key
// prefix of its own that is deleted when t ends.
func openRedisLimiter(t *testing.T) ratelimit.Limiter {
	t.Helper()
	u := os.Getenv(redisURLVar)
	if u == "" {
		t.Skipf("%s is not set; set it (for example to redis://127.0.0.1:6379/0) to run the throttle tests on Redis", redisURLVar)
	}
	b := make([]byte, 8)
	rand.Read(b)
	prefix := "cardcat:test:portal:" + hex.EncodeToString(b) + ":"
	o, err := goredis.ParseURL(u)
	if err != nil {
		t.Fatalf("%s: %v", redisURLVar, err)
	}
	t.Cleanup(func() {
		c := goredis.NewClient(o)
		defer c.Close()
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("cleaning up %s*: %v", prefix, err)
		}
	})
	// A long timeout: the burst keeps both cores hashing, and a Redis call
	// that timed out would be counted on the fallback instead.
	l, err := redis.Open(context.Background(), u, memory.New(memory.Options{}), redis.Options{Prefix: prefix, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("redis.Open: %v", err)
	}
	return l
}

// burst posts form to path n times at once from c (its cookies and
// headers), as a browser on this site would, and returns how many answers
// had each status.
func (c *client) burst(n int, path string, form url.Values) map[int]int {
	c.tp.t.Helper()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		errs     []error
		wg       sync.WaitGroup
		start    = make(chan struct{})
	)
	for range n {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, c.tp.srv.URL+path, strings.NewReader(form.Encode()))
			if err != nil {
				panic(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("Origin", c.tp.srv.URL)
			for k, v := range c.header {
				req.Header[k] = v
			}
			<-start
			res, err := c.hc.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			res.Body.Close()
			statuses[res.StatusCode]++
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		c.tp.t.Errorf("POST %s: %v", path, err)
	}
	return statuses
}

// TestLoginBurstThrottled is the first finding of issue 24: 150 wrong
// passwords at once for one email from one address were all checked (401),
// none refused, because login counted an attempt only after its password
// check had failed. Now each attempt is counted before the check: at most
// the limit are checked, the rest are refused (429).
func TestLoginBurstThrottled(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			tp := newTestPortalWith(t, portalOptions{limiter: kind.open(t)})
			tp.createAccount("victim@example.com", true)
			c := tp.client()
			c.header.Set("X-Test-Client", "192.0.2.1")
			got := c.burst(150, "/account/login", url.Values{"email": {"victim@example.com"}, "password": {"a wrong password here"}})
			want := map[int]int{http.StatusUnauthorized: 10, http.StatusTooManyRequests: 140}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("150 wrong passwords at once: statuses %v, want %v (10 checked, the per-account limit)", got, want)
			}
		})
	}
}

// TestSettingsBurstThrottled: the settings page's password confirmation
// (here the account deletion's) counts before it checks, like login.
func TestSettingsBurstThrottled(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			tp := newTestPortalWith(t, portalOptions{limiter: kind.open(t)})
			tp.createAccount("ann@example.com", true)
			c := tp.client()
			c.header.Set("X-Test-Client", "192.0.2.1")
			c.login("ann@example.com", testPassword)
			got := c.burst(150, "/account/settings/delete", url.Values{"password": {"a wrong password here"}})
			want := map[int]int{http.StatusBadRequest: 10, http.StatusTooManyRequests: 140}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("150 wrong confirmations at once: statuses %v, want %v (10 checked, the per-account limit)", got, want)
			}
			tp.accountByEmail("ann@example.com") // not deleted
		})
	}
}
