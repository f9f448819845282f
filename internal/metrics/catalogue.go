package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cardcat/cardcat/internal/serving"
)

// Catalogue reports the catalogue version being served, read at each
// scrape: view is the version served (nil before the first load), swap what
// the last swap cost (serving.Holder's Current and LastSwap).
func (m *Metrics) Catalogue(view func() *serving.View, swap func() serving.Swap) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&catalogueCollector{m: m, view: view, swap: swap})
}

var (
	descVersion = prometheus.NewDesc(namespace+"_catalogue_version",
		"The catalogue version being served.", nil, nil)
	descCreated = prometheus.NewDesc(namespace+"_catalogue_created_timestamp_seconds",
		"When the served catalogue version was written by its ingest (Unix time).", nil, nil)
	descAge = prometheus.NewDesc(namespace+"_catalogue_age_seconds",
		"Seconds since the served catalogue version was written, at scrape time.", nil, nil)
	descLoad = prometheus.NewDesc(namespace+"_catalogue_load_seconds",
		"Seconds the last swap took to read its version from the store (TCGplayer history included) or from its snapshot artifact.", nil, nil)
	descBuild = prometheus.NewDesc(namespace+"_catalogue_build_seconds",
		"Seconds the last swap took to build its version's snapshot and paid answers (0 when it was read from an artifact).", nil, nil)
	descCards = prometheus.NewDesc(namespace+"_catalogue_cards",
		"Cards (products) of the served catalogue version, by game.", []string{"game"}, nil)
)

// catalogueCollector computes the catalogue's metrics when scraped, so
// that its age is the age at that moment and nothing runs per request.
type catalogueCollector struct {
	m    *Metrics
	view func() *serving.View
	swap func() serving.Swap
}

func (c *catalogueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descVersion, descCreated, descAge, descLoad, descBuild, descCards} {
		ch <- d
	}
}

func (c *catalogueCollector) Collect(ch chan<- prometheus.Metric) {
	v := c.view()
	if v == nil {
		return // nothing served yet: no series rather than a version 0
	}
	ch <- prometheus.MustNewConstMetric(descVersion, prometheus.GaugeValue, float64(v.Version))
	ch <- prometheus.MustNewConstMetric(descCreated, prometheus.GaugeValue, float64(v.CreatedAt.UnixNano())/1e9)
	ch <- prometheus.MustNewConstMetric(descAge, prometheus.GaugeValue, c.m.now().Sub(v.CreatedAt).Seconds())
	if s := c.swap(); s.Version != 0 {
		ch <- prometheus.MustNewConstMetric(descLoad, prometheus.GaugeValue, s.Load.Seconds())
		ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, s.Build.Seconds())
	}
	for _, g := range v.Games() {
		ch <- prometheus.MustNewConstMetric(descCards, prometheus.GaugeValue, float64(g.Len()), g.Game().Code)
	}
}
