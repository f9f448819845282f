package s3blob_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
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

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/blobtest"
	"github.com/cardcat/cardcat/internal/blob/s3blob"
)

// The tests below run against a real S3-compatible server, the one
// .ci/s3-server starts (blobtest.S3Config), or skip.

func mustNew(t *testing.T, cfg s3blob.Config) *s3blob.Bucket {
	t.Helper()
	b, err := s3blob.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBucket(t *testing.T) {
	blobtest.S3Config(t) // skip early
	blobtest.Run(t, func(t *testing.T) blob.Bucket { return blobtest.S3(t) })
}

func TestCheck(t *testing.T) {
	cfg := blobtest.S3Config(t)
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
	cfg := blobtest.S3Config(t)
	good := mustNew(t, cfg)
	blobtest.MustPut(t, good, "o", []byte("bytes"), blob.Attrs{})
	cfg.SecretKey += "-wrong"
	bad := mustNew(t, cfg)
	if _, err := bad.Get(context.Background(), "o", io.Discard); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get with a wrong secret: got %v, want an authentication error", err)
	}
	if _, err := bad.List(context.Background(), ""); err == nil {
		t.Error("List with a wrong secret succeeded")
	}
	if err := bad.Put(context.Background(), "o", strings.NewReader("x"), 1, blob.Attrs{}); err == nil {
		t.Error("Put with a wrong secret succeeded")
	}
	if err := bad.Check(context.Background()); err == nil {
		t.Error("Check with a wrong secret succeeded")
	}
}

// A Bucket with no region configured asks the server for the bucket's.
func TestRegionDiscovered(t *testing.T) {
	cfg := blobtest.S3Config(t)
	cfg.Region = ""
	b := mustNew(t, cfg)
	if err := b.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	roundTrip(t, b)
}

// Without keys in the Config, credentials come from the AWS chain; each case
// leaves the chain only one place to find them.
func TestCredentialChain(t *testing.T) {
	base := blobtest.S3Config(t)
	accessKey, secretKey := base.AccessKey, base.SecretKey
	base.AccessKey, base.SecretKey = "", ""

	t.Run("environment", func(t *testing.T) {
		isolateAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
		b := mustNew(t, base)
		if err := b.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		roundTrip(t, b)
	})
	t.Run("wrong secret in the environment", func(t *testing.T) {
		isolateAWSEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey+"-wrong")
		b := mustNew(t, base)
		if err := b.Check(context.Background()); err == nil {
			t.Error("Check with a wrong secret from the environment succeeded")
		}
		if _, err := b.Get(context.Background(), "o", io.Discard); err == nil || errors.Is(err, fs.ErrNotExist) {
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
		b := mustNew(t, base)
		if err := b.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		roundTrip(t, b)
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
		b := mustNew(t, base)
		if err := b.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		roundTrip(t, b)
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

// roundTrip puts an object with b and reads it back.
func roundTrip(t *testing.T, b *s3blob.Bucket) {
	t.Helper()
	body := []byte("object bytes")
	attrs := blob.Attrs{ContentType: "image/png", Metadata: map[string]string{"etag": `"e"`}}
	blobtest.MustPut(t, b, "x/o", body, attrs)
	got, gotAttrs := blobtest.MustGet(t, b, "x/o")
	if string(got) != string(body) || gotAttrs.ContentType != attrs.ContentType || gotAttrs.Metadata["etag"] != `"e"` {
		t.Errorf("Get = %q, %+v; want %q, %+v", got, gotAttrs, body, attrs)
	}
}

// minio-go retries what is worth retrying: a server that is briefly
// overloaded (503 SlowDown) costs a caller time, not an error.
func TestRetriesSlowDown(t *testing.T) {
	cfg := blobtest.S3Config(t)
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
	b := mustNew(t, cfg)
	if err := b.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	roundTrip(t, b)
	if n := refused.Load(); n < 6 {
		t.Errorf("%d requests reached the proxy, want every call refused once and retried", n)
	}
}
