package storetest

import (
	"context"
	"errors"
	"log/slog"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alertmail"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// The alert emails' part of RunAlerts (alerts.EmailStore, sent by
// alertmail.Worker).

// outbox is a mailer that keeps what it is given, counts each alert
// email by its event (the link of its alert and its subject are the same
// for one firing, so the text is the key), and fails as told first.
type outbox struct {
	mu   sync.Mutex
	msgs []mail.Message
	seen map[string]int // by the message's text
	// fail is how many sends fail with err before they succeed again.
	fail int
	err  error
}

func newOutbox() *outbox { return &outbox{seen: map[string]int{}} }

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fail > 0 {
		o.fail--
		return o.err
	}
	o.msgs = append(o.msgs, m)
	o.seen[m.Text]++
	return nil
}

func (o *outbox) sent() []mail.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]mail.Message(nil), o.msgs...)
}

func (o *outbox) failWith(n int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fail, o.err = n, err
}

const testPublicURL = "https://cards.example.com"

func newMailWorker(st store.Store, mailer mail.Mailer, now func() time.Time) *alertmail.Worker {
	return &alertmail.Worker{Store: st.(alerts.EmailStore), Mailer: mailer, PublicURL: testPublicURL, Games: game.Default(),
		Log: slog.New(slog.DiscardHandler), Now: now, Poll: 10 * time.Millisecond, Jitter: func() float64 { return 0 }}
}

// sendAll sends until no email is due, and returns how many were claimed.
func sendAll(t *testing.T, w *alertmail.Worker) int {
	t.Helper()
	n := 0
	for {
		did, err := w.SendOne(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			return n
		}
		n++
	}
}

// newVerifiedAccount is a Pro account whose email is verified.
func newVerifiedAccount(t *testing.T, s store.Store, email string) int64 {
	t.Helper()
	a := &account.Account{Email: email, Plan: account.Pro, VerifiedAt: time.Now()}
	if err := s.(account.Store).CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// newEmailAlert is an alert of acc that emails, on dbs's first card.
func newEmailAlert(t *testing.T, s store.Store, acc int64) alerts.Alert {
	t.Helper()
	a := alerts.Alert{AccountID: acc, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 100}, Email: true}
	if err := s.(alerts.Store).CreateAlert(context.Background(), &a, 1000); err != nil {
		t.Fatal(err)
	}
	return a
}

