package main

import (
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/cardcat/cardcat/internal/ingest"
)

// upstreamFlags are the live sources of an ingest and what it keeps, shared
// by `cardcat ingest` and the scheduled refresh of `cardcat serve`
// (--refresh-at): one set of flags and variables, one ingest.
type upstreamFlags struct {
	tcgURL, cmURL, localDir string
	changeDays, historyDays int
}

func addUpstreamFlags(fs *flag.FlagSet, env *Env) (*upstreamFlags, error) {
	u := &upstreamFlags{changeDays: defaultChangeDays, historyDays: defaultHistoryDays}
	fs.StringVar(&u.tcgURL, "tcgplayer-url", envOr(env.Getenv, "CARDCAT_TCGPLAYER_URL", ingest.DefaultTCGBaseURL), "TCGplayer (tcgcsv) base URL for live ingest (env CARDCAT_TCGPLAYER_URL)")
	fs.StringVar(&u.cmURL, "cardmarket-url", envOr(env.Getenv, "CARDCAT_CARDMARKET_URL", ingest.DefaultCardmarketBaseURL), "Cardmarket downloads base URL for live ingest (env CARDCAT_CARDMARKET_URL)")
	fs.StringVar(&u.localDir, "local-dir", envOr(env.Getenv, "CARDCAT_LOCAL_DIR", ""), "for live ingest, a mirror-layout directory with the files no upstream publishes (links/, cardmarket/{game}/expansions.json); default DATA_DIR (env CARDCAT_LOCAL_DIR)")
	if v := env.Getenv("CARDCAT_CHANGE_DAYS"); v != "" {
		if err := setChangeDays(&u.changeDays, v); err != nil {
			return nil, usageError{"CARDCAT_CHANGE_DAYS: " + err.Error()}
		}
	}
	fs.Func("change-days", fmt.Sprintf("days the change feed (GET /{game}/changes) keeps the cards removed from the catalogue: a since older than the newest removal forgotten is refused; 0 keeps every removal (env CARDCAT_CHANGE_DAYS; default %d)", defaultChangeDays),
		func(v string) error { return setChangeDays(&u.changeDays, v) })
	if v := env.Getenv("CARDCAT_HISTORY_DAYS"); v != "" {
		if err := setHistoryDays(&u.historyDays, v); err != nil {
			return nil, usageError{"CARDCAT_HISTORY_DAYS: " + err.Error()}
		}
	}
	fs.Func("history-days", fmt.Sprintf("UTC days of price history to keep, today's included: older points are deleted after the version is written; 0 keeps every point, else at least %d (env CARDCAT_HISTORY_DAYS; default %d)", minHistoryDays, defaultHistoryDays),
		func(v string) error { return setHistoryDays(&u.historyDays, v) })
	return u, nil
}

// source is the live sources, with the files no upstream publishes read from
// the local directory (the data directory by default) and the fetched files
// cached under the data directory.
func (u *upstreamFlags) source(dataDir string) ingest.Source {
	ld := u.localDir
	if ld == "" {
		ld = dataDir
	}
	return &ingest.HTTPSource{TCGBaseURL: u.tcgURL, CardmarketBaseURL: u.cmURL, LocalDir: ld,
		UserAgent: "cardcat/" + Version() + " (+https://github.com/cardcat/cardcat)", CacheDir: filepath.Join(dataDir, "upstream")}
}

// options are the ingest's options of these flags.
func (u *upstreamFlags) options(log *slog.Logger) ingest.Options {
	return ingest.Options{Log: log, ChangeDays: u.changeDays, HistoryDays: u.historyDays}
}
