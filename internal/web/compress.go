package web

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression (docs/api.md, "Compression"). A JSON 200 of at least
// CompressAbove bytes is sent in the content coding the request's
// Accept-Encoding prefers among br, zstd and gzip (RFC 9110 section
// 12.5.3): q-values honoured, "*" standing for the codings not named, q=0
// refusing a coding. Identity is sent when no coding is acceptable, even if
// identity itself was refused: RFC 9110 lets a server disregard the field
// rather than answer 406, and a 406 would break a client over a header it
// rarely means. Errors, images, the bulk downloads and /mcp are never
// compressed (they do not pass through here).
//
// Most bodies are the same bytes for a whole catalogue version (a card, the
// set list, a set page, a paid answer: Kept), so their compressed
// variants are kept (EncodedCache: a ring bounded by bytes, outside the Go
// heap), keyed by the identity tag (a hash of the bytes) and the coding:
// compressed once, on first request, and overwritten in time once unused
// after a catalogue refresh. Bodies made for one request (a
// search, a batch, the change feed, a price history: Made) are
// compressed per request at a fast level and not kept. The kind decides a
// tie of q-values (bench/README.md, "Compression"): a kept body goes br
// (brotli quality 6 is the smallest of the three), then zstd, then gzip; a
// made body goes zstd (smaller and cheaper than brotli at a fast level),
// then br, then gzip.
//
// Each coding is its own representation, so its strong ETag is the identity
// tag with a suffix ("…-gz", "…-zst", "…-br"), and If-None-Match matches the
// tag of the representation that would be sent, not its siblings': a cache
// holding identity bytes asking with gzip gets the gzip body, never a 304
// that would relabel what it holds. A route's bodies are all of one kind and
// the encoders are deterministic, so a variant tag names the same bytes on
// every replica. Every 200 and 304 written here says Vary: Accept-Encoding,
// compressed or not.

// CompressAbove is the smallest body worth compressing: below it the coding's
// header and the client's work outweigh the bytes saved.
const CompressAbove = 1024

// DefaultCompressCacheBytes bounds the compressed variants kept in memory:
// room for every set page of a million-card catalogue in two codings, so
// that a set page is compressed once per version and coding, not once per
// request (bench/README.md, "Compression at a million cards").
const DefaultCompressCacheBytes = 320 << 20

type Coding uint8

const (
	Identity Coding = iota
	Gzip
	Zstd
	Brotli
	codings // how many
)

var (
	VaryAcceptEncoding = []string{"Accept-Encoding"}
	ContentEncoding    = [codings][]string{Gzip: {"gzip"}, Zstd: {"zstd"}, Brotli: {"br"}}
	tagSuffix          = [codings]string{Gzip: "-gz", Zstd: "-zst", Brotli: "-br"}
)

// BodyKind is how often a body's bytes are made: it decides how hard they
// are compressed, whether the result is kept, and a tie of q-values.
type BodyKind uint8

const (
	Kept BodyKind = iota // the same bytes for a whole catalogue version
	Made                 // made for one request
)

// tieOrder lists the codings by preference when q-values tie, per kind.
var tieOrder = [...][codings - 1]Coding{
	Kept: {Brotli, Zstd, Gzip},
	Made: {Zstd, Brotli, Gzip},
}

// Negotiate picks the coding of an answer of the kind from the request's
// Accept-Encoding field values. No field means identity (the common
// reading: a client that sends none may not decode any).
func Negotiate(fields []string, kind BodyKind) Coding {
	if len(fields) == 0 {
		return Identity
	}
	// q in thousandths, by coding (identity at Identity); -1 is "not
	// named".
	q := [codings]int{-1, -1, -1, -1}
	star := -1
	for _, field := range fields {
		for member := range strings.SplitSeq(field, ",") {
			name, params, _ := strings.Cut(member, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			mq := parseQ(params)
			if mq < 0 {
				continue // a malformed q-value: ignore the member
			}
			c := codings
			switch name {
			case "gzip", "x-gzip":
				c = Gzip
			case "zstd":
				c = Zstd
			case "br":
				c = Brotli
			case "identity":
				c = Identity
			case "*":
				star = max(star, mq)
			}
			if c < codings {
				q[c] = max(q[c], mq)
			}
		}
	}
	best, bestQ := Identity, 0
	for _, c := range tieOrder[kind] {
		if q[c] < 0 {
			q[c] = star
		}
		if q[c] > bestQ {
			best, bestQ = c, q[c]
		}
	}
	// Identity wins only when named with a higher q than the best coding;
	// "*" does not speak for it here: it is the fallback in any case.
	if q[Identity] > bestQ {
		return Identity
	}
	return best
}

// parseQ returns the q parameter of a member's parameters in thousandths
// (1000 when absent), or -1 when it is malformed.
func parseQ(params string) int {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 || len(v) > 5 {
			return -1
		}
		return int(f*1000 + 0.5)
	}
	return 1000
}

