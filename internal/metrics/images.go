package metrics

// ImageOutcome is how a card image request was answered.
type ImageOutcome int

const (
	// ImageStored: a fresh copy from the image storage.
	ImageStored ImageOutcome = iota
	// ImageFetched: fetched from the source now (by this request or one it
	// joined).
	ImageFetched
	// ImageStale: the stored copy past its TTL, the source failing or slow.
	ImageStale
	// ImageNotFound: the source has no image for the product.
	ImageNotFound
	// ImageFailed: no image could be given (the source is down and none is
	// stored).
	ImageFailed
	// ImageCanceled: the caller went away first.
	ImageCanceled
	imageOutcomes
)

func (o ImageOutcome) String() string {
	return [...]string{"stored", "fetched", "stale", "not_found", "failed", "canceled"}[o]
}

// Image records how an image request was answered (images.WithOutcomes).
func (m *Metrics) Image(o ImageOutcome) {
	if m == nil || o < 0 || o >= imageOutcomes {
		return
	}
	m.images[o].Inc()
}
