//go:build unix

package sqlite

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path without waiting. flock belongs
// to the open file, so two opens in one process exclude each other too, and
// the kernel releases it when the process dies.
func lockFile(path string) (func(), bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}
