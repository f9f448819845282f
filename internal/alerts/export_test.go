package alerts

import "time"

// SetChangesWait shortens the wait for a version's changes; the returned
// func restores it.
func SetChangesWait(d time.Duration) (restore func()) {
	old := changesWait
	changesWait = d
	return func() { changesWait = old }
}
