// Package store defines how cardcat keeps its catalogue: one interface, with
// SQLite (store/sqlite) and PostgreSQL (store/postgres) implementations that
// pass the same test suite (store/storetest).
package store

import (
	"context"
	"errors"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// ErrNotFound is returned when a looked-up record does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrVersionConflict is returned by ReplaceCatalog when another ingest wrote a
// new version since the caller read its base version.
var ErrVersionConflict = errors.New("store: catalogue version changed concurrently")

// Markets of a price point.
const (
	MarketTCG = "t"
	MarketCM  = "c"
)

// PricePoint is one day's price of one card finish on one marketplace, kept
// for history. Values are, for MarketTCG: low, mid, high, market, direct_low;
// for MarketCM: avg, low, trend, avg1, avg7, avg30.
type PricePoint struct {
	Game   string
	CardID string
	Market string // MarketTCG or MarketCM
	Finish string // TCGplayer subTypeName, or Cardmarket normal/foil
	Day    string // YYYY-MM-DD (UTC)
	Values []catalog.Money
}

// The windows of TCGMarketAverages, in days ending at (and including) the
// day asked for.
const (
	ShortWindowDays = 7
	LongWindowDays  = 30
)

// TCGHistory is what the TCGplayer price points of one game say at a UTC day
// D about the finishes of the game's current TCGplayer prices (the
// tcg_prices of the latest catalogue: the finishes a version built from it
// can use): the mean market price of each over D-6..D and D-29..D, and how
// much of D-29..D their points cover. Points of a finish no longer priced
// (a card dropped, a finish gone) are not read.
type TCGHistory struct {
	Game string
	Day  string // D, YYYY-MM-DD (UTC)
	// Days is the number of distinct days of D-29..D on which one of those
	// finishes has a TCGplayer point, priced or not (0 to LongWindowDays).
	Days int
	// Averages has one entry per such finish with a point in D-29..D,
	// ordered by card id, then finish (byte order: "Foil" < "Normal" <
	// "normal").
	Averages []TCGAverage
}

// TCGAverage is one card finish's mean TCGplayer market price (the 4th
// value of its points) over the two windows. A mean counts only the days
// whose point has a market price (a missing day or a null market price is
// left out, never taken as 0); it is the exact sum divided by that number of
// days, rounded once to the cent, halves away from zero; null when no day
// of the window counts.
type TCGAverage struct {
	CardID string
	Finish string
	Avg7   catalog.Money // mean over D-6..D
	Avg30  catalog.Money // mean over D-29..D
}

// VersionInfo describes one catalogue version.
type VersionInfo struct {
	Version   int64
	CreatedAt time.Time
	Report    string // the ingest report, JSON
}

// CardChange is one card of the change feed: the card's detail body changed,
// or the card left the catalogue (Removed), in the version created at
// ChangedAt, and not since.
type CardChange struct {
	ID        string
	ChangedAt time.Time
	Removed   bool
}

// ChangePage is one page of a game's change feed.
type ChangePage struct {
	// From is the oldest since the feed answers: changes after From are all
	// kept. A since before From reads nothing (Total 0, no Changes).
	From time.Time
	// Until is the creation time of the newest version whose changes are
	// recorded: the feed is complete up to it.
	Until time.Time
	// Total counts the cards changed after since, over all pages.
	Total   int
	Changes []CardChange
}

// ChangeRecord says what RecordCardChanges wrote for one game.
type ChangeRecord struct {
	Changed int // cards new or whose body hash differs
	Removed int // cards gone from the catalogue
	Pruned  int // removals older than the kept history, forgotten
}

// Store keeps the catalogue. Every method takes ctx first; errors are wrapped
// with the implementation's name.
type Store interface {
	// CatalogVersion returns the current catalogue version, 0 when none was written.
	CatalogVersion(ctx context.Context) (int64, error)
	// LoadCatalog returns the current catalogue of every game: games by code,
	// sets by id, cards and each card's prices in the order ReplaceCatalog was
	// given them. An empty store gives version 0 and no games. Empty lists
	// (extra, variants, prices) load as nil.
	LoadCatalog(ctx context.Context) (*catalog.Catalog, error)
	// ReplaceCatalog replaces, in one transaction, the catalogue of each game in
	// games (other games are kept), writes one price point per card, market and
	// finish for the UTC day of now (replacing that day's earlier point),
	// bumps the version, and stores the TCGplayer history of every game at
	// the new version (see TCGMarketAverages). base is the version the
	// caller read; if the current version differs, nothing is written and
	// ErrVersionConflict is returned.
	// Prices are written as given: the caller decides updated_at (times are
	// cut to microseconds; a zero time is stored as NULL). Input the schema
	// cannot express is refused before anything is written: a set or card of
	// another game than its catalogue, an empty or repeated game code, an
	// empty id, an empty finish or one finish priced twice on a card.
	ReplaceCatalog(ctx context.Context, base int64, games []catalog.GameCatalog, report string, now time.Time) (int64, error)
	// LatestVersion returns the current version's information (ErrNotFound when none).
	LatestVersion(ctx context.Context) (VersionInfo, error)
	// PriceHistory returns the price points of one card, oldest day first
	// (nil for an unknown card). Points are never deleted by a replace, only
	// by PrunePriceHistory.
	PriceHistory(ctx context.Context, game, cardID string) ([]PricePoint, error)
	// PriceHistoryWindow returns the price points of one card on market
	// (MarketTCG or MarketCM) on the UTC days of from to to, both included,
	// ordered by day, then finish (byte order); nil when there are none. It
	// reads one primary-key range per finish, whatever the length of the
	// history.
	PriceHistoryWindow(ctx context.Context, game, cardID, market string, from, to time.Time) ([]PricePoint, error)
	// PrunePriceHistory deletes the price points of game on UTC days before
	// the day of before, of every finish: those of its latest catalogue and
	// those of cards and finishes gone from it. It returns how many it
	// deleted. The finishes are walked on the primary key, one seek or a few
	// each, and each finish's old points are one range, so a daily prune reads
	// about what it deletes. A prune into the 30-day window of the stored
	// TCGplayer history (see TCGMarketAverages) forgets that history.
	PrunePriceHistory(ctx context.Context, game string, before time.Time) (int64, error)
	// TCGMarketAverages returns the TCGplayer history of game at the UTC day
	// of day (see TCGHistory), read from one snapshot. ReplaceCatalog stores
	// the history of every game with TCGplayer prices at the day of the
	// version it creates, in its transaction; when day is that day and the
	// version is still the current one, that is what is read. Otherwise
	// (another day, a version written before the history was stored) it is
	// computed in the database: one grouped pass over the window's TCGplayer
	// points of the current finishes, in primary-key order, whatever the
	// length of the history. Both give the same answer. An unknown game
	// gives no averages and 0 days.
	TCGMarketAverages(ctx context.Context, game string, day time.Time) (TCGHistory, error)
	// RecordCardChanges records, in one transaction, the change feed of game
	// at version (created at at): hashes are the body hashes of every card of
	// the game at that version (catalog.CardBodyHashes). A card whose hash is
	// new or differs from the one last recorded changed at at; a card recorded
	// but absent from hashes was removed at at. The first record of a game
	// only sets its hashes: its feed starts at at. Removals whose time is
	// before keepFrom are then forgotten, and the feed's From moves past
	// them. A version at or below the game's last recorded one writes
	// nothing (a zero ChangeRecord).
	RecordCardChanges(ctx context.Context, version int64, at time.Time, game string, hashes []catalog.CardHash, keepFrom time.Time) (ChangeRecord, error)
	// CardChanges returns the cards of game changed after since, each once
	// (at its latest change), by ChangedAt then id, skipping offset and at
	// most limit of them, read from one snapshot. A game never recorded
	// gives ErrNotFound.
	CardChanges(ctx context.Context, game string, since time.Time, offset, limit int) (ChangePage, error)
	// Ping checks the connection.
	Ping(ctx context.Context) error
	Close() error
}
