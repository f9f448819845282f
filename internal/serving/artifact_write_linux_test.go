//go:build linux

package serving

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
	got, before := pmdMapped(t, artifact), pmdMapped(t, plain)
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

// pmdMapped maps path, reads every page of it, and returns how much of the
// mapping /proc/self/smaps shows mapped with huge entries (FilePmdMapped).
func pmdMapped(t *testing.T, path string) int64 {
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
	s, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer s.Close()
	sc := bufio.NewScanner(s)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = strings.HasSuffix(line, " "+path)
			continue
		}
		if v, ok := strings.CutPrefix(line, "FilePmdMapped:"); ok && in {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("%s not found in /proc/self/smaps", path)
	return 0
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
			if _, where, err := replica.Load(t.Context(), game.Default(), built.Version); err != nil || where != "s3" {
				t.Fatalf("Load: %q, %v", where, err)
			}
			if got := pmdMapped(t, replica.Path(built.Version)); got < whole {
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
	return pmdMapped(t, path)
}
