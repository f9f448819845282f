package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// RunRemovals checks store.RemovalStore, and with it what a set's
// card.changed subscription is told of the cards that left the set: the
// set each removed card left, kept per game, replaced by a later removal,
// forgotten before keepFrom, read for many ids at once; and, evaluated on a
// real store as ingest records versions, a set's subscription told its
// removed cards beside its changed ones (also when the set is gone whole),
// a card list's its removed cards, a version not evaluated told with the
// next. open returns a new store on a new, empty database.
func RunRemovals(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s store.Store)
	}{
		{"RecordAndLookup", testRemovalsRecord},
		{"Prune", testRemovalsPrune},
		{"ManyIDs", testRemovalsMany},
		{"SetSubscriptionsToldOfRemovals", testRemovalsSubscriptions},
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

// removalCatalogue is a dbs catalogue of n cards (200 a set, as Generate
// makes them) without the cards of removed, and a set without cards left
// out; each card of bump has its TCGplayer Normal market price moved by
// its value.
func removalCatalogue(n int, bump map[int]int64, removed ...int) []catalog.GameCatalog {
	g := Generate("dbs", n, removalDay)
	for i, d := range bump {
		g.Cards[i].TCGPrices[0].Market = catalog.Cents(22 + d)
	}
	slices.Sort(removed)
	for _, i := range slices.Backward(removed) {
		g.Cards = slices.Delete(g.Cards, i, i+1)
	}
	g.Sets = slices.DeleteFunc(g.Sets, func(set catalog.Set) bool {
		return !slices.ContainsFunc(g.Cards, func(c catalog.Card) bool { return c.SetID == set.ID })
	})
	return []catalog.GameCatalog{g}
}

// recordIngest writes next as the next version at at as ingest does: the
// sets of the cards it removes from the stored catalogue first, then the
// version, then its change feed.
func recordIngest(t *testing.T, s store.Store, base int64, next []catalog.GameCatalog, at time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	prev := MustLoad(t, s)
	for i := range next {
		mustRecordRemovals(t, s, next[i].Game, at, time.Time{}, store.Removals(prev.Game(next[i].Game), &next[i])...)
	}
	v := MustReplace(t, s, base, next, "{}", at)
	for i := range next {
		g, _ := game.Default().Get(next[i].Game)
		hashes, err := catalog.CardBodyHashes(g, &next[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordCardChanges(ctx, v, at, next[i].Game, hashes, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func testRemovalsSubscriptions(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 450 // sets 1000 (cards 0-199), 1001 (200-399), 1002 (400-449)
	dbs := Generate("dbs", n, removalDay).Cards
	at := removalDay
	v := recordIngest(t, s, 0, removalCatalogue(n, nil), at)
	acc := &account.Account{Email: "a@example.com", Plan: account.Pro}
	if err := s.(account.Store).CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := s.(webhooks.Store).CreateEndpoint(ctx, ep, 5); err != nil {
		t.Fatal(err)
	}
	snapshot := func() *catalog.Snapshot {
		t.Helper()
		snap, err := catalog.NewSnapshot(MustLoad(t, s), game.Default())
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	subs := map[string]*alerts.Subscription{
		"1000": {SetID: "1000"}, "1001": {SetID: "1001"}, "1002": {SetID: "1002"},
		"list": {Cards: []string{dbs[5].ID, dbs[420].ID, dbs[10].ID}},
	}
	snap := snapshot()
	for _, sub := range subs {
		sub.AccountID, sub.WebhookID, sub.Game = acc.ID, ep.ID, "dbs"
		if err := alerts.CheckSubscription(sub, snap); err != nil {
			t.Fatal(err)
		}
		if err := s.(alerts.SubscriptionStore).CreateSubscription(ctx, sub, 10); err != nil {
			t.Fatal(err)
		}
	}
	ev := &alerts.Evaluator{Alerts: s.(alerts.Store), Catalog: s, Subscriptions: s.(alerts.SubscriptionStore), Changes: s,
		Log: slog.New(slog.DiscardHandler)}
	evaluate := func() map[string][]string {
		t.Helper()
		snap := snapshot()
		if _, err := ev.Evaluate(ctx, snap); err != nil {
			t.Fatal(err)
		}
		return removalEvents(t, s, acc.ID, snap.Version, subs)
	}
	if got := evaluate(); len(got) != 0 {
		t.Fatalf("the first version's events: %v", got)
	}
	cards := func(change string, is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, dbs[i].ID+":"+change)
		}
		return out
	}
	sorted := func(parts ...[]string) []string { return slices.Sorted(slices.Values(slices.Concat(parts...))) }

	// Cards 5 and 6 of set 1000 removed, 7 changed; set 1002 gone whole.
	var all1002 []int
	for i := 400; i < n; i++ {
		all1002 = append(all1002, i)
	}
	at = at.Add(24 * time.Hour)
	v = recordIngest(t, s, v, removalCatalogue(n, map[int]int64{7: 1}, slices.Concat([]int{5, 6}, all1002)...), at)
	want := map[string][]string{
		"1000": sorted(cards("removed", 5, 6), cards("updated", 7)),
		"1002": sorted(cards("removed", all1002...)),
		"list": sorted(cards("removed", 5, 420)),
	}
	if diff := cmp.Diff(want, evaluate()); diff != "" {
		t.Errorf("version %d's events (-want +got):\n%s", v, diff)
	}

	// Two versions, the first never evaluated: card 8 removed in the
	// first, 9 in the second, 11 changed: told once, with the second.
	at = at.Add(24 * time.Hour)
	v = recordIngest(t, s, v, removalCatalogue(n, map[int]int64{7: 1}, slices.Concat([]int{5, 6, 8}, all1002)...), at)
	at = at.Add(24 * time.Hour)
	v = recordIngest(t, s, v, removalCatalogue(n, map[int]int64{7: 1, 11: 2}, slices.Concat([]int{5, 6, 8, 9}, all1002)...), at)
	want = map[string][]string{"1000": sorted(cards("removed", 8, 9), cards("updated", 11))}
	if diff := cmp.Diff(want, evaluate()); diff != "" {
		t.Errorf("versions %d and %d's events (-want +got):\n%s", v-1, v, diff)
	}
}

// removalEvents are the card.changed events of version, by the name of
// their subscription in subs: each card as "id:change". A removed card
// must be marked as the change feed marks it and have no name or prices.
func removalEvents(t *testing.T, s store.Store, accountID, version int64, subs map[string]*alerts.Subscription) map[string][]string {
	t.Helper()
	evs, err := s.(alerts.Store).Events(context.Background(), accountID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	names := map[int64]string{}
	for name, sub := range subs {
		names[sub.ID] = name
	}
	got := map[string][]string{}
	for _, e := range evs {
		if e.Version != version {
			continue
		}
		var b struct {
			Subscription struct{ ID int64 }
			Cards        []struct {
				CardID  string `json:"card_id"`
				Change  string
				Removed *bool
				Name    string
				Prices  json.RawMessage
			}
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		name := names[b.Subscription.ID]
		for _, c := range b.Cards {
			got[name] = append(got[name], c.CardID+":"+c.Change)
			removed := c.Removed != nil && *c.Removed
			if removed != (c.Change == "removed") || removed && (c.Name != "" || c.Prices != nil) || !removed && c.Removed != nil {
				t.Errorf("subscription %s, card %s: change %q, removed %v, name %q, prices %s", name, c.CardID, c.Change, c.Removed, c.Name, c.Prices)
			}
		}
	}
	return got
}
