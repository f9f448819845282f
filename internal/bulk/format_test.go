package bulk

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/format.golden")

// TestFormat guards Format: replicas fetch the shared files of their own
// Format only, so content that changes without a new Format would be served
// by an upgraded replica from files the old program wrote. The golden file
// holds the Format and the sha256 of the fixture's files, uncompressed (the
// gzip bytes may change with the Go release; replicas may share those).
func TestFormat(t *testing.T) {
	snap := mustSnapshot(t, 1)
	b := mustBuild(t, t.TempDir(), snap)
	var got strings.Builder
	fmt.Fprintf(&got, "format %d\n", Format)
	for _, gs := range snap.Games() {
		code := gs.Game().Code
		for _, name := range Names {
			sum := sha256.Sum256(mustRead(t, b, code, 1, name))
			fmt.Fprintf(&got, "%s %s %x\n", code, name, sum)
		}
	}
	path := filepath.Join("testdata", "format.golden")
	want, err := os.ReadFile(path)
	if err != nil && !*update {
		t.Fatal(err)
	}
	if string(want) == got.String() {
		return
	}
	var wantFormat int
	fmt.Sscanf(string(want), "format %d", &wantFormat)
	if wantFormat == Format && len(want) > 0 {
		t.Fatalf("the bulk files' content changed but bulk.Format is still %d: make it %d, then run go test ./internal/bulk -update "+
			"(replicas sharing files through S3 would otherwise serve the old program's files)\n--- %s\n%s--- now\n%s", Format, Format+1, path, want, got.String())
	}
	if !*update {
		t.Fatalf("%s is of format %d, bulk.Format is %d: run go test ./internal/bulk -update", path, wantFormat, Format)
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
