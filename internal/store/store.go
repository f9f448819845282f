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

// VersionInfo describes one catalogue version.
type VersionInfo struct {
	Version   int64
	CreatedAt time.Time
	Report    string // the ingest report, JSON
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
	// finish for the UTC day of now (replacing that day's earlier point), and
	// bumps the version. base is the version the caller read; if the current
	// version differs, nothing is written and ErrVersionConflict is returned.
	// Prices are written as given: the caller decides updated_at (times are
	// cut to microseconds; a zero time is stored as NULL). Input the schema
	// cannot express is refused before anything is written: a set or card of
	// another game than its catalogue, an empty or repeated game code, an
	// empty id, an empty finish or one finish priced twice on a card.
	ReplaceCatalog(ctx context.Context, base int64, games []catalog.GameCatalog, report string, now time.Time) (int64, error)
	// LatestVersion returns the current version's information (ErrNotFound when none).
	LatestVersion(ctx context.Context) (VersionInfo, error)
	// PriceHistory returns the price points of one card, oldest day first
	// (nil for an unknown card). Points are never deleted by a replace.
	PriceHistory(ctx context.Context, game, cardID string) ([]PricePoint, error)
	// Ping checks the connection.
	Ping(ctx context.Context) error
	Close() error
}
