package cardcat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/clients/go/cardcat"
	"github.com/cardcat/cardcat/clients/internal/livetest"
)

// TestClient runs the generated client against a real `cardcat serve` on
// the bundled sample: card detail, search, an error body, the 401 without a
// key, and the 429 with its headers.
func TestClient(t *testing.T) {
	srv := livetest.Start(t)
	ctx := context.Background()
	client := mustClient(t, srv.URL, cardcat.WithAPIKey(srv.Key))

	// The clients are generated from clients/openapi.json: it must be what
	// a server on its defaults serves.
	t.Run("served document", func(t *testing.T) {
		resp, err := client.GetOpenAPIWithResponse(ctx)
		if err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(filepath.Join("..", "..", "openapi.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, file); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != http.StatusOK || !bytes.Equal(resp.Body, want.Bytes()) {
			t.Errorf("GET /openapi.json (%d, %d bytes) is not clients/openapi.json compacted (%d bytes): regenerate with `make clients`",
				resp.StatusCode(), len(resp.Body), want.Len())
		}
	})

	t.Run("card detail", func(t *testing.T) {
		resp, err := client.GetCardWithResponse(ctx, "dbs", "dbs_b8900e61064a48cb", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != http.StatusOK || resp.JSON200 == nil {
			t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
		}
		card := resp.JSON200
		if card.Id != "dbs_b8900e61064a48cb" || !strings.HasPrefix(card.CardInfo.Name, "Vegeta - FB03-020") {
			t.Errorf("card %s %q", card.Id, card.CardInfo.Name)
		}
		if card.MarketT == nil || len(card.MarketT.Prices) == 0 {
			t.Errorf("no TCGplayer prices: %s", resp.Body)
		}
		rl, err := cardcat.RateLimitOf(resp.HTTPResponse.Header)
		if err != nil {
			t.Fatal(err)
		}
		if rl.LimitHour != 100 || rl.LimitDay != 1000 || rl.RemainingHour >= 100 || rl.RetryAfter != 0 {
			t.Errorf("rate limit %+v, want the Free plan's, counted", rl)
		}
		if h := resp.Headers200; h == nil || h.XRateLimitLimitHour != 100 || h.XRequestId == "" {
			t.Errorf("typed headers %+v", h)
		}
	})

	t.Run("the base game and One Piece", func(t *testing.T) {
		// Pokémon's routes have no prefix (their own operations, Pkm*); One
		// Piece's take the game "op".
		zapdos, err := client.PkmGetCardByTCGplayerProductWithResponse(ctx, 42356, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c := zapdos.JSON200; c == nil || !strings.HasPrefix(c.Id, "pkm_") || c.CardInfo.Name != "Zapdos" {
			t.Fatalf("GET /cards/tcgplayer/42356: %d %.300s", zapdos.StatusCode(), zapdos.Body)
		}
		again, err := client.PkmGetCardWithResponse(ctx, zapdos.JSON200.Id, nil)
		if err != nil || again.JSON200 == nil || !bytes.Equal(again.Body, zapdos.Body) {
			t.Errorf("GET /cards/%s: %v %.200s", zapdos.JSON200.Id, err, again.Body)
		}
		sets, err := client.ListSetsWithResponse(ctx, "op", nil)
		if err != nil {
			t.Fatal(err)
		}
		if sets.JSON200 == nil || !strings.Contains(string(sets.Body), `"set_code":"OP01"`) {
			t.Errorf("GET /op/sets: %d %.300s", sets.StatusCode(), sets.Body)
		}
	})

	t.Run("marketplace numbers and batch", func(t *testing.T) {
		byTCG, err := client.GetCardByTCGplayerProductWithResponse(ctx, "dbs", 615549, nil)
		if err != nil {
			t.Fatal(err)
		}
		byCM, err := client.GetCardByCardmarketProductWithResponse(ctx, "dbs", 624860, nil)
		if err != nil {
			t.Fatal(err)
		}
		if byTCG.JSON200 == nil || byTCG.JSON200.Id != "dbs_b8900e61064a48cb" || byCM.JSON200 == nil || !bytes.Equal(byCM.Body, byTCG.Body) {
			t.Errorf("by productId %d %.100s; by idProduct %d %.100s; want Vegeta twice", byTCG.StatusCode(), byTCG.Body, byCM.StatusCode(), byCM.Body)
		}
		batch, err := client.GetCardsWithResponse(ctx, "dbs", &cardcat.GetCardsParams{Ids: "dbs_0000000000000000,dbs_b8900e61064a48cb"})
		if err != nil {
			t.Fatal(err)
		}
		if b := batch.JSON200; b == nil || len(b.Data) != 1 || b.Data[0].Id != "dbs_b8900e61064a48cb" || len(b.NotFound) != 1 || b.NotFound[0] != "dbs_0000000000000000" {
			t.Errorf("batch: %d %.300s", batch.StatusCode(), batch.Body)
		}
	})

	t.Run("search", func(t *testing.T) {
		limit := 2
		resp, err := client.SearchCardsWithResponse(ctx, "dbs", &cardcat.SearchCardsParams{Q: "vegeta", Limit: &limit})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != http.StatusOK || resp.JSON200 == nil {
			t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
		}
		r := resp.JSON200
		if r.Query != "vegeta" || len(r.Results) != 2 || r.Pagination.Limit != 2 || r.Pagination.Total < 2 {
			t.Errorf("search: query %q, %d results, pagination %+v", r.Query, len(r.Results), r.Pagination)
		}
		for _, c := range r.Results {
			if !strings.Contains(strings.ToLower(c.CardInfo.Name), "vegeta") {
				t.Errorf("result %q", c.CardInfo.Name)
			}
		}
	})

	t.Run("error body", func(t *testing.T) {
		resp, err := client.GetCardWithResponse(ctx, "dbs", "dbs_0000000000000000", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != http.StatusNotFound || resp.JSON404 == nil {
			t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
		}
		if resp.JSON404.Error != cardcat.GetCard404JSONResponseBodyErrorCardNotFound || resp.JSON404.Message == "" {
			t.Errorf("404 body %+v", resp.JSON404)
		}
	})

	t.Run("401 without a key", func(t *testing.T) {
		anonymous := mustClient(t, srv.URL)
		resp, err := anonymous.ListSetsWithResponse(ctx, "dbs", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != http.StatusUnauthorized || resp.JSON401 == nil {
			t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
		}
		if resp.JSON401.Error != cardcat.UnauthorizedErrorAPIKeyRequired || !strings.Contains(resp.JSON401.Example, "X-API-Key") {
			t.Errorf("401 body %+v", resp.JSON401)
		}
		if got := resp.HTTPResponse.Header.Get("WWW-Authenticate"); got != `Bearer realm="cardcat"` {
			t.Errorf("WWW-Authenticate %q", got)
		}
	})

	t.Run("429 headers", func(t *testing.T) {
		limited := mustClient(t, srv.URL, cardcat.WithAPIKey(srv.LimitedKey))
		// The third request of an hour is refused; one of 6 is, even across
		// the end of an hour (the day allows 5).
		for i := 1; i <= 6; i++ {
			resp, err := limited.ListSetsWithResponse(ctx, "mtg", nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode() == http.StatusOK {
				continue
			}
			if resp.StatusCode() != http.StatusTooManyRequests || resp.JSON429 == nil {
				t.Fatalf("request %d: %d %s", i, resp.StatusCode(), resp.Body)
			}
			if i < livetest.LimitedPerHour+1 {
				t.Errorf("refused at request %d", i)
			}
			body := resp.JSON429
			if body.Error != cardcat.TooManyRequestsErrorRateLimitExceeded || body.Limits.Hourly.Limit != livetest.LimitedPerHour {
				t.Errorf("429 body %+v", body)
			}
			rl, err := cardcat.RateLimitOf(resp.HTTPResponse.Header)
			if err != nil {
				t.Fatal(err)
			}
			if rl.LimitHour != livetest.LimitedPerHour || rl.LimitDay != livetest.LimitedPerDay ||
				rl.RemainingHour != 0 && rl.RemainingDay != 0 || rl.RetryAfter < time.Second || rl.RetryAfter > 24*time.Hour {
				t.Errorf("rate limit %+v", rl)
			}
			if h := resp.Headers429; h == nil || h.RetryAfter != int(rl.RetryAfter/time.Second) || h.XRateLimitLimitHour != livetest.LimitedPerHour {
				t.Errorf("typed 429 headers %+v", h)
			}
			return
		}
		t.Fatalf("no 429 in 6 requests of an account limited to %d an hour", livetest.LimitedPerHour)
	})
}

func mustClient(t *testing.T, url string, opts ...cardcat.ClientOption) *cardcat.ClientWithResponses {
	t.Helper()
	c, err := cardcat.NewClientWithResponses(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRateLimitOf(t *testing.T) {
	h := http.Header{}
	h.Set("X-Ratelimit-Limit-Hour", "100")
	h.Set("X-Ratelimit-Remaining-Hour", "0")
	h.Set("X-Ratelimit-Limit-Day", "1000")
	h.Set("X-Ratelimit-Remaining-Day", "900")
	h.Set("Retry-After", "3078")
	got, err := cardcat.RateLimitOf(h)
	want := cardcat.RateLimit{LimitHour: 100, RemainingHour: 0, LimitDay: 1000, RemainingDay: 900, RetryAfter: 3078 * time.Second}
	if err != nil || got != want {
		t.Errorf("RateLimitOf = %+v, %v; want %+v", got, err, want)
	}
	h.Del("X-Ratelimit-Limit-Day")
	if _, err := cardcat.RateLimitOf(h); err == nil {
		t.Error("RateLimitOf without X-RateLimit-Limit-Day: no error")
	}
}
