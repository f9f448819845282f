package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// RunAlerts checks alerts.Store and webhooks.Store, and with them the
// evaluation and the delivery on a real store: the limits, one evaluation
// per alert and version, one event per crossing over several catalogue
// versions delivered to a real receiver that checks the signatures, a
// receiver that fails three times (and a worker restarted in between),
// two workers sharing one queue, a private address refused, and what the
// portal's pages do (edit, test events, the log, resend, rotation, delete;
// an account's deletion taking its alerts and webhooks with it); and the
// alert emails (alertemails.go): one per crossing, the hourly cap, retries
// across a restart, two replicas sharing the queue, unsubscribing, and an
// account's deletion taking them too; and the history's retention
// (alerthistory.go): what is finished and old goes, in batches, and what is
// kept reads whole. open returns a new store on a new, empty database (a
// Reopener).
func RunAlerts(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		test func(t *testing.T, s store.Store)
	}{
		{"AlertsAndLimits", testAlertsAndLimits},
		{"OneEvaluationPerVersion", testAlertsOncePerVersion},
		{"OneEventPerCrossing", testAlertsCrossings},
		{"RetriedAcrossRestart", testWebhookRetries},
		{"TwoWorkersOneQueue", testWebhookTwoWorkers},
		{"PrivateAddressRefused", testWebhookPrivateRefused},
		{"UpdateAlert", testAlertUpdate},
		{"TestEventAndDeliveryLog", testWebhookTestEventLog},
		{"Resend", testWebhookResend},
		{"RotationOverlap", testWebhookRotation},
		{"DeleteEndpoint", testWebhookDeleteEndpoint},
		{"DeleteAccount", testDeleteAccountAlerts},
		{"EmailPerCrossing", testAlertEmailsCrossings},
		{"EmailCap", testAlertEmailsCap},
		{"EmailRetriedAcrossRestart", testAlertEmailsRetried},
		{"EmailTwoWorkersOneQueue", testAlertEmailsTwoWorkers},
		{"EmailUnsubscribe", testAlertEmailsUnsubscribe},
		{"EmailDeleteAccount", testDeleteAccountEmails},
		{"PruneHistory", testPruneAlertHistory},
		{"PruneHistoryBatches", testPruneAlertHistoryMany},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			if _, ok := s.(alerts.Store); !ok {
				t.Fatalf("%T is not an alerts.Store", s)
			}
			if _, ok := s.(webhooks.Store); !ok {
				t.Fatalf("%T is not a webhooks.Store", s)
			}
			if _, ok := s.(alerts.EmailStore); !ok {
				t.Fatalf("%T is not an alerts.EmailStore", s)
			}
			tt.test(t, s)
		})
	}
}