// fire records a firing of a at version, created at, its email queued
// under emailsPerHour; it returns what was recorded.
func fire(t *testing.T, s store.Store, a alerts.Alert, version int64, at time.Time, emailsPerHour int) alerts.Recorded {
	t.Helper()
	e := alerts.NewTestEvent(a.AccountID, a.WebhookID, &a, version, at)
	e.ID, e.Version, e.Test = alerts.EventID(a.ID, version), version, false
	rec, err := s.(alerts.Store).RecordEvaluations(context.Background(), version,
		[]alerts.Evaluation{{AlertID: a.ID, Price: catalog.Cents(150), Event: e, Email: a.Email, CardName: "Son Goku"}}, emailsPerHour)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func emailsOf(t *testing.T, s store.Store, acc int64) []alerts.Email {
	t.Helper()
	es, err := s.(alerts.EmailStore).Emails(context.Background(), acc, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// testAlertEmailsCrossings: an alert that emails, evaluated over several
// catalogue versions, sends one email per crossing to the account's
// address, with what fired and the unsubscribe headers; an alert that does
// not email queues none, and one that emails and sends to a webhook does
// both.
func testAlertEmailsCrossings(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newVerifiedAccount(t, s, "ann@example.com")
	rc, url := newReceiver(t, 0)
	ep := &webhooks.Endpoint{AccountID: acc, URL: url, Secret: rc.secret}
	if err := s.(webhooks.Store).CreateEndpoint(ctx, ep, 5); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	snapshot := func() *catalog.Snapshot {
		snap, err := catalog.NewSnapshot(MustLoad(t, s), game.Default())
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	v := MustReplace(t, s, 0, alertCatalogue(22, 100, 100, day), "{}", day)
	card := Generate("dbs", 1, day).Cards[0].ID
	emailing := alerts.Alert{AccountID: acc, CardID: card, Source: alerts.TCG, Finish: "Normal", Rule: alerts.Rule{Kind: alerts.Above, Cents: 100},
		Email: true}
	both := alerts.Alert{AccountID: acc, CardID: card, Source: alerts.CM, Finish: "normal", Rule: alerts.Rule{Kind: alerts.Move, Percent: 20},
		Email: true, WebhookID: ep.ID}
	quiet := alerts.Alert{AccountID: acc, CardID: card, Source: alerts.TCG, Finish: "Normal", Rule: alerts.Rule{Kind: alerts.Below, Cents: 100}}
	for _, a := range []*alerts.Alert{&emailing, &both, &quiet} {
		if err := alerts.Check(a, snapshot()); err != nil {
			t.Fatal(err)
		}
		if err := s.(alerts.Store).CreateAlert(ctx, a, 10); err != nil {
			t.Fatal(err)
		}
	}
	if as, err := s.(alerts.Store).Alerts(ctx, acc); err != nil || len(as) != 3 || !as[0].Email || !as[1].Email || as[2].Email {
		t.Fatalf("the alerts' Email read back: %+v, %v", as, err)
	}
	ev := &alerts.Evaluator{Alerts: s.(alerts.Store), Catalog: s, Log: slog.New(slog.DiscardHandler), Batch: 2, EmailsPerHour: 100}
	out := newOutbox()
	w := newMailWorker(s, out, time.Now)
	hooks := newTestWorker(s, time.Now)
	steps := []struct {
		market, trend, avg7 int64
		emailed, queued     int // emails (above and move) and webhook deliveries (move)
	}{
		{22, 100, 100, 0, 0},   // below 1.00: quiet fires (no email); no move
		{150, 125, 100, 2, 1},  // crosses 1.00; moved 25%: both email, the move's webhook too
		{200, 110, 100, 0, 0},  // still above; the move went back
		{50, 80, 100, 1, 1},    // back under (quiet fires again, after 150 re-armed it); moved -20%
		{120, 100, 100, 1, 0},  // crosses again
		{1000, 100, 100, 0, 0}, // still above
	}
	total := 0
	for i, st := range steps {
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		if i > 0 {
			v = MustReplace(t, s, v, alertCatalogue(st.market, st.trend, st.avg7, at), "{}", at)
		}
		res, err := ev.Evaluate(ctx, snapshot())
		if err != nil {
			t.Fatal(err)
		}
		if res.Emailed != st.emailed || res.Queued != st.queued || res.Capped != 0 {
			t.Fatalf("version %d: %+v, want %d emailed and %d queued", v, res, st.emailed, st.queued)
		}
		total += st.emailed
		sendAll(t, w)
		drain(t, hooks)
		if n := len(out.sent()); n != total {
			t.Fatalf("after version %d: %d emails sent, want %d", v, n, total)
		}
	}
	for text, n := range out.seen {
		if n != 1 {
			t.Errorf("an email sent %d times:\n%s", n, text)
		}
	}
	if events, deliveries := rc.counts(); events != 2 || deliveries != 2 {
		t.Errorf("the webhook got %d events in %d deliveries, want the move's 2", events, deliveries)
	}

	// The first email: the crossing of 1.00 at the second version.
	m := out.sent()[0]
	if m.To != "ann@example.com" || !strings.HasPrefix(m.Subject, "Price alert: ") || !strings.Contains(m.Subject, "1.50 USD on TCGplayer (Normal)") {
		t.Errorf("first email: to %q, subject %q", m.To, m.Subject)
	}
	for _, want := range []string{"Your price alert", "Game:           Dragon Ball Super", "Marketplace:    TCGplayer (market price)",
		"Finish:         Normal", "Rule:           at or above 1.00 USD", "Old price:      0.22 USD", "New price:      1.50 USD",
		testPublicURL + "/account/alerts/", testPublicURL + "/dbs/cards/" + card, testPublicURL + "/docs#get-gamecardsid",
		testPublicURL + alerts.UnsubscribePath + "?token="} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the first email lacks %q:\n%s", want, m.Text)
		}
	}
	token := strings.TrimPrefix(m.Unsubscribe, testPublicURL+alerts.UnsubscribePath+"?token=")
	if !alerts.ValidEmailToken(token) || !strings.Contains(m.Text, m.Unsubscribe) {
		t.Errorf("unsubscribe link %q (token %q) not in the text or not a token", m.Unsubscribe, token)
	}
	if a, err := s.(alerts.EmailStore).AlertByEmailToken(ctx, token); err != nil || a.ID != emailing.ID {
		t.Errorf("AlertByEmailToken(the first email's) = %+v, %v, want alert %d", a, err, emailing.ID)
	}
	// The move's email says the average.
	var move string
	for _, m := range out.sent() {
		if strings.Contains(m.Text, "Cardmarket (trend price)") {
			move = m.Text
			break
		}
	}
	for _, want := range []string{"Rule:           moves 20% or more from its 7-day average", "7-day average:  1.00 EUR", "New price:      1.25 EUR"} {
		if !strings.Contains(move, want) {
			t.Errorf("the move's email lacks %q:\n%s", want, move)
		}
	}
	es := emailsOf(t, s, acc)
	if len(es) != total {
		t.Fatalf("Emails = %d, want %d", len(es), total)
	}
	for _, e := range es {
		if e.State != alerts.EmailSent || e.SentAt.IsZero() || e.Attempts != 1 || e.CardName == "" || e.Error != "" {
			t.Errorf("email after sending: %+v", e)
		}
	}
}

// testAlertEmailsCap: an account gets at most emailsPerHour alert emails
// an hour, counted when they are queued; the others are capped (never
// sent), the next email sent says how many, and an hour later they are
// emailed again. Another account has its own count.
func testAlertEmailsCap(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc, other := newVerifiedAccount(t, s, "ann@example.com"), newVerifiedAccount(t, s, "bob@example.com")
	var as []alerts.Alert
	for range 3 {
		as = append(as, newEmailAlert(t, s, acc))
	}
	theirs := newEmailAlert(t, s, other)
	start := time.Now().Truncate(time.Second)
	// Three firings in one evaluation, and one of another account.
	e := func(a alerts.Alert, v int64) alerts.Evaluation {
		ev := alerts.NewTestEvent(a.AccountID, 0, &a, v, start)
		ev.ID, ev.Version, ev.Test = alerts.EventID(a.ID, v), v, false
		return alerts.Evaluation{AlertID: a.ID, Event: ev, Email: true, CardName: "Son Goku"}
	}
	rec, err := s.(alerts.Store).RecordEvaluations(ctx, 1, []alerts.Evaluation{e(as[0], 1), e(as[1], 1), e(theirs, 1), e(as[2], 1)}, 2)
	if err != nil || rec != (alerts.Recorded{Fired: 4, Emailed: 3, Capped: 1}) {
		t.Fatalf("RecordEvaluations under a cap of 2 = %+v, %v; want 4 fired, 3 emailed, 1 capped", rec, err)
	}
	// Half an hour later, a version: still within the hour.
	if rec := fire(t, s, as[0], 2, start.Add(30*time.Minute), 2); rec.Emailed != 0 || rec.Capped != 1 {
		t.Fatalf("within the hour: %+v, want capped", rec)
	}
	es := emailsOf(t, s, acc)
	states := map[alerts.EmailState]int{}
	for _, e := range es {
		states[e.State]++
	}
	if states[alerts.EmailPending] != 2 || states[alerts.EmailCapped] != 2 {
		t.Fatalf("the account's emails: %+v", es)
	}
	// The worker sends the two, each saying that two went without.
	clock := start.Add(31 * time.Minute)
	out := newOutbox()
	w := newMailWorker(s, out, func() time.Time { return clock })
	w.EmailsPerHour = 2
	if n := sendAll(t, w); n != 3 {
		t.Fatalf("%d emails claimed, want the account's 2 and the other's 1", n)
	}
	for _, m := range out.sent() {
		note := strings.Contains(m.Text, "In the last hour, 2 more firings of your alerts went without an email: an account gets at most 2 alert emails an hour.")
		if m.To == "ann@example.com" && !note || m.To == "bob@example.com" && strings.Contains(m.Text, "In the last hour") {
			t.Errorf("the email to %s:\n%s", m.To, m.Text)
		}
	}
	// An hour after the first ones, the account gets emails again.
	if rec := fire(t, s, as[1], 3, start.Add(61*time.Minute), 2); rec.Emailed != 1 || rec.Capped != 0 {
		t.Fatalf("an hour later: %+v, want emailed", rec)
	}
	// No cap: every firing is emailed.
	for v := int64(4); v < 7; v++ {
		if rec := fire(t, s, as[2], v, start.Add(62*time.Minute), 0); rec.Emailed != 1 {
			t.Fatalf("without a cap: %+v", rec)
		}
	}
}

// testAlertEmailsRetried: an email the SMTP server does not take is retried
// with the backoff, across a restart, and sent once; one it refuses for good
// (5xx) fails at once; one never taken fails after MaxAge.
func testAlertEmailsRetried(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newVerifiedAccount(t, s, "ann@example.com")
	a := newEmailAlert(t, s, acc)
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	fire(t, s, a, 1, now(), 0)
	out := newOutbox()
	out.failWith(3, &textproto.Error{Code: 421, Msg: "4.7.0 try again later"})
	w := newMailWorker(s, out, now)
	for i := range 2 {
		if n := sendAll(t, w); n != 1 {
			t.Fatalf("attempt %d: %d claimed", i+1, n)
		}
		if n := sendAll(t, w); n != 0 {
			t.Fatalf("a retry before its backoff: %d", n)
		}
		advance(2 * time.Hour)
	}
	es := emailsOf(t, s, acc)
	if len(es) != 1 || es[0].State != alerts.EmailPending || es[0].Attempts != 2 || !strings.Contains(es[0].Error, "try again later") {
		t.Fatalf("after two failures: %+v", es)
	}
	// A restart: a new store and a new worker on the same database.
	again, err := s.(Reopener).Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	w = newMailWorker(again, out, now)
	for range 2 {
		sendAll(t, w)
		advance(2 * time.Hour)
	}
	if sent := out.sent(); len(sent) != 1 {
		t.Fatalf("%d emails sent, want the one once after 3 failures", len(sent))
	}
	es = emailsOf(t, s, acc)
	if es[0].State != alerts.EmailSent || es[0].Attempts != 4 || es[0].Error != "" {
		t.Fatalf("after the restart: %+v", es[0])
	}

	// A 5xx: failed at once.
	fire(t, s, a, 2, now(), 0)
	out.failWith(1, &textproto.Error{Code: 550, Msg: "5.1.1 no such mailbox"})
	sendAll(t, w)
	if es := emailsOf(t, s, acc); es[0].State != alerts.EmailFailed || es[0].Attempts != 1 || !strings.Contains(es[0].Error, "no such mailbox") {
		t.Fatalf("a refused email: %+v", es[0])
	}
	// Never taken: failed after MaxAge.
	fire(t, s, a, 3, now(), 0)
	out.failWith(1000, errors.New("dial tcp: connection refused"))
	w.MaxAge, w.Backoff = time.Hour, 10*time.Minute
	for range 10 {
		sendAll(t, w)
		advance(30 * time.Minute)
	}
	if es := emailsOf(t, s, acc); es[0].State != alerts.EmailFailed || es[0].Attempts < 2 {
		t.Fatalf("an email never taken for MaxAge: %+v", es[0])
	}
	if n := len(out.sent()); n != 1 {
		t.Fatalf("%d emails sent in all, want 1", n)
	}
}

// testAlertEmailsTwoWorkers: two stores on one database (two replicas),
// three workers each, send each queued email exactly once.
func testAlertEmailsTwoWorkers(t *testing.T, s store.Store) {
	ctx := context.Background()
	acc := newVerifiedAccount(t, s, "ann@example.com")
	const n = 40
	for v := int64(1); v <= n; v++ {
		fire(t, s, newEmailAlert(t, s, acc), v, time.Now(), 0)
	}
	other, err := s.(Reopener).Reopen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	out := newOutbox()
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, st := range []store.Store{s, other} {
		w := newMailWorker(st, out, time.Now)
		w.Workers = 3
		wg.Go(func() { w.Run(runCtx) })
	}
	for deadline := time.Now().Add(15 * time.Second); len(out.sent()) < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a second send of one email would come now
	stop()
	wg.Wait()
	if sent := out.sent(); len(sent) != n || len(out.seen) != n {
		t.Fatalf("two replicas: %d emails sent, %d different, want each of %d once", len(sent), len(out.seen), n)
	}
	for _, e := range emailsOf(t, s, acc) {
		if e.State != alerts.EmailSent || e.Attempts != 1 {
			t.Errorf("email %d: %s after %d attempts", e.ID, e.State, e.Attempts)
		}
	}
}

// testAlertEmailsUnsubscribe: the token turns one alert's emails off, or
// all of its account's (not another account's); a queued email of an alert
// turned off, deleted, or of an unverified account is not sent; an unknown
// token is ErrNotFound; turning the email on again keeps the token.
func testAlertEmailsUnsubscribe(t *testing.T, s store.Store) {
	ctx := context.Background()
	as, es := s.(alerts.Store), s.(alerts.EmailStore)
	acc, other := newVerifiedAccount(t, s, "ann@example.com"), newVerifiedAccount(t, s, "bob@example.com")
	a, b, c := newEmailAlert(t, s, acc), newEmailAlert(t, s, acc), newEmailAlert(t, s, acc)
	theirs := newEmailAlert(t, s, other)
	for _, x := range []alerts.Alert{a, b, c, theirs} {
		fire(t, s, x, 1, time.Now(), 0)
	}
	out := newOutbox()
	w := newMailWorker(s, out, time.Now)
	sendAll(t, w)
	tokens := map[string]string{} // by recipient and alert link
	for _, m := range out.sent() {
		tokens[m.Link] = strings.TrimPrefix(m.Unsubscribe, testPublicURL+alerts.UnsubscribePath+"?token=")
	}
	link := func(x alerts.Alert) string { return testPublicURL + "/account/alerts/" + strconv.FormatInt(x.ID, 10) }
	if len(tokens) != 4 {
		t.Fatalf("tokens of 4 alerts' emails: %v", tokens)
	}
	for l, tok := range tokens {
		for l2, tok2 := range tokens {
			if l != l2 && tok == tok2 {
				t.Fatalf("two alerts share the token %s", tok)
			}
		}
	}

	for _, bad := range []string{"", strings.Repeat("0", 64), tokens[link(a)][:63]} {
		if _, err := es.AlertByEmailToken(ctx, bad); !errors.Is(err, alerts.ErrNotFound) {
			t.Errorf("AlertByEmailToken(%q): %v, want ErrNotFound", bad, err)
		}
		if _, _, err := es.StopAlertEmails(ctx, bad, true); !errors.Is(err, alerts.ErrNotFound) {
			t.Errorf("StopAlertEmails(%q): %v, want ErrNotFound", bad, err)
		}
	}
	// One alert: a's, with an email of it queued meanwhile.
	fire(t, s, a, 2, time.Now(), 0)
	got, n, err := es.StopAlertEmails(ctx, tokens[link(a)], false)
	if err != nil || n != 1 || got.ID != a.ID || got.Email {
		t.Fatalf("StopAlertEmails(a) = %+v, %d, %v", got, n, err)
	}
	if _, n, err := es.StopAlertEmails(ctx, tokens[link(a)], false); err != nil || n != 0 {
		t.Fatalf("StopAlertEmails(a) again = %d, %v; want 0 stopped, no error (a mail provider may post twice)", n, err)
	}
	email := func(x alerts.Alert) bool {
		t.Helper()
		all, err := as.Alerts(ctx, x.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		for _, y := range all {
			if y.ID == x.ID {
				return y.Email
			}
		}
		t.Fatalf("no alert %d", x.ID)
		return false
	}
	if email(a) || !email(b) || !email(c) || !email(theirs) {
		t.Fatalf("after a's unsubscribe: a %v, b %v, c %v, theirs %v", email(a), email(b), email(c), email(theirs))
	}
	before := len(out.sent())
	sendAll(t, w)
	if len(out.sent()) != before {
		t.Fatalf("an email of an alert unsubscribed after its firing was sent")
	}
	if e := emailsOf(t, s, acc)[0]; e.State != alerts.EmailCancelled || !strings.Contains(e.Error, "turned off") {
		t.Fatalf("the email of an alert unsubscribed: %+v", e)
	}
	// Firings after it queue nothing.
	if rec := fire(t, s, alertOf(t, s, a), 3, time.Now(), 0); rec.Emailed != 0 {
		t.Fatalf("a firing of an unsubscribed alert: %+v", rec)
	}
	// All: through b's token, c too; not the other account's.
	if got, n, err := es.StopAlertEmails(ctx, tokens[link(b)], true); err != nil || n != 2 || got.ID != b.ID {
		t.Fatalf("StopAlertEmails(b, all) = %+v, %d, %v; want b's and c's", got, n, err)
	}
	if email(b) || email(c) || !email(theirs) {
		t.Fatalf("after all: b %v, c %v, theirs %v", email(b), email(c), email(theirs))
	}
	// On again (the portal's edit): the same token.
	on := alertOf(t, s, a)
	on.Email = true
	if err := as.UpdateAlert(ctx, &on); err != nil {
		t.Fatal(err)
	}
	if got, err := es.AlertByEmailToken(ctx, tokens[link(a)]); err != nil || got.ID != a.ID || !got.Email {
		t.Fatalf("the token after the email is on again: %+v, %v", got, err)
	}
	// A deleted alert: its queued email is not sent, its token is gone.
	fire(t, s, theirs, 2, time.Now(), 0)
	if err := as.DeleteAlert(ctx, other, theirs.ID); err != nil {
		t.Fatal(err)
	}
	before = len(out.sent())
	sendAll(t, w)
	if len(out.sent()) != before || emailsOf(t, s, other)[0].State != alerts.EmailCancelled {
		t.Fatalf("the email of a deleted alert: %+v", emailsOf(t, s, other)[0])
	}
	if _, err := es.AlertByEmailToken(ctx, tokens[link(theirs)]); !errors.Is(err, alerts.ErrNotFound) {
		t.Fatalf("the token of a deleted alert: %v, want ErrNotFound", err)
	}
	// An account whose address is not verified gets nothing.
	unverified := newAlertAccount(t, s, "carl@example.com")
	fire(t, s, newEmailAlert(t, s, unverified), 1, time.Now(), 0)
	sendAll(t, w)
	if e := emailsOf(t, s, unverified)[0]; e.State != alerts.EmailCancelled || !strings.Contains(e.Error, "not verified") {
		t.Fatalf("the email of an unverified account: %+v", e)
	}
	for _, m := range out.sent() {
		if m.To == "carl@example.com" {
			t.Fatal("an unverified address got an alert email")
		}
	}
}

// testDeleteAccountEmails: deleting an account deletes its alert emails,
// sent or queued or held by a worker; that worker's FinishEmail finds its
// email gone, and nothing of it is claimed any more.
func testDeleteAccountEmails(t *testing.T, s store.Store) {
	ctx := context.Background()
	es := s.(alerts.EmailStore)
	acc, other := newVerifiedAccount(t, s, "ann@example.com"), newVerifiedAccount(t, s, "bob@example.com")
	mine := newEmailAlert(t, s, acc)
	fire(t, s, mine, 1, time.Now(), 0)
	out := newOutbox()
	sendAll(t, newMailWorker(s, out, time.Now))
	fire(t, s, mine, 2, time.Now(), 0)
	fire(t, s, mine, 3, time.Now(), 0)
	claimed, err := es.ClaimEmail(ctx, time.Now(), time.Minute)
	if err != nil || claimed.AccountID != acc {
		t.Fatalf("ClaimEmail = %+v, %v", claimed, err)
	}
	fire(t, s, newEmailAlert(t, s, other), 1, time.Now(), 0)
	if n := len(emailsOf(t, s, acc)); n != 3 {
		t.Fatalf("%d emails before the deletion, want 3", n)
	}

	if err := s.(account.Store).DeleteAccount(ctx, acc, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := emailsOf(t, s, acc); len(got) != 0 {
		t.Errorf("a deleted account's emails: %+v", got)
	}
	if err := es.FinishEmail(ctx, claimed, alerts.EmailSent, time.Now(), time.Time{}, ""); !errors.Is(err, alerts.ErrEmailLeaseLost) {
		t.Errorf("finishing a deleted account's email: %v, want ErrEmailLeaseLost", err)
	}
	next, err := es.ClaimEmail(ctx, time.Now().Add(time.Hour), time.Minute)
	if err != nil || next.AccountID != other {
		t.Errorf("the email due after the deletion: %+v, %v, want the other account's", next, err)
	}
	if _, err := es.ClaimEmail(ctx, time.Now().Add(time.Hour), time.Minute); !errors.Is(err, alerts.ErrNoEmail) {
		t.Errorf("a deleted account's email is still claimed: %v", err)
	}
}

// alertOf is a as the store has it now.
func alertOf(t *testing.T, s store.Store, a alerts.Alert) alerts.Alert {
	t.Helper()
	all, err := s.(alerts.Store).Alerts(context.Background(), a.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		if x.ID == a.ID {
			return x
		}
	}
	t.Fatalf("no alert %d", a.ID)
	return a
}
