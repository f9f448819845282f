package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// TestServePrunesAlertHistory: serve prunes the alerts' history at its
// start (after a delay, shortened here) with the default 30 days: of an
// alert's two events that sent nowhere, the 40-day-old one goes and the
// day-old one stays; the prune is logged with what it deleted and counted
// in cardcat_alert_history_pruned_total.
func TestServePrunesAlertHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	acc := &account.Account{Email: "ann@example.com", Plan: account.Pro}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	a := &alerts.Alert{AccountID: acc.ID, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 1}}
	if err := st.CreateAlert(ctx, a, 10); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for v, created := range []time.Time{now.AddDate(0, 0, -40), now.AddDate(0, 0, -1)} {
		e := alerts.NewTestEvent(acc.ID, 0, a, int64(v+1), created)
		e.ID, e.Version, e.Test = alerts.EventID(a.ID, int64(v+1)), int64(v+1), false
		if _, err := st.RecordEvaluations(ctx, int64(v+1), []alerts.Evaluation{{AlertID: a.ID, Event: e}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	s := startServeCfg(t, []string{"--data-dir", dir, "--admin-addr", "127.0.0.1:0"},
		func(c *serveConfig) { c.alertHistoryFirst = 10 * time.Millisecond })
	admin := adminURL(t, s)
	poll(t, 10*time.Second, 20*time.Millisecond, "no prune of the alert history logged", func() bool {
		return strings.Contains(s.stderr.String(), `msg="alert history pruned"`)
	})
	var line string
	for _, l := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(l, `msg="alert history pruned"`) {
			line = l
		}
	}
	for _, want := range []string{"job=alert-history", "events=1 ", "deliveries=0", "batches=1"} {
		if !strings.Contains(line, want) {
			t.Errorf("the prune's log line lacks %s: %s", want, line)
		}
	}
	fams := scrape(t, admin)
	wantMetric(t, fams, 1, "cardcat_alert_history_pruned_total", "table", "events")
	wantMetric(t, fams, 0, "cardcat_alert_history_pruned_total", "table", "attempts")
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	st, err = sqlite.Open(ctx, filepath.Join(dir, "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(ctx, acc.ID, 10)
	if err != nil || len(evs) != 1 || evs[0].ID != alerts.EventID(a.ID, 2) {
		t.Errorf("events after serve's prune: %d (%v), want the day-old one", len(evs), err)
	}
}
