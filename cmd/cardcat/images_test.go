package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/images"
	"github.com/google/go-cmp/cmp"
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
// cache. The first has its keys and region in CARDCAT_S3_*; the second has
// neither: it finds its keys through the AWS credential chain
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), as a server with an IAM role
// would, and asks the server for the bucket's region. Its start-up check
// refuses to run with no credentials found, so its serving at all shows that
// the chain found them.
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
	varsB := maps.Clone(vars)
	delete(varsB, "CARDCAT_S3_ACCESS_KEY")
	delete(varsB, "CARDCAT_S3_SECRET_KEY")
	delete(varsB, "CARDCAT_S3_REGION")
	t.Setenv("AWS_ACCESS_KEY_ID", vars["CARDCAT_S3_ACCESS_KEY"])
	t.Setenv("AWS_SECRET_ACCESS_KEY", vars["CARDCAT_S3_SECRET_KEY"])
	t.Setenv("AWS_SESSION_TOKEN", "")
	b := startServe(t, dirB, varsB)
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

func TestS3ConfigFromEnv(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cr3t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want s3blob.Config
	}{
		{"unset", nil, s3blob.Config{}},
		{
			"full",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "s3.eu-west-1.amazonaws.com", "CARDCAT_S3_BUCKET": "card-images",
				"CARDCAT_S3_REGION": "eu-west-1", "CARDCAT_S3_ACCESS_KEY": "AKID", "CARDCAT_S3_SECRET_KEY": "secret",
				"CARDCAT_S3_PREFIX": "/cardcat/images/",
			},
			s3blob.Config{Endpoint: "s3.eu-west-1.amazonaws.com", Bucket: "card-images", Region: "eu-west-1",
				AccessKey: "AKID", SecretKey: "secret", UseSSL: true, Prefix: "cardcat/images/", Timeout: s3blob.DefaultTimeout},
		},
		{
			"secrets from files, plain http",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "127.0.0.1:9000", "CARDCAT_S3_BUCKET": "cardcat",
				"CARDCAT_S3_ACCESS_KEY_FILE": secretFile, "CARDCAT_S3_SECRET_KEY_FILE": secretFile,
				"CARDCAT_S3_USE_SSL": "false",
			},
			s3blob.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat",
				AccessKey: "s3cr3t", SecretKey: "s3cr3t", Timeout: s3blob.DefaultTimeout},
		},
		{
			"endpoint URL sets the scheme",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "http://minio.internal:9000/", "CARDCAT_S3_BUCKET": "cardcat",
				"CARDCAT_S3_ACCESS_KEY": "a", "CARDCAT_S3_SECRET_KEY": "b",
			},
			s3blob.Config{Endpoint: "minio.internal:9000", Bucket: "cardcat",
				AccessKey: "a", SecretKey: "b", Timeout: s3blob.DefaultTimeout},
		},
		{
			"USE_SSL agreeing with the URL's scheme",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "https://minio.internal", "CARDCAT_S3_BUCKET": "cardcat", "CARDCAT_S3_USE_SSL": "true",
			},
			s3blob.Config{Endpoint: "minio.internal", Bucket: "cardcat", UseSSL: true, Timeout: s3blob.DefaultTimeout},
		},
		{
			"no keys: the AWS credential chain, region found by the client",
			map[string]string{"CARDCAT_S3_ENDPOINT": "s3.eu-west-1.amazonaws.com", "CARDCAT_S3_BUCKET": "card-images"},
			s3blob.Config{Endpoint: "s3.eu-west-1.amazonaws.com", Bucket: "card-images", UseSSL: true, Timeout: s3blob.DefaultTimeout},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s3ConfigFromEnv(testEnv(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("s3ConfigFromEnv (-want +got):\n%s", diff)
			}
			if got.Enabled() != (tt.env != nil) {
				t.Errorf("Enabled() = %v", got.Enabled())
			}
		})
	}
}

