package httpapi

import (
	"bytes"
	"container/list"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/cardcat/cardcat/internal/etag"
)

// Compression (docs/api.md, "Compression"). A JSON 200 of at least
// compressAbove bytes is sent in the content coding the request's
// Accept-Encoding prefers among br, zstd and gzip (RFC 9110 section
// 12.5.3): q-values honoured, "*" standing for the codings not named, q=0
// refusing a coding. Identity is sent when no coding is acceptable, even if
// identity itself was refused: RFC 9110 lets a server disregard the field
// rather than answer 406, and a 406 would break a client over a header it
// rarely means. Errors, images, the bulk downloads and /mcp are never
// compressed (they do not pass through here).
//
// Most bodies are the same bytes for a whole catalogue version (a card, the
// set list, a set page, a paid answer: keptBody), so their compressed
// variants are kept in an LRU bounded by bytes, keyed by the identity tag (a
// hash of the bytes) and the coding: compressed once, on first request, and
// gone once unused after a catalogue refresh. Bodies made for one request (a
// search, a batch, the change feed, a price history: madeBody) are
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

// compressAbove is the smallest body worth compressing: below it the coding's
// header and the client's work outweigh the bytes saved.
const compressAbove = 1024

// DefaultCompressCacheBytes bounds the compressed variants kept in memory
// (Config.CompressCacheBytes): room for every set page of a million-card
// catalogue in two codings (about 130 MB each: 19,000 pages of 50 cards), so
// that a set page is compressed once per version and coding, not once per
// request (bench/README.md, "Compression at a million cards").
const DefaultCompressCacheBytes = 320 << 20

type coding uint8

const (
	codingIdentity coding = iota
	codingGzip
	codingZstd
	codingBrotli
	codings // how many
)

var (
	varyAcceptEncoding = []string{"Accept-Encoding"}
	contentEncoding    = [codings][]string{codingGzip: {"gzip"}, codingZstd: {"zstd"}, codingBrotli: {"br"}}
	tagSuffix          = [codings]string{codingGzip: "-gz", codingZstd: "-zst", codingBrotli: "-br"}
)

// bodyKind is how often a body's bytes are made: it decides how hard they
// are compressed, whether the result is kept, and a tie of q-values.
type bodyKind uint8

const (
	keptBody bodyKind = iota // the same bytes for a whole catalogue version
	madeBody                 // made for one request
)

// tieOrder lists the codings by preference when q-values tie, per kind.
var tieOrder = [...][codings - 1]coding{
	keptBody: {codingBrotli, codingZstd, codingGzip},
	madeBody: {codingZstd, codingBrotli, codingGzip},
}

// negotiate picks the coding of an answer of the kind from the request's
// Accept-Encoding field values. No field means identity (the common
// reading: a client that sends none may not decode any).
func negotiate(fields []string, kind bodyKind) coding {
	if len(fields) == 0 {
		return codingIdentity
	}
	// q in thousandths, by coding (identity at codingIdentity); -1 is "not
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
				c = codingGzip
			case "zstd":
				c = codingZstd
			case "br":
				c = codingBrotli
			case "identity":
				c = codingIdentity
			case "*":
				star = max(star, mq)
			}
			if c < codings {
				q[c] = max(q[c], mq)
			}
		}
	}
	best, bestQ := codingIdentity, 0
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
	if q[codingIdentity] > bestQ {
		return codingIdentity
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

// variantTag is the strong tag of a coding's representation of the body whose
// identity tag is tag.
func variantTag(tag string, c coding) string {
	if c == codingIdentity {
		return tag
	}
	return tag[:len(tag)-1] + tagSuffix[c] + `"`
}

// encodedCache keeps compressed variants of bodies, least recently used
// dropped first once their bytes pass max.
type encodedCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order list.List // of *encodedEntry, most recent first
	byKey map[encodedKey]*list.Element
}

type encodedKey struct {
	tag string // the identity ETag: a hash of the body's bytes
	c   coding
}

type encodedEntry struct {
	key  encodedKey
	body []byte
}

func newEncodedCache(maxBytes int) *encodedCache {
	return &encodedCache{max: maxBytes, byKey: map[encodedKey]*list.Element{}}
}

// get returns the body (held in body, or in str when body is nil)
// compressed in c, compressing it on a miss. Two first requests at once may
// both compress: the same bytes, kept once.
func (ec *encodedCache) get(tag string, c coding, body []byte, str string) []byte {
	k := encodedKey{tag, c}
	ec.mu.Lock()
	if e, ok := ec.byKey[k]; ok {
		ec.order.MoveToFront(e)
		b := e.Value.(*encodedEntry).body
		ec.mu.Unlock()
		return b
	}
	ec.mu.Unlock()

	if body == nil {
		body = []byte(str) // once per body and coding: a miss
	}
	b := encode(c, keptBody, body)
	if len(b) > ec.max/8 {
		return b // too big to keep without evicting most of the rest
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if _, ok := ec.byKey[k]; !ok {
		ec.byKey[k] = ec.order.PushFront(&encodedEntry{key: k, body: b})
		ec.size += len(b)
		for ec.size > ec.max {
			old := ec.order.Remove(ec.order.Back()).(*encodedEntry)
			delete(ec.byKey, old.key)
			ec.size -= len(old.body)
		}
	}
	return b
}

// peek returns the kept variant of the body tagged tag in c, or nil.
func (ec *encodedCache) peek(tag string, c coding) []byte {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if e, ok := ec.byKey[encodedKey{tag, c}]; ok {
		ec.order.MoveToFront(e)
		return e.Value.(*encodedEntry).body
	}
	return nil
}

var gzipWriters = sync.Pool{New: func() any {
	// Level 6: a set page of 200 cards to 18.1% of its bytes in 2.6 ms,
	// against level 9's 17.3% in 6 ms (a per-request page may miss the cache).
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
	keptBody: {New: func() any {
		return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: brotliKeptQuality, LGWin: brotliWindow})
	}},
	madeBody: {New: func() any {
		return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: brotliMadeQuality, LGWin: brotliWindow})
	}},
}

