package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/metrics"
)

// alertHistoryMetrics count, in the server's registry, the rows this
// replica's prunes of the alerts' history deleted (alerts.Retention), by
// table.
type alertHistoryMetrics struct {
	rows *prometheus.CounterVec
}

// newAlertHistoryMetrics registers the metric in mx's registry; nil mx:
// none (its method does nothing).
func newAlertHistoryMetrics(mx *metrics.Metrics) *alertHistoryMetrics {
	if mx == nil {
		return nil
	}
	m := &alertHistoryMetrics{rows: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "cardcat", Name: "alert_history_pruned_total",
		Help: "Rows of the alerts' finished history deleted by this replica's daily prunes, by table: " +
			"events, deliveries (webhook deliveries), attempts (their attempts), emails (alert emails)."},
		[]string{"table"})}
	for _, t := range []string{"events", "deliveries", "attempts", "emails"} {
		m.rows.WithLabelValues(t)
	}
	mx.Registry().MustRegister(m.rows)
	return m
}

// pruned records what a prune deleted.
func (m *alertHistoryMetrics) pruned(p alerts.Pruned) {
	if m == nil {
		return
	}
	m.rows.WithLabelValues("events").Add(float64(p.Events))
	m.rows.WithLabelValues("deliveries").Add(float64(p.Deliveries))
	m.rows.WithLabelValues("attempts").Add(float64(p.Attempts))
	m.rows.WithLabelValues("emails").Add(float64(p.Emails))
}
