package store

import (
	"context"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// CardRemoval is a card that left a game's catalogue, and the set it was
// in when it left.
type CardRemoval struct {
	ID    string
	SetID string
}

// RemovalStore keeps the set each card removed from the catalogue left.
// The change feed (RecordCardChanges, CardChanges) says that a card was
// removed, and the catalogue no longer has the card, so neither says where
// it was: a card.changed subscription to a set (internal/alerts) reads it
// here to tell the cards that left its set. Ingest records a version's
// removals before it writes the version, so that they are kept by the time
// its change feed is recorded; a removal recorded for a version whose write
// then failed is never read (only the feed's removals are looked up), and
// the card's next removal replaces it.
type RemovalStore interface {
	// RecordCardRemovals keeps, for each of removals, the set the card of
	// game left at at (replacing what was kept of that card), in one
	// transaction, then forgets the removals of game kept from before
	// keepFrom (none when it is zero), as the change feed forgets its
	// removals.
	RecordCardRemovals(ctx context.Context, game string, at time.Time, removals []CardRemoval, keepFrom time.Time) error
	// RemovedCardSets returns the set each of ids (cards of game) was in when
	// it was last removed, by id; an id with no removal kept is absent.
	RemovedCardSets(ctx context.Context, game string, ids []string) (map[string]string, error)
}

// Removals are the cards of prev that next does not have, each with the set
// it was in, in prev's order; none when prev is nil (a game new to the
// catalogue).
func Removals(prev, next *catalog.GameCatalog) []CardRemoval {
	if prev == nil {
		return nil
	}
	kept := make(map[string]struct{}, len(next.Cards))
	for i := range next.Cards {
		kept[next.Cards[i].ID] = struct{}{}
	}
	var out []CardRemoval
	for i := range prev.Cards {
		if _, ok := kept[prev.Cards[i].ID]; !ok {
			out = append(out, CardRemoval{ID: prev.Cards[i].ID, SetID: prev.Cards[i].SetID})
		}
	}
	return out
}
