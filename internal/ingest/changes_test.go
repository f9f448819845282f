package ingest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/synth"
)

// bodies returns every card detail body the store's current catalogue
// serves, by "game id".
func bodies(t *testing.T, st store.Store) map[string]string {
	t.Helper()
	cat := mustLoad(t, st)
	snap, err := catalog.NewSnapshot(cat, game.Default())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, gc := range cat.Games {
		gs := snap.Game(gc.Game)
		for _, c := range gc.Cards {
			r, ok := gs.LookupCard(c.ID)
			if !ok {
				t.Fatalf("%s %s not served", gc.Game, c.ID)
			}
			m[gc.Game+" "+c.ID] = gs.CardJSON(r)
		}
	}
	return m
}

// feed returns the "game id" of every card of the change feed after since,
// checking that each changed at wantAt and that the feed's until is until.
func feed(t *testing.T, st store.Store, since, wantAt, until time.Time) []string {
	t.Helper()
	var ids []string
	for _, g := range game.Default().All() {
		p, err := st.CardChanges(context.Background(), g.Code, since, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != len(p.Changes) || !p.Until.Equal(until) {
			t.Errorf("%s: total %d, %d changes, until %s (want %s)", g.Code, p.Total, len(p.Changes), p.Until, until)
		}
		for _, c := range p.Changes {
			if !c.ChangedAt.Equal(wantAt) || c.Removed {
				t.Errorf("%s %s: changed at %s (removed %v), want %s", g.Code, c.ID, c.ChangedAt, c.Removed, wantAt)
			}
			ids = append(ids, g.Code+" "+c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// The change feed lists exactly the cards whose served body differs between
// two versions (a synthetic mirror, then the same mirror a day later, whose
// prices moved for some cards), and nothing after the same files again.
func TestRunRecordsChangedCards(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	dir := t.TempDir()
	t1, t2, t3 := now, now.Add(24*time.Hour), now.Add(48*time.Hour)
	run := func(day int, at time.Time) map[string]string {
		t.Helper()
		if _, err := synth.Synthetic(ctx, synth.Options{Out: dir, Replace: true, Seed: 5, Cards: 300, Day: day}); err != nil {
			t.Fatal(err)
		}
		rep, err := ingest.Run(ctx, st, ingest.DirSource{Dir: dir}, game.Default(), at, ingest.Options{ChangeDays: 90})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range rep.Games {
			t.Logf("%s at %s: %d cards, %d changed, %d removed", g.Game, at, g.Cards, g.CardsChanged, g.CardsRemoved)
		}
		return bodies(t, st)
	}

	first := run(0, t1)
	if got := feed(t, st, t1, t1, t1); len(got) != 0 {
		t.Errorf("first version: %d changes, want none (the feed starts there)", len(got))
	}
	second := run(1, t2)
	var want []string
	for id, body := range second {
		if first[id] != body {
			want = append(want, id)
		}
	}
	for id := range first {
		if _, ok := second[id]; !ok {
			t.Fatalf("%s removed by the next day's mirror: the test expects prices to move only", id)
		}
	}
	slices.Sort(want)
	if len(want) == 0 || len(want) == len(second) {
		t.Fatalf("%d of %d cards changed: the test wants some changed and some not", len(want), len(second))
	}
	if diff := cmp.Diff(want, feed(t, st, t1, t2, t2)); diff != "" {
		t.Errorf("changes after the first version (-bodies that differ +feed):\n%s", diff)
	}

	run(1, t3)
	if got := feed(t, st, t2, t3, t3); len(got) != 0 {
		t.Errorf("the same files again: %d changes, want none: %v", len(got), got)
	}
	if diff := cmp.Diff(want, feed(t, st, t1, t2, t3)); diff != "" {
		t.Errorf("changes after the first version, read at the third (-want +got):\n%s", diff)
	}
}
