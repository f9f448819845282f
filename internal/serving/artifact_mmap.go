package serving

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
)

// mapping is an artifact file mapped read-only. Every game snapshot read
// from it keeps it (catalog.GameSnapshot.Backing), and so every View, paid
// answer and request that can reach a card body does; the file is unmapped
// by a cleanup once none does (a swapped-out version after its last
// request and the next GC), never while one could still read it. Strings
// taken from a snapshot and kept beyond it must be copied.
type mapping struct {
	data  []byte
	state *mapState
	file  os.FileInfo // the file mapped, for os.SameFile (settleHuge); nil unknown
}

// mapState is what the cleanup needs: not the mapping, so that it can run.
type mapState struct {
	data     []byte
	unmapped atomic.Bool // tests
	cleanup  runtime.Cleanup
}

func newMapping(data []byte) *mapping {
	st := &mapState{data: data}
	m := &mapping{data: data, state: st}
	st.cleanup = runtime.AddCleanup(m, (*mapState).unmap, st)
	return m
}

func (st *mapState) unmap() {
	if st.unmapped.CompareAndSwap(false, true) {
		munmap(st.data)
	}
}

// release unmaps a mapping nothing was read from (a refused file) now
// rather than at the next GC.
func (m *mapping) release() {
	m.state.cleanup.Stop()
	m.state.unmap()
	m.data = nil
}

// hugeShare is how much of a mapping is mapped with 2 MB entries, of how
// much could be (its whole aligned 2 MB pages; 0 where none can be: a file
// under 2 MB, huge pages off, a system other than Linux). settleHuge
// (artifact_huge_linux.go) measures it and re-reads what is not.
type hugeShare struct {
	Before, After, Whole int64
	Reread               bool // the small pages were re-read
}

// errArtifactChanged: a mapped artifact's bytes read back from disk are not
// the ones checked when it was read (changed in place, or the disk).
var errArtifactChanged = errors.New("serving: the artifact changed on disk while mapped")
