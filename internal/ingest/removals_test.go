package ingest_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/synth"
)

// TestRunRecordsRemovedCardsSets: every card the change feed says a
// version removed (synth's mirror of 400 cards, then a smaller one) has
// the set it was in kept by then (store.RemovalStore), the set of the
// catalogue before, and no card kept has one; 90 days later the removals
// are forgotten with the feed's.
func TestRunRecordsRemovedCardsSets(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	dir := t.TempDir()
	run := func(cards int, at time.Time) {
		t.Helper()
		if _, err := synth.Synthetic(ctx, synth.Options{Out: dir, Replace: true, Seed: 11, Cards: cards}); err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Run(ctx, st, ingest.DirSource{Dir: dir}, game.Default(), at, ingest.Options{ChangeDays: 90}); err != nil {
			t.Fatal(err)
		}
	}
	t1, t2 := now, now.Add(24*time.Hour)
	run(400, t1)
	before := mustLoad(t, st)
	run(380, t2)
	rs := st.(store.RemovalStore)
	total := 0
	for _, g := range game.Default().All() {
		page, err := st.CardChanges(ctx, g.Code, t1, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		var ids []string
		for _, c := range page.Changes {
			ids = append(ids, c.ID)
			if c.Removed {
				for _, card := range before.Game(g.Code).Cards {
					if card.ID == c.ID {
						want[c.ID] = card.SetID
					}
				}
				if _, ok := want[c.ID]; !ok {
					t.Fatalf("%s %s: removed, but not in the catalogue before", g.Code, c.ID)
				}
			}
		}
		got, err := rs.RemovedCardSets(ctx, g.Code, ids)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the sets of the feed's changed cards (-removed cards' sets before +kept):\n%s", g.Code, diff)
		}
		total += len(want)
	}
	if total == 0 {
		t.Fatal("the smaller mirror removed no card")
	}
	t.Logf("%d removed cards, each with its set", total)

	// 91 days later, the same mirror: no removal, and the old ones forgotten.
	run(380, t2.AddDate(0, 0, 91))
	for _, g := range before.Games {
		var ids []string
		for _, c := range g.Cards {
			ids = append(ids, c.ID)
		}
		if got, err := rs.RemovedCardSets(ctx, g.Game, ids); err != nil || len(got) != 0 {
			t.Errorf("%s 91 days later: %d removals kept, %v; want none", g.Game, len(got), err)
		}
	}
}
