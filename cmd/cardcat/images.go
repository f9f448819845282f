package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/blob/fileblob"
	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/images"
)

// imageConfig is serve's image settings.
type imageConfig struct {
	service images.Config
	s3      s3blob.Config // not Enabled: the data directory's images/
}

func readImageConfig(c *config.Config) (imageConfig, error) {
	s3cfg, err := s3Config(c)
	if err != nil {
		return imageConfig{}, err
	}
	return imageConfig{service: images.Config{SourceURL: c.Images.SourceURL, SetLogoURL: c.Images.SetLogoURL}, s3: s3cfg}, nil
}

// openS3 returns the S3 bucket of the CARDCAT_S3_* settings, one client
// that the image cache, the bulk files and the snapshot artifacts share;
// nil when S3 is not configured. It does not contact the server
// (openImages checks it).
func openS3(cfg s3blob.Config) (*s3blob.Bucket, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	return s3blob.New(cfg)
}

// openImages builds the image service: S3-compatible storage when s3 is not
// nil (openS3: replicas share one cache), checked first, else the data
// directory's images/.
func openImages(ctx context.Context, env *Env, cfg imageConfig, s3 *s3blob.Bucket, dataDir string, opts ...images.Option) (*images.Service, string, error) {
	s3cfg := cfg.s3
	var st blob.Bucket
	where := "disk " + filepath.Join(dataDir, "images")
	if s3 != nil {
		if err := s3.Check(ctx); err != nil {
			return nil, "", fmt.Errorf("image storage: %w", err)
		}
		creds := "static keys"
		if !s3cfg.StaticCredentials() {
			creds = "the AWS credential chain"
		}
		st, where = s3, "s3 "+s3cfg.Endpoint+"/"+s3cfg.Bucket+" with "+creds
	} else {
		fs, err := fileblob.New(filepath.Join(dataDir, "images"))
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

// s3Config is the S3 storage of the CARDCAT_S3_* settings, shared by the
// image cache, the bulk files and the snapshot artifacts. With no endpoint
// it is not Enabled, and refuses any other CARDCAT_S3_* setting (S3 was
// meant, and would silently not be used); with one, it is the Config as
// s3blob normalizes and validates it: a mistake is a usage error.
func s3Config(c *config.Config) (s3blob.Config, error) {
	s := c.S3
	if s.Endpoint == "" {
		if s.Set() {
			return s3blob.Config{}, config.Errorf("CARDCAT_S3_ENDPOINT is required with the other CARDCAT_S3_* settings")
		}
		return s3blob.Config{}, nil
	}
	cfg := s3blob.Config{Endpoint: s.Endpoint, Bucket: s.Bucket, Region: s.Region, AccessKey: s.AccessKey, SecretKey: s.SecretKey,
		Prefix: s.Prefix, UseSSL: true}
	if s.UseSSL != nil {
		cfg.UseSSL = *s.UseSSL
		if scheme, _, ok := strings.Cut(s.Endpoint, "://"); ok && cfg.UseSSL != (scheme == "https") {
			return s3blob.Config{}, config.Errorf("CARDCAT_S3_USE_SSL=%t disagrees with CARDCAT_S3_ENDPOINT=%q", cfg.UseSSL, s.Endpoint)
		}
	}
	cfg, err := cfg.Normalized()
	if err != nil {
		return s3blob.Config{}, config.Errorf("%v", err)
	}
	return cfg, nil
}
