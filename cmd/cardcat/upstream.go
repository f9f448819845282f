package main

import (
	"log/slog"
	"path/filepath"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/ingest"
)

// The live sources of an ingest and what it keeps are shared by `cardcat
// ingest` and the scheduled refresh of `cardcat serve` (--refresh-at): one
// set of settings (config.Upstream), one ingest.

// upstreamSource is the live sources, with the files no upstream publishes
// read from the local directory (the data directory by default) and the
// fetched files cached under the data directory.
func upstreamSource(u config.Upstream, dataDir string) ingest.Source {
	ld := u.LocalDir
	if ld == "" {
		ld = dataDir
	}
	return &ingest.HTTPSource{TCGBaseURL: u.TCGPlayerURL, CardmarketBaseURL: u.CardmarketURL, LocalDir: ld,
		UserAgent: "cardcat/" + Version() + " (+https://github.com/cardcat/cardcat)", CacheDir: filepath.Join(dataDir, "upstream")}
}

// ingestOptions are the ingest's options of these settings.
func ingestOptions(u config.Upstream, log *slog.Logger) ingest.Options {
	return ingest.Options{Log: log, ChangeDays: u.ChangeDays, HistoryDays: u.HistoryDays}
}
