package sqlrow

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
)

// DiffCardHashes compares hashes, a game's card body hashes at a new version,
// with the game's recorded ones, read by query as (card_id, hash) rows in
// card id byte order (hash NULL for a card recorded as removed). It returns
// the cards new or changed, and the ids of recorded cards now absent. The
// two lists are merged in id order, so that a million cards cost one ordered
// scan and a sort rather than a map of every recorded card.
func DiffCardHashes(ctx context.Context, r Reader, query string, args []any, hashes []catalog.CardHash) (changed []catalog.CardHash, removed []string, err error) {
	sorted := slices.Clone(hashes)
	slices.SortFunc(sorted, func(a, b catalog.CardHash) int { return cmp.Compare(a.ID, b.ID) })
	next := 0
	var id, hash []byte
	err = each(ctx, r, query, args, []any{r.RawBytes(&id), r.RawBytes(&hash)}, func() error {
		for next < len(sorted) && sorted[next].ID < string(id) {
			changed = append(changed, sorted[next]) // not recorded: new
			next++
		}
		if next < len(sorted) && sorted[next].ID == string(id) {
			if !bytes.Equal(hash, sorted[next].Hash[:]) { // a changed body, or a removed card back
				changed = append(changed, sorted[next])
			}
			next++
			return nil
		}
		if len(hash) > 0 { // recorded, present until now, absent from the new version
			removed = append(removed, string(id))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return append(changed, sorted[next:]...), removed, nil
}

// ChangeFeed is the state of a game's change feed: the version last
// recorded, and the feed's From and Until (see store.ChangePage).
type ChangeFeed struct {
	Version     int64
	From, Until time.Time
}

// ReadChangeFeed reads a game's feed state with query, which gives (version,
// from, until); found is false for a game never recorded.
func ReadChangeFeed(ctx context.Context, r Reader, query string, args ...any) (f ChangeFeed, found bool, err error) {
	var from, until sql.NullTime
	found, err = scanOne(ctx, r, query, args, &f.Version, r.NullTime(&from), r.NullTime(&until))
	f.From, f.Until = from.Time, until.Time
	return f, found, err
}

// CardChanges reads one page of a game's change feed: feed is the query of
// ReadChangeFeed, count counts the changes after since, and page gives them
// as (card_id, changed_at, removed) rows, in order, for the page. A since
// before the feed's From reads no change.
func CardChanges(ctx context.Context, r Reader, since time.Time, feed, count, page Query) (store.ChangePage, error) {
	f, found, err := ReadChangeFeed(ctx, r, feed.SQL, feed.Args...)
	if err != nil {
		return store.ChangePage{}, err
	}
	if !found {
		return store.ChangePage{}, store.ErrNotFound
	}
	p := store.ChangePage{From: f.From, Until: f.Until}
	if since.Before(f.From) {
		return p, nil
	}
	if _, err := scanOne(ctx, r, count.SQL, count.Args, &p.Total); err != nil {
		return store.ChangePage{}, err
	}
	var c store.CardChange
	var at sql.NullTime
	err = each(ctx, r, page.SQL, page.Args, []any{&c.ID, r.NullTime(&at), &c.Removed}, func() error {
		c.ChangedAt = at.Time
		p.Changes = append(p.Changes, c)
		return nil
	})
	if err != nil {
		return store.ChangePage{}, err
	}
	return p, nil
}
