package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/serving"
)

// GET / describes the API. Its body depends on nothing but the
// configuration and the source of the data served, so it is rendered once
// per source.
func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) error {
	writeBody(w, http.StatusOK, s.rootBody[s.dataSource(r.Context(), s.deps.View())])
	return nil
}

// GET /games lists the games with their route templates.
func (s *Server) handleGames(w http.ResponseWriter, r *http.Request) error {
	writeBody(w, http.StatusOK, s.gamesBody)
	return nil
}

// GET /health runs the checks at once, each within HealthTimeout. The spec's
// dependencies (database, cache, storage) each have a row in checks, reported
// as they are. The status, and 200 or 503, says whether this replica can
// answer the API: a catalogue loaded and every critical check passing. Which
// checks are critical is the caller's choice (serve: not the database, since
// the API answers from memory, so that an outage of a shared database does not
// make every replica unhealthy at once). A check of another name (serve's
// "keys": the key directory refreshed recently enough) is such a condition
// with no row of its own, so that the body keeps the spec's shape; its error,
// worded by the caller for operators, says why in the message.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	start := s.now()
	checks := map[string]*healthCheckResult{}
	var unhealthy []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range healthRows {
		// A dependency without a check is in process and cannot fail.
		checks[name] = &healthCheckResult{Status: "healthy", ResponseTime: apiref.Ptr(0.0)}
	}
	for _, hc := range s.deps.Health {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HealthTimeout)
			defer cancel()
			t0 := s.now()
			err := hc.Check(ctx)
			row := slices.Contains(healthRows, hc.Name)
			res := &healthCheckResult{Status: "healthy"}
			if err != nil {
				// Debug: each dependency logs its own outage once; a load
				// balancer polling /health must not add a line per poll.
				s.log.LogAttrs(r.Context(), slog.LevelDebug, "health check failed",
					slog.String("check", hc.Name), slog.Any("error", err))
				res.Status = "unhealthy"
				res.Message = hc.Name + " check failed"
				if ctx.Err() != nil {
					res.Message = hc.Name + " check timed out"
				}
			} else {
				res.ResponseTime = apiref.Ptr(elapsedMillis(s.now().Sub(t0)))
			}
			mu.Lock()
			defer mu.Unlock()
			if row {
				checks[hc.Name] = res
			}
			if err != nil && hc.Critical {
				reason := hc.Name
				if !row {
					reason += " (" + err.Error() + ")"
				}
				unhealthy = append(unhealthy, reason)
			}
		}()
	}
	wg.Wait()
	slices.Sort(unhealthy)

	body := healthBody{
		Status:    "healthy",
		Timestamp: s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Version:   s.deps.Version,
		Checks:    checks,
		Region:    s.deps.Region,
	}
	if v := s.deps.View(); v != nil {
		body.Catalogue = &healthCatalogue{Version: v.Version, UpdatedAt: v.CreatedAt.UTC().Format(time.RFC3339),
			Data: apiref.DataOf(s.dataSource(r.Context(), v))}
	} else {
		unhealthy = append(unhealthy, "catalogue (not loaded yet)")
	}
	status := http.StatusOK
	if len(unhealthy) > 0 {
		status = http.StatusServiceUnavailable
		body.Status = "unhealthy"
		body.Message = "Critical services unavailable: " + strings.Join(unhealthy, ", ")
	}
	body.ResponseTime = elapsedMillis(s.now().Sub(start))
	writeJSON(w, status, body)
	return nil
}

// healthRows are the dependencies /health reports in checks, as the spec
// names them.
var healthRows = []string{"database", "cache", "storage"}

type healthBody struct {
	Status       string                        `json:"status"`
	Timestamp    string                        `json:"timestamp"`
	Version      string                        `json:"version"`
	Message      string                        `json:"message,omitempty"`
	Checks       map[string]*healthCheckResult `json:"checks"`
	ResponseTime float64                       `json:"responseTime"`
	Region       string                        `json:"region"`
	// Catalogue is the version served, null before the first is loaded: a
	// monitor alerts on an old updated_at (a refresh that stopped working).
	Catalogue *healthCatalogue `json:"catalogue"`
}

// healthCatalogue is /health's catalogue: beside the spec's fields, since
// its version field is the server's.
type healthCatalogue struct {
	Version   int64       `json:"version"`
	UpdatedAt string      `json:"updated_at"` // RFC 3339, UTC: when the version was written
	Data      apiref.Data `json:"data"`
}

type healthCheckResult struct {
	Status       string   `json:"status"`
	ResponseTime *float64 `json:"responseTime"` // ms; null when the check failed
	Message      string   `json:"message,omitempty"`
}

// dataRetry is how long the source of a version stays unknown after
// Deps.Data failed for it, before it is asked again: GET / is public, and
// must not wait on a store that is down on every request.
const dataRetry = 30 * time.Second

// dataSources keeps the source of the version served (Deps.Data), asked
// once per version: a request reads it with one atomic load.
type dataSources struct {
	known atomic.Pointer[versionSource]
	mu    sync.Mutex // one question at a time; guards failed
	// failed is the version whose question failed, and when it may be
	// asked again.
	failed      int64
	failedUntil time.Time
}

type versionSource struct {
	version int64
	source  apiref.DataSource
}

// dataSource is the source of the data of v: DataUnknown before a version
// is loaded, without Deps.Data, or while it fails for v.
func (s *Server) dataSource(ctx context.Context, v *serving.View) apiref.DataSource {
	if v == nil || s.deps.Data == nil {
		return apiref.DataUnknown
	}
	d := &s.data
	if k := d.known.Load(); k != nil && k.version == v.Version {
		return k.source
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if k := d.known.Load(); k != nil && k.version == v.Version {
		return k.source // asked by the request this one waited for
	}
	if d.failed == v.Version && s.now().Before(d.failedUntil) {
		return apiref.DataUnknown
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.HealthTimeout)
	defer cancel()
	got, err := s.deps.Data(ctx, v.Version)
	source := apiref.DataSource(got)
	if err == nil && !slices.Contains(apiref.DataSources, source) {
		err = fmt.Errorf("unknown source %q", source)
	}
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "the source of the catalogue's data is unknown",
			slog.Int64("version", v.Version), slog.Any("error", err), slog.Duration("retry_in", dataRetry))
		d.failed, d.failedUntil = v.Version, s.now().Add(dataRetry)
		return apiref.DataUnknown
	}
	d.known.Store(&versionSource{version: v.Version, source: source})
	return source
}

// unavailable is the answer while no catalogue is loaded.
func unavailable() *apiError {
	e := newError(http.StatusServiceUnavailable, errServiceUnavailable,
		"The catalogue is being loaded; please retry in a few seconds.")
	e.Header = retryAfter("5")
	return e
}
