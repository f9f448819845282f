//go:build linux

package serving

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/game"
)

// TestAlignedWriteMapsHuge: a file written through alignedWriter, in small
// writes after an odd-sized header as an artifact is, is mapped with 2 MB
// entries wherever the kernel maps a file written in whole aligned huge
// pages so (skipped where it maps none: the file system or kernel makes no
// huge folios on write).
func TestAlignedWriteMapsHuge(t *testing.T) {
	dir := t.TempDir()
	const size = 4 * hugePage
	write := func(name string, fill func(f *os.File) error) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := fill(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	whole := writtenWhole(t, size)
	if whole == 0 {
		t.Skip(noHugeFolios)
	}
	artifact := write("artifact", func(f *os.File) error {
		a := newAlignedWriter(f)
		p := pattern(size)
		a.Write(p[:100]) // a header's worth, then the rest in 64 KB writes (binio's buffer)
		for p = p[100:]; len(p) > 0; {
			n := min(len(p), 64<<10)
			a.Write(p[:n])
			p = p[n:]
		}
		return a.Flush()
	})
	plain := write("plain", func(f *os.File) error {
		p := pattern(size)
		for len(p) > 0 {
			n := min(len(p), 64<<10)
			if _, err := f.Write(p[:n]); err != nil {
				return err
			}
			p = p[n:]
		}
		return nil
	})
	got, before := mappedHuge(t, artifact), mappedHuge(t, plain)
	t.Logf("mapped with 2 MB entries: written whole %d kB, through alignedWriter %d kB, in 64 KB writes %d kB of %d kB",
		whole>>10, got>>10, before>>10, size>>10)
	if got < size {
		t.Errorf("the file written through alignedWriter has %d of %d bytes mapped with 2 MB entries", got, size)
	}
}

// touched keeps the reads of pmdMapped from being optimized away.
var touched byte

func pattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i * 7)
	}
	return p
}

// mappedHuge maps path, reads every page of it, and returns how much of the
// mapping is mapped with huge entries (pmdMapped).
func mappedHuge(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	defer m.release()
	for i := 0; i < len(m.data); i += 4096 {
		touched += m.data[i]
	}
	n, err := pmdMapped(uintptr(unsafe.Pointer(unsafe.SliceData(m.data))))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFetchedArtifactMapsHuge: an artifact fetched from the shared bucket
// (S3 when its variable is set, else the disk driver) is written into the
// data directory as WriteArtifact writes one, and so is mapped with 2 MB
// entries as far as it fills whole huge pages (skipped where the kernel maps
// none so).
func TestFetchedArtifactMapsHuge(t *testing.T) {
	if writtenWhole(t, 2*hugePage) == 0 {
		t.Skip(noHugeFolios)
	}
	built, arts := mustBuiltArtifact(t)
	st, err := os.Stat(arts.Path(built.Version))
	if err != nil {
		t.Fatal(err)
	}
	whole := st.Size() / hugePage * hugePage
	if whole == 0 {
		t.Skipf("the sample's artifact (%d bytes) fills no whole huge page", st.Size())
	}
	for _, d := range blobtest.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			remote := d.Open(t)
			f, err := os.Open(arts.Path(built.Version))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := remote.Put(t.Context(), remotePrefix+artifactName(built.Version), f, st.Size(), blob.Attrs{ContentType: blob.DefaultContentType}); err != nil {
				t.Fatal(err)
			}
			replica := &Artifacts{Dir: t.TempDir(), Remote: remote}
			if _, where, err := replica.Load(t.Context(), game.Default(), built.Version, nil); err != nil || where != "s3" {
				t.Fatalf("Load: %q, %v", where, err)
			}
			if got := mappedHuge(t, replica.Path(built.Version)); got < whole {
				t.Errorf("the fetched artifact has %d of its %d bytes in whole huge pages mapped with 2 MB entries", got, whole)
			}
		})
	}
}

// noHugeFolios is the huge-page tests' reason to skip.
const noHugeFolios = "this kernel and file system map a file written in whole huge pages with 4 KB pages (FilePmdMapped 0): nothing to gain here"

