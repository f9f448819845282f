package serving

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"unsafe"

	"github.com/zeebo/xxh3"
	"golang.org/x/sys/unix"
)

// An artifact's pages are mapped with 2 MB entries only where the page
// cache holds them in 2 MB folios, and that was decided when they entered
// the cache: a file written while memory was fragmented (or copied with cp)
// is cached in small folios and mapped with 4 KB entries for as long as it
// stays cached. A card detail then costs 11-25% more at the wire at a
// million cards (bench/README.md, "The artifact's pages re-read in huge
// pages"). mapFile asks for huge pages (MADV_HUGEPAGE), so pages read from
// disk come in 2 MB folios; settleHuge re-reads the ones already cached
// small.

// adviseHuge asks the kernel to back data, a file mapping, with huge
// pages: its pages read from disk from now on come in 2 MB folios. A
// kernel without transparent huge pages refuses; nothing to do then.
func adviseHuge(data []byte) { unix.Madvise(data, unix.MADV_HUGEPAGE) }

// hugeEnough: a mapping with at least this share of its whole 2 MB pages
// mapped so is left as it is (a re-read costs a read of the whole file).
const hugeEnough = 0.9

// settleHuge re-reads the pages of m, the mapping of the artifact at path,
// in 2 MB folios when fewer than hugeEnough of them are mapped so: 2 MB at
// a time, its entries dropped (MADV_DONTNEED: the pages stay in the page
// cache), its cached pages dropped (POSIX_FADV_DONTNEED: only pages no
// process maps), and read again through the mapping, which asked for huge
// pages. Requests read the mapping meanwhile: a page they fault in again
// between the two drops stays small, the rest of the file is re-read
// anyway. Each 2 MB's hash is compared before and after: the file must not
// change while mapped, and a change is an error (the bytes served were
// checked against the artifact's checksum when it was read). A file cut
// shorter while mapped faults on the pages past its end: that is the same
// error, not a crash of the process (the requests that read those pages
// would fault too, hence the error's advice to restart).
func settleHuge(path string, m *mapping) (s hugeShare, err error) {
	defer runtime.KeepAlive(m) // mapped until the end, whatever the holder drops
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(interface{ Addr() uintptr })
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%w: %s, a fault at %#x (the file is shorter than its mapping)", errArtifactChanged, path, f.Addr())
		}
	}()
	data := m.data
	base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	if len(data) < hugePage || base%hugePage != 0 || !hugePagesOn() {
		// Nothing of it can be mapped with 2 MB entries: a file under 2 MB,
		// a file system that does not align its mappings, huge pages off.
		return hugeShare{}, nil
	}
	s = hugeShare{Whole: int64(len(data)) / hugePage * hugePage}
	if s.Before, err = pmdMapped(base); err != nil {
		return s, err
	}
	s.After = s.Before
	if float64(s.Before) >= hugeEnough*float64(s.Whole) {
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || m.file == nil || !os.SameFile(fi, m.file) {
		return s, fmt.Errorf("serving: %s is no longer the file mapped", path)
	}
	s.Reread = true
	for off := 0; off+hugePage <= len(data); off += hugePage {
		region := data[off : off+hugePage]
		sum := xxh3.Hash(region)
		if err := unix.Madvise(region, unix.MADV_DONTNEED); err != nil {
			return s, fmt.Errorf("serving: dropping the artifact's entries: %w", err)
		}
		if err := unix.Fadvise(int(f.Fd()), int64(off), hugePage, unix.FADV_DONTNEED); err != nil {
			return s, fmt.Errorf("serving: dropping the artifact's cached pages: %w", err)
		}
		if xxh3.Hash(region) != sum {
			return s, fmt.Errorf("%w: %s, at byte %d", errArtifactChanged, path, off)
		}
	}
	s.After, err = pmdMapped(base)
	return s, err
}

// thpEnabled is the kernel's transparent huge pages setting.
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// hugePagesOn reports whether the kernel gives huge pages to a mapping that
// asks for them: its setting is "always" or "madvise", not "never" (or
// absent: a kernel without them).
func hugePagesOn() bool {
	b, err := os.ReadFile(thpEnabled)
	return err == nil && !strings.Contains(string(b), "[never]")
}

// pmdMapped returns how many bytes of the mapping that starts at base
// /proc/self/smaps shows mapped with 2 MB entries (FilePmdMapped).
func pmdMapped(base uintptr) (int64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := strconv.FormatUint(uint64(base), 16) + "-"
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, ' '); i > 0 && strings.Contains(line[:i], "-") && !strings.HasSuffix(line[:i], ":") {
			in = strings.HasPrefix(line, start)
			continue
		}
		if v, ok := strings.CutPrefix(line, "FilePmdMapped:"); ok && in {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("serving: no mapping at %#x in /proc/self/smaps", base)
}
