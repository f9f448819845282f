package images

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// failuresToOpen is how many fetches in a row must fail, with no answer from
// the source in between, before the source is taken to be down. One product
// whose image the source cannot give (too big, not an image) fails alone: the
// other products' answers keep the count below this.
const failuresToOpen = 3

// errSourceDown is the error of a caller turned away during an outage: no
// fetch was made, so nothing is remembered about the product.
var errSourceDown = fmt.Errorf("%w: the image source is failing", ErrUnavailable)

// source follows the health of the image source across products. While it is
// down (an outage), the source gets one probe fetch at a time, at most one per
// Config.ProbeInterval, each the fetch of a caller's image; every other caller
// is answered at once (its stale copy, or ErrUnavailable) rather than waiting
// up to Config.FetchTimeout for a source that does not answer. The first fetch
// the source answers (an image, or a 404) ends the outage.
//
// An outage is logged twice, not once per answer: a WARN when it starts, with
// the first failure's cause, and an INFO when it ends, with how long it lasted
// and how many answers it cost.
type source struct {
	now           func() time.Time
	log           *slog.Logger
	probeInterval time.Duration

	mu        sync.Mutex
	failing             // the current run of failures; zero while the source answers
	probing   bool      // a probe fetch is in flight
	lastProbe time.Time // when the last probe started
}

// failing is a run of failed fetches with no answer from the source between
// them, and the answers given meanwhile.
type failing struct {
	failures    int       // failed fetches in a row
	firstErr    error     // the first of them
	firstAt     time.Time // when it failed
	down        bool      // failures reached failuresToOpen: an outage
	unavailable int       // answers of ErrUnavailable since firstAt
	stale       int       // stale copies given since firstAt
}

// turnedAway returns the error of a caller not let through to the source
// now (an outage, with a probe in flight or one made less than ProbeInterval
// ago), or nil. It takes no probe: admit does, when the caller holds a slot.
func (s *source) turnedAway() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turnedAwayLocked(s.now())
}

func (s *source) turnedAwayLocked(now time.Time) error {
	if !s.down {
		return nil
	}
	wait := s.probeInterval
	if !s.probing {
		wait -= now.Sub(s.lastProbe)
		if wait <= 0 {
			return nil
		}
	}
	return &retryError{
		err:   fmt.Errorf("%w for %s (%d failed fetches in a row; the first: %w)", errSourceDown, now.Sub(s.firstAt).Round(time.Millisecond), s.failures, s.firstErr),
		after: wait,
	}
}

// admit is asked by a caller holding a fetch slot, right before it fetches:
// while the source is up every fetch goes; during an outage one goes as the
// probe (probe is true; the caller must report it with done), the others get
// the error of turnedAway.
func (s *source) admit() (probe bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if err := s.turnedAwayLocked(now); err != nil {
		return false, err
	}
	if s.down {
		s.probing, s.lastProbe = true, now
		return true, nil
	}
	return false, nil
}

// done records the outcome of a fetch admitted by admit, and logs an outage's
// start and end. It reports whether the fetch ended an outage.
func (s *source) done(probe bool, err error) (recovered bool) {
	s.mu.Lock()
	now := s.now()
	if probe {
		s.probing = false
	}
	answered := err == nil || errors.Is(err, ErrNotFound)
	if answered {
		if s.failures == 0 {
			s.mu.Unlock()
			return false
		}
		was := s.failing
		s.failing = failing{}
		s.mu.Unlock()
		if was.down {
			s.log.Info("image source recovered",
				"outage", now.Sub(was.firstAt).Round(time.Millisecond), "failed_fetches", was.failures,
				"unavailable", was.unavailable, "stale", was.stale, "first_err", was.firstErr)
		} else {
			s.log.Debug("image source answered again", "failed_fetches", was.failures,
				"unavailable", was.unavailable, "stale", was.stale)
		}
		return was.down
	}
	s.failures++
	if s.failures == 1 {
		s.firstErr, s.firstAt = err, now
	}
	opened := !s.down && s.failures >= failuresToOpen
	if opened {
		s.down = true
		s.lastProbe = now // the fetch that just failed counts as a probe
	}
	first, since, failures := s.firstErr, s.firstAt, s.failures
	s.mu.Unlock()
	if opened {
		s.log.Warn("image source failing", "err", first, "since", since, "failed_fetches", failures)
	}
	return false
}

// answered counts an answer given while fetches are failing: ErrUnavailable
// (stale false) or a stale copy. Answers outside a run of failures are not
// counted: there is no outage to report them with.
func (s *source) answered(stale bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failures == 0 {
		return
	}
	if stale {
		s.stale++
	} else {
		s.unavailable++
	}
}

// retryError is an ErrUnavailable that knows when asking again may help.
type retryError struct {
	err   error
	after time.Duration
}

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

// RetryAfter returns how long after the ErrUnavailable err of Get the
// source may be asked about the image again (the product's failure forgotten,
// or the next probe of an outage due), or 0 when err says nothing of it. The
// API sends it, rounded up to whole seconds, as the 502's Retry-After.
func RetryAfter(err error) time.Duration {
	if re, ok := errors.AsType[*retryError](err); ok {
		return max(re.after, 0)
	}
	return 0
}
