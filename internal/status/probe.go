package status

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"
)

// ProbeTimeout is how long a check waits for the API's answer: one that
// takes longer is a failed check.
const ProbeTimeout = 10 * time.Second

// Prober checks the API once a minute and records the outcome in the store
// (Store.RecordCheck): every replica runs one, the first to record a minute
// wins it, and the others, finding it recorded, do not send their request.
type Prober struct {
	Store Store
	// URL is what a check sends GET to, a 200 being up: the server's own
	// listener's /health, so that the whole chain the API's answers take
	// is checked, not a shortcut beside it.
	URL       string
	UserAgent string
	Client    *http.Client // nil: one whose timeout is ProbeTimeout
	Now       func() time.Time
	Log       *slog.Logger
}

// Run checks the current minute at once, then each next minute at a random
// second of its first ten (replicas spread out: the first one records, the
// others find the minute taken), until ctx ends. Once an hour it prunes
// the checks older than the window.
func (p *Prober) Run(ctx context.Context) {
	lastPrune := time.Time{}
	for {
		if _, _, err := p.Probe(ctx); err != nil && ctx.Err() == nil {
			p.Log.Warn("status check not recorded", "err", err)
		}
		now := p.Now()
		if now.Sub(lastPrune) >= time.Hour {
			lastPrune = now
			if n, err := p.Store.PruneChecks(ctx, WindowStart(now)); err != nil && ctx.Err() == nil {
				p.Log.Warn("pruning the status checks", "err", err)
			} else if n > 0 {
				p.Log.Info("status checks pruned", "deleted", n)
			}
		}
		next := now.Truncate(time.Minute).Add(time.Minute + rand.N(10*time.Second))
		t := time.NewTimer(next.Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Probe checks the API for the current minute unless the minute has a
// check already: c is the check made, recorded whether this one is the
// minute's (false too when none was made).
func (p *Prober) Probe(ctx context.Context) (c Check, recorded bool, err error) {
	minute := p.Now().UTC().Truncate(time.Minute)
	if has, err := p.Store.HasCheck(ctx, minute); err != nil || has {
		return Check{}, false, err
	}
	c = p.check(ctx)
	c.Minute = minute
	recorded, err = p.Store.RecordCheck(ctx, c)
	return c, recorded, err
}

// check sends one request to URL.
func (p *Prober) check(ctx context.Context) Check {
	client := p.Client
	if client == nil {
		client = &http.Client{Timeout: ProbeTimeout}
	}
	start := p.Now()
	c := Check{}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
	if err != nil {
		c.Error = err.Error()
		return c
	}
	req.Header.Set("User-Agent", p.UserAgent)
	resp, err := client.Do(req)
	c.Latency = p.Now().Sub(start)
	if err != nil {
		c.Error = err.Error() // *url.Error: the method, the URL and why
		return c
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	c.Status = resp.StatusCode
	c.OK = resp.StatusCode == http.StatusOK
	if !c.OK {
		c.Error = fmt.Sprintf("GET %s answered %d", p.URL, resp.StatusCode)
	}
	return c
}
