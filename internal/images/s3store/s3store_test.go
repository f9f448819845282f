package s3store_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
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
	cfg, err := s3store.Config{
		Endpoint:  endpoint,
		Bucket:    envOr(envBucket, "cardcat-test"),
		AccessKey: envOr(envAccessKey, "cardcat-test"),
		SecretKey: envOr(envSecretKey, "cardcat-test-secret"),
		Region:    envOr(envRegion, "us-east-1"),
		Prefix:    "run-" + rand.Text()[:12] + "/" + t.Name(),
	}.Normalized()
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

// A Store with no region configured asks the server for the bucket's.
func TestRegionDiscovered(t *testing.T) {
	cfg := testConfig(t)
	cfg.Region = ""
	st := mustNew(t, cfg)
	if err := st.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	roundTrip(t, st)
}

// Without keys in the Config, credentials come from the AWS chain; each case
// leaves the chain only one place to find them.
func TestCredentialChain(t *testing.T) {
	base := testConfig(t)
	accessKey, secretKey := base.AccessKey, base.SecretKey
	base.AccessKey, base.SecretKey = "", ""

	t.Run("environment", func(t *testing.T) {
		isolateAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
		st := mustNew(t, base)
		if err := st.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		roundTrip(t, st)
	})
	t.Run("wrong secret in the environment", func(t *testing.T) {
		isolateAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey+"-wrong")
		st := mustNew(t, base)
		if err := st.Check(context.Background()); err == nil {
			t.Error("Check with a wrong secret from the environment succeeded")
		}
		if _, err := st.Get(context.Background(), storetest.MustKey(t, 1)); err == nil || errors.Is(err, images.ErrNotStored) {
			t.Errorf("Get with a wrong secret from the environment: got %v, want an authentication error", err)
		}
	})
	t.Run("shared credentials file", func(t *testing.T) {
		isolateAWSEnv(t)
		file := filepath.Join(t.TempDir(), "credentials")
		ini := "[cardcat]\naws_access_key_id = " + accessKey + "\naws_secret_access_key = " + secretKey + "\n"
		if err := os.WriteFile(file, []byte(ini), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", file)
		t.Setenv("AWS_PROFILE", "cardcat")
		st := mustNew(t, base)
		if err := st.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		roundTrip(t, st)
	})
	t.Run("container role endpoint", func(t *testing.T) {
		isolateAWSEnv(t)
		var asked atomic.Int64
		role := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"AccessKeyId": accessKey, "SecretAccessKey": secretKey,
				"Expiration": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			})
		}))
		defer role.Close()
		t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", role.URL+"/role")
		st := mustNew(t, base)
		if err := st.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		roundTrip(t, st)
		if asked.Load() == 0 {
			t.Error("the role endpoint was never asked")
		}
	})
	t.Run("none found", func(t *testing.T) {
		isolateAWSEnv(t)
		err := mustNew(t, base).Check(context.Background())
		if err == nil || !strings.Contains(err.Error(), "credential chain") {
			t.Fatalf("Check with no credentials anywhere: got %v, want an error about the credential chain", err)
		}
	})
}

// isolateAWSEnv empties every variable the AWS credential chain reads and
// points it at files that do not exist and at a container role endpoint that
// has no role, so that neither the machine's own credentials nor a slow
// instance metadata lookup reach the test.
func isolateAWSEnv(t *testing.T) {
	t.Helper()
	for _, name := range []string{
		"AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY", "AWS_SESSION_TOKEN",
		"AWS_PROFILE", "AWS_REGION", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
	} {
		t.Setenv(name, "")
	}
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", missing)
	t.Setenv("AWS_CONFIG_FILE", missing)
	noRole := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(noRole.Close)
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", noRole.URL+"/role")
}

// roundTrip puts an image with st and reads it back.
func roundTrip(t *testing.T, st *s3store.Store) {
	t.Helper()
	key := storetest.MustKey(t, 2)
	body := []byte("image bytes")
	img := &images.Image{Body: body, ContentType: "image/png", ETag: images.ETagOf(body), FetchedAt: time.Now()}
	if err := st.Put(context.Background(), key, img); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if string(got.Body) != string(body) || got.ContentType != "image/png" || got.ETag != img.ETag || !got.FetchedAt.Equal(img.FetchedAt) {
		t.Errorf("Get = %+v, want %+v", got, img)
	}
}

// minio-go retries what is worth retrying: a server that is briefly
// overloaded (503 SlowDown) costs a caller time, not an error.
func TestRetriesSlowDown(t *testing.T) {
	cfg := testConfig(t)
	scheme := "http"
	if cfg.UseSSL {
		scheme = "https"
	}
	server := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: scheme, Host: cfg.Endpoint})
	var refused atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("location") || refused.Add(1)%2 == 0 {
			server.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
	}))
	defer proxy.Close()
	cfg.Endpoint, cfg.UseSSL = proxy.Listener.Addr().String(), false
	st := mustNew(t, cfg)
	if err := st.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	roundTrip(t, st)
	if n := refused.Load(); n < 6 {
		t.Errorf("%d requests reached the proxy, want every call refused once and retried", n)
	}
}
