package images

import (
	"context"
	"sync"
)

// flights collapses concurrent work on one product into one call. Unlike a
// plain singleflight, the call runs in its own goroutine: a caller whose
// context ends stops waiting, but the call goes on for the others (and fills
// the cache), so one cancelled request cannot poison the shared fetch.
type flights struct {
	mu    sync.Mutex
	calls map[string]*flight
}

type flight struct {
	done chan struct{}
	img  *Image
	err  error
}

// start returns the call in flight for id, starting fn if there is none.
func (fs *flights) start(productID string, fn func() (*Image, error)) *flight {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.calls[productID]; ok {
		return f
	}
	if fs.calls == nil {
		fs.calls = make(map[string]*flight)
	}
	f := &flight{done: make(chan struct{})}
	fs.calls[productID] = f
	go func() {
		defer close(f.done)
		defer func() {
			fs.mu.Lock()
			delete(fs.calls, productID)
			fs.mu.Unlock()
		}()
		f.img, f.err = fn()
	}()
	return f
}

// wait returns the call's result, or ctx's error if ctx ends first.
func (f *flight) wait(ctx context.Context) (*Image, error) {
	select {
	case <-f.done:
		return f.img, f.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
