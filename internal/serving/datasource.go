package serving

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cardcat/cardcat/internal/store"
)

// What a catalogue version was made from, as GET / and /health show it
// (apiref.DataSource has the same values).
const (
	DataSample  = "sample"  // the sample bundled with the server
	DataLive    = "live"    // an ingest of the marketplaces' downloads
	DataMirror  = "mirror"  // an ingest of a copy of those files (ingest --from DIR)
	DataUnknown = "unknown" // nothing says
)

// VersionReports are the store's reports of its catalogue versions
// (store.Store has it).
type VersionReports interface {
	LatestVersion(ctx context.Context) (store.VersionInfo, error)
}

// SampleReportSource begins the source of the reports of the bundled
// sample's ingest: cmd/cardcat reads it through an ingest.FSSource named
// "embedded sample", whose files it describes as "embedded sample:NAME".
const SampleReportSource = "embedded sample:"

// DataFromReports is httpapi's Deps.Data: it reads the source of a version from the
// ingest report the store keeps with it: the report's "data" when it says
// (sample, live or mirror); else by the report's "source", what the ingest
// read (ingest.Source's Describe of "."): the bundled sample
// (SampleReportSource), the upstreams' URLs (live), a directory (mirror),
// nothing (unknown). Only the latest version's report is read: asked for
// another, it fails, and the server asks again later (by then it serves the
// latest).
func DataFromReports(st VersionReports) func(ctx context.Context, version int64) (string, error) {
	return func(ctx context.Context, version int64) (string, error) {
		info, err := st.LatestVersion(ctx)
		if err != nil {
			return "", err
		}
		if info.Version != version {
			return "", fmt.Errorf("the store's latest version is %d, not %d", info.Version, version)
		}
		var report struct {
			Data   string `json:"data"`
			Source string `json:"source"`
		}
		if err := json.Unmarshal([]byte(info.Report), &report); err != nil {
			return "", fmt.Errorf("the report of version %d: %w", version, err)
		}
		switch {
		case report.Data == DataSample || report.Data == DataLive || report.Data == DataMirror:
			return report.Data, nil
		case strings.HasPrefix(report.Source, SampleReportSource):
			return DataSample, nil
		case strings.HasPrefix(report.Source, "https://") || strings.HasPrefix(report.Source, "http://"):
			return DataLive, nil
		case report.Source != "":
			return DataMirror, nil
		}
		return DataUnknown, nil
	}
}
