package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestOnePieceGrowthByHand: the growth of One Piece's top cards is computed
// from the real Cardmarket price guide (2025-12-01): each card's change is
// its avg7 against its avg30, its price its avg7, recomputed here from the
// file. By hand: Cardmarket 690994, a "Roronoa Zoro (ST01-013)", has avg7
// 21.87 and avg30 10.03: +118.0%.
func TestOnePieceGrowthByHand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sampleDir, "cardmarket", "18", "price_guide.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		PriceGuides []map[string]any `json:"priceGuides"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	avg7, avg30 := map[int]float64{}, map[int]float64{}
	for _, row := range raw.PriceGuides {
		id := int(row["idProduct"].(float64))
		if v, ok := row["avg7"].(float64); ok {
			avg7[id] = v
		}
		if v, ok := row["avg30"].(float64); ok {
			avg30[id] = v
		}
	}

	h := mustServer(t, Config{}, paidDeps(mustView(t, mustMirror(t, sampleDir))))
	w := get(h, "/op/analytics/top-cards?metric=growth&limit=10", "X-API-Key", keyUltra)
	var top struct {
		TopCards []struct {
			ID       string
			CardInfo struct{ Name string } `json:"card_info"`
			Price    float64               `json:"current_price"`
			Change   string                `json:"change_7d"`
		} `json:"top_cards"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &top); err != nil || w.Code != 200 || len(top.TopCards) < 5 {
		t.Fatalf("GET /op/analytics/top-cards?metric=growth: %d %.300s", w.Code, w.Body)
	}
	zoro := false
	for _, c := range top.TopCards {
		var card struct {
			MarketC struct {
				ProductID int `json:"product_id"`
			} `json:"market_c"`
		}
		json.Unmarshal(get(h, "/op/cards/"+c.ID, "X-API-Key", keyUltra).Body.Bytes(), &card)
		id := card.MarketC.ProductID
		a7, a30 := avg7[id], avg30[id]
		if a7 == 0 || a30 == 0 {
			t.Fatalf("%s (%s): Cardmarket %d has no avg7/avg30 in the file", c.ID, c.CardInfo.Name, id)
		}
		if want := fmt.Sprintf("%+.1f%%", 100*(a7/a30-1)); c.Change != want || math.Abs(c.Price-a7) > 0.001 {
			t.Errorf("%s (Cardmarket %d): %v %s; the file says avg7 %v, avg30 %v: %s", c.CardInfo.Name, id, c.Price, c.Change, a7, a30, want)
		}
		if id == 690994 {
			zoro = c.Change == "+118.0%" && c.Price == 21.87 && c.CardInfo.Name == "Roronoa Zoro (ST01-013)"
		}
	}
	if !zoro {
		t.Errorf("Cardmarket 690994 (Roronoa Zoro ST01-013, +118.0%%) is not among the top cards as computed by hand: %s", w.Body)
	}
}
