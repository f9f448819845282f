package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
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

// RunSubscriptions checks alerts.SubscriptionStore, and with it the
// evaluation of card.changed subscriptions on a real store and its change
// feed: the limits and the checks, one batched event per subscription and
// version with exactly its changed cards (split past alerts.MaxEventCards),
// none for an unchanged version, none twice, a version not evaluated told
// with the next one, and the subscriptions going with their endpoint and
// their account. open returns a new store on a new, empty database.
func RunSubscriptions(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s store.Store)
	}{
		{"CreateAndLimits", testSubscriptionsCreate},
		{"OneBatchPerVersion", testSubscriptionsEvents},
		{"DeleteEndpointAndAccount", testSubscriptionsDelete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			if _, ok := s.(alerts.SubscriptionStore); !ok {
				t.Fatalf("%T is not an alerts.SubscriptionStore", s)
			}
			tt.test(t, s)
		})
	}
}

// subscriptionDay is when the prices of subscriptionCatalogue were
// updated: the same in every version, so that a card's body changes only
// with its price.
var subscriptionDay = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)

// subscriptionCatalogue is a dbs catalogue of n cards (200 a set) and a
// pkm one of 3, each dbs card's TCGplayer Normal market price changed by
// bump (by index), the cards of removed left out.
func subscriptionCatalogue(n int, bump map[int]int64, removed ...int) []catalog.GameCatalog {
	at := subscriptionDay
	g := Generate("dbs", n, at)
	for i, d := range bump {
		g.Cards[i].TCGPrices[0].Market = catalog.Cents(22 + d)
	}
	slices.Sort(removed)
	for _, i := range slices.Backward(removed) {
		g.Cards = slices.Delete(g.Cards, i, i+1)
	}
	return []catalog.GameCatalog{g, Generate("pkm", 3, at)}
}

