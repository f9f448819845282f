package redis

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/cardcat/cardcat/internal/ratelimit"
)

// Automatic pipelining.
//
// A round trip to Redis costs the server far more CPU than the script costs
// Redis: a write and a read syscall, a netpoller wake-up and the client pool,
// for every request. So calls that arrive while a round trip is in flight wait
// for it and then go together, as one pipeline of EVALSHAs: one write and one
// read for all of them, however many. Each call is still its own script run,
// atomic on its own pool's keys, so counting stays exact across replicas and
// every script touches one hash slot, as Redis Cluster requires.
//
// Nothing ever waits to fill a batch: a call that finds no round trip in
// flight yields once (runtime.Gosched, so that goroutines already runnable
// can join it) and sends, alone if nobody did; no timer is involved, and an
// idle server adds no latency. A batch is otherwise as large as the load
// made it during the previous round trip.
//
// There is no dispatcher goroutine, so that no request pays for an extra
// goroutine hand-off: the caller that finds Redis idle sends its own call (it
// leads), and when its round trip ends it hands whatever queued meanwhile to
// the oldest waiter, which leads the next batch. A waiter is woken once,
// either with its answer or to lead.
//
// The timeout still bounds each call from the moment it was made, waiting
// included: a batch's round trip ends at its members' earliest deadline. So a
// Redis slow enough that a call waits out a round trip and then its own past
// the timeout sends that call to the fallback, as a slow Redis should.

// goAlone reports whether a call may start a round trip of its own rather
// than queue; the caller holds bmu. With nothing in flight it must. With one
// round trip in flight it may too, but only while the load is light: that
// round trip and the one before it carried a single call each, and nobody
// queues. Then calls come about two at a time and would otherwise take turns,
// each waiting for the other's round trip (twice the latency, and a goroutine
// hand-off per call). Under load everything rides one round trip at a time,
// so that the batches are as large as possible: a second batch in flight
// beside it splits them, for more CPU per Take (figures in bench/README.md,
// "The Redis limiter's batches"). The previous round trip is asked too
// because under load, on one CPU, batches alternate between nearly everyone
// and the one caller that was running while they waited: that lone call is
// not light load.
func (l *Limiter) goAlone() bool {
	return l.inFlight == 0 ||
		(l.inFlight == 1 && l.callsInFlight == 1 && l.lastBatch <= 1 && len(l.queue) == 0)
}

// callState says who owns a queued call; it changes under Limiter.bmu.
type callState uint8

const (
	queued  callState = iota // in Limiter.queue; its caller may still withdraw it
	sent                     // in a batch: its leader will answer it
	leading                  // its caller is to send batch, itself included
)

// call is one Take or Peek on its way to Redis.
type call struct {
	keys     [2]string
	lim      ratelimit.Limits
	period   ratelimit.Period
	now      time.Time
	take     bool
	want     int64           // units a Take asks for: 1, or a lease's size (lease.go)
	ctx      context.Context // to skip a call whose caller gave up; bounds only a lone round trip
	deadline time.Time       // the caller's timeout; a batch ends at its members' earliest

	// Written by the call's leader before it signals done.
	res     ratelimit.Result // with the whole grant counted in Used
	granted int64            // units the script counted: 1, or a lease's
	err     error

	state callState // under Limiter.bmu
	batch []*call   // when leading: the calls to send
	self  [1]*call  // the batch of a call that leads alone, without allocating
	done  chan struct{}
}

var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

// put returns c to the pool. Only a call that no leader will signal again
// may be put: one its caller withdrew from a batch in flight is left to the GC.
func (c *call) put() {
	*c = call{done: c.done}
	callPool.Put(c)
}

// roundTrip runs one Take or Peek in Redis, in a batch with whatever other
// calls are waiting for the same round trip, and answers within the timeout.
// A Take asks for want units (1 for an exact Take) and is told how many it
// got (granted); the Result's Used counts them all.
func (l *Limiter) roundTrip(ctx context.Context, key string, lim ratelimit.Limits, now time.Time, take bool, want int64) (_ ratelimit.Result, granted int64, _ error) {
	if err := ctx.Err(); err != nil {
		return ratelimit.Result{}, 0, err
	}
	c := callPool.Get().(*call)
	c.period = ratelimit.PeriodAt(now)
	c.keys = l.keys(key, c.period)
	c.lim, c.now, c.take, c.want = lim, now, take, max(want, 1)
	c.ctx = ctx
	c.deadline = time.Now().Add(l.timeout)

	l.bmu.Lock()
	if l.goAlone() {
		l.inFlight++
		l.callsInFlight++
		l.bmu.Unlock()
		c.self[0] = c
		batch := c.self[:]
		// Let the goroutines that are runnable already reach their own
		// calls first: they queue behind this one and go with it rather
		// than wait for the next round trip (several times larger batches
		// under the load harness's setting: bench/README.md, "The Redis
		// limiter's batches"). With nothing else runnable (an idle server)
		// Gosched returns at once: no timer, no added latency.
		runtime.Gosched()
		l.bmu.Lock()
		if q := l.takeQueue(); q != nil {
			batch = append(q, c)
		}
		l.bmu.Unlock()
		l.lead(c, batch)
		return c.answer()
	}
	c.state = queued
	l.queue = append(l.queue, c)
	l.bmu.Unlock()

	select {
	case <-c.done:
	case <-ctx.Done():
		l.bmu.Lock()
		switch c.state {
		case queued:
			// Not sent and nobody else holds it: withdraw, uncounted.
			if i := slices.Index(l.queue, c); i >= 0 {
				l.queue = slices.Delete(l.queue, i, i+1)
			}
			l.bmu.Unlock()
			err := ctx.Err()
			c.put()
			return ratelimit.Result{}, 0, err
		case sent:
			// Its leader may be writing it already; the answer is dropped,
			// and c is left to the GC because the leader will still signal it.
			l.bmu.Unlock()
			return ratelimit.Result{}, 0, ctx.Err()
		}
		// Made leader: the others in its batch wait for it, so it leads
		// even though its own caller has gone (its call is skipped).
		l.bmu.Unlock()
		<-c.done
	}
	if c.state == leading {
		l.lead(c, c.batch)
	}
	return c.answer()
}

