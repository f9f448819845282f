package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/jsonw"
)

// Search q length, in Unicode code points after trimming surrounding space.
const (
	queryMin = 2
	queryMax = 100
)

// GET /{game}/search?q=: cards by name or number, answered from the
// snapshot's index. Searches run at most SearchConcurrency at a time and
// within SearchTimeout; past either, 503 with Retry-After.
func (s *Server) handleSearch(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		params := queryOf(r)
		q, err := searchQuery(params)
		if err != nil {
			return reply{}, err
		}
		pg, err := parsePaging(params, searchPageDefault, searchPageMax)
		if err != nil {
			return reply{}, err
		}
		if catalog.LooksLikeSQL(q) {
			return reply{}, newError(http.StatusBadRequest, errQueryRejected,
				"The query looks like SQL (quotes with or/and, comments, union select, ...); search for a card name or number.")
		}
		_, g, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}

		res, err := s.search(r.Context(), g, q)
		if err != nil {
			return reply{}, err
		}
		defer res.Release() // the cards are copied into the body below

		bp := getBuffer()
		b := append(*bp, `{"query":`...)
		b = jsonw.AppendString(b, q)
		b = append(b, `,"results":[`...)
		from, to := pg.Window(len(res.Cards))
		b = g.AppendCards(b, res.Cards[from:to])
		b = append(b, `],"pagination":`...)
		b = pg.AppendJSON(b, len(res.Cards))
		b = appendSearchMetadata(b, len(res.Cards), res.Counts, res.Truncated)
		b = append(b, '}')
		*bp = b
		return madeReply(jsonContentType, bp), nil
	}
}

// searchQuery validates q: present, 2 to 100 code points once surrounding
// space is trimmed, and not empty once quote characters are removed.
func searchQuery(params map[string][]string) (string, error) {
	vs := params["q"]
	if len(vs) == 0 {
		return "", newError(http.StatusBadRequest, errQueryRequired,
			"Give the search text in the parameter q, 2 to 100 characters: /{game}/search?q=goku")
	}
	q := strings.TrimSpace(vs[0])
	if n := utf8.RuneCountInString(q); n < queryMin || n > queryMax {
		return "", newError(http.StatusBadRequest, errQueryRequired,
			"The parameter q must be 2 to 100 characters long; it has "+strconv.Itoa(n)+".")
	}
	if catalog.StripQuotes(q) == "" {
		return "", newError(http.StatusBadRequest, errQueryRequired,
			"The parameter q holds only quote characters, which search ignores; give a name or a card number.")
	}
	return q, nil
}

func appendSearchMetadata(b []byte, total int, c catalog.SourceCounts, truncated bool) []byte {
	b = append(b, `,"metadata":{"total_count":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"tcg":`...)
	b = strconv.AppendInt(b, int64(c.TCG), 10)
	b = append(b, `,"market_c":`...)
	b = strconv.AppendInt(b, int64(c.CM), 10)
	b = append(b, `,"tcg_only":`...)
	b = strconv.AppendInt(b, int64(c.TCGOnly), 10)
	b = append(b, `,"market_c_only":`...)
	b = strconv.AppendInt(b, int64(c.CMOnly), 10)
	b = append(b, `,"both_sources":`...)
	b = strconv.AppendInt(b, int64(c.Both), 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, truncated)
	return append(b, '}')
}

// search runs one search in a slot of the limiter, within SearchTimeout.
func (s *Server) search(ctx context.Context, g *catalog.GameSnapshot, q string) (catalog.SearchResult, error) {
	if err := s.acquireSearchSlot(ctx); err != nil {
		return catalog.SearchResult{}, err
	}
	defer func() { <-s.slots }()
	res, err := g.SearchBefore(ctx, q, time.Now().Add(s.cfg.SearchTimeout))
	if errors.Is(err, context.DeadlineExceeded) {
		return res, s.searchUnavailable("The search took too long")
	}
	return res, err // context.Canceled: the client went away
}

// acquireSearchSlot waits up to SearchQueueWait for a free search slot.
func (s *Server) acquireSearchSlot(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(s.cfg.SearchQueueWait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-t.C:
		return s.searchUnavailable("Too many searches are running")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) searchUnavailable(why string) *apiError {
	secs := int((s.cfg.SearchRetryAfter + time.Second - 1) / time.Second)
	e := newError(http.StatusServiceUnavailable, errSearchUnavailable,
		why+"; retry after "+strconv.Itoa(secs)+" s, or narrow the query.")
	e.Header = retryAfter(strconv.Itoa(secs))
	return e
}
