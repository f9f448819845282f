package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/mcpserver"
	"github.com/cardcat/cardcat/internal/serving"
)

// lorcana is a fifth game, described only by its registry entry.
var lorcana = game.Game{
	Code: "lor", Name: "Disney Lorcana", Listed: true,
	TCGCategories: []int{71}, CardmarketGame: 19, CardmarketSlug: "Lorcana",
	CardText: []string{"Description"}, CardType: []string{"CardType"}, Rarity: []string{"Rarity"}, Number: []string{"Number"},
	Extra: []game.Field{{Key: "ink", Names: []string{"Ink Color"}}, {Key: "lore", Names: []string{"Lore"}}},
}

// fifthGameMirror writes a small mirror of the fifth game (and no Dragon
// Ball Super products): a set of two cards, one also on Cardmarket.
func fifthGameMirror(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"tcgplayer/categories.json": `{"success":true,"errors":[],"results":[{"categoryId":71,"name":"Lorcana TCG"}]}`,
		"tcgplayer/27/groups.json":  `{"success":true,"errors":[],"results":[]}`,
		"tcgplayer/80/groups.json":  `{"success":true,"errors":[],"results":[]}`,
		"tcgplayer/71/groups.json": `{"success":true,"errors":[],"results":[{"groupId":23303,"categoryId":71,"name":"The First Chapter",` +
			`"abbreviation":"TFC","publishedOn":"2023-08-18T00:00:00","modifiedOn":"2024-01-01T00:00:00"}]}`,
		"tcgplayer/71/23303/products.json": `{"success":true,"errors":[],"results":[` +
			`{"productId":508012,"name":"Elsa - Spirit of Winter","cleanName":"Elsa Spirit of Winter","groupId":23303,"imageCount":1,` +
			`"url":"https://www.tcgplayer.com/product/508012","extendedData":[{"name":"Rarity","displayName":"Rarity","value":"Legendary"},` +
			`{"name":"Number","displayName":"Number","value":"42/204"},{"name":"Ink Color","displayName":"Ink Color","value":"Amethyst"},` +
			`{"name":"Lore","displayName":"Lore","value":"3"},{"name":"Description","displayName":"Description","value":"Deep Freeze"}]},` +
			`{"productId":508013,"name":"Mickey Mouse - Brave Little Tailor","groupId":23303,"imageCount":1,` +
			`"extendedData":[{"name":"Rarity","displayName":"Rarity","value":"Legendary"},{"name":"Number","displayName":"Number","value":"115/204"},` +
			`{"name":"Ink Color","displayName":"Ink Color","value":"Ruby"}]},` +
			`{"productId":508014,"name":"Stitch - Rock Star","groupId":23303,"imageCount":1,` +
			`"extendedData":[{"name":"Rarity","displayName":"Rarity","value":"Super Rare"},{"name":"Number","displayName":"Number","value":"23/204"}]}]}`,
		"tcgplayer/71/23303/prices.json": `{"success":true,"errors":[],"results":[` +
			`{"productId":508012,"lowPrice":60,"midPrice":70,"highPrice":90,"marketPrice":65.5,"directLowPrice":null,"subTypeName":"Normal"},` +
			`{"productId":508013,"lowPrice":40,"midPrice":45,"highPrice":60,"marketPrice":44.1,"directLowPrice":null,"subTypeName":"Normal"}]}`,
		"cardmarket/19/products_singles.json": `{"version":1,"createdAt":"2024-01-02T02:00:00+0100","products":[` +
			`{"idProduct":710001,"name":"Elsa - Spirit of Winter","idCategory":1601,"categoryName":"Lorcana Single","idExpansion":5100,"idMetacard":1,"dateAdded":"2023-08-01 10:00:00"},` +
			`{"idProduct":710002,"name":"Stitch - Rock Star","idCategory":1601,"categoryName":"Lorcana Single","idExpansion":5100,"idMetacard":2,"dateAdded":"2023-08-01 10:00:00"},` +
			`{"idProduct":710003,"name":"Mickey Mouse - Brave Little Tailor","idCategory":1601,"categoryName":"Lorcana Single","idExpansion":5100,"idMetacard":3,"dateAdded":"2023-08-01 10:00:00"}]}`,
		"cardmarket/19/price_guide.json": `{"version":1,"createdAt":"2024-01-02T02:00:00+0100","priceGuides":[` +
			`{"idProduct":710001,"idCategory":1601,"avg":55.1,"low":50,"trend":54.2,"avg1":56,"avg7":55,"avg30":50,"avg-foil":null,"low-foil":null,"trend-foil":null,"avg1-foil":null,"avg7-foil":null,"avg30-foil":null}]}`,
		"cardmarket/19/expansions.json": `{"expansion":[{"idExpansion":5100,"enName":"The First Chapter","abbreviation":"TFC","idGame":19}]}`,
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFifthGame: a game added as a registry entry, with its data, is
// ingested, linked and served everywhere (its routes, GET /games, GET /,
// the OpenAPI document, llms.txt, MCP's game argument, the paid endpoints)
// without a line of routing or rendering code of its own.
func TestFifthGame(t *testing.T) {
	reg := game.NewRegistry(game.DragonBallSuper(), lorcana)
	c, _, err := ingest.BuildFromMirror(context.Background(), fifthGameMirror(t), reg, testNow)
	if err != nil {
		t.Fatal(err)
	}
	v, err := serving.Build(c, reg, analytics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deps := paidDeps(v)
	deps.Games = reg
	s, err := New(Config{}, deps)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	elsa := catalog.TCGCardID("lor", 508012)
	body := func(path string) string {
		t.Helper()
		w := get(h, path, "X-API-Key", keyUltra) // checkAnswer knows the default registry's document only
		if w.Code != 200 {
			t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
		return w.Body.String()
	}
	for path, want := range map[string][]string{
		"/games":                      {`"code":"lor"`, `"sets":"/lor/sets"`},
		"/lor/sets":                   {`"set_code":"TFC"`, `"name":"The First Chapter"`},
		"/lor/sets/TFC":               {elsa, `"Mickey Mouse - Brave Little Tailor"`},
		"/lor/cards/" + elsa:          {`"ink":"Amethyst"`, `"lore":"3"`, `"match":"name"`, `"product_id":710001`, `"trend":54.2`},
		"/lor/search?q=elsa":          {elsa},
		"/lor/cards/tcgplayer/508012": {elsa},
		"/lor/prices/TFC":             {`"Elsa - Spirit of Winter"`},
		"/openapi.json":               {`"lor"`, `"ink"`},
		"/llms.txt":                   {"`lor` (Disney Lorcana)"},
		"/":                           {`"/{game}/sets"`},
	} {
		b := body(path)
		for _, w := range want {
			if !strings.Contains(b, w) {
				t.Errorf("GET %s lacks %s: %.400s", path, w, b)
			}
		}
	}
	// The other game's id under the fifth game's prefix points at its path.
	w := get(h, "/lor/cards/"+catalog.TCGCardID("dbs", 1), "X-API-Key", keyUltra)
	if !strings.Contains(w.Body.String(), `"did_you_mean":"/dbs/cards/`) {
		t.Errorf("another game's id: %s", w.Body)
	}
	// MCP: the tools' game argument takes it.
	r := httptest.NewRequest(http.MethodPost, mcpPath, strings.NewReader(mcpserver.ListTools))
	r.Header.Set("X-API-Key", keyUltra)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	lw := httptest.NewRecorder()
	s.Handler().ServeHTTP(lw, r)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Properties map[string]struct{ Enum []string }
				}
			}
		}
	}
	if err := json.Unmarshal(lw.Body.Bytes(), &list); err != nil {
		t.Fatalf("tools/list: %d %s", lw.Code, lw.Body)
	}
	if len(list.Result.Tools) == 0 {
		t.Fatalf("tools/list: %d %s", lw.Code, lw.Body)
	}
	var enum []string
	for _, tool := range list.Result.Tools {
		if tool.Name == "list_sets" {
			enum = tool.InputSchema.Properties["game"].Enum
		}
	}
	if strings.Join(enum, ",") != "dbs,lor" {
		t.Errorf("MCP game enum %v", enum)
	}
}
