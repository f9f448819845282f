package s3store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/images/s3store"
	"github.com/google/go-cmp/cmp"
)

func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestConfigFromEnv(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cr3t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want s3store.Config
	}{
		{"unset", nil, s3store.Config{}},
		{
			"full",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "s3.eu-west-1.amazonaws.com", "CARDCAT_S3_BUCKET": "card-images",
				"CARDCAT_S3_REGION": "eu-west-1", "CARDCAT_S3_ACCESS_KEY": "AKID", "CARDCAT_S3_SECRET_KEY": "secret",
				"CARDCAT_S3_PREFIX": "/cardcat/images/",
			},
			s3store.Config{Endpoint: "s3.eu-west-1.amazonaws.com", Bucket: "card-images", Region: "eu-west-1",
				AccessKey: "AKID", SecretKey: "secret", UseSSL: true, Prefix: "cardcat/images/", Timeout: s3store.DefaultTimeout},
		},
		{
			"secrets from files, plain http",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "127.0.0.1:9000", "CARDCAT_S3_BUCKET": "cardcat",
				"CARDCAT_S3_ACCESS_KEY_FILE": secretFile, "CARDCAT_S3_SECRET_KEY_FILE": secretFile,
				"CARDCAT_S3_USE_SSL": "false",
			},
			s3store.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat", Region: "us-east-1",
				AccessKey: "s3cr3t", SecretKey: "s3cr3t", Timeout: s3store.DefaultTimeout},
		},
		{
			"endpoint URL sets the scheme",
			map[string]string{
				"CARDCAT_S3_ENDPOINT": "http://minio.internal:9000/", "CARDCAT_S3_BUCKET": "cardcat",
				"CARDCAT_S3_ACCESS_KEY": "a", "CARDCAT_S3_SECRET_KEY": "b",
			},
			s3store.Config{Endpoint: "minio.internal:9000", Bucket: "cardcat", Region: "us-east-1",
				AccessKey: "a", SecretKey: "b", Timeout: s3store.DefaultTimeout},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s3store.ConfigFromEnv(envOf(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("ConfigFromEnv (-want +got):\n%s", diff)
			}
			if got.Enabled() != (tt.env != nil) {
				t.Errorf("Enabled() = %v", got.Enabled())
			}
		})
	}
}

func TestConfigFromEnvErrors(t *testing.T) {
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
		{"no bucket", map[string]string{"CARDCAT_S3_BUCKET": ""}, "bucket"},
		{"bad bucket", map[string]string{"CARDCAT_S3_BUCKET": "Card_Images"}, "bucket"},
		{"no secret", map[string]string{"CARDCAT_S3_SECRET_KEY": ""}, "secret key"},
		{"key and key file", map[string]string{"CARDCAT_S3_ACCESS_KEY_FILE": "/x"}, "both"},
		{"missing key file", map[string]string{"CARDCAT_S3_ACCESS_KEY": "", "CARDCAT_S3_ACCESS_KEY_FILE": "/nonexistent/key"}, "ACCESS_KEY_FILE"},
		{"bad bool", map[string]string{"CARDCAT_S3_USE_SSL": "maybe"}, "USE_SSL"},
		{"scheme against USE_SSL", map[string]string{"CARDCAT_S3_ENDPOINT": "https://h:9000", "CARDCAT_S3_USE_SSL": "false"}, "disagrees"},
		{"endpoint with a path", map[string]string{"CARDCAT_S3_ENDPOINT": "http://h:9000/bucket"}, "endpoint"},
		{"bad prefix", map[string]string{"CARDCAT_S3_PREFIX": "a/../b"}, "prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range tt.change {
				env[k] = v
			}
			_, err := s3store.ConfigFromEnv(envOf(env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := s3store.New(s3store.Config{Endpoint: "127.0.0.1:9000", Bucket: "b"}); err == nil {
		t.Fatal("New without credentials succeeded")
	}
	st, err := s3store.New(s3store.Config{Endpoint: "127.0.0.1:9000", Bucket: "cardcat", AccessKey: "a", SecretKey: "b", Timeout: time.Second})
	if err != nil || st == nil {
		t.Fatalf("New: %v", err)
	}
}
