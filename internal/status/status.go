// Package status is the service's status page, GET /status (HTML) and
// GET /status.json, and the incidents' Atom feed, GET /status/incidents.atom:
// whether the API answers now, the catalogue served, the last ingest, the
// uptime of the last 90 days and the incidents the operator opens, updates
// and closes (`cardcat incidents ...`).
//
// Uptime comes from the service's own checks (probe.go): once a minute a
// replica sends GET /health to the API through its own listener, so that a
// broken chain shows, and records the answer in the store; the store keeps
// one record per minute whichever replica probed (Store.RecordCheck).
//
// The files: status.go (the model and Store), uptime.go (the maths),
// probe.go (the checks), page.go (GET /status, /status.json and the feed),
// atom.go (Atom, RFC 4287), templates/ (the page).
package status

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNotFound is an incident, or a check, that the store does not have.
var ErrNotFound = errors.New("status: not found")

// ErrResolved is an update of an incident already resolved.
var ErrResolved = errors.New("status: incident already resolved")

// State is an incident's state, set by each of its updates.
type State string

// The states of an incident, in the order an incident usually goes through
// them; Resolved closes it.
const (
	Investigating State = "investigating"
	Identified    State = "identified"
	Monitoring    State = "monitoring"
	Resolved      State = "resolved"
)

// OpenStates are the states an update of an open incident may set
// (Resolved is `incidents close`).
var OpenStates = []State{Investigating, Identified, Monitoring}

// ParseState is the open state named s.
func ParseState(s string) (State, error) {
	for _, st := range OpenStates {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q is not a state: want investigating, identified or monitoring (close resolves)", s)
}

// Impact is how much of the API an incident touches.
type Impact string

// The impacts, least first.
const (
	Minor    Impact = "minor"
	Major    Impact = "major"
	Critical Impact = "critical"
)

// ParseImpact is the impact named s.
func ParseImpact(s string) (Impact, error) {
	switch Impact(s) {
	case Minor, Major, Critical:
		return Impact(s), nil
	}
	return "", fmt.Errorf("%q is not an impact: want minor, major or critical", s)
}

// MaxTitle and MaxMessage bound an incident's title and an update's
// message, in characters.
const (
	MaxTitle   = 200
	MaxMessage = 5000
)

// CheckText is the error of a title or message: empty, too long, or with
// control characters other than newlines in a message.
func CheckText(what, s string, max int, multiline bool) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%s is empty", what)
	case len([]rune(s)) > max:
		return fmt.Errorf("%s is longer than %d characters", what, max)
	}
	for _, r := range s {
		if r < 0x20 && !(multiline && (r == '\n' || r == '\t')) || r == 0x7f {
			return fmt.Errorf("%s holds a control character", what)
		}
	}
	return nil
}

// Incident is a problem the operator announces: its updates, oldest first,
// make its timeline.
type Incident struct {
	ID         int64
	Title      string
	Impact     Impact
	State      State     // its last update's
	CreatedAt  time.Time // its first update's
	UpdatedAt  time.Time // its last update's
	ResolvedAt time.Time // zero while open
	Updates    []Update
}

// Open reports whether the incident is not resolved.
func (in *Incident) Open() bool { return in.State != Resolved }

// Update is one entry of an incident's timeline.
type Update struct {
	State   State
	Message string
	At      time.Time
}

// Check is one minute's check of the API.
type Check struct {
	Minute  time.Time     // UTC, a whole minute: the check's minute
	OK      bool          // the API answered 200
	Status  int           // the HTTP status, 0 when none came
	Latency time.Duration // until the answer's headers (or the failure)
	Error   string        // why it failed, for operators; empty when OK
}

// DayChecks counts the checks recorded on one UTC day.
type DayChecks struct {
	Day      time.Time // 00:00 UTC
	Recorded int
	Up       int
}

// Store keeps the checks and the incidents. Times are kept to the
// microsecond.
type Store interface {
	// RecordCheck records c unless its minute has a check already (another
	// replica's): recorded is false then, and nothing is written. The
	// first check ever recorded is remembered (FirstCheck), pruning or not.
	RecordCheck(ctx context.Context, c Check) (recorded bool, err error)
	// HasCheck reports whether the minute has a check.
	HasCheck(ctx context.Context, minute time.Time) (bool, error)
	// LatestCheck is the newest check (ErrNotFound when none).
	LatestCheck(ctx context.Context) (Check, error)
	// FirstCheck is the minute of the first check ever recorded
	// (ErrNotFound when none).
	FirstCheck(ctx context.Context) (time.Time, error)
	// CheckDays counts the checks of the minutes from from (included) to to
	// (excluded), per UTC day, oldest day first; days without a check are
	// left out.
	CheckDays(ctx context.Context, from, to time.Time) ([]DayChecks, error)
	// PruneChecks deletes the checks of the minutes before before and says
	// how many.
	PruneChecks(ctx context.Context, before time.Time) (int64, error)

	// OpenIncident stores a new incident whose first update is u, and sets
	// its ID.
	OpenIncident(ctx context.Context, in *Incident) error
	// UpdateIncident adds u to the timeline of incident id and sets its
	// state (Resolved closes it). ErrNotFound for an unknown id, ErrResolved
	// for a resolved incident. It returns the incident as it now is.
	UpdateIncident(ctx context.Context, id int64, u Update) (Incident, error)
	// Incident is the incident with the id, its updates included
	// (ErrNotFound when none).
	Incident(ctx context.Context, id int64) (Incident, error)
	// Incidents are the incidents open or updated at since or after, with
	// their updates, the last updated first.
	Incidents(ctx context.Context, since time.Time) ([]Incident, error)
}
