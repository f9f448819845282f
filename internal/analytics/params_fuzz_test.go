package analytics

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// FuzzParseParameters gives every paid parser any query: never a panic;
// each either accepts it with values it allows (names in lower case, a
// limit in [1, max]) or refuses it with a *ParamError that wraps
// ErrInvalidParameter and names a parameter; values are matched without
// regard to case; limit follows the rule of parseLimit, written again here.
func FuzzParseParameters(f *testing.F) {
	for _, q := range []string{"", "source=tcg", "source=CM", "source=both", "source=", "source=ebay", "source=tcg&source=cm",
		"variant=foil", "variant=FOIL", "variant=holo", "period=7d", "period=7D", "period=30d", "limit=0", "limit=-1",
		"limit=1", "limit=51", "limit=101", "limit=99999999999999999999999", "limit=1e2", "limit=", "limit", "limit=+5",
		"limit=%201", "limit=0005", "metric=growth", "metric=growth&source=tcg", "metric=GROWTH&source=CM", "metric=price&source=cm&limit=5",
		"metric=%00", "source=%ff", "source=t%C4%B1g", "limit=1&limit=x", "limit=x&limit=1", "%zz", "&&&=&", "source=ſ"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw) // what the server decodes, bad pairs dropped
		check := func(name string, err error, params ...string) {
			t.Helper()
			if err == nil {
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidParameter) || !slices.Contains(params, pe.Param) || err.Error() == "" {
				t.Fatalf("%s(%q): error %#v is not a ParamError of %v", name, raw, err, params)
			}
		}
		allowed := func(name, v string, vs ...string) {
			t.Helper()
			if !slices.Contains(vs, v) {
				t.Fatalf("%s(%q) = %q, not one of %v", name, raw, v, vs)
			}
		}
		source, err := ParsePricesBySet(q)
		check("ParsePricesBySet", err, "source")
		if err == nil {
			allowed("ParsePricesBySet", source, SourceBoth, SourceTCG, SourceCM)
		}
		variant, err := ParseStatistics(q)
		check("ParseStatistics", err, "variant")
		if err == nil {
			allowed("ParseStatistics", variant, VariantNormal, VariantFoil)
		}
		limit, err := ParseTrending(q)
		check("ParseTrending", err, "period", "limit")
		if err == nil && (limit < 1 || limit > TrendingMaxLimit) {
			t.Fatalf("ParseTrending(%q) limit %d", raw, limit)
		}
		if want, ok := wantLimit(q, TrendingDefaultLimit, TrendingMaxLimit); (err == nil) != (ok && periodOK(q)) || err == nil && limit != want {
			t.Fatalf("ParseTrending(%q) = %d, %v; want %d, ok %v", raw, limit, err, want, ok && periodOK(q))
		}
		metric, source, limit, err := ParseTopCards(q)
		check("ParseTopCards", err, "metric", "source", "limit")
		if err == nil {
			allowed("ParseTopCards", metric, MetricPrice, MetricGrowth)
			allowed("ParseTopCards", source, SourceTCG, SourceCM)
			if limit < 1 || limit > TopCardsMaxLimit || metric == MetricGrowth && source != SourceCM {
				t.Fatalf("ParseTopCards(%q) = %s, %s, %d", raw, metric, source, limit)
			}
		}

		// The same query with every value in upper case parses the same
		// (ASCII: Unicode's case folding may join other letters to them).
		upper := url.Values{}
		for k, vs := range q {
			for _, v := range vs {
				upper.Add(k, strings.ToUpper(v))
			}
		}
		s1, err1 := ParsePricesBySet(q)
		s2, err2 := ParsePricesBySet(upper)
		if ((err1 == nil) != (err2 == nil) || s1 != s2) && isASCII(q.Get("source")) {
			t.Fatalf("ParsePricesBySet: %q gives %q, %v; in upper case %q, %v", raw, s1, err1, s2, err2)
		}
	})
}

// wantLimit is the limit rule: absent is the default; else decimal digits,
// at least 1, clamped to the maximum however many digits.
func wantLimit(q url.Values, def, max int) (int, bool) {
	vs, ok := q["limit"]
	if !ok {
		return def, true
	}
	v := vs[0]
	if v == "" || strings.Trim(v, "0123456789") != "" || strings.Trim(v, "0") == "" {
		return 0, false
	}
	if len(strings.TrimLeft(v, "0")) > 4 {
		return max, true
	}
	n := 0
	for _, c := range strings.TrimLeft(v, "0") {
		n = n*10 + int(c-'0')
	}
	return min(n, max), true
}

func periodOK(q url.Values) bool {
	v := q.Get("period")
	return v == "" || strings.EqualFold(v, Period7d)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
