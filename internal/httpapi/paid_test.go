package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/serving"
)

// Keys of the paid tests, one per kind of account (testNow is 2026-02-01 12:00 UTC).
const (
	keyUltra         = "pk_test_ultra000000000000000000000000000"
	keyBusiness      = "pk_test_business000000000000000000000000"
	keyProTrial      = "pk_test_protrial000000000000000000000000" // Pro, trial started 3 days ago
	keyTrialLastHour = "pk_test_triallasthour0000000000000000000" // Free, trial ends in one hour
	keyFreeExpired   = "pk_test_freeexpired000000000000000000000" // Free, trial ended yesterday
	keyTrialJustOver = "pk_test_trialjustover0000000000000000000" // Pro, trial ended exactly now
	keyProNever      = "pk_test_pronever000000000000000000000000"
	keyFree          = "pk_test_free0000000000000000000000000000"
	keyCoffee        = "pk_test_coffee00000000000000000000000000"
	keyEarlyAccess   = "pk_test_earlyaccess000000000000000000000"
)

// testAccounts are the accounts behind the test keys.
var testAccounts = map[string]account.Account{
	keyUltra:         {Plan: account.Ultra},
	keyBusiness:      {Plan: account.Business},
	keyProTrial:      {Plan: account.Pro, TrialStartedAt: testNow.Add(-3 * 24 * time.Hour)},
	keyTrialLastHour: {Plan: account.Free, TrialStartedAt: testNow.Add(-account.TrialLength + time.Hour)},
	keyFreeExpired:   {Plan: account.Free, TrialStartedAt: testNow.Add(-8 * 24 * time.Hour)},
	keyTrialJustOver: {Plan: account.Pro, TrialStartedAt: testNow.Add(-account.TrialLength)},
	keyProNever:      {Plan: account.Pro},
	keyFree:          {Plan: account.Free},
	keyCoffee:        {Plan: account.Coffee},
	keyEarlyAccess:   {Plan: account.EarlyAccess},
}

// planAuth is the test Authenticator: the accounts above, their paid access
// decided at request time with the injected clock, as the account-backed
// Authenticator of the keys issue does.
type planAuth struct{ now func() time.Time }

func (a planAuth) Authenticate(_ context.Context, key string) (account.Caller, error) {
	acc, ok := testAccounts[key]
	if !ok {
		return account.Caller{}, account.ErrInvalidKey
	}
	return account.CallerOf(&acc, key[:12], a.now()), nil
}

// paidDeps are testDeps with the test accounts.
func paidDeps(v *serving.View) Deps {
	deps := testDeps(v)
	deps.Auth = planAuth{now: deps.Now}
	return deps
}

// paidHandler is the API on the fixture catalogue with the test accounts.
func paidHandler(tb testing.TB) http.Handler {
	tb.Helper()
	return mustServer(tb, Config{}, paidDeps(mustView(tb, mustFixture(tb))))
}

// ultra is a golden case asked with the Ultra key.
func ultra(name, target string, status int) goldenCase {
	return goldenCase{name, target, status, []string{"X-API-Key", keyUltra}}
}

// paidTargets are a request of each paid endpoint of each game.
var paidTargets = []string{
	"/dbs/prices/FB01", "/dbs/sets/FB01/statistics", "/dbs/sets/23401/completion-value",
	"/dbs/sets/trending", "/dbs/analytics/top-cards",
	"/mtg/prices/BLB?source=cm", "/mtg/sets/blb/statistics?variant=foil", "/mtg/sets/BLB/completion-value",
	"/mtg/sets/trending?limit=3", "/mtg/analytics/top-cards?metric=growth",
}

func TestPaidForbiddenGolden(t *testing.T) {
	h := paidHandler(t)
	runGolden(t, h, []goldenCase{
		{"paid_forbidden_redeem_url", "/dbs/prices/FB01", 403, []string{"X-API-Key", keyFree}},
		{"paid_forbidden_upgrade_url", "/mtg/analytics/top-cards", 403, []string{"X-API-Key", keyFreeExpired}},
	})
	// The placeholder Authenticator: every key is Free without a trial.
	runGolden(t, fixtureHandler(t), []goldenCase{
		{"paid_forbidden_placeholder_keys", "/dbs/sets/trending", 403, nil},
	})
}

