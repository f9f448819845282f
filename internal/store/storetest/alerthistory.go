package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// history builds an account's alert history at chosen times, each event's
// delivery and email driven to a chosen state through the queues' own
// methods (claim, finish, resend), as the workers and the portal would.
type history struct {
	t       *testing.T
	s       store.Store
	acc     int64
	ep      int64
	version int64
}

// never is the next try of what a test leaves pending or leased: no claim
// of the test reaches it, and it stays unfinished.
var never = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

func newHistory(t *testing.T, s store.Store) *history {
	t.Helper()
	h := &history{t: t, s: s, acc: newVerifiedAccount(t, s, "hist@example.com")}
	ep := &webhooks.Endpoint{AccountID: h.acc, URL: "https://example.com/hook", Secret: webhooks.NewSecret()}
	if err := s.(webhooks.Store).CreateEndpoint(context.Background(), ep, 10); err != nil {
		t.Fatal(err)
	}
	h.ep = ep.ID
	return h
}

// alert is a new alert of the account: to the endpoint when hook, emailing
// when email.
func (h *history) alert(hook, email bool) alerts.Alert {
	h.t.Helper()
	a := alerts.Alert{AccountID: h.acc, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 100}, Email: email}
	if hook {
		a.WebhookID = h.ep
	}
	if err := h.s.(alerts.Store).CreateAlert(context.Background(), &a, 1000); err != nil {
		h.t.Fatal(err)
	}
	return a
}

// fire records a's firing created at, and returns its event's id.
func (h *history) fire(a alerts.Alert, at time.Time, emailsPerHour int) string {
	h.t.Helper()
	h.version++
	fire(h.t, h.s, a, h.version, at, emailsPerHour)
	return alerts.EventID(a.ID, h.version)
}

// deliver claims the delivery due at at (the event's) and records one
// attempt per outcome: Pending ones are retried a minute later, the last
// outcome is the state left (Delivering: claimed and left leased).
func (h *history) deliver(eventID string, at time.Time, outcomes ...webhooks.State) {
	h.t.Helper()
	ctx := context.Background()
	ws := h.s.(webhooks.Store)
	for i, state := range outcomes {
		lease := time.Minute
		if state == webhooks.Delivering {
			lease = never.Sub(at)
		}
		d, err := ws.ClaimDelivery(ctx, at, lease)
		if err != nil || d.EventID != eventID {
			h.t.Fatalf("claiming %s's delivery at %v: %+v, %v", eventID, at, d, err)
		}
		if state == webhooks.Delivering {
			return
		}
		status, next := 200, time.Time{}
		switch {
		case state == webhooks.Pending && i == len(outcomes)-1:
			status, next = 503, never
		case state != webhooks.Delivered:
			status, next = 503, at.Add(time.Minute)
		}
		a := webhooks.Attempt{N: d.Attempts, At: at, Status: status, Duration: time.Millisecond, Response: "answer"}
		if err := ws.FinishDelivery(ctx, d, a, state, next); err != nil {
			h.t.Fatal(err)
		}
		at = at.Add(time.Minute)
	}
}

// email claims the email due at at (the event's) and leaves it in state
// (EmailSending: claimed and left leased; EmailPending: to retry, never
// reached).
func (h *history) email(eventID string, at time.Time, state alerts.EmailState) {
	h.t.Helper()
	ctx := context.Background()
	es := h.s.(alerts.EmailStore)
	lease := time.Minute
	if state == alerts.EmailSending {
		lease = never.Sub(at)
	}
	e, err := es.ClaimEmail(ctx, at, lease)
	if err != nil || e.EventID != eventID {
		h.t.Fatalf("claiming %s's email at %v: %+v, %v", eventID, at, e, err)
	}
	if state == alerts.EmailSending {
		return
	}
	if err := es.FinishEmail(ctx, e, state, at, never, ""); err != nil {
		h.t.Fatal(err)
	}
}

