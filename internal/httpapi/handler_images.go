package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/images"
)

// ImageSource gives a TCGplayer product's image and a set's logo:
// *images.Service, fetching from the sources and caching in storage.
type ImageSource interface {
	Get(ctx context.Context, productID int) (*images.Image, error)
	GetSize(ctx context.Context, productID int, suffix string) (*images.Image, error)
	GetSetLogo(ctx context.Context, language, serie, set string) (*images.Image, error)
}

// GET /{game}/images/{id}: the card's image, cacheable for 24 hours, 304 on
// a matching If-None-Match. A game whose images have sizes (the base game)
// takes size= (its first size by default; X-Image-Size names it); the others
// have one resolution (X-Image-Size: unsized) and ignore size. The id is
// resolved like the card route's before anything touches storage. Cards
// without a TCGplayer image (Cardmarket-only cards, products listing no
// image) are 404; a source that fails with nothing stored is 502, with a
// Retry-After of when the source may be asked again.
func (s *Server) handleImage(code string) keyedHandler {
	gm, _ := s.deps.Games.Get(code)
	return func(r *http.Request) (reply, error) {
		size, err := imageSize(gm, queryOf(r))
		if err != nil {
			return reply{}, err
		}
		g, ref, err := s.findCard(code, pathValue(r, "id"))
		if err != nil {
			return reply{}, err
		}
		product, ok := g.ImageProduct(ref)
		if !ok || s.deps.Images == nil {
			return reply{}, imageNotFound()
		}
		if size.Name == "" {
			img, err := s.deps.Images.Get(r.Context(), product)
			return s.imageReply(r, img, err, "unsized", imageNotFound)
		}
		img, err := s.deps.Images.GetSize(r.Context(), product, size.Suffix)
		return s.imageReply(r, img, err, size.Name, imageNotFound)
	}
}

// imageSize is the size= of a card image of game g: one of the game's sizes
// (the first when absent), or the zero size for a game with one resolution,
// whatever size says.
func imageSize(g game.Game, q url.Values) (game.ImageSize, error) {
	if len(g.CardImageSizes) == 0 {
		return game.ImageSize{}, nil
	}
	v, given := q["size"]
	if !given {
		return g.CardImageSizes[0], nil
	}
	var names []string
	for _, sz := range g.CardImageSizes {
		if len(v) == 1 && v[0] == sz.Name {
			return sz, nil
		}
		names = append(names, sz.Name)
	}
	return game.ImageSize{}, newError(http.StatusBadRequest, errInvalidParameter,
		"size must be one of "+strings.Join(names, ", ")+" (given once).")
}

// imageReply is the reply of an image source's result: the image with
// X-Image-Size: size, or notFound's 404, or the 502 of a source that cannot
// be reached.
func (s *Server) imageReply(r *http.Request, img *images.Image, err error, size string, notFound func() *apiError) (reply, error) {
	switch {
	case err == nil:
		return reply{
			tag:    img.ETag,
			header: func(h http.Header) { images.SetHeaders(h, size) },
			stream: func(w http.ResponseWriter, _ *http.Request) { images.WriteBody(w, img) },
		}, nil
	case errors.Is(err, images.ErrNotFound):
		return reply{}, notFound()
	case r.Context().Err() != nil:
		return reply{}, r.Context().Err() // the caller has gone; nothing to answer
	default:
		// The image service logs an outage once, at its start and end;
		// one line per answer would be thousands.
		s.log.Debug("image not available", "err", err)
		e := newError(http.StatusBadGateway, errImageUnavailable,
			"The image source cannot be reached right now; try again in a few seconds.")
		e.Header = retryAfter(strconv.FormatInt(retryAfterSeconds(images.RetryAfter(err)), 10))
		return reply{}, e
	}
}

func imageNotFound() *apiError {
	return newError(http.StatusNotFound, errImageNotFound, "This card has no image.")
}

// GET /sets/{set}/image[?language=] (the base game only): the set's logo,
// served like card images. :set resolves like the set route's, narrowed to
// language when given; a code that still matches several sets is the 409
// "Ambiguous set code" listing them, not the set route's disambiguation.
// A set without a logo in SetLogos (TCGdex's list) is 404.
func (s *Server) handleSetImage(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		language, err := parseLanguage(queryOf(r))
		if err != nil {
			return reply{}, err
		}
		_, g, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		key := pathValue(r, "set")
		set, ok := g.SetByID(key)
		if !ok {
			sets := narrowLanguage(g.SetsByCode(key), language)
			switch len(sets) {
			case 0:
				return reply{}, setNotFound(g, key)
			case 1:
				set = sets[0]
			default:
				return reply{}, ambiguousSetCode(key, sets)
			}
		}
		group, err := strconv.Atoi(set.ID)
		if err != nil || s.deps.Images == nil {
			return reply{}, setImageNotFound(set)
		}
		logo, ok := s.deps.SetLogos.Lookup(group, set.Language)
		if !ok {
			return reply{}, setImageNotFound(set)
		}
		img, err := s.deps.Images.GetSetLogo(r.Context(), logo.Language, logo.Serie, logo.Set)
		return s.imageReply(r, img, err, "unsized", func() *apiError { return setImageNotFound(set) })
	}
}

// setImageNotFound is the 404 of a set without a logo: "Image not
// available", as DECISIONS.md words it (a card without one is "Image not
// found").
func setImageNotFound(set *catalog.ListedSet) *apiError {
	return newError(http.StatusNotFound, errImageUnavailable, "The set "+set.ID+" ("+set.Name+") has no image.")
}

// ambiguousSetCode is the 409 of the set image route: the code matches
// several sets, listed in matches.
func ambiguousSetCode(key string, sets []*catalog.ListedSet) *apiError {
	e := newError(http.StatusConflict, errAmbiguousSetCode, fmt.Sprintf(
		"The set code %q matches %d sets; add ?language= (one of their languages) or ask by the set_id of the one you want.", key, len(sets)))
	matches := make([]setMatch, len(sets))
	for i, st := range sets {
		matches[i] = setMatch{SetID: st.ID, SetCode: st.Code, Name: st.Name, Language: st.Language}
	}
	e.Body.Matches = matches
	return e
}

// setMatch is one set of a 409's matches.
type setMatch struct {
	SetID    string `json:"set_id"`
	SetCode  string `json:"set_code"`
	Name     string `json:"name"`
	Language string `json:"language"`
}
