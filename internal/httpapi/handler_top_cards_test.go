package httpapi

import "testing"

func TestTopCardsGolden(t *testing.T) {
	runGolden(t, paidHandler(t), []goldenCase{
		ultra("top_cards_dbs_default", "/dbs/analytics/top-cards", 200),
		ultra("top_cards_dbs_price_cm", "/dbs/analytics/top-cards?metric=price&source=cm&limit=3", 200),
		ultra("top_cards_dbs_growth", "/dbs/analytics/top-cards?metric=growth", 200),
		ultra("top_cards_mtg_price_tcg", "/mtg/analytics/top-cards?source=tcg&limit=5", 200),
		ultra("top_cards_mtg_growth_none_moving", "/mtg/analytics/top-cards?metric=growth&source=cm", 200),
		ultra("top_cards_growth_with_tcg", "/dbs/analytics/top-cards?metric=growth&source=tcg", 400),
		ultra("top_cards_invalid_metric", "/dbs/analytics/top-cards?metric=volume", 400),
	})
}

func TestTopCardsParameters(t *testing.T) {
	h := paidHandler(t)
	checkParams(t, h, append([]paramCase{
		{"/dbs/analytics/top-cards", "", `{"metric":"price","source":"tcg",`},
		{"/dbs/analytics/top-cards?metric=price", "", `{"metric":"price","source":"tcg",`},
		{"/dbs/analytics/top-cards?source=cm", "", `{"metric":"price","source":"cm",`},
		{"/dbs/analytics/top-cards?metric=growth", "", `{"metric":"growth","source":"cm",`}, // growth defaults to cm
		{"/dbs/analytics/top-cards?metric=GROWTH&source=Cm", "", `{"metric":"growth","source":"cm",`},
		{"/dbs/analytics/top-cards?metric=&source=", "", `{"metric":"price","source":"tcg",`},
		{"/dbs/analytics/top-cards?limit=100", "", `"top_cards":`},
		{"/dbs/analytics/top-cards?limit=101", "", `"top_cards":`},
		{"/dbs/analytics/top-cards?metric=volume", "metric", "price, growth"},
		{"/dbs/analytics/top-cards?source=both", "source", "tcg, cm"},
		{"/dbs/analytics/top-cards?source=ebay&metric=growth", "source", "tcg, cm"},
		{"/dbs/analytics/top-cards?metric=growth&source=tcg", "source", "works with source=cm only"},
		{"/dbs/analytics/top-cards?metric=x&source=y&limit=0", "metric", "price, growth"}, // metric, source, limit
		{"/dbs/analytics/top-cards?source=y&limit=0", "source", "tcg, cm"},
	}, limitCases("/dbs/analytics/top-cards?metric=price")...))
	checkCount(t, listHandler(t), "/dbs/analytics/top-cards", "top_cards", map[string]int{
		"": 10, "?limit=1": 1, "?limit=99": 99, "?limit=100": 100, "?limit=101": 100, "?limit=1000000&metric=growth": 100,
	})
}
