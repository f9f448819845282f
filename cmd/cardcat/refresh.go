package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/schedule"
	"github.com/cardcat/cardcat/internal/store"
)

// refreshLockName is the store lock the replicas take for a scheduled
// refresh (PostgreSQL: an advisory lock of the schema; SQLite: the file
// cardcat.db-catalogue-refresh.lock).
const refreshLockName = "catalogue-refresh"

// refreshConfig is serve's scheduled refresh: the live ingest run inside the
// server at UTC times of day (--refresh-at), with ingest's upstream settings.
type refreshConfig struct {
	at       schedule.Times // empty: off
	upstream config.Upstream
	// The scheduler's own settings, its defaults but in tests.
	attempts       int
	backoff        time.Duration
	checkEvery     time.Duration
	onOutcome      func(schedule.Status)
	attemptTimeout time.Duration
}

// newRefreshScheduler returns the scheduler of the scheduled refresh, nil
// when --refresh-at is not set. Its run ingests the live sources into st as
// `cardcat ingest` does, under the store's lock; every replica, this one
// included, then picks the new version up by its usual polling.
func newRefreshScheduler(rc *refreshConfig, st store.Store, reg *game.Registry, dataDir string, now func() time.Time, log *slog.Logger, mx *metrics.Metrics) (*schedule.Scheduler, error) {
	if rc == nil || len(rc.at) == 0 {
		return nil, nil
	}
	locker, ok := st.(store.Locker)
	if !ok {
		return nil, fmt.Errorf("--refresh-at: the store %T has no lock to share among replicas", st)
	}
	log = log.With("job", "scheduled refresh")
	src := upstreamSource(rc.upstream, dataDir, log)
	var games []metrics.IngestGame // the last successful run's counts, for OnOutcome (same goroutine)
	return &schedule.Scheduler{
		Times: rc.at,
		Lock:  func(ctx context.Context) (func(), bool, error) { return locker.TryLock(ctx, refreshLockName) },
		Done: func(ctx context.Context) (time.Time, error) {
			v, err := st.LatestVersion(ctx)
			if errors.Is(err, store.ErrNotFound) {
				return time.Time{}, nil
			}
			return v.CreatedAt, err
		},
		Work: func(ctx context.Context, now time.Time) (int64, error) {
			log.Info("ingest starting", "source", src.Describe("."))
			rep, err := ingest.Run(ctx, st, src, reg, now, ingestOptions(rc.upstream, log))
			if err != nil {
				return 0, err
			}
			for _, g := range rep.Games {
				for _, w := range g.Warnings {
					log.Warn("ingest", "game", g.Game, "warning", w)
				}
				log.Info("ingested", "game", g.Game, "sets", g.Sets, "cards", g.Cards, "linked", g.Linked,
					"prices_changed", g.PricesChanged, "cards_changed", g.CardsChanged, "cards_removed", g.CardsRemoved)
			}
			games = ingestGames(rep.Games)
			return rep.Version, nil
		},
		Attempts:       rc.attempts,
		Backoff:        rc.backoff,
		CheckEvery:     rc.checkEvery,
		AttemptTimeout: rc.attemptTimeout,
		Now:            now,
		Log:            log,
		OnOutcome: func(s schedule.Status) {
			mx.RecordIngest(ingestMetricsRun(s, games))
			if rc.onOutcome != nil {
				rc.onOutcome(s)
			}
		},
	}, nil
}

// ingestMetricsRun is a scheduled run as the metrics record it.
func ingestMetricsRun(s schedule.Status, games []metrics.IngestGame) metrics.IngestRun {
	run := metrics.IngestRun{At: s.LastEnd, Duration: s.LastEnd.Sub(s.LastStart)}
	switch s.LastOutcome {
	case schedule.OK:
		run.Outcome, run.Version, run.Games = metrics.IngestSucceeded, s.LastVersion, games
	case schedule.Failed:
		run.Outcome = metrics.IngestFailed
	default: // another replica holds the lock, or did the work already
		run.Outcome = metrics.IngestSkipped
	}
	return run
}

func ingestGames(reps []ingest.GameReport) []metrics.IngestGame {
	out := make([]metrics.IngestGame, len(reps))
	for i, g := range reps {
		out[i] = metrics.IngestGame{Game: g.Game, Sets: g.Sets, Cards: g.Cards, Linked: g.Linked,
			PricesChanged: g.PricesChanged, CardsChanged: g.CardsChanged, CardsRemoved: g.CardsRemoved}
	}
	return out
}