func TestS3ConfigFromEnvErrors(t *testing.T) {
	base := map[string]string{
		"CARDCAT_S3_ENDPOINT": "127.0.0.1:9000", "CARDCAT_S3_BUCKET": "cardcat",
		"CARDCAT_S3_ACCESS_KEY": "a", "CARDCAT_S3_SECRET_KEY": "b",
	}
	tests := []struct {
		name   string
		change map[string]string
		want   string
	}{
		{"no endpoint", map[string]string{"CARDCAT_S3_ENDPOINT": ""}, "CARDCAT_S3_ENDPOINT is required"},
		{"no endpoint, only a prefix", map[string]string{"CARDCAT_S3_ENDPOINT": "", "CARDCAT_S3_BUCKET": "", "CARDCAT_S3_ACCESS_KEY": "", "CARDCAT_S3_SECRET_KEY": "", "CARDCAT_S3_PREFIX": "p"}, "CARDCAT_S3_ENDPOINT is required"},
		{"no bucket", map[string]string{"CARDCAT_S3_BUCKET": ""}, "bucket"},
		{"bad bucket", map[string]string{"CARDCAT_S3_BUCKET": "Card_Images"}, "bucket"},
		{"no secret", map[string]string{"CARDCAT_S3_SECRET_KEY": ""}, "secret key"},
		{"no access key", map[string]string{"CARDCAT_S3_ACCESS_KEY": ""}, "access key"},
		{"key and key file", map[string]string{"CARDCAT_S3_ACCESS_KEY_FILE": "/x"}, "both"},
		{"secret and secret file", map[string]string{"CARDCAT_S3_SECRET_KEY_FILE": "/x"}, "both"},
		{"missing key file", map[string]string{"CARDCAT_S3_ACCESS_KEY": "", "CARDCAT_S3_ACCESS_KEY_FILE": "/nonexistent/key"}, "ACCESS_KEY_FILE"},
		{"bad bool", map[string]string{"CARDCAT_S3_USE_SSL": "maybe"}, "USE_SSL"},
		{"scheme against USE_SSL", map[string]string{"CARDCAT_S3_ENDPOINT": "https://h:9000", "CARDCAT_S3_USE_SSL": "false"}, "disagrees"},
		{"http scheme against USE_SSL", map[string]string{"CARDCAT_S3_ENDPOINT": "http://h:9000", "CARDCAT_S3_USE_SSL": "1"}, "disagrees"},
		{"endpoint with a path", map[string]string{"CARDCAT_S3_ENDPOINT": "http://h:9000/bucket"}, "endpoint"},
		{"bad prefix", map[string]string{"CARDCAT_S3_PREFIX": "a/../b"}, "prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := maps.Clone(base)
			maps.Copy(env, tt.change)
			_, err := s3ConfigFromEnv(testEnv(env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestImagesConfig(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CARDCAT_TCGPLAYER_IMAGE_URL": " http://127.0.0.1:1/{productId}.png "}, "http://127.0.0.1:1/{productId}.png"},
		{nil, images.DefaultSourceURL},
	} {
		c, err := config.Bind(config.Serve, nil, testEnv(tt.env))
		if err != nil {
			t.Fatal(err)
		}
		if cfg, err := readImageConfig(c); err != nil || cfg.service.SourceURL != tt.want {
			t.Errorf("%v: SourceURL %q, %v; want %q", tt.env, cfg.service.SourceURL, err, tt.want)
		}
	}
}

// s3ConfigFromEnv is the S3 storage of serve's settings read from getenv.
func s3ConfigFromEnv(getenv func(string) string) (s3blob.Config, error) {
	c, err := config.Bind(config.Serve, nil, getenv)
	if err != nil {
		return s3blob.Config{}, err
	}
	return s3Config(c)
}

// A bad S3 setting stops serve before it listens, as a usage error.
func TestServeRefusesBadS3Config(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	vars := map[string]string{"CARDCAT_S3_ENDPOINT": "127.0.0.1:1", "CARDCAT_S3_BUCKET": "cardcat", "CARDCAT_S3_ACCESS_KEY": "only-one"}
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, testEnv(vars), &out, &errb)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "secret key") {
		t.Fatalf("serve with an access key and no secret key: %v, want a usage error", err)
	}
}
