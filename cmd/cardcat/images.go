package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/images/fsstore"
	"github.com/cardcat/cardcat/internal/images/s3store"
)

// Environment variables of the image service and its S3 storage. The two
// keys may instead be read from the file named by NAME_FILE (see envSecret).
const (
	envImageURL    = "CARDCAT_TCGPLAYER_IMAGE_URL"
	envS3Endpoint  = "CARDCAT_S3_ENDPOINT"
	envS3Bucket    = "CARDCAT_S3_BUCKET"
	envS3Region    = "CARDCAT_S3_REGION"
	envS3AccessKey = "CARDCAT_S3_ACCESS_KEY"
	envS3SecretKey = "CARDCAT_S3_SECRET_KEY"
	envS3UseSSL    = "CARDCAT_S3_USE_SSL"
	envS3Prefix    = "CARDCAT_S3_PREFIX"
)

// imageConfig is serve's image settings, read from the environment.
type imageConfig struct {
	service images.Config
	s3      s3store.Config // not Enabled: the data directory's images/
}

func readImageConfig(getenv func(string) string) (imageConfig, error) {
	s3cfg, err := s3ConfigFromEnv(getenv)
	if err != nil {
		return imageConfig{}, usageError{err.Error()}
	}
	return imageConfig{service: imagesConfigFromEnv(getenv), s3: s3cfg}, nil
}

// openImages builds the image service: S3-compatible storage when
// CARDCAT_S3_ENDPOINT is set (replicas share one cache), else the data
// directory's images/.
func openImages(ctx context.Context, env *Env, cfg imageConfig, dataDir string, opts ...images.Option) (*images.Service, string, error) {
	s3cfg := cfg.s3
	var st images.Storage
	where := "disk " + filepath.Join(dataDir, "images")
	if s3cfg.Enabled() {
		s3, err := s3store.New(s3cfg)
		if err != nil {
			return nil, "", err
		}
		if err := s3.Check(ctx); err != nil {
			return nil, "", fmt.Errorf("image storage: %w", err)
		}
		creds := "static keys"
		if !s3cfg.StaticCredentials() {
			creds = "the AWS credential chain"
		}
		st, where = s3, "s3 "+s3cfg.Endpoint+"/"+s3cfg.Bucket+" with "+creds
	} else {
		fs, err := fsstore.New(filepath.Join(dataDir, "images"))
		if err != nil {
			return nil, "", err
		}
		st = fs
	}
	svc, err := images.New(cfg.service, st, append([]images.Option{images.WithLogger(env.Log)}, opts...)...)
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
	return svc, where, nil
}

// imagesConfigFromEnv reads the image service's settings that have
// environment variables (CARDCAT_TCGPLAYER_IMAGE_URL); the rest keep their
// defaults. images.New validates the result.
func imagesConfigFromEnv(getenv func(string) string) images.Config {
	return images.Config{SourceURL: strings.TrimSpace(getenv(envImageURL))}
}

// s3ConfigFromEnv reads CARDCAT_S3_ENDPOINT, _BUCKET, _REGION, _ACCESS_KEY
// (or _ACCESS_KEY_FILE), _SECRET_KEY (or _SECRET_KEY_FILE), _USE_SSL
// (default true, or what the endpoint URL's scheme says) and _PREFIX. With
// no endpoint it returns a Config that is not Enabled, and refuses any other
// CARDCAT_S3_* setting (S3 was meant, and would silently not be used); with
// one, the Config as s3store normalizes and validates it.
func s3ConfigFromEnv(getenv func(string) string) (s3store.Config, error) {
	c := s3store.Config{
		Endpoint: strings.TrimSpace(getenv(envS3Endpoint)),
		Bucket:   strings.TrimSpace(getenv(envS3Bucket)),
		Region:   strings.TrimSpace(getenv(envS3Region)),
		Prefix:   strings.TrimSpace(getenv(envS3Prefix)),
		UseSSL:   true,
	}
	var err error
	if c.AccessKey, err = envSecret(getenv, envS3AccessKey); err != nil {
		return s3store.Config{}, err
	}
	if c.SecretKey, err = envSecret(getenv, envS3SecretKey); err != nil {
		return s3store.Config{}, err
	}
	useSSL := strings.TrimSpace(getenv(envS3UseSSL))
	if !c.Enabled() {
		if c.Bucket != "" || c.Region != "" || c.Prefix != "" || c.AccessKey != "" || c.SecretKey != "" || useSSL != "" {
			return s3store.Config{}, fmt.Errorf("%s is required with the other CARDCAT_S3_* settings", envS3Endpoint)
		}
		return s3store.Config{}, nil
	}
	if useSSL != "" {
		if c.UseSSL, err = strconv.ParseBool(useSSL); err != nil {
			return s3store.Config{}, fmt.Errorf("%s=%q: want true or false", envS3UseSSL, useSSL)
		}
		if scheme, _, ok := strings.Cut(c.Endpoint, "://"); ok && c.UseSSL != (scheme == "https") {
			return s3store.Config{}, fmt.Errorf("%s=%q disagrees with %s=%q", envS3UseSSL, useSSL, envS3Endpoint, c.Endpoint)
		}
	}
	return c.Normalized()
}
