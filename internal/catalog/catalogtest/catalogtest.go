// Package catalogtest gives other packages' tests the catalog package's
// hand-made test catalogue.
package catalogtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

// Fixture returns a fresh copy of internal/catalog/testdata/fixture.json,
// which go test ./internal/catalog -update keeps in step with its Go source.
func Fixture(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("catalogtest: cannot locate the fixture")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", "fixture.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var c catalog.Catalog
	if err := json.Unmarshal(b, &c); err != nil {
		tb.Fatal(err)
	}
	return &c
}
