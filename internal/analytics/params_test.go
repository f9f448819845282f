package analytics

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func query(tb testing.TB, raw string) url.Values {
	tb.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

// checkParamError checks that err is a *ParamError about param whose
// message names the parameter and every allowed value.
func checkParamError(t *testing.T, err error, param string, allowed ...string) {
	t.Helper()
	var pe *ParamError
	if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("err = %v, want a *ParamError", err)
	}
	if pe.Param != param {
		t.Errorf("Param = %q, want %q", pe.Param, param)
	}
	msg := err.Error()
	for _, s := range append([]string{param}, allowed...) {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not name %q", msg, s)
		}
	}
}

func TestParsePricesBySet(t *testing.T) {
	tests := []struct {
		query, source string
		bad           bool
	}{
		{"", SourceBoth, false},
		{"source=", SourceBoth, false}, // empty = absent
		{"source=both", SourceBoth, false},
		{"source=tcg", SourceTCG, false},
		{"source=cm", SourceCM, false},
		{"source=CM", SourceCM, false},                // case-insensitive
		{"source=tcg&source=bogus", SourceTCG, false}, // the first value counts
		{"limit=5&page=2", SourceBoth, false},         // not paginated: other parameters are ignored
		{"source=tcgplayer", "", true},
		{"source=%20tcg", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			src, err := ParsePricesBySet(query(t, tt.query))
			if tt.bad {
				checkParamError(t, err, "source", "both", "tcg", "cm")
				return
			}
			if err != nil || src != tt.source {
				t.Fatalf("got %q, %v; want %q", src, err, tt.source)
			}
		})
	}
}

func TestParseStatistics(t *testing.T) {
	tests := []struct {
		query, variant string
		bad            bool
	}{
		{"", VariantNormal, false},
		{"variant=", VariantNormal, false},
		{"variant=normal", VariantNormal, false},
		{"variant=foil", VariantFoil, false},
		{"variant=Foil", VariantFoil, false},
		{"variant=holofoil", "", true},
		{"variant=reverse", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			v, err := ParseStatistics(query(t, tt.query))
			if tt.bad {
				checkParamError(t, err, "variant", "normal", "foil")
				return
			}
			if err != nil || v != tt.variant {
				t.Fatalf("got %q, %v; want %q", v, err, tt.variant)
			}
		})
	}
}

func TestParseTrending(t *testing.T) {
	tests := []struct {
		query    string
		limit    int
		badParam string
	}{
		{"", TrendingDefaultLimit, ""},
		{"period=7d", TrendingDefaultLimit, ""},
		{"period=7D", TrendingDefaultLimit, ""},
		{"period=", TrendingDefaultLimit, ""},
		{"limit=1", 1, ""},
		{"limit=50", 50, ""},
		{"limit=51", 50, ""},                      // clamped
		{"limit=99999999999999999999999", 50, ""}, // clamped, however large
		{"limit=007", 7, ""},
		{"period=30d", 0, "period"},
		{"period=1w", 0, "period"},
		{"period=30d&limit=abc", 0, "period"}, // period is checked first
		{"limit=0", 0, "limit"},
		{"limit=-1", 0, "limit"},
		{"limit=1.5", 0, "limit"},
		{"limit=ten", 0, "limit"},
		{"limit=%2B", 0, "limit"},
		{"limit=%2B7", 0, "limit"}, // "+7": no sign, as on the free routes
		{"limit=", 0, "limit"},     // empty: refused, as on the free routes
		{"limit=1&limit=x", 1, ""}, // the first value counts
		{"limit=+7", 0, "limit"},   // " 7": a "+" in a query is a space
		{"limit=1e3", 0, "limit"},
		{"limit=%2010", 0, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			limit, err := ParseTrending(query(t, tt.query))
			switch tt.badParam {
			case "period":
				checkParamError(t, err, "period", "7d")
			case "limit":
				checkParamError(t, err, "limit", "50")
			default:
				if err != nil || limit != tt.limit {
					t.Fatalf("got %d, %v; want %d", limit, err, tt.limit)
				}
			}
		})
	}
}

