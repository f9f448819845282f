package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/jsonw"
	"github.com/cardcat/cardcat/internal/store"
)

// ChangeFeed reads the change feed ingest records (store.Store implements
// it); see store.Store.CardChanges.
type ChangeFeed interface {
	CardChanges(ctx context.Context, game string, since time.Time, offset, limit int) (store.ChangePage, error)
}

// Paging of the change feed: its entries are small, and a client catching
// up wants few requests.
const (
	changesPageDefault = 500
	changesPageMax     = 1000
)

// changesRetryAfter is the Retry-After, in seconds, of a feed the store
// could not read.
const changesRetryAfter = "5"

// GET /{game}/changes?since=: the cards whose detail body changed (or that
// left the catalogue) after since, read from the store per request within
// Config.ChangesTimeout: the feed is recorded at ingest, once per version,
// and a request is one index range of it.
func (s *Server) handleChanges(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		q := queryOf(r)
		since, err := parseSince(q)
		if err != nil {
			return reply{}, err
		}
		p, err := parsePaging(q, changesPageDefault, changesPageMax)
		if err != nil {
			return reply{}, err
		}
		// A page too large to count reads past the end, as elsewhere.
		offset := min(p.Page-1, int(^uint(0)>>1)/p.Limit) * p.Limit
		page, err := s.readChanges(r, code, since, offset, p.Limit)
		if err != nil {
			return reply{}, err
		}
		if since.Before(page.From) {
			return reply{}, newError(http.StatusBadRequest, errInvalidParameter,
				"The parameter since is older than the change history kept, which starts at "+formatFeedTime(page.From)+
					". Download the whole catalogue from /"+code+"/bulk, then follow this feed from the time of that copy.")
		}

		bp := getBuffer()
		b := append(*bp, `{"since":`...)
		b = appendFeedTime(b, since)
		b = append(b, `,"until":`...)
		b = appendFeedTime(b, page.Until)
		b = append(b, `,"changed":[`...)
		for i, c := range page.Changes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = jsonw.AppendString(b, c.ID)
			b = append(b, `,"changed_at":`...)
			b = appendFeedTime(b, c.ChangedAt)
			if c.Removed {
				b = append(b, `,"removed":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, `],"pagination":`...)
		b = p.AppendJSON(b, page.Total)
		b = append(b, '}')
		*bp = b
		return madeReply(jsonContentType, bp), nil
	}
}

// parseSince reads since, required: an RFC 3339 time. A space stands for
// the "+" of an offset sent unencoded (a "+" in a query is a space).
func parseSince(q url.Values) (time.Time, error) {
	vs, ok := q["since"]
	if !ok || vs[0] == "" {
		return time.Time{}, newError(http.StatusBadRequest, errInvalidParameter,
			"The parameter since is required: an RFC 3339 time, such as 2026-01-31T06:00:00Z (the until of your last answer).")
	}
	t, err := time.Parse(time.RFC3339, strings.Replace(vs[0], " ", "+", 1))
	if err != nil {
		return time.Time{}, newError(http.StatusBadRequest, errInvalidParameter,
			"The parameter since must be an RFC 3339 time, such as 2026-01-31T06:00:00Z; got "+strconv.Quote(vs[0])+".")
	}
	return t, nil
}

// Feed times are UTC with their fraction (microseconds at most): an until
// passed back as since must select exactly the versions after it.
func formatFeedTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func appendFeedTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// readChanges reads one page of the feed within the feed's deadline. A game
// whose changes were never recorded has no history: every since is too old.
// A failure, the deadline included, is logged and answered 503; a client
// gone is passed on as it is (writeError answers nobody).
func (s *Server) readChanges(r *http.Request, game string, since time.Time, offset, limit int) (store.ChangePage, error) {
	var err error
	if s.deps.Changes != nil {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ChangesTimeout)
		defer cancel()
		var page store.ChangePage
		page, err = s.deps.Changes.CardChanges(ctx, game, since, offset, limit)
		switch {
		case err == nil:
			return page, nil
		case errors.Is(err, store.ErrNotFound):
			return store.ChangePage{}, newError(http.StatusBadRequest, errInvalidParameter,
				"No change history is kept for this game yet. Download the whole catalogue from /"+game+
					"/bulk, then follow this feed from the time of that copy once the next catalogue version is out.")
		case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
			return store.ChangePage{}, err
		}
	} else {
		err = errors.New("no change feed store")
	}
	s.log.LogAttrs(r.Context(), slog.LevelWarn, "change feed unavailable",
		slog.String("request_id", requestID(r.Context())), slog.String("game", game), slog.Any("error", err))
	e := newError(http.StatusServiceUnavailable, errServiceUnavailable,
		"The change feed cannot be read right now; please retry in a few seconds.")
	e.Header = retryAfter(changesRetryAfter)
	return store.ChangePage{}, e
}
