package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/store"
)

// RunRemovals checks store.RemovalStore: the set each removed card left,
// kept per game, replaced by a later removal, forgotten before keepFrom,
// read for many ids at once. open returns a new store on a new, empty
// database.
func RunRemovals(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s store.Store)
	}{
		{"RecordAndLookup", testRemovalsRecord},
		{"Prune", testRemovalsPrune},
		{"ManyIDs", testRemovalsMany},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			if _, ok := s.(store.RemovalStore); !ok {
				t.Fatalf("%T is not a store.RemovalStore", s)
			}
			tt.test(t, s)
		})
	}
}

var removalDay = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)

func mustRecordRemovals(t *testing.T, s store.Store, game string, at time.Time, keepFrom time.Time, removals ...store.CardRemoval) {
	t.Helper()
	if err := s.(store.RemovalStore).RecordCardRemovals(context.Background(), game, at, removals, keepFrom); err != nil {
		t.Fatalf("RecordCardRemovals(%s, %d removals): %v", game, len(removals), err)
	}
}

func mustRemovedSets(t *testing.T, s store.Store, game string, ids ...string) map[string]string {
	t.Helper()
	sets, err := s.(store.RemovalStore).RemovedCardSets(context.Background(), game, ids)
	if err != nil {
		t.Fatalf("RemovedCardSets(%s, %d ids): %v", game, len(ids), err)
	}
	return sets
}

func testRemovalsRecord(t *testing.T, s store.Store) {
	if got := mustRemovedSets(t, s, "dbs"); got == nil || len(got) != 0 {
		t.Fatalf("RemovedCardSets of no ids = %#v, want an empty map", got)
	}
	mustRecordRemovals(t, s, "dbs", removalDay, time.Time{}) // none: nothing to write
	mustRecordRemovals(t, s, "dbs", removalDay, time.Time{}, store.CardRemoval{ID: "dbs_a", SetID: "1000"}, store.CardRemoval{ID: "dbs_b", SetID: "1001"})
	mustRecordRemovals(t, s, "pkm", removalDay, time.Time{}, store.CardRemoval{ID: "dbs_a", SetID: "sv1"})
	want := map[string]string{"dbs_a": "1000", "dbs_b": "1001"}
	if diff := cmp.Diff(want, mustRemovedSets(t, s, "dbs", "dbs_a", "dbs_b", "dbs_never")); diff != "" {
		t.Errorf("RemovedCardSets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"dbs_a": "sv1"}, mustRemovedSets(t, s, "pkm", "dbs_a", "dbs_b")); diff != "" {
		t.Errorf("another game's RemovedCardSets (-want +got):\n%s", diff)
	}
	// The card came back in another set and was removed again: its new set.
	mustRecordRemovals(t, s, "dbs", removalDay.Add(48*time.Hour), time.Time{}, store.CardRemoval{ID: "dbs_a", SetID: "1002"})
	want["dbs_a"] = "1002"
	if diff := cmp.Diff(want, mustRemovedSets(t, s, "dbs", "dbs_a", "dbs_b")); diff != "" {
		t.Errorf("RemovedCardSets after a second removal (-want +got):\n%s", diff)
	}
}

func testRemovalsPrune(t *testing.T, s store.Store) {
	day2, day3 := removalDay.Add(24*time.Hour), removalDay.Add(48*time.Hour)
	mustRecordRemovals(t, s, "dbs", removalDay, time.Time{}, store.CardRemoval{ID: "dbs_a", SetID: "1000"})
	mustRecordRemovals(t, s, "dbs", day2, time.Time{}, store.CardRemoval{ID: "dbs_b", SetID: "1000"})
	mustRecordRemovals(t, s, "pkm", removalDay, time.Time{}, store.CardRemoval{ID: "pkm_a", SetID: "sv1"})
	// Kept from day2: the first day's removal of dbs is forgotten, day2's
	// and day3's kept, another game's untouched; nothing new to write
	// still prunes.
	mustRecordRemovals(t, s, "dbs", day3, day2, store.CardRemoval{ID: "dbs_c", SetID: "1001"})
	if diff := cmp.Diff(map[string]string{"dbs_b": "1000", "dbs_c": "1001"}, mustRemovedSets(t, s, "dbs", "dbs_a", "dbs_b", "dbs_c")); diff != "" {
		t.Errorf("RemovedCardSets after a prune (-want +got):\n%s", diff)
	}
	if got := mustRemovedSets(t, s, "pkm", "pkm_a"); len(got) != 1 {
		t.Errorf("another game's removals after a prune: %v", got)
	}
	mustRecordRemovals(t, s, "dbs", day3, day3.Add(time.Microsecond))
	if got := mustRemovedSets(t, s, "dbs", "dbs_a", "dbs_b", "dbs_c"); len(got) != 0 {
		t.Errorf("RemovedCardSets after pruning all = %v", got)
	}
}

func testRemovalsMany(t *testing.T, s store.Store) {
	const n = 1234
	var removals []store.CardRemoval
	var ids []string
	want := map[string]string{}
	for i := range n {
		r := store.CardRemoval{ID: fmt.Sprintf("dbs_%016x", i), SetID: fmt.Sprint(1000 + i/200)}
		removals = append(removals, r)
		ids = append(ids, r.ID, fmt.Sprintf("dbs_%016x", n+i)) // and as many never removed
		want[r.ID] = r.SetID
	}
	mustRecordRemovals(t, s, "dbs", removalDay, time.Time{}, removals...)
	if diff := cmp.Diff(want, mustRemovedSets(t, s, "dbs", ids...)); diff != "" {
		t.Errorf("RemovedCardSets of %d ids (-want +got):\n%s", len(ids), diff)
	}
}
