package s3store

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables read by ConfigFromEnv. The access and secret keys may
// instead be read from the file named by the variable with a _FILE suffix.
const (
	EnvEndpoint  = "CARDCAT_S3_ENDPOINT"
	EnvBucket    = "CARDCAT_S3_BUCKET"
	EnvRegion    = "CARDCAT_S3_REGION"
	EnvAccessKey = "CARDCAT_S3_ACCESS_KEY"
	EnvSecretKey = "CARDCAT_S3_SECRET_KEY"
	EnvUseSSL    = "CARDCAT_S3_USE_SSL"
	EnvPrefix    = "CARDCAT_S3_PREFIX"
)

// DefaultTimeout is Config.Timeout when it is zero.
const DefaultTimeout = 10 * time.Second

// Config says where the images live.
type Config struct {
	// Endpoint is the server's host[:port] ("s3.eu-west-1.amazonaws.com",
	// "127.0.0.1:9000"). A URL ("http://127.0.0.1:9000") also sets UseSSL.
	Endpoint string
	Bucket   string
	// Region is the bucket's region. When empty, it is read from an AWS
	// endpoint's name (s3.eu-west-1.amazonaws.com), or else asked of the
	// server (GetBucketLocation) once per Store.
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
	// Prefix is put before every object name ("cardcat/images/"), so the
	// bucket can hold other things too.
	Prefix string
	// Timeout bounds one call of the Store (Get, Put, Check), its retries
	// and any credential or region lookup included (DefaultTimeout when zero).
	Timeout time.Duration
}

// Enabled reports whether S3 storage is configured at all.
func (c Config) Enabled() bool { return c.Endpoint != "" }

// StaticCredentials reports whether c names its own keys, rather than
// leaving credentials to AWS's chain.
func (c Config) StaticCredentials() bool { return c.AccessKey != "" }

// ConfigFromEnv reads CARDCAT_S3_ENDPOINT, CARDCAT_S3_BUCKET,
// CARDCAT_S3_REGION, CARDCAT_S3_ACCESS_KEY (or CARDCAT_S3_ACCESS_KEY_FILE),
// CARDCAT_S3_SECRET_KEY (or CARDCAT_S3_SECRET_KEY_FILE), CARDCAT_S3_USE_SSL
// (default true, or what the endpoint URL's scheme says) and
// CARDCAT_S3_PREFIX. With no endpoint it returns a Config that is not
// Enabled; with one, the result is validated.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Endpoint: strings.TrimSpace(getenv(EnvEndpoint)),
		Bucket:   strings.TrimSpace(getenv(EnvBucket)),
		Region:   strings.TrimSpace(getenv(EnvRegion)),
		Prefix:   strings.TrimSpace(getenv(EnvPrefix)),
		UseSSL:   true,
	}
	var err error
	if c.AccessKey, err = secret(getenv, EnvAccessKey); err != nil {
		return Config{}, err
	}
	if c.SecretKey, err = secret(getenv, EnvSecretKey); err != nil {
		return Config{}, err
	}
	if !c.Enabled() {
		if c.Bucket != "" || c.AccessKey != "" || c.SecretKey != "" {
			return Config{}, fmt.Errorf("s3store: %s is required with the other %s settings", EnvEndpoint, "CARDCAT_S3_*")
		}
		return Config{}, nil
	}
	if v := strings.TrimSpace(getenv(EnvUseSSL)); v != "" {
		useSSL, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("s3store: %s=%q: want true or false", EnvUseSSL, v)
		}
		c.UseSSL = useSSL
	}
	if scheme, _, ok := strings.Cut(c.Endpoint, "://"); ok {
		if v := getenv(EnvUseSSL); v != "" && c.UseSSL != (scheme == "https") {
			return Config{}, fmt.Errorf("s3store: %s=%q disagrees with %s=%q", EnvUseSSL, v, EnvEndpoint, c.Endpoint)
		}
	}
	n, err := c.Normalized()
	if err != nil {
		return Config{}, err
	}
	return n, nil
}

// secret reads NAME, or the file NAME_FILE names (surrounding space trimmed).
func secret(getenv func(string) string, name string) (string, error) {
	value, file := getenv(name), getenv(name+"_FILE")
	switch {
	case value != "" && file != "":
		return "", fmt.Errorf("s3store: both %s and %s_FILE are set", name, name)
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("s3store: %s_FILE: %w", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	default:
		return strings.TrimSpace(value), nil
	}
}

// Normalized returns c with defaults filled in, the endpoint reduced to
// host[:port] (its scheme, if any, moved to UseSSL) and the prefix ending in
// "/", or the first thing wrong with it. New normalizes its Config; callers
// use Normalized to refuse a bad configuration at start-up.
func (c Config) Normalized() (Config, error) {
	if scheme, rest, ok := strings.Cut(c.Endpoint, "://"); ok {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (scheme != "http" && scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
			return c, fmt.Errorf("s3store: endpoint %q: want host[:port] or http(s)://host[:port]", c.Endpoint)
		}
		c.UseSSL = scheme == "https"
		c.Endpoint = strings.TrimSuffix(rest, "/")
	}
	if c.Endpoint == "" || strings.ContainsAny(c.Endpoint, "/?#@ ") {
		return c, fmt.Errorf("s3store: endpoint %q: want host[:port] or http(s)://host[:port]", c.Endpoint)
	}
	if err := validBucket(c.Bucket); err != nil {
		return c, err
	}
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return c, errors.New("s3store: the access key and the secret key go together: set both, or neither to use the AWS credential chain")
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.Prefix = strings.Trim(c.Prefix, "/")
	if c.Prefix != "" {
		for _, part := range strings.Split(c.Prefix, "/") {
			if part == "" || part == "." || part == ".." || !safeName(part) {
				return c, fmt.Errorf("s3store: prefix %q: want slash-separated names of letters, digits, '-', '_' and '.'", c.Prefix)
			}
		}
		c.Prefix += "/"
	}
	return c, nil
}

// validBucket checks S3's bucket naming rules.
func validBucket(b string) error {
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("s3store: bucket %q: want 3 to 63 characters", b)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return fmt.Errorf("s3store: bucket %q: want lowercase letters, digits, '-' and '.'", b)
		}
	}
	if b[0] == '-' || b[0] == '.' || b[len(b)-1] == '-' || b[len(b)-1] == '.' || strings.Contains(b, "..") {
		return fmt.Errorf("s3store: bucket %q: must start and end with a letter or digit", b)
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
