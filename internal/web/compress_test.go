package web

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/cardcat/cardcat/internal/testkit"
)

// TestNegotiate: the coding of each Accept-Encoding, for a body kept per
// catalogue version (ties to br, then zstd, then gzip) and for one made per
// request (ties to zstd, then br, then gzip).
func TestNegotiate(t *testing.T) {
	const (
		id = Identity
		gz = Gzip
		zs = Zstd
		br = Brotli
	)
	tests := []struct {
		accept     []string
		kept, made Coding
	}{
		{nil, id, id},
		{[]string{""}, id, id},
		{[]string{"gzip"}, gz, gz},
		{[]string{"x-gzip"}, gz, gz},
		{[]string{"GZIP"}, gz, gz},
		{[]string{"zstd"}, zs, zs},
		{[]string{"br"}, br, br},
		{[]string{"BR"}, br, br},
		{[]string{"gzip, deflate, br, zstd"}, br, zs}, // a browser's: a tie
		{[]string{"gzip, deflate, br"}, br, br},       // Safari's
		{[]string{"gzip, deflate"}, gz, gz},
		{[]string{"gzip, zstd"}, zs, zs},
		{[]string{"gzip;q=1.0, zstd;q=0.5"}, gz, gz},
		{[]string{"gzip;q=0.2", "zstd;q=0.3"}, zs, zs}, // several fields
		{[]string{"br;q=0.9, zstd"}, zs, zs},
		{[]string{"br, zstd;q=0.9"}, br, br},
		{[]string{"br;q=0, gzip, zstd"}, zs, zs},
		{[]string{"br;q=0"}, id, id},
		{[]string{"br;q=0, gzip"}, gz, gz},
		{[]string{"gzip;q=0"}, id, id},
		{[]string{"gzip;q=0, zstd;q=0, br;q=0"}, id, id},
		{[]string{"deflate, compress"}, id, id}, // codings we do not have
		{[]string{"*"}, br, zs},
		{[]string{"*;q=0.5, gzip"}, gz, gz},
		{[]string{"*, br;q=0"}, zs, zs},
		{[]string{"*, zstd;q=0, br;q=0"}, gz, gz},
		{[]string{"*;q=0"}, id, id},
		{[]string{"*;q=0, br"}, br, br},
		{[]string{"identity"}, id, id},
		{[]string{"identity;q=0.5, gzip;q=0.4"}, id, id}, // identity preferred
		{[]string{"identity;q=0.5, br;q=0.5"}, br, br},
		{[]string{"identity;q=0, gzip"}, gz, gz},
		{[]string{"identity;q=0"}, id, id}, // nothing acceptable: identity anyway, never 406
		{[]string{"*, identity;q=0"}, br, zs},
		{[]string{"gzip;q=2"}, id, id}, // malformed q: the member is ignored
		{[]string{"br;q=abc, zstd;q=0.1"}, zs, zs},
		{[]string{"gzip ; q=0.5 , br ; Q=0.4"}, gz, gz},
		{[]string{" , ,br"}, br, br},
		{[]string{"br;q=0.001, gzip;q=0.001"}, br, br},
	}
	for _, tc := range tests {
		if got := Negotiate(tc.accept, Kept); got != tc.kept {
			t.Errorf("negotiate(%q, kept) = %d, want %d", tc.accept, got, tc.kept)
		}
		if got := Negotiate(tc.accept, Made); got != tc.made {
			t.Errorf("negotiate(%q, made) = %d, want %d", tc.accept, got, tc.made)
		}
	}
}

