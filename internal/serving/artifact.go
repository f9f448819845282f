package serving

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/binio"
	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/pace"
	"github.com/zeebo/xxh3"
)

// A snapshot artifact is one View written to a file, so that a replica
// reads a version's snapshot and paid answers in one pass instead of
// loading the catalogue and its price history from the store and building
// them again. Layout (integers little-endian):
//
//	magic               8 bytes "CCSNAP\r\n"
//	format              u32 ArtifactFormat
//	snapshot encoding   u32 catalog.SnapshotEncoding
//	answers encoding    u32 analytics.Encoding
//	catalogue version   i64
//	sections            u32 count, then u64 length of each
//	padding             zeros, so that the body starts at a multiple of 64 bytes
//	checksum            u64 XXH3 of the header's bytes above followed by the XXH3 of the body
//	body                the sections back to back: the snapshot
//	                    (catalog.Snapshot.WriteBinary), then each game's paid
//	                    answers in registry order (analytics.Game.WriteBinary)
//
// A file is refused, and the version built from the store instead, when
// anything differs: magic, any of the three versions, the catalogue version
// asked for, the sections' lengths against the file's size, the checksum,
// or any value the decoders check.

// ArtifactFormat is the version of the layout above (2: the padding).
const ArtifactFormat = 2

var artifactMagic = [8]byte{'C', 'C', 'S', 'N', 'A', 'P', '\r', '\n'}

// ErrArtifactInvalid is wrapped by ReadArtifact's errors about the file's
// contents (as opposed to failing to open or read it).
var ErrArtifactInvalid = errors.New("serving: snapshot artifact refused")

// headerLen is the length of a header with n sections: up to the next
// multiple of binio.MaxAlign, so that the body's aligned arrays
// (binio.Writer.U32sAligned) are as aligned in a mapped file's memory,
// which starts at a page.
func headerLen(n int) int {
	return (8 + 4 + 4 + 4 + 8 + 4 + 8*n + 8 + binio.MaxAlign - 1) &^ (binio.MaxAlign - 1)
}

// appendHeader appends the header of an artifact, all but its checksum.
func appendHeader(b []byte, version int64, sections []uint64) []byte {
	b = append(b, artifactMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, ArtifactFormat)
	b = binary.LittleEndian.AppendUint32(b, catalog.SnapshotEncoding)
	b = binary.LittleEndian.AppendUint32(b, analytics.Encoding)
	b = binary.LittleEndian.AppendUint64(b, uint64(version))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(sections)))
	for _, l := range sections {
		b = binary.LittleEndian.AppendUint64(b, l)
	}
	return append(b, make([]byte, headerLen(len(sections))-8-len(b))...)
}

// sealSum is the checksum of a header (without its checksum) and a body's hash.
func sealSum(header []byte, body uint64) uint64 {
	h := xxh3.New()
	h.Write(header)
	h.Write(binary.LittleEndian.AppendUint64(nil, body))
	return h.Sum64()
}

