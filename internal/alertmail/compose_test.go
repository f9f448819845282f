package alertmail

import (
	"errors"
	"flag"
	"fmt"
	"net/textproto"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/portal/mail"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt with the emails Compose writes")

// TestCompose: the emails of an above rule's firing and of a move's, with
// a note of capped firings, as a reader gets them (testdata/*.txt; -update
// rewrites them).
func TestCompose(t *testing.T) {
	created := time.Date(2026, 11, 28, 6, 2, 11, 0, time.UTC)
	token := "4f1c" + fmt.Sprintf("%060d", 7)
	above := alerts.Alert{ID: 17, AccountID: 3, Game: "pkm", CardID: "pkm_0123456789abcdef", Source: alerts.TCG, Finish: "Holofoil",
		Rule: alerts.Rule{Kind: alerts.Above, Cents: 1250}, LastPrice: catalog.Cents(1180)}
	move := alerts.Alert{ID: 18, AccountID: 3, Game: "dbs", CardID: "dbs_3ef29751ae2b88a4", Source: alerts.CM, Finish: "foil",
		Rule: alerts.Rule{Kind: alerts.Move, Percent: 20}, LastPrice: catalog.Cents(1000)}
	for _, tt := range []struct {
		name   string
		a      alerts.Alert
		card   string
		capped int
	}{
		{"above", above, "Charizard ex", 0},
		{"move_capped", move, "Son Goku\nSSJ", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The body an evaluation writes: a test event's, which is a
			// firing's with "test": true.
			ev := alerts.NewTestEvent(tt.a.AccountID, 0, &tt.a, 412, created)
			f, err := alerts.ReadFiring(ev.Body)
			if err != nil {
				t.Fatal(err)
			}
			e := alerts.Email{ID: 5, EventID: ev.ID, AccountID: 3, AlertID: tt.a.ID, CardName: tt.card, To: "ann@example.com",
				Verified: true, AlertEmails: true, Token: token, Capped: tt.capped}
			m := Compose(e, f, "https://cards.example.com", game.Default(), 20)
			unsub := "https://cards.example.com/account/alerts/unsubscribe?token=" + token
			if m.To != "ann@example.com" || m.Unsubscribe != unsub || m.Link != "https://cards.example.com/account/alerts/"+fmt.Sprint(tt.a.ID) {
				t.Errorf("message: to %q, unsubscribe %q, link %q", m.To, m.Unsubscribe, m.Link)
			}
			got := "Subject: " + m.Subject + "\n\n" + m.Text
			path := filepath.Join("testdata", tt.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/alertmail -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got; -update rewrites it):\n%s", path, diff)
			}
		})
	}
}

// TestReadFiring reads back what an event's body says.
func TestReadFiring(t *testing.T) {
	a := alerts.Alert{ID: 9, AccountID: 1, Game: "mtg", CardID: "mtg_00000000000000aa", Source: alerts.CM, Finish: "normal",
		Rule: alerts.Rule{Kind: alerts.Below, Cents: 99}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)
	ev := alerts.NewTestEvent(1, 0, &a, 7, at)
	f, err := alerts.ReadFiring(ev.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := alerts.Firing{EventID: ev.ID, Created: at, Version: 7, Game: "mtg", CardID: a.CardID, Source: alerts.CM, Finish: "normal",
		New: catalog.Cents(99), AlertID: 9, Rule: a.Rule, Test: true}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("ReadFiring (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{`, `{"type":"card.changed"}`} {
		if _, err := alerts.ReadFiring([]byte(bad)); err == nil {
			t.Errorf("ReadFiring(%s): no error", bad)
		}
	}
}

func TestPermanent(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("mail: x: RCPT TO: %w", &textproto.Error{Code: 550, Msg: "no such user"}), true},
		{fmt.Errorf("mail: x: DATA: %w", &textproto.Error{Code: 452, Msg: "mailbox full"}), false},
		{mail.ErrHeaderInjection, true},
		{errors.New("dial tcp 10.0.0.1:587: i/o timeout"), false},
	} {
		if got := permanent(tt.err); got != tt.want {
			t.Errorf("permanent(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
