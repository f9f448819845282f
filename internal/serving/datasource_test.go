package serving

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// TestDataFromReports: the source of a version, read from the report the
// store keeps with it: a report's own "data", else by what the ingest read
// (the bundled sample, the upstreams' URLs, a directory); a version that is
// not the latest is an error.
func TestDataFromReports(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The source serve's sample ingest records (cmd/cardcat, ensureSample).
	sample := ingest.FSSource{Name: "embedded sample"}.Describe(".")
	if !strings.HasPrefix(sample, SampleReportSource) {
		t.Fatalf("the sample's ingest records the source %q, not under %q", sample, SampleReportSource)
	}
	data := DataFromReports(st)
	games := []catalog.GameCatalog{}
	var version int64
	for _, tt := range []struct {
		report string
		want   string
	}{
		{`{"version":0,"source":"` + sample + `","games":[]}`, DataSample},
		{`{"source":"https://tcgcsv.com and https://downloads.s3.cardmarket.com/productCatalog"}`, DataLive},
		{`{"source":"http://127.0.0.1:8089 and http://127.0.0.1:8090"}`, DataLive},
		{`{"source":"../shared/data"}`, DataMirror},
		{`{"source":""}`, DataUnknown},
		{`{}`, DataUnknown},
		{`{"data":"live","source":"data"}`, DataLive},
		{`{"data":"generated","source":"data"}`, DataMirror},
		{`{"data":"mirror","source":"../shared/data"}`, DataMirror},
		{`{"data":"sample","source":"sample"}`, DataSample},
		{`{"data":"generated","source":"` + sample + `"}`, DataSample},
	} {
		if version, err = st.ReplaceCatalog(ctx, version, games, tt.report, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		got, err := data(ctx, version)
		if err != nil || got != tt.want {
			t.Errorf("report %s: %q, %v; want %q", tt.report, got, err, tt.want)
		}
	}
	if got, err := data(ctx, version-1); err == nil {
		t.Errorf("version %d, not the latest: %q, want an error", version-1, got)
	}
}
