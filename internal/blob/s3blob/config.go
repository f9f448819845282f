package s3blob

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout is Config.Timeout when it is zero.
const DefaultTimeout = 10 * time.Second

// Config says where the objects live: one bucket and prefix for every user
// of S3 (the image cache, the bulk files, the snapshot artifacts, each
// under names of its own). It is filled by the caller (cmd/cardcat reads it
// from the CARDCAT_S3_* variables); this package reads no environment of
// its own, except that the credential chain (see AccessKey) is AWS's.
type Config struct {
	// Endpoint is the server's host[:port] ("s3.eu-west-1.amazonaws.com",
	// "127.0.0.1:9000"). A URL ("http://127.0.0.1:9000") also sets UseSSL.
	Endpoint string
	Bucket   string
	// Region is the bucket's region. When empty, it is read from an AWS
	// endpoint's name (s3.eu-west-1.amazonaws.com), or else asked of the
	// server (GetBucketLocation) once per Bucket.
	Region string
	// AccessKey and SecretKey are static credentials: both or neither. With
	// neither, credentials come from AWS's chain, first found wins:
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN),
	// the shared credentials file (AWS_SHARED_CREDENTIALS_FILE or
	// ~/.aws/credentials, profile AWS_PROFILE or default), then IAM (a web
	// identity token, an ECS or EKS task role, an EC2 instance profile).
	AccessKey string
	SecretKey string
	UseSSL    bool
	// Prefix is put before every object name ("cardcat/"), so the bucket
	// can hold other things too.
	Prefix string
	// Timeout bounds one call of the Bucket (Get, Put, List, Delete,
	// Check), its retries and any credential or region lookup included
	// (DefaultTimeout when zero); transferring an object's bytes gets a
	// second more per MiB (see minRate).
	Timeout time.Duration
}

// Enabled reports whether S3 storage is configured at all.
func (c Config) Enabled() bool { return c.Endpoint != "" }

// StaticCredentials reports whether c names its own keys, rather than
// leaving credentials to AWS's chain.
func (c Config) StaticCredentials() bool { return c.AccessKey != "" }

// Normalized returns c with defaults filled in, the endpoint reduced to
// host[:port] (its scheme, if any, moved to UseSSL) and the prefix ending in
// "/", or the first thing wrong with it. New normalizes its Config; callers
// use Normalized to refuse a bad configuration at start-up.
func (c Config) Normalized() (Config, error) {
	if scheme, rest, ok := strings.Cut(c.Endpoint, "://"); ok {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (scheme != "http" && scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
			return c, fmt.Errorf("s3blob: endpoint %q: want host[:port] or http(s)://host[:port]", c.Endpoint)
		}
		c.UseSSL = scheme == "https"
		c.Endpoint = strings.TrimSuffix(rest, "/")
	}
	if c.Endpoint == "" || strings.ContainsAny(c.Endpoint, "/?#@ ") {
		return c, fmt.Errorf("s3blob: endpoint %q: want host[:port] or http(s)://host[:port]", c.Endpoint)
	}
	if err := validBucket(c.Bucket); err != nil {
		return c, err
	}
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return c, errors.New("s3blob: the access key and the secret key go together: set both, or neither to use the AWS credential chain")
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.Prefix = strings.Trim(c.Prefix, "/")
	if c.Prefix != "" {
		for _, part := range strings.Split(c.Prefix, "/") {
			if part == "" || part == "." || part == ".." || !safeName(part) {
				return c, fmt.Errorf("s3blob: prefix %q: want slash-separated names of letters, digits, '-', '_' and '.'", c.Prefix)
			}
		}
		c.Prefix += "/"
	}
	return c, nil
}

// validBucket checks S3's bucket naming rules.
func validBucket(b string) error {
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("s3blob: bucket %q: want 3 to 63 characters", b)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return fmt.Errorf("s3blob: bucket %q: want lowercase letters, digits, '-' and '.'", b)
		}
	}
	if b[0] == '-' || b[0] == '.' || b[len(b)-1] == '-' || b[len(b)-1] == '.' || strings.Contains(b, "..") {
		return fmt.Errorf("s3blob: bucket %q: must start and end with a letter or digit", b)
	}
	return nil
}

// safeName reports whether s has only characters that need no escaping in a
// URL path.
func safeName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