// TestEncodedCacheBounded: the cache keeps at most its bytes, in its arena,
// dropping the first kept first; a hit gives the same bytes; a variant
// being sent is never overwritten (the new one goes unkept instead); a body
// over an eighth of the bound is compressed but not kept.
func TestEncodedCacheBounded(t *testing.T) {
	body := bytes.Repeat([]byte(`{"name":"card","price":1.25},`), 200)
	enc := len(Encode(Gzip, Kept, body))
	ec := NewEncodedCache(enc * 8) // room for eight
	get := func(i int) Variant { return ec.Get(`"`+strconv.Itoa(i)+`"`, Gzip, body, "") }
	for i := range 10 {
		get(i).Release()
	}
	if ec.Bytes() != 8*enc || len(ec.byKey) != 8 || len(ec.queue)-ec.first != 8 {
		t.Fatalf("size %d of %d, %d keys, %d queued; want 8 of %d bytes", ec.Bytes(), ec.max, len(ec.byKey), len(ec.queue)-ec.first, enc)
	}
	for _, gone := range []string{`"0"`, `"1"`} {
		if isKept(ec, gone, Gzip) {
			t.Errorf("%s, the first kept, is still kept", gone)
		}
	}
	hit := ec.Get(`"9"`, Gzip, nil, "never read: a hit")
	if got := testkit.Decode(t, "gzip", hit.Bytes()); !bytes.Equal(got, body) {
		t.Error("a hit is not the body compressed")
	}
	if !inArena(ec, hit.Bytes()) {
		t.Error("a kept variant is not in the cache's arena")
	}
	hit.Release()

	// "2" is the next to be overwritten: while it is being sent, a new
	// variant goes unkept, and "2" stays whole.
	sending, ok := ec.Peek(`"2"`, Gzip)
	if !ok {
		t.Fatal(`"2" is not kept`)
	}
	v := get(10)
	if isKept(ec, `"10"`, Gzip) || inArena(ec, v.Bytes()) {
		t.Error("a variant was kept over one being sent")
	}
	if got := testkit.Decode(t, "gzip", v.Bytes()); !bytes.Equal(got, body) {
		t.Error("an unkept variant is not the body compressed")
	}
	if got := testkit.Decode(t, "gzip", sending.Bytes()); !bytes.Equal(got, body) {
		t.Error("the variant being sent was overwritten")
	}
	sending.Release()
	get(11).Release()
	if !isKept(ec, `"11"`, Gzip) {
		t.Error("once sent, the oldest variant was not overwritten by the next")
	}
	if isKept(ec, `"2"`, Gzip) {
		t.Error(`"2" is still kept after "11" took its place`)
	}

	big := NewEncodedCache(enc * 4) // a body over an eighth is compressed, not kept
	big.Get(`"x"`, Gzip, body, "").Release()
	if big.size != 0 || big.arena != nil {
		t.Errorf("a body over an eighth of the cache was kept (%d bytes)", big.size)
	}
}

// TestEncodedCacheRing: variants of every size, kept, hit and sent in
// random turns over many laps of a small arena, some held while others are
// kept: the kept variants never overlap, each is always the compressed
// bytes of its body, and the cache's size is theirs, within the bound.
func TestEncodedCacheRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bodies := make([][]byte, 200)
	for i := range bodies {
		b := make([]byte, 200+rng.IntN(12000)) // random hex: compressed to about half
		for j := range b {
			b[j] = "0123456789abcdef"[rng.IntN(16)]
		}
		bodies[i] = b
	}
	ec := NewEncodedCache(64 << 10)
	type heldVariant struct {
		v Variant
		i int // its body
	}
	var held []heldVariant
	for step := range 5000 {
		i := rng.IntN(len(bodies))
		v := ec.Get(strconv.Itoa(i), Gzip, bodies[i], "")
		if got := testkit.Decode(t, "gzip", v.Bytes()); !bytes.Equal(got, bodies[i]) {
			t.Fatalf("step %d: body %d's variant is not its bytes", step, i)
		}
		held = append(held, heldVariant{v, i})
		for len(held) > rng.IntN(4) {
			k := rng.IntN(len(held))
			if got := testkit.Decode(t, "gzip", held[k].v.Bytes()); !bytes.Equal(got, bodies[held[k].i]) {
				t.Fatalf("step %d: a variant held while others were kept was overwritten", step)
			}
			held[k].v.Release()
			held = append(held[:k], held[k+1:]...)
		}
		size := 0
		var spans [][2]int
		for _, e := range ec.queue[ec.first:] {
			size += e.n
			spans = append(spans, [2]int{e.off, e.off + e.n})
		}
		slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
		for j := 1; j < len(spans); j++ {
			if spans[j][0] < spans[j-1][1] {
				t.Fatalf("step %d: kept variants overlap: %v and %v", step, spans[j-1], spans[j])
			}
		}
		if size != ec.size || size > ec.max || len(ec.byKey) != len(ec.queue)-ec.first {
			t.Fatalf("step %d: size %d (counted %d, bound %d), %d keys, %d queued", step, size, ec.size, ec.max, len(ec.byKey), len(ec.queue)-ec.first)
		}
	}
	if ec.lap < 3 {
		t.Errorf("%d laps of the arena: the test no longer wraps it", ec.lap)
	}
	if ec.base == 0 {
		t.Error("the queue's front was never reused: the test no longer moves held records")
	}
}

