// Package ingest turns the marketplaces' public files into one linked, priced
// catalogue per game and writes it to the store as a new version.
//
// The flow: read (a mirror directory or the live sources) ► normalise each
// game ► link TCGplayer and Cardmarket products ► carry over price times that
// did not change ► one store transaction ► version+1.
package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
)

// Options tune a build.
type Options struct {
	// Workers read groups in parallel; default GOMAXPROCS.
	Workers int
	// Log receives a line per phase; nil for none.
	Log *slog.Logger
	// Progress, when set, is called as each group's files are read: the
	// game, the groups read so far and the game's number of groups.
	Progress func(game string, done, total int)
	// ChangeDays, above 0, is how many days the change feed keeps the cards
	// removed from the catalogue: older removals are forgotten, and a since
	// before them is refused. 0 keeps every removal.
	ChangeDays int
	// HistoryDays, above 0, is how many UTC days of price points Run keeps,
	// its own day included: once the version is written, the older points
	// of every game written are deleted (store.PrunePriceHistory). 0 keeps
	// every point.
	HistoryDays int
}

// Build reads every game of reg from src and returns the normalised catalogue
// (Version 0) with every price stamped now. It writes nothing.
func Build(ctx context.Context, src Source, reg *game.Registry, now time.Time, opts Options) (*catalog.Catalog, *Report, error) {
	now = now.UTC().Truncate(time.Microsecond)
	rep := &Report{Started: now}
	cat := &catalog.Catalog{CreatedAt: now}
	for _, g := range reg.All() {
		if opts.Log != nil {
			opts.Log.Info("reading", "game", g.Code)
		}
		u, err := readUpstream(ctx, src, g, opts)
		if err != nil {
			return nil, nil, err
		}
		gc, gr, err := buildGame(u, now)
		if err != nil {
			return nil, nil, err
		}
		if opts.Log != nil {
			opts.Log.Info("normalised", "game", g.Code, "sets", gr.Sets, "sets_served", gr.SetsServed, "cards", gr.Cards,
				"linked", gr.Linked, "cardmarket_only", gr.CardmarketOnly, "ambiguous", gr.Ambiguous)
		}
		cat.Games = append(cat.Games, *gc)
		rep.Games = append(rep.Games, *gr)
	}
	return cat, rep, nil
}

// BuildFromMirror builds the catalogue of a local mirror directory.
func BuildFromMirror(ctx context.Context, dir string, reg *game.Registry, now time.Time) (*catalog.Catalog, *Report, error) {
	return Build(ctx, DirSource{Dir: dir}, reg, now, Options{})
}

