package alertmail_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alertmail"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/testkit"
)

// Without SMTP (a LogMailer), an alert email is logged as the portal's
// other emails are, with its recipient, subject, the alert's link and the
// unsubscribe link, and counted as sent.
func TestWorkerLogsWithoutSMTP(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "cardcat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	acc := &account.Account{Email: "ann@example.com", Plan: account.Free, VerifiedAt: time.Now()}
	if err := db.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	a := alerts.Alert{AccountID: acc.ID, Game: "dbs", CardID: "dbs_0000000000000001", Source: alerts.TCG, Finish: "Normal",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 100}, Email: true}
	if err := db.CreateAlert(ctx, &a, 3); err != nil {
		t.Fatal(err)
	}
	e := alerts.NewTestEvent(acc.ID, 0, &a, 2, time.Now())
	e.ID, e.Test = alerts.EventID(a.ID, 2), false
	if _, err := db.RecordEvaluations(ctx, 2, []alerts.Evaluation{{AlertID: a.ID, Price: catalog.Cents(125), Event: e, Email: true, CardName: "Son Goku"}}, 20); err != nil {
		t.Fatal(err)
	}
	var logs testkit.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	var finished []alerts.EmailState
	w := &alertmail.Worker{Store: db, Mailer: mail.LogMailer{Logger: log}, PublicURL: "http://localhost:8080", Log: log,
		OnFinish: func(s alerts.EmailState) { finished = append(finished, s) }}
	if did, err := w.SendOne(ctx); !did || err != nil {
		t.Fatalf("SendOne = %v, %v", did, err)
	}
	got := logs.String()
	for _, want := range []string{`msg="email not sent: no SMTP configured" to=ann@example.com subject="Price alert: Son Goku is 1.00 USD on TCGplayer (Normal)"`,
		"link=http://localhost:8080/account/alerts/1", `unsubscribe="http://localhost:8080/account/alerts/unsubscribe?token=`, `msg="alert email sent"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %s:\n%s", want, got)
		}
	}
	es, err := db.Emails(ctx, acc.ID, 10)
	if err != nil || len(es) != 1 || es[0].State != alerts.EmailSent || len(finished) != 1 || finished[0] != alerts.EmailSent {
		t.Fatalf("Emails = %+v, %v; finished %v", es, err, finished)
	}
	if did, err := w.SendOne(ctx); did || err != nil {
		t.Fatalf("SendOne with nothing due = %v, %v", did, err)
	}
}
