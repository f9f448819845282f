// Package pace lets long background work on a serving process (the bulk
// files' gzip, a new version's checksum and checks) step aside for the
// requests.
//
// On a process given one core (GOMAXPROCS 1), a goroutine that computes
// without blocking keeps the only P until the scheduler preempts it, 10 ms
// later, and only then are the requests the network woke run: every request
// waits for it (BenchmarkPacerStall). Yielding (runtime.Gosched) does not
// help: the scheduler takes the yielded goroutine again before it polls the
// network. A short sleep does: with nothing else to run, the scheduler polls
// the network before the sleep ends.
package pace

import "time"

// Slice is how long work runs between two pauses while requests are
// served: the longest a request waits for it, beside the scheduler's 10 ms.
const Slice = time.Millisecond

// IdleSlice is the longest slice, which the slices double to while nothing
// else runs in the pauses: on an idle process a pause lasts until the
// network poller's next wake-up (it waits in whole milliseconds), which
// would double the work's time at one pause a millisecond.
const IdleSlice = 16 * time.Millisecond

// busyCPU is the process's CPU time in a pause above which it ran
// something else (requests) in it: a pause costs about 10 µs of CPU by
// itself, a request at the wire 25 µs or more (bench/README.md, "Paced background
// work").
const busyCPU = 40 * time.Microsecond

// Pause is each pause's sleep: long enough that the scheduler polls the
// network before the sleep ends, and short enough to be over by the time the
// requests it found have run.
const Pause = 10 * time.Microsecond

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
// The next slice is Slice when the process ran something else in the pause
// (requests), else twice the last, up to IdleSlice.
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
		p.n++
		if after, _ := p.cpuTime(); !ok || after-cpu >= busyCPU {
			p.slice = Slice
		} else {
			p.slice = min(2*p.slice, IdleSlice)
		}
		p.next = p.clock().Add(p.slice)
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
// say (every pause then ends a busy slice).
func (p *Pacer) cpuTime() (time.Duration, bool) {
	if p.cpu != nil {
		return p.cpu()
	}
	return processCPU()
}