// TestPaidAccess: Ultra, Business and an active trial call the paid
// endpoints; every other plan gets 403, with redeem_url before a trial and
// upgrade_url after one. The free endpoints answer every plan.
func TestPaidAccess(t *testing.T) {
	h := paidHandler(t)
	const (
		redeem  = "https://api.cardcat.test/account/trial"
		upgrade = "https://api.cardcat.test/account/upgrade"
	)
	tests := []struct {
		name, key       string
		status          int
		redeem, upgrade string
	}{
		{"Ultra", keyUltra, 200, "", ""},
		{"Business", keyBusiness, 200, "", ""},
		{"Pro with an active trial", keyProTrial, 200, "", ""},
		{"Free in the last hour of its trial", keyTrialLastHour, 200, "", ""},
		{"Free with an expired trial", keyFreeExpired, 403, "", upgrade},
		{"Pro whose trial ends now", keyTrialJustOver, 403, "", upgrade},
		{"Pro never trialed", keyProNever, 403, redeem, ""},
		{"Free", keyFree, 403, redeem, ""},
		{"Coffee", keyCoffee, 403, redeem, ""},
		{"Early Access", keyEarlyAccess, 403, redeem, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, target := range paidTargets {
				w := get(h, target, "X-API-Key", tt.key)
				if w.Code != tt.status {
					t.Errorf("GET %s: %d, want %d", target, w.Code, tt.status)
					continue
				}
				if tt.status != 403 {
					continue
				}
				var body errorBody
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
					t.Fatal(err)
				}
				if body.Error != "Plan upgrade required" || body.Message == "" || body.RedeemURL != tt.redeem || body.UpgradeURL != tt.upgrade {
					t.Errorf("GET %s: %s", target, w.Body)
				}
			}
			for _, target := range []string{"/dbs/sets", "/mtg/sets/BLB", "/dbs/search?q=goku"} {
				if w := get(h, target, "X-API-Key", tt.key); w.Code != 200 {
					t.Errorf("free endpoint %s: %d", target, w.Code)
				}
			}
		})
	}
}

// TestPaidCheckOrder: the key is checked first (401), then the plan (403),
// and only then the parameters (400) and the set (404); an unknown path is
// 404 before all of them.
func TestPaidCheckOrder(t *testing.T) {
	h := paidHandler(t)
	tests := []struct {
		target, key string
		status      int
		error       string
	}{
		{"/dbs/prices/nope?source=bogus", "", 401, "API key required"},
		{"/dbs/prices/nope?source=bogus", "pk_test_unknown0000000000000000000000000", 401, "Invalid API key"},
		{"/dbs/prices/nope?source=bogus", keyFree, 403, "Plan upgrade required"},
		{"/dbs/analytics/top-cards?limit=0", keyFreeExpired, 403, "Plan upgrade required"},
		{"/dbs/prices/nope?source=bogus", keyUltra, 400, "Invalid parameter"},
		{"/dbs/prices/nope", keyUltra, 404, "Set not found"},
		{"/dbs/analytic/top-cards", "", 404, "Endpoint not found"},
	}
	for _, tt := range tests {
		w := get(h, tt.target, "X-API-Key", tt.key)
		var body errorBody
		json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != tt.status || body.Error != tt.error {
			t.Errorf("GET %s with %q: %d %q, want %d %q", tt.target, tt.key, w.Code, body.Error, tt.status, tt.error)
		}
	}
}

// TestPaidRateLimitSlot: a 403 passes the rate-limit step, so it counts.
func TestPaidRateLimitSlot(t *testing.T) {
	deps := paidDeps(mustView(t, mustFixture(t)))
	rec := newRecordingLimiter(t)
	deps.Limiter = rec
	h := mustServer(t, Config{}, deps)
	w := get(h, "/dbs/sets/trending", "X-API-Key", keyFree)
	get(h, "/dbs/sets/trending", "X-API-Key", keyUltra)
	if w.Code != http.StatusForbidden || w.Header().Get("X-RateLimit-Remaining-Hour") != "99" {
		t.Errorf("Free caller: %d, remaining %q; want 403 counted (99 left)", w.Code, w.Header().Get("X-RateLimit-Remaining-Hour"))
	}
	if diff := cmp.Diff([]string{"take acct:0", "take acct:0"}, rec.get()); diff != "" {
		t.Errorf("limiter calls (-want +got):\n%s", diff)
	}
}

