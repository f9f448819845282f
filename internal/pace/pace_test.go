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
// then one pause per slice, counted from the pause's end; the slice doubles
// up to IdleSlice after pauses in which the process was idle (it waited for
// the poller and ran for less than a quarter of the pause), and is Slice
// after any other: requests ran, or the pause found nothing to run but
// ended at once (between two requests).
func TestPacerSlices(t *testing.T) {
	type pauseKind int
	const (
		busy    pauseKind = iota // requests ran for most of it
		idle                     // the poller's wait, nothing run
		between                  // nothing to run, over at once
		light                    // the poller's wait, then one request
	)
	var (
		now    = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		cpu    time.Duration
		kind   pauseKind
		slept  []time.Duration
		cpuSay = true
	)
	p := &Pacer{
		now: func() time.Time { return now },
		sleep: func(d time.Duration) {
			slept = append(slept, d)
			switch kind {
			case busy:
				now, cpu = now.Add(3*time.Millisecond), cpu+2*time.Millisecond
			case idle:
				now, cpu = now.Add(1050*time.Microsecond), cpu+30*time.Microsecond
			case between:
				now, cpu = now.Add(15*time.Microsecond), cpu+10*time.Microsecond
			case light:
				now, cpu = now.Add(1100*time.Microsecond), cpu+120*time.Microsecond
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
		after time.Duration // since the step before
		kind  pauseKind
		pause bool
		slice time.Duration // the slice after the step
	}{
		{0, busy, false, Slice},                 // the work begins
		{Slice - 1, busy, false, Slice},         // not yet a slice
		{1, busy, true, Slice},                  // a slice: paused, requests ran
		{Slice / 2, busy, false, Slice},         //
		{Slice / 2, busy, true, Slice},          //
		{10 * Slice, busy, true, Slice},         // one pause however long the step
		{Slice, idle, true, 2 * Slice},          // idle
		{2*Slice - 1, idle, false, 2 * Slice},   //
		{1, idle, true, 4 * Slice},              //
		{4 * Slice, between, true, Slice},       // nothing ran, but no wait: back to Slice
		{Slice, idle, true, 2 * Slice},          //
		{2 * Slice, light, true, 4 * Slice},     // a light load is idle enough
		{4 * Slice, idle, true, 8 * Slice},      //
		{8 * Slice, idle, true, 16 * Slice},     //
		{16 * Slice, idle, true, 32 * Slice},    //
		{32 * Slice, idle, true, IdleSlice},     //
		{IdleSlice, idle, true, IdleSlice},      // no longer than IdleSlice
		{IdleSlice - 1, busy, false, IdleSlice}, //
		{1, busy, true, Slice},                  // requests again: back to Slice
	}
	for i, s := range steps {
		kind = s.kind
		if paused := step(s.after); paused != s.pause || p.slice != s.slice {
			t.Errorf("step %d (%v after the one before): paused %v, slice %v; want %v, %v", i, s.after, paused, p.slice, s.pause, s.slice)
		}
	}
	if len(slept) != p.n || slices.ContainsFunc(slept, func(d time.Duration) bool { return d != Pause }) {
		t.Errorf("slept %v, want %d pauses of %v", slept, p.n, Pause)
	}

	// Where the system does not say the process's CPU time, every slice is
	// Slice.
	cpuSay, kind = false, idle
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
		t.Skip("the system does not say the process's CPU time: every slice is Slice")
	}
	work(20*time.Millisecond, false)
	if after, _ := processCPU(); after <= before {
		t.Errorf("CPU time %v, then %v after 20 ms of work", before, after)
	}
}
