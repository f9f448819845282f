package pace

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the process's CPU time so far, to the nanosecond: the
// running thread's time included (getrusage counts it only at the next
// tick or switch, which would lend a pause the work's own time).
func processCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