// VariantTag is the strong tag of a coding's representation of the body whose
// identity tag is tag.
func VariantTag(tag string, c Coding) string {
	if c == Identity {
		return tag
	}
	return tag[:len(tag)-1] + tagSuffix[c] + `"`
}

// EncodedCache keeps compressed variants of bodies in an arena of its own,
// outside the Go heap (an anonymous mapping, made on the first variant
// kept): the collector's headroom (GOGC) is taken on the live heap, and at a
// million cards the variants of every set page (about 256 MB) were most of
// it (bench/README.md, "Where the bytes are"). The arena is a ring: a
// variant is written at its head, over the oldest ones, so the first kept is
// the first dropped (FIFO; the bound holds every page of a million cards in
// two codings, so a set page's variant is dropped only after a new version
// made it useless). A variant being sent is pinned (Variant.Release unpins
// it): one that would be overwritten while pinned makes the new variant
// go unkept instead.
type EncodedCache struct {
	mu    sync.Mutex
	max   int
	size  int    // bytes of the kept variants
	arena []byte // nil until the first variant is kept
	head  int    // where the next variant goes
	lap   uint32 // how many times head wrapped
	// queue holds the kept variants in the order written: from the oldest
	// (the first to be overwritten) to the newest. Its records, the map's
	// keys and its values hold no pointers, so the collector neither scans
	// nor marks them: at a million cards the cache keeps some 40,000
	// variants, which as records, tag strings and a map of pointers were
	// more than half of what every collection scanned (bench/README.md,
	// "The compressed variants' records without pointers").
	queue []encodedEntry
	first int // queue[first:] are kept; the rest are dropped
	base  int // how many records were removed from queue's front: record i is queue[i-base]
	byKey map[encodedKey]int
}

// maxKeptTag is the longest identity tag whose variants are kept (a key
// holds the tag's bytes); a variant of a longer one is compressed and sent
// unkept. cardcat's tags have etag.Len (18) bytes.
const maxKeptTag = 32

type encodedKey struct {
	tag [maxKeptTag]byte // the identity ETag: a hash of the body's bytes
	n   uint8            // its length
	c   Coding
}

// keyOf returns the key of tag's variant in c; false when tag is too long
// to be kept.
func keyOf(tag string, c Coding) (encodedKey, bool) {
	if len(tag) > maxKeptTag {
		return encodedKey{}, false
	}
	k := encodedKey{c: c}
	k.n = uint8(copy(k.tag[:], tag))
	return k, true
}

type encodedEntry struct {
	key  encodedKey
	off  int // the variant is arena[off:off+n]
	n    int
	lap  uint32
	pins int32 // requests sending it now; guarded by the cache's mu
}

func NewEncodedCache(maxBytes int) *EncodedCache {
	return &EncodedCache{max: maxBytes, byKey: map[encodedKey]int{}}
}

// Variant is a compressed variant to send: its bytes are valid until
// Release, which the sender must call once they are written.
type Variant struct {
	b  []byte
	i  int           // its record, when kept
	ec *EncodedCache // nil: not in the cache, b is the heap's
}

// Bytes returns the variant's bytes, valid until Release.
func (k Variant) Bytes() []byte { return k.b }

// Release lets the cache overwrite the variant.
func (k Variant) Release() {
	if k.ec == nil {
		return
	}
	k.ec.mu.Lock()
	k.ec.entry(k.i).pins--
	k.ec.mu.Unlock()
}

// entry returns record i (kept, or pinned: a pinned record is never
// dropped). ec.mu is held.
func (ec *EncodedCache) entry(i int) *encodedEntry { return &ec.queue[i-ec.base] }

// pinned returns record i's variant, pinned. ec.mu is held.
func (ec *EncodedCache) pinned(i int) Variant {
	e := ec.entry(i)
	e.pins++
	return Variant{b: ec.arena[e.off : e.off+e.n : e.off+e.n], i: i, ec: ec}
}

