package serving

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/poll"
	"github.com/cardcat/cardcat/internal/store"
)

// Holder keeps the catalogue version the API serves (one View) and swaps in
// a new one when the store's catalogue version changes. Readers take the
// pointer once per request, so a swap never mixes versions inside one
// response, nor a snapshot of one version with paid answers of another.
type Holder struct {
	st      store.Store
	reg     *game.Registry
	log     *slog.Logger
	view    atomic.Pointer[View]
	swap    atomic.Pointer[Swap] // the last one's cost (LastSwap)
	tracker *poll.Tracker

	// VersionTimeout bounds the version check of a refresh, LoadTimeout the
	// reading of a new version (the catalogue and its TCGplayer history).
	// Defaults DefaultVersionTimeout and DefaultLoadTimeout.
	VersionTimeout, LoadTimeout time.Duration

	// OnPublish, when set, is called with each new version right after it
	// is swapped in (the bulk files' builder starts there); it must return
	// quickly, the refresh waits for it.
	OnPublish func(*View)
	// OnRemap, when set, is called when the version built from the store is
	// swapped for the same version mapped from its artifact (serveMapped):
	// whatever kept the built view from OnPublish lets it go for mapped, or
	// the built view's memory is never freed.
	OnRemap func(built, mapped *View)

	// Artifacts, when set, is where a new version is read from before the
	// store, and where a version built from the store is written
	// (holder_artifact.go). ArtifactWait is how long a running holder waits
	// for the artifact of a new version before building it itself
	// (DefaultArtifactWait; 0: never waits).
	Artifacts    *Artifacts
	ArtifactWait time.Duration
	// ArtifactWriterWait is how long it waits while another process marks
	// the artifact as being written (artifact_writer.go): building the same
	// version beside it would only slow both (DefaultArtifactWriterWait).
	ArtifactWriterWait time.Duration
	waitingFor         int64 // the version waited for since waitingSince
	waitingSince       time.Time
}

// The bounds of a refresh's store calls, so that a partition from the
// database cannot hold the refresh loop for as long as TCP lets it. The
// version check reads one row, every interval: it is bounded tightly, and a
// black-holed database costs each check no more than that. A load reads the
// whole catalogue, which takes tens of seconds at a million cards
// (bench/README.md, "Last full run"): it gets minutes, generous but finite.
const (
	DefaultVersionTimeout = 5 * time.Second
	DefaultLoadTimeout    = 5 * time.Minute
)

// NewHolder returns a Holder of st's catalogue for the games of reg, serving
// nothing until its first Refresh.
func NewHolder(st store.Store, reg *game.Registry, log *slog.Logger) *Holder {
	return &Holder{
		st: st, reg: reg, log: log,
		tracker:            poll.NewTracker("catalogue refresh", "still serving the version loaded last", log, nil),
		VersionTimeout:     DefaultVersionTimeout,
		LoadTimeout:        DefaultLoadTimeout,
		ArtifactWait:       DefaultArtifactWait,
		ArtifactWriterWait: DefaultArtifactWriterWait,
	}
}

// LastSuccess is when a refresh last succeeded (the store's version checked,
// and loaded when new), zero before the first.
func (h *Holder) LastSuccess() time.Time { return h.tracker.LastSuccess() }

// FailingSince is when refreshes started failing, zero while they succeed.
func (h *Holder) FailingSince() time.Time { return h.tracker.FailingSince() }

// Current returns the version being served, nil before the first load.
func (h *Holder) Current() *View { return h.view.Load() }

// Refresh loads the store's catalogue when its version differs from the one
// served, reads each game's TCGplayer history at the version's UTC day,
// builds everything the version serves (the snapshot, then each game's paid
// answers from the same catalogue) and swaps it in at once. The version
// check has VersionTimeout, the reading of a new version LoadTimeout; the
// outcome goes to the tracker (LastSuccess, FailingSince, the outage log).
func (h *Holder) Refresh(ctx context.Context) error {
	err := h.refresh(ctx)
	h.tracker.Record(ctx, err)
	return err
}

