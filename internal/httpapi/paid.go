package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/analytics"
)

// The paid endpoints (prices by set, set statistics, completion value,
// trending sets, top cards) answer from bodies that analytics computed for
// the catalogue version; handler_{endpoint}.go has each. They share the plan
// check, the game lookup and the parameter errors below.

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

// paidSetAnswer is the reply of a per-set paid endpoint: :set resolved
// as the set listing resolves it (set_id, else set_code case-insensitively;
// a shared code answers the disambiguation; 404 "Set not found" with
// suggestions), then answer(set_id).
func (s *Server) paidSetAnswer(r *http.Request, code string,
	answer func(paid *analytics.Game, setID string) analytics.Answer) (reply, error) {
	g, paid, err := s.paidGame(code)
	if err != nil {
		return reply{}, err
	}
	set, disambiguation, err := resolveSet(r, g, pathValue(r, "set"))
	if set == nil {
		return disambiguation, err
	}
	a := answer(paid, set.ID)
	if a.Body == nil {
		return reply{}, fmt.Errorf("httpapi: set %s of game %s is listed but has no paid answer", set.ID, code)
	}
	return paidReply(a), nil
}

// paidReply is the kept reply of a paid answer, with the tag analytics made
// for it once.
func paidReply(a analytics.Answer) reply {
	rp := keptReply(a.Body)
	rp.tag = a.Tag
	return rp
}
