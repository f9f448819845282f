package main

import (
	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/metrics"
	"github.com/cardcat/cardcat/internal/serving"
)

// newServeMetrics makes a server's metrics (served at GET /metrics of the
// admin server, docs/operations.md "Metrics"), with the catalogue that
// holder serves read at each scrape.
func newServeMetrics(cfg *serveConfig, holder *serving.Holder) *metrics.Metrics {
	mx := metrics.New(cfg.now)
	mx.Catalogue(holder.Current, holder.LastSwap)
	return mx
}

// imageMetrics counts each image request's outcome in mx.
func imageMetrics(mx *metrics.Metrics) images.Option {
	return images.WithOutcomes(func(o images.Outcome) { mx.Image(imageOutcome(o)) })
}

func imageOutcome(o images.Outcome) metrics.ImageOutcome {
	switch o {
	case images.Stored:
		return metrics.ImageStored
	case images.Fetched:
		return metrics.ImageFetched
	case images.Stale:
		return metrics.ImageStale
	case images.NotFound:
		return metrics.ImageNotFound
	case images.Canceled:
		return metrics.ImageCanceled
	}
	return metrics.ImageFailed
}
