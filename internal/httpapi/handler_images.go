package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/cardcat/cardcat/internal/images"
)

// ImageSource gives a TCGplayer product's image: *images.Service, fetching
// from the CDN and caching in storage.
type ImageSource interface {
	Get(ctx context.Context, productID int) (*images.Image, error)
}

// GET /{game}/images/{id}: the card's image, one resolution (X-Image-Size:
// unsized), cacheable for 24 hours, 304 on a matching If-None-Match. The id
// is resolved like the card route's before anything touches storage. Cards
// without a TCGplayer image (Cardmarket-only cards, products listing no
// image) are 404; a source that fails with nothing stored is 502, with a
// Retry-After of when the source may be asked again.
func (s *Server) handleImage(code string) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		g, ref, err := s.findCard(code, r.PathValue("id"))
		if err != nil {
			return err
		}
		product, ok := g.ImageProduct(ref)
		if !ok || s.deps.Images == nil {
			return imageNotFound()
		}
		img, err := s.deps.Images.Get(r.Context(), product)
		switch {
		case err == nil:
			images.Write(w, r, img)
			return nil
		case errors.Is(err, images.ErrNotFound):
			return imageNotFound()
		case r.Context().Err() != nil:
			return r.Context().Err() // the caller has gone; nothing to answer
		default:
			// The image service logs an outage once, at its start and end;
			// one line per answer would be thousands.
			s.log.Debug("image not available", "product", product, "err", err)
			e := newError(http.StatusBadGateway, errImageUnavailable,
				"The image source cannot be reached right now; try again in a few seconds.")
			e.Header = map[string]string{"Retry-After": strconv.FormatInt(retryAfterSeconds(images.RetryAfter(err)), 10)}
			return e
		}
	}
}

func imageNotFound() *apiError {
	return newError(http.StatusNotFound, errImageNotFound, "This card has no image.")
}
