package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/cardcat/cardcat/internal/blob"
)

// An image is kept in a blob.Bucket as one object under its key: the body
// is the object's bytes, the content type the object's, the ETag and the
// fetch time its metadata "etag" and "fetched-at" (RFC 3339, nanoseconds),
// read back from the same version of the object as the bytes. In S3 these
// are what images/s3store wrote, so a bucket's images are read as they
// were. The files of the disk cache's earlier store (images/fsstore) read
// without them: their ETag is computed again, and with no fetch time they
// are stale, served only until they are fetched again.
const (
	metaETag      = "etag"
	metaFetchedAt = "fetched-at"
)

// maxStored bounds what GetStored reads: far above any image the service
// stores, it only keeps a wrong object from exhausting memory.
const maxStored = 64 << 20

// GetStored returns the image stored in b under key, with the content type,
// ETag and fetch time it was put with, or an error wrapping ErrNotStored.
func GetStored(ctx context.Context, b blob.Bucket, key Key) (*Image, error) {
	if !key.Valid() {
		return nil, fmt.Errorf("images: get: %w", ErrInvalidKey)
	}
	w := &cappedBuffer{max: maxStored}
	attrs, err := b.Get(ctx, key.String(), w)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("images: get %s: %w", key, ErrNotStored)
	}
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	img := &Image{Body: w.buf.Bytes(), ContentType: attrs.ContentType, ETag: attrs.Metadata[metaETag]}
	if v := attrs.Metadata[metaFetchedAt]; v != "" {
		if img.FetchedAt, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return nil, fmt.Errorf("images: get %s: fetched-at metadata %q: %w", key, v, err)
		}
	}
	return img, nil
}

// PutStored stores img in b under key, replacing any earlier image: a
// concurrent GetStored sees the old one or the new one, never a mix.
func PutStored(ctx context.Context, b blob.Bucket, key Key, img *Image) error {
	if !key.Valid() {
		return fmt.Errorf("images: put: %w", ErrInvalidKey)
	}
	meta := map[string]string{metaFetchedAt: img.FetchedAt.UTC().Format(time.RFC3339Nano)}
	if img.ETag != "" {
		meta[metaETag] = img.ETag
	}
	attrs := blob.Attrs{ContentType: img.ContentType, Metadata: meta}
	if err := b.Put(ctx, key.String(), bytes.NewReader(img.Body), int64(len(img.Body)), attrs); err != nil {
		return fmt.Errorf("images: %w", err)
	}
	return nil
}

// cappedBuffer keeps what is written, up to max bytes.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, fmt.Errorf("object larger than %d bytes", c.max)
	}
	return c.buf.Write(p)
}
