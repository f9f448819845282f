package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store/sqlite"
	"github.com/cardcat/cardcat/internal/webhooks"
)

// changedEvent is a card.changed event as the test's receiver reads it.
type changedEvent struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	Version      int64  `json:"catalogue_version"`
	Game         string `json:"game"`
	Subscription struct {
		ID    int64  `json:"id"`
		SetID string `json:"set_id"`
	} `json:"subscription"`
	Part, Parts int
	Cards       []struct {
		CardID  string `json:"card_id"`
		Change  string `json:"change"`
		Removed bool   `json:"removed"`
	} `json:"cards"`
}

// TestSubscriptionsEndToEnd: the operator's commands subscribe an
// account's webhook to a set; a running serve sends, for each ingested
// version of synth's mirror, one signed event with exactly the cards of
// the set that changed, none for an unchanged version, none again after a
// restart; a smaller mirror, which drops cards, tells the set's
// subscription and a card list's of the cards removed, marked as the change
// feed marks them; bad input exits 2 with what to fix.
func TestSubscriptionsEndToEnd(t *testing.T) {
	dir, mirror := t.TempDir(), t.TempDir()
	ingestCards := func(cards, day string) {
		t.Helper()
		if code, _, stderr := runSynth(t, nil, "--out", mirror, "--cards", cards, "--seed", "11", "--day", day, "--force"); code != 0 {
			t.Fatalf("synth day %s: exit %d: %s", day, code, stderr)
		}
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"ingest", "--from", mirror, "--data-dir", dir}, testEnv(nil), &out, &errb); err != nil {
			t.Fatalf("ingest day %s: %v\n%s", day, err, errb.String())
		}
	}
	ingestDay := func(day string) { t.Helper(); ingestCards("400", day) }
	load := func() *catalog.Catalog {
		t.Helper()
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "cardcat.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cat, err := st.LoadCatalog(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	ingestDay("0")
	createKey(t, dir, "--email", "ann@example.com", "--plan", "pro")
	createKey(t, dir, "--email", "bob@example.com", "--plan", "pro")
	createKey(t, dir, "--email", "free@example.com")

	// The game and set with the most cards, and a card of another game.
	cat := load()
	var gameCode, setID, foreign string
	most := 0
	for _, g := range cat.Games {
		count := map[string]int{}
		for _, c := range g.Cards {
			count[c.SetID]++
		}
		for id, n := range count {
			if n > most {
				most, gameCode, setID = n, g.Game, id
			}
		}
	}
	for _, g := range cat.Games {
		if g.Game != gameCode && len(g.Cards) > 0 {
			foreign = g.Cards[0].ID
		}
	}
	if setID == "" || foreign == "" {
		t.Fatalf("synth's catalogue has no set, or one game only: %d games", len(cat.Games))
	}
	setCards := func(c *catalog.Catalog) map[string]catalog.Card {
		out := map[string]catalog.Card{}
		for _, g := range c.Games {
			for _, card := range g.Cards {
				if g.Game == gameCode && card.SetID == setID {
					out[card.ID] = card
				}
			}
		}
		return out
	}
	// changed are the set's cards that differ between two catalogues.
	changed := func(before, after *catalog.Catalog) []string {
		var out []string
		b := setCards(before)
		for id, c := range setCards(after) {
			if old, ok := b[id]; !ok || !reflect.DeepEqual(old, c) {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}

	var mu sync.Mutex
	var secret string
	var events []changedEvent
	deliveries := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/hook" {
			return // another account's
		}
		mu.Lock()
		defer mu.Unlock()
		if err := webhooks.Verify(secret, r.Header.Get(webhooks.SignatureHeader), body, 0, time.Now()); err != nil {
			t.Errorf("delivery: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var e changedEvent
		if err := json.Unmarshal(body, &e); err != nil {
			t.Errorf("delivery: %v: %s", err, body)
		}
		deliveries[e.ID]++
		if deliveries[e.ID] == 1 {
			events = append(events, e)
		}
	}))
	defer recv.Close()
	allowHTTP := map[string]string{"CARDCAT_WEBHOOK_ALLOW_HTTP": "1"}
	out, code := alertsCmd(t, dir, allowHTTP, "webhooks", "create", "--email", "ann@example.com", "--url", recv.URL+"/hook")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[len(lines)-1], "whsec_") || !strings.HasPrefix(out, "webhook 1 ") {
		t.Fatalf("webhooks create: exit %d, %q", code, out)
	}
	mu.Lock()
	secret = lines[len(lines)-1]
	mu.Unlock()
	if out, code := alertsCmd(t, dir, allowHTTP, "webhooks", "create", "--email", "bob@example.com", "--url", recv.URL+"/bob"); code != 0 || !strings.HasPrefix(out, "webhook 2 ") {
		t.Fatalf("bob's webhooks create: exit %d, %q", code, out)
	}

	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("%s_%016x", gameCode, i)
	}
	sub := func(email string, args ...string) []string {
		return append([]string{"subscriptions", "create", "--email", email}, args...)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--set", "no-such-set"), `no set "no-such-set"`},
		{sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--cards", gameCode+"_00000000000000ff"), `no card "` + gameCode + `_00000000000000ff"`},
		{sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--cards", foreign), "not a " + gameCode + " card"},
		{sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--cards", strings.Join(many, ",")), "at most 1000"},
		{sub("ann@example.com", "--webhook-id", "2", "--game", gameCode, "--set", setID), "has no webhook 2"},
		{sub("ann@example.com", "--game", gameCode, "--set", setID), "--webhook-id"},
		{sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--set", setID, "--cards", foreign), "one of --set and --cards"},
		{sub("ann@example.com", "--webhook-id", "1", "--game", "xyz", "--set", setID), `no game "xyz"`},
		{sub("free@example.com", "--webhook-id", "1", "--game", gameCode, "--set", setID), "the Free plan has no webhooks"},
	} {
		out, code := alertsCmd(t, dir, nil, tt.args...)
		if code != 2 || !strings.Contains(out, tt.want) {
			t.Errorf("cardcat %s: exit %d, %q; want exit 2 and %q", strings.Join(tt.args, " ")[:min(120, len(strings.Join(tt.args, " ")))], code, out, tt.want)
		}
	}
	// Bob's Pro plan keeps 30, then refuses.
	for i := range 31 {
		out, code := alertsCmd(t, dir, nil, sub("bob@example.com", "--webhook-id", "2", "--game", gameCode, "--cards", foreignOr(cat, gameCode, i))...)
		if i < 30 && code != 0 || i == 30 && (code != 1 || !strings.Contains(out, "has 30 subscriptions already")) {
			t.Fatalf("bob's subscription %d: exit %d, %q", i+1, code, out)
		}
	}

	out, code = alertsCmd(t, dir, nil, sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--set", setID)...)
	if code != 0 || !strings.HasPrefix(out, "subscription 31 for account 1: set "+setID) {
		t.Fatalf("subscriptions create: exit %d, %q", code, out)
	}

	serveVars := map[string]string{"CARDCAT_WEBHOOK_ALLOW_HTTP": "1", "CARDCAT_WEBHOOK_ALLOW_PRIVATE": "1"}
	s := startServe(t, dir, serveVars, "--refresh-interval", "100ms")
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s\n%s", what, s.stderr.String())
			}
		}
	}
	evaluatedAt := func(version string, ids ...string) func() bool {
		if len(ids) == 0 {
			ids = []string{"31"}
		}
		return func() bool {
			out, _ := alertsCmd(t, dir, nil, "subscriptions", "list", "--email", "ann@example.com")
			for _, id := range ids {
				f := row(out, id) // ID GAME WATCHES("set" ID, or the cards) WEBHOOK LAST-VERSION CREATED
				if len(f) < 6 || f[len(f)-2] != version {
					return false
				}
			}
			return true
		}
	}
	received := func() ([]changedEvent, int) {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, d := range deliveries {
			n += d
		}
		return slices.Clone(events), n
	}
	checkVersion := func(version int64, want []string) {
		t.Helper()
		evs, n := received()
		if len(evs) != 1 || n != 1 {
			t.Fatalf("version %d: %d events in %d deliveries, want one", version, len(evs), n)
		}
		e := evs[0]
		var got []string
		for _, c := range e.Cards {
			got = append(got, c.CardID)
			if c.Change != "updated" {
				t.Errorf("card %s: change %q, want updated", c.CardID, c.Change)
			}
		}
		if e.Type != "card.changed" || e.Version != version || e.Game != gameCode || e.Subscription.ID != 31 || e.Subscription.SetID != setID ||
			e.Part != 1 || e.Parts != 1 || !slices.Equal(got, want) {
			t.Fatalf("version %d's event: %+v\nits cards %v\nwant %v", version, e, got, want)
		}
	}
	waitFor("the first version's evaluation", evaluatedAt("1"))

	before := load()
	ingestDay("1")
	want := changed(before, load())
	if len(want) == 0 {
		t.Fatalf("synth's day 1 changed none of set %s's %d cards", setID, most)
	}
	waitFor("the second version's event", func() bool { evs, _ := received(); return len(evs) > 0 })
	waitFor("the second version's evaluation", evaluatedAt("2"))
	checkVersion(2, want)
	t.Logf("version 2: %d of set %s's %d cards changed, told in one event", len(want), setID, most)

	// The same mirror again: a version with no change, no event.
	ingestDay("1")
	waitFor("the third version's evaluation", evaluatedAt("3"))
	time.Sleep(300 * time.Millisecond)
	if evs, n := received(); len(evs) != 1 || n != 1 {
		t.Fatalf("after an unchanged version: %d events in %d deliveries, want the first one only", len(evs), n)
	}

	// A restart: nothing sent twice.
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	s = startServe(t, dir, serveVars, "--refresh-interval", "100ms")
	time.Sleep(time.Second)
	if evs, n := received(); len(evs) != 1 || n != 1 {
		t.Fatalf("after a restart: %d events in %d deliveries, want the first one once", len(evs), n)
	}
	mu.Lock()
	events = nil
	clear(deliveries)
	mu.Unlock()
	before = load()
	ingestDay("2")
	want = changed(before, load())
	waitFor("the fourth version's evaluation", evaluatedAt("4"))
	if len(want) > 0 {
		waitFor("the fourth version's event", func() bool { evs, _ := received(); return len(evs) > 0 })
		time.Sleep(200 * time.Millisecond)
		checkVersion(4, want)
		t.Logf("version 4: %d cards changed, told in one event", len(want))
	}

	// A smaller mirror a day later drops cards, of the set among others.
	// A card list made now (so told of this version's changes: the set's
	// first and last ten cards) and the set's subscription are each told
	// of their cards removed, as the change feed marks them, and changed.
	before = load()
	var ordered []string
	for _, g := range before.Games {
		for _, c := range g.Cards {
			if g.Game == gameCode && c.SetID == setID {
				ordered = append(ordered, c.ID)
			}
		}
	}
	list := slices.Concat(ordered[:10], ordered[len(ordered)-10:])
	if out, code := alertsCmd(t, dir, nil, sub("ann@example.com", "--webhook-id", "1", "--game", gameCode, "--cards", strings.Join(list, ","))...); code != 0 ||
		!strings.HasPrefix(out, "subscription 32 for account 1: 20 cards") {
		t.Fatalf("subscriptions create --cards: exit %d, %q", code, out)
	}
	mu.Lock()
	events = nil
	clear(deliveries)
	mu.Unlock()
	ingestCards("380", "3")
	after := load()
	waitFor("the fifth version's evaluation", evaluatedAt("5", "31", "32"))
	// expect is each of ids that the fifth version removed or changed, as
	// "id:change", by id.
	expect := func(ids []string) []string {
		b, a := setCards(before), setCards(after)
		var out []string
		for _, id := range ids {
			old, inBefore := b[id]
			now, inAfter := a[id]
			switch {
			case !inAfter:
				out = append(out, id+":removed")
			case !inBefore || !reflect.DeepEqual(old, now):
				out = append(out, id+":updated")
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	want5 := map[int64][]string{
		31: expect(slices.Concat(ordered, slices.Collect(maps.Keys(setCards(after))))),
		32: expect(list),
	}
	removed := func(cards []string) (n int) {
		for _, c := range cards {
			if strings.HasSuffix(c, ":removed") {
				n++
			}
		}
		return n
	}
	if removed(want5[31]) == 0 || removed(want5[32]) == 0 {
		t.Fatalf("the smaller mirror removed %d of set %s's cards and %d of the list's: the test wants some of each", removed(want5[31]), setID, removed(want5[32]))
	}
	waitFor("the fifth version's two events", func() bool { evs, _ := received(); return len(evs) >= 2 })
	time.Sleep(200 * time.Millisecond)
	evs, n := received()
	got5 := map[int64][]string{}
	for _, e := range evs {
		if e.Version != 5 || e.Part != 1 || e.Parts != 1 {
			t.Errorf("version 5's event %+v", e)
		}
		for _, c := range e.Cards {
			got5[e.Subscription.ID] = append(got5[e.Subscription.ID], c.CardID+":"+c.Change)
			if c.Removed != (c.Change == "removed") {
				t.Errorf("subscription %d, card %s: change %q, removed %v", e.Subscription.ID, c.CardID, c.Change, c.Removed)
			}
		}
	}
	if diff := cmp.Diff(want5, got5); diff != "" || len(evs) != 2 || n != 2 {
		t.Fatalf("version 5: %d events in %d deliveries, want 2; their cards (-want +got):\n%s", len(evs), n, diff)
	}
	t.Logf("version 5: set %s told of %d cards (%d removed), the list of %d (%d removed)",
		setID, len(want5[31]), removed(want5[31]), len(want5[32]), removed(want5[32]))

	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.stderr.String(), "changed_events=") {
		t.Errorf("serve's log lacks the subscriptions' evaluation")
	}
	listed, _ := alertsCmd(t, dir, nil, "subscriptions", "list", "--email", "ann@example.com")
	if f := row(listed, "31"); len(f) != 7 || f[1] != gameCode || f[3] != setID || f[4] != "1" {
		t.Errorf("subscriptions list: %q", listed)
	}
	if out, code := alertsCmd(t, dir, nil, "subscriptions", "delete", "--email", "bob@example.com", "--id", "31"); code != 2 || !strings.Contains(out, "has no subscription 31") {
		t.Errorf("deleting another account's subscription: exit %d, %q", code, out)
	}
	if out, code := alertsCmd(t, dir, nil, "subscriptions", "delete", "--email", "ann@example.com", "--id", "31"); code != 0 {
		t.Errorf("subscriptions delete: exit %d, %q", code, out)
	}
}

// foreignOr is the i-th card of game in cat (wrapping around): a valid card
// list for a subscription.
func foreignOr(cat *catalog.Catalog, game string, i int) string {
	for _, g := range cat.Games {
		if g.Game == game {
			return g.Cards[i%len(g.Cards)].ID
		}
	}
	return ""
}