// takeQueue takes the queued calls as a batch to send (nil when none
// wait): each is then sent, and counted in flight. Under bmu.
func (l *Limiter) takeQueue() []*call {
	q := l.queue
	if len(q) == 0 {
		return nil
	}
	l.queue = l.spare
	l.spare = nil
	for _, c := range q {
		c.state = sent
	}
	l.callsInFlight += len(q)
	return q
}

// answer returns c's result and recycles c.
func (c *call) answer() (ratelimit.Result, int64, error) {
	r, g, err := c.res, c.granted, c.err
	c.put()
	return r, g, err
}

// lead sends batch, which includes self, answers everyone in it but self and
// hands the calls that queued meanwhile to the next leader.
func (l *Limiter) lead(self *call, batch []*call) {
	l.send(batch)

	var next *call
	l.bmu.Lock()
	l.callsInFlight -= len(batch)
	l.lastBatch = len(batch)
	if len(l.queue) > 0 && l.inFlight == 1 {
		q := l.takeQueue()
		next = q[0]
		next.state = leading
		next.batch = q
	} else {
		// Nobody waits, or the other round trip in flight will take the
		// queue when it ends, so that the two merge into one batch.
		l.inFlight--
	}
	l.bmu.Unlock()

	// The next round trip first: the answers below can wait a few hundred
	// nanoseconds, Redis should not.
	if next != nil {
		next.done <- struct{}{}
	}
	for _, c := range batch {
		if c != self {
			c.done <- struct{}{}
		}
	}
	if &batch[0] != &self.self[0] {
		clear(batch)
		l.bmu.Lock()
		if l.spare == nil {
			l.spare = batch[:0]
		}
		l.bmu.Unlock()
	}
}

// send runs the script for every call of batch whose caller still waits, in
// one pipeline, and stores each call's result or error. The round trip is
// bounded by the earliest timeout among them and, unless a call goes alone,
// not by any caller's context, so that one caller giving up cannot fail the
// others (nor make them take it for an outage).
func (l *Limiter) send(batch []*call) {
	var deadline time.Time
	live := 0
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			continue
		}
		if live == 0 || c.deadline.Before(deadline) {
			deadline = c.deadline
		}
		live++
	}
	if live == 0 {
		return
	}
	l.rounds.Add(1)
	l.sentAll.Add(int64(live))
	start := time.Now()

	if live == 1 {
		for _, c := range batch {
			if c.err == nil {
				// Alone, the call may be bound by its caller's context as
				// well: nobody else depends on its round trip.
				ctx, cancel := context.WithDeadline(c.ctx, deadline)
				defer cancel()
				// Run is EVALSHA, and EVAL only when Redis answers NOSCRIPT
				// (after a restart or SCRIPT FLUSH), which also caches the
				// script again.
				c.finish(l.script.Run(ctx, l.client, c.keys[:], c.args()...))
			}
		}
		l.roundTripDone(start)
		return
	}

	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmds := make([]*goredis.Cmd, len(batch))
	pipe := l.client.Pipeline()
	for i, c := range batch {
		if c.err == nil {
			cmds[i] = l.script.EvalSha(ctx, pipe, c.keys[:], c.args()...)
		}
	}
	// Exec's error is also every failed command's own; each call reads its own.
	pipe.Exec(ctx)

	// After a restart or SCRIPT FLUSH every EVALSHA of the batch fails with
	// NOSCRIPT, and nothing ran: send those again as EVAL, which also caches
	// the script for the next batch.
	var retry goredis.Pipeliner
	for i, cmd := range cmds {
		if cmd != nil && goredis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			if retry == nil {
				retry = l.client.Pipeline()
			}
			c := batch[i]
			cmds[i] = l.script.Eval(ctx, retry, c.keys[:], c.args()...)
		}
	}
	if retry != nil {
		retry.Exec(ctx)
	}
	l.roundTripDone(start)

	for i, cmd := range cmds {
		if cmd != nil {
			batch[i].finish(cmd)
		}
	}
}

// args are the script's ARGV for c (see takeLua).
func (c *call) args() []any {
	flag := "0"
	if c.take {
		flag = "1"
	}
	if c.want > 1 {
		return []any{c.lim.Hour, c.lim.Day, ttl(c.period.HourEnd(), c.now), ttl(c.period.DayEnd(), c.now), flag, c.want, leaseShare}
	}
	return []any{c.lim.Hour, c.lim.Day, ttl(c.period.HourEnd(), c.now), ttl(c.period.DayEnd(), c.now), flag}
}

// finish stores the script's reply to c.
func (c *call) finish(cmd *goredis.Cmd) {
	v, err := cmd.Int64Slice()
	switch {
	case err != nil:
		c.err = err
	case len(v) != 3 && len(v) != 4:
		c.err = fmt.Errorf("redis: unexpected script reply %v", v)
	default:
		c.res = ratelimit.NewResult(c.lim, c.period, v[1], v[2], v[0] == 1, c.now)
		if len(v) == 4 {
			c.granted = v[3]
		}
	}
}

// roundTripDone tells Options.RoundTrip of a round trip that began at start.
func (l *Limiter) roundTripDone(start time.Time) {
	if l.onRoundTrip != nil {
		l.onRoundTrip(time.Since(start))
	}
}