// testPruneAlertHistory: a prune deletes the events finished before the
// cutoff (delivered or failed, sent, failed, cancelled or capped, a test
// event, one that sent nothing) with their deliveries, attempts and emails,
// in batches walked to the end past the events it keeps: one whose delivery
// is a queued retry or leased, whose email is to retry or being sent, whose
// delivery was resent since the cutoff, one created at the cutoff or after.
// What is kept reads as before: the delivery log with every attempt, the
// events, the emails; the kept retry is still delivered, and a pruned
// delivery is gone for a resend. A second prune deletes nothing.
func testPruneAlertHistory(t *testing.T, s store.Store) {
	ctx := context.Background()
	hs, ok := s.(alerts.HistoryStore)
	if !ok {
		t.Fatalf("%T is not an alerts.HistoryStore", s)
	}
	as, ws := s.(alerts.Store), s.(webhooks.Store)
	now := time.Now().UTC().Truncate(time.Second)
	cutoff := now.AddDate(0, 0, -30)
	h := newHistory(t, s)
	hookMail, hook, mail, plain := h.alert(true, true), h.alert(true, false), h.alert(false, true), h.alert(false, false)

	// The kept old events come first, so that the first batches delete
	// nothing and the walk has to go on past them.
	at := cutoff.Add(-48 * time.Hour)
	next := func() time.Time { at = at.Add(10 * time.Minute); return at }
	var kept, gone []string
	keep := func(id string) { kept = append(kept, id) }
	drop := func(id string) { gone = append(gone, id) }

	t0 := next() // a queued retry, its email sent
	id := h.fire(hookMail, t0, 0)
	h.deliver(id, t0, webhooks.Pending)
	h.email(id, t0, alerts.EmailSent)
	keep(id)
	t0 = next() // a delivery a worker holds
	id = h.fire(hook, t0, 0)
	h.deliver(id, t0, webhooks.Delivering)
	keep(id)
	t0 = next() // delivered, its email to retry
	id = h.fire(hookMail, t0, 0)
	h.deliver(id, t0, webhooks.Delivered)
	h.email(id, t0, alerts.EmailPending)
	keep(id)
	t0 = next() // delivered, its email being sent
	id = h.fire(hookMail, t0, 0)
	h.deliver(id, t0, webhooks.Delivered)
	h.email(id, t0, alerts.EmailSending)
	keep(id)
	t0 = next() // failed, then resent (and delivered) since the cutoff
	resent := h.fire(hook, t0, 0)
	h.deliver(resent, t0, webhooks.Pending, webhooks.Failed)
	keep(resent)

	t0 = next() // delivered, its email sent
	id = h.fire(hookMail, t0, 0)
	h.deliver(id, t0, webhooks.Delivered)
	h.email(id, t0, alerts.EmailSent)
	drop(id)
	t0 = next() // failed after three attempts, its email failed
	id = h.fire(hookMail, t0, 0)
	h.deliver(id, t0, webhooks.Pending, webhooks.Pending, webhooks.Failed)
	h.email(id, t0, alerts.EmailFailed)
	drop(id)
	t0 = next() // sent nowhere
	drop(h.fire(plain, t0, 0))
	t0 = next() // emailed only, sent; then one capped, one cancelled
	id = h.fire(mail, t0, 0)
	h.email(id, t0, alerts.EmailSent)
	drop(id)
	t0 = next()
	drop(h.fire(mail, t0, 1))
	t0 = next()
	id = h.fire(mail, t0, 0)
	h.email(id, t0, alerts.EmailCancelled)
	drop(id)
	t0 = next() // a test event, delivered
	test := alerts.NewTestEvent(h.acc, h.ep, nil, 0, t0)
	if err := as.QueueTestEvent(ctx, test); err != nil {
		t.Fatal(err)
	}
	h.deliver(test.ID, t0, webhooks.Delivered)
	drop(test.ID)
	old := len(kept) + len(gone)

	// Not older than the cutoff: created at it, and a day ago.
	id = h.fire(hookMail, cutoff, 0)
	h.deliver(id, cutoff, webhooks.Delivered)
	h.email(id, cutoff, alerts.EmailSent)
	keep(id)
	id = h.fire(hook, now.Add(-24*time.Hour), 0)
	h.deliver(id, now.Add(-24*time.Hour), webhooks.Delivered)
	keep(id)

	// The resend, an hour ago; delivered at once.
	ds, err := ws.Deliveries(ctx, resent)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Deliveries(%s) = %+v, %v", resent, ds, err)
	}
	if err := ws.ResendDelivery(ctx, h.acc, h.ep, ds[0].ID, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	h.deliver(resent, now.Add(-time.Hour), webhooks.Delivered)

	logBefore, eventsBefore, emailsBefore := readHistory(t, s, h)
	var want alerts.Pruned
	for _, d := range logBefore {
		if slices.Contains(gone, d.EventID) {
			want.Deliveries++
			want.Attempts += int64(len(d.Log))
		}
	}
	for _, e := range emailsBefore {
		if slices.Contains(gone, e.EventID) {
			want.Emails++
		}
	}
	want.Events = int64(len(gone))
	want.Batches = old/2 + 1 // full batches of 2, then one that reads what is left (none)
	if len(eventsBefore) != len(kept)+len(gone) || want.Deliveries != 3 || want.Attempts != 5 || want.Emails != 5 {
		t.Fatalf("the history built: %d events, %+v; want %d events, 3 deliveries with 5 attempts and 5 emails to go",
			len(eventsBefore), want, len(kept)+len(gone))
	}

	got, err := hs.PruneAlertHistory(ctx, cutoff, 2)
	if err != nil {
		t.Fatalf("PruneAlertHistory: %v", err)
	}
	if got != want {
		t.Errorf("PruneAlertHistory = %+v, want %+v", got, want)
	}

	// What is kept reads as it did.
	logAfter, eventsAfter, emailsAfter := readHistory(t, s, h)
	keptOnly := func(eventID string) bool { return !slices.Contains(gone, eventID) }
	wantLog := slices.DeleteFunc(slices.Clone(logBefore), func(d webhooks.LoggedDelivery) bool { return !keptOnly(d.EventID) })
	if diff := cmp.Diff(wantLog, logAfter); diff != "" {
		t.Errorf("the delivery log after the prune (-want +got):\n%s", diff)
	}
	wantEvents := slices.DeleteFunc(slices.Clone(eventsBefore), func(e alerts.Event) bool { return !keptOnly(e.ID) })
	if diff := cmp.Diff(wantEvents, eventsAfter); diff != "" {
		t.Errorf("the events after the prune (-want +got):\n%s", diff)
	}
	wantEmails := slices.DeleteFunc(slices.Clone(emailsBefore), func(e alerts.Email) bool { return !keptOnly(e.EventID) })
	if diff := cmp.Diff(wantEmails, emailsAfter); diff != "" {
		t.Errorf("the emails after the prune (-want +got):\n%s", diff)
	}
	for _, id := range kept {
		if !slices.ContainsFunc(eventsAfter, func(e alerts.Event) bool { return e.ID == id }) {
			t.Errorf("event %s was pruned; want it kept", id)
		}
	}
	for _, d := range logBefore {
		if !keptOnly(d.EventID) {
			if ds, err := ws.Deliveries(ctx, d.EventID); err != nil || len(ds) != 0 {
				t.Errorf("Deliveries(%s) of a pruned event = %+v, %v; want none", d.EventID, ds, err)
			}
			if as, err := ws.Attempts(ctx, d.ID); err != nil || len(as) != 0 {
				t.Errorf("Attempts(%d) of a pruned delivery = %+v, %v; want none", d.ID, as, err)
			}
			if err := ws.ResendDelivery(ctx, h.acc, h.ep, d.ID, now); !errors.Is(err, webhooks.ErrNotFound) {
				t.Errorf("resending pruned delivery %d: %v, want ErrNotFound", d.ID, err)
			}
		}
	}

	// Again: nothing more to delete.
	again, err := hs.PruneAlertHistory(ctx, cutoff, 2)
	if err != nil || again.Rows() != 0 {
		t.Errorf("a second PruneAlertHistory = %+v, %v; want nothing deleted", again, err)
	}
	// The queued retry kept is still sent when due.
	d, err := ws.ClaimDelivery(ctx, never, time.Minute)
	if err != nil || d.EventID != kept[0] || d.Attempts != 2 {
		t.Fatalf("claiming the kept retry: %+v, %v; want %s's second attempt", d, err, kept[0])
	}
	if err := ws.FinishDelivery(ctx, d, webhooks.Attempt{N: d.Attempts, At: never, Status: 200}, webhooks.Delivered, time.Time{}); err != nil {
		t.Fatal(err)
	}
	// Once finished, and with a cutoff past it all, everything goes but
	// what is still leased or to send.
	all, err := hs.PruneAlertHistory(ctx, now.Add(time.Hour), 0)
	if err != nil || all.Events != int64(len(kept)-3) || all.Batches != 1 {
		t.Errorf("PruneAlertHistory of everything = %+v, %v; want %d events in one batch of the default size (3 kept: leased, email to retry, email being sent)",
			all, err, len(kept)-3)
	}
}

