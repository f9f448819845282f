package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
)

func init() {
	register("ingest", "read the marketplaces' files and write a new catalogue version", cmdIngest)
}

func cmdIngest(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "ingest", "[--from MIRROR] [flags]")
	sf, err := addStoreFlags(fs, env)
	if err != nil {
		return err
	}
	from := fs.String("from", "", "read a local mirror directory instead of the live sources")
	up, err := addUpstreamFlags(fs, env)
	if err != nil {
		return err
	}
	arts, err := addArtifactFlags(fs, env)
	if err != nil {
		return err
	}
	loadTimeout, err := addLoadTimeoutFlag(fs, env)
	if err != nil {
		return err
	}
	lockWait := fs.Duration("lock-wait", 30*time.Minute, "how long to wait while a scheduled refresh or another ingest of the same store runs (0: fail at once)")
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if err := checkLoadTimeout(*loadTimeout); err != nil {
		return err
	}
	var src ingest.Source = ingest.DirSource{Dir: *from}
	if *from == "" {
		src = up.source(sf.dataDir)
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	unlock, err := takeIngestLock(ctx, st, *lockWait, env.Log)
	if err != nil {
		return err
	}
	defer unlock() // after the artifact: the next ingest builds on this one's
	env.Log.Info("ingest starting", "source", src.Describe("."), "store", sf.describe())
	opts := up.options(env.Log)
	opts.Progress = newProgress(env).update
	rep, err := ingest.Run(ctx, st, src, game.Default(), time.Now(), opts)
	if err != nil {
		return err
	}
	printReport(env, rep)
	writeIngestedArtifact(ctx, env, arts, sf, st, *loadTimeout)
	return nil
}

// ingestLockPoll is how often a waiting ingest tries the lock again.
var ingestLockPoll = 2 * time.Second

// takeIngestLock takes the store's refresh lock, the one the scheduled
// refresh's replicas take (refreshLockName), so that a cron ingest and a
// scheduled one never write the same store at once: waiting at most wait
// for its holder to finish.
func takeIngestLock(ctx context.Context, st store.Store, wait time.Duration, log *slog.Logger) (func(), error) {
	locker, ok := st.(store.Locker)
	if !ok {
		return func() {}, nil
	}
	deadline := time.Now().Add(wait)
	for logged := false; ; logged = true {
		unlock, ok, err := locker.TryLock(ctx, refreshLockName)
		if err != nil {
			return nil, fmt.Errorf("ingest: taking the store's refresh lock: %w", err)
		}
		if ok {
			return unlock, nil
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("ingest: a scheduled refresh or another ingest of this store still runs after --lock-wait %s; nothing written", wait)
		}
		if !logged {
			log.Info("a scheduled refresh or another ingest of this store is running: waiting for it", "at_most", wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(ingestLockPoll, time.Until(deadline))):
		}
	}
}

// defaultChangeDays is the change feed's kept history: a client that syncs
// at least once a quarter never needs the bulk files again.
const defaultChangeDays = 90

func setChangeDays(days *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want 0 (keep every removal) or a number of days, got %q", v)
	}
	*days = n
	return nil
}

// The price history's retention: the API answers up to 365 days of it, and
// the product promises at least 400 kept.
const (
	defaultHistoryDays = 400
	minHistoryDays     = 400
)

func setHistoryDays(days *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || (n > 0 && n < minHistoryDays) {
		return fmt.Errorf("want 0 (keep every point) or a number of days of at least %d, got %q", minHistoryDays, v)
	}
	*days = n
	return nil
}

// printReport writes the ingest summary, one line per game.
func printReport(env *Env, rep *ingest.Report) {
	for _, g := range rep.Games {
		for _, w := range g.Warnings {
			env.Log.Warn("ingest", "game", g.Game, "warning", w)
		}
		fmt.Fprintf(env.Stdout, "%s: %d sets, %d cards; TCGplayer %d products, Cardmarket %d products; linked %d (%d mtgjson, %d operator, %d by name), forbidden %d, TCGplayer-only %d, Cardmarket-only %d, ambiguous %d; prices %d changed, %d unchanged\n",
			g.Game, g.Sets, g.Cards, g.TCGProducts, g.CMProducts, g.Linked, g.LinkedMTGJSON, g.LinkedOperator, g.LinkedByName,
			g.Forbidden, g.TCGOnly, g.CardmarketOnly, g.Ambiguous, g.PricesChanged, g.PricesUnchanged)
		fmt.Fprintf(env.Stdout, "%s: change feed: %d cards changed, %d removed\n", g.Game, g.CardsChanged, g.CardsRemoved)
	}
	fmt.Fprintf(env.Stdout, "catalogue version %d written in %s\n", rep.Version, rep.Duration.Round(time.Millisecond))
	if rep.PointsPruned > 0 {
		fmt.Fprintf(env.Stdout, "price history: %d points past the kept days deleted\n", rep.PointsPruned)
	}
}
