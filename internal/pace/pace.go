// Package pace lets long background work on a serving process (the bulk
// files' gzip, a new version's checksum and checks) step aside for the
// requests.
//
// On a process given one core (GOMAXPROCS 1), a goroutine that computes
// without blocking keeps the only P until the scheduler preempts it, 10 ms
// later, and only then are the requests the network woke run: every request
// waits for it (BenchmarkPacerStall). A pause is two steps. A short sleep
// first: with nothing else to run, the scheduler polls the network before
// the sleep ends (runtime.Gosched alone does not: the scheduler takes the
// yielded goroutine again before it polls). Then runtime.Gosched: a
// goroutine woken by its timer is run next, ahead of the requests the poll
// found, and a sleep alone gave the requests almost nothing (under load, a
// request's p99 of 200 ms beside the work; bench/README.md, "Paced
// background work"); yielded, the work waits behind them.
package pace

import (
	"runtime"
	"time"
)

// Slice is how long work runs between two pauses while requests are
// served: about what a request waits for it.
const Slice = 250 * time.Microsecond

// IdleSlice is the longest slice, which the slices double to while the
// process is idle in the pauses: an idle process's pause lasts until the
// network poller's next wake-up (it waits in whole milliseconds), which at
// one pause a Slice would make the work several times as long.
const IdleSlice = 16 * time.Millisecond

// Pause is each pause's sleep: long enough that the scheduler polls the
// network before the sleep ends.
const Pause = 10 * time.Microsecond

// idleWait is how long a pause lasts, at least, when the poller waited for
// its wake-up: a pause that found nothing to run but ended sooner is one
// between two requests, not an idle process.
const idleWait = 900 * time.Microsecond

// A Pacer pauses a piece of work once per slice. Its zero value is ready; a
// nil *Pacer never pauses (the same work where no request waits: a server's
// start). It is not safe for concurrent use.
//
// Paced work runs in one goroutine: the network is polled only once nothing
// else is runnable, and two paced goroutines on one core seldom pause at the
// same moment.
type Pacer struct {
	next  time.Time
	slice time.Duration
	n     int // pauses taken, for the tests

	// Injected by tests.
	now   func() time.Time
	sleep func(time.Duration)
	cpu   func() (time.Duration, bool)
}

// Step is called between two steps of the work (a line, a megabyte): it
// pauses once the slice has passed since the work began or last paused.
// The next slice is twice the last, up to IdleSlice, after a pause in which
// the process was idle (the pause waited for the poller, and the process
// ran for less than a quarter of it), else Slice.
func (p *Pacer) Step() {
	if p == nil {
		return
	}
	now := p.clock()
	switch {
	case p.next.IsZero():
		p.slice, p.next = Slice, now.Add(Slice)
	case !now.Before(p.next):
		cpu, ok := p.cpuTime()
		p.pause(Pause)
		runtime.Gosched()
		p.n++
		end := p.clock()
		after, _ := p.cpuTime()
		if wall := end.Sub(now); ok && wall >= idleWait && after-cpu < wall/4 {
			p.slice = min(2*p.slice, IdleSlice)
		} else {
			p.slice = Slice
		}
		p.next = end.Add(p.slice)
	}
}

func (p *Pacer) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

func (p *Pacer) pause(d time.Duration) {
	if p.sleep != nil {
		p.sleep(d)
		return
	}
	time.Sleep(d)
}

// cpuTime is the process's CPU time, or false where the system does not
// say (every slice is then Slice).
func (p *Pacer) cpuTime() (time.Duration, bool) {
	if p.cpu != nil {
		return p.cpu()
	}
	return processCPU()
}
