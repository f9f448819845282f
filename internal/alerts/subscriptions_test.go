package alerts_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/store/storetest"
	"github.com/cardcat/cardcat/internal/synth"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// TestSubscriptionsWaitForTheVersionsChanges: a version whose change feed
// the ingest has not recorded yet leaves the subscriptions pending
// (ErrChangesNotRecorded, so that Run tries again), and once recorded they
// are told its changes, once.
func TestSubscriptionsWaitForTheVersionsChanges(t *testing.T) {
	defer alerts.SetChangesWait(50 * time.Millisecond)()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := game.Default()
	g, _ := reg.Get("dbs")
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	write := func(base int64, market int64, at time.Time, record bool) (int64, []catalog.GameCatalog) {
		gc := storetest.Generate("dbs", 3, day)
		gc.Cards[1].TCGPrices[0].Market = catalog.Cents(market)
		games := []catalog.GameCatalog{gc}
		v := storetest.MustReplace(t, st, base, games, "{}", at)
		if record {
			recordChanges(t, st, g, v, at, games)
		}
		return v, games
	}
	snapshot := func() *catalog.Snapshot {
		snap, err := catalog.NewSnapshot(storetest.MustLoad(t, st), reg)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	v, _ := write(0, 22, day, true)
	acc := &account.Account{Email: "a@example.com", Plan: account.Pro}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := st.CreateEndpoint(ctx, ep, 3); err != nil {
		t.Fatal(err)
	}
	sub := &alerts.Subscription{AccountID: acc.ID, WebhookID: ep.ID, Game: "dbs", SetID: "1000"}
	if err := alerts.CheckSubscription(sub, snapshot()); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateSubscription(ctx, sub, 10); err != nil {
		t.Fatal(err)
	}
	ev := &alerts.Evaluator{Alerts: st, Catalog: st, Subscriptions: st, Changes: st, Log: slog.New(slog.DiscardHandler)}
	if res, err := ev.Evaluate(ctx, snapshot()); err != nil || res.Subscriptions.Evaluated != 1 || res.Subscriptions.Fired != 0 {
		t.Fatalf("version %d: %+v, %v", v, res.Subscriptions, err)
	}

	at := day.Add(time.Hour)
	v, games := write(v, 99, at, false)
	snap := snapshot()
	res, err := ev.Evaluate(ctx, snap)
	if !errors.Is(err, alerts.ErrChangesNotRecorded) || res.Subscriptions.Evaluated != 0 {
		t.Fatalf("version %d before its changes are recorded: %+v, %v; want ErrChangesNotRecorded", v, res.Subscriptions, err)
	}
	if pending, err := st.PendingSubscriptions(ctx, v, 0, 10); err != nil || len(pending) != 1 {
		t.Fatalf("PendingSubscriptions = %+v, %v; want the subscription still pending", pending, err)
	}
	recordChanges(t, st, g, v, at, games)
	if res, err := ev.Evaluate(ctx, snap); err != nil || res.Subscriptions.Evaluated != 1 || res.Subscriptions.Fired != 1 {
		t.Fatalf("version %d once recorded: %+v, %v; want one event", v, res.Subscriptions, err)
	}
	if res, err := ev.Evaluate(ctx, snap); err != nil || res.Subscriptions.Evaluated != 0 {
		t.Fatalf("version %d again: %+v, %v", v, res.Subscriptions, err)
	}
}

func recordChanges(t *testing.T, st *sqlite.DB, g game.Game, v int64, at time.Time, games []catalog.GameCatalog) {
	t.Helper()
	hashes, err := catalog.CardBodyHashes(g, &games[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordCardChanges(context.Background(), v, at, games[0].Game, hashes, time.Time{}); err != nil {
		t.Fatal(err)
	}
}

// TestSubscriptionsTellRemovedCards: on real ingests (synth's mirror of
// 400 cards, then one of 380 a day later, which drops cards of several
// sets and moves prices), every set's subscription is told exactly the
// cards of its set whose detail body changed (updated) and the cards of
// the set that left the catalogue (removed, marked "removed": true as the
// change feed marks them, without name or prices), also for a set gone
// whole; a card list's subscription its removed and changed cards.
func TestSubscriptionsTellRemovedCards(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := game.Default()
	mirror := t.TempDir()
	day := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	ingestMirror := func(cards, d int) *catalog.Snapshot {
		t.Helper()
		if _, err := synth.Synthetic(ctx, synth.Options{Out: mirror, Replace: true, Seed: 11, Cards: cards, Day: d}); err != nil {
			t.Fatal(err)
		}
		rep, err := ingest.Run(ctx, st, ingest.DirSource{Dir: mirror}, reg, day.AddDate(0, 0, d), ingest.Options{ChangeDays: 90})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range rep.Games {
			t.Logf("version %d, %s: %d cards, %d changed, %d removed", rep.Version, g.Game, g.Cards, g.CardsChanged, g.CardsRemoved)
		}
		snap, err := catalog.NewSnapshot(storetest.MustLoad(t, st), reg)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	before := ingestMirror(400, 0)

	acc := &account.Account{Email: "a@example.com", Plan: account.Business}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := st.CreateEndpoint(ctx, ep, 3); err != nil {
		t.Fatal(err)
	}
	subscribe := func(s *alerts.Subscription) {
		t.Helper()
		s.AccountID, s.WebhookID = acc.ID, ep.ID
		if err := alerts.CheckSubscription(s, before); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateSubscription(ctx, s, 1000); err != nil {
			t.Fatal(err)
		}
	}
	// Every set of every game, and one card list per game: its first
	// three cards and its last (synth's smaller mirror drops cards from
	// the end of the catalogue).
	var subs []*alerts.Subscription
	for _, gs := range before.Games() {
		code := gs.Game().Code
		for _, set := range gs.Sets() {
			s := &alerts.Subscription{Game: code, SetID: set.ID}
			subscribe(s)
			subs = append(subs, s)
		}
		ids := cardIDs(gs)
		s := &alerts.Subscription{Game: code, Cards: []string{ids[0], ids[1], ids[2], ids[len(ids)-1]}}
		subscribe(s)
		subs = append(subs, s)
	}
	ev := &alerts.Evaluator{Alerts: st, Catalog: st, Subscriptions: st, Changes: st, Log: slog.New(slog.DiscardHandler)}
	if res, err := ev.Evaluate(ctx, before); err != nil || res.Subscriptions.Evaluated != len(subs) || res.Subscriptions.Fired != 0 {
		t.Fatalf("the first version: %+v, %v; want %d subscriptions evaluated, no event", res.Subscriptions, err, len(subs))
	}

	after := ingestMirror(380, 1)
	res, err := ev.Evaluate(ctx, after)
	if err != nil {
		t.Fatal(err)
	}
	got := subscriptionCards(t, st, acc.ID, after.Version)
	want := map[int64][]string{}
	removedSets, goneSets := 0, 0
	for _, s := range subs {
		gb, ga := before.Game(s.Game), after.Game(s.Game)
		watched := s.Cards
		if s.SetID != "" {
			watched = nil
			for _, g := range []*catalog.GameSnapshot{gb, ga} {
				if set, ok := g.SetByID(s.SetID); ok {
					first, end := set.Cards()
					for r := first; r < end; r++ {
						watched = append(watched, cardID(g, r))
					}
				}
			}
		}
		var cards []string
		removed := false
		for _, id := range watched {
			// A Cardmarket-only card linked in the new version has a new
			// id, found by its old one too: the old id was removed.
			rb, inBefore := gb.LookupCard(id)
			inBefore = inBefore && cardID(gb, rb) == id
			ra, inAfter := ga.LookupCard(id)
			inAfter = inAfter && cardID(ga, ra) == id
			switch {
			case !inAfter:
				cards = append(cards, id+":removed")
				removed = true
			case !inBefore || gb.CardJSON(rb) != ga.CardJSON(ra):
				cards = append(cards, id+":updated")
			}
		}
		slices.Sort(cards)
		cards = slices.Compact(cards) // a set's card kept is listed by both versions
		if len(cards) > 0 {
			want[s.ID] = cards
		}
		if removed && s.SetID != "" {
			removedSets++
			if _, ok := ga.SetByID(s.SetID); !ok {
				goneSets++
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("version %d's events, by subscription (-want +got):\n%s", after.Version, diff)
	}
	if res.Subscriptions.Fired != len(want) {
		t.Errorf("version %d: %d events, want %d", after.Version, res.Subscriptions.Fired, len(want))
	}
	if removedSets < 2 {
		t.Fatalf("synth's smaller mirror removed cards of %d sets: the test wants several", removedSets)
	}
	t.Logf("version %d: %d of %d subscriptions told, %d sets lost cards (%d of them gone whole)", after.Version, len(want), len(subs), removedSets, goneSets)
}

// cardIDs are the canonical ids of gs's cards, in the catalogue's order.
func cardIDs(gs *catalog.GameSnapshot) []string {
	var ids []string
	for _, set := range gs.Sets() {
		first, end := set.Cards()
		for r := first; r < end; r++ {
			ids = append(ids, cardID(gs, r))
		}
	}
	return ids
}

func cardID(gs *catalog.GameSnapshot, r catalog.CardRef) string {
	var p catalog.CardPrices
	gs.CardPrices(r, &p)
	return p.ID
}

// subscriptionCards reads the card.changed events of version from the
// store, by subscription: each card as "id:change", checking that a removed
// card is marked as the change feed marks it and has no name or prices, and
// an updated one has both.
func subscriptionCards(t *testing.T, st *sqlite.DB, accountID, version int64) map[int64][]string {
	t.Helper()
	evs, err := st.Events(context.Background(), accountID, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	for _, e := range evs {
		if e.Version != version {
			continue
		}
		var b struct {
			Type         string
			Subscription struct{ ID int64 }
			Cards        []struct {
				CardID  string `json:"card_id"`
				Change  string
				Removed *bool
				Name    string
				Prices  *json.RawMessage
			}
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Type != alerts.EventCardChanged {
			t.Fatalf("event %s of type %q", e.ID, b.Type)
		}
		for _, c := range b.Cards {
			got[b.Subscription.ID] = append(got[b.Subscription.ID], c.CardID+":"+c.Change)
			switch c.Change {
			case "removed":
				if c.Removed == nil || !*c.Removed || c.Name != "" || c.Prices != nil {
					t.Errorf("removed card %s: removed %v, name %q, prices %v; want removed true, neither", c.CardID, c.Removed, c.Name, c.Prices)
				}
			case "updated":
				if c.Removed != nil || c.Name == "" || c.Prices == nil {
					t.Errorf("updated card %s: removed %v, name %q, prices %v; want no removed, both", c.CardID, c.Removed, c.Name, c.Prices)
				}
			default:
				t.Errorf("card %s: change %q", c.CardID, c.Change)
			}
		}
	}
	for id := range got {
		if !slices.IsSorted(got[id]) {
			t.Errorf("subscription %d's cards are not by id: %v", id, got[id])
		}
	}
	return got
}
