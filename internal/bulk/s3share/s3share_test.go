package s3share_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/bulk/s3share"
	"github.com/cardcat/cardcat/internal/images/s3store"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// TestObjects: the contract package bulk relies on, against the real S3
// server of .ci/s3-server.
func TestObjects(t *testing.T) {
	endpoint := os.Getenv("CARDCAT_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("CARDCAT_TEST_S3_ENDPOINT is not set: start a real S3 server with .ci/s3-server (see /work/notes/env.sh)")
	}
	o, err := s3share.New(s3store.Config{
		Endpoint:  endpoint,
		Bucket:    envOr("CARDCAT_TEST_S3_BUCKET", "cardcat-test"),
		AccessKey: envOr("CARDCAT_TEST_S3_ACCESS_KEY", "cardcat-test"),
		SecretKey: envOr("CARDCAT_TEST_S3_SECRET_KEY", "cardcat-test-secret"),
		Region:    envOr("CARDCAT_TEST_S3_REGION", "us-east-1"),
		Prefix:    "s3share-test-" + strings.ToLower(rand.Text()[:12]),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var got bytes.Buffer
	if err := o.Get(ctx, "bulk/1/x.json", &got); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get of no object: %v, want fs.ErrNotExist", err)
	}
	for _, name := range []string{"bulk/1/a/x.json", "bulk/1/b/y.gz", "bulk/2/claim.json", "other/z"} {
		body := []byte("body of " + name)
		if err := o.Put(ctx, name, bytes.NewReader(body), int64(len(body))); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Get(ctx, "bulk/1/b/y.gz", &got); err != nil || got.String() != "body of bulk/1/b/y.gz" {
		t.Errorf("Get: %q, %v", got.String(), err)
	}
	names, err := o.List(ctx, "bulk/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bulk/1/a/x.json", "bulk/1/b/y.gz", "bulk/2/claim.json"}, names); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	for range 2 { // the second time the object is gone: no error either
		if err := o.Delete(ctx, "bulk/2/claim.json"); err != nil {
			t.Errorf("Delete: %v", err)
		}
	}
	if err := o.Get(ctx, "bulk/2/claim.json", &got); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get after Delete: %v, want fs.ErrNotExist", err)
	}
}
