package images

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
)

// probeKey is the one object the health probe writes. Every probe of every
// replica writes it, so probes leave no litter; a probe checks that what it
// reads back is a probe object, not that it is its own (another replica may
// have written in between).
var probeKey = Key{name: "health/probe"}

const (
	probePrefix      = "cardcat storage probe "
	probeContentType = "text/plain"
)

// ProbeStorage writes a small probe object to storage and reads it back, for
// the storage check of /health. It returns how long that took.
func ProbeStorage(ctx context.Context, storage blob.Bucket) (time.Duration, error) {
	start := time.Now()
	body := []byte(probePrefix + rand.Text())
	written := &Image{Body: body, ContentType: probeContentType, ETag: ETagOf(body), FetchedAt: start.UTC()}
	if err := PutStored(ctx, storage, probeKey, written); err != nil {
		return 0, fmt.Errorf("images: storage probe: write: %w", err)
	}
	read, err := GetStored(ctx, storage, probeKey)
	if err != nil {
		return 0, fmt.Errorf("images: storage probe: read: %w", err)
	}
	if !bytes.HasPrefix(read.Body, []byte(probePrefix)) || read.ContentType != probeContentType {
		return 0, fmt.Errorf("images: storage probe: read back %d bytes of type %q, not a probe object", len(read.Body), read.ContentType)
	}
	return time.Since(start), nil
}

// ProbeStorage writes and reads back the storage's probe object; see the
// package function ProbeStorage.
func (s *Service) ProbeStorage(ctx context.Context) (time.Duration, error) {
	return ProbeStorage(ctx, s.storage)
}