// zstdEncoder's EncodeAll is safe for concurrent use. Its window stays at
// 4 MiB: RFC 9659 forbids more than 8 MB in the zstd content coding, and
// browsers refuse it. SpeedBetterCompression: on a set page of 200 cards
// 16.7% of the bytes in the default level's time (1.4 ms; default 17.5%,
// best 16.2% in 14 ms).
var zstdEncoder, _ = zstd.NewWriter(nil,
	zstd.WithEncoderLevel(zstd.SpeedBetterCompression),
	zstd.WithWindowSize(4<<20),
	zstd.WithEncoderConcurrency(1),
)

// encode compresses a body of the kind in coding c.
func encode(c coding, kind bodyKind, body []byte) []byte {
	switch c {
	case codingZstd:
		return zstdEncoder.EncodeAll(body, make([]byte, 0, len(body)/6))
	case codingBrotli:
		var buf bytes.Buffer
		buf.Grow(len(body) / 6)
		bw := brotliWriters[kind].Get().(*brotli.Writer)
		bw.Reset(&buf)
		bw.Write(body)
		bw.Close()
		bw.Reset(nil) // drops buf
		brotliWriters[kind].Put(bw)
		return buf.Bytes()
	case codingGzip:
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

// compression is what writeBody needs to compress a request's answer, kept
// in its recorder: the request's Accept-Encoding and the server's cache.
type compression struct {
	accept []string
	cache  *encodedCache
}

// compressionOf finds the request's compression through the writers that
// wrap its recorder; nil outside the chain.
func compressionOf(w http.ResponseWriter) *compression {
	for {
		switch ww := w.(type) {
		case *recorder:
			return &ww.compression
		case interface{ Unwrap() http.ResponseWriter }:
			w = ww.Unwrap()
		default:
			return nil
		}
	}
}

// writeOK sends a JSON 200 body that is the same for the whole catalogue
// version, held in body or (when body is nil) in str: tagged and revalidated
// on keyed routes, compressed when it is worth it and the request accepts a
// coding we have, the compressed variant kept.
func writeOK(w http.ResponseWriter, body []byte, str string) {
	writeAnswer(w, keptBody, jsonContentType, body, str, "")
}

// writeText sends a public text body made once per process (/llms.txt,
// /docs/api.md), compressed like the JSON answers.
func writeText(w http.ResponseWriter, contentType string, body []byte) {
	writeAnswer(w, keptBody, []string{contentType}, body, "", "")
}

// writeMade sends a 200 body made for this request (a search, a batch, the
// change feed, a price history): tagged like the others, compressed at a
// fast level and not kept.
func writeMade(w http.ResponseWriter, contentType []string, body []byte) {
	writeAnswer(w, madeBody, contentType, body, "", "")
}

// writeAnswer sends a 200 of a body of the kind, held in body or (when body
// is nil) in str. tag is the body's identity tag when the caller knows it
// ("": hashed here when needed). It returns the identity tag when it was
// needed (a keyed route, or a compressed answer), "" otherwise.
func writeAnswer(w http.ResponseWriter, kind bodyKind, contentType []string, body []byte, str, tag string) string {
	comp := compressionOf(w)
	h := w.Header()
	if comp != nil {
		h["Vary"] = varyAcceptEncoding
	}
	n := len(body)
	if body == nil {
		n = len(str)
	}
	c := codingIdentity
	if comp != nil && comp.cache != nil && n >= compressAbove {
		c = negotiate(comp.accept, kind)
	}
	if tag == "" && c != codingIdentity {
		if body == nil {
			tag = etag.OfString(str)
		} else {
			tag = etag.Of(body)
		}
	}
	if c == codingIdentity {
		if body == nil {
			sendBodyString(w, contentType, str)
		} else {
			sendBody(w, contentType, body)
		}
		return tag
	}
	var enc []byte
	if kind == keptBody {
		enc = comp.cache.get(tag, c, body, str)
	} else {
		if body == nil {
			body = []byte(str)
		}
		enc = encode(c, kind, body)
	}
	h["Content-Encoding"] = contentEncoding[c]
	sendBody(w, contentType, enc)
	return tag
}

// sendBody writes a 200 of body as it is (identity or already compressed).
func sendBody(w http.ResponseWriter, contentType []string, body []byte) {
	w.Header()["Content-Type"] = contentType
	setContentLength(w, len(body))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

func sendBodyString(w http.ResponseWriter, contentType []string, body string) {
	w.Header()["Content-Type"] = contentType
	setContentLength(w, len(body))
	w.WriteHeader(http.StatusOK)
	if sw, ok := w.(interface{ WriteString(string) (int, error) }); ok {
		sw.WriteString(body)
		return
	}
	w.Write([]byte(body))
}
