package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// TestPruneAlertHistoryRacesResend: a resend of an old delivered delivery,
// committed while a prune deletes the batch that holds it (the prune has
// read it delivered, deleted its attempts, and waits on the resend's row
// lock to delete it), keeps the event, the delivery, now pending, and its
// attempts: the delete re-checks the state, the batch is rolled back, and
// read again it finds the event unfinished.
func TestPruneAlertHistoryRacesResend(t *testing.T) {
	ctx := context.Background()
	db := openInNewSchema(t)
	acc := &account.Account{Email: "race@example.com", Plan: account.Pro}
	if err := db.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := db.CreateEndpoint(ctx, ep, 1); err != nil {
		t.Fatal(err)
	}
	a := &alerts.Alert{AccountID: acc.ID, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 100}, WebhookID: ep.ID}
	if err := db.CreateAlert(ctx, a, 1); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	created := now.AddDate(0, 0, -40)
	e := alerts.NewTestEvent(acc.ID, ep.ID, a, 1, created)
	e.ID, e.Version, e.Test = alerts.EventID(a.ID, 1), 1, false
	if _, err := db.RecordEvaluations(ctx, 1, []alerts.Evaluation{{AlertID: a.ID, Event: e}}, 0); err != nil {
		t.Fatal(err)
	}
	d, err := db.ClaimDelivery(ctx, created, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishDelivery(ctx, d, webhooks.Attempt{N: 1, At: created, Status: 200}, webhooks.Delivered, time.Time{}); err != nil {
		t.Fatal(err)
	}

	// The resend's transaction holds the delivery's row (ResendDelivery's
	// FOR UPDATE) while the prune runs.
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	resend, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer resend.Rollback(ctx)
	if _, err := resend.Exec(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE`, d.ID); err != nil {
		t.Fatal(err)
	}
	type result struct {
		p   alerts.Pruned
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := db.PruneAlertHistory(ctx, now.AddDate(0, 0, -30), 0)
		done <- result{p, err}
	}()
	for waiting := 0; waiting == 0; {
		if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
	WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM webhook_deliveries%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-done:
			t.Fatalf("the prune ended without waiting for the resend: %+v, %v", r.p, r.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := resend.Exec(ctx, `UPDATE webhook_deliveries SET state = 'pending', next_at = $2, resent_at = $2, resent_after = attempts
	WHERE id = $1`, d.ID, now); err != nil {
		t.Fatal(err)
	}
	if err := resend.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.p.Rows() != 0 {
		t.Fatalf("PruneAlertHistory racing a resend = %+v, %v; want nothing deleted", r.p, r.err)
	}
	ds, err := db.Deliveries(ctx, e.ID)
	if err != nil || len(ds) != 1 || ds[0].State != webhooks.Pending {
		t.Fatalf("the resent delivery after the prune: %+v, %v; want it pending", ds, err)
	}
	if as, err := db.Attempts(ctx, d.ID); err != nil || len(as) != 1 {
		t.Fatalf("the resent delivery's attempts after the prune: %+v, %v; want its first", as, err)
	}
}