// readHistory is h's account's delivery log, events and emails.
func readHistory(t *testing.T, s store.Store, h *history) ([]webhooks.LoggedDelivery, []alerts.Event, []alerts.Email) {
	t.Helper()
	ctx := context.Background()
	log, err := s.(webhooks.Store).DeliveryLog(ctx, h.acc, h.ep, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	events, err := s.(alerts.Store).Events(ctx, h.acc, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return log, events, emailsOf(t, s, h.acc)
}

// testPruneAlertHistoryMany: a prune of more events than a batch, all
// finished, deletes them all in batches, and leaves the accounts' newer
// history alone; a cancelled prune stops between batches, what it
// committed deleted.
func testPruneAlertHistoryMany(t *testing.T, s store.Store) {
	ctx := context.Background()
	hs := s.(alerts.HistoryStore)
	h := newHistory(t, s)
	a := h.alert(false, false)
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	const n = 25
	for i := range n - 1 {
		h.fire(a, start.Add(time.Duration(i)*time.Second), 0)
	}
	newer := h.fire(a, start.AddDate(0, 1, 0), 0)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if p, err := hs.PruneAlertHistory(cancelled, start.AddDate(0, 0, 1), 4); err == nil || p.Rows() != 0 {
		t.Errorf("a cancelled prune = %+v, %v; want an error, nothing deleted", p, err)
	}
	p, err := hs.PruneAlertHistory(ctx, start.AddDate(0, 0, 1), 4)
	if want := (alerts.Pruned{Events: n - 1, Batches: 7}); err != nil || p != want {
		t.Errorf("PruneAlertHistory of %d events by 4 = %+v, %v; want %+v", n-1, p, err, want)
	}
	left, err := s.(alerts.Store).Events(ctx, h.acc, 100)
	if err != nil || len(left) != 1 || left[0].ID != newer {
		t.Errorf("%d events left (%v), want the newer one, %s", len(left), err, newer)
	}
}