func TestParseTopCards(t *testing.T) {
	tests := []struct {
		query          string
		metric, source string
		limit          int
		badParam       string
		allowed        []string
	}{
		{query: "", metric: "price", source: "tcg", limit: 10},
		{query: "metric=price", metric: "price", source: "tcg", limit: 10},
		{query: "metric=price&source=cm", metric: "price", source: "cm", limit: 10},
		{query: "source=cm", metric: "price", source: "cm", limit: 10},
		{query: "metric=growth", metric: "growth", source: "cm", limit: 10}, // growth defaults to cm
		{query: "metric=growth&source=cm", metric: "growth", source: "cm", limit: 10},
		{query: "metric=GROWTH&source=Cm", metric: "growth", source: "cm", limit: 10},
		{query: "metric=growth&source=", metric: "growth", source: "cm", limit: 10}, // empty = absent
		{query: "limit=100", metric: "price", source: "tcg", limit: 100},
		{query: "limit=101", metric: "price", source: "tcg", limit: 100},
		{query: "limit=1", metric: "price", source: "tcg", limit: 1},
		{query: "metric=volume", badParam: "metric", allowed: []string{"price", "growth"}},
		{query: "metric=growth&source=tcg", badParam: "source", allowed: []string{"cm"}},
		{query: "metric=growth&source=TCG", badParam: "source", allowed: []string{"cm"}},
		{query: "source=both", badParam: "source", allowed: []string{"tcg", "cm"}},
		{query: "metric=price&source=ebay", badParam: "source", allowed: []string{"tcg", "cm"}},
		{query: "metric=bogus&source=bogus&limit=0", badParam: "metric", allowed: []string{"price", "growth"}},
		{query: "limit=0", badParam: "limit", allowed: []string{"100"}},
		{query: "limit=-5", badParam: "limit", allowed: []string{"100"}},
		{query: "limit=abc", badParam: "limit", allowed: []string{"100"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			metric, source, limit, err := ParseTopCards(query(t, tt.query))
			if tt.badParam != "" {
				checkParamError(t, err, tt.badParam, tt.allowed...)
				return
			}
			if err != nil || metric != tt.metric || source != tt.source || limit != tt.limit {
				t.Fatalf("got %q %q %d %v; want %q %q %d", metric, source, limit, err, tt.metric, tt.source, tt.limit)
			}
		})
	}
}

func TestParamErrorMessage(t *testing.T) {
	_, _, _, err := ParseTopCards(query(t, "metric=volume"))
	if got, want := err.Error(), `Invalid value "volume" for parameter metric; allowed values: price, growth`; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	_, err = ParseTrending(query(t, "limit=0"))
	if got, want := err.Error(), `Invalid value "0" for parameter limit: must be an integer of at least 1 (values above 50 are clamped to 50)`; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

// TestParsedValuesSelectAnswers checks that every value the parsers return
// selects an answer of Game, and that the methods refuse anything else.
func TestParsedValuesSelectAnswers(t *testing.T) {
	g := mustBuildFixture(t)
	for _, raw := range []string{"", "source=tcg", "source=cm", "source=both"} {
		src, _ := ParsePricesBySet(query(t, raw))
		if g.PricesBySet("1001", src).Body == nil {
			t.Errorf("PricesBySet(%q) = nil", src)
		}
	}
	for _, raw := range []string{"", "variant=foil"} {
		v, _ := ParseStatistics(query(t, raw))
		if g.Statistics("1001", v).Body == nil {
			t.Errorf("Statistics(%q) = nil", v)
		}
	}
	for _, raw := range []string{"", "source=cm", "metric=growth"} {
		metric, source, limit, _ := ParseTopCards(query(t, raw))
		if g.TopCards(metric, source, limit).Body == nil {
			t.Errorf("TopCards(%q, %q) = nil", metric, source)
		}
	}

	for _, tt := range []struct {
		name string
		body []byte
	}{
		{"unknown set", g.PricesBySet("9999", "").Body},
		{"set without products", g.PricesBySet("1004", "").Body},
		{"set code instead of id", g.PricesBySet("BT1", "").Body},
		{"unknown source", g.PricesBySet("1001", "ebay").Body},
		{"unknown variant", g.Statistics("1001", "holofoil").Body},
		{"statistics of unknown set", g.Statistics("9999", "").Body},
		{"completion of unknown set", g.CompletionValue("1004").Body},
		{"growth with tcg", g.TopCards(MetricGrowth, SourceTCG, 10).Body},
		{"unknown metric", g.TopCards("volume", SourceTCG, 10).Body},
	} {
		if tt.body != nil {
			t.Errorf("%s: got an answer", tt.name)
		}
	}
}