// Run builds the catalogue from src and writes it to st as a new version.
// Prices whose values did not change keep their previous updated_at. On any
// failure nothing is written and the previous catalogue stays in place.
func Run(ctx context.Context, st store.Store, src Source, reg *game.Registry, now time.Time, opts Options) (*Report, error) {
	start := time.Now()
	base, err := st.CatalogVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	cat, rep, err := Build(ctx, src, reg, now, opts)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if base > 0 {
		prev, err := st.LoadCatalog(ctx)
		if err != nil {
			return nil, fmt.Errorf("ingest: previous catalogue: %w", err)
		}
		for i := range cat.Games {
			changed, unchanged := CarryPriceTimes(prev.Game(cat.Games[i].Game), &cat.Games[i])
			rep.Games[i].PricesChanged, rep.Games[i].PricesUnchanged = changed, unchanged
		}
		recordRemovals(ctx, st, prev, cat, opts)
	} else {
		for i, g := range rep.Games {
			rep.Games[i].PricesChanged = g.TCGPrices + g.CMPrices
		}
	}
	rep.Source = src.Describe(".")
	rep.Duration = time.Since(start)
	js, err := json.Marshal(rep)
	if err != nil {
		return nil, fmt.Errorf("ingest: report: %w", err)
	}
	if opts.Log != nil {
		opts.Log.Info("writing", "games", len(cat.Games))
	}
	v, err := st.ReplaceCatalog(ctx, base, cat.Games, string(js), cat.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	rep.Version = v
	recordChanges(ctx, st, reg, cat, v, rep, opts)
	rep.PointsPruned = prune(ctx, st, cat, opts)
	rep.Duration = time.Since(start)
	return rep, nil
}

// recordChanges records the change feed of each game written at version v:
// the hash of every card's detail body, compared by the store with the last
// recorded. The version is written by then: a failure is logged, not
// returned, and the next ingest compares with the hashes last recorded, so a
// change is reported late (at the later version's time), never lost.
func recordChanges(ctx context.Context, st store.Store, reg *game.Registry, cat *catalog.Catalog, v int64, rep *Report, opts Options) {
	keepFrom := changesKeptFrom(cat, opts)
	for i := range cat.Games {
		gc := &cat.Games[i]
		g, ok := reg.Get(gc.Game)
		if !ok {
			continue
		}
		hashes, err := catalog.CardBodyHashes(g, gc)
		if err == nil {
			var cr store.ChangeRecord
			cr, err = st.RecordCardChanges(ctx, v, cat.CreatedAt, gc.Game, hashes, keepFrom)
			rep.Games[i].CardsChanged, rep.Games[i].CardsRemoved = cr.Changed, cr.Removed
		}
		if opts.Log == nil {
			continue
		}
		if err != nil {
			opts.Log.Warn("change feed not recorded; the next ingest will report these changes", "game", gc.Game, "error", err)
		} else {
			opts.Log.Info("change feed recorded", "game", gc.Game, "changed", rep.Games[i].CardsChanged, "removed", rep.Games[i].CardsRemoved)
		}
	}
}

// changesKeptFrom is the oldest change the change feed keeps after cat is
// written (opts.ChangeDays before it), zero to keep every change.
func changesKeptFrom(cat *catalog.Catalog, opts Options) time.Time {
	if opts.ChangeDays <= 0 {
		return time.Time{}
	}
	return cat.CreatedAt.AddDate(0, 0, -opts.ChangeDays)
}

// recordRemovals keeps, in a store that keeps them (store.RemovalStore),
// the set of each card of prev that cat removes: once the version is
// written the catalogue no longer has the card, and the change feed records
// only that it was removed, while a card.changed subscription to its set
// must be told it left the set. It runs before the version is written, so
// that the sets are kept by the time the feed records the removals; a
// version that is then not written leaves rows that are never read (only
// the feed's removals are looked up). A failure is logged, not returned:
// the catalogue matters more than what a set's subscribers are told of
// its removed cards.
func recordRemovals(ctx context.Context, st store.Store, prev, cat *catalog.Catalog, opts Options) {
	rs, ok := st.(store.RemovalStore)
	if !ok {
		return
	}
	keepFrom := changesKeptFrom(cat, opts)
	for i := range cat.Games {
		gc := &cat.Games[i]
		removals := store.Removals(prev.Game(gc.Game), gc)
		if len(removals) == 0 && keepFrom.IsZero() {
			continue
		}
		if err := rs.RecordCardRemovals(ctx, gc.Game, cat.CreatedAt, removals, keepFrom); err != nil && opts.Log != nil {
			opts.Log.Warn("removed cards' sets not recorded: subscriptions to their sets will not be told of them",
				"game", gc.Game, "removed", len(removals), "error", err)
		}
	}
}

// prune deletes the price points older than opts.HistoryDays days before
// the catalogue's day, game by game. The version is written by then: a
// failure is logged, not returned, and the next ingest's prune deletes what
// this one left (it deletes every older point, not one day's).
func prune(ctx context.Context, st store.Store, cat *catalog.Catalog, opts Options) int64 {
	if opts.HistoryDays <= 0 {
		return 0
	}
	before := cat.CreatedAt.AddDate(0, 0, 1-opts.HistoryDays)
	var total int64
	for _, g := range cat.Games {
		n, err := st.PrunePriceHistory(ctx, g.Game, before)
		if err != nil {
			if opts.Log != nil {
				opts.Log.Warn("price history not pruned; the next ingest will", "game", g.Game, "error", err)
			}
			continue
		}
		total += n
	}
	if opts.Log != nil {
		opts.Log.Info("price history pruned", "before", before.Format(time.DateOnly), "points", total)
	}
	return total
}

// CarryPriceTimes gives every price of next whose values equal the same
// card's same finish in prev that earlier updated_at, so updated_at says when
// a price last changed, not when it was last read. It returns how many prices
// changed (or are new) and how many did not.
func CarryPriceTimes(prev, next *catalog.GameCatalog) (changed, unchanged int) {
	type key struct{ card, finish string }
	tcg := map[key]catalog.TCGPrice{}
	cm := map[key]catalog.CMPrice{}
	if prev != nil {
		for i := range prev.Cards {
			c := &prev.Cards[i]
			for _, p := range c.TCGPrices {
				tcg[key{c.ID, p.SubType}] = p
			}
			for _, p := range c.CMPrices {
				cm[key{c.CMID, p.Variant}] = p
			}
		}
	}
	for i := range next.Cards {
		c := &next.Cards[i]
		for j := range c.TCGPrices {
			p := &c.TCGPrices[j]
			if old, ok := tcg[key{c.ID, p.SubType}]; ok && old.SameValues(*p) {
				p.UpdatedAt = old.UpdatedAt
				unchanged++
			} else {
				changed++
			}
		}
		for j := range c.CMPrices {
			p := &c.CMPrices[j]
			if old, ok := cm[key{c.CMID, p.Variant}]; ok && old.SameValues(*p) {
				p.UpdatedAt = old.UpdatedAt
				unchanged++
			} else {
				changed++
			}
		}
	}
	return changed, unchanged
}
