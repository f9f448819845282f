package ingest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
)

// TestRunPrunesHistory: with HistoryDays, a run keeps that many UTC days of
// points, its own included, and deletes the older ones of every game;
// without, every point is kept.
func TestRunPrunesHistory(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	run := func(at time.Time, days int) *ingest.Report {
		t.Helper()
		rep, err := ingest.Run(ctx, st, ingest.DirSource{Dir: sampleDir}, game.Default(), at, ingest.Options{HistoryDays: days})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	d := now.Add(-3 * 24 * time.Hour)
	for range 3 { // D-3, D-2, D-1, every point kept
		if rep := run(d, 0); rep.PointsPruned != 0 {
			t.Errorf("a run without HistoryDays pruned %d points", rep.PointsPruned)
		}
		d = d.Add(24 * time.Hour)
	}
	// Points per day: one per card, market and finish of the catalogue.
	cat := mustLoad(t, st)
	perDay := 0
	var card string
	for _, g := range cat.Games {
		for _, c := range g.Cards {
			perDay += len(c.TCGPrices) + len(c.CMPrices)
			if card == "" && len(c.TCGPrices) > 0 && len(c.CMPrices) > 0 {
				card = g.Game + "/" + c.ID
			}
		}
	}
	// On D, keeping 2 days: D-1 and D; D-3's and D-2's points go.
	if rep := run(now, 2); rep.PointsPruned != int64(2*perDay) {
		t.Errorf("pruned %d points, want 2 days of %d", rep.PointsPruned, perDay)
	}
	g, id, _ := strings.Cut(card, "/")
	h, err := st.PriceHistory(ctx, g, id)
	if err != nil {
		t.Fatal(err)
	}
	days := map[string]bool{}
	for _, p := range h {
		days[p.Day] = true
	}
	want := map[string]bool{now.AddDate(0, 0, -1).UTC().Format(time.DateOnly): true, now.UTC().Format(time.DateOnly): true}
	if len(days) != len(want) || !days[now.UTC().Format(time.DateOnly)] || !days[now.AddDate(0, 0, -1).UTC().Format(time.DateOnly)] {
		t.Errorf("days of %s after the prune: %v, want %v", card, days, want)
	}
}