// TestTrendingIsNotASet: /{game}/sets/trending is the trending endpoint even
// when a set's code is "trending"; that set is reached by its set_id, by its
// code in another case, and through its own sub-routes.
func TestTrendingIsNotASet(t *testing.T) {
	c := mustFixture(t)
	dbs := c.Game("dbs")
	dbs.Sets = append(dbs.Sets, catalog.Set{Game: "dbs", ID: "99001", Code: "trending", Name: "Trending Topics",
		Language: "en", ReleaseDate: "2024-01-01T00:00:00", TCGCategoryID: 80, TCGGroupID: 99001})
	dbs.Cards = append(dbs.Cards, catalog.Card{Game: "dbs", ID: catalog.TCGCardID("dbs", 990001), SetID: "99001",
		TCGProductID: 990001, Name: "Trend Setter", CleanName: "Trend Setter", CardNumber: "TT-001", ProductType: catalog.ProductCard})
	h := mustServer(t, Config{}, paidDeps(mustView(t, c)))

	w := get(h, "/dbs/sets/trending", "X-API-Key", keyUltra)
	if w.Code != 200 || !strings.HasPrefix(w.Body.String(), `{"period":"7d","trending_sets":`) {
		t.Errorf("/dbs/sets/trending: %d %.80s, want the trending sets", w.Code, w.Body)
	}
	if w := get(h, "/dbs/sets/trending", "X-API-Key", keyFree); w.Code != 403 {
		t.Errorf("/dbs/sets/trending with a Free key: %d, want 403 (the paid route, not the set listing)", w.Code)
	}
	for _, target := range []string{"/dbs/sets/99001", "/dbs/sets/Trending", "/dbs/sets/TRENDING"} {
		w := get(h, target, "X-API-Key", keyUltra)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"set_id":"99001"`) {
			t.Errorf("%s: %d %.80s, want the set's cards", target, w.Code, w.Body)
		}
	}
	for _, target := range []string{"/dbs/sets/trending/statistics", "/dbs/sets/trending/completion-value", "/dbs/prices/trending"} {
		w := get(h, target, "X-API-Key", keyUltra)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"set_id":"99001"`) {
			t.Errorf("%s: %d %.80s, want the set's answer", target, w.Code, w.Body)
		}
	}
}

// TestPaidReadsViewOnce: a paid answer comes from one catalogue version.
func TestPaidReadsViewOnce(t *testing.T) {
	v := mustView(t, mustFixture(t))
	var calls atomic.Int64
	deps := paidDeps(v)
	deps.View = func() *serving.View { calls.Add(1); return v }
	h := mustServer(t, Config{}, deps)
	for _, target := range append(paidTargets, "/dbs/prices/FB03_AR", "/dbs/prices/nope", "/mtg/sets/WHO/statistics") {
		calls.Store(0)
		w := get(h, target, "X-API-Key", keyUltra)
		if n := calls.Load(); n != 1 {
			t.Errorf("GET %s (%d) read the view %d times, want 1", target, w.Code, n)
		}
	}
}

// TestPaidNoCatalogueYet: before the first version, paid routes answer 503
// like the free ones (after the plan check).
func TestPaidNoCatalogueYet(t *testing.T) {
	h := mustServer(t, Config{}, paidDeps(nil))
	for _, target := range paidTargets {
		if w := get(h, target, "X-API-Key", keyUltra); w.Code != 503 {
			t.Errorf("GET %s: %d, want 503", target, w.Code)
		}
	}
}

// TestTopCardsCardInfo: a top card's card_info is its card detail's, byte
// for byte, in every list of both games.
func TestTopCardsCardInfo(t *testing.T) {
	for _, c := range []*catalog.Catalog{mustFixture(t), sampleOrNil(t)} {
		if c == nil {
			continue
		}
		h := mustServer(t, Config{}, paidDeps(mustView(t, c)))
		n := 0
		for _, game := range []string{"dbs", "mtg"} {
			for _, q := range []string{"metric=price&source=tcg", "metric=price&source=cm", "metric=growth"} {
				var body struct {
					TopCards []struct {
						ID       string          `json:"id"`
						CardInfo json.RawMessage `json:"card_info"`
					} `json:"top_cards"`
				}
				w := get(h, prefix(game)+"/analytics/top-cards?limit=100&"+q, "X-API-Key", keyUltra)
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != 200 {
					t.Fatalf("%s %s: %d %v", game, q, w.Code, err)
				}
				for _, item := range body.TopCards {
					var card struct {
						CardInfo json.RawMessage `json:"card_info"`
					}
					json.Unmarshal(get(h, prefix(game)+"/cards/"+item.ID, "X-API-Key", keyUltra).Body.Bytes(), &card)
					if !bytes.Equal(card.CardInfo, item.CardInfo) {
						t.Errorf("%s %s: card_info differs from the card's:\n%s\n%s", game, item.ID, item.CardInfo, card.CardInfo)
					}
					n++
				}
			}
		}
		if n == 0 {
			t.Error("no top card checked")
		}
	}
}

