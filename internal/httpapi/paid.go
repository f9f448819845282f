package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/analytics"
	"github.com/cardcat/cardcat/internal/game"
)

// The paid endpoints (prices by set, set statistics, completion value,
// trending sets, top cards) answer from bodies that analytics computed for
// the catalogue version; handler_{endpoint}.go has each. They share the plan
// check, the game lookup and the parameter errors below.

// requirePaid lets a keyed request through only when its caller has paid
// access (Ultra, Business or an active trial); otherwise 403 with redeem_url
// (no trial started yet) or upgrade_url (trial ended). It runs after the key
// check and the rate-limit slot, so a 403 counts like any keyed answer, and
// before the handler, so a caller without access learns nothing else (no
// 400, no 404).
func (s *Server) requirePaid(g game.Game) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			caller, ok := CallerFrom(r.Context())
			if !ok {
				s.writeError(w, r, errors.New("httpapi: paid route reached without a caller"))
				return
			}
			if access := caller.PaidFor(g.ProPaid); access != account.Allowed {
				s.writeError(w, r, s.planRequired(access, g.ProPaid))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// planRequired is the 403 of a paid endpoint without paid access; proPaid:
// the Pro plan covers the game's paid endpoints.
func (s *Server) planRequired(access account.Access, proPaid bool) *apiError {
	needs := "This is a paid endpoint: it needs the Ultra or Business plan, or an active 7-day trial."
	if proPaid {
		needs = "This is a paid endpoint: it needs the Pro, Ultra or Business plan, or an active 7-day trial."
	}
	if access == account.TrialExpired {
		e := newError(http.StatusForbidden, errPlanRequired,
			needs+" Your trial has ended; upgrade your plan at upgrade_url.")
		e.Body.UpgradeURL = s.deps.PublicURL + "/account/upgrade"
		return e
	}
	e := newError(http.StatusForbidden, errPlanRequired,
		needs+" Start your free 7-day trial at redeem_url, or upgrade your plan.")
	e.Body.RedeemURL = s.deps.PublicURL + "/account/trial"
	return e
}

// paidParameter maps a parameter error of analytics.Parse* onto the 400
// {error:"Invalid parameter", message}; the message names the parameter and
// its allowed values.
func paidParameter(err error) error {
	var pe *analytics.ParamError
	if errors.As(err, &pe) {
		return newError(http.StatusBadRequest, errInvalidParameter, pe.Error()+".")
	}
	return err
}

// paidSetAnswer writes the body of a per-set paid endpoint: :set resolved
// as the set listing resolves it (set_id, else set_code case-insensitively;
// a shared code answers the disambiguation; 404 "Set not found" with
// suggestions), then answer(set_id).
func (s *Server) paidSetAnswer(w http.ResponseWriter, r *http.Request, code string,
	answer func(paid *analytics.Game, setID string) []byte) error {
	g, paid, err := s.paidGame(code)
	if err != nil {
		return err
	}
	set, err := resolveSet(w, r, g, r.PathValue("set"))
	if set == nil || err != nil {
		return err
	}
	body := answer(paid, set.ID)
	if body == nil {
		return fmt.Errorf("httpapi: set %s of game %s is listed but has no paid answer", set.ID, code)
	}
	writeBody(w, http.StatusOK, body)
	return nil
}
