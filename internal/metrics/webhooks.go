package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// webhookMetrics are the alerts' events and their webhook deliveries.
type webhookMetrics struct {
	fired     prometheus.Counter
	queued    prometheus.Counter
	delivered prometheus.Counter
	failed    prometheus.Counter
	attempts  *prometheus.CounterVec
	latency   prometheus.Histogram
}

func (w *webhookMetrics) register(reg *prometheus.Registry) {
	w.fired = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "alerts_fired_total",
		Help: "Price alerts fired (events written) by this replica's evaluations."})
	w.queued = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_deliveries_queued_total",
		Help: "Webhook deliveries queued by this replica's alert evaluations."})
	w.delivered = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_deliveries_delivered_total",
		Help: "Webhook deliveries answered 2xx by their endpoint, sent by this replica."})
	w.failed = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_deliveries_failed_total",
		Help: "Webhook deliveries given up after their retries (24 hours), by this replica."})
	w.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_attempts_total",
		Help: "Webhook delivery attempts by outcome: ok (2xx), status (another status), error (no answer, refused address, timeout)."},
		[]string{"outcome"})
	w.latency = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "webhook_attempt_duration_seconds",
		Help:    "Time of a webhook delivery attempt, until its answer (or failure).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10}})
	reg.MustRegister(w.fired, w.queued, w.delivered, w.failed, w.attempts, w.latency)
}

// AlertsEvaluated records an evaluation's events and queued deliveries.
func (m *Metrics) AlertsEvaluated(fired, queued int) {
	if m == nil {
		return
	}
	m.webhooks.fired.Add(float64(fired))
	m.webhooks.queued.Add(float64(queued))
}

// WebhookAttempt records one delivery attempt, answered with status (0:
// none came); delivered and failed say whether it ended the delivery
// either way.
func (m *Metrics) WebhookAttempt(status int, took time.Duration, delivered, failed bool) {
	if m == nil {
		return
	}
	outcome := "ok"
	switch {
	case status == 0:
		outcome = "error"
	case status < 200 || status > 299:
		outcome = "status"
	}
	m.webhooks.attempts.WithLabelValues(outcome).Inc()
	m.webhooks.latency.Observe(took.Seconds())
	if delivered {
		m.webhooks.delivered.Inc()
	}
	if failed {
		m.webhooks.failed.Inc()
	}
}
