package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
)

// cdn is a stand-in for TCGplayer's image CDN that counts its fetches.
func cdn(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if !strings.HasSuffix(r.URL.Path, "_in_1000x1000.jpg") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write([]byte("\xff\xd8\xff jpeg of " + r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	return srv, &fetches
}

func TestServeImages(t *testing.T) {
	src, fetches := cdn(t)
	vars := map[string]string{"CARDCAT_TCGPLAYER_IMAGE_URL": src.URL + "/product/{productId}_in_1000x1000.jpg"}
	dir := t.TempDir()
	key := newKey(t, dir)
	s := startServe(t, dir, vars)

	roshi := s.url + "/dbs/images/" + catalog.TCGCardID("dbs", 535906)
	resp, body := get(t, roshi, "X-API-Key", key)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "/product/535906_in_1000x1000.jpg") {
		t.Fatalf("image: %d %q", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Image-Size") != "unsized" || resp.Header.Get("Cache-Control") != "public, max-age=86400" {
		t.Errorf("headers %v", resp.Header)
	}
	resp, _ = get(t, roshi, "X-API-Key", key, "If-None-Match", resp.Header.Get("ETag"))
	if resp.StatusCode != http.StatusNotModified || fetches.Load() != 1 {
		t.Errorf("revalidation: %d after %d fetches", resp.StatusCode, fetches.Load())
	}
	// A code card lists no image.
	resp, _ = get(t, s.url+"/dbs/images/"+catalog.TCGCardID("dbs", 541181), "X-API-Key", key)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("code card image: %d", resp.StatusCode)
	}
	resp, body = get(t, s.url+"/health")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"storage":{"status":"healthy"`) {
		t.Errorf("/health: %s", body)
	}
}

// TestServeImagesSharedS3 runs two servers with their own data directories
// on one S3 bucket: the second serves the first one's fetch from the shared
// cache.
func TestServeImagesSharedS3(t *testing.T) {
	endpoint := os.Getenv("CARDCAT_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("CARDCAT_TEST_S3_ENDPOINT is not set (start one with .ci/s3-server); skipping the shared S3 cache test")
	}
	src, fetches := cdn(t)
	or := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	vars := map[string]string{
		"CARDCAT_TCGPLAYER_IMAGE_URL": src.URL + "/product/{productId}_in_1000x1000.jpg",
		"CARDCAT_S3_ENDPOINT":         endpoint,
		"CARDCAT_S3_BUCKET":           or("CARDCAT_TEST_S3_BUCKET", "cardcat-test"),
		"CARDCAT_S3_REGION":           or("CARDCAT_TEST_S3_REGION", "us-east-1"),
		"CARDCAT_S3_ACCESS_KEY":       or("CARDCAT_TEST_S3_ACCESS_KEY", "cardcat-test"),
		"CARDCAT_S3_SECRET_KEY":       or("CARDCAT_TEST_S3_SECRET_KEY", "cardcat-test-secret"),
		"CARDCAT_S3_PREFIX":           "e2e-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + randomHex(t),
	}
	path := "/mtg/images/" + catalog.TCGCardID("mtg", 507040)
	dirA, dirB := t.TempDir(), t.TempDir() // each replica its own store, so each its own key
	keyA, keyB := newKey(t, dirA), newKey(t, dirB)
	a := startServe(t, dirA, vars)
	if resp, body := get(t, a.url+path, "X-API-Key", keyA); resp.StatusCode != http.StatusOK {
		t.Fatalf("first replica: %d %s", resp.StatusCode, body)
	}
	b := startServe(t, dirB, vars)
	if resp, body := get(t, b.url+path, "X-API-Key", keyB); resp.StatusCode != http.StatusOK {
		t.Fatalf("second replica: %d %s", resp.StatusCode, body)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("CDN fetched %d times for two replicas sharing S3, want 1", n)
	}
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