func newAlertAccount(t *testing.T, s store.Store, email string) int64 {
	t.Helper()
	a := &account.Account{Email: email, Plan: account.Pro}
	if err := s.(account.Store).CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func testAlertsAndLimits(t *testing.T, s store.Store) {
	ctx := context.Background()
	as, ws := s.(alerts.Store), s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	ep := &webhooks.Endpoint{AccountID: acc, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := ws.CreateEndpoint(ctx, ep, 1); err != nil {
		t.Fatal(err)
	}
	if err := ws.CreateEndpoint(ctx, &webhooks.Endpoint{AccountID: acc, URL: "https://example.com/2", Secret: "s"}, 1); !errors.Is(err, webhooks.ErrLimit) {
		t.Fatalf("second endpoint over a limit of 1: %v, want ErrLimit", err)
	}
	eps, err := ws.Endpoints(ctx, acc)
	if err != nil || len(eps) != 1 || eps[0].URL != ep.URL || eps[0].Secret != ep.Secret || eps[0].ID != ep.ID {
		t.Fatalf("Endpoints = %+v, %v", eps, err)
	}
	a := alerts.Alert{AccountID: acc, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Foil",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 1250}, WebhookID: ep.ID}
	for i := range 2 {
		a := a
		if err := as.CreateAlert(ctx, &a, 2); err != nil || a.ID == 0 {
			t.Fatalf("CreateAlert %d: %v", i, err)
		}
	}
	if err := as.CreateAlert(ctx, &a, 2); !errors.Is(err, alerts.ErrLimit) {
		t.Fatalf("third alert over a limit of 2: %v, want ErrLimit", err)
	}
	foreign := a
	foreign.AccountID = other
	if err := as.CreateAlert(ctx, &foreign, 10); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("an alert on another account's webhook: %v, want ErrNotFound", err)
	}
	got, err := as.Alerts(ctx, acc)
	if err != nil || len(got) != 2 {
		t.Fatalf("Alerts = %+v, %v", got, err)
	}
	g := got[0]
	if g.Rule != a.Rule || g.CardID != a.CardID || g.Finish != "Foil" || g.Source != alerts.TCG || !g.Armed || g.LastVersion != 0 || g.LastPrice.OK || g.WebhookID != ep.ID {
		t.Fatalf("alert read back = %+v", g)
	}
	if err := as.SetAlertPaused(ctx, other, g.ID, true); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("pausing another account's alert: %v", err)
	}
	if err := as.SetAlertPaused(ctx, acc, g.ID, true); err != nil {
		t.Fatal(err)
	}
	pending, err := as.PendingAlerts(ctx, 1, 0, 10)
	if err != nil || len(pending) != 1 || pending[0].ID != got[1].ID {
		t.Fatalf("PendingAlerts with one paused = %+v, %v", pending, err)
	}
	if err := as.DeleteAlert(ctx, acc, got[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := as.DeleteAlert(ctx, acc, got[1].ID); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("deleting twice: %v", err)
	}
}

func testAlertsOncePerVersion(t *testing.T, s store.Store) {
	ctx := context.Background()
	as := s.(alerts.Store)
	acc := newAlertAccount(t, s, "a@example.com")
	a := alerts.Alert{AccountID: acc, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.CM, Finish: "normal",
		Rule: alerts.Rule{Kind: alerts.Below, Cents: 100}}
	if err := as.CreateAlert(ctx, &a, 10); err != nil {
		t.Fatal(err)
	}
	ev := alerts.Evaluation{AlertID: a.ID, Armed: false, Price: catalog.Cents(90),
		Event: &alerts.Event{ID: alerts.EventID(a.ID, 3), AccountID: acc, AlertID: a.ID, Version: 3, Created: time.Now(), Body: []byte(`{}`)}}
	rec, err := as.RecordEvaluations(ctx, 3, []alerts.Evaluation{ev}, 0)
	if err != nil || rec != (alerts.Recorded{Fired: 1}) {
		t.Fatalf("RecordEvaluations = %+v, %v; want 1 event, none queued (no webhook, no email)", rec, err)
	}
	// Another replica's evaluation of the same version writes nothing.
	if rec, err = as.RecordEvaluations(ctx, 3, []alerts.Evaluation{ev}, 0); err != nil || rec.Fired != 0 {
		t.Fatalf("the same version again = %+v, %v; want nothing written", rec, err)
	}
	if p, err := as.PendingAlerts(ctx, 3, 0, 10); err != nil || len(p) != 0 {
		t.Fatalf("PendingAlerts after the version = %+v, %v", p, err)
	}
	got, _ := as.Alerts(ctx, acc)
	if got[0].Armed || got[0].LastVersion != 3 || got[0].LastPrice != catalog.Cents(90) {
		t.Fatalf("state = %+v", got[0])
	}
	evs, err := as.Events(ctx, acc, 10)
	if err != nil || len(evs) != 1 || evs[0].ID != ev.Event.ID || string(evs[0].Body) != `{}` {
		t.Fatalf("Events = %+v, %v", evs, err)
	}
	// A kept state moves the version only: Armed and Price are not read.
	kept := alerts.Evaluation{AlertID: a.ID, Armed: true, Kept: true}
	if rec, err := as.RecordEvaluations(ctx, 4, []alerts.Evaluation{kept}, 0); err != nil || rec.Fired != 0 {
		t.Fatalf("a kept state = %+v, %v", rec, err)
	}
	if got, _ := as.Alerts(ctx, acc); got[0].Armed || got[0].LastVersion != 4 || got[0].LastPrice != catalog.Cents(90) {
		t.Fatalf("state after a kept one = %+v", got[0])
	}
}

// receiver is a webhook endpoint that checks each delivery's signature and
// counts the events it accepted; fail answers 503 that many times first.
type receiver struct {
	t      *testing.T
	secret string
	now    func() time.Time // the receiver's clock: the worker's
	mu     sync.Mutex
	fail   int
	calls  int
	events map[string]int
	bodies []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.calls++
	if err := webhooks.Verify(rc.secret, r.Header.Get(webhooks.SignatureHeader), body, 0, rc.now()); err != nil {
		rc.t.Errorf("delivery refused: %v", err)
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	if rc.fail > 0 {
		rc.fail--
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	id := r.Header.Get("Cardcat-Event-Id")
	if !strings.Contains(string(body), `"id":"`+id+`"`) {
		rc.t.Errorf("Cardcat-Event-Id %s is not the body's id: %s", id, body)
	}
	rc.events[id]++
	rc.bodies = append(rc.bodies, string(body))
}

func (rc *receiver) counts() (events, deliveries int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, n := range rc.events {
		deliveries += n
	}
	return len(rc.events), deliveries
}

func newReceiver(t *testing.T, fail int) (*receiver, string) {
	rc := &receiver{t: t, secret: webhooks.NewSecret(), now: time.Now, fail: fail, events: map[string]int{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv.URL + "/hook"
}

func newTestWorker(st store.Store, now func() time.Time) *webhooks.Worker {
	return &webhooks.Worker{Store: st.(webhooks.Store), AllowHTTP: true, Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, Timeout: 5 * time.Second}),
		Log: slog.New(slog.DiscardHandler), Now: now, Poll: 10 * time.Millisecond, Jitter: func() float64 { return 0 }}
}

// drain delivers until nothing is due.
func drain(t *testing.T, w *webhooks.Worker) int {
	t.Helper()
	n := 0
	for {
		did, err := w.DeliverOne(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			return n
		}
		n++
	}
}

// alertCatalogue is a one-game catalogue whose first card's TCGplayer
// Normal market price and Cardmarket normal trend and avg7 are given.
func alertCatalogue(market, trend, avg7 int64, at time.Time) []catalog.GameCatalog {
	g := Generate("dbs", 2, at)
	c := &g.Cards[0]
	c.TCGPrices[0].Market = catalog.Cents(market)
	c.CMPrices = []catalog.CMPrice{{Variant: "normal", Trend: catalog.Cents(trend), Avg7: catalog.Cents(avg7), UpdatedAt: at}}
	return []catalog.GameCatalog{g}
}

func testAlertsCrossings(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newAlertAccount(t, s, "a@example.com")
	rc, url := newReceiver(t, 0)
	ep := &webhooks.Endpoint{AccountID: acc, URL: url, Secret: rc.secret}
	if err := s.(webhooks.Store).CreateEndpoint(ctx, ep, 5); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	reg := game.Default()
	snapshot := func() *catalog.Snapshot {
		snap, err := catalog.NewSnapshot(MustLoad(t, s), reg)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	v := MustReplace(t, s, 0, alertCatalogue(22, 100, 100, day), "{}", day)
	card := Generate("dbs", 1, day).Cards[0].ID
	above := alerts.Alert{AccountID: acc, CardID: card, Source: alerts.TCG, Finish: "Normal", Rule: alerts.Rule{Kind: alerts.Above, Cents: 100}, WebhookID: ep.ID}
	move := alerts.Alert{AccountID: acc, CardID: card, Source: alerts.CM, Finish: "normal", Rule: alerts.Rule{Kind: alerts.Move, Percent: 20}, WebhookID: ep.ID}
	for _, a := range []*alerts.Alert{&above, &move} {
		if err := alerts.Check(a, snapshot()); err != nil {
			t.Fatal(err)
		}
		if err := s.(alerts.Store).CreateAlert(ctx, a, 10); err != nil {
			t.Fatal(err)
		}
	}
	ev := &alerts.Evaluator{Alerts: s.(alerts.Store), Catalog: s, Log: slog.New(slog.DiscardHandler), Batch: 1,
		Lock: func(ctx context.Context) (func(), bool, error) { return s.(store.Locker).TryLock(ctx, alerts.LockName) }}
	w := newTestWorker(s, time.Now)
	// TCGplayer market in cents, Cardmarket trend and avg7, and the events
	// each version fires: above 1.00 and a move of 20% from the average.
	steps := []struct {
		market, trend, avg7 int64
		fired               int
	}{
		{22, 100, 100, 0},  // below 1.00; no move
		{150, 125, 100, 2}, // crosses 1.00; moved 25%
		{200, 110, 100, 0}, // still above; the move went back: re-armed
		{50, 80, 100, 1},   // back under: re-armed; moved -20%
		{120, 80, 100, 1},  // crosses again; still moved
		{120, 100, 100, 0}, // unchanged; no move
		{1000, 100, 0, 0},  // still above; no average: the move is not judged
	}
	total := 0
	for i, st := range steps {
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		if i > 0 {
			v = MustReplace(t, s, v, alertCatalogue(st.market, st.trend, st.avg7, at), "{}", at)
		}
		snap := snapshot()
		res, err := ev.Evaluate(ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		if res.Fired != st.fired || res.Queued != st.fired {
			t.Fatalf("version %d: %+v, want %d fired and queued", v, res, st.fired)
		}
		// The same version again (another replica, a restart): nothing.
		if res, err := ev.Evaluate(ctx, snap); err != nil || res.Fired != 0 || res.Evaluated != 0 {
			t.Fatalf("version %d evaluated twice: %+v, %v", v, res, err)
		}
		total += st.fired
		drain(t, w)
		if events, deliveries := rc.counts(); events != total || deliveries != total {
			t.Fatalf("after version %d: %d events in %d deliveries, want %d", v, events, deliveries, total)
		}
	}
	rc.mu.Lock()
	first := rc.bodies[0]
	rc.mu.Unlock()
	for _, want := range []string{`"type":"price.alert"`, `"card_id":"` + card + `"`, `"source":"tcg"`, `"variant":"Normal"`,
		`"old_price":0.22`, `"new_price":1.5`, `"alert":{"id":` + fmt.Sprint(above.ID) + `,"rule":"above","threshold":1}`} {
		if !strings.Contains(first, want) {
			t.Errorf("first event %s lacks %s", first, want)
		}
	}
}

func testWebhookRetries(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newAlertAccount(t, s, "a@example.com")
	rc, url := newReceiver(t, 3)
	eid := queueEvents(t, s, acc, url, rc.secret, 1)[0]
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	rc.now = now
	w := newTestWorker(s, now)
	for i := range 2 {
		if n := drain(t, w); n != 1 {
			t.Fatalf("attempt %d: %d deliveries sent", i+1, n)
		}
		if n := drain(t, w); n != 0 {
			t.Fatalf("a retry sent before its backoff: %d", n)
		}
		advance(2 * time.Hour)
	}
	// A restart: a new store and a new worker on the same database.
	other, err := s.(Reopener).Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	w = newTestWorker(other, now)
	for i := range 2 {
		if n := drain(t, w); n != 1 {
			t.Fatalf("after the restart, attempt %d: %d deliveries sent", i+3, n)
		}
		advance(2 * time.Hour)
	}
	if events, deliveries := rc.counts(); events != 1 || deliveries != 1 || rc.calls != 4 {
		t.Fatalf("%d events, %d deliveries in %d calls; want the event once after 3 failures", events, deliveries, rc.calls)
	}
	ds, err := s.(webhooks.Store).Deliveries(ctx, eid)
	if err != nil || len(ds) != 1 || ds[0].State != webhooks.Delivered || ds[0].Attempts != 4 {
		t.Fatalf("Deliveries = %+v, %v", ds, err)
	}
	as, err := s.(webhooks.Store).Attempts(ctx, ds[0].ID)
	if err != nil || len(as) != 4 {
		t.Fatalf("Attempts = %+v, %v", as, err)
	}
	for i, a := range as[:3] {
		if a.N != i+1 || a.Status != 503 || !strings.Contains(a.Response, "down for maintenance") {
			t.Errorf("attempt %d = %+v", i+1, a)
		}
	}
	if as[3].Status != 200 {
		t.Errorf("last attempt = %+v", as[3])
	}

	// A delivery never answered 2xx is failed after MaxAge.
	rc.mu.Lock()
	rc.fail = 1000
	rc.mu.Unlock()
	eid = queueEvents(t, s, acc, url, rc.secret, 1)[0]
	w.MaxAge, w.Backoff = time.Hour, 10*time.Minute
	for range 10 {
		drain(t, w)
		advance(30 * time.Minute)
	}
	ds, _ = s.(webhooks.Store).Deliveries(ctx, eid)
	if len(ds) != 1 || ds[0].State != webhooks.Failed {
		t.Fatalf("a delivery failing for MaxAge: %+v", ds)
	}
}

// queueEvents queues n events of a new alert for a new endpoint at url,
// and returns their ids.
func queueEvents(t *testing.T, s store.Store, acc int64, url, secret string, n int) []string {
	t.Helper()
	ctx := context.Background()
	ep := &webhooks.Endpoint{AccountID: acc, URL: url, Secret: secret}
	if err := s.(webhooks.Store).CreateEndpoint(ctx, ep, 100); err != nil {
		t.Fatal(err)
	}
	a := alerts.Alert{AccountID: acc, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 1}, WebhookID: ep.ID}
	if err := s.(alerts.Store).CreateAlert(ctx, &a, 100); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for v := int64(1); v <= int64(n); v++ {
		id := alerts.EventID(a.ID, v)
		e := &alerts.Event{ID: id, AccountID: acc, AlertID: a.ID, WebhookID: ep.ID, Version: v, Created: time.Now(),
			Body: []byte(`{"id":"` + id + `","type":"price.alert"}`)}
		if rec, err := s.(alerts.Store).RecordEvaluations(ctx, v, []alerts.Evaluation{{AlertID: a.ID, Armed: true, Event: e}}, 0); err != nil || rec.Queued != 1 {
			t.Fatalf("queueing event %d: %d queued, %v", v, rec.Queued, err)
		}
		ids = append(ids, id)
	}
	return ids
}

// QueueDelivery queues one webhook delivery on s, due now, of an alert of a
// new account with email, and returns its event's id: a store's own tests'
// setup, so that a claim has one to take (and writes).
func QueueDelivery(t *testing.T, s store.Store, email string) string {
	t.Helper()
	acc := newAlertAccount(t, s, email)
	return queueEvents(t, s, acc, "https://hooks.example.com/cardcat", webhooks.NewSecret(), 1)[0]
}

func testWebhookTwoWorkers(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newAlertAccount(t, s, "a@example.com")
	rc, url := newReceiver(t, 0)
	const n = 40
	queueEvents(t, s, acc, url, rc.secret, n)
	other, err := s.(Reopener).Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, st := range []store.Store{s, other} {
		w := newTestWorker(st, time.Now)
		w.Workers = 3
		wg.Go(func() { w.Run(runCtx) })
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if events, _ := rc.counts(); events == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a second delivery of one event would arrive now
	stop()
	wg.Wait()
	events, deliveries := rc.counts()
	if events != n || deliveries != n {
		t.Fatalf("two workers: %d events in %d deliveries, want each of %d once", events, deliveries, n)
	}
}

func testWebhookPrivateRefused(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newAlertAccount(t, s, "a@example.com")
	rc, url := newReceiver(t, 0) // on 127.0.0.1
	eid := queueEvents(t, s, acc, url, rc.secret, 1)[0]
	w := newTestWorker(s, time.Now)
	w.Client = webhooks.NewClient(webhooks.ClientOptions{})
	if n := drain(t, w); n != 1 {
		t.Fatalf("%d attempts", n)
	}
	if _, deliveries := rc.counts(); deliveries != 0 || rc.calls != 0 {
		t.Fatalf("a loopback endpoint was called %d times", rc.calls)
	}
	ds, _ := s.(webhooks.Store).Deliveries(ctx, eid)
	as, err := s.(webhooks.Store).Attempts(ctx, ds[0].ID)
	if err != nil || len(as) != 1 || as[0].Status != 0 || !strings.Contains(as[0].Error, "refused to connect to 127.0.0.1") {
		t.Fatalf("attempt = %+v, %v", as, err)
	}
	if ds[0].State != webhooks.Pending {
		t.Fatalf("state %s, want pending (retried: the name may resolve elsewhere later)", ds[0].State)
	}
}

func testAlertUpdate(t *testing.T, s store.Store) {
	ctx := context.Background()
	as, ws := s.(alerts.Store), s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	ep := &webhooks.Endpoint{AccountID: acc, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	foreignEp := &webhooks.Endpoint{AccountID: other, URL: "https://example.com/b", Secret: webhooks.NewSecret()}
	for _, e := range []*webhooks.Endpoint{ep, foreignEp} {
		if err := ws.CreateEndpoint(ctx, e, 5); err != nil {
			t.Fatal(err)
		}
	}
	a := alerts.Alert{AccountID: acc, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.CM, Finish: "normal",
		Rule: alerts.Rule{Kind: alerts.Below, Cents: 100}}
	if err := as.CreateAlert(ctx, &a, 10); err != nil {
		t.Fatal(err)
	}
	if err := as.SetAlertPaused(ctx, acc, a.ID, true); err != nil {
		t.Fatal(err)
	}
	// Fired at version 3, at 0.90.
	if _, err := as.RecordEvaluations(ctx, 3, []alerts.Evaluation{{AlertID: a.ID, Armed: false, Price: catalog.Cents(90)}}, 0); err != nil {
		t.Fatal(err)
	}
	if err := as.SetAlertPaused(ctx, acc, a.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := as.RecordEvaluations(ctx, 3, []alerts.Evaluation{{AlertID: a.ID, Armed: false, Price: catalog.Cents(90)}}, 0); err != nil {
		t.Fatal(err)
	}
	read := func() alerts.Alert {
		t.Helper()
		got, err := as.Alerts(ctx, acc)
		if err != nil || len(got) != 1 {
			t.Fatalf("Alerts = %+v, %v", got, err)
		}
		return got[0]
	}
	if g := read(); g.Armed || g.LastVersion != 3 {
		t.Fatalf("before the update: %+v", g)
	}

	// The same price watched with another rule and a webhook: re-armed,
	// evaluated anew, the last price kept.
	u := a
	u.Rule, u.WebhookID = alerts.Rule{Kind: alerts.Move, Percent: 15}, ep.ID
	if err := as.UpdateAlert(ctx, &u); err != nil {
		t.Fatal(err)
	}
	g := read()
	if g.Rule != u.Rule || g.WebhookID != ep.ID || !g.Armed || g.LastVersion != 0 || g.LastPrice != catalog.Cents(90) || g.Paused || !g.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("after the update: %+v", g)
	}
	if p, err := as.PendingAlerts(ctx, 3, 0, 10); err != nil || len(p) != 1 {
		t.Fatalf("an updated alert is evaluated again: pending %+v, %v", p, err)
	}
	// Another finish: the last price read was another price's.
	u.Finish = "foil"
	if err := as.UpdateAlert(ctx, &u); err != nil {
		t.Fatal(err)
	}
	if g := read(); g.Finish != "foil" || g.LastPrice.OK {
		t.Fatalf("after a change of finish: %+v", g)
	}
	// A paused alert stays paused.
	if err := as.SetAlertPaused(ctx, acc, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := as.UpdateAlert(ctx, &u); err != nil || !read().Paused {
		t.Fatalf("an update unpaused the alert (%v)", err)
	}

	for name, bad := range map[string]alerts.Alert{
		"another account's alert":   func() alerts.Alert { b := u; b.AccountID = other; b.WebhookID = 0; return b }(),
		"another account's webhook": func() alerts.Alert { b := u; b.WebhookID = foreignEp.ID; return b }(),
		"no such alert":             func() alerts.Alert { b := u; b.ID = 9999; return b }(),
	} {
		if err := as.UpdateAlert(ctx, &bad); !errors.Is(err, alerts.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
	if g := read(); g.WebhookID != ep.ID || g.Finish != "foil" {
		t.Fatalf("a refused update changed the alert: %+v", g)
	}
}

func testWebhookTestEventLog(t *testing.T, s store.Store) {
	ctx := context.Background()
	as, ws := s.(alerts.Store), s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	rc, url := newReceiver(t, 1)
	ep := &webhooks.Endpoint{AccountID: acc, URL: url, Secret: rc.secret}
	if err := ws.CreateEndpoint(ctx, ep, 5); err != nil {
		t.Fatal(err)
	}
	if log, err := ws.DeliveryLog(ctx, acc, ep.ID, 0, 10); err != nil || len(log) != 0 {
		t.Fatalf("an empty log: %+v, %v", log, err)
	}
	e := alerts.NewTestEvent(acc, ep.ID, nil, 7, time.Now())
	if !e.Test || !strings.Contains(string(e.Body), `"test":true`) || !strings.Contains(string(e.Body), `"type":"price.alert"`) {
		t.Fatalf("test event = %+v %s", e, e.Body)
	}
	foreign := *e
	foreign.AccountID, foreign.ID = other, "evt_other"
	if err := as.QueueTestEvent(ctx, &foreign); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("a test event to another account's endpoint: %v, want ErrNotFound", err)
	}
	if err := as.QueueTestEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	w := newTestWorker(s, time.Now)
	w.Backoff = time.Millisecond
	drain(t, w)
	time.Sleep(5 * time.Millisecond)
	drain(t, w) // the retry after the receiver's one failure
	if events, deliveries := rc.counts(); events != 1 || deliveries != 1 {
		t.Fatalf("the test event: %d events in %d deliveries", events, deliveries)
	}
	evs, err := as.Events(ctx, acc, 10)
	if err != nil || len(evs) != 1 || !evs[0].Test || evs[0].ID != e.ID {
		t.Fatalf("Events = %+v, %v", evs, err)
	}
	// A second test, and an alert's event: the log, newest first, paged.
	e2 := alerts.NewTestEvent(acc, ep.ID, nil, 7, time.Now())
	if err := as.QueueTestEvent(ctx, e2); err != nil {
		t.Fatal(err)
	}
	drain(t, w)
	log, err := ws.DeliveryLog(ctx, acc, ep.ID, 0, 10)
	if err != nil || len(log) != 2 {
		t.Fatalf("DeliveryLog = %+v, %v", log, err)
	}
	first, second := log[1], log[0]
	if second.EventID != e2.ID || first.EventID != e.ID || !first.Test || first.State != webhooks.Delivered || first.Attempts != 2 {
		t.Fatalf("log = %+v", log)
	}
	if len(first.Log) != 2 || first.Log[0].Status != 503 || first.Log[0].N != 1 || first.Log[1].Status != 200 || len(second.Log) != 1 {
		t.Fatalf("attempts = %+v / %+v", first.Log, second.Log)
	}
	if first.Secret != "" || first.Body != nil {
		t.Fatalf("the log reads the secret or the body: %+v", first.Delivery)
	}
	if page, err := ws.DeliveryLog(ctx, acc, ep.ID, second.ID, 10); err != nil || len(page) != 1 || page[0].ID != first.ID {
		t.Fatalf("the page before %d: %+v, %v", second.ID, page, err)
	}
	if page, err := ws.DeliveryLog(ctx, acc, ep.ID, 0, 1); err != nil || len(page) != 1 || page[0].ID != second.ID {
		t.Fatalf("a page of one: %+v, %v", page, err)
	}
	if _, err := ws.DeliveryLog(ctx, other, ep.ID, 0, 10); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("another account's log: %v, want ErrNotFound", err)
	}
}

func testWebhookResend(t *testing.T, s store.Store) {
	ctx := context.Background()
	ws := s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	rc, url := newReceiver(t, 1000)
	eid := queueEvents(t, s, acc, url, rc.secret, 1)[0]
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	rc.now = now
	w := newTestWorker(s, now)
	w.MaxAge, w.Backoff = time.Hour, 10*time.Minute
	for range 8 {
		drain(t, w)
		advance(30 * time.Minute)
	}
	ds, _ := ws.Deliveries(ctx, eid)
	if len(ds) != 1 || ds[0].State != webhooks.Failed {
		t.Fatalf("before the resend: %+v", ds)
	}
	failedAfter := ds[0].Attempts
	ep := ds[0].EndpointID
	if err := ws.ResendDelivery(ctx, other, ep, ds[0].ID, now()); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("resending another account's delivery: %v, want ErrNotFound", err)
	}
	if err := ws.ResendDelivery(ctx, acc, ep, 99999, now()); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("resending no delivery: %v, want ErrNotFound", err)
	}
	// Through another of the account's endpoints: not its delivery.
	sibling := &webhooks.Endpoint{AccountID: acc, URL: "https://example.com/sibling", Secret: webhooks.NewSecret()}
	if err := ws.CreateEndpoint(ctx, sibling, 100); err != nil {
		t.Fatal(err)
	}
	if err := ws.ResendDelivery(ctx, acc, sibling.ID, ds[0].ID, now()); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("resending a delivery through another endpoint of the account: %v, want ErrNotFound", err)
	}
	// The receiver is back: a resend delivers the failed event, with a
	// new schedule (a failure now would be retried, not failed at once).
	rc.mu.Lock()
	rc.fail = 1
	rc.mu.Unlock()
	if err := ws.ResendDelivery(ctx, acc, ep, ds[0].ID, now()); err != nil {
		t.Fatal(err)
	}
	if n := drain(t, w); n != 1 {
		t.Fatalf("after the resend: %d sent", n)
	}
	ds, _ = ws.Deliveries(ctx, eid)
	if ds[0].State != webhooks.Pending || ds[0].ResentAt.IsZero() || ds[0].ResentAfter != failedAfter {
		t.Fatalf("a resent delivery failing once: %+v, want pending with a new schedule", ds[0])
	}
	// Its next try comes after the first backoff of a new schedule.
	if wait := ds[0].NextAt.Sub(now()); wait > w.Backoff {
		t.Fatalf("the retry after a resend waits %v, want at most %v", wait, w.Backoff)
	}
	advance(w.Backoff)
	drain(t, w)
	ds, _ = ws.Deliveries(ctx, eid)
	if ds[0].State != webhooks.Delivered {
		t.Fatalf("after the retry: %+v", ds[0])
	}
	as, _ := ws.Attempts(ctx, ds[0].ID)
	if len(as) != failedAfter+2 || as[len(as)-1].N != failedAfter+2 || as[len(as)-1].Status != 200 {
		t.Fatalf("attempts after the resend: %+v", as)
	}
	if _, deliveries := rc.counts(); deliveries != 1 {
		t.Fatalf("%d deliveries, want the event once", deliveries)
	}
	// A delivered one can be resent too (the receiver lost it); not while
	// a worker holds it.
	if err := ws.ResendDelivery(ctx, acc, ep, ds[0].ID, now()); err != nil {
		t.Fatal(err)
	}
	claimed, err := ws.ClaimDelivery(ctx, now(), time.Minute)
	if err != nil || claimed.ID != ds[0].ID {
		t.Fatalf("ClaimDelivery = %+v, %v", claimed, err)
	}
	if err := ws.ResendDelivery(ctx, acc, ep, ds[0].ID, now()); !errors.Is(err, webhooks.ErrInFlight) {
		t.Fatalf("resending a delivery being sent: %v, want ErrInFlight", err)
	}
	advance(2 * time.Minute) // its worker died: the lease ran out
	if err := ws.ResendDelivery(ctx, acc, ep, ds[0].ID, now()); err != nil {
		t.Fatalf("resending a delivery whose lease ran out: %v", err)
	}
}

func testWebhookRotation(t *testing.T, s store.Store) {
	ctx := context.Background()
	ws := s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	var mu sync.Mutex
	var headers []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Get(webhooks.SignatureHeader))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	old := webhooks.NewSecret()
	ep := &webhooks.Endpoint{AccountID: acc, URL: srv.URL, Secret: old}
	if err := ws.CreateEndpoint(ctx, ep, 5); err != nil {
		t.Fatal(err)
	}
	clock := time.Now().Truncate(time.Second)
	fresh := webhooks.NewSecret()
	until := clock.Add(time.Hour)
	if err := ws.RotateSecret(ctx, other, ep.ID, fresh, until); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("rotating another account's secret: %v, want ErrNotFound", err)
	}
	if err := ws.RotateSecret(ctx, acc, ep.ID, fresh, until); err != nil {
		t.Fatal(err)
	}
	eps, _ := ws.Endpoints(ctx, acc)
	if eps[0].Secret != fresh || eps[0].PreviousSecret != old || !eps[0].PreviousUntil.Equal(until) {
		t.Fatalf("after the rotation: %+v", eps[0])
	}
	send := func(at time.Time) (string, []byte) {
		t.Helper()
		e := alerts.NewTestEvent(acc, ep.ID, nil, 0, at)
		if err := s.(alerts.Store).QueueTestEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
		w := newTestWorker(s, func() time.Time { return at })
		if n := drain(t, w); n != 1 {
			t.Fatalf("%d sent", n)
		}
		mu.Lock()
		defer mu.Unlock()
		return headers[len(headers)-1], e.Body
	}
	// During the overlap: both secrets sign.
	h, body := send(clock.Add(30 * time.Minute))
	if strings.Count(h, "v1=") != 2 {
		t.Fatalf("a delivery during the overlap: %q, want two v1", h)
	}
	for _, sec := range []string{old, fresh} {
		if err := webhooks.Verify(sec, h, body, 0, clock.Add(30*time.Minute)); err != nil {
			t.Errorf("during the overlap, the secret %s…: %v", sec[:10], err)
		}
	}
	// After it: the new one only.
	h, body = send(clock.Add(2 * time.Hour))
	if strings.Count(h, "v1=") != 1 || webhooks.Verify(fresh, h, body, 0, clock.Add(2*time.Hour)) != nil ||
		webhooks.Verify(old, h, body, 0, clock.Add(2*time.Hour)) == nil {
		t.Fatalf("a delivery after the overlap: %q, want the new secret's signature only", h)
	}
	// A rotation without overlap drops the old secret at once, and the one
	// kept from the rotation before.
	newest := webhooks.NewSecret()
	if err := ws.RotateSecret(ctx, acc, ep.ID, newest, time.Time{}); err != nil {
		t.Fatal(err)
	}
	eps, _ = ws.Endpoints(ctx, acc)
	if eps[0].Secret != newest || eps[0].PreviousSecret != "" || !eps[0].PreviousUntil.IsZero() {
		t.Fatalf("after a rotation without overlap: %+v", eps[0])
	}
	h, _ = send(clock.Add(10 * time.Minute))
	if strings.Count(h, "v1=") != 1 {
		t.Fatalf("after a rotation without overlap: %q", h)
	}
}

func testWebhookDeleteEndpoint(t *testing.T, s store.Store) {
	ctx := context.Background()
	as, ws := s.(alerts.Store), s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	rc, url := newReceiver(t, 1000)
	eid := queueEvents(t, s, acc, url, rc.secret, 2)[0]
	drain(t, newTestWorker(s, time.Now))
	ds, _ := ws.Deliveries(ctx, eid)
	epID := ds[0].EndpointID
	if err := ws.DeleteEndpoint(ctx, other, epID); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("deleting another account's endpoint: %v, want ErrNotFound", err)
	}
	if err := ws.DeleteEndpoint(ctx, acc, epID); err != nil {
		t.Fatal(err)
	}
	if err := ws.DeleteEndpoint(ctx, acc, epID); !errors.Is(err, webhooks.ErrNotFound) {
		t.Fatalf("deleting twice: %v, want ErrNotFound", err)
	}
	if eps, _ := ws.Endpoints(ctx, acc); len(eps) != 0 {
		t.Fatalf("endpoints left: %+v", eps)
	}
	if ds, err := ws.Deliveries(ctx, eid); err != nil || len(ds) != 0 {
		t.Fatalf("deliveries left: %+v, %v", ds, err)
	}
	if _, err := ws.ClaimDelivery(ctx, time.Now().Add(time.Hour), time.Minute); !errors.Is(err, webhooks.ErrNoDelivery) {
		t.Fatalf("a delivery to a deleted endpoint is still claimed: %v", err)
	}
	got, _ := as.Alerts(ctx, acc)
	if len(got) != 1 || got[0].WebhookID != 0 {
		t.Fatalf("the alert of a deleted endpoint: %+v", got)
	}
	if evs, _ := as.Events(ctx, acc, 10); len(evs) != 2 {
		t.Fatalf("the events of a deleted endpoint's alert: %d, want them kept", len(evs))
	}
}

// testDeleteAccountAlerts: deleting an account deletes its alerts, their
// events, its endpoints, and every delivery (delivered, pending, held by a
// worker) with its attempts, so that nothing fires or is sent for it any
// more, and nothing new can be made for it; another account's are kept.
func testDeleteAccountAlerts(t *testing.T, s store.Store) {
	ctx := context.Background()
	as, ws := s.(alerts.Store), s.(webhooks.Store)
	acc, other := newAlertAccount(t, s, "a@example.com"), newAlertAccount(t, s, "b@example.com")
	rc, url := newReceiver(t, 0)
	delivered := queueEvents(t, s, acc, url, rc.secret, 2)
	kept := queueEvents(t, s, other, url, rc.secret, 1)
	if n := drain(t, newTestWorker(s, time.Now)); n != 3 {
		t.Fatalf("%d delivered, want 3", n)
	}
	pending := queueEvents(t, s, acc, url, rc.secret, 2)
	claimed, err := ws.ClaimDelivery(ctx, time.Now(), time.Minute)
	if err != nil || claimed.EventID != pending[0] {
		t.Fatalf("ClaimDelivery = %+v, %v, want the delivery of %s", claimed, err, pending[0])
	}
	otherPending := queueEvents(t, s, other, url, rc.secret, 1)
	var deliveries []int64
	for _, id := range append(delivered, pending...) {
		ds, err := ws.Deliveries(ctx, id)
		if err != nil || len(ds) != 1 {
			t.Fatalf("Deliveries(%s) = %+v, %v", id, ds, err)
		}
		deliveries = append(deliveries, ds[0].ID)
	}
	accAlerts, _ := as.Alerts(ctx, acc)
	eps, _ := ws.Endpoints(ctx, acc)
	if len(accAlerts) != 2 || len(eps) != 2 {
		t.Fatalf("before the deletion: %d alerts, %d endpoints", len(accAlerts), len(eps))
	}

	if err := s.(account.Store).DeleteAccount(ctx, acc, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, err := as.Alerts(ctx, acc); err != nil || len(got) != 0 {
		t.Errorf("a deleted account's alerts: %+v, %v", got, err)
	}
	if got, err := ws.Endpoints(ctx, acc); err != nil || len(got) != 0 {
		t.Errorf("a deleted account's endpoints: %+v, %v", got, err)
	}
	if got, err := as.Events(ctx, acc, 10); err != nil || len(got) != 0 {
		t.Errorf("a deleted account's events: %+v, %v", got, err)
	}
	for i, id := range append(delivered, pending...) {
		if ds, err := ws.Deliveries(ctx, id); err != nil || len(ds) != 0 {
			t.Errorf("the deliveries of %s: %+v, %v", id, ds, err)
		}
		if got, err := ws.Attempts(ctx, deliveries[i]); err != nil || len(got) != 0 {
			t.Errorf("the attempts of delivery %d: %+v, %v", deliveries[i], got, err)
		}
	}
	// Nothing of it is evaluated, fires or is sent: an evaluation that read
	// its alerts before the deletion records nothing for them; the worker
	// that held one of its deliveries finds it gone.
	pendingAlerts, err := as.PendingAlerts(ctx, 100, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range pendingAlerts {
		if a.AccountID == acc {
			t.Errorf("a deleted account's alert is still evaluated: %+v", a)
		}
	}
	late := &alerts.Event{ID: alerts.EventID(accAlerts[0].ID, 100), AccountID: acc, AlertID: accAlerts[0].ID,
		WebhookID: accAlerts[0].WebhookID, Version: 100, Created: time.Now(), Body: []byte(`{"type":"price.alert"}`)}
	if rec, err := as.RecordEvaluations(ctx, 100, []alerts.Evaluation{{AlertID: accAlerts[0].ID, Event: late, Email: true}}, 0); err != nil || rec != (alerts.Recorded{}) {
		t.Errorf("an evaluation of a deleted account's alert: %+v, %v", rec, err)
	}
	err = ws.FinishDelivery(ctx, claimed, webhooks.Attempt{DeliveryID: claimed.ID, N: claimed.Attempts, At: time.Now(), Status: 200},
		webhooks.Delivered, time.Time{})
	if !errors.Is(err, webhooks.ErrLeaseLost) {
		t.Errorf("finishing a deleted account's delivery: %v, want ErrLeaseLost", err)
	}
	next, err := ws.ClaimDelivery(ctx, time.Now().Add(time.Hour), time.Minute)
	if err != nil || next.EventID != otherPending[0] {
		t.Errorf("the delivery due after the deletion: %+v, %v, want the other account's %s", next, err, otherPending[0])
	}
	if _, err := ws.ClaimDelivery(ctx, time.Now().Add(time.Hour), time.Minute); !errors.Is(err, webhooks.ErrNoDelivery) {
		t.Errorf("a deleted account's delivery is still claimed: %v", err)
	}
	// Nothing new for it, even from a request that began before.
	a := accAlerts[0]
	a.WebhookID = 0
	if err := as.CreateAlert(ctx, &a, 100); !errors.Is(err, alerts.ErrNotFound) {
		t.Errorf("CreateAlert for a deleted account: %v, want ErrNotFound", err)
	}
	if err := ws.CreateEndpoint(ctx, &webhooks.Endpoint{AccountID: acc, URL: url, Secret: rc.secret}, 100); !errors.Is(err, webhooks.ErrNotFound) {
		t.Errorf("CreateEndpoint for a deleted account: %v, want ErrNotFound", err)
	}
	if err := as.QueueTestEvent(ctx, alerts.NewTestEvent(acc, eps[0].ID, nil, 1, time.Now())); !errors.Is(err, alerts.ErrNotFound) {
		t.Errorf("a test event to a deleted account's endpoint: %v, want ErrNotFound", err)
	}
	// The other account keeps everything.
	otherAlerts, _ := as.Alerts(ctx, other)
	otherEps, _ := ws.Endpoints(ctx, other)
	otherEvents, _ := as.Events(ctx, other, 10)
	if len(otherAlerts) != 2 || len(otherEps) != 2 || len(otherEvents) != 2 {
		t.Errorf("the other account: %d alerts, %d endpoints, %d events, want 2 of each", len(otherAlerts), len(otherEps), len(otherEvents))
	}
	if ds, err := ws.Deliveries(ctx, kept[0]); err != nil || len(ds) != 1 || ds[0].State != webhooks.Delivered {
		t.Errorf("the other account's delivery: %+v, %v", ds, err)
	}
}