// WriteArtifact writes v to path atomically (blob.WriteFile): a replica
// mapping the old file keeps it, the next one maps the new file.
func WriteArtifact(path string, v *View) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("serving: snapshot artifact: %w", err)
	}
	err := blob.WriteFile(path, 0o600, func(f *os.File) error {
		if err := writeArtifact(f, v); err != nil {
			return fmt.Errorf("serving: writing snapshot artifact %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("serving: snapshot artifact: %w", err)
	}
	return nil
}

// writeArtifact writes v to f: a placeholder header, the body, then the
// header with the sections' lengths and the checksum.
func writeArtifact(f *os.File, v *View) error {
	games := v.Games()
	sections := make([]uint64, 1+len(games))
	out := newAlignedWriter(f)
	if _, err := out.Write(make([]byte, headerLen(len(sections)))); err != nil {
		return err
	}
	body := xxh3.New()
	w := binio.NewWriter(io.MultiWriter(out, body))
	v.Snapshot.WriteBinary(w)
	sections[0] = uint64(w.Written())
	for i, gs := range games {
		paid := v.Paid[gs.Game().Code]
		if paid == nil {
			return fmt.Errorf("no paid answers of game %s", gs.Game().Code)
		}
		paid.WriteBinary(w)
		sections[1+i] = uint64(w.Written()) - sum(sections[:1+i])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	h := appendHeader(make([]byte, 0, headerLen(len(sections))), v.Version, sections)
	h = binary.LittleEndian.AppendUint64(h, sealSum(h, body.Sum64()))
	_, err := f.WriteAt(h, 0)
	return err
}

func sum(v []uint64) uint64 {
	var s uint64
	for _, x := range v {
		s += x
	}
	return s
}

// ReadArtifact reads the artifact at path as the View of catalogue version
// version for the games of reg. An error wrapping ErrArtifactInvalid means
// the file is not one this build can serve (another format, another
// version, damaged or truncated); others that it could not be read (one
// wrapping fs.ErrNotExist: there is none).
//
// Where the system maps files (unix), the file is mapped read-only and the
// View's card bodies, cards and search arrays are the mapping's bytes, not
// copies (catalog.ReadSnapshot): see mapping for how long it stays mapped.
// The file must then never be changed in place: artifacts are replaced by
// renaming a new file over them (a new inode; the mapping keeps the old
// one's pages, even once it is unlinked).
func ReadArtifact(path string, reg *game.Registry, version int64) (*View, error) {
	v, _, err := readArtifactFile(path, reg, version, nil)
	return v, err
}

// readArtifactFile is ReadArtifact that also returns the file's mapping
// (nil where the file was read instead), paced by p (nil: not paced) when
// a version is served beside the read.
func readArtifactFile(path string, reg *game.Registry, version int64, p *pace.Pacer) (*View, *mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("serving: snapshot artifact: %w", err)
	}
	defer f.Close() // a mapping outlives its descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("serving: snapshot artifact: %w", err)
	}
	var v *View
	m, merr := mapFile(f, fi.Size())
	if merr == nil {
		if v, err = readMapped(m.data, m, reg, version, p); err != nil {
			m.release()
			m = nil
		}
	} else {
		v, err = readArtifact(f, fi.Size(), reg, version, p)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("serving: snapshot artifact %s: %w", path, err)
	}
	return v, m, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrArtifactInvalid, fmt.Sprintf(format, args...))
}

// artifactHeader is what a header says of the body.
type artifactHeader struct {
	sections []uint64
	total    uint64 // the body's length
	checksum uint64
}

// parseHeader checks the header h of a file of size bytes.
func parseHeader(h []byte, size int64, nsections int, version int64) (artifactHeader, error) {
	hl := len(h)
	if !bytes.Equal(h[:8], artifactMagic[:]) {
		return artifactHeader{}, invalid("not a snapshot artifact")
	}
	le := binary.LittleEndian
	format, snapEnc, paidEnc := le.Uint32(h[8:]), le.Uint32(h[12:]), le.Uint32(h[16:])
	if format != ArtifactFormat || snapEnc != catalog.SnapshotEncoding || paidEnc != analytics.Encoding {
		return artifactHeader{}, invalid("format %d.%d.%d, this build reads %d.%d.%d", format, snapEnc, paidEnc,
			ArtifactFormat, catalog.SnapshotEncoding, analytics.Encoding)
	}
	if got := int64(le.Uint64(h[20:])); got != version {
		return artifactHeader{}, invalid("catalogue version %d, want %d", got, version)
	}
	if n := le.Uint32(h[28:]); int(n) != nsections {
		return artifactHeader{}, invalid("%d sections, want %d", n, nsections)
	}
	ah := artifactHeader{sections: make([]uint64, nsections), checksum: le.Uint64(h[hl-8:])}
	for i := range ah.sections {
		ah.sections[i] = le.Uint64(h[32+8*i:])
		ah.total += ah.sections[i]
		if ah.sections[i] > uint64(size) || ah.total > uint64(size) {
			return artifactHeader{}, invalid("section %d of %d bytes in a file of %d (truncated?)", i, ah.sections[i], size)
		}
	}
	if want := uint64(size) - uint64(hl); ah.total != want {
		return artifactHeader{}, invalid("sections of %d bytes, the file has %d after its header (truncated?)", ah.total, want)
	}
	return ah, nil
}

