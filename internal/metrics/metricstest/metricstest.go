// Package metricstest reads gathered or scraped Prometheus metrics for
// tests.
package metricstest

import dto "github.com/prometheus/client_model/go"

// Value is the value of f's series whose labels include labels (name,
// value pairs): a counter's or gauge's value, a histogram's count; ok false
// when there is none (or f is nil).
func Value(f *dto.MetricFamily, labels ...string) (v float64, ok bool) {
	if f == nil {
		return 0, false
	}
next:
	for _, s := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range s.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case s.Counter != nil:
			return s.GetCounter().GetValue(), true
		case s.Gauge != nil:
			return s.GetGauge().GetValue(), true
		case s.Histogram != nil:
			return float64(s.GetHistogram().GetSampleCount()), true
		case s.Untyped != nil:
			return s.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}
