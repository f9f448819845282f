package main

import (
	"log/slog"

	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/cardcat/cardcat/internal/bulk"
)

// openBulk returns serve's builder of the bulk files, which keeps them in
// dir (the data directory's bulk/); with S3 (s3 not nil: openS3), replicas
// share them there under bulk/, so that each version is built once
// (docs/operations.md, "Bulk files").
func openBulk(dir string, s3 *s3blob.Bucket, log *slog.Logger) *bulk.Builder {
	if s3 == nil {
		log.Info("bulk files", "where", "disk "+dir)
		return bulk.New(dir, log)
	}
	log.Info("bulk files", "where", "disk "+dir, "shared", s3.String()+"bulk/")
	return bulk.New(dir, log, bulk.WithShared(s3))
}