// sampleOrNil is the bundled sample's catalogue, nil when it is absent.
func sampleOrNil(t *testing.T) *catalog.Catalog {
	var c *catalog.Catalog
	t.Run("sample", func(t *testing.T) { c = mustMirror(t, sampleDir) })
	return c
}

// paramCase is a request of a paid endpoint and what it must answer: 400
// naming param, or (param "") 200 with a body holding want.
type paramCase struct {
	target, param, want string
}

// checkParams sends each case with the Ultra key.
func checkParams(t *testing.T, h http.Handler, cases []paramCase) {
	t.Helper()
	for _, tc := range cases {
		w := get(h, tc.target, "X-API-Key", keyUltra)
		if tc.param == "" {
			if w.Code != 200 || !strings.Contains(w.Body.String(), tc.want) {
				t.Errorf("GET %s: %d %.200s, want 200 holding %s", tc.target, w.Code, w.Body, tc.want)
			}
			continue
		}
		var body errorBody
		json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != 400 || body.Error != "Invalid parameter" || !strings.Contains(body.Message, "parameter "+tc.param) ||
			!strings.Contains(body.Message, tc.want) {
			t.Errorf("GET %s: %d %s, want 400 Invalid parameter naming %s and %q", tc.target, w.Code, w.Body, tc.param, tc.want)
		}
	}
}

// limitCases are the limit rules of a list endpoint: those of every
// paginated route (integers >= 1, no sign, not empty; above max clamped).
func limitCases(route string) []paramCase {
	sep := "?"
	if strings.Contains(route, "?") {
		sep = "&"
	}
	var out []paramCase
	for _, bad := range []string{"0", "-1", "1.5", "ten", "", "%2B5", "+5", "1e3", "0x10", "%205"} {
		out = append(out, paramCase{route + sep + "limit=" + bad, "limit", "at least 1"})
	}
	return out
}

// listCatalog has 60 sets of 3 cards, every card priced on both marketplaces
// and moving, so that the list endpoints show their limits at the maximum.
// Set "100" moves most.
func listCatalog() *catalog.Catalog {
	gc := catalog.GameCatalog{Game: "dbs"}
	for s := 0; s < 60; s++ {
		id := strconv.Itoa(100 + s)
		gc.Sets = append(gc.Sets, catalog.Set{Game: "dbs", ID: id, Code: "L" + id, Name: "List Set " + id,
			ReleaseDate: "2024-01-01T00:00:00", TCGCategoryID: 80, TCGGroupID: 100 + s})
		for i := 0; i < 3; i++ {
			n := s*3 + i + 1
			name := "List Card " + strconv.Itoa(n)
			gc.Cards = append(gc.Cards, catalog.Card{Game: "dbs", ID: catalog.TCGCardID("dbs", n), SetID: id,
				TCGProductID: n, CMProductID: n, CMID: catalog.CMCardID("dbs", 13, n), Name: name, CleanName: name,
				CMProductName: name, CardNumber: "L-" + strconv.Itoa(n), ProductType: catalog.ProductCard, Variants: []string{"Normal"},
				TCGPrices: []catalog.TCGPrice{{SubType: "Normal", Market: catalog.Cents(int64(100 + n)), UpdatedAt: testNow}},
				CMPrices: []catalog.CMPrice{{Variant: catalog.CMNormal, Avg: catalog.Cents(200), Trend: catalog.Cents(int64(200 + n)),
					Avg7: catalog.Cents(int64(200 + (60-s)*10 + i)), Avg30: catalog.Cents(200), UpdatedAt: testNow}},
			})
		}
	}
	return &catalog.Catalog{Version: 1, CreatedAt: testNow, Games: []catalog.GameCatalog{gc}}
}

func listHandler(tb testing.TB) http.Handler {
	tb.Helper()
	return mustServer(tb, Config{}, paidDeps(mustView(tb, listCatalog())))
}

