package web

import (
	"bytes"
	"strconv"
	"testing"

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

// TestEncodedCacheBounded: the cache keeps at most its bytes, counted as
// the memory each variant holds (its capacity, its key, its entry), with no
// spare capacity kept; it drops the least recently used, and gives the same
// bytes on a hit.
func TestEncodedCacheBounded(t *testing.T) {
	body := bytes.Repeat([]byte(`{"name":"card","price":1.25},`), 200)
	encoded := Encode(Gzip, Kept, body)
	if cap(encoded) == len(encoded) {
		t.Fatalf("the encoder's buffer has no spare capacity (%d): the test no longer shows it trimmed", cap(encoded))
	}
	enc := len(encoded) + len(`"0"`) + keptEntryBytes
	ec := NewEncodedCache(enc * 8) // room for eight
	for i := range 10 {
		ec.Get(`"`+strconv.Itoa(i)+`"`, Gzip, body, "")
	}
	if ec.size > ec.max || len(ec.byKey) != 8 || ec.order.Len() != 8 || ec.size != 8*enc {
		t.Fatalf("size %d of %d, %d keys, %d in order; want 8 of %d bytes", ec.size, ec.max, len(ec.byKey), ec.order.Len(), enc)
	}
	for e := ec.order.Front(); e != nil; e = e.Next() {
		if b := e.Value.(*encodedEntry).body; cap(b) != len(b) {
			t.Errorf("a kept variant of %d bytes holds %d", len(b), cap(b))
		}
	}
	for _, gone := range []string{`"0"`, `"1"`} {
		if _, ok := ec.byKey[encodedKey{gone, Gzip}]; ok {
			t.Errorf("%s, the least recently used, is still kept", gone)
		}
	}
	hit := ec.Get(`"9"`, Gzip, nil, "never read: a hit")
	if got := testkit.Decode(t, "gzip", hit); !bytes.Equal(got, body) {
		t.Error("a hit is not the body compressed")
	}
	big := NewEncodedCache(len(encoded) * 4) // a body over an eighth is compressed, not kept
	big.Get(`"x"`, Gzip, body, "")
	if big.size != 0 {
		t.Errorf("a body over an eighth of the cache was kept (%d bytes)", big.size)
	}
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
