package storetest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// BenchAlertsEnv names the environment variable that sizes
// BenchAlertEvaluation.
const BenchAlertsEnv = "CARDCAT_BENCH_ALERTS"

// BenchAlerts is the number of alerts of BenchAlertEvaluation:
// $CARDCAT_BENCH_ALERTS, 100,000 by default.
func BenchAlerts(tb testing.TB) int {
	tb.Helper()
	s := os.Getenv(BenchAlertsEnv)
	if s == "" {
		return 100_000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive number of alerts", BenchAlertsEnv, s)
	}
	return n
}

// BenchAlertsMovedEnv names the environment variable that says which
// share of the cards BenchAlertEvaluation moves.
const BenchAlertsMovedEnv = "CARDCAT_BENCH_ALERTS_MOVED"

// benchMoved is $CARDCAT_BENCH_ALERTS_MOVED, a percentage, 10 by default.
func benchMoved(tb testing.TB) int {
	tb.Helper()
	s := os.Getenv(BenchAlertsMovedEnv)
	if s == "" {
		return 10
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 100 {
		tb.Fatalf("%s=%q: want a percentage of the cards", BenchAlertsMovedEnv, s)
	}
	return n
}

// BenchAlertEvaluation measures one evaluation of n alerts against a new
// catalogue version of cards cards (a snapshot of Generate's catalogue) in
// which a tenth of the cards ($CARDCAT_BENCH_ALERTS_MOVED percent) moved:
// their TCGplayer market and Cardmarket
// trend cross the thresholds of the alerts on them, so those fire (and half
// of them queue a delivery). The alerts are spread over the cards, a third
// each "above" on TCGplayer's Normal, "below" and "move 10%" on
// Cardmarket's normal. A first, untimed evaluation reads every alert's
// first price; then each iteration is a new version, the moved prices
// going back and forth, so that every other iteration re-arms what the one
// before fired. Run it with -benchtime 1x or a few: it reports alerts/s,
// ns/alert and the events fired per evaluation. s must be a Reopener (its Exec)
// to load the alerts in bulk.
func BenchAlertEvaluation(b *testing.B, s store.Store, cards, n int) {
	ctx := context.Background()
	as := s.(alerts.Store)
	day := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	acc := &account.Account{Email: "bench@example.com", Plan: account.Business}
	if err := s.(account.Store).CreateAccount(ctx, acc); err != nil {
		b.Fatal(err)
	}
	ep := &webhooks.Endpoint{AccountID: acc.ID, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := s.(webhooks.Store).CreateEndpoint(ctx, ep, 1); err != nil {
		b.Fatal(err)
	}

	g := Generate("dbs", cards, day)
	snapshot := func(version int64) *catalog.Snapshot {
		snap, err := catalog.NewSnapshot(&catalog.Catalog{Version: version, CreatedAt: day, Games: []catalog.GameCatalog{g}}, game.Default())
		if err != nil {
			b.Fatal(err)
		}
		return snap
	}
	still := snapshot(1)
	moved := benchMoved(b)
	for i := range g.Cards {
		if i%100 < moved {
			g.Cards[i].TCGPrices[0].Market = catalog.Cents(30) // above 25
			g.Cards[i].CMPrices[0].Trend = catalog.Cents(15)   // below 18; 25% under avg7
		}
	}
	movedSnap := snapshot(2)
	ids := make([]string, len(g.Cards))
	for i := range g.Cards {
		ids[i] = g.Cards[i].ID
	}
	g = catalog.GameCatalog{}

	loadAlerts(b, s, acc.ID, ep.ID, ids, n)

	timed := &timedAlerts{Store: as}
	ev := &alerts.Evaluator{Alerts: timed, Log: slog.New(slog.DiscardHandler)}
	version := int64(1)
	evaluate := func(snap *catalog.Snapshot) (alerts.Result, time.Duration) {
		snap.Version = version
		version++
		timed.read, timed.write = 0, 0
		start := time.Now()
		res, err := ev.Evaluate(ctx, snap)
		if err != nil {
			b.Fatal(err)
		}
		if res.Evaluated != n {
			b.Fatalf("evaluated %d alerts, want %d", res.Evaluated, n)
		}
		return res, time.Since(start)
	}
	first, took := evaluate(still)
	b.Logf("%d alerts over %d cards: first evaluation %v (%d fired)", n, cards, took.Round(time.Millisecond), first.Fired)

	var total time.Duration
	var fired, evaluations int
	b.ResetTimer()
	for b.Loop() {
		snap := movedSnap
		if evaluations%2 == 1 {
			snap = still
		}
		res, took := evaluate(snap)
		total += took
		fired += res.Fired
		evaluations++
		b.Logf("version %d: %d alerts in %v (reading %v, writing %v), %d fired, %d queued", res.Version, res.Evaluated,
			took.Round(time.Millisecond), timed.read.Round(time.Millisecond), timed.write.Round(time.Millisecond), res.Fired, res.Queued)
	}
	per := float64(total.Nanoseconds()) / float64(evaluations) / float64(n)
	b.ReportMetric(per, "ns/alert")
	b.ReportMetric(1e9/per, "alerts/s")
	b.ReportMetric(float64(fired)/float64(evaluations), "fired/op")
}

// loadAlerts inserts n alerts of account acc over the cards of ids in bulk
// (CreateAlert writes one per transaction): one made with CreateAlert,
// copied with other cards and rules by multi-row INSERT ... SELECT, whose
// VALUES columns both dialects name column1, column2, ...
func loadAlerts(b *testing.B, s store.Store, acc, hook int64, ids []string, n int) {
	ctx := context.Background()
	exec, ok := s.(Reopener)
	if !ok {
		b.Fatalf("%T cannot Exec", s)
	}
	proto := &alerts.Alert{AccountID: acc, Game: "dbs", CardID: ids[0], Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 25}}
	if err := s.(alerts.Store).CreateAlert(ctx, proto, n+1); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	const rows = 500
	var q strings.Builder
	for lo := 1; lo < n; lo += rows {
		q.Reset()
		q.WriteString(`INSERT INTO alerts (account_id, game, card_id, source, finish, rule, amount_cents, percent, webhook_id, paused,
	created_at, armed, last_version, last_price)
	SELECT account_id, game, v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, paused,
	created_at, armed, last_version, last_price FROM alerts, (VALUES `)
		for i := lo; i < min(lo+rows, n); i++ {
			if i > lo {
				q.WriteByte(',')
			}
			card := ids[i%len(ids)]
			webhook := int64(0)
			if i%2 == 0 {
				webhook = hook
			}
			switch i % 3 {
			case 0:
				fmt.Fprintf(&q, "('%s', 'tcg', 'Normal', 'above', 25, 0, %d)", card, webhook)
			case 1:
				fmt.Fprintf(&q, "('%s', 'cm', 'normal', 'below', 18, 0, %d)", card, webhook)
			default:
				fmt.Fprintf(&q, "('%s', 'cm', 'normal', 'move', 0, 10, %d)", card, webhook)
			}
		}
		fmt.Fprintf(&q, ") v WHERE alerts.id = %d", proto.ID)
		if err := exec.Exec(ctx, q.String()); err != nil {
			b.Fatalf("load alerts: %v", err)
		}
	}
	b.Logf("loaded %d alerts in %v", n, time.Since(start).Round(time.Millisecond))
}

// timedAlerts times the store's side of an evaluation.
type timedAlerts struct {
	alerts.Store
	read, write time.Duration
}

func (t *timedAlerts) PendingAlerts(ctx context.Context, version, afterID int64, limit int) ([]alerts.Alert, error) {
	start := time.Now()
	defer func() { t.read += time.Since(start) }()
	return t.Store.PendingAlerts(ctx, version, afterID, limit)
}

func (t *timedAlerts) RecordEvaluations(ctx context.Context, version int64, evs []alerts.Evaluation, emailsPerHour int) (alerts.Recorded, error) {
	start := time.Now()
	defer func() { t.write += time.Since(start) }()
	return t.Store.RecordEvaluations(ctx, version, evs, emailsPerHour)
}

// BenchClaimNothingDue measures a queue worker's poll that finds nothing
// due, the alert emails' and the webhook deliveries': every idle worker
// makes one a second (internal/queue), on the core that serves requests.
func BenchClaimNothingDue(b *testing.B, s store.Store) {
	ctx := context.Background()
	now := time.Now()
	b.Run("email", func(b *testing.B) {
		es := s.(alerts.EmailStore)
		for b.Loop() {
			if _, err := es.ClaimEmail(ctx, now, time.Minute); err != alerts.ErrNoEmail {
				b.Fatalf("ClaimEmail = %v, want ErrNoEmail", err)
			}
		}
	})
	b.Run("delivery", func(b *testing.B) {
		ws := s.(webhooks.Store)
		for b.Loop() {
			if _, err := ws.ClaimDelivery(ctx, now, time.Minute); err != webhooks.ErrNoDelivery {
				b.Fatalf("ClaimDelivery = %v, want ErrNoDelivery", err)
			}
		}
	})
}
