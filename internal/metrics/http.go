package metrics

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Route is the label of one route number the API reports requests under:
// the route table's template (/{game}/sets/{set}) or a fixed name for what
// is not a route (unmatched, method_not_allowed, ...), and the game of a
// per-game route ("" otherwise). The set is fixed when the API is built, so
// the series of a server are bounded whatever paths callers send.
type Route struct {
	Template string
	Game     string
}

// methods are the method label's values; any other method is "other".
var methods = [...]string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace, "other",
}

func methodIndex(m string) int {
	for i, name := range methods[:len(methods)-1] {
		if m == name {
			return i
		}
	}
	return len(methods) - 1
}

// statuses are the codes whose series are found without allocating: every
// code the API, the portal and net/http answer with. Another code (the
// server writes it, a caller cannot choose it) takes a slower path.
var statuses = [...]int{
	200, 201, 204, 206, 301, 302, 303, 304, 307, 308,
	400, 401, 403, 404, 405, 406, 409, 410, 412, 413, 415, 416, 422, 429, 431,
	500, 501, 502, 503, 504,
}

// statusIndex is the index of code in statuses, -1 when it is not there.
func statusIndex(code int) int {
	for i, c := range statuses {
		if c == code {
			return i
		}
	}
	return -1
}

// HTTP reports the requests of one API server. Its series are made on a
// route number's first request with that method and status (so that a
// scrape shows what was answered, not every combination at zero) and found
// by index afterwards: a request costs two atomic loads and two atomic adds,
// without allocating. Methods on a nil *HTTP do nothing.
type HTTP struct {
	m         *Metrics
	routes    []Route
	template  []int                                 // route number → index in durations
	counters  []atomic.Pointer[prometheus.Counter]  // [route][method][status]
	durations []atomic.Pointer[prometheus.Observer] // by template
	templates []string                              // the template of each durations index
}

// HTTP returns the request metrics of an API whose route numbers are the
// indexes of routes. Two servers with the same routes share series.
func (m *Metrics) HTTP(routes []Route) *HTTP {
	if m == nil {
		return nil
	}
	h := &HTTP{m: m, routes: routes, template: make([]int, len(routes))}
	seen := map[string]int{}
	for i, r := range routes {
		t, ok := seen[r.Template]
		if !ok {
			t = len(h.templates)
			seen[r.Template] = t
			h.templates = append(h.templates, r.Template)
		}
		h.template[i] = t
	}
	h.counters = make([]atomic.Pointer[prometheus.Counter], len(routes)*len(methods)*len(statuses))
	h.durations = make([]atomic.Pointer[prometheus.Observer], len(h.templates))
	return h
}

// Request records one answered request: route is its route number, status
// the code of its answer (0, nothing written, is net/http's 200), d the
// time from its arrival to the end of its answer.
func (h *HTTP) Request(route int, method string, status int, d time.Duration) {
	if h == nil {
		return
	}
	if route < 0 || route >= len(h.routes) {
		return // a route number the server did not declare: a bug, not a label
	}
	if status == 0 {
		status = http.StatusOK
	}
	mi := methodIndex(method)
	if si := statusIndex(status); si >= 0 {
		cell := &h.counters[(route*len(methods)+mi)*len(statuses)+si]
		c := cell.Load()
		if c == nil {
			r := h.routes[route]
			v := h.m.requests.WithLabelValues(r.Template, r.Game, methods[mi], strconv.Itoa(status))
			c = &v
			cell.Store(c)
		}
		(*c).Inc()
	} else {
		r := h.routes[route]
		h.m.requests.WithLabelValues(r.Template, r.Game, methods[mi], strconv.Itoa(status)).Inc()
	}
	t := h.template[route]
	o := h.durations[t].Load()
	if o == nil {
		v := h.m.durations.WithLabelValues(h.templates[t])
		o = &v
		h.durations[t].Store(o)
	}
	(*o).Observe(d.Seconds())
}

// Decision is what the rate limiter decided of a request it counted.
type Decision int

const (
	// Admitted: counted, and let through.
	Admitted Decision = iota
	// Refused: the pool was exhausted; answered 429, not counted.
	Refused
	// Unchecked: the limiter failed and the request was let through
	// uncounted (fail open).
	Unchecked
	decisions
)

func (d Decision) String() string {
	switch d {
	case Admitted:
		return "admitted"
	case Refused:
		return "refused"
	default:
		return "unchecked"
	}
}

// RateLimit records a decision of the rate limiter; guard when the request
// counted in its client's guard bucket (no valid key), not an account's pool.
func (h *HTTP) RateLimit(guard bool, d Decision) {
	if h == nil || d < 0 || d >= decisions {
		return
	}
	g := 0
	if guard {
		g = 1
	}
	h.m.decisions[g][d].Inc()
}
