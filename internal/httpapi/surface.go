package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/web"
)

// KeyedSurface is a keyed route answered by a package of its own (each
// surface its own package: internal/alertsapi answers GET /alerts). Its
// route is one entry of routeTable like any other, so it is admitted
// (counted, 401, 429, the 304 of an unchanged answer) and documented with
// the rest; Answer gets the caller admission found.
type KeyedSurface interface {
	// Answer is the JSON body of the 200, made for this request, or its
	// failure: an *apiref.Problem is sent as it says (its Cause logged),
	// anything else is a logged 500.
	Answer(r *http.Request, caller account.Caller) ([]byte, error)
}

// surfaceReply is the reply of a KeyedSurface's route: of returns the
// surface from the server's Deps when the mux is made (the table is also
// made without a server, for the reference). A surface the program did
// not configure answers 503. Its answers are the account's own, changed
// at any time in the portal: always revalidated (private, no-cache).
func (s *Server) surfaceReply(of func() KeyedSurface) func(string) keyedHandler {
	return func(string) keyedHandler {
		surface := of()
		return func(r *http.Request) (reply, error) {
			if surface == nil {
				return reply{}, s.surfaceProblem(r, &apiref.Problem{Status: http.StatusServiceUnavailable, Code: errServiceUnavailable,
					Message: "This endpoint is not available on this server right now; please retry later.",
					Header:  map[string]string{apiref.HeaderRetryAfter: "60"}, Cause: errors.New("no surface configured")})
			}
			body, err := surface.Answer(r, stateOf(r.Context()).caller)
			if err != nil {
				return reply{}, s.surfaceProblem(r, err)
			}
			return reply{kind: web.Made, contentType: jsonContentType, body: body,
				header: func(h http.Header) { h["Cache-Control"] = privateNoCache }}, nil
		}
	}
}

// surfaceProblem is the answer of a surface's failure: an *apiref.Problem
// as it says, its cause logged; anything else as it is (writeError).
func (s *Server) surfaceProblem(r *http.Request, err error) error {
	var p *apiref.Problem
	if !errors.As(err, &p) || errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return err
	}
	if p.Cause != nil {
		s.log.LogAttrs(r.Context(), slog.LevelWarn, "request answered "+http.StatusText(p.Status),
			slog.String("request_id", requestID(r.Context())), slog.String("path", web.RedactTarget(r.URL.Path)), slog.Any("error", p.Cause))
	}
	e := newError(p.Status, p.Code, p.Message)
	e.Header = headerOf(p.Header)
	return e
}
