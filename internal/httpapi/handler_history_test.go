package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/store/sqlite"
)

// historyDay is the UTC day of the fixture catalogue's version (its
// CreatedAt): the last day of every history window.
var historyDay = time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)

// historyWrites are the days (D-k) on which the fixture is written to the
// history store, oldest first: D-365 is just outside a 365-day window,
// D-364 its first day, D-29 the first day of the default 30.
var historyWrites = []int{400, 365, 364, 40, 29, 2, 0}

// Goku, the fixture's linked card (TCGplayer Normal and Foil, Cardmarket
// normal and foil), by its three id forms.
var (
	gokuID    = catalog.TCGCardID("dbs", 535600)
	gokuCMID  = catalog.CMCardID("dbs", 13, 700001)
	gokuUpper = "dbs_" + strings.ToUpper(gokuID[4:])
)

// fixtureDay is the fixture as written on D-k: Goku's prices carry k (so
// that each point says its day), and on D-2 he has no Foil on either
// marketplace.
func fixtureDay(tb testing.TB, k int) *catalog.Catalog {
	c := mustFixture(tb)
	for i := range c.Games {
		for j := range c.Games[i].Cards {
			card := &c.Games[i].Cards[j]
			if card.ID != gokuID {
				continue
			}
			for n := range card.TCGPrices {
				card.TCGPrices[n].Market = catalog.Cents(2000 + int64(k))
			}
			for n := range card.CMPrices {
				card.CMPrices[n].Trend = catalog.Cents(1800 + int64(k))
			}
			if k == 2 {
				card.TCGPrices = card.TCGPrices[:1]
				card.CMPrices = card.CMPrices[:1]
			}
		}
	}
	return c
}

// historyStore is a SQLite store holding the fixture's points of the days
// of historyWrites, written as ingest writes them.
func historyStore(tb testing.TB) *sqlite.DB {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "cardcat.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	var base int64
	for _, k := range historyWrites {
		c := fixtureDay(tb, k)
		if base, err = st.ReplaceCatalog(ctx, base, c.Games, "{}", historyDay.AddDate(0, 0, -k).Add(6*time.Hour)); err != nil {
			tb.Fatal(err)
		}
	}
	return st
}

// historyHandler is the paid API on the fixture (version of D) reading the
// history store.
func historyHandler(tb testing.TB, cfg Config, h PriceHistory) http.Handler {
	tb.Helper()
	c := mustFixture(tb)
	if !c.CreatedAt.Truncate(24 * time.Hour).Equal(historyDay) {
		tb.Fatalf("the fixture's version is of %v, the tests expect %v", c.CreatedAt, historyDay)
	}
	deps := paidDeps(mustView(tb, c))
	deps.History = h
	return mustServer(tb, cfg, deps)
}

func TestHistoryGolden(t *testing.T) {
	h := historyHandler(t, Config{}, historyStore(t))
	runGolden(t, h, []goldenCase{
		ultra("history_dbs_tcg", "/dbs/cards/"+gokuID+"/history", 200),
		ultra("history_dbs_cm_by_cardmarket_id", "/dbs/cards/"+gokuCMID+"/history?source=CM&days=365", 200),
		ultra("history_dbs_days_1", "/dbs/cards/"+gokuID+"/history?days=1", 200),
		ultra("history_dbs_no_points", "/dbs/cards/"+catalog.TCGCardID("dbs", 535620)+"/history?source=cm", 200),
		ultra("history_dbs_invalid_source", "/dbs/cards/"+gokuID+"/history?source=ebay", 400),
		ultra("history_dbs_invalid_days", "/dbs/cards/"+gokuID+"/history?days=366", 400),
		ultra("history_dbs_invalid_format", "/dbs/cards/"+gokuID+"/history?format=xml", 400),
		ultra("history_dbs_card_not_found", "/dbs/cards/dbs_0000000000000000/history", 404),
		ultra("history_dbs_malformed_id", "/dbs/cards/12345/history", 400),
		ultra("history_dbs_other_game_id", "/dbs/cards/"+catalog.TCGCardID("mtg", 541300)+"/history", 400),
		{"history_dbs_forbidden", "/dbs/cards/" + gokuID + "/history", 403, []string{"X-API-Key", keyFree}},
	})
}

