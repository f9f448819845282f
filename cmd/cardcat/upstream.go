package main

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/ingest"
)

// The live sources of an ingest and what it keeps are shared by `cardcat
// ingest` and the scheduled refresh of `cardcat serve` (--refresh-at): one
// set of settings (config.Upstream), one ingest.

// upstreamBackoff is the live sources' first retry delay; 0 is
// ingest.HTTPSource's (1 s, doubled at each of its 3 retries). Tests
// shorten it.
var upstreamBackoff time.Duration

// upstreamSource is the live sources, with the files no upstream publishes
// read from the local directory (the data directory by default) and the
// fetched files cached under the data directory; each retry is logged to log.
func upstreamSource(u config.Upstream, dataDir string, log *slog.Logger) ingest.Source {
	ld := u.LocalDir
	if ld == "" {
		ld = dataDir
	}
	return &ingest.HTTPSource{TCGBaseURL: u.TCGPlayerURL, CardmarketBaseURL: u.CardmarketURL, LocalDir: ld,
		UserAgent: "cardcat/" + Version() + " (+https://github.com/cardcat/cardcat)", CacheDir: filepath.Join(dataDir, "upstream"),
		Backoff: upstreamBackoff, Log: log}
}

// ingestOptions are the ingest's options of these settings.
func ingestOptions(u config.Upstream, log *slog.Logger) ingest.Options {
	return ingest.Options{Log: log, ChangeDays: u.ChangeDays, HistoryDays: u.HistoryDays}
}
