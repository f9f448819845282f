// Package metrics is cardcat's Prometheus instrumentation: one registry per
// server (never the global default one, so that tests run servers side by
// side), the Go runtime and process collectors, and the server's own metrics.
// docs/operations.md, "Metrics", lists every metric.
//
// The parts of the program report through small hooks, each nil-safe so that
// a part built without metrics (tests, other commands) calls them freely:
//
//   - the API's requests and rate-limit decisions: HTTP, made once by
//     httpapi.New with the route table's labels (http.go);
//   - the served catalogue: Catalogue, read at scrape time (catalogue.go);
//   - the Redis limiter: RedisFallback and RedisRoundTrip (limiter.go);
//   - image requests: Image (images.go);
//   - ingests run inside the server: RecordIngest (ingest.go);
//   - price alerts and webhook deliveries: AlertsEvaluated, WebhookAttempt
//     (webhooks.go).
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace starts every metric of cardcat's own.
const namespace = "cardcat"

// Metrics are one server's metrics and the registry that exposes them.
// Methods on a nil *Metrics do nothing.
type Metrics struct {
	reg *prometheus.Registry
	now func() time.Time

	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	decisions [2][decisions]prometheus.Counter // [guard][Decision]
	images    [imageOutcomes]prometheus.Counter

	redisRTT prometheus.Histogram // registered by RedisFallback, when the limiter is Redis

	ingest   ingestMetrics
	webhooks webhookMetrics
}

// New returns the metrics of one server, with the Go runtime and process
// collectors registered. now is the clock of the ages computed at scrape
// time (time.Now when nil).
func New(now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	m := &Metrics{reg: prometheus.NewRegistry(), now: now}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "http_requests_total",
		Help: "Requests answered, by route template (never the raw path), game, method and status.",
	}, []string{"route", "game", "method", "status"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "http_request_duration_seconds",
		Help: "Time from a request's arrival to the end of its answer, by route template.",
		// The API answers from memory in well under a millisecond; the
		// upper buckets catch searches, image fetches and store reads.
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"route"})
	decision := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "ratelimit_decisions_total",
		Help: "Requests the rate limiter counted, by bucket (account: a valid key's pool; guard: a client IP's guard bucket) and decision.",
	}, []string{"bucket", "decision"})
	for g, bucket := range [2]string{"account", "guard"} {
		for d := range Decision(decisions) {
			m.decisions[g][d] = decision.WithLabelValues(bucket, d.String())
		}
	}
	img := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "image_requests_total",
		Help: "Card image requests by how they were answered: stored, fetched, stale, not_found, failed, canceled.",
	}, []string{"outcome"})
	for o := range ImageOutcome(imageOutcomes) {
		m.images[o] = img.WithLabelValues(o.String())
	}
	m.redisRTT = newRedisRTT()
	m.ingest = newIngestMetrics()
	m.reg.MustRegister(m.requests, m.durations, decision, img)
	m.ingest.register(m.reg)
	m.webhooks.register(m.reg)
	return m
}

// Registry is the registry every metric of the server is in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in Prometheus's text (or OpenMetrics)
// format: GET /metrics of the admin server, never of the public one.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A collector that fails is reported in the scrape, and the rest
		// is still served.
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
}
