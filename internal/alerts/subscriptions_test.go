package alerts_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/store/storetest"
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
