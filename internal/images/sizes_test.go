package images_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/images"
)

func TestSizedURL(t *testing.T) {
	for _, tt := range []struct{ template, suffix, want string }{
		{"https://cdn/product/{productId}_in_1000x1000.jpg", "400w", "https://cdn/product/{productId}_400w.jpg"},
		{"https://cdn/product/{productId}_200w.jpg", "in_1000x1000", "https://cdn/product/{productId}_in_1000x1000.jpg"},
		{"https://cdn/img/{productId}.png", "400w", "https://cdn/img/{productId}.png"}, // another form: one size
		{"https://cdn/img?id={productId}_x", "400w", "https://cdn/img?id={productId}_x"},
	} {
		if got := images.SizedURL(tt.template, tt.suffix); got != tt.want {
			t.Errorf("SizedURL(%q, %q) = %q, want %q", tt.template, tt.suffix, got, tt.want)
		}
	}
}

// pathServer answers every path it was given with its own bytes, 404 else,
// and counts the requests of each path.
func pathServer(t *testing.T, paths ...string) (*httptest.Server, func(string) int) {
	var mu sync.Mutex
	asked := map[string]int{}
	known := map[string]bool{}
	for _, p := range paths {
		known[p] = true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		if !known[r.URL.Path] {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("image of " + r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	return srv, func(p string) int { mu.Lock(); defer mu.Unlock(); return asked[p] }
}

// TestSizesAndSetLogos: a product's image in another size is fetched from
// the template with that suffix and kept apart; the template's own suffix is
// the plain image; set logos come from their template, each TCGdex id its
// own key, case included.
func TestSizesAndSetLogos(t *testing.T) {
	srv, asked := pathServer(t, "/product/5_in_1000x1000.jpg", "/product/5_400w.jpg",
		"/en/base/base1/logo.png", "/ja/ADV/ADV1/logo.png", "/ja/adv/adv1/logo.png")
	disk := blobtest.Disk(t)
	svc, err := images.New(images.Config{SourceURL: srv.URL + "/product/{productId}_in_1000x1000.jpg",
		SetLogoURL: srv.URL + "/{language}/{serie}/{set}/logo.png"}, disk)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	body := func(img *images.Image, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return string(img.Body)
	}
	if got := body(svc.GetSize(ctx, 5, "400w")); got != "image of /product/5_400w.jpg" {
		t.Errorf("low: %q", got)
	}
	if got := body(svc.Get(ctx, 5)); got != "image of /product/5_in_1000x1000.jpg" {
		t.Errorf("plain: %q", got)
	}
	if got := body(svc.GetSize(ctx, 5, "in_1000x1000")); got != "image of /product/5_in_1000x1000.jpg" {
		t.Errorf("high: %q", got)
	}
	body(svc.GetSize(ctx, 5, "400w"))
	if asked("/product/5_400w.jpg") != 1 || asked("/product/5_in_1000x1000.jpg") != 1 {
		t.Errorf("fetches: low %d, high %d; want one each (the high size is the plain image)",
			asked("/product/5_400w.jpg"), asked("/product/5_in_1000x1000.jpg"))
	}
	if got := body(svc.GetSetLogo(ctx, "en", "base", "base1")); got != "image of /en/base/base1/logo.png" {
		t.Errorf("logo: %q", got)
	}
	if a, b := body(svc.GetSetLogo(ctx, "ja", "ADV", "ADV1")), body(svc.GetSetLogo(ctx, "ja", "adv", "adv1")); a == b {
		t.Errorf("ADV1 and adv1 share an image: %q", a)
	}
	if _, err := svc.GetSetLogo(ctx, "en", "base", "nope"); !errors.Is(err, images.ErrNotFound) {
		t.Errorf("a set without a logo: %v", err)
	}
	if _, err := svc.GetSetLogo(ctx, "en", "", "base1"); !errors.Is(err, images.ErrNotFound) {
		t.Errorf("an empty serie: %v", err)
	}
	for _, bad := range [][3]string{{"en", "../x", "y"}, {"en", "a/b", "c"}} {
		k, err := images.SetLogoKey(bad[0], bad[1], bad[2])
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Clean(k.String()) != k.String() || len(filepath.SplitList(k.String())) != 1 {
			t.Errorf("SetLogoKey(%q) = %q", bad, k)
		}
	}
	if k, _ := images.SetLogoKey("en", "a/b", "c"); k.String() != "tcgdex/en/x-612f62/c" {
		t.Errorf("a slash in an id: key %q", k)
	}
}