// TestEncodedCacheLongTag: a variant whose tag is longer than a key holds
// is compressed and sent, never kept.
func TestEncodedCacheLongTag(t *testing.T) {
	body := bytes.Repeat([]byte(`{"name":"card","price":1.25},`), 200)
	ec := NewEncodedCache(1 << 20)
	tag := `"` + strings.Repeat("a", maxKeptTag) + `"`
	for range 2 {
		v := ec.Get(tag, Gzip, body, "")
		if got := testkit.Decode(t, "gzip", v.Bytes()); !bytes.Equal(got, body) {
			t.Fatal("a long tag's variant is not the body compressed")
		}
		v.Release()
		if ec.Len() != 0 || inArena(ec, v.Bytes()) {
			t.Fatalf("a variant of a %d-byte tag was kept", len(tag))
		}
	}
	if _, ok := ec.Peek(tag, Gzip); ok {
		t.Error("Peek found a long tag's variant")
	}
}

// TestEncodedCacheRecordsHoldNoPointers: the cache's records and its map
// hold no pointers, so that the collector does not scan the tens of
// thousands of them a large catalogue keeps (bench/README.md, "The
// compressed variants' records without pointers").
func TestEncodedCacheRecordsHoldNoPointers(t *testing.T) {
	ec := NewEncodedCache(1 << 20)
	for _, typ := range []reflect.Type{
		reflect.TypeOf(ec.queue).Elem(),
		reflect.TypeOf(ec.byKey).Key(),
		reflect.TypeOf(ec.byKey).Elem(),
	} {
		if p := pointerIn(typ); p != "" {
			t.Errorf("%v holds a pointer: %s", typ, p)
		}
	}
}

// pointerIn names a part of t that is or holds a pointer; "" when none.
func pointerIn(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Array:
		return pointerIn(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if p := pointerIn(t.Field(i).Type); p != "" {
				return t.Field(i).Name + ": " + p
			}
		}
		return ""
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return ""
	}
	return t.String()
}

func isKept(ec *EncodedCache, tag string, c Coding) bool {
	k, ok := keyOf(tag, c)
	_, kept := ec.byKey[k]
	return ok && kept
}

func inArena(ec *EncodedCache, b []byte) bool {
	if len(ec.arena) == 0 || len(b) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(&ec.arena[0]))
	p := uintptr(unsafe.Pointer(&b[0]))
	return p >= lo && p < lo+uintptr(len(ec.arena))
}

// TestEncodeDeterministic: a variant's tag names its bytes on every replica,
// so encoding the same body gives the same bytes, with a fresh or a reused
// writer; each kind's brotli quality gives a body that decodes to the same
// bytes.
func TestEncodeDeterministic(t *testing.T) {
	body := bytes.Repeat([]byte(`{"id":"dbs_0123456789abcdef","name":"Son Goku","prices":{"market":1.25}},`), 300)
	other := bytes.Repeat([]byte(`{"set_id":"23401","name":"Fusion World 01"},`), 100)
	for _, kind := range []BodyKind{Kept, Made} {
		for _, c := range []Coding{Gzip, Zstd, Brotli} {
			first := Encode(c, kind, body)
			Encode(c, kind, other) // the pooled writer sees another body in between
			if again := Encode(c, kind, body); !bytes.Equal(first, again) {
				t.Errorf("coding %d, kind %d: two encodings of one body differ", c, kind)
			}
			if got := testkit.Decode(t, ContentEncoding[c][0], first); !bytes.Equal(got, body) {
				t.Errorf("coding %d, kind %d: does not decode to the body", c, kind)
			}
		}
	}
	if bytes.Equal(Encode(Brotli, Kept, body), Encode(Brotli, Made, body)) {
		t.Error("kept and made bodies have the same brotli bytes: one quality for both")
	}
}
