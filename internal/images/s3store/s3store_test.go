package s3store_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/images/s3store"
	"github.com/cardcat/cardcat/internal/images/storetest"
)

// The tests below run against a real S3-compatible server, the one
// .ci/s3-server starts: CARDCAT_TEST_S3_ENDPOINT (host:port or URL) names it;
// the other variables default to what that script sets up.
const (
	envEndpoint  = "CARDCAT_TEST_S3_ENDPOINT"
	envBucket    = "CARDCAT_TEST_S3_BUCKET"     // default cardcat-test
	envAccessKey = "CARDCAT_TEST_S3_ACCESS_KEY" // default cardcat-test
	envSecretKey = "CARDCAT_TEST_S3_SECRET_KEY" // default cardcat-test-secret
	envRegion    = "CARDCAT_TEST_S3_REGION"     // default us-east-1
)

// testConfig is the test server's config, under a prefix of its own (apart
// from every other test's and every earlier run's objects), or a skip when no
// server is named.
func testConfig(t *testing.T) s3store.Config {
	t.Helper()
	endpoint := os.Getenv(envEndpoint)
	if endpoint == "" {
		t.Skipf("%s is not set: start a real S3 server with .ci/s3-server and export the variables it prints", envEndpoint)
	}
	env := map[string]string{
		"CARDCAT_S3_ENDPOINT":   endpoint,
		"CARDCAT_S3_BUCKET":     envOr(envBucket, "cardcat-test"),
		"CARDCAT_S3_ACCESS_KEY": envOr(envAccessKey, "cardcat-test"),
		"CARDCAT_S3_SECRET_KEY": envOr(envSecretKey, "cardcat-test-secret"),
		"CARDCAT_S3_REGION":     envOr(envRegion, "us-east-1"),
		"CARDCAT_S3_PREFIX":     "run-" + rand.Text()[:12] + "/" + t.Name(),
	}
	if !strings.Contains(endpoint, "://") {
		env["CARDCAT_S3_USE_SSL"] = "false"
	}
	cfg, err := s3store.ConfigFromEnv(func(name string) string { return env[name] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func mustNew(t *testing.T, cfg s3store.Config) *s3store.Store {
	t.Helper()
	st, err := s3store.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStorage(t *testing.T) {
	testConfig(t) // skip early
	storetest.Run(t, func(t *testing.T) images.Storage { return mustNew(t, testConfig(t)) })
}

func TestCheck(t *testing.T) {
	cfg := testConfig(t)
	if err := mustNew(t, cfg).Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	cfg.Bucket = "cardcat-no-such-bucket"
	if err := mustNew(t, cfg).Check(context.Background()); err == nil {
		t.Fatal("Check of a missing bucket succeeded")
	}
}

// The server checks signatures: a wrong secret is an error, not a miss.
func TestWrongCredentials(t *testing.T) {
	cfg := testConfig(t)
	good := mustNew(t, cfg)
	key := storetest.MustKey(t, 1)
	body := []byte("image bytes")
	img := &images.Image{Body: body, ContentType: "image/jpeg", ETag: images.ETagOf(body), FetchedAt: time.Now()}
	if err := good.Put(context.Background(), key, img); err != nil {
		t.Fatal(err)
	}
	cfg.SecretKey += "-wrong"
	bad := mustNew(t, cfg)
	if _, err := bad.Get(context.Background(), key); err == nil || errors.Is(err, images.ErrNotStored) {
		t.Errorf("Get with a wrong secret: got %v, want an authentication error", err)
	}
	if err := bad.Put(context.Background(), key, img); err == nil {
		t.Error("Put with a wrong secret succeeded")
	}
	if err := bad.Check(context.Background()); err == nil {
		t.Error("Check with a wrong secret succeeded")
	}
}

// Two services (two replicas) on one bucket share the cache: the second one
// serves what the first fetched without asking the source.
func TestReplicasShareImages(t *testing.T) {
	cfg := testConfig(t)
	var fetches atomic.Int64
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write([]byte("\xff\xd8\xff shared picture"))
	}))
	defer cdn.Close()
	icfg := images.Config{SourceURL: cdn.URL + "/{productId}.jpg", FetchTimeout: 2 * time.Second}
	var served []*images.Image
	for range 2 {
		svc, err := images.New(icfg, mustNew(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		img, err := svc.Get(context.Background(), 31337)
		if err != nil {
			t.Fatal(err)
		}
		served = append(served, img)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("source fetches = %d, want 1", n)
	}
	if served[0].ETag != served[1].ETag || string(served[1].Body) != "\xff\xd8\xff shared picture" || served[1].ContentType != "image/jpeg" {
		t.Errorf("second replica served %+v, want the first one's image", served[1])
	}
}