// checkCount checks how many items the list key of route holds per query.
func checkCount(t *testing.T, h http.Handler, route, key string, counts map[string]int) {
	t.Helper()
	for query, want := range counts {
		w := get(h, route+query, "X-API-Key", keyUltra)
		var body map[string]json.RawMessage
		var items []json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || json.Unmarshal(body[key], &items) != nil {
			t.Fatalf("GET %s%s: %d %.200s", route, query, w.Code, w.Body)
		}
		if len(items) != want {
			t.Errorf("GET %s%s: %d items, want %d", route, query, len(items), want)
		}
	}
}

// TestProPaidGames: the Pro plan's paid access covers the base game
// (Pokémon, unprefixed) and One Piece, not Dragon Ball Super or Magic; the
// 403 of a game Pro covers names Pro. Ultra covers all four.
func TestProPaidGames(t *testing.T) {
	h := mustServer(t, Config{}, paidDeps(mustView(t, mustMirror(t, sampleDir))))
	covered := []string{"/prices/BS", "/sets/BS/statistics", "/sets/trending", "/analytics/top-cards",
		"/op/prices/OP01", "/op/sets/OP01/completion-value", "/op/sets/trending"}
	notCovered := []string{"/dbs/prices/FB01", "/mtg/sets/trending", "/dbs/analytics/top-cards"}
	for _, key := range []string{keyProNever, keyTrialJustOver} {
		for _, target := range covered {
			if w := get(h, target, "X-API-Key", key); w.Code != 200 {
				t.Errorf("Pro: GET %s: %d %s", target, w.Code, w.Body)
			}
		}
		for _, target := range notCovered {
			if w := get(h, target, "X-API-Key", key); w.Code != 403 {
				t.Errorf("Pro: GET %s: %d, want 403", target, w.Code)
			}
		}
	}
	for _, target := range append(covered, notCovered...) {
		if w := get(h, target, "X-API-Key", keyUltra); w.Code != 200 {
			t.Errorf("Ultra: GET %s: %d", target, w.Code)
		}
	}
	w := get(h, "/prices/BS", "X-API-Key", keyFree)
	if w.Code != 403 || !strings.Contains(w.Body.String(), "needs the Pro, Ultra or Business plan") {
		t.Errorf("Free, GET /prices/BS: %d %s", w.Code, w.Body)
	}
	w = get(h, "/dbs/prices/FB01", "X-API-Key", keyFree)
	if w.Code != 403 || strings.Contains(w.Body.String(), "Pro") {
		t.Errorf("Free, GET /dbs/prices/FB01: %d %s", w.Code, w.Body)
	}
}

// TestPaidAnswerTags: every paid 200 carries, as its ETag, the hash of the
// bytes it sent (the tag analytics made once), and a 304 answers it.
func TestPaidAnswerTags(t *testing.T) {
	h := paidHandler(t)
	for _, target := range paidTargets {
		w := get(h, target, "X-API-Key", keyUltra)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", target, w.Code)
		}
		if got, want := w.Header().Get("ETag"), etag.Of(w.Body.Bytes()); got != want {
			t.Errorf("GET %s: ETag %s, the body's hash %s", target, got, want)
		}
		if w := get(h, target, "X-API-Key", keyUltra, "If-None-Match", w.Header().Get("ETag")); w.Code != http.StatusNotModified {
			t.Errorf("GET %s revalidated: %d, want 304", target, w.Code)
		}
	}
}

// TestPaidAnswerMissing: a listed set without a paid answer (answers built
// from another catalogue: a programming error) is a 500 with the internal
// error's body, not an empty 200.
func TestPaidAnswerMissing(t *testing.T) {
	v := mustView(t, mustFixture(t))
	broken := *v
	broken.Paid = map[string]*analytics.Game{}
	for code, paid := range v.Paid {
		broken.Paid[code] = paid
	}
	broken.Paid["dbs"] = analytics.Build(v.Snapshot.Game("dbs"), nil, analytics.Options{})
	h := mustServer(t, Config{}, paidDeps(&broken))
	for _, target := range []string{"/dbs/prices/FB01", "/dbs/sets/FB01/statistics", "/dbs/sets/23401/completion-value"} {
		w := get(h, target, "X-API-Key", keyUltra)
		if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), `"error":"`+errInternal+`"`) {
			t.Errorf("GET %s: %d %s, want 500 %q", target, w.Code, w.Body, errInternal)
		}
	}
	if w := get(h, "/mtg/prices/BLB", "X-API-Key", keyUltra); w.Code != http.StatusOK {
		t.Errorf("another game's answer: %d, want 200", w.Code)
	}
}
