//go:build unix

package serving

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/testkit"
)

// mappedState returns the state of the mapping v's card bodies are in,
// failing t when they are not in one.
func mappedState(t *testing.T, v *View) *mapState {
	t.Helper()
	var st *mapState
	for _, gs := range v.Games() {
		m, ok := gs.Backing().(*mapping)
		if !ok {
			t.Fatalf("%s: card bodies not read in place (backing %T)", gs.Game().Code, gs.Backing())
		}
		if gs.Len() > 0 {
			p := uintptr(unsafe.Pointer(unsafe.StringData(gs.SetRun(&gs.Sets()[0], 0, 1))))
			lo := uintptr(unsafe.Pointer(&m.data[0]))
			if p < lo || p >= lo+uintptr(len(m.data)) {
				t.Fatalf("%s: a card body outside the mapping", gs.Game().Code)
			}
		}
		if st != nil && st != m.state {
			t.Fatal("the games of one artifact in different mappings")
		}
		st = m.state
	}
	return st
}

// TestArtifactMapped: a read artifact's card bodies are the file's mapped
// bytes, and a file replaced (renamed over) or removed while mapped leaves
// the served view's answers as they were.
func TestArtifactMapped(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	path := arts.Path(built.Version)
	read, err := ReadArtifact(path, game.Default(), built.Version)
	if err != nil {
		t.Fatal(err)
	}
	mappedState(t, read)

	// Replaced as artifacts are replaced: a new file renamed over it.
	junk := filepath.Join(filepath.Dir(path), "junk")
	size := 0
	if fi, err := os.Stat(path); err == nil {
		size = int(fi.Size())
	}
	b := make([]byte, size)
	for i := range b {
		b[i] = 'x'
	}
	if err := os.WriteFile(junk, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(junk, path); err != nil {
		t.Fatal(err)
	}
	compareViews(t, built, read)
	// Removed (as prune does).
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	compareViews(t, built, read)
}

// TestArtifactMappingReleased: once the view read from an artifact (and so
// every game snapshot of it) is no longer referenced, the next GCs unmap
// the file; while it is referenced, they do not.
func TestArtifactMappingReleased(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	read, err := ReadArtifact(arts.Path(built.Version), game.Default(), built.Version)
	if err != nil {
		t.Fatal(err)
	}
	st := mappedState(t, read)
	// A request holding only a game snapshot keeps the mapping.
	var gs *catalog.GameSnapshot = read.Games()[0]
	read = nil
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if st.unmapped.Load() {
		t.Fatal("unmapped while a game snapshot of it is referenced")
	}
	_ = gs.AppendCard(nil, 0)
	runtime.KeepAlive(gs)
	gs = nil
	deadline := time.Now().Add(10 * time.Second)
	for !st.unmapped.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the mapping of an unreferenced view not released after GC")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHolderSwapReleasesMapping: a Holder serving versions from their
// artifacts (the store's catalogue never loaded) unmaps the swapped-out version's file after the swap and a GC,
// and keeps the current one's mapped.
func TestHolderSwapReleasesMapping(t *testing.T) {
	t.Parallel()
	st := &holderStore{cat: mustFixture(t)}
	h := NewHolder(st, game.Default(), slog.New(slog.DiscardHandler))
	h.Artifacts = &Artifacts{Dir: t.TempDir()}
	write := func() {
		v, err := Build(st.cat, game.Default(), analytics.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteArtifact(h.Artifacts.Path(v.Version), v); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if err := h.Refresh(t.Context()); err != nil || st.loads != 0 {
		t.Fatalf("first: %v, %d loads", err, st.loads)
	}
	first := mappedState(t, h.Current())
	st.cat.Version++
	write()
	if err := h.Refresh(t.Context()); err != nil || h.Current().Version != st.cat.Version || st.loads != 0 {
		t.Fatalf("second: %v, version %d, %d loads", err, h.Current().Version, st.loads)
	}
	second := mappedState(t, h.Current())
	deadline := time.Now().Add(10 * time.Second)
	for !first.unmapped.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the swapped-out version's mapping not released after GC")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if second.unmapped.Load() {
		t.Fatal("the current version's mapping released")
	}
	exercise(h.Current())
}

// artifactHolder is a holder of the sample store with artifacts in a
// directory of its own, logging into the buffer it returns.
func artifactHolder(t *testing.T) (*Holder, *countingStore, *testkit.SyncBuffer) {
	t.Helper()
	st := mustSampleStore(t)
	logs := new(testkit.SyncBuffer)
	h := NewHolder(st, game.Default(), slog.New(slog.NewTextHandler(logs, nil)))
	h.Artifacts = &Artifacts{Dir: t.TempDir()}
	return h, st, logs
}

// TestHolderServesBuiltVersionFromItsArtifact: a version built from the
// store is published once, its artifact written, and then served from that
// artifact, mapped, with the same answers; the swap is not a new version.
func TestHolderServesBuiltVersionFromItsArtifact(t *testing.T) {
	t.Parallel()
	h, st, logs := artifactHolder(t)
	var published, remapped []*View
	h.OnPublish = func(v *View) { published = append(published, v) }
	h.OnRemap = func(b, m *View) { remapped = append(remapped, b, m) }
	if err := h.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(published) != 1 {
		t.Fatalf("published %d times", len(published))
	}
	built, cur := published[0], h.Current()
	if len(remapped) != 2 || remapped[0] != built || remapped[1] != cur {
		t.Fatalf("OnRemap got %v, want the built view %p and the one served %p", remapped, built, cur)
	}
	if cur == built || cur.Version != built.Version {
		t.Fatalf("serving %p (version %d) after building %p (version %d): want the same version read back",
			cur, cur.Version, built, built.Version)
	}
	mappedState(t, cur)
	for _, gs := range built.Games() {
		if gs.Backing() != nil {
			t.Fatalf("%s: the built view's bodies are not the heap's", gs.Game().Code)
		}
	}
	compareViews(t, built, cur)
	if s := h.LastSwap(); s.Version != built.Version || s.Build <= 0 {
		t.Errorf("LastSwap %+v: want the build's", s)
	}
	if want := `msg="catalogue snapshot now served from its artifact" version=` + fmt.Sprint(built.Version); !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not say %s:\n%s", want, logs.String())
	}
	// The next refresh of the same version changes nothing.
	if err := h.Refresh(t.Context()); err != nil || h.Current() != cur || len(published) != 1 || st.loads.Load() != 1 {
		t.Fatalf("second refresh: %v, %d published, %d loads", err, len(published), st.loads.Load())
	}
}

// TestServeMappedKeepsBuiltView: when the artifact just written cannot be
// read back, the built view is served on and the log says why; when a newer
// version was published meanwhile, the read-back one does not replace it.
func TestServeMappedKeepsBuiltView(t *testing.T) {
	t.Parallel()
	h, _, logs := artifactHolder(t)
	var built *View
	h.OnPublish = func(v *View) { built = v }
	if err := h.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	mapped := h.Current()
	if built == nil || mapped == built {
		t.Fatal("the built version was not swapped for its artifact")
	}

	// Unreadable: one byte of the checksummed file flipped, once the
	// re-read of its pages that the swap started has ended (it would find
	// the file changed under it).
	h.Artifacts.waitSettled()
	path := h.Artifacts.Path(built.Version)
	flipLastByte(t, path)
	remapped := 0
	h.OnRemap = func(*View, *View) { remapped++ }
	h.view.Store(built)
	logs.Reset()
	h.serveMapped(built)
	if h.Current() != built {
		t.Fatal("a view that could not be read back replaced the built one")
	}
	if want := `msg="snapshot artifact not read back; serving the version built" version=` + fmt.Sprint(built.Version); !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not say %s:\n%s", want, logs.String())
	}

	// Readable again, but another view is served by now.
	h.Artifacts.waitSettled()
	flipLastByte(t, path)
	h.view.Store(mapped)
	logs.Reset()
	h.serveMapped(built)
	if h.Current() != mapped {
		t.Fatal("the read-back view replaced one published after the build")
	}
	if strings.Contains(logs.String(), "now served from its artifact") {
		t.Errorf("the log claims a swap that did not happen:\n%s", logs.String())
	}
	if remapped != 0 {
		t.Errorf("OnRemap called %d times without a swap", remapped)
	}
}

// flipLastByte flips the last bit of the file at path, in place (the file
// may be mapped: rewriting it whole would cut it short for a moment), and
// returns its length.
func flipLastByte(t *testing.T, path string) int {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	last[0] ^= 1
	if _, err := f.WriteAt(last, fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	return int(fi.Size())
}

// TestArtifactRefusedUnmapped: a file refused after mapping (a bad
// checksum) is unmapped at once.
func TestArtifactRefusedUnmapped(t *testing.T) {
	t.Parallel()
	built, arts := mustBuiltArtifact(t)
	path := arts.Path(built.Version)
	n := flipLastByte(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mapFile(f, int64(n))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readMapped(m.data, m, game.Default(), built.Version, nil); err == nil {
		t.Fatal("a damaged file read")
	}
	m.release()
	if !m.state.unmapped.Load() {
		t.Fatal("not unmapped")
	}
}
