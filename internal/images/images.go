// Package images serves card images: fetched from the TCGplayer CDN, kept in a
// blob.Bucket (local disk or S3-compatible object storage; storage.go says
// how an image is kept there) and served from there for 24 hours.
//
// The HTTP handler resolves the card first (a card without a TCGplayer product
// or with no image is a 404 before this package is asked), then:
//
//	img, err := svc.Get(r.Context(), card.TCGProductID)
//	if err != nil {
//		return err // errors.Is ErrNotFound → 404 "Image not found", ErrUnavailable → 502 "Image not available"
//	}
//	images.Write(w, r, img)
//
// The storage check of /health is svc.ProbeStorage(ctx): a write and read of a
// small probe object, with its response time.
package images

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound means the source has no image for the product (it answered
// 404 or 410), or the product id is not a valid one. The API answers 404
// "Image not found".
var ErrNotFound = errors.New("images: image not found")

// ErrInvalidProduct is returned for a product id that is not a positive
// integer; it is an ErrNotFound.
var ErrInvalidProduct = fmt.Errorf("%w: invalid product id", ErrNotFound)

// ErrUnavailable means the source could not give an image (timeout, 5xx,
// unreachable, a non-image or oversized answer) and none is stored. The API
// answers 502 "Image not available".
var ErrUnavailable = errors.New("images: image not available")

// ErrNotStored is returned by GetStored when the key holds no image.
var ErrNotStored = errors.New("images: not stored")

// ErrInvalidKey is returned by GetStored and PutStored given the zero Key.
var ErrInvalidKey = errors.New("images: invalid storage key")

// Image is one stored image. Body is shared between the callers that asked for
// the same image at once: treat it as read-only.
type Image struct {
	Body        []byte
	ContentType string    // the source's image/* media type
	ETag        string    // strong entity tag, quoted: a sha256 prefix of Body
	FetchedAt   time.Time // when the source gave Body

	fromSource bool // fetched by this process, not read from storage (Outcome)
}

// Key names an image in storage. Keys are made only by this package, from a
// validated product id (or for the health probe), so storage never sees a
// key a client chose: no path traversal, no arbitrary names. Keys are
// slash-separated lowercase ASCII letters, digits, '-' and '.', never "." or
// "..", for example "tcgplayer/1234".
type Key struct{ name string }

// ProductKey is the key of the image of a TCGplayer product.
func ProductKey(productID int) (Key, error) {
	if productID <= 0 {
		return Key{}, ErrInvalidProduct
	}
	return Key{name: "tcgplayer/" + strconv.Itoa(productID)}, nil
}

// sizedKey is the key of a product image in another size: the product's,
// with the size's suffix ("tcgplayer/1234-400w").
func sizedKey(k Key, suffix string) (Key, error) {
	part := strings.ReplaceAll(strings.ToLower(suffix), "_", "-")
	if !keyPart.MatchString(part) {
		return Key{}, fmt.Errorf("%w: image size %q", ErrInvalidProduct, suffix)
	}
	return Key{name: k.name + "-" + part}, nil
}

// keyPart is what a part of a key may be.
var keyPart = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// SetLogoKey is the key of a set's logo, by its TCGdex language, serie and
// set ("tcgdex/en/base/base1"). A part that is not lower case letters,
// digits, '.' and '-' (TCGdex's Japanese ids are "ADV1", "L2") is written
// "x-" and its bytes in hex, so that two ids never share a key.
func SetLogoKey(language, serie, set string) (Key, error) {
	parts := []string{"tcgdex"}
	for _, p := range []string{language, serie, set} {
		if p == "" || len(p) > 64 {
			return Key{}, fmt.Errorf("%w: set logo %q/%q/%q", ErrInvalidProduct, language, serie, set)
		}
		if !keyPart.MatchString(p) || strings.HasPrefix(p, "x-") || strings.Contains(p, "..") {
			p = "x-" + hex.EncodeToString([]byte(p))
		}
		parts = append(parts, p)
	}
	return Key{name: strings.Join(parts, "/")}, nil
}

// SizedURL is a product image URL template in another size: TCGplayer's
// image files are {productId}_{suffix}.jpg, so the suffix after
// "{productId}_" and before the next '.' is replaced. A template of
// another form is returned as it is (every size is then its one image).
func SizedURL(template, suffix string) string {
	i := strings.Index(template, ProductIDPlaceholder+"_")
	if i < 0 {
		return template
	}
	start := i + len(ProductIDPlaceholder) + 1
	end := strings.IndexByte(template[start:], '.')
	if end <= 0 {
		return template
	}
	return template[:start] + suffix + template[start+end:]
}

// String returns the key's slash-separated name ("" for the zero Key).
func (k Key) String() string { return k.name }

// Valid reports whether k was made by this package (the zero Key is not).
func (k Key) Valid() bool { return k.name != "" }

// ETagOf returns the strong entity tag of an image body: the first 16 bytes
// of its sha256, in hex, quoted.
func ETagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}