// historyAnswer is the JSON answer, its points reduced to day, finish and
// the value that carries the day (market_price, or trend).
type historyAnswer struct {
	ID, Source, Currency, From, To string
	Days                           int
	History                        []historyRow
}

type historyRow struct{ Date, Variant, Value string }

func getHistory(t *testing.T, h http.Handler, target string) historyAnswer {
	t.Helper()
	w := get(h, target, "X-API-Key", keyUltra)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
	}
	checkAnswer(t, requestFor(t, w), w)
	var body struct {
		historyAnswer
		History []map[string]any `json:"history"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	a := body.historyAnswer
	a.History = []historyRow{}
	for _, p := range body.History {
		v := p["market_price"]
		if body.Source == "cm" {
			v = p["trend"]
		}
		b, _ := json.Marshal(v)
		a.History = append(a.History, historyRow{p["date"].(string), p["variant"].(string), string(b)})
	}
	return a
}

func requestFor(t *testing.T, w any) *http.Request {
	t.Helper()
	r, ok := requestOf.Load(w)
	if !ok {
		t.Fatal("the answer was not made by do")
	}
	return r.(*http.Request)
}

// TestHistoryWindow: the window's edges, the order (day, then finish), the
// days without a point, the sources and the id forms.
func TestHistoryWindow(t *testing.T) {
	h := historyHandler(t, Config{}, historyStore(t))
	tcg := func(k int, finish string) historyRow {
		return historyRow{historyDay.AddDate(0, 0, -k).Format(time.DateOnly), finish, string(catalog.Cents(2000 + int64(k)).AppendJSON(nil))}
	}
	cm := func(k int, finish string) historyRow {
		return historyRow{historyDay.AddDate(0, 0, -k).Format(time.DateOnly), finish, string(catalog.Cents(1800 + int64(k)).AppendJSON(nil))}
	}
	tcgDays := func(ks ...int) []historyRow {
		var rows []historyRow
		for _, k := range ks {
			if k != 2 {
				rows = append(rows, tcg(k, "Foil"))
			}
			rows = append(rows, tcg(k, "Normal"))
		}
		return rows
	}
	for _, tt := range []struct {
		query string
		days  int
		from  string
		want  []historyRow
	}{
		{"", 30, "2026-01-02", tcgDays(29, 2, 0)},
		{"?days=", 30, "2026-01-02", tcgDays(29, 2, 0)},
		{"?days=1", 1, "2026-01-31", tcgDays(0)},
		{"?days=2", 2, "2026-01-30", tcgDays(0)}, // D-1 has no point: absent
		{"?days=3", 3, "2026-01-29", tcgDays(2, 0)},
		{"?days=29", 29, "2026-01-03", tcgDays(2, 0)},
		{"?days=365", 365, "2025-02-01", tcgDays(364, 40, 29, 2, 0)},
		{"?source=tcg&days=41&format=JSON", 41, "2025-12-22", tcgDays(40, 29, 2, 0)},
		{"?source=cm&days=3", 3, "2026-01-29", []historyRow{cm(2, "normal"), cm(0, "foil"), cm(0, "normal")}},
	} {
		for _, id := range []string{gokuID, gokuCMID, gokuUpper} {
			got := getHistory(t, h, "/dbs/cards/"+id+"/history"+tt.query)
			source, currency := "tcg", "USD"
			if strings.Contains(tt.query, "cm") {
				source, currency = "cm", "EUR"
			}
			want := historyAnswer{ID: gokuID, Source: source, Currency: currency, Days: tt.days, From: tt.from, To: "2026-01-31", History: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("history of %s%s (-want +got):\n%s", id, tt.query, diff)
			}
		}
	}
}

func TestHistoryParameters(t *testing.T) {
	h := historyHandler(t, Config{}, historyStore(t))
	p := "/dbs/cards/" + gokuID + "/history"
	checkParams(t, h, []paramCase{
		{p + "?source=TCG", "", `"source":"tcg"`},
		{p + "?source=cm&source=tcg", "", `"source":"cm"`}, // the first value counts
		{p + "?days=365", "", `"days":365`},
		{p + "?days=007", "", `"days":7`},
		{p + "?format=", "", `"history":[`},
		{p + "?page=0&limit=x", "", `"days":30`}, // not paginated: ignored
		{p + "?source=market_t", "source", "tcg, cm"},
		{p + "?days=0", "days", "from 1 to 365"},
		{p + "?days=366", "days", "from 1 to 365"},
		{p + "?days=-1", "days", "from 1 to 365"},
		{p + "?days=%2B5", "days", "from 1 to 365"},
		{p + "?days=1.5", "days", "from 1 to 365"},
		{p + "?days=99999999999999999999", "days", "from 1 to 365"},
		{p + "?format=xml", "format", "json, csv"},
		{"/dbs/cards/dbs_0000000000000000/history?days=0", "days", "from 1 to 365"}, // parameters before the card
	})
}

// TestHistoryCSV: format=csv answers the JSON's rows as RFC 4180 CSV, a
// header row first, an empty field for a null, as an attachment.
func TestHistoryCSV(t *testing.T) {
	h := historyHandler(t, Config{}, historyStore(t))
	for _, tt := range []struct{ name, query string }{
		{"history_dbs_tcg", ""},
		{"history_dbs_cm", "source=cm&days=365&"},
	} {
		target := "/dbs/cards/" + gokuCMID + "/history?" + tt.query + "format=csv"
		w := get(h, target, "X-API-Key", keyUltra)
		checkAnswer(t, requestFor(t, w), w)
		if w.Code != 200 || w.Header().Get("Content-Type") != "text/csv; charset=utf-8; header=present" {
			t.Errorf("GET %s: %d %q", target, w.Code, w.Header().Get("Content-Type"))
		}
		source := "tcg"
		if tt.query != "" {
			source = "cm"
		}
		days := map[string]string{"tcg": "30", "cm": "365"}[source]
		if got, want := w.Header().Get("Content-Disposition"), `attachment; filename="`+gokuID+"_"+source+"_"+days+`d.csv"`; got != want {
			t.Errorf("Content-Disposition %q, want %q", got, want)
		}
		// Revalidated like the JSON: the CSV's own tag, a 304 without a body.
		tag := w.Header().Get("ETag")
		if j := get(h, strings.Replace(target, "format=csv", "format=json", 1), "X-API-Key", keyUltra); tag == "" || j.Header().Get("ETag") == tag {
			t.Errorf("CSV ETag %q, JSON's %q: want a tag of its own", tag, j.Header().Get("ETag"))
		}
		if nm := get(h, target, "X-API-Key", keyUltra, "If-None-Match", tag); nm.Code != http.StatusNotModified || nm.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag: %d %q, want 304 without a body", target, nm.Code, nm.Body)
		}
		if !bytes.Contains(w.Body.Bytes(), []byte("\r\n")) {
			t.Errorf("lines do not end in CRLF: %q", w.Body)
		}
		rows, err := csv.NewReader(bytes.NewReader(w.Body.Bytes())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		// The same rows as the JSON answer.
		j := get(h, strings.Replace(target, "format=csv", "format=json", 1), "X-API-Key", keyUltra)
		var body struct{ History []map[string]any }
		json.Unmarshal(j.Body.Bytes(), &body)
		if len(rows) != len(body.History)+1 {
			t.Fatalf("%d CSV rows, want a header and %d", len(rows), len(body.History))
		}
		for i, p := range body.History {
			for c, name := range rows[0] {
				want := ""
				if v := p[name]; v != nil {
					b, _ := json.Marshal(v)
					want = strings.Trim(string(b), `"`)
				}
				if rows[i+1][c] != want {
					t.Errorf("row %d, %s: %q, want %q (the JSON's)", i+1, name, rows[i+1][c], want)
				}
			}
		}
		path := filepath.Join("testdata", "golden", tt.name+".csv")
		if *update {
			if err := os.WriteFile(path, w.Body.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./internal/httpapi -update)", err)
		}
		if diff := cmp.Diff(string(want), w.Body.String()); diff != "" {
			t.Errorf("%s differs (-want +got):\n%s", path, diff)
		}
	}
}

