package httpapi

import (
	"bytes"
	"container/list"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/serving"
)

// Compression (docs/api.md, "Compression"). A JSON 200 of at least
// compressAbove bytes is sent in the content coding the request's
// Accept-Encoding prefers among zstd and gzip (RFC 9110 section 12.5.3):
// q-values honoured, "*" standing for the codings not named, q=0 refusing a
// coding, ties going to zstd (smaller and faster to decode). Identity is sent
// when no coding is acceptable, even if identity itself was refused: RFC 9110
// lets a server disregard the field rather than answer 406, and a 406 would
// break a client over a header it rarely means. Errors, images, the bulk
// downloads and /mcp are never compressed (they do not pass through here).
//
// Each coding is its own representation, so its strong ETag is the identity
// tag with a suffix ("…-gz", "…-zst"), and If-None-Match matches the tag of
// the representation that would be sent, not its siblings': a cache holding
// identity bytes asking with gzip gets the gzip body, never a 304 that would
// relabel what it holds. Every 200 and 304 written here says
// Vary: Accept-Encoding, compressed or not.
//
// Most bodies are the same bytes for a whole catalogue version (a card, the
// set list, a paid answer), and set pages repeat too; so compressed variants
// are kept in an LRU bounded by bytes, keyed by the identity tag (a hash of
// the bytes) and the coding: compressed once, on first request, and gone
// once unused after a catalogue refresh.

// compressAbove is the smallest body worth compressing: below it the coding's
// header and the client's work outweigh the bytes saved.
const compressAbove = 1024

// encodedCacheBytes bounds the compressed variants kept in memory.
const encodedCacheBytes = 64 << 20

type coding uint8

const (
	codingIdentity coding = iota
	codingGzip
	codingZstd
)

var (
	varyAcceptEncoding = []string{"Accept-Encoding"}
	contentEncoding    = [...][]string{codingGzip: {"gzip"}, codingZstd: {"zstd"}}
	tagSuffix          = [...]string{codingGzip: "-gz", codingZstd: "-zst"}
)

// negotiate picks the coding of an answer from the request's Accept-Encoding
// field values. No field means identity (the common reading: a client that
// sends none may not decode any).
func negotiate(fields []string) coding {
	if len(fields) == 0 {
		return codingIdentity
	}
	// q in thousandths; -1 is "not named".
	gz, zst, star, ident := -1, -1, -1, -1
	for _, field := range fields {
		for member := range strings.SplitSeq(field, ",") {
			name, params, _ := strings.Cut(member, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			q := parseQ(params)
			if q < 0 {
				continue // a malformed q-value: ignore the member
			}
			switch name {
			case "gzip", "x-gzip":
				gz = max(gz, q)
			case "zstd":
				zst = max(zst, q)
			case "*":
				star = max(star, q)
			case "identity":
				ident = max(ident, q)
			}
		}
	}
	if gz < 0 {
		gz = star
	}
	if zst < 0 {
		zst = star
	}
	best, bestQ := codingIdentity, 0
	if zst > 0 {
		best, bestQ = codingZstd, zst
	}
	if gz > bestQ {
		best, bestQ = codingGzip, gz
	}
	// Identity wins only when named with a higher q than the best coding;
	// "*" does not speak for it here: it is the fallback in any case.
	if ident > bestQ {
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
	b := encode(c, body)
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

// encode compresses body in coding c.
func encode(c coding, body []byte) []byte {
	switch c {
	case codingZstd:
		return zstdEncoder.EncodeAll(body, make([]byte, 0, len(body)/6))
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

// writeOK sends a JSON 200 body, held in body or (when body is nil) in str:
// tagged and revalidated on keyed routes, compressed when it is worth it and
// the request accepts a coding we have.
func writeOK(w http.ResponseWriter, body []byte, str string) string {
	return writeOKAs(w, jsonContentType, body, str)
}

// writeText sends a public text body made once per process (/llms.txt,
// /docs/api.md), compressed like the JSON answers.
func writeText(w http.ResponseWriter, contentType string, body []byte) {
	writeOKAs(w, []string{contentType}, body, "")
}

// writeOKAs returns the identity tag of a body it sent compressed ("" for
// an identity answer).
func writeOKAs(w http.ResponseWriter, contentType []string, body []byte, str string) string {
	comp := compressionOf(w)
	kw, keyed := w.(*keyedWriter)
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
		c = negotiate(comp.accept)
	}
	if c == codingIdentity {
		if body == nil {
			if keyed && kw.notModified(etag.OfString(str)) {
				return ""
			}
			sendBodyString(w, contentType, str)
			return ""
		}
		if keyed && kw.notModified(etag.Of(body)) {
			return ""
		}
		sendBody(w, contentType, body)
		return ""
	}
	var tag string
	if body == nil {
		tag = etag.OfString(str)
	} else {
		tag = etag.Of(body)
	}
	if keyed && kw.notModified(variantTag(tag, c)) {
		return tag
	}
	enc := comp.cache.get(tag, c, body, str)
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

// A set page is assembled per request, and finding its compressed variant
// needs its tag, a hash of the assembled bytes. pageTags remembers the tag of
// each page sent compressed, per catalogue view: the next compressed request
// of the page is sent, or is its 304, without assembling it (bench/README.md,
// "Compression").
type pageTags struct {
	mu   sync.Mutex
	view *serving.View // the view the tags are of; another view starts afresh
	tags map[pageKey]string
}

// pageKey is all a set page's bytes depend on, within a view.
type pageKey struct {
	game, set   string
	page, limit int
}

// pageTagsMax bounds the tags remembered (about 100 bytes each).
const pageTagsMax = 1 << 16

func (pt *pageTags) get(v *serving.View, k pageKey) string {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.view != v {
		return ""
	}
	return pt.tags[k]
}

func (pt *pageTags) put(v *serving.View, k pageKey, tag string) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.view != v || len(pt.tags) >= pageTagsMax {
		pt.view, pt.tags = v, map[pageKey]string{}
	}
	pt.tags[k] = tag
}

// writeRememberedPage sends the page of k compressed, or its 304, when the
// request asks for a coding whose variant of the page is kept. False when
// the page must be assembled (then writeSetPage).
func (s *Server) writeRememberedPage(w http.ResponseWriter, v *serving.View, k pageKey) bool {
	comp := compressionOf(w)
	if comp == nil || comp.cache == nil {
		return false
	}
	c := negotiate(comp.accept)
	if c == codingIdentity {
		return false
	}
	tag := s.pages.get(v, k)
	if tag == "" {
		return false
	}
	enc := comp.cache.peek(tag, c)
	if enc == nil {
		return false
	}
	h := w.Header()
	h["Vary"] = varyAcceptEncoding
	if kw, ok := w.(*keyedWriter); ok && kw.notModified(variantTag(tag, c)) {
		return true
	}
	h["Content-Encoding"] = contentEncoding[c]
	sendBody(w, jsonContentType, enc)
	return true
}

// writeSetPage sends an assembled set page, remembering its tag when it
// went compressed.
func (s *Server) writeSetPage(w http.ResponseWriter, v *serving.View, k pageKey, body []byte) {
	if tag := writeOK(w, body, ""); tag != "" {
		s.pages.put(v, k, tag)
	}
}
