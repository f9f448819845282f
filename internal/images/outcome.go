package images

import (
	"context"
	"errors"
)

// Outcome is how Get answered, for the metrics (WithOutcomes).
type Outcome int

const (
	// Stored: a fresh copy from storage.
	Stored Outcome = iota
	// Fetched: an image the source gave now, to this call or one it joined.
	Fetched
	// Stale: the stored copy past its TTL, the source failing or slow.
	Stale
	// NotFound: ErrNotFound.
	NotFound
	// Failed: ErrUnavailable, or any other failure.
	Failed
	// Canceled: the caller's context ended first.
	Canceled
)

// WithOutcomes calls observe with the outcome of every Get; it must be
// quick and safe for concurrent use.
func WithOutcomes(observe func(Outcome)) Option { return func(s *Service) { s.observe = observe } }

// outcome classifies Get's answer.
func (s *Service) outcome(img *Image, err error) Outcome {
	switch {
	case err == nil && img.fromSource:
		return Fetched
	case err == nil && s.fresh(img):
		return Stored
	case err == nil:
		return Stale
	case errors.Is(err, ErrNotFound):
		return NotFound
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return Canceled
	}
	return Failed
}
