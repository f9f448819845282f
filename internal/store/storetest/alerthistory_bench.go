package storetest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// BenchEventsEnv names the environment variable that sizes
// BenchPruneAlertHistory.
const BenchEventsEnv = "CARDCAT_BENCH_EVENTS"

// BenchEvents is the number of events of BenchPruneAlertHistory:
// $CARDCAT_BENCH_EVENTS, 100,000 by default.
func BenchEvents(tb testing.TB) int {
	tb.Helper()
	s := os.Getenv(BenchEventsEnv)
	if s == "" {
		return 100_000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1000 {
		tb.Fatalf("%s=%q: want a number of events of at least 1000", BenchEventsEnv, s)
	}
	return n
}

// benchHistoryDays is how many days BenchPruneAlertHistory's history
// spans; its first prune keeps the last 10.
const benchHistoryDays = 40

// BenchPruneAlertHistory measures the prunes of a history of n events
// spread evenly over 40 days, as 1,000 alerts firing at each of n/1,000
// versions: each event delivered to a webhook after two attempts (a 503,
// then a 200), one in four emailed (sent), one delivery in a hundred left
// pending (kept, with its event). The first iteration prunes all but the
// last 10 days (a first prune after the upgrade, of 30 days at once), each
// next one a day more (the daily prune). Run it with -benchtime 1x for the
// first prune, or a few to see daily ones: it reports the rows deleted per
// second and the milliseconds per batch (the longest the SQLite writer,
// or a row lock, is held by the prune). s must be a Reopener (its Exec) to
// finish the deliveries and emails in bulk.
func BenchPruneAlertHistory(b *testing.B, s store.Store, n int) {
	ctx := context.Background()
	exec, ok := s.(Reopener)
	if !ok {
		b.Fatalf("%T cannot Exec", s)
	}
	acc := &account.Account{Email: "bench@example.com", Plan: account.Business, VerifiedAt: time.Now()}
	if err := s.(account.Store).CreateAccount(ctx, acc); err != nil {
		b.Fatal(err)
	}
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := s.(webhooks.Store).CreateEndpoint(ctx, ep, 1); err != nil {
		b.Fatal(err)
	}
	const perVersion = 1000
	as := s.(alerts.Store)
	alertList := make([]alerts.Alert, perVersion)
	for i := range alertList {
		a := &alertList[i]
		*a = alerts.Alert{AccountID: acc.ID, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
			Rule: alerts.Rule{Kind: alerts.Above, Cents: 100}, WebhookID: ep.ID, Email: i%4 == 0}
		if err := as.CreateAlert(ctx, a, perVersion); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	versions := n / perVersion
	step := benchHistoryDays * 24 * time.Hour / time.Duration(versions)
	loadStart := time.Now()
	evs := make([]alerts.Evaluation, perVersion)
	for v := 1; v <= versions; v++ {
		created := start.Add(time.Duration(v-1) * step)
		for i := range alertList {
			a := &alertList[i]
			e := alerts.NewTestEvent(acc.ID, ep.ID, a, int64(v), created)
			e.ID, e.Version, e.Test = alerts.EventID(a.ID, int64(v)), int64(v), false
			evs[i] = alerts.Evaluation{AlertID: a.ID, Armed: v%2 == 0, Price: catalog.Cents(150), Event: e, Email: a.Email, CardName: "Son Goku"}
		}
		if _, err := as.RecordEvaluations(ctx, int64(v), evs, 0); err != nil {
			b.Fatal(err)
		}
	}
	// The attempts and final states, in bulk: the same columns in both
	// dialects (an attempt's time is its delivery's creation's type).
	for _, q := range []string{
		`INSERT INTO webhook_attempts (delivery_id, n, at, status, duration_us, error, response)
	SELECT id, 1, created_at, 503, 120000, '', 'busy' FROM webhook_deliveries`,
		`INSERT INTO webhook_attempts (delivery_id, n, at, status, duration_us, error, response)
	SELECT id, 2, created_at, 200, 80000, '', 'ok' FROM webhook_deliveries`,
		`UPDATE webhook_deliveries SET state = CASE WHEN id % 100 = 0 THEN 'pending' ELSE 'delivered' END, attempts = 2`,
		`UPDATE alert_emails SET state = 'sent', attempts = 1, sent_at = created_at`,
		`ANALYZE`,
	} {
		if err := exec.Exec(ctx, q); err != nil {
			b.Fatalf("finish the history: %v", err)
		}
	}
	b.Logf("loaded %d events over %d days in %v", versions*perVersion, benchHistoryDays, time.Since(loadStart).Round(time.Millisecond))

	hs := s.(alerts.HistoryStore)
	cutoff := start.AddDate(0, 0, benchHistoryDays-10)
	var total alerts.Pruned
	var took time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		p, err := hs.PruneAlertHistory(ctx, cutoff, 0)
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		b.Logf("prune before %s: %d events, %d deliveries, %d attempts, %d emails in %d batches, %v (%.1f ms a batch)",
			cutoff.Format(time.DateOnly), p.Events, p.Deliveries, p.Attempts, p.Emails, p.Batches, d.Round(time.Millisecond),
			float64(d.Microseconds())/1000/float64(p.Batches))
		total.Add(p)
		took += d
		cutoff = cutoff.AddDate(0, 0, 1)
	}
	b.ReportMetric(float64(total.Rows())/took.Seconds(), "rows/s")
	b.ReportMetric(float64(took.Microseconds())/1000/float64(total.Batches), "ms/batch")
}
