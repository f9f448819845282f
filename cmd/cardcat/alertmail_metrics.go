package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/metrics"
)

// alertEmailMetrics count the alert emails (issue 25's email channel) in
// the server's registry: queued and capped by this replica's evaluations,
// and what this replica's workers did with each email they claimed.
type alertEmailMetrics struct {
	emailed, capped prometheus.Counter
	outcomes        *prometheus.CounterVec
}

// newAlertEmailMetrics registers the alert emails' metrics in mx's
// registry; nil mx: none (its methods do nothing).
func newAlertEmailMetrics(mx *metrics.Metrics) *alertEmailMetrics {
	if mx == nil {
		return nil
	}
	m := &alertEmailMetrics{
		emailed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "cardcat", Name: "alert_emails_queued_total",
			Help: "Alert emails queued by this replica's alert evaluations."}),
		capped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "cardcat", Name: "alert_emails_capped_total",
			Help: "Alert firings not emailed by this replica's evaluations: past their account's alert emails per hour."}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "cardcat", Name: "alert_email_outcomes_total",
			Help: "Alert emails claimed by this replica's workers, by outcome: sent, retry (the SMTP server did not take it yet), " +
				"failed (refused for good, or not taken within 24 hours), cancelled (its alert was deleted or unsubscribed, or the address is not verified)."},
			[]string{"outcome"}),
	}
	for _, o := range []string{"sent", "retry", "failed", "cancelled"} {
		m.outcomes.WithLabelValues(o)
	}
	mx.Registry().MustRegister(m.emailed, m.capped, m.outcomes)
	return m
}

// queued records an evaluation's emails.
func (m *alertEmailMetrics) queued(emailed, capped int) {
	if m == nil {
		return
	}
	m.emailed.Add(float64(emailed))
	m.capped.Add(float64(capped))
}

// finished records the state a worker left a claimed email in.
func (m *alertEmailMetrics) finished(s alerts.EmailState) {
	if m == nil {
		return
	}
	outcome := string(s)
	if s == alerts.EmailPending {
		outcome = "retry"
	}
	m.outcomes.WithLabelValues(outcome).Inc()
}
