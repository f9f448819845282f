package pace

import (
	"io"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestPacerSlices: no pause before a slice has passed since the first step,
// then one pause per slice, counted from the pause's end; the slice is Slice
// after a pause in which the process ran (requests), and doubles up to
// IdleSlice after pauses in which it did not.
func TestPacerSlices(t *testing.T) {
	var (
		now    = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		cpu    time.Duration
		busy   bool // whether the next pause runs requests
		slept  []time.Duration
		cpuSay = true
	)
	p := &Pacer{
		now: func() time.Time { return now },
		sleep: func(d time.Duration) {
			slept = append(slept, d)
			if busy {
				now, cpu = now.Add(3*time.Millisecond), cpu+3*time.Millisecond // requests ran
			} else {
				now = now.Add(time.Millisecond) // the poller's wait, nothing run
			}
		},
		cpu: func() (time.Duration, bool) { return cpu, cpuSay },
	}
	step := func(after time.Duration) bool {
		now, cpu = now.Add(after), cpu+after // the work's own time
		before := p.n
		p.Step()
		return p.n > before
	}
	steps := []struct {
		after       time.Duration // since the step before
		busy, pause bool
		slice       time.Duration // the slice after the step
	}{
		{0, true, false, Slice},                 // the work begins
		{Slice - 1, true, false, Slice},         // not yet a slice
		{1, true, true, Slice},                  // a slice: paused, requests ran
		{Slice / 2, true, false, Slice},         //
		{Slice / 2, true, true, Slice},          //
		{10 * Slice, true, true, Slice},         // one pause however long the step
		{Slice, false, true, 2 * Slice},         // nothing ran in the pause
		{2*Slice - 1, false, false, 2 * Slice},  //
		{1, false, true, 4 * Slice},             //
		{4 * Slice, false, true, 8 * Slice},     //
		{8 * Slice, false, true, IdleSlice},     //
		{IdleSlice, false, true, IdleSlice},     // no longer than IdleSlice
		{IdleSlice - 1, true, false, IdleSlice}, //
		{1, true, true, Slice},                  // requests again: back to Slice
		{Slice, false, true, 2 * Slice},         //
	}
	for i, s := range steps {
		busy = s.busy
		if paused := step(s.after); paused != s.pause || p.slice != s.slice {
			t.Errorf("step %d (%v after the one before): paused %v, slice %v; want %v, %v", i, s.after, paused, p.slice, s.pause, s.slice)
		}
	}
	if len(slept) != p.n || slices.ContainsFunc(slept, func(d time.Duration) bool { return d != Pause }) {
		t.Errorf("slept %v, want %d pauses of %v", slept, p.n, Pause)
	}

	// Where the system does not say the process's CPU time, every pause
	// ends a busy slice.
	cpuSay, busy = false, false
	for range 3 {
		if !step(p.slice) || p.slice != Slice {
			t.Fatalf("without the CPU time: slice %v, want %v", p.slice, Slice)
		}
	}
}

// TestPacerZeroValue: a zero Pacer uses the real clock and sleep.
func TestPacerZeroValue(t *testing.T) {
	var p Pacer
	start := time.Now()
	for time.Since(start) < 3*Slice {
		p.Step()
	}
	if p.n == 0 {
		t.Errorf("no pause in %v of steps", time.Since(start))
	}
}

// BenchmarkPacerStall runs a computation on one core (GOMAXPROCS 1, as a
// pinned server) beside a client that sends a byte over loopback TCP every
// 200 µs to a goroutine that echoes it, and reports the round trips' median
// and longest: how long the network's goroutines waited for the work.
func BenchmarkPacerStall(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c) }()
		}
	}()
	for _, paced := range []bool{false, true} {
		name := map[bool]string{false: "unpaced", true: "paced"}[paced]
		b.Run(name, func(b *testing.B) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			var trips []time.Duration
			for b.Loop() {
				done := make(chan []time.Duration)
				stop := make(chan struct{})
				go func() {
					var rtt []time.Duration
					buf := []byte{1}
					for {
						select {
						case <-stop:
							done <- rtt
							return
						default:
						}
						t := time.Now()
						if _, err := c.Write(buf); err != nil {
							break
						}
						if _, err := c.Read(buf); err != nil {
							break
						}
						rtt = append(rtt, time.Since(t))
						time.Sleep(200 * time.Microsecond)
					}
					done <- rtt
				}()
				runtime.Gosched()
				work(200*time.Millisecond, paced)
				close(stop)
				trips = append(trips, <-done...)
			}
			slices.Sort(trips)
			if len(trips) > 0 {
				b.ReportMetric(float64(trips[len(trips)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(trips[len(trips)-1].Microseconds()), "max-µs")
			}
		})
	}
}

// work computes for d, a Pacer's step every few microseconds when paced.
func work(d time.Duration, paced bool) {
	var p Pacer
	x := uint64(1)
	for start := time.Now(); time.Since(start) < d; {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if paced {
			p.Step()
		}
	}
	sink = x
}

var sink uint64

// TestProcessCPU: where the system says the process's CPU time, it advances
// while the process computes.
func TestProcessCPU(t *testing.T) {
	before, ok := processCPU()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("no CPU time on linux")
		}
		t.Skip("the system does not say the process's CPU time: every pause ends a busy slice")
	}
	work(20*time.Millisecond, false)
	if after, _ := processCPU(); after <= before {
		t.Errorf("CPU time %v, then %v after 20 ms of work", before, after)
	}
}