// failingHistory is a history store that fails, or blocks until the
// request's deadline.
type failingHistory struct {
	err   error
	block bool
}

func (f failingHistory) PriceHistoryWindow(ctx context.Context, game, cardID, market string, from, to time.Time) ([]store.PricePoint, error) {
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, f.err
}

// TestHistoryUnavailable: a store that fails, or does not answer within
// HistoryTimeout, or none at all, is a 503 with Retry-After; the card is
// still resolved first (404 before 503).
func TestHistoryUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name string
		h    PriceHistory
	}{
		{"failing", failingHistory{err: errors.New("database is locked")}},
		{"too slow", failingHistory{block: true}},
		{"none", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := historyHandler(t, Config{HistoryTimeout: 20 * time.Millisecond}, tt.h)
			w := get(h, "/dbs/cards/"+gokuID+"/history", "X-API-Key", keyUltra)
			checkAnswer(t, requestFor(t, w), w)
			var body errorBody
			json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != 503 || body.Error != "Service unavailable" || w.Header().Get("Retry-After") != "5" ||
				strings.Contains(w.Body.String(), "locked") {
				t.Errorf("%d %s (Retry-After %q); want 503 Service unavailable, Retry-After 5, no cause", w.Code, w.Body, w.Header().Get("Retry-After"))
			}
			if w := get(h, "/dbs/cards/dbs_0000000000000000/history", "X-API-Key", keyUltra); w.Code != 404 {
				t.Errorf("unknown card: %d, want 404", w.Code)
			}
		})
	}
	if testing.Short() {
		return
	}
	runGolden(t, historyHandler(t, Config{}, failingHistory{err: errors.New("down")}), []goldenCase{
		ultra("history_dbs_unavailable", "/dbs/cards/"+gokuID+"/history", 503),
	})
}