// Get returns the body (held in body, or in str when body is nil)
// compressed in c, compressing it on a miss. Two first requests at once may
// both compress: the same bytes, kept once.
func (ec *EncodedCache) Get(tag string, c Coding, body []byte, str string) Variant {
	if kv, ok := ec.Peek(tag, c); ok {
		return kv
	}
	if body == nil {
		body = []byte(str) // once per body and Coding: a miss
	}
	b := Encode(c, Kept, body)
	k, ok := keyOf(tag, c)
	if !ok || len(b) > ec.max/8 {
		return Variant{b: b} // a tag too long for a key, or too big to keep without dropping most of the rest
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if i, ok := ec.byKey[k]; ok { // kept meanwhile by another request
		return ec.pinned(i)
	}
	i, ok := ec.keep(k, b)
	if !ok {
		return Variant{b: b}
	}
	return ec.pinned(i)
}

// Peek returns the kept variant of the body tagged tag in c, pinned
// (Variant.Release unpins it).
func (ec *EncodedCache) Peek(tag string, c Coding) (Variant, bool) {
	k, ok := keyOf(tag, c)
	if !ok {
		return Variant{}, false
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	i, ok := ec.byKey[k]
	if !ok {
		return Variant{}, false
	}
	return ec.pinned(i), true
}

// keep writes b at the arena's head, dropping the variants it overwrites,
// and returns its record; false when one of them is being sent (or the
// arena cannot be made): b then goes unkept. ec.mu is held.
func (ec *EncodedCache) keep(k encodedKey, b []byte) (int, bool) {
	if ec.arena == nil {
		var err error
		if ec.arena, err = newArena(ec, ec.max); err != nil {
			return 0, false
		}
	}
	head, lap := ec.head, ec.lap
	if head+len(b) > len(ec.arena) {
		// Wrap: the last lap's variants past head are left behind.
		head, lap = 0, lap+1
	}
	// The variants to drop are the oldest: every variant of a lap before
	// the last, and the last lap's that start before the new one's end (the
	// queue holds the last lap's in the order of their places).
	end := ec.first
	for ; end < len(ec.queue); end++ {
		e := &ec.queue[end]
		if e.lap+1 > lap || e.lap+1 == lap && e.off >= head+len(b) {
			break
		}
		if e.pins > 0 {
			return 0, false
		}
	}
	for j := ec.first; j < end; j++ {
		delete(ec.byKey, ec.queue[j].key)
		ec.size -= ec.queue[j].n
	}
	ec.first = end
	if ec.first > len(ec.queue)/2 && ec.first > 64 { // reuse the queue's front
		n := copy(ec.queue, ec.queue[ec.first:])
		ec.queue, ec.base, ec.first = ec.queue[:n], ec.base+ec.first, 0
	}
	copy(ec.arena[head:head+len(b)], b)
	ec.queue = append(ec.queue, encodedEntry{key: k, off: head, n: len(b), lap: lap})
	i := ec.base + len(ec.queue) - 1
	ec.byKey[k] = i
	ec.size += len(b)
	ec.head, ec.lap = head+len(b), lap
	return i, true
}

var gzipWriters = sync.Pool{New: func() any {
	// Level 6: nearly level 9's ratio at less than half its CPU, for a page
	// that may miss the cache (bench/README.md, "Compression levels").
	w, _ := gzip.NewWriterLevel(nil, 6)
	return w
}}

// Brotli qualities by kind of body (bench/README.md, "Compression"). Kept
// bodies: 6, where the ratio stops improving with the CPU spent (11 saves
// another eighth of the bytes for some 80 times the CPU: a 200-card page
// would take half a second on a miss). Made bodies: 4, the best ratio at
// about the CPU of zstd's level.
const (
	brotliKeptQuality = 6
	brotliMadeQuality = 4
	// brotliWindow is 4 MiB, as zstd's: larger than any body compressed.
	brotliWindow = 22
)

var brotliWriters = [...]sync.Pool{
	Kept: {New: func() any {
		return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: brotliKeptQuality, LGWin: brotliWindow})
	}},
	Made: {New: func() any {
		return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: brotliMadeQuality, LGWin: brotliWindow})
	}},
}

// zstdEncoder's EncodeAll is safe for concurrent use. Its window stays at
// 4 MiB: RFC 9659 forbids more than 8 MB in the zstd content coding, and
// browsers refuse it. SpeedBetterCompression: a better ratio than the
// default level's in its time (bench/README.md, "Compression levels").
var zstdEncoder, _ = zstd.NewWriter(nil,
	zstd.WithEncoderLevel(zstd.SpeedBetterCompression),
	zstd.WithWindowSize(4<<20),
	zstd.WithEncoderConcurrency(1),
)

// Encode compresses a body of the kind in coding c.
func Encode(c Coding, kind BodyKind, body []byte) []byte {
	switch c {
	case Zstd:
		return zstdEncoder.EncodeAll(body, make([]byte, 0, len(body)/6))
	case Brotli:
		var buf bytes.Buffer
		buf.Grow(len(body) / 6)
		bw := brotliWriters[kind].Get().(*brotli.Writer)
		bw.Reset(&buf)
		bw.Write(body)
		bw.Close()
		bw.Reset(nil) // drops buf
		brotliWriters[kind].Put(bw)
		return buf.Bytes()
	case Gzip:
		var buf bytes.Buffer
		buf.Grow(len(body) / 6)
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(&buf)
		zw.Write(body)
		zw.Close()
		gzipWriters.Put(zw)
		return buf.Bytes()
	}
	return body
}

// Bytes is the size of the compressed variants kept.
func (ec *EncodedCache) Bytes() int {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	return ec.size
}

// Len is how many compressed variants are kept.
func (ec *EncodedCache) Len() int {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	return len(ec.byKey)
}
