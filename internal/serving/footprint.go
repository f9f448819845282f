package serving

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/cardcat/cardcat/internal/catalog"
)

// Footprint is where a served version's memory is (issue 26: "measure
// where each byte goes"): the snapshot's parts summed over the games, how
// much of each lies in the mapped artifact and how much of that is
// resident in this process, and the process's memory as the kernel and the
// Go runtime count it. The admin listener serves it as JSON at
// /debug/footprint; the load harness reports it per product.
type Footprint struct {
	Version  int64           `json:"version"`
	Products int             `json:"products"`
	Parts    []FootprintPart `json:"parts"`
	// Artifact is the whole mapped artifact: its bytes (Mapped), and how
	// many are resident, the parts' and the sections they do not name
	// (the paid answers' sections, the snapshot's small tables) alike; zero for a
	// version built on the heap.
	Artifact FootprintPart `json:"artifact"`
	// Compressed is the compressed answers kept by the API (its
	// --compress-cache-mb cache, an arena outside the Go heap: part of
	// RssAnon, not of the heap), set by the caller that has them.
	Compressed int64         `json:"compressed"`
	Process    ProcessMemory `json:"process"`
}

// FootprintPart is one part of the snapshot, over every game.
type FootprintPart struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
	// Mapped is the part of Bytes in the mapped artifact (file pages,
	// shared with the page cache); the rest is the heap's.
	Mapped int64 `json:"mapped"`
	// Resident is the part of Mapped in pages present in this process
	// (what VmRSS counts of it); -1 where that cannot be read.
	Resident int64 `json:"resident"`
}

// ProcessMemory is the process's memory: the kernel's resident counts
// and the Go runtime's heap.
type ProcessMemory struct {
	RssAnon  int64 `json:"rss_anon"`  // anonymous resident pages: the heap, stacks, the runtime's
	RssFile  int64 `json:"rss_file"`  // file pages mapped and resident: the artifact's, the binary's
	RssShmem int64 `json:"rss_shmem"` // shared memory
	// HeapInuse is the heap's spans in use (live objects and their slack);
	// HeapFree is heap memory kept but not in use, not yet returned to the
	// kernel (what the collector's next cycles may still use).
	HeapInuse int64 `json:"heap_inuse"`
	HeapFree  int64 `json:"heap_free"`
	// RuntimeOther is the runtime's own: stacks, spans, GC metadata,
	// caches.
	RuntimeOther int64 `json:"runtime_other"`
}

// FootprintOf measures v (nil: only the process). It stops the world for
// runtime.ReadMemStats (well under a millisecond) and reads this process's
// page map for the mapped parts: an admin request, not a per-request call.
func FootprintOf(v *View) Footprint {
	var f Footprint
	pages, pagesErr := openPageMap()
	if pagesErr == nil {
		defer pages.Close()
	}
	if v != nil {
		f.Version = v.Version
		f.Artifact.Name = "the artifact, whole"
		index := map[string]int{}
		seen := map[*mapping]bool{}
		for _, g := range v.Games() {
			f.Products += g.Len()
			var mapped []byte
			if m, ok := g.Backing().(*mapping); ok {
				mapped = m.data
				if !seen[m] {
					seen[m] = true
					whole := catalog.Span{Addr: uintptr(unsafe.Pointer(unsafe.SliceData(m.data))), Len: len(m.data)}
					f.Artifact.Bytes += int64(len(m.data))
					f.Artifact.Mapped += int64(len(m.data))
					if r, err := resident(pages, pagesErr, whole); err != nil || f.Artifact.Resident < 0 {
						f.Artifact.Resident = -1
					} else {
						f.Artifact.Resident += r
					}
				}
			}
			for _, p := range g.Footprint() {
				i, ok := index[p.Name]
				if !ok {
					i = len(f.Parts)
					index[p.Name] = i
					f.Parts = append(f.Parts, FootprintPart{Name: p.Name})
				}
				fp := &f.Parts[i]
				fp.Bytes += p.Bytes
				for _, s := range p.Spans {
					n := inside(s, mapped)
					fp.Mapped += n
					if n > 0 && fp.Resident >= 0 {
						r, err := resident(pages, pagesErr, s)
						if err != nil {
							fp.Resident = -1
							continue
						}
						fp.Resident += r
					}
				}
			}
		}
	}
	f.Process = processMemory()
	return f
}

// resident is pages.resident(s), or the error of opening pages.
func resident(pages *pageMap, openErr error, s catalog.Span) (int64, error) {
	if openErr != nil {
		return 0, openErr
	}
	return pages.resident(s)
}

// inside returns how many bytes of s lie in m.
func inside(s catalog.Span, m []byte) int64 {
	if len(m) == 0 || s.Len == 0 {
		return 0
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	hi := lo + uintptr(len(m))
	a, b := max(s.Addr, lo), min(s.Addr+uintptr(s.Len), hi)
	if a >= b {
		return 0
	}
	return int64(b - a)
}

func processMemory() ProcessMemory {
	var pm ProcessMemory
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	pm.HeapInuse = int64(ms.HeapInuse)
	pm.HeapFree = int64(ms.HeapIdle - ms.HeapReleased)
	pm.RuntimeOther = int64(ms.StackSys + ms.MSpanSys + ms.MCacheSys + ms.BuckHashSys + ms.GCSys + ms.OtherSys)
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return pm
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(k) {
		case "RssAnon":
			dst = &pm.RssAnon
		case "RssFile":
			dst = &pm.RssFile
		case "RssShmem":
			dst = &pm.RssShmem
		default:
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
		if err == nil {
			*dst = kb << 10
		}
	}
	return pm
}
