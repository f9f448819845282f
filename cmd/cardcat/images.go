package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/cardcat/cardcat/internal/images"
	"github.com/cardcat/cardcat/internal/images/fsstore"
	"github.com/cardcat/cardcat/internal/images/s3store"
)

// openImages builds the image service: S3-compatible storage when
// CARDCAT_S3_ENDPOINT is set (replicas share one cache), else the data
// directory's images/.
func openImages(ctx context.Context, env *Env, dataDir string) (*images.Service, string, error) {
	s3cfg, err := s3store.ConfigFromEnv(env.Getenv)
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
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
		st, where = s3, "s3 "+s3cfg.Endpoint+"/"+s3cfg.Bucket
	} else {
		fs, err := fsstore.New(filepath.Join(dataDir, "images"))
		if err != nil {
			return nil, "", err
		}
		st = fs
	}
	svc, err := images.New(images.ConfigFromEnv(env.Getenv), st, images.WithLogger(env.Log))
	if err != nil {
		return nil, "", usageError{err.Error()}
	}
	return svc, where, nil
}
