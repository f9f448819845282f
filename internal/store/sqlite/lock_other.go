//go:build !unix

package sqlite

import "sync"

// heldLocks are the lock files held by this process, where flock is not
// available: there the lock excludes the stores of one process only
// (docs/operations.md, "Scheduled refresh").
var (
	heldMu    sync.Mutex
	heldLocks = map[string]bool{}
)

func lockFile(path string) (func(), bool, error) {
	heldMu.Lock()
	defer heldMu.Unlock()
	if heldLocks[path] {
		return nil, false, nil
	}
	heldLocks[path] = true
	var once sync.Once
	return func() {
		once.Do(func() {
			heldMu.Lock()
			delete(heldLocks, path)
			heldMu.Unlock()
		})
	}, true, nil
}
