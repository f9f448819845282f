package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/google/go-cmp/cmp"
)

// hashes makes card hashes from "id=n" pairs: n distinguishes the bodies.
func hashes(pairs map[string]byte) []catalog.CardHash {
	var hs []catalog.CardHash
	for id, n := range pairs {
		hs = append(hs, catalog.CardHash{ID: id, Hash: [catalog.BodyHashLen]byte{n}})
	}
	return hs
}

func mustRecord(t *testing.T, s store.Store, version int64, at time.Time, cards map[string]byte, keepFrom time.Time, want store.ChangeRecord) {
	t.Helper()
	got, err := s.RecordCardChanges(context.Background(), version, at, "mtg", hashes(cards), keepFrom)
	if err != nil {
		t.Fatalf("RecordCardChanges(v%d): %v", version, err)
	}
	if got != want {
		t.Errorf("RecordCardChanges(v%d) = %+v, want %+v", version, got, want)
	}
}

func checkChanges(t *testing.T, s store.Store, since time.Time, offset, limit int, want store.ChangePage) {
	t.Helper()
	got, err := s.CardChanges(context.Background(), "mtg", since, offset, limit)
	if err != nil {
		t.Fatalf("CardChanges(%s, %d, %d): %v", since, offset, limit, err)
	}
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Errorf("CardChanges(%s, %d, %d) (-want +got):\n%s", since, offset, limit, diff)
	}
}

func testCardChanges(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.CardChanges(ctx, "mtg", day1, 0, 10); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CardChanges before any record: %v, want ErrNotFound", err)
	}
	// Nanoseconds are cut: the times come back to the microsecond, in UTC.
	t1 := time.Date(2025, 1, 1, 12, 0, 0, 123456789, time.UTC)
	t2, t3, t4 := t1.Add(24*time.Hour), t1.Add(48*time.Hour), t1.Add(72*time.Hour)
	us := func(t time.Time) time.Time { return t.Truncate(time.Microsecond) }
	change := func(id string, at time.Time, removed bool) store.CardChange {
		return store.CardChange{ID: id, ChangedAt: us(at), Removed: removed}
	}

	// The first record reports nothing: the feed starts at its time.
	mustRecord(t, s, 1, t1, map[string]byte{"a": 1, "b": 1, "c": 1, "e": 1}, time.Time{}, store.ChangeRecord{})
	checkChanges(t, s, t1, 0, 10, store.ChangePage{From: us(t1), Until: us(t1)})
	checkChanges(t, s, t1.Add(-time.Second), 0, 10, store.ChangePage{From: us(t1), Until: us(t1)})
	if _, err := s.CardChanges(ctx, "dbs", t1, 0, 10); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CardChanges of a game never recorded: %v, want ErrNotFound", err)
	}

	// b changes, c goes, d comes, a and e stay.
	mustRecord(t, s, 2, t2, map[string]byte{"a": 1, "b": 2, "d": 1, "e": 1}, time.Time{}, store.ChangeRecord{Changed: 2, Removed: 1})
	// The same version again, or an older one, writes nothing.
	mustRecord(t, s, 2, t2, map[string]byte{"a": 9}, time.Time{}, store.ChangeRecord{})
	mustRecord(t, s, 1, t2, map[string]byte{"a": 9}, time.Time{}, store.ChangeRecord{})
	// a changes, e goes; c, removed before, is not removed again.
	mustRecord(t, s, 3, t3, map[string]byte{"a": 2, "b": 2, "d": 1}, time.Time{}, store.ChangeRecord{Changed: 1, Removed: 1})

	all := []store.CardChange{change("b", t2, false), change("c", t2, true), change("d", t2, false),
		change("a", t3, false), change("e", t3, true)}
	checkChanges(t, s, t1, 0, 10, store.ChangePage{From: us(t1), Until: us(t3), Total: 5, Changes: all})
	checkChanges(t, s, t1, 1, 2, store.ChangePage{From: us(t1), Until: us(t3), Total: 5, Changes: all[1:3]})
	checkChanges(t, s, t1, 5, 2, store.ChangePage{From: us(t1), Until: us(t3), Total: 5})
	checkChanges(t, s, t2, 0, 10, store.ChangePage{From: us(t1), Until: us(t3), Total: 2, Changes: all[3:]})
	// A since between two microseconds: the change of t2 is not after it.
	checkChanges(t, s, us(t2).Add(500*time.Nanosecond), 0, 10, store.ChangePage{From: us(t1), Until: us(t3), Total: 2, Changes: all[3:]})
	checkChanges(t, s, t3, 0, 10, store.ChangePage{From: us(t1), Until: us(t3)})

	// c comes back; the removals before keepFrom (c's is gone already, e's
	// at t3) are forgotten, and the feed starts at the newest of them.
	mustRecord(t, s, 4, t4, map[string]byte{"a": 2, "b": 2, "c": 3, "d": 1}, t3.Add(time.Hour), store.ChangeRecord{Changed: 1, Pruned: 1})
	checkChanges(t, s, t2, 0, 10, store.ChangePage{From: us(t3), Until: us(t4)})
	checkChanges(t, s, t3, 0, 10, store.ChangePage{From: us(t3), Until: us(t4), Total: 1, Changes: []store.CardChange{change("c", t4, false)}})
}
