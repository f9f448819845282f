package httpapi

import "testing"

func TestStatisticsGolden(t *testing.T) {
	runGolden(t, paidHandler(t), []goldenCase{
		ultra("statistics_dbs_normal", "/dbs/sets/FB01/statistics", 200),
		ultra("statistics_dbs_foil", "/dbs/sets/23401/statistics?variant=foil", 200),
		ultra("statistics_dbs_cardmarket_only_set", "/dbs/sets/-5001/statistics", 200),
		ultra("statistics_dbs_disambiguation", "/dbs/sets/fb03_ar/statistics", 200),
		ultra("statistics_dbs_not_found", "/dbs/sets/99999/statistics", 404),
		ultra("statistics_dbs_invalid_variant", "/dbs/sets/FB01/statistics?variant=holo", 400),
		ultra("statistics_mtg_normal", "/mtg/sets/BLB/statistics", 200),
		ultra("statistics_mtg_foil", "/mtg/sets/BLB/statistics?variant=foil", 200),
		ultra("statistics_mtg_not_found_with_suggestions", "/mtg/sets/doctor-who/statistics", 404),
	})
}

func TestStatisticsParameters(t *testing.T) {
	checkParams(t, paidHandler(t), []paramCase{
		{"/dbs/sets/FB01/statistics", "", `"market_t":{"avg_market_price":"0.99"`},
		{"/dbs/sets/FB01/statistics?variant=normal", "", `"market_t":{"avg_market_price":"0.99"`},
		{"/dbs/sets/FB01/statistics?variant=", "", `"market_t":{"avg_market_price":"0.99"`},
		{"/dbs/sets/FB01/statistics?variant=Foil", "", `"market_t":{"avg_market_price":"9.60"`},
		{"/dbs/sets/FB01/statistics?variant=holo", "variant", "normal, foil"},
		{"/dbs/sets/FB01/statistics?variant=holofoil", "variant", "normal, foil"},
		{"/dbs/sets/nope/statistics?variant=x", "variant", "normal, foil"},
	})
}
