package httpapi

import "testing"

func TestPricesGolden(t *testing.T) {
	runGolden(t, paidHandler(t), []goldenCase{
		ultra("prices_dbs_by_set_id", "/dbs/prices/23401", 200),
		ultra("prices_dbs_by_set_code_any_case", "/dbs/prices/fb01?source=tcg", 200),
		ultra("prices_dbs_source_cm", "/dbs/prices/FB01?source=cm", 200),
		ultra("prices_dbs_cardmarket_only_set", "/dbs/prices/-5001", 200),
		ultra("prices_dbs_unpriced_set", "/dbs/prices/FB09", 200),
		ultra("prices_dbs_disambiguation", "/dbs/prices/FB03_AR", 200),
		ultra("prices_dbs_not_found_with_suggestions", "/dbs/prices/awakened-pulse", 404),
		ultra("prices_dbs_invalid_source", "/dbs/prices/FB01?source=ebay", 400),
		ultra("prices_mtg", "/mtg/prices/BLB", 200),
		ultra("prices_mtg_source_cm", "/mtg/prices/23165?source=cm", 200),
		ultra("prices_mtg_unpriced_set", "/mtg/prices/2899", 200),
	})
}

func TestPricesParameters(t *testing.T) {
	checkParams(t, paidHandler(t), []paramCase{
		{"/dbs/prices/FB01", "", `"source":"both"`},
		{"/dbs/prices/FB01?source=both", "", `"source":"both"`},
		{"/dbs/prices/FB01?source=", "", `"source":"both"`}, // empty = absent
		{"/dbs/prices/FB01?source=tcg", "", `"source":"tcg"`},
		{"/dbs/prices/FB01?source=TCG", "", `"source":"tcg"`},
		{"/dbs/prices/FB01?source=cm", "", `"source":"cm"`},
		{"/dbs/prices/FB01?source=cm&source=tcg", "", `"source":"cm"`}, // the first value counts
		{"/dbs/prices/FB01?limit=0&page=x", "", `"source":"both"`},     // not paginated: ignored
		{"/dbs/prices/FB01?source=ebay", "source", "both, tcg, cm"},
		{"/dbs/prices/FB01?source=market_t", "source", "both, tcg, cm"},
		{"/dbs/prices/nope?source=x", "source", "both, tcg, cm"}, // parameters before the set
	})
}
