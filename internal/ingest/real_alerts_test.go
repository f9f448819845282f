package ingest_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/store"
)

// TestAlertsOnRealOnePieceDays (issue 25: "one event per crossing over
// several ingests on real data"): the sample ingested with One Piece's real
// Cardmarket price guide of each of its five dates, the alerts evaluated
// after each ingest as serve evaluates them. Shanks (OP01-120, Cardmarket
// 690959) had a trend of 992.20, 1,072.71, 1,187.89, 1,229.52 and 1,229.52
// EUR on those days (TestOnePieceRealDays): an alert at or above 1,100 EUR
// fires once, on the third day, from 1,072.71 to 1,187.89; one at or above
// 1,200 once, on the fourth, and not again on the fifth, whose trend did not
// move; one at or above 2,000 never.
func TestAlertsOnRealOnePieceDays(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	guide := filepath.Join(dir, "cardmarket", "18", "price_guide.json")
	latest, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	st := openSQLite(t)
	acc := &account.Account{Email: "collector@example.com", Plan: account.Pro}
	if err := st.(account.Store).CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	as := st.(alerts.Store)
	ev := &alerts.Evaluator{Alerts: as, Catalog: st, Log: slog.New(slog.DiscardHandler),
		Lock: func(ctx context.Context) (func(), bool, error) {
			return st.(store.Locker).TryLock(ctx, alerts.LockName)
		}}

	days := []string{"2025-08-31", "2025-09-30", "2025-10-31", "2025-11-15", "2025-12-01"}
	thresholds := []int64{110000, 120000, 200000} // cents
	var created []alerts.Alert
	fired := map[string][]int64{} // day -> the thresholds of the alerts that fired
	for i, day := range days {
		b := latest
		if i < len(days)-1 {
			if b, err = os.ReadFile(filepath.Join(sampleDir, "cardmarket", "18", "history", day, "price_guide.json")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(guide, b, 0o644); err != nil {
			t.Fatal(err)
		}
		at, _ := time.Parse(time.DateOnly, day)
		mustRun(t, st, dir, at.Add(3*time.Hour))
		cat := mustLoad(t, st)
		snap, err := catalog.NewSnapshot(cat, game.Default())
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 { // the alerts, made on the first day's catalogue as the portal makes them
			shanks := cardOfProduct(t, cat, "op", 690959)
			for _, cents := range thresholds {
				a := alerts.Alert{AccountID: acc.ID, CardID: shanks, Source: alerts.CM, Finish: catalog.CMNormal,
					Rule: alerts.Rule{Kind: alerts.Above, Cents: cents}}
				if err := alerts.Check(&a, snap); err != nil {
					t.Fatal(err)
				}
				if err := as.CreateAlert(ctx, &a, 100); err != nil {
					t.Fatal(err)
				}
				created = append(created, a)
			}
		}
		res, err := ev.Evaluate(ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		if res.Evaluated != len(thresholds) {
			t.Fatalf("%s: %+v, want the %d alerts evaluated", day, res, len(thresholds))
		}
		events, err := as.Events(ctx, acc.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if e.Version != snap.Version {
				continue
			}
			for _, a := range created {
				if a.ID == e.AlertID {
					fired[day] = append(fired[day], a.Rule.Cents)
				}
			}
			if a := created[0]; e.AlertID == a.ID &&
				!strings.Contains(string(e.Body), `"old_price":1072.71,"new_price":1187.89`) {
				t.Errorf("the 1,100 EUR alert's event: %s", e.Body)
			}
			if a := created[1]; e.AlertID == a.ID &&
				!strings.Contains(string(e.Body), `"old_price":1187.89,"new_price":1229.52`) {
				t.Errorf("the 1,200 EUR alert's event: %s", e.Body)
			}
		}
	}
	want := map[string][]int64{"2025-10-31": {110000}, "2025-11-15": {120000}}
	if len(fired) != len(want) {
		t.Errorf("alerts fired on %v, want %v", fired, want)
	}
	for day, w := range want {
		if got := fired[day]; len(got) != 1 || got[0] != w[0] {
			t.Errorf("%s: the alerts of %v fired, want %v", day, got, w)
		}
	}
}

// cardOfProduct is the id of the card of Cardmarket product cm in game.
func cardOfProduct(t *testing.T, cat *catalog.Catalog, code string, cm int) string {
	t.Helper()
	for _, c := range cat.Game(code).Cards {
		if c.CMProductID == cm {
			return c.ID
		}
	}
	t.Fatalf("no %s card of Cardmarket product %d", code, cm)
	return ""
}
