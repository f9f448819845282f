package httpapi

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/web"
)

// Admission (DECISIONS.md, "Keys, plans, limits" and "Beyond the spec (wave
// 2)"; docs/api.md, "Rate limits" and "Caching and revalidation") is one
// step between routing and a keyed route's handler, and the only place the
// rate limiter is called for one (answerUnrouted, for the 404 and 405
// given instead of a route, shares its count). In order:
//
//  1. No valid key: the request is counted in its client's guard bucket
//     (429 once it is exhausted), then answered 401 (a key the
//     Authenticator could not check: 500, not counted).
//  2. A paid route without paid access: counted, then 403.
//  3. A request with If-None-Match: the handler's reply comes first, as the
//     tag of the answer it would get is known only then; when the
//     If-None-Match names it, the answer is the 304, never counted and sent
//     on an exhausted pool too, showing the pool as it stands. Otherwise it
//     is counted (429 in place of the reply) and the reply sent.
//  4. Any other request is counted (429), then its handler replies.
//
// Every 200 of a keyed route carries a strong ETag: the snapshot's tag of
// the body (cards, set pages), else a hash of its bytes (etag.Of), the same
// on every replica and after a restart. Public routes carry none (GET /docs
// has its own): they are never counted, so a 304 would save bytes, not
// quota.

// keyedHandler is a keyed or paid route's handler: its reply, or its
// failure (an *apiError as it says, anything else a logged 500).
type keyedHandler func(r *http.Request) (reply, error)

// admit wraps a keyed or paid route's handler in the admission step; g is
// the game whose paid access a paid route needs.
func (s *Server) admit(access apiref.Access, g game.Game, h keyedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		if st.key != keyValid {
			if s.take(w, r) {
				s.writeError(w, r, s.keyRefused(r, st))
			}
			return
		}
		if access == apiref.Paid {
			if paid := st.caller.PaidFor(g.ProPaid); paid != account.Allowed {
				if s.take(w, r) {
					s.writeError(w, r, s.planRequired(paid, g.ProPaid))
				}
				return
			}
		}
		noneMatch := r.Header["If-None-Match"]
		if len(noneMatch) == 0 {
			if s.take(w, r) {
				s.reply(w, r, h, nil)
			}
			return
		}
		s.reply(w, r, h, noneMatch)
	})
}

// reply runs the handler and sends its reply or failure; with noneMatch
// (the request's If-None-Match), the request is not counted yet: a reply
// whose tag it names is the 304 (not counted), anything else is counted
// first (429 in its place).
func (s *Server) reply(w http.ResponseWriter, r *http.Request, h keyedHandler, noneMatch []string) {
	counted := noneMatch == nil
	if !counted {
		// A handler that panics is still counted, like one counted up front.
		defer func() {
			if !counted {
				s.count(w, r, stateOf(r.Context()))
			}
		}()
	}
	rp, err := h(r)
	if err != nil {
		if counted || s.takeNow(w, r, &counted) {
			s.writeError(w, r, err)
		}
		return
	}
	c := rp.settle(web.ResponseOf(w))
	if !counted && etag.NoneMatch(noneMatch, web.VariantTag(rp.tag, c)) {
		counted = true // a 304 is never counted
		s.limits.show(w, r, stateOf(r.Context()))
		s.sendReply(w, r, &rp, c, true)
		return
	}
	if !counted && !s.takeNow(w, r, &counted) {
		rp.release()
		return
	}
	s.sendReply(w, r, &rp, c, false)
}

// takeNow is take for a request whose count waited for its reply.
func (s *Server) takeNow(w http.ResponseWriter, r *http.Request, counted *bool) bool {
	*counted = true
	return s.take(w, r)
}

// keyRefused is the answer of a keyed route to a request without a valid
// key: 401, or a 500 when the Authenticator failed.
func (s *Server) keyRefused(r *http.Request, st *requestState) error {
	switch st.key {
	case keyFailed:
		s.log.LogAttrs(r.Context(), slog.LevelError, "authentication failed",
			slog.String("request_id", st.id), slog.Any("error", st.authErr))
		return internalError(st.id)
	case keyMissing:
		return s.unauthorized(r, errKeyRequired,
			"This endpoint needs an API key, sent in the header X-API-Key or as Authorization: Bearer followed by the key.")
	case keyMalformed:
		return s.unauthorized(r, errKeyInvalid,
			"API keys are pk_live_ or pk_test_ followed by 32 letters and digits; check the key you sent.")
	case keyInvalid:
		return s.unauthorized(r, errKeyInvalid,
			"This API key is not valid (unknown or revoked); check the key in your account dashboard.")
	}
	return errors.New("httpapi: keyRefused of a valid key")
}
