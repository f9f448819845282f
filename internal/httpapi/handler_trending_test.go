package httpapi

import "testing"

func TestTrendingGolden(t *testing.T) {
	runGolden(t, paidHandler(t), []goldenCase{
		ultra("trending_dbs", "/dbs/sets/trending", 200),
		ultra("trending_dbs_limit_1", "/dbs/sets/trending?period=7d&limit=1", 200),
		ultra("trending_mtg_none_moving", "/mtg/sets/trending", 200),
		ultra("trending_invalid_period", "/dbs/sets/trending?period=30d", 400),
		ultra("trending_invalid_limit", "/dbs/sets/trending?limit=0", 400),
	})
}

func TestTrendingParameters(t *testing.T) {
	h := paidHandler(t)
	checkParams(t, h, append([]paramCase{
		{"/dbs/sets/trending?period=7d", "", `"period":"7d"`},
		{"/dbs/sets/trending?period=7D", "", `"period":"7d"`},
		{"/dbs/sets/trending?period=", "", `"period":"7d"`},
		{"/dbs/sets/trending?limit=50", "", `"period":"7d"`},
		{"/dbs/sets/trending?limit=51", "", `"period":"7d"`}, // clamped
		{"/dbs/sets/trending?limit=99999999999999999999999", "", `"period":"7d"`},
		{"/dbs/sets/trending?limit=007", "", `"period":"7d"`},
		{"/dbs/sets/trending?period=30d", "period", "allowed values: 7d"},
		{"/dbs/sets/trending?period=1d&limit=0", "period", "7d"}, // period is reported first
	}, limitCases("/dbs/sets/trending")...))
	checkParams(t, listHandler(t), []paramCase{
		{"/dbs/sets/trending?limit=1", "", `"set_id":"100"`},
	})
	checkCount(t, listHandler(t), "/dbs/sets/trending", "trending_sets", map[string]int{
		"": 10, "?limit=1": 1, "?limit=49": 49, "?limit=50": 50, "?limit=51": 50, "?limit=1000000": 50,
	})
}
