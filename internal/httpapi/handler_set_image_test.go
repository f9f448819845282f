package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/images"
)

// logoCDN serves an image for every path it knows, 404 else, and records
// the paths asked.
type logoCDN struct {
	srv   *httptest.Server
	mu    sync.Mutex
	known map[string]bool
	asked []string
}

func newLogoCDN(t *testing.T, paths ...string) *logoCDN {
	c := &logoCDN{known: map[string]bool{}}
	for _, p := range paths {
		c.known[p] = true
	}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.asked = append(c.asked, r.URL.Path)
		c.mu.Unlock()
		if !c.known[r.URL.Path] {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("image of " + r.URL.Path))
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// setImageCatalog is the base game with two sets sharing the code SM8, as
// TCGplayer's English (3/2328) and Japanese (85/23687) Lost Thunder do, and
// Base Set.
func setImageCatalog() *catalog.Catalog {
	set := func(id, code, name, lang string, cat, group int) catalog.Set {
		return catalog.Set{Game: "pkm", ID: id, Code: code, Name: name, Language: lang, ReleaseDate: "2018-11-02T00:00:00",
			TCGCategoryID: cat, TCGGroupID: group}
	}
	card := func(product int, setID, name string) catalog.Card {
		return catalog.Card{Game: "pkm", ID: catalog.TCGCardID("pkm", product), SetID: setID, TCGProductID: product,
			Name: name, CleanName: name, CardNumber: "001/102", ProductType: catalog.ProductCard, ImageCount: 1}
	}
	return &catalog.Catalog{Version: 3, CreatedAt: testNow, Games: []catalog.GameCatalog{{Game: "pkm",
		Sets: []catalog.Set{set("604", "BS", "Base Set", "en", 3, 604), set("2328", "SM8", "Lost Thunder", "en", 3, 2328),
			set("23687", "SM8", "Lost Thunder", "ja", 85, 23687)},
		Cards: []catalog.Card{card(42346, "604", "Alakazam"), card(2328001, "2328", "Tapu Lele"), card(2368701, "23687", "Tapu Lele")},
	}}}
}

// TestSetImage: GET /sets/{set}/image serves TCGdex's logo of the set
// (by links/pokemon-tcgdex/sets.csv), by set_id or code; a code of two sets
// is 409 with the matches, which language= narrows; a set TCGdex does not
// pair is 404; only the base game has the route.
func TestSetImage(t *testing.T) {
	f, err := os.Open(filepath.Join(sampleDir, "links", "pokemon-tcgdex", "sets.csv"))
	if err != nil {
		t.Fatal(err)
	}
	logos, err := images.ReadSetLogos(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	cdn := newLogoCDN(t, "/en/base/base1/logo.png", "/en/sm/sm8/logo.png")
	st, err := fileblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := images.New(images.Config{SourceURL: cdn.srv.URL + "/product/{productId}_in_1000x1000.jpg",
		SetLogoURL: cdn.srv.URL + "/{language}/{serie}/{set}/logo.png", FetchTimeout: 2 * time.Second}, st)
	if err != nil {
		t.Fatal(err)
	}
	deps := testDeps(mustView(t, setImageCatalog()))
	deps.Images, deps.SetLogos = svc, logos
	h := mustServer(t, Config{}, deps)

	for _, tt := range []struct {
		path   string
		status int
		body   string // the image's, or the error's
	}{
		{"/sets/BS/image", 200, "image of /en/base/base1/logo.png"},
		{"/sets/604/image", 200, "image of /en/base/base1/logo.png"},
		{"/sets/bs/image?language=EN", 200, "image of /en/base/base1/logo.png"},
		{"/sets/SM8/image?language=en", 200, "image of /en/sm/sm8/logo.png"},
		{"/sets/SM8/image", 409, "Ambiguous set code"},
		{"/sets/23687/image", 404, "Image not available"}, // TCGdex pairs no Japanese set with a TCGplayer group
		{"/sets/SM8/image?language=ja", 404, "Image not available"},
		{"/sets/BS/image?language=ja", 404, "Set not found"},
		{"/sets/NOPE/image", 404, "Set not found"},
		{"/sets/BS/image?language=e", 400, "Invalid parameter"},
		{"/dbs/sets/FB01/image", 404, "Endpoint not found"},
	} {
		w := get(h, tt.path, "X-API-Key", "pk_test_abcdefghijklmnopqrstuvwxyz012345")
		checkAnswer(t, requestOfRecorder(t, w), w)
		if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.body) {
			t.Errorf("GET %s: %d %s; want %d %q", tt.path, w.Code, w.Body, tt.status, tt.body)
		}
		if w.Code == 200 && w.Header().Get("X-Image-Size") != "unsized" {
			t.Errorf("GET %s: X-Image-Size %q", tt.path, w.Header().Get("X-Image-Size"))
		}
	}
	w := get(h, "/sets/SM8/image", "X-API-Key", "pk_test_abcdefghijklmnopqrstuvwxyz012345")
	var body struct {
		Message string
		Matches []map[string]string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"set_id": "2328", "set_code": "SM8", "name": "Lost Thunder", "language": "en"},
		{"set_id": "23687", "set_code": "SM8", "name": "Lost Thunder", "language": "ja"},
	}
	if len(body.Matches) != 2 || !strings.Contains(body.Message, "language") {
		t.Fatalf("409: %s", w.Body)
	}
	for _, m := range want {
		found := false
		for _, g := range body.Matches {
			found = found || g["set_id"] == m["set_id"] && g["language"] == m["language"] && g["name"] == m["name"] && g["set_code"] == m["set_code"]
		}
		if !found {
			t.Errorf("409 matches %v lack %v", body.Matches, m)
		}
	}
}