// TestHistoryPathNeighbours: the history route is registered as
// /{game}/cards/{id}/{last} (route.muxPattern), so any other last segment is
// the unrouted 404, before the key is asked for; and the product lookups
// keep /{game}/cards/tcgplayer/history and /cardmarket/history.
func TestHistoryPathNeighbours(t *testing.T) {
	h := historyHandler(t, Config{}, historyStore(t))
	for _, tt := range []struct {
		target, key string
		status      int
		error       string
		didYouMean  any
	}{
		{"/dbs/cards/" + gokuID + "/prices", "", 404, "Endpoint not found", "/dbs/cards/" + gokuID},
		{"/dbs/cards/" + gokuID + "/histroy", keyUltra, 404, "Endpoint not found", "/dbs/cards/" + gokuID},
		{"/dbs/cards/" + gokuID + "/History", keyUltra, 404, "Endpoint not found", "/dbs/cards/" + gokuID},
		{"/dbs/cards/" + gokuID + "/history", "", 401, "API key required", nil},
		{"/dbs/cards/tcgplayer/history", keyUltra, 400, "Invalid parameter", nil},
		{"/dbs/cards/cardmarket/history", keyUltra, 400, "Invalid parameter", nil},
	} {
		w := get(h, tt.target, "X-API-Key", tt.key)
		var body errorBody
		json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != tt.status || body.Error != tt.error || (tt.didYouMean != nil && body.DidYouMean != tt.didYouMean) {
			t.Errorf("GET %s: %d %s; want %d %s (did_you_mean %v)", tt.target, w.Code, w.Body, tt.status, tt.error, tt.didYouMean)
		}
	}
}
