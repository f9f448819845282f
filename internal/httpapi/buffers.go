package httpapi

import "sync"

// Response buffers are reused; a set page of 200 cards is a few hundred KB.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func getBuffer() *[]byte { bp := buffers.Get().(*[]byte); *bp = (*bp)[:0]; return bp }

func putBuffer(bp *[]byte) {
	if cap(*bp) <= 1<<20 {
		buffers.Put(bp)
	}
}