// recordVersion writes games as the next version at at and records its
// change feed, as an ingest does.
func recordVersion(t *testing.T, s store.Store, base int64, games []catalog.GameCatalog, at time.Time) int64 {
	t.Helper()
	v := MustReplace(t, s, base, games, "{}", at)
	reg := game.Default()
	for i := range games {
		g, _ := reg.Get(games[i].Game)
		hashes, err := catalog.CardBodyHashes(g, &games[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordCardChanges(context.Background(), v, at, games[i].Game, hashes, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func mustSnapshot(t *testing.T, s store.Store) *catalog.Snapshot {
	t.Helper()
	snap, err := catalog.NewSnapshot(MustLoad(t, s), game.Default())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func newSubscriptionEndpoint(t *testing.T, s store.Store, acc int64, url, secret string) *webhooks.Endpoint {
	t.Helper()
	ep := &webhooks.Endpoint{AccountID: acc, URL: url, Secret: secret}
	if err := s.(webhooks.Store).CreateEndpoint(context.Background(), ep, 5); err != nil {
		t.Fatal(err)
	}
	return ep
}

func testSubscriptionsCreate(t *testing.T, s store.Store) {
	ctx := context.Background()
	ss := s.(alerts.SubscriptionStore)
	day := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	recordVersion(t, s, 0, subscriptionCatalogue(450, nil), day)
	snap := mustSnapshot(t, s)
	dbs := Generate("dbs", 450, day).Cards
	pkm := Generate("pkm", 1, day).Cards[0].ID
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	ep := newSubscriptionEndpoint(t, s, acc, "https://example.com/hook", webhooks.NewSecret())

	many := make([]string, alerts.MaxSubscriptionCards+1)
	for i := range many {
		many[i] = catalog.TCGCardID("dbs", 900000+i)
	}
	for _, tt := range []struct {
		sub  alerts.Subscription
		want string
	}{
		{alerts.Subscription{Game: "xyz", SetID: "1000"}, `no game "xyz"`},
		{alerts.Subscription{Game: "dbs", SetID: "9999"}, `no set "9999" in dbs`},
		{alerts.Subscription{Game: "dbs"}, "give a set or a list of cards"},
		{alerts.Subscription{Game: "dbs", SetID: "1000", Cards: []string{dbs[0].ID}}, "not both"},
		{alerts.Subscription{Game: "dbs", Cards: []string{"dbs_00000000000000ff"}}, `no card "dbs_00000000000000ff" in dbs`},
		{alerts.Subscription{Game: "dbs", Cards: []string{dbs[0].ID, pkm}}, "is a pkm card, not a dbs card"},
		{alerts.Subscription{Game: "dbs", Cards: many}, "more than a subscription watches: at most 1000"},
	} {
		sub := tt.sub
		if err := alerts.CheckSubscription(&sub, snap); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckSubscription(%s, %q, %d cards) = %v, want %q", tt.sub.Game, tt.sub.SetID, len(tt.sub.Cards), err, tt.want)
		}
	}
	list := alerts.Subscription{AccountID: acc, WebhookID: ep.ID, Game: "dbs", Cards: []string{" " + dbs[3].ID, dbs[300].ID, dbs[3].ID}}
	if err := alerts.CheckSubscription(&list, snap); err != nil {
		t.Fatal(err)
	}
	if want := []string{dbs[3].ID, dbs[300].ID}; !slices.Equal(list.Cards, want) {
		t.Fatalf("checked cards %q, want %q (trimmed, without the duplicate)", list.Cards, want)
	}
	set := alerts.Subscription{AccountID: acc, WebhookID: ep.ID, Game: "dbs", SetID: "1001"}
	for _, sub := range []*alerts.Subscription{&set, &list} {
		if err := ss.CreateSubscription(ctx, sub, 2); err != nil || sub.ID == 0 {
			t.Fatalf("CreateSubscription: %v", err)
		}
	}
	third := set
	if err := ss.CreateSubscription(ctx, &third, 2); !errors.Is(err, alerts.ErrLimit) {
		t.Fatalf("a third subscription over a limit of 2: %v, want ErrLimit", err)
	}
	foreign := set
	foreign.AccountID = other
	if err := ss.CreateSubscription(ctx, &foreign, 10); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("a subscription on another account's webhook: %v, want ErrNotFound", err)
	}
	got, err := ss.Subscriptions(ctx, acc)
	if err != nil {
		t.Fatal(err)
	}
	want := []alerts.Subscription{set, list}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Subscriptions (-want +got):\n%s", diff)
	}
	if got, err := ss.Subscriptions(ctx, other); err != nil || len(got) != 0 {
		t.Fatalf("another account's Subscriptions = %+v, %v", got, err)
	}
	if err := ss.DeleteSubscription(ctx, other, set.ID); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("deleting another account's subscription: %v, want ErrNotFound", err)
	}
	if err := ss.DeleteSubscription(ctx, acc, set.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := ss.Subscriptions(ctx, acc); err != nil || len(got) != 1 || got[0].ID != list.ID {
		t.Fatalf("Subscriptions after a deletion = %+v, %v", got, err)
	}
	if got, err := ss.PendingSubscriptions(ctx, 1, 0, 10); err != nil || len(got) != 1 || got[0].ID != list.ID {
		t.Fatalf("PendingSubscriptions = %+v, %v", got, err)
	}
}

// changedEvent is a card.changed event as a receiver reads it.
type changedEvent struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	Version      int64  `json:"catalogue_version"`
	Game         string `json:"game"`
	Subscription struct {
		ID    int64    `json:"id"`
		SetID string   `json:"set_id"`
		Cards []string `json:"cards"`
	} `json:"subscription"`
	Part  int `json:"part"`
	Parts int `json:"parts"`
	Cards []struct {
		CardID string `json:"card_id"`
		Change string `json:"change"`
		Name   string `json:"name"`
		Prices *struct {
			TCG []struct {
				Variant string   `json:"variant"`
				Market  *float64 `json:"market"`
			} `json:"tcg"`
		} `json:"prices"`
	} `json:"cards"`
}

func testSubscriptionsEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	ss := s.(alerts.SubscriptionStore)
	const n = 700
	day := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	v := recordVersion(t, s, 0, subscriptionCatalogue(n, nil), day)
	dbs := Generate("dbs", n, day).Cards
	acc := newAlertAccount(t, s, "a@example.com")
	rc, url := newReceiver(t, 0)
	ep := newSubscriptionEndpoint(t, s, acc, url, rc.secret)
	ids := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, dbs[i].ID)
		}
		return out
	}
	first600 := make([]int, 600)
	for i := range first600 {
		first600[i] = i
	}
	set := alerts.Subscription{AccountID: acc, WebhookID: ep.ID, Game: "dbs", SetID: "1000"} // cards 0 to 199
	short := alerts.Subscription{AccountID: acc, WebhookID: ep.ID, Game: "dbs", Cards: ids(5, 300, 699)}
	long := alerts.Subscription{AccountID: acc, WebhookID: ep.ID, Game: "dbs", Cards: ids(first600...)}
	snap := mustSnapshot(t, s)
	for _, sub := range []*alerts.Subscription{&set, &short, &long} {
		if err := alerts.CheckSubscription(sub, snap); err != nil {
			t.Fatal(err)
		}
		if err := ss.CreateSubscription(ctx, sub, 10); err != nil {
			t.Fatal(err)
		}
	}
	ev := &alerts.Evaluator{Alerts: s.(alerts.Store), Catalog: s, Subscriptions: ss, Changes: s, Log: slog.New(slog.DiscardHandler), Batch: 2,
		Lock: func(ctx context.Context) (func(), bool, error) { return s.(store.Locker).TryLock(ctx, alerts.LockName) }}
	w := newTestWorker(s, time.Now)
	// received is what the receiver got since the last call: by
	// subscription, each event's cards and changes ("id:change").
	seen := 0
	received := func() (map[int64][][]string, []changedEvent) {
		t.Helper()
		drain(t, w)
		rc.mu.Lock()
		bodies := rc.bodies[seen:]
		seen = len(rc.bodies)
		rc.mu.Unlock()
		out := map[int64][][]string{}
		var evs []changedEvent
		for _, b := range bodies {
			var e changedEvent
			if err := json.Unmarshal([]byte(b), &e); err != nil {
				t.Fatal(err)
			}
			var cards []string
			for _, c := range e.Cards {
				cards = append(cards, c.CardID+":"+c.Change)
			}
			out[e.Subscription.ID] = append(out[e.Subscription.ID], cards)
			evs = append(evs, e)
		}
		return out, evs
	}
	evaluate := func(version int64, wantFired int) {
		t.Helper()
		snap := mustSnapshot(t, s)
		if snap.Version != version {
			t.Fatalf("snapshot of version %d, want %d", snap.Version, version)
		}
		res, err := ev.Evaluate(ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		if res.Subscriptions.Evaluated != 3 || res.Subscriptions.Fired != wantFired || res.Subscriptions.Queued != wantFired {
			t.Fatalf("version %d: %+v, want 3 subscriptions evaluated and %d events queued", version, res.Subscriptions, wantFired)
		}
		// The same version again (another replica, a restart): nothing.
		if res, err := ev.Evaluate(ctx, snap); err != nil || res.Subscriptions.Evaluated != 0 || res.Subscriptions.Fired != 0 {
			t.Fatalf("version %d evaluated twice: %+v, %v", version, res.Subscriptions, err)
		}
	}
	upd := func(is ...int) []string {
		var out []string
		for _, id := range ids(is...) {
			out = append(out, id+":updated")
		}
		slices.Sort(out)
		return out
	}
	sorted := func(xs []string) []string { slices.Sort(xs); return xs }

	// The first version: the feed starts, nothing changed.
	evaluate(v, 0)
	if got, _ := received(); len(got) != 0 {
		t.Fatalf("the first version sent %v", got)
	}

	// Cards 5 and 6 (set 1000), 300 (set 1001) changed, 699 removed.
	at := day.Add(24 * time.Hour)
	v = recordVersion(t, s, v, subscriptionCatalogue(n, map[int]int64{5: 1, 6: 1, 300: 1}, 699), at)
	evaluate(v, 3)
	got, evs := received()
	want := map[int64][][]string{
		set.ID:   {upd(5, 6)},
		short.ID: {sorted(append(upd(5, 300), dbs[699].ID+":removed"))},
		long.ID:  {upd(5, 6, 300)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("version %d's events (-want +got):\n%s", v, diff)
	}
	for _, e := range evs {
		if e.Type != alerts.EventCardChanged || e.Version != v || e.Game != "dbs" || e.Part != 1 || e.Parts != 1 {
			t.Errorf("event %+v", e)
		}
		if e.Subscription.ID == set.ID && (e.Subscription.SetID != "1000" || e.Subscription.Cards != nil) {
			t.Errorf("set subscription's event names %+v", e.Subscription)
		}
		if e.Subscription.ID == short.ID && !slices.Equal(e.Subscription.Cards, short.Cards) {
			t.Errorf("card list's event names %+v", e.Subscription)
		}
		c := e.Cards[0]
		if c.Name == "" || c.Prices == nil || len(c.Prices.TCG) != 2 || c.Prices.TCG[0].Variant != "Normal" || c.Prices.TCG[0].Market == nil || *c.Prices.TCG[0].Market != 0.23 {
			t.Errorf("updated card %+v", c)
		}
	}

	// The same catalogue again: a new version, nothing changed, no event.
	at = at.Add(24 * time.Hour)
	v = recordVersion(t, s, v, subscriptionCatalogue(n, map[int]int64{5: 1, 6: 1, 300: 1}, 699), at)
	evaluate(v, 0)
	if got, _ := received(); len(got) != 0 {
		t.Fatalf("an unchanged version sent %v", got)
	}

	// Every card changed: the set's 200 in one event, the long list's 600
	// in two (500 and 100), the short list's two left.
	bump := map[int]int64{}
	for i := range n {
		bump[i] = 2
	}
	at = at.Add(24 * time.Hour)
	v = recordVersion(t, s, v, subscriptionCatalogue(n, bump, 699), at)
	evaluate(v, 4)
	got, evs = received()
	if len(got[set.ID]) != 1 || len(got[set.ID][0]) != 200 || len(got[short.ID]) != 1 || len(got[short.ID][0]) != 2 || len(got[long.ID]) != 2 {
		t.Fatalf("version %d: events of %d, %d, %d", v, len(got[set.ID]), len(got[short.ID]), len(got[long.ID]))
	}
	var parts []int
	var all []string
	for _, e := range evs {
		if e.Subscription.ID == long.ID {
			parts = append(parts, e.Part, e.Parts, len(e.Cards))
			for _, c := range e.Cards {
				all = append(all, c.CardID)
			}
		}
	}
	if len(all) != 600 || !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != 600 {
		t.Fatalf("the long list's events hold %d cards, want its 600 once each, by id", len(all))
	}
	if !(slices.Equal(parts, []int{1, 2, 500, 2, 2, 100}) || slices.Equal(parts, []int{2, 2, 100, 1, 2, 500})) {
		t.Fatalf("the long list's parts (part, parts, cards) = %v", parts)
	}

	// Two versions, the first never evaluated (every replica down): the
	// second's event tells both's changes, once.
	at = at.Add(24 * time.Hour)
	bump[7] = 3
	v = recordVersion(t, s, v, subscriptionCatalogue(n, bump, 699), at)
	at = at.Add(24 * time.Hour)
	bump[8] = 3
	v = recordVersion(t, s, v, subscriptionCatalogue(n, bump, 699), at)
	evaluate(v, 2)
	got, _ = received()
	want = map[int64][][]string{set.ID: {upd(7, 8)}, long.ID: {upd(7, 8)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("versions %d and %d's events (-want +got):\n%s", v-1, v, diff)
	}
	if events, deliveries := rc.counts(); events != deliveries || events != 9 {
		t.Fatalf("%d events in %d deliveries, want 9 once each", events, deliveries)
	}
	// Kept as the account's events, of the subscription.
	evts, err := s.(alerts.Store).Events(ctx, acc, 100)
	if err != nil || len(evts) != 9 {
		t.Fatalf("Events = %d, %v; want 9", len(evts), err)
	}
}

func testSubscriptionsDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	ss := s.(alerts.SubscriptionStore)
	day := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	v := recordVersion(t, s, 0, subscriptionCatalogue(10, nil), day)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	rc, url := newReceiver(t, 0)
	keep := newSubscriptionEndpoint(t, s, acc, url, rc.secret)
	gone := newSubscriptionEndpoint(t, s, acc, "https://example.com/gone", webhooks.NewSecret())
	otherEP := newSubscriptionEndpoint(t, s, other, url, rc.secret)
	for _, sub := range []alerts.Subscription{
		{AccountID: acc, WebhookID: keep.ID, Game: "dbs", SetID: "1000"},
		{AccountID: acc, WebhookID: gone.ID, Game: "dbs", SetID: "1000"},
		{AccountID: other, WebhookID: otherEP.ID, Game: "dbs", SetID: "1000"},
	} {
		if err := ss.CreateSubscription(ctx, &sub, 10); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.(webhooks.Store).DeleteEndpoint(ctx, acc, gone.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := ss.Subscriptions(ctx, acc); err != nil || len(got) != 1 || got[0].WebhookID != keep.ID {
		t.Fatalf("Subscriptions after deleting an endpoint = %+v, %v", got, err)
	}
	// A change, evaluated and queued, not delivered yet: the account's
	// deletion takes its subscriptions, its events and their deliveries.
	at := day.Add(time.Hour)
	recordVersion(t, s, v, subscriptionCatalogue(10, map[int]int64{1: 1}), at)
	ev := &alerts.Evaluator{Alerts: s.(alerts.Store), Catalog: s, Subscriptions: ss, Changes: s, Log: slog.New(slog.DiscardHandler)}
	if res, err := ev.Evaluate(ctx, mustSnapshot(t, s)); err != nil || res.Subscriptions.Fired != 2 {
		t.Fatalf("Evaluate = %+v, %v; want 2 events", res.Subscriptions, err)
	}
	if err := s.(account.Store).DeleteAccount(ctx, acc, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, err := ss.Subscriptions(ctx, acc); err != nil || len(got) != 0 {
		t.Fatalf("a deleted account's Subscriptions = %+v, %v", got, err)
	}
	if got, err := ss.Subscriptions(ctx, other); err != nil || len(got) != 1 {
		t.Fatalf("the other account's Subscriptions = %+v, %v", got, err)
	}
	if n := drain(t, newTestWorker(s, time.Now)); n != 1 {
		t.Fatalf("%d deliveries after the account's deletion, want the other account's 1", n)
	}
}
