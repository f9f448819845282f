package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/cardcat/cardcat/internal/blob/s3blob"
	"github.com/cardcat/cardcat/internal/config"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/schedule"
	"github.com/cardcat/cardcat/internal/serving"
	"github.com/cardcat/cardcat/internal/store"
)

// Snapshot artifacts (docs/operations.md, "Snapshot artifacts"): a
// version's serving snapshot written once, by the process that builds it
// first, under {data-dir}/snapshots and in the S3 bucket of CARDCAT_S3_*
// when set, so that a replica reads it instead of building it.

// openArtifacts returns the artifacts of the data directory, shared through
// S3 when s3 is not nil (openS3), and through the directory itself when the
// store is SQLite in it (whoever writes that store writes its artifacts
// there); nil when artifacts are off (--snapshot-artifacts).
func openArtifacts(enabled bool, sf config.StoreConfig, s3 *s3blob.Bucket, log *slog.Logger) *serving.Artifacts {
	if !enabled {
		return nil
	}
	a := &serving.Artifacts{Dir: filepath.Join(sf.DataDir, "snapshots"), SharedDir: sf.DatabaseURL == "", Log: log}
	if s3 != nil {
		a.Remote = s3
	}
	return a
}

// writeIngestedArtifact builds the version ingest has just written and
// writes its artifact, so that the first replica to serve it reads it. The
// version is committed already: a failure is logged, and replicas build it.
func writeIngestedArtifact(ctx context.Context, env *Env, c *config.Config, s3cfg s3blob.Config, st store.Store) {
	s3, err := openS3(s3cfg)
	if err != nil {
		env.Log.Error("snapshot artifact not written", "err", err)
		return
	}
	arts := openArtifacts(c.Catalogue.SnapshotArtifacts, c.Store, s3, env.Log)
	if arts == nil {
		return
	}
	buildArtifact(ctx, arts, st, c.Catalogue.LoadTimeout, env.Log)
}

// buildArtifact builds the store's version as serve would and writes its
// artifact (a failure is logged: replicas then build the version).
func buildArtifact(ctx context.Context, arts *serving.Artifacts, st store.Store, loadTimeout time.Duration, log *slog.Logger) {
	h := serving.NewHolder(st, game.Default(), log)
	h.Artifacts, h.LoadTimeout = arts, loadTimeout
	if err := h.Refresh(ctx); err != nil {
		log.Error("snapshot artifact not written: the version could not be built", "err", err)
	}
}

// withArtifact makes the scheduled refresh write the artifact of each
// version it ingests, as `cardcat ingest` does, where artifacts are Shared
// (S3, or the data directory of a SQLite store): the replicas (this one
// included) wait for it rather than each building the version. Otherwise no
// replica waits (each builds, this one writing its artifact then), so there
// is nothing to add.
func withArtifact(sched *schedule.Scheduler, arts *serving.Artifacts, st store.Store, loadTimeout time.Duration, log *slog.Logger) {
	if sched == nil || arts == nil || !arts.Shared() {
		return
	}
	work := sched.Work
	sched.Work = func(ctx context.Context, now time.Time) (int64, error) {
		v, err := work(ctx, now)
		if err == nil {
			buildArtifact(ctx, arts, st, loadTimeout, log)
		}
		return v, err
	}
}