// readArtifact reads an artifact of size bytes from r, copying every value
// (where files are not mapped), and checks the checksum as it reads.
func readArtifact(r io.Reader, size int64, reg *game.Registry, version int64, p *pace.Pacer) (*View, error) {
	nsections := 1 + len(reg.All())
	hl := headerLen(nsections)
	if size < int64(hl) {
		return nil, invalid("%d bytes, shorter than its header", size)
	}
	h := make([]byte, hl)
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, err
	}
	ah, err := parseHeader(h, size, nsections, version)
	if err != nil {
		return nil, err
	}
	body := xxh3.New()
	v, err := decodeBody(binio.NewReader(io.TeeReader(r, body), int64(ah.total)), ah, reg, version, p)
	if err != nil {
		return nil, err
	}
	if got := sealSum(h[:hl-8], body.Sum64()); got != ah.checksum {
		return nil, invalid("checksum %016x, the contents give %016x", ah.checksum, got)
	}
	return v, nil
}

// hashStep is how much of a mapped artifact hashInSteps hashes per call.
const hashStep = 1 << 20

// hashInSteps is xxh3.Hash(b) a megabyte at a time, stepping p. xxh3.Hash of
// a whole artifact (1.7 GB at a million cards) is one assembly loop, which
// the Go scheduler cannot preempt: on a server given one core it held every
// request for the hash's length (BenchmarkHashStall: 24 ms for 512 MB).
func hashInSteps(b []byte, p *pace.Pacer) uint64 {
	h := xxh3.New()
	for len(b) > 0 {
		n := min(len(b), hashStep)
		h.Write(b[:n])
		b = b[n:]
		p.Step()
	}
	return h.Sum64()
}

// readMapped reads the artifact data, the whole file, whose card bodies and
// arrays stay in data; owner keeps data valid (it is kept by every game's
// snapshot). The checksum covers every byte, so that no damaged byte is
// ever served; it is computed while the sections are decoded, on another
// core (the decoders check every value, so decoding bytes not yet verified
// is safe), and the view is returned only once it matches. Paced (p not
// nil), the checksum follows the decoding in the same goroutine, as paced
// work must (package pace).
func readMapped(data []byte, owner any, reg *game.Registry, version int64, p *pace.Pacer) (*View, error) {
	nsections := 1 + len(reg.All())
	hl := headerLen(nsections)
	if len(data) < hl {
		return nil, invalid("%d bytes, shorter than its header", len(data))
	}
	ah, err := parseHeader(data[:hl], int64(len(data)), nsections, version)
	if err != nil {
		return nil, err
	}
	body := make(chan uint64, 1)
	if p == nil {
		// Nothing served beside it (a start): one call, without the
		// streaming hasher's copy of every byte into its buffer.
		go func() { body <- xxh3.Hash(data[hl:]) }()
	}
	v, err := decodeBody(binio.NewBytesReader(data[hl:], owner), ah, reg, version, p)
	if p != nil {
		body <- hashInSteps(data[hl:], p)
	}
	if got := sealSum(data[:hl-8], <-body); got != ah.checksum {
		return nil, invalid("checksum %016x, the contents give %016x", ah.checksum, got)
	}
	return v, err
}

// decodeBody decodes the sections of a body from br.
func decodeBody(br *binio.Reader, ah artifactHeader, reg *game.Registry, version int64, p *pace.Pacer) (*View, error) {
	sections, total, nsections := ah.sections, ah.total, len(ah.sections)
	end := func(i int) error {
		if err := br.Err(); err != nil {
			return err
		}
		if read := int64(total) - br.Remaining(); uint64(read) != sum(sections[:i+1]) {
			return invalid("section %d ends at %d, its length says %d", i, read, sum(sections[:i+1]))
		}
		return nil
	}
	snap, err := catalog.ReadSnapshot(br, reg, p)
	if err == nil {
		err = end(0)
	}
	if err == nil && snap.Version != version {
		err = invalid("snapshot of version %d in a file of version %d", snap.Version, version)
	}
	v := &View{Snapshot: snap, Paid: make(map[string]*analytics.Game, nsections-1)}
	for i := 0; err == nil && i < nsections-1; i++ {
		gs := snap.Games()[i]
		var paid *analytics.Game
		if paid, err = analytics.ReadGame(br, gs); err == nil {
			v.Paid[gs.Game().Code] = paid
			err = end(1 + i)
		}
	}
	if err != nil {
		if errors.Is(err, binio.ErrCorrupt) {
			return nil, fmt.Errorf("%w: %w", ErrArtifactInvalid, err)
		}
		return nil, err
	}
	return v, nil
}
