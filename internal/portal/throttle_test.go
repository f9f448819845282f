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
				t.Errorf("150 wrong passwords at once: statuses %v, want %v (10 checked, the limit per email and address)", got, want)
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
				t.Errorf("150 wrong confirmations at once: statuses %v, want %v (10 checked, the limit per email and address)", got, want)
			}
			tp.accountByEmail("ann@example.com") // not deleted
		})
	}
}

// from is a new browser at the client address addr.
func (tp *testPortal) from(addr string) *client {
	c := tp.client()
	c.header.Set("X-Test-Client", addr)
	return c
}

// failLogins posts n wrong passwords for email from c; each must be
// checked (401) or refused (429), and it returns how many were refused.
func (c *client) failLogins(email string, n int) (refused int) {
	c.tp.t.Helper()
	for range n {
		res := c.post("/account/login", url.Values{"email": {email}, "password": {"a wrong password here"}})
		switch res.status {
		case http.StatusUnauthorized:
		case http.StatusTooManyRequests:
			refused++
		default:
			c.tp.t.Fatalf("a wrong password for %s: %d\n%s", email, res.status, mainOf(res.body))
		}
	}
	return refused
}

// postLogin posts the login form and returns the answer's status.
func (c *client) postLogin(email, pw string) int {
	c.tp.t.Helper()
	return c.post("/account/login", url.Values{"email": {email}, "password": {pw}}).status
}

// lockAccount exhausts the account pool of email, as failures from many
// addresses would (TestLoginThrottle sends them for real), and checks that
// a new browser is refused.
func (tp *testPortal) lockAccount(email string) {
	tp.t.Helper()
	for range loginByEmail.limits.Hour {
		if _, err := tp.limits.Take(context.Background(), limited{loginByEmail, email}.pool(), loginByEmail.limits, tp.clock.Now()); err != nil {
			tp.t.Fatal(err)
		}
	}
	if got := tp.from("198.51.101.1").postLogin(email, "a wrong password here"); got != http.StatusTooManyRequests {
		tp.t.Fatalf("a wrong password from a new browser on the locked %s: %d, want 429", email, got)
	}
}

// The second finding of issue 24: ten failures from any addresses made even
// the right password answer 429 for the rest of the hour, and a completed
// reset did not lift it. Failures now count per email and address; a
// browser that logged in to the account before is exempt from the account's
// own pool, which only many addresses together can exhaust.
func TestAttackerCannotLockOwnerOut(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("owner@example.com", true)
	owner, laptop := tp.from("203.0.113.5"), tp.from("203.0.113.8")
	owner.login("owner@example.com", testPassword)
	owner.post("/account/logout", nil)
	laptop.login("owner@example.com", testPassword)

	// One attacker's address is refused after its 10 failures; the owner
	// at another address is not, even on a new browser.
	attacker := tp.from("198.51.100.200")
	attacker.failLogins("owner@example.com", 10)
	if got := attacker.postLogin("owner@example.com", testPassword); got != http.StatusTooManyRequests {
		t.Errorf("the right password from the address with 10 failures: %d, want 429", got)
	}
	tp.from("203.0.113.77").login("owner@example.com", testPassword)

	// Many addresses together exhaust the account's pool: a new browser is
	// refused, the owner's own is not.
	tp.lockAccount("owner@example.com")
	if got := tp.from("203.0.113.6").postLogin("owner@example.com", testPassword); got != http.StatusTooManyRequests {
		t.Errorf("the right password from a new browser on a locked account: %d, want 429", got)
	}
	owner.login("owner@example.com", testPassword)
	// Also from another address: it is the browser that is known.
	owner.header.Set("X-Test-Client", "192.0.2.99")
	owner.login("owner@example.com", testPassword)

	// The known browser still has a pool of its own per address.
	if refused := owner.failLogins("owner@example.com", 11); refused != 1 {
		t.Errorf("11 wrong passwords from the known browser at one address: %d refused, want 1", refused)
	}

	// The exemption is for the account the browser logged in to, and ends
	// with the password it logged in with: a password change moves it to
	// the browser that changed it.
	tp.createAccount("other@example.com", true)
	tp.lockAccount("other@example.com")
	if got := owner.postLogin("other@example.com", testPassword); got != http.StatusTooManyRequests {
		t.Errorf("the owner's browser on another locked account: %d, want 429", got)
	}
	laptop.login("owner@example.com", testPassword)
	const newPassword = "a brand new passphrase"
	res := laptop.post("/account/settings/password", url.Values{"current": {testPassword}, "password": {newPassword}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("password change: %d\n%s", res.status, mainOf(res.body))
	}
	laptop.post("/account/logout", nil)
	laptop.login("owner@example.com", newPassword)
	if got := owner.postLogin("owner@example.com", newPassword); got != http.StatusTooManyRequests {
		t.Errorf("a browser known before the password change, on the locked account: %d, want 429", got)
	}
}

// A completed password reset lifts the lock on its account: the owner on a
// new browser can log in with the new password at once.
func TestResetLiftsLoginLock(t *testing.T) {
	tp := newTestPortal(t)
	tp.createAccount("owner@example.com", true)
	tp.lockAccount("owner@example.com")
	// The owner's own failures at their address count too.
	c := tp.from("203.0.113.5")
	c.failLogins("owner@example.com", 10)
	if got := c.postLogin("owner@example.com", testPassword); got != http.StatusTooManyRequests {
		t.Fatalf("the right password on a locked account: %d, want 429", got)
	}

	c.post("/account/reset", url.Values{"email": {"owner@example.com"}})
	token := tokenOf(t, tp.waitMail("owner@example.com").Link)
	const newPassword = "a brand new passphrase"
	if res := c.post("/account/reset/confirm", url.Values{"token": {token}, "password": {newPassword}}); res.status != http.StatusSeeOther {
		t.Fatalf("reset: %d\n%s", res.status, mainOf(res.body))
	}
	c.login("owner@example.com", newPassword)
	tp.from("203.0.113.6").login("owner@example.com", newPassword)
}
