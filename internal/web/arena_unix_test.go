//go:build unix

package web

import (
	"bytes"
	"testing"

	"github.com/cardcat/cardcat/internal/testkit"
)

// TestEncodedCacheArenaRefused: when the arena cannot be mapped (here a
// bound no machine has), the variants are compressed and sent as they are,
// none kept, and the next request tries again.
func TestEncodedCacheArenaRefused(t *testing.T) {
	body := bytes.Repeat([]byte(`{"name":"card","price":1.25},`), 200)
	ec := NewEncodedCache(1 << 62)
	for range 2 {
		v := ec.Get(`"1"`, Gzip, body, "")
		if got := testkit.Decode(t, "gzip", v.Bytes()); !bytes.Equal(got, body) {
			t.Fatal("without an arena, the variant is not the body compressed")
		}
		v.Release()
		if ec.arena != nil || ec.Bytes() != 0 || len(ec.byKey) != 0 {
			t.Fatalf("an arena of %d bytes, %d kept: want none", len(ec.arena), ec.Bytes())
		}
	}
}