func (h *Holder) refresh(ctx context.Context) error {
	var v int64
	err := poll.Bounded(ctx, h.VersionTimeout, "catalogue version check", func(ctx context.Context) (err error) {
		v, err = h.st.CatalogVersion(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if cur := h.Current(); cur != nil && cur.Version == v {
		return nil
	}
	start := time.Now()
	if view, wait := h.fromArtifact(ctx, v); view != nil || wait {
		if view != nil {
			h.swap.Store(&Swap{Version: view.Version, Load: time.Since(start)})
			h.publish(view)
		}
		return nil
	}
	if h.Artifacts != nil {
		defer h.Artifacts.Writing(v)() // until its artifact is written (saveArtifact)
	}
	var (
		cat                 *catalog.Catalog
		history             map[string]*store.TCGHistory
		loaded, historyDone time.Duration
	)
	err = poll.Bounded(ctx, h.LoadTimeout, "catalogue load", func(ctx context.Context) (err error) {
		if cat, err = h.st.LoadCatalog(ctx); err != nil {
			return err
		}
		loaded = time.Since(start)
		history, err = h.tcgHistory(ctx, cat)
		historyDone = time.Since(start)
		return err
	})
	if err != nil {
		return err
	}
	view, err := Build(cat, h.reg, analytics.Options{TCGHistory: history})
	if err != nil {
		return fmt.Errorf("building the snapshot of version %d: %w", cat.Version, err)
	}
	built := time.Since(start) - historyDone
	h.swap.Store(&Swap{Version: view.Version, Load: historyDone, Build: built})
	h.publish(view)
	h.log.Info("catalogue snapshot ready", "version", view.Version, "source", "store", "load", loaded.Round(time.Millisecond),
		"history", (historyDone - loaded).Round(time.Millisecond), "build", built.Round(time.Millisecond))
	h.saveArtifact(ctx, view)
	return nil
}

// publish swaps view in.
func (h *Holder) publish(view *View) {
	h.view.Store(view)
	if h.OnPublish != nil {
		h.OnPublish(view)
	}
	// The catalogue read to build the view (about as large as the view
	// itself) and the previous view are garbage now: return their memory to
	// the OS at once rather than keep it resident until the scavenger gets
	// to it.
	debug.FreeOSMemory()
}

// tcgHistory reads, for each game of cat that the registry serves, its
// TCGplayer history at the UTC day of the version (the day of its price
// points), for the trending answers. A game whose history cannot be read is
// logged and left out: its version is served with market_t saying that the
// history is not available, rather than not at all. Only a canceled ctx
// fails the refresh.
func (h *Holder) tcgHistory(ctx context.Context, cat *catalog.Catalog) (map[string]*store.TCGHistory, error) {
	history := make(map[string]*store.TCGHistory, len(cat.Games))
	for i := range cat.Games {
		code := cat.Games[i].Game
		if _, ok := h.reg.Get(code); !ok {
			continue
		}
		th, err := h.st.TCGMarketAverages(ctx, code, cat.CreatedAt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			h.log.Error("TCGplayer price history not read; trending market_t says it is not available", "version", cat.Version, "game", code, "err", err)
			continue
		}
		h.log.Debug("TCGplayer price history", "version", cat.Version, "game", code, "day", th.Day,
			"days_covered", th.Days, "finishes", len(th.Averages))
		history[code] = &th
	}
	return history, nil
}

// Watch refreshes every interval until ctx ends (every ArtifactPoll while
// it waits for a new version's artifact); a failed refresh keeps serving the
// current snapshot, and an outage is logged once (the tracker).
func (h *Holder) Watch(ctx context.Context, every time.Duration) {
	for {
		next := every
		if h.awaitingArtifact() {
			next = min(every, ArtifactPoll)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(next):
			h.Refresh(ctx)
		}
	}
}
