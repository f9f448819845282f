package admin

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Readiness is whether this replica can answer the API, the rule of
// /health's status and of /readyz: a catalogue is loaded, and the keys in
// memory are recent enough (the key directory refreshed within KeysBound),
// so that revocations and new keys are not missed for long. A database
// outage alone does not make a replica unready: the API answers from
// memory.
type Readiness struct {
	Loaded        func() bool      // a catalogue is served
	KeysRefreshed func() time.Time // the key directory's last successful refresh
	KeysBound     time.Duration    // KeysStaleAfter of the refresh interval
	Now           func() time.Time
}

// Check is nil when the replica is ready, else why not.
func (r Readiness) Check() error {
	if !r.Loaded() {
		return errors.New("catalogue not loaded yet")
	}
	if err := r.KeysFresh(); err != nil {
		return fmt.Errorf("keys %w", err)
	}
	return nil
}

// KeysFresh is /health's "keys" condition (its message names it).
func (r Readiness) KeysFresh() error {
	if age := r.Now().Sub(r.KeysRefreshed()); age > r.KeysBound {
		return fmt.Errorf("not refreshed for %s, more than %s", age.Round(time.Second), r.KeysBound)
	}
	return nil
}

// KeysStaleAfter is how long the keys may go unrefreshed before the replica
// is not ready: ten refresh intervals, at least a minute, so that one slow or
// failed refresh (each check has seconds) does not flap readiness, and an
// outage of the database is ridden out for a while on the keys in memory.
func KeysStaleAfter(keysRefresh time.Duration) time.Duration {
	return max(time.Minute, 10*keysRefresh)
}

// RefreshesFailing says which refresh from the store is failing (each
// given by the time it started failing, zero when it is not), for
// /health's database check: the database may answer a ping while the
// catalogue or the keys cannot be read from it.
func RefreshesFailing(catalogueSince, keysSince time.Time) error {
	var failing []string
	if !catalogueSince.IsZero() {
		failing = append(failing, "catalogue refresh failing since "+catalogueSince.UTC().Format(time.RFC3339))
	}
	if !keysSince.IsZero() {
		failing = append(failing, "key directory refresh failing since "+keysSince.UTC().Format(time.RFC3339))
	}
	if failing == nil {
		return nil
	}
	return errors.New(strings.Join(failing, "; "))
}
