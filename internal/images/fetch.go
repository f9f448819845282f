package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// fetcher gets images from the source, at most cap(slots) at a time.
type fetcher struct {
	client    *http.Client
	template  string
	userAgent string
	maxBytes  int64
	slots     chan struct{}
	now       func() time.Time
}

// url is the source URL of a product's image.
func (f *fetcher) url(productID int) string {
	return strings.ReplaceAll(f.template, ProductIDPlaceholder, strconv.Itoa(productID))
}

// acquire waits for a fetch slot; the caller calls release when its fetch is
// over. The error wraps ErrUnavailable.
func (f *fetcher) acquire(ctx context.Context) (release func(), err error) {
	select {
	case f.slots <- struct{}{}:
		return func() { <-f.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: no fetch slot: %w", ErrUnavailable, context.Cause(ctx))
	}
}

// fetch gets one image; the caller holds a slot. ctx bounds the whole fetch.
// Errors wrap ErrNotFound or ErrUnavailable and name the URL.
func (f *fetcher) fetch(ctx context.Context, url string) (*Image, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrUnavailable, url, err)
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "image/*")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrUnavailable, url, err)
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, fmt.Errorf("%w: GET %s: %s", ErrNotFound, url, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: GET %s: %s", ErrUnavailable, url, resp.Status)
	}
	contentType, err := imageType(resp.Header.Get("Content-Type"))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrUnavailable, url, err)
	}
	if resp.ContentLength > f.maxBytes {
		return nil, fmt.Errorf("%w: GET %s: %d bytes, more than the %d allowed", ErrUnavailable, url, resp.ContentLength, f.maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: reading the body: %w", ErrUnavailable, url, err)
	}
	if int64(len(body)) > f.maxBytes {
		return nil, fmt.Errorf("%w: GET %s: more than the %d bytes allowed", ErrUnavailable, url, f.maxBytes)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("%w: GET %s: empty body", ErrUnavailable, url)
	}
	return &Image{Body: body, ContentType: contentType, ETag: ETagOf(body), FetchedAt: f.now(), fromSource: true}, nil
}

// imageType checks that a Content-Type names an image and returns its media type
// (lowercase, without parameters). SVG is refused: it can carry script, and the API serves images from its
// own origin.
func imageType(header string) (string, error) {
	mediaType, _, err := mime.ParseMediaType(header)
	if err != nil {
		return "", fmt.Errorf("content type %q: %w", header, err)
	}
	if !strings.HasPrefix(mediaType, "image/") || mediaType == "image/" {
		return "", fmt.Errorf("content type %q is not an image", header)
	}
	if mediaType == "image/svg+xml" {
		return "", errors.New("content type image/svg+xml is not accepted")
	}
	return mediaType, nil
}
