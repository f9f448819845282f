package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// IngestOutcome is how an ingest run inside the server ended.
type IngestOutcome string

// The outcomes RecordIngest knows; any other is recorded as "other", so
// that the label stays bounded.
const (
	// IngestSucceeded: a new catalogue version was written.
	IngestSucceeded IngestOutcome = "succeeded"
	// IngestUnchanged: the run finished but wrote no new version.
	IngestUnchanged IngestOutcome = "unchanged"
	// IngestFailed: the run failed (after its retries); the served
	// catalogue was kept.
	IngestFailed IngestOutcome = "failed"
	// IngestSkipped: another replica held the ingest lock.
	IngestSkipped IngestOutcome = "skipped"
	ingestOther   IngestOutcome = "other"
)

var ingestOutcomes = [...]IngestOutcome{IngestSucceeded, IngestUnchanged, IngestFailed, IngestSkipped, ingestOther}

// IngestRun is one ingest run, as RecordIngest takes it.
type IngestRun struct {
	Outcome  IngestOutcome
	At       time.Time     // when the run ended
	Duration time.Duration // how long it ran, retries included
	Version  int64         // the catalogue version it wrote; 0 when none
	// Games are the counts of each game the run read; kept from the last
	// run that has them (a failed run's are not reported).
	Games []IngestGame
}

// IngestGame are the counts of one game in an ingest run (as in
// ingest.GameReport).
type IngestGame struct {
	Game          string
	Sets          int
	Cards         int
	Linked        int // cards linked between TCGplayer and Cardmarket
	PricesChanged int
	CardsChanged  int // new or changed cards (the change feed)
	CardsRemoved  int
}

// ingestMetrics are the series RecordIngest sets.
type ingestMetrics struct {
	runs        *prometheus.CounterVec
	lastOutcome *prometheus.GaugeVec
	last        prometheus.Gauge
	lastSuccess prometheus.Gauge
	duration    prometheus.Gauge
	version     prometheus.Gauge
	counts      *prometheus.GaugeVec
}

func newIngestMetrics() ingestMetrics {
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help})
	}
	return ingestMetrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "ingest_runs_total",
			Help: "Ingest runs inside the server, by outcome (succeeded, unchanged, failed, skipped, other).",
		}, []string{"outcome"}),
		lastOutcome: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "ingest_last_outcome",
			Help: "1 for the outcome of the last ingest run inside the server, 0 for the others.",
		}, []string{"outcome"}),
		last:        gauge("ingest_last_run_timestamp_seconds", "When the last ingest run inside the server ended (Unix time), whatever its outcome."),
		lastSuccess: gauge("ingest_last_success_timestamp_seconds", "When the last ingest run inside the server that wrote a version ended (Unix time)."),
		duration:    gauge("ingest_last_duration_seconds", "How long the last ingest run inside the server took, retries included."),
		version:     gauge("ingest_last_version", "The catalogue version the last successful ingest run inside the server wrote."),
		counts: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "ingest_last_count",
			Help: "Counts of the last ingest run that had them, by game and what (sets, cards, linked, prices_changed, cards_changed, cards_removed).",
		}, []string{"game", "what"}),
	}
}

func (im *ingestMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(im.runs, im.lastOutcome, im.last, im.lastSuccess, im.duration, im.version, im.counts)
}

// RecordIngest records an ingest run made inside the server (the scheduled
// refresh): its outcome, when it ended, how long it took and, when it has
// them, its counts. Safe for concurrent use; a nil *Metrics records nothing.
//
//	m.RecordIngest(metrics.IngestRun{Outcome: metrics.IngestFailed, At: time.Now(), Duration: d})
func (m *Metrics) RecordIngest(run IngestRun) {
	if m == nil {
		return
	}
	im := &m.ingest
	outcome := ingestOther
	for _, o := range ingestOutcomes {
		if run.Outcome == o {
			outcome = o
		}
	}
	im.runs.WithLabelValues(string(outcome)).Inc()
	for _, o := range ingestOutcomes {
		v := 0.0
		if o == outcome {
			v = 1
		}
		im.lastOutcome.WithLabelValues(string(o)).Set(v)
	}
	at := float64(run.At.UnixNano()) / 1e9
	im.last.Set(at)
	im.duration.Set(run.Duration.Seconds())
	if outcome == IngestSucceeded {
		im.lastSuccess.Set(at)
		im.version.Set(float64(run.Version))
	}
	if outcome == IngestFailed || len(run.Games) == 0 {
		return
	}
	for _, g := range run.Games {
		for what, n := range map[string]int{"sets": g.Sets, "cards": g.Cards, "linked": g.Linked,
			"prices_changed": g.PricesChanged, "cards_changed": g.CardsChanged, "cards_removed": g.CardsRemoved} {
			im.counts.WithLabelValues(g.Game, what).Set(float64(n))
		}
	}
}
