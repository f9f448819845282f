package main

import (
	"log/slog"

	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/cardcat/cardcat/internal/bulk"
)

// openBulk returns serve's builder of the bulk files, which keeps them in
// dir (the data directory's bulk/); with S3 configured (the image storage's
// CARDCAT_S3_*), replicas share them there under bulk/, so that each
// version is built once (docs/operations.md, "Bulk files").
func openBulk(dir string, s3cfg s3blob.Config, log *slog.Logger) (*bulk.Builder, error) {
	if !s3cfg.Enabled() {
		log.Info("bulk files", "where", "disk "+dir)
		return bulk.New(dir, log), nil
	}
	objs, err := s3blob.New(s3cfg)
	if err != nil {
		return nil, err
	}
	log.Info("bulk files", "where", "disk "+dir, "shared", objs.String()+"bulk/")
	return bulk.New(dir, log, bulk.WithShared(objs)), nil
}
