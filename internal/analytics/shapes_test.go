package analytics

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The response shapes of the spec's "Paid game endpoints". Bodies are
// decoded with unknown fields refused, so a test that decodes one also checks
// that it has exactly these fields with these JSON types (a decimal string
// where the spec says string, a number where it says number).

type setInfo struct {
	Name       string  `json:"name"`
	SetCode    *string `json:"set_code"`
	SetID      string  `json:"set_id"`
	TotalCards int     `json:"total_cards"`
}

type tcgBlock struct {
	Low       *float64 `json:"low_price"`
	Mid       *float64 `json:"mid_price"`
	High      *float64 `json:"high_price"`
	Market    *float64 `json:"market_price"`
	DirectLow *float64 `json:"direct_low_price"`
	UpdatedAt *string  `json:"updated_at"`
}

type cmBlock struct {
	Avg       *float64 `json:"avg"`
	Low       *float64 `json:"low"`
	Trend     *float64 `json:"trend"`
	Avg1      *float64 `json:"avg1"`
	Avg7      *float64 `json:"avg7"`
	Avg30     *float64 `json:"avg30"`
	UpdatedAt *string  `json:"updated_at"`
}

type priceRowJSON struct {
	ID          string    `json:"id"`
	CardNumber  *string   `json:"card_number"`
	Name        string    `json:"name"`
	ProductType *string   `json:"product_type"`
	Variant     string    `json:"variant"`
	MarketT     *tcgBlock `json:"market_t"`
	MarketC     *cmBlock  `json:"market_c"`
}

type pricesBody struct {
	Success bool           `json:"success"`
	Source  string         `json:"source"`
	SetCode *string        `json:"set_code"`
	SetID   string         `json:"set_id"`
	Data    []priceRowJSON `json:"data"`
	Total   int            `json:"total"`
}

type mostExpensive struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Price float64 `json:"price"`
}

type tcgStats struct {
	Avg           *string        `json:"avg_market_price"`
	Min           *float64       `json:"min_price"`
	Max           *float64       `json:"max_price"`
	MostExpensive *mostExpensive `json:"most_expensive"`
}

type cmStats struct {
	Avg            *string        `json:"avg_price"`
	Min            *float64       `json:"min_price"`
	Max            *float64       `json:"max_price"`
	MostExpensive  *mostExpensive `json:"most_expensive"`
	TrendDirection string         `json:"trend_direction"`
}

type statisticsBody struct {
	SetInfo         setInfo `json:"set_info"`
	PriceStatistics struct {
		MarketT tcgStats `json:"market_t"`
		MarketC cmStats  `json:"market_c"`
	} `json:"price_statistics"`
	RarityBreakdown map[string]int `json:"rarity_breakdown"`
}

type tcgEstimate struct {
	Currency string   `json:"currency"`
	Low      *float64 `json:"low_estimate"`
	Market   *float64 `json:"market_estimate"`
	High     *float64 `json:"high_estimate"`
}

type cmEstimate struct {
	Currency string   `json:"currency"`
	Low      *float64 `json:"low_estimate"`
	Avg      *float64 `json:"avg_estimate"`
	Trend    *float64 `json:"trend_estimate"`
}

type rarityCostJSON struct {
	Count     int     `json:"count"`
	TotalCost float64 `json:"total_cost"`
}

type completionBody struct {
	SetInfo        setInfo `json:"set_info"`
	CompletionCost struct {
		MarketT tcgEstimate `json:"market_t"`
		MarketC cmEstimate  `json:"market_c"`
		Note    string      `json:"note"`
	} `json:"completion_cost"`
	BreakdownByRarity map[string]rarityCostJSON `json:"breakdown_by_rarity"`
}

type moverJSON struct {
	Name   string `json:"name"`
	Change string `json:"change"`
}

type trendingItem struct {
	SetName string  `json:"set_name"`
	SetCode *string `json:"set_code"`
	SetID   string  `json:"set_id"`
	CardCnt int     `json:"card_count"`
	MarketC *struct {
		PriceChange      string      `json:"price_change"`
		AvgPriceCurrent  float64     `json:"avg_price_current"`
		AvgPricePrevious float64     `json:"avg_price_previous"`
		TopMovers        []moverJSON `json:"top_movers"`
	} `json:"market_c"`
	MarketT *struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"market_t"`
}

type trendingBody struct {
	Period       string         `json:"period"`
	TrendingSets []trendingItem `json:"trending_sets"`
}

type topCardItem struct {
	ID           string          `json:"id"`
	CardInfo     json.RawMessage `json:"card_info"`
	CurrentPrice float64         `json:"current_price"`
	Change7d     *string         `json:"change_7d"`
}

type topCardsBody struct {
	Metric   string        `json:"metric"`
	Source   string        `json:"source"`
	TopCards []topCardItem `json:"top_cards"`
}

// decode decodes a body strictly: unknown fields and trailing data fail.
func decode[T any](tb testing.TB, body []byte) T {
	tb.Helper()
	var v T
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		tb.Fatalf("decoding %T: %v\n%s", v, err, body)
	}
	if d.More() {
		tb.Fatalf("decoding %T: trailing data\n%s", v, body)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// TestShapes decodes every answer of the fixture strictly.
func TestShapes(t *testing.T) {
	g := mustBuildFixture(t)
	for _, set := range []string{"1001", "1002", "-501", "1003"} {
		for _, src := range []string{SourceBoth, SourceTCG, SourceCM} {
			decode[pricesBody](t, g.PricesBySet(set, src).Body)
		}
		for _, v := range []string{VariantNormal, VariantFoil} {
			decode[statisticsBody](t, g.Statistics(set, v).Body)
		}
		decode[completionBody](t, g.CompletionValue(set).Body)
	}
	for _, limit := range []int{1, 2, 50} {
		decode[trendingBody](t, g.Trending(limit).Body)
		for _, l := range []struct{ metric, source string }{{MetricPrice, SourceTCG}, {MetricPrice, SourceCM}, {MetricGrowth, SourceCM}} {
			body := decode[topCardsBody](t, g.TopCards(l.metric, l.source, limit).Body)
			for _, it := range body.TopCards {
				if (it.Change7d != nil) != (l.metric == MetricGrowth) {
					t.Errorf("top cards %s/%s: change_7d present = %v", l.metric, l.source, it.Change7d != nil)
				}
			}
		}
	}
}
