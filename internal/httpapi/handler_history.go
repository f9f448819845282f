package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/store"
	"github.com/cardcat/cardcat/internal/web"
)

// PriceHistory reads the daily price points ingest keeps (store.Store
// implements it): one card's points on one market over a window of UTC
// days, ordered by day, then finish.
type PriceHistory interface {
	PriceHistoryWindow(ctx context.Context, game, cardID, market string, from, to time.Time) ([]store.PricePoint, error)
}

// The parameters of GET /{game}/cards/{id}/history.
const (
	historyDaysDefault = 30
	historyDaysMax     = 365
	formatJSON         = "json"
	formatCSV          = "csv"
)

// historyQuery is a validated query of the history route.
type historyQuery struct {
	source, format string
	days           int
}

// parseHistory reads source (tcg, the default, or cm), days (1 to 365,
// default 30) and format (json, the default, or csv), with the rules of the
// paid endpoints' parameters (analytics/params.go): the first value counts,
// an empty one is the default, names match in any case. Errors come in
// that order.
func parseHistory(q url.Values) (historyQuery, error) {
	h := historyQuery{source: analytics.SourceTCG, format: formatJSON, days: historyDaysDefault}
	var err error
	if h.source, err = historyEnum(q, "source", h.source, analytics.SourceTCG, analytics.SourceCM); err != nil {
		return h, err
	}
	if v := q.Get("days"); v != "" {
		// Decimal digits only: no sign, no spaces, no leading "+".
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > historyDaysMax || v[0] < '0' || v[0] > '9' {
			return h, &analytics.ParamError{Param: "days", Value: v, Reason: "an integer from 1 to " + strconv.Itoa(historyDaysMax)}
		}
		h.days = n
	}
	if h.format, err = historyEnum(q, "format", h.format, formatJSON, formatCSV); err != nil {
		return h, err
	}
	return h, nil
}

func historyEnum(q url.Values, name, def string, allowed ...string) (string, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a, nil
		}
	}
	return "", &analytics.ParamError{Param: name, Value: v, Allowed: allowed}
}

// GET /{game}/cards/{id}/history?source=tcg|cm&days=N&format=json|csv
// (paid): the card's daily price points on one marketplace over the last N
// UTC days that end on the day of the catalogue version served (the latest
// day with points), oldest first, then by finish. A day without a point is
// absent. The points are read from the store per request, within
// Config.HistoryTimeout: a paid and rare route, one card's index range; a
// store that does not answer is a 503, the rest of the API answering on
// from memory.
func (s *Server) handleHistory(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		q, err := parseHistory(queryOf(r))
		if err != nil {
			return reply{}, paidParameter(err)
		}
		// The view first: the window ends on its day. findCard reads the
		// view again; a version swapped in between resolves the same id.
		v := s.deps.View()
		if v == nil {
			return reply{}, unavailable()
		}
		g, ref, err := s.findCard(code, pathValue(r, "id"))
		if err != nil {
			return reply{}, err
		}
		var card catalog.CardPrices
		g.CardPrices(ref, &card)
		to := v.CreatedAt.UTC()
		from := to.AddDate(0, 0, 1-q.days)
		market, currency := store.MarketTCG, "USD"
		if q.source == analytics.SourceCM {
			market, currency = store.MarketCM, "EUR"
		}
		points, err := s.readHistory(r, code, card.ID, market, from, to)
		if err != nil {
			return reply{}, err
		}
		if q.format == formatCSV {
			return historyCSV(card.ID, q, points), nil
		}
		b := make([]byte, 0, 128+len(points)*128)
		b = append(b, `{"id":`...)
		b = strconv.AppendQuote(b, card.ID)
		b = append(b, `,"source":"`...)
		b = append(b, q.source...)
		b = append(b, `","currency":"`...)
		b = append(b, currency...)
		b = append(b, `","days":`...)
		b = strconv.AppendInt(b, int64(q.days), 10)
		b = append(b, `,"from":"`...)
		b = append(b, from.Format(time.DateOnly)...)
		b = append(b, `","to":"`...)
		b = append(b, to.Format(time.DateOnly)...)
		b = append(b, `","history":[`...)
		names := historyColumns[market]
		for i, p := range points {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"date":"`...)
			b = append(b, p.Day...)
			b = append(b, `","variant":`...)
			b = strconv.AppendQuote(b, p.Finish)
			for j, name := range names {
				b = append(b, `,"`...)
				b = append(b, name...)
				b = append(b, `":`...)
				b = pointValue(p, j).AppendJSON(b)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
		return reply{kind: web.Made, contentType: jsonContentType, body: b}, nil
	}
}

// historyColumns are the names of a point's values, by market, in the
// order of store.PricePoint.Values.
var historyColumns = map[string][]string{
	store.MarketTCG: {"low_price", "mid_price", "high_price", "market_price", "direct_low_price"},
	store.MarketCM:  {"avg", "low", "trend", "avg1", "avg7", "avg30"},
}

func pointValue(p store.PricePoint, i int) catalog.Money {
	if i < len(p.Values) {
		return p.Values[i]
	}
	return catalog.Money{}
}

// historyRetryAfter is the Retry-After, in seconds, of a history the store
// could not read.
const historyRetryAfter = "5"

// readHistory reads the points within the history's deadline. A failure,
// the deadline included, is logged and answered 503; a client gone is
// passed on as it is (writeError answers nobody).
func (s *Server) readHistory(r *http.Request, game, cardID, market string, from, to time.Time) ([]store.PricePoint, error) {
	var err error
	if s.deps.History != nil {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
		defer cancel()
		var points []store.PricePoint
		if points, err = s.deps.History.PriceHistoryWindow(ctx, game, cardID, market, from, to); err == nil {
			return points, nil
		}
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return nil, err
		}
	} else {
		err = errors.New("no price history store")
	}
	s.log.LogAttrs(r.Context(), slog.LevelWarn, "price history unavailable",
		slog.String("request_id", requestID(r.Context())), slog.String("game", game), slog.Any("error", err))
	e := newError(http.StatusServiceUnavailable, errServiceUnavailable,
		"The price history cannot be read right now; please retry in a few seconds.")
	e.Header = retryAfter(historyRetryAfter)
	return nil, e
}

var csvContentType = []string{"text/csv; charset=utf-8; header=present"}

// historyCSV is the reply of the points as CSV (RFC 4180: CRLF, quoted where
// needed, a header row): the columns of the JSON points, an empty field for
// a null value.
func historyCSV(id string, q historyQuery, points []store.PricePoint) reply {
	market := store.MarketTCG
	if q.source == analytics.SourceCM {
		market = store.MarketCM
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.UseCRLF = true
	names := historyColumns[market]
	row := append([]string{"date", "variant"}, names...)
	cw.Write(row)
	var num []byte
	for _, p := range points {
		row = append(row[:0], p.Day, p.Finish)
		for j := range names {
			v := pointValue(p, j)
			if !v.OK {
				row = append(row, "")
				continue
			}
			num = v.AppendJSON(num[:0])
			row = append(row, string(num))
		}
		cw.Write(row)
	}
	cw.Flush() // writes to memory: no error
	// Tagged and compressed like a JSON answer (a made body): its own bytes,
	// its own ETag.
	disposition := []string{`attachment; filename="` + id + "_" + q.source + "_" + strconv.Itoa(q.days) + `d.csv"`}
	return reply{kind: web.Made, contentType: csvContentType, body: buf.Bytes(),
		header: func(h http.Header) { h["Content-Disposition"] = disposition }}
}
