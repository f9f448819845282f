package s3blob_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/google/go-cmp/cmp"
)

func TestNormalized(t *testing.T) {
	tests := []struct {
		name string
		in   s3blob.Config
		want s3blob.Config
	}{
		{
			"full",
			s3blob.Config{Endpoint: "s3.eu-west-1.amazonaws.com", Bucket: "card-images", Region: "eu-west-1",
				AccessKey: "AKID", SecretKey: "secret", UseSSL: true, Prefix: "/cardcat/images/", Timeout: time.Second},
			s3blob.Config{Endpoint: "s3.eu-west-1.amazonaws.com", Bucket: "card-images", Region: "eu-west-1",
				AccessKey: "AKID", SecretKey: "secret", UseSSL: true, Prefix: "cardcat/images/", Timeout: time.Second},
		},
		{
			"defaults; no keys leaves credentials to the AWS chain",
			s3blob.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat"},
			s3blob.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat", Timeout: s3blob.DefaultTimeout},
		},
		{
			"endpoint URL sets the scheme",
			s3blob.Config{Endpoint: "http://minio.internal:9000/", Bucket: "cardcat", AccessKey: "a", SecretKey: "b", UseSSL: true},
			s3blob.Config{Endpoint: "minio.internal:9000", Bucket: "cardcat", AccessKey: "a", SecretKey: "b", Timeout: s3blob.DefaultTimeout},
		},
		{
			"https URL",
			s3blob.Config{Endpoint: "https://minio.internal", Bucket: "cardcat"},
			s3blob.Config{Endpoint: "minio.internal", Bucket: "cardcat", UseSSL: true, Timeout: s3blob.DefaultTimeout},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Normalized()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("Normalized (-want +got):\n%s", diff)
			}
			if again, err := got.Normalized(); err != nil || again != got {
				t.Errorf("Normalized is not idempotent: %+v, %v", again, err)
			}
		})
	}
}

func TestNormalizedErrors(t *testing.T) {
	base := s3blob.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat", AccessKey: "a", SecretKey: "b"}
	tests := []struct {
		name   string
		change func(c *s3blob.Config)
		want   string
	}{
		{"no endpoint", func(c *s3blob.Config) { c.Endpoint = "" }, "endpoint"},
		{"endpoint with a path", func(c *s3blob.Config) { c.Endpoint = "http://h:9000/bucket" }, "endpoint"},
		{"endpoint with a query", func(c *s3blob.Config) { c.Endpoint = "http://h:9000?x=1" }, "endpoint"},
		{"endpoint of another scheme", func(c *s3blob.Config) { c.Endpoint = "ftp://h:9000" }, "endpoint"},
		{"endpoint with a user", func(c *s3blob.Config) { c.Endpoint = "user@h:9000" }, "endpoint"},
		{"no bucket", func(c *s3blob.Config) { c.Bucket = "" }, "bucket"},
		{"bad bucket", func(c *s3blob.Config) { c.Bucket = "Card_Images" }, "bucket"},
		{"bucket ending in a dash", func(c *s3blob.Config) { c.Bucket = "cards-" }, "bucket"},
		{"access key without secret key", func(c *s3blob.Config) { c.SecretKey = "" }, "secret key"},
		{"secret key without access key", func(c *s3blob.Config) { c.AccessKey = "" }, "access key"},
		{"bad prefix", func(c *s3blob.Config) { c.Prefix = "a/../b" }, "prefix"},
		{"prefix needing escapes", func(c *s3blob.Config) { c.Prefix = "a b" }, "prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.change(&c)
			if _, err := c.Normalized(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error about %q", err, tt.want)
			}
			if _, err := s3blob.New(c); err == nil {
				t.Fatal("New accepted what Normalized refuses")
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := s3blob.New(s3blob.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat", AccessKey: "a"}); err == nil {
		t.Fatal("New with an access key and no secret key succeeded")
	}
	for _, cfg := range []s3blob.Config{
		{Endpoint: "127.0.0.1:9000", Bucket: "cardcat", AccessKey: "a", SecretKey: "b", Timeout: time.Second},
		{Endpoint: "127.0.0.1:9000", Bucket: "cardcat"}, // the AWS credential chain
	} {
		if st, err := s3blob.New(cfg); err != nil || st == nil {
			t.Fatalf("New(%+v): %v", cfg, err)
		}
	}
}