// TestCardImageSizes: the base game's card images take size=low|high (low
// by default: TCGplayer's 400-pixel file), named by X-Image-Size; another
// size is 400. The prefixed games have one size and ignore size.
func TestCardImageSizes(t *testing.T) {
	cdn := newLogoCDN(t, "/product/42346_400w.jpg", "/product/42346_in_1000x1000.jpg", "/product/535600_in_1000x1000.jpg")
	st, err := fileblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := images.New(images.Config{SourceURL: cdn.srv.URL + "/product/{productId}_in_1000x1000.jpg", FetchTimeout: 2 * time.Second}, st)
	if err != nil {
		t.Fatal(err)
	}
	c := setImageCatalog()
	c.Games = append(c.Games, mustFixture(t).Games...)
	deps := testDeps(mustView(t, c))
	deps.Images = svc
	h := mustServer(t, Config{}, deps)
	alakazam := "/images/" + catalog.TCGCardID("pkm", 42346)
	goku := "/dbs/images/" + catalog.TCGCardID("dbs", 535600)
	for _, tt := range []struct {
		path       string
		status     int
		size, body string
	}{
		{alakazam, 200, "low", "image of /product/42346_400w.jpg"},
		{alakazam + "?size=low", 200, "low", "image of /product/42346_400w.jpg"},
		{alakazam + "?size=high", 200, "high", "image of /product/42346_in_1000x1000.jpg"},
		{alakazam + "?size=huge", 400, "", "size must be one of low, high"},
		{alakazam + "?size=low&size=high", 400, "", "size must be one of low, high"},
		{goku + "?size=huge", 200, "unsized", "image of /product/535600_in_1000x1000.jpg"},
		{goku + "?size=low", 200, "unsized", "image of /product/535600_in_1000x1000.jpg"},
	} {
		w := get(h, tt.path, "X-API-Key", "pk_test_abcdefghijklmnopqrstuvwxyz012345")
		if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.body) || w.Header().Get("X-Image-Size") != tt.size {
			t.Errorf("GET %s: %d %q X-Image-Size %q; want %d %q %q", tt.path, w.Code, w.Body, w.Header().Get("X-Image-Size"), tt.status, tt.body, tt.size)
		}
	}
}
