package analytics

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// Parameter values of the paid endpoints.
const (
	SourceBoth = "both" // prices by set without a source
	SourceTCG  = "tcg"
	SourceCM   = "cm"

	VariantNormal = "normal"
	VariantFoil   = "foil"

	MetricPrice  = "price"
	MetricGrowth = "growth"

	Period7d = "7d"
)

// Limits of the list endpoints. A limit above the maximum is clamped.
const (
	TrendingDefaultLimit = 10
	TrendingMaxLimit     = 50
	TopCardsDefaultLimit = 10
	TopCardsMaxLimit     = 100
)

// ErrInvalidParameter is wrapped by every *ParamError, for errors.Is.
var ErrInvalidParameter = errors.New("invalid parameter")

// ParamError is a query parameter the endpoint does not accept. The handler
// answers it with 400 {"error":"Invalid parameter","message": err.Error()};
// the message names the parameter and what it allows, and is safe to send.
type ParamError struct {
	Param   string   // the parameter's name
	Value   string   // the value received
	Allowed []string // the allowed values; nil for a limit
	Reason  string   // why the value is refused, when it is not simply unknown
}

func (e *ParamError) Error() string {
	var b strings.Builder
	b.WriteString("Invalid value ")
	b.WriteString(strconv.Quote(e.Value))
	b.WriteString(" for parameter ")
	b.WriteString(e.Param)
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	if len(e.Allowed) > 0 {
		b.WriteString("; allowed values: ")
		b.WriteString(strings.Join(e.Allowed, ", "))
	}
	return b.String()
}

func (e *ParamError) Unwrap() error { return ErrInvalidParameter }

// Query parameters are read with these rules, the same for every endpoint:
// the first value of a repeated parameter counts; an empty value is the same
// as an absent one (the default); names of values (source, metric, variant,
// period) are matched case-insensitively and returned in lower case.

// ParsePricesBySet reads the query of GET /{game}/prices/:set: source is
// "both" (the default), "tcg" or "cm". Pass it to Game.PricesBySet.
func ParsePricesBySet(q url.Values) (source string, err error) {
	return enum(q, "source", SourceBoth, SourceBoth, SourceTCG, SourceCM)
}

// ParseStatistics reads the query of GET /{game}/sets/:set/statistics:
// variant is "normal" (the default) or "foil".
func ParseStatistics(q url.Values) (variant string, err error) {
	return enum(q, "variant", VariantNormal, VariantNormal, VariantFoil)
}

// ParseTrending reads the query of GET /{game}/sets/trending: period must
// be "7d" (the default); limit defaults to TrendingDefaultLimit and is
// clamped to TrendingMaxLimit.
func ParseTrending(q url.Values) (limit int, err error) {
	if _, err := enum(q, "period", Period7d, Period7d); err != nil {
		return 0, err
	}
	return parseLimit(q, TrendingDefaultLimit, TrendingMaxLimit)
}

// ParseTopCards reads the query of GET /{game}/analytics/top-cards: metric
// "price" (the default) or "growth"; source "tcg" or "cm", by default "tcg"
// for price and "cm" for growth (growth with an explicit source=tcg is
// refused); limit defaults to TopCardsDefaultLimit and is clamped to
// TopCardsMaxLimit. Errors are reported in the order metric, source, limit.
func ParseTopCards(q url.Values) (metric, source string, limit int, err error) {
	metric, err = enum(q, "metric", MetricPrice, MetricPrice, MetricGrowth)
	if err != nil {
		return "", "", 0, err
	}
	def := SourceTCG
	if metric == MetricGrowth {
		def = SourceCM
	}
	source, err = enum(q, "source", def, SourceTCG, SourceCM)
	if err != nil {
		return "", "", 0, err
	}
	if metric == MetricGrowth && source == SourceTCG {
		return "", "", 0, &ParamError{Param: "source", Value: q.Get("source"),
			Reason:  "metric=growth is computed from Cardmarket 7- and 30-day averages and works with source=cm only (its default)",
			Allowed: []string{SourceCM}}
	}
	limit, err = parseLimit(q, TopCardsDefaultLimit, TopCardsMaxLimit)
	if err != nil {
		return "", "", 0, err
	}
	return metric, source, limit, nil
}

// enum reads a parameter that takes one of allowed values.
func enum(q url.Values, name, def string, allowed ...string) (string, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a, nil
		}
	}
	return "", &ParamError{Param: name, Value: v, Allowed: allowed}
}

// parseLimit reads limit as every paginated route of the API does: decimal
// digits, at least 1 (no sign; an empty value is refused, not the default);
// above maxLimit it is clamped, however many digits it has.
func parseLimit(q url.Values, def, maxLimit int) (int, error) {
	vs, ok := q["limit"]
	if !ok {
		return def, nil
	}
	v := vs[0]
	ok = v != ""
	for i := 0; i < len(v); i++ {
		ok = ok && isDigit(v[i])
	}
	if ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil: // only a range error is possible: too many digits
			return maxLimit, nil
		case n >= 1:
			return min(n, maxLimit), nil
		}
	}
	return 0, &ParamError{Param: "limit", Value: v,
		Reason: "must be an integer of at least 1 (values above " + strconv.Itoa(maxLimit) + " are clamped to " + strconv.Itoa(maxLimit) + ")"}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// sourceIndex maps a prices-by-set source onto its body.
func sourceIndex(source string) (int, bool) {
	switch source {
	case "", SourceBoth:
		return srcBoth, true
	case SourceTCG:
		return srcTCG, true
	case SourceCM:
		return srcCM, true
	}
	return 0, false
}

const (
	srcBoth = iota
	srcTCG
	srcCM
	numSources
)
