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
	"github.com/cardcat/cardcat/internal/store"
)

func init() {
	register("ingest", "read the marketplaces' files and write a new catalogue version", cmdIngest)
}

func cmdIngest(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "ingest", "[--from MIRROR] [flags]")
	c, err := bindConfig(env, fs, config.Ingest)
	if err != nil {
		return err
	}
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	s3cfg, err := s3Config(c) // for the artifact: refused now, not after the ingest
	if err != nil {
		return err
	}
	var src ingest.Source = ingest.DirSource{Dir: c.Ingest.From}
	if c.Ingest.From == "" {
		src = upstreamSource(c.Upstream, c.Store.DataDir, env.Log)
	}
	st, err := openStore(ctx, c.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	unlock, err := takeIngestLock(ctx, st, c.Ingest.LockWait, env.Log)
	if err != nil {
		return err
	}
	defer unlock() // after the artifact: the next ingest builds on this one's
	env.Log.Info("ingest starting", "source", src.Describe("."), "store", c.Store.Describe())
	opts := ingestOptions(c.Upstream, env.Log)
	opts.Progress = newProgress(env).update
	rep, err := ingest.Run(ctx, st, src, game.Default(), time.Now(), opts)
	if err != nil {
		return ingestFailed(ctx, st, err)
	}
	printReport(env, rep)
	writeIngestedArtifact(ctx, env, c, s3cfg, st)
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

// ingestFailed is the error of an ingest that failed (ingest.Run writes
// nothing then): what failed, that the store is unchanged, and for a live
// source that could not be fetched, how to ingest without it.
func ingestFailed(ctx context.Context, st store.Store, err error) error {
	msg := fmt.Sprintf("%v; nothing was written, the store is unchanged", err)
	switch v, verr := st.CatalogVersion(ctx); {
	case verr == nil && v > 0:
		msg += fmt.Sprintf(" (catalogue version %d)", v)
	case verr == nil:
		msg += " (no catalogue yet)"
	}
	if _, unreachable := errors.AsType[*ingest.FetchError](err); unreachable {
		msg += ". To ingest without the live sources, read a mirror directory: cardcat ingest --from DIR " +
			"(its layout: docs/operations.md, \"Mirror layout\"), or --from sample, the bundled sample, in a checkout of cardcat"
	}
	return &wrapped{msg: msg, err: err}
}

// wrapped is an error with a message of its own that still matches err.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// printReport writes the ingest summary, one line per game.
func printReport(env *Env, rep *ingest.Report) {
	for _, g := range rep.Games {
		for _, w := range g.Warnings {
			env.Log.Warn("ingest", "game", g.Game, "warning", w)
		}
		fmt.Fprintf(env.Stdout, "%s: %d cards in %s; TCGplayer %d products, Cardmarket %d products; linked %d (%d mtgjson, %d operator, %d by name, %d by name in a set TCGdex pairs), forbidden %d, TCGplayer-only %d, Cardmarket-only %d, ambiguous %d; prices %d changed, %d unchanged\n",
			g.Game, g.Cards, setsServed(g), g.TCGProducts, g.CMProducts, g.Linked, g.LinkedMTGJSON, g.LinkedOperator, g.LinkedByName, g.LinkedBySetPair,
			g.Forbidden, g.TCGOnly, g.CardmarketOnly, g.Ambiguous, g.PricesChanged, g.PricesUnchanged)
		fmt.Fprintf(env.Stdout, "%s: change feed: %d cards changed, %d removed\n", g.Game, g.CardsChanged, g.CardsRemoved)
	}
	fmt.Fprintf(env.Stdout, "catalogue version %d written in %s\n", rep.Version, rep.Duration.Round(time.Millisecond))
	if rep.PointsPruned > 0 {
		fmt.Fprintf(env.Stdout, "price history: %d points past the kept days deleted\n", rep.PointsPruned)
	}
}

// setsServed says how many sets the API lists, and, when upstream listed
// more, how many were read: a set without products is not served.
func setsServed(g ingest.GameReport) string {
	s := fmt.Sprintf("%d sets", g.SetsServed)
	if g.Sets > g.SetsServed {
		s += fmt.Sprintf(" (%d sets read, %d without products: not served)", g.Sets, g.Sets-g.SetsServed)
	}
	return s
}