// writtenWhole writes a file of size bytes in one write, the control of the
// huge-page tests, and returns how much of it is mapped with 2 MB entries.
func writtenWhole(t *testing.T, size int) int64 {
	path := filepath.Join(t.TempDir(), "control")
	if err := os.WriteFile(path, pattern(size), 0o600); err != nil {
		t.Fatal(err)
	}
	return mappedHuge(t, path)
}

// TestSettleHugeRereads: a file cached in small folios (written in 64 KB
// writes) and mapped with 4 KB entries is mapped with 2 MB entries once
// settleHuge has re-read it, with the same bytes; a file mapped so already is
// left as it is, and a file replaced at its path is not touched.
func TestSettleHugeRereads(t *testing.T) {
	const size = 4 * hugePage
	if writtenWhole(t, size) < size {
		t.Skip(noHugeFolios + ", or memory is too fragmented for 2 MB folios now")
	}
	dir := t.TempDir()
	open := func(path string) *mapping {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := mapFile(f, size)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.release)
		for i := 0; i < len(m.data); i += 4096 {
			touched += m.data[i]
		}
		return m
	}
	writeSmall := func(name string) string { // cached in small folios, and clean: only clean pages leave the cache
		t.Helper()
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for p := pattern(size); len(p) > 0; p = p[64<<10:] {
			if _, err := f.Write(p[:64<<10]); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	small := writeSmall("small")
	m := open(small)
	s, err := settleHuge(small, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", s)
	if float64(s.Before) >= hugeEnough*size {
		t.Skipf("the file written in 64 KB writes is mapped with 2 MB entries already (%d of %d bytes): nothing to re-read", s.Before, size)
	}
	if !s.Reread || s.Whole != size || s.After != size {
		t.Errorf("settleHuge = %+v, want all %d bytes re-read and mapped with 2 MB entries", s, size)
	}
	if !bytes.Equal(m.data, pattern(size)) {
		t.Error("the mapping's bytes changed")
	}
	again, err := settleHuge(small, m)
	if err != nil || again.Reread || again.Before != size {
		t.Errorf("settleHuge again = %+v, %v; want it left as it is", again, err)
	}

	// A mapped file whose path now names another file is left alone.
	replaced := writeSmall("replaced")
	m2 := open(replaced)
	if err := os.Rename(small, replaced); err != nil {
		t.Fatal(err)
	}
	if s2, err := settleHuge(replaced, m2); err == nil || s2.Reread {
		t.Errorf("settleHuge through a path that names another file = %+v, %v; want an error", s2, err)
	}
}

// TestSettleHugeSmallFile: a file under 2 MB (the tests' artifacts) has
// nothing to map with 2 MB entries: no share, no error, nothing logged.
func TestSettleHugeSmallFile(t *testing.T) {
	path, m := mappedPattern(t, "small", hugePage/2)
	if s, err := settleHuge(path, m); err != nil || s != (hugeShare{}) {
		t.Errorf("settleHuge = %+v, %v; want nothing", s, err)
	}
}

// TestSettleHugeTruncatedFile: a mapped file cut shorter (rewritten in place
// by hand, say) faults where settleHuge reads past its new end; that is
// errArtifactChanged, not a SIGBUS that ends the process (CI's stop 39).
func TestSettleHugeTruncatedFile(t *testing.T) {
	path, m := mappedPattern(t, "cut", 4*hugePage)
	if !hugePagesOn() || uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))%hugePage != 0 {
		t.Skip("huge pages off, or the mapping is not at a 2 MB boundary: settleHuge reads nothing")
	}
	if err := os.Truncate(path, hugePage); err != nil {
		t.Fatal(err)
	}
	s, err := settleHuge(path, m)
	if !errors.Is(err, errArtifactChanged) || !strings.Contains(err.Error(), "shorter than its mapping") {
		t.Fatalf("settleHuge on a file cut to 2 MB of its 8 = %+v, %v; want errArtifactChanged saying the file is shorter", s, err)
	}
	// The fault flag is the caller's again.
	if debug.SetPanicOnFault(false) {
		t.Error("settleHuge left its goroutine panicking on faults")
	}
}

// mappedPattern writes a file of size bytes of pattern and maps it, until
// the test ends.
func mappedPattern(t *testing.T, name string, size int) (string, *mapping) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, pattern(size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mapFile(f, int64(size))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.release)
	return path, m
}
